"""Text processing shared by the lexical metrics: tokenizers and n-gram counting."""
