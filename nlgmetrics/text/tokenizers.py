"""The BLEU tokenizers, token-for-token identical to sacrebleu 2.6's.

Each tokenizer maps one line to a tuple of tokens (sacrebleu produces a space-joined string and later splits it on
whitespace; returning the tokens directly skips that round trip and gives the same tokens).

- ``13a``: mteval-v13a, the WMT standard: unescapes four HTML entities, splits off punctuation and symbols, keeps
  ``.`` and ``,`` attached between digits, splits ``-`` after a digit.
- ``intl``: mteval-v14 international: splits Unicode punctuation (``\\p{P}``) unless it is between digits, and every
  symbol (``\\p{S}``).
- ``zh``: every Chinese character (sacrebleu's code-point table) becomes its own token, the rest as 13a's regex part.
- ``char``: every non-space character is a token.
- ``none``: whitespace split only.

:func:`tokenize_nist` is the NIST mteval-v14 tokenizer as nltk's ``NISTTokenizer.tokenize`` (HF evaluate's
``nist_mt``): the 13a rules after another entity table, with optional lowercasing and a whitespace-only mode.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import lru_cache
from xml.sax.saxutils import unescape

import regex

CACHE_SIZE = 2**16  # lines; like sacrebleu, repeated lines (the same references for every system) tokenize once

Tokenizer = Callable[[str], tuple]

# mteval-v13a's language-dependent rules, applied in this order:
# 1. ASCII punctuation and symbols become separate tokens: space ! " # $ % & ( ) * + / : ; < = > ? @ [ \ ] ^ _ ` { | } ~
#    (regex ``([\{-\~\[-\` -\&\(-\+\:-\@\/])`` -> `` \1 ``; one character at a time, so ``str.translate`` does it)
_V13A_SYMBOLS = str.maketrans({c: f" {c} " for c in ' !"#$%&()*+/:;<=>?@[\\]^_`{|}~'})
# 2. period and comma, unless preceded by a digit; 3. unless followed by a digit (matches consume two characters,
#    so these stay regular expressions); 4. dash after a digit.
_V13A_PERIOD_COMMA = (
    (re.compile(r"([^0-9])([\.,])"), r"\1 \2 "),
    (re.compile(r"([\.,])([^0-9])"), r" \1 \2"),
)
_V13A_DASH = (re.compile(r"([0-9])(-)"), r"\1 \2 ")


def _v13a_rules(line: str) -> tuple[str, ...]:
    line = line.translate(_V13A_SYMBOLS)
    if "." in line or "," in line:
        for pattern, replacement in _V13A_PERIOD_COMMA:
            line = pattern.sub(replacement, line)
    if "-" in line:
        line = _V13A_DASH[0].sub(_V13A_DASH[1], line)
    return tuple(line.split())


@lru_cache(maxsize=CACHE_SIZE)
def tokenize_13a(line: str) -> tuple[str, ...]:
    """mteval-v13a tokenization (sacrebleu's default)."""
    line = line.replace("<skipped>", "").replace("-\n", "").replace("\n", " ")
    if "&" in line:
        line = line.replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
    return _v13a_rules(f" {line} ")


# entities nltk's xml_unescape adds to xml.sax's &lt; &gt; &amp; (which it replaces first, first, last)
_NIST_ENTITIES = {"&apos;": "'", "&quot;": '"', "&#124;": "|", "&#91;": "[", "&#93;": "]"}


@lru_cache(maxsize=CACHE_SIZE)
def tokenize_nist(line: str, lowercase: bool = False, western_lang: bool = True) -> tuple[str, ...]:
    """NIST mteval-v14 tokenization as nltk's ``NISTTokenizer().tokenize(line, lowercase, western_lang)``.

    Drops ``<skipped>``, unescapes XML entities (``&lt; &gt;``, ``&apos; &quot; &#124; &#91; &#93;``, then
    ``&amp;``), turns U+2028 into a space; then, for Western languages, lowercases if asked and applies the 13a
    rules; otherwise only splits on whitespace (and ignores ``lowercase``, as nltk does).
    """
    line = unescape(line.replace("<skipped>", ""), _NIST_ENTITIES).replace("\u2028", " ")
    if not western_lang:
        return tuple(line.split())
    line = f" {line} "
    return _v13a_rules(line.lower() if lowercase else line)


_INTL_RULES = (
    (regex.compile(r"(\P{N})(\p{P})"), r"\1 \2 "),
    (regex.compile(r"(\p{P})(\P{N})"), r" \1 \2"),
    (regex.compile(r"(\p{S})"), r" \1 "),
)


@lru_cache(maxsize=CACHE_SIZE)
def tokenize_intl(line: str) -> tuple[str, ...]:
    """mteval-v14 international tokenization (Unicode punctuation and symbols)."""
    for pattern, replacement in _INTL_RULES:
        line = pattern.sub(replacement, line)
    return tuple(line.split())


# Code points sacrebleu's ``zh`` tokenizer treats as Chinese characters (inclusive ranges). sacrebleu writes two of
# its ranges as 5-hex-digit ``\\u`` escapes ('\\u20000', '\\u2f800', ...), which Python reads as a 4-digit escape
# plus a digit; compared with one character they act as the ranges U+2001..U+2A6D and U+2F81..U+2FA1 below (which
# also cover general punctuation such as U+2019 and U+2014). We reproduce that behaviour, since sacrebleu's scores
# are the reference.
_ZH_RANGES = (
    (0x3400, 0x4DB5), (0x4E00, 0x9FA5), (0x9FA6, 0x9FBB), (0xF900, 0xFA2D), (0xFA30, 0xFA6A), (0xFA70, 0xFAD9),
    (0x2001, 0x2A6D), (0x2F81, 0x2FA1), (0xFF00, 0xFFEF), (0x2E80, 0x2EFF), (0x3000, 0x303F), (0x31C0, 0x31EF),
    (0x2F00, 0x2FDF), (0x2FF0, 0x2FFF), (0x3100, 0x312F), (0x31A0, 0x31BF), (0xFE10, 0xFE1F), (0xFE30, 0xFE4F),
    (0x2600, 0x26FF), (0x2700, 0x27BF), (0x3200, 0x32FF), (0x3300, 0x33FF),
)
_ZH_CHAR = re.compile("([" + "".join(f"\\U{lo:08x}-\\U{hi:08x}" for lo, hi in _ZH_RANGES) + "])")


@lru_cache(maxsize=CACHE_SIZE)
def tokenize_zh(line: str) -> tuple[str, ...]:
    """sacrebleu's ``zh``: each Chinese character alone, the rest by the 13a regular expressions."""
    return _v13a_rules(_ZH_CHAR.sub(r" \1 ", line.strip()))


def tokenize_char(line: str) -> tuple[str, ...]:
    """Every non-whitespace character is a token."""
    return tuple(char for char in line if not char.isspace())


def tokenize_none(line: str) -> tuple[str, ...]:
    """No tokenization beyond splitting on whitespace."""
    return tuple(line.split())


BLEU_TOKENIZERS: dict[str, Tokenizer] = {
    "13a": tokenize_13a,
    "intl": tokenize_intl,
    "zh": tokenize_zh,
    "char": tokenize_char,
    "none": tokenize_none,
}


def get_tokenizer(name: str) -> Tokenizer:
    """Return the BLEU tokenizer called ``name`` (one of ``BLEU_TOKENIZERS``)."""
    try:
        return BLEU_TOKENIZERS[name]
    except (KeyError, TypeError):
        raise ValueError(
            f"unknown tokenize={name!r}; choose one of {sorted(BLEU_TOKENIZERS)} "
            "(13a is sacrebleu's default, zh for Chinese, char for character-level, intl for mteval-v14)."
        ) from None


#: a tokenizer name (``BLEU_TOKENIZERS``) or a callable text -> list of tokens (HF evaluate's ``tokenizer=``)
TokenizerSpec = str | Callable[[str], Sequence[str]]


def check_tokenizer(tokenizer: object) -> TokenizerSpec:
    """``tokenizer`` if it is a callable or a known tokenizer name, else a ``ValueError`` naming the choices."""
    if not callable(tokenizer):
        get_tokenizer(tokenizer)  # type: ignore[arg-type]
    return tokenizer  # type: ignore[return-value]


def text_tokens(text: str, tokenizer: TokenizerSpec, lowercase: bool = False) -> tuple:
    """The tokens of ``text``, lowercased first if asked.

    A name is applied as sacrebleu applies its tokenizers (trailing whitespace stripped first); a callable as HF
    evaluate's ``bleu`` and ``google_bleu`` call their ``tokenizer`` (on the text as it is). The two differ only on a
    text ending in a hyphen and a line break (13a joins ``-\\n``). A callable must return a list (or tuple) of tokens.
    """
    if lowercase:
        text = text.lower()
    if isinstance(tokenizer, str):
        return BLEU_TOKENIZERS[tokenizer](text.rstrip())
    tokens = tokenizer(text)
    if isinstance(tokens, (str, bytes)) or not isinstance(tokens, (list, tuple)):
        raise TypeError(
            f"tokenizer must return a list of tokens for each text; {tokenizer!r} returned "
            f"{type(tokens).__name__} {tokens!r:.40} for {text!r:.40}. Wrap a tokenizer that returns a string: "
            "tokenizer=lambda text: my_tokenizer(text).split()."
        )
    return tuple(tokens)
