"""METEOR's building blocks against nltk: word_tokenize token identity on real multi-sentence text (offline Punkt
tables), WordNet synonym sets from our lemma-name tables, cached Porter stems."""

from __future__ import annotations

import html

import pytest

from nlgmetrics.text import lexicon
from nlgmetrics.text import word_tokenize as ours

nltk = pytest.importorskip("nltk")
from nltk.tokenize import sent_tokenize, word_tokenize  # noqa: E402

TRICKY = [
    '"Hello," he said. "I can\'t go." She said: \'Gonna be fine, cannot wait!\' Dr. Smith (aged 40) came -- late... ok?',
    "It's 5 p.m. in the U.S. Mr. Jones didn't come. 'Tis true – “quoted” text… «more» [x] {y} <z> ‘a’ „b“ *** 50% "
    "@home #tag $3.50 & co; fin.",
    "ſ K İı WANNA GIMME more'N d'ye 'TWAS lemme gotta Gonna wanna go",
    "\t tabs\nand\r\nnewlines. Second  sentence here.\n  Third one?! Yes.",
    "They're here, aren't they? I'd say we'll see. O'Neill's 'quote' ''double'' ``tex``.",
    "Nr. 5 vs. No. 6 — the end. Sept. 3, 2017: U.S.-Russia talks. e.g. this. i.e. that.",
    "...", "", "   ", "a", "Mr.", "end.", "?!", "“", "'", '"',
]


@pytest.fixture(scope="module")
def multi_sentence_texts(wmt17_ende, wmt17_deen) -> list[str]:
    german = wmt17_ende["reference"][:600]  # cased, detokenized real text
    texts = [" ".join(german[i : i + 3]) for i in range(0, len(german), 3)]
    texts += [" ".join(wmt17_ende["systems"]["uedin-nmt.4722"][i : i + 2]) for i in range(0, 400, 2)]
    english = [html.unescape(r) for r in wmt17_deen["references"]]
    texts += [" ".join(english[i : i + 4]) for i in range(0, len(english), 4)]
    texts += [html.unescape(h) for hyps in wmt17_deen["systems"].values() for h in hyps[:40]]
    return texts + TRICKY


def test_tokens_identical_to_nltk_word_tokenize(multi_sentence_texts):
    assert ours.GUARDED, "nltk's tokenizer patterns changed: the guarded fast path is off (still exact, slower)"
    ours.clear_cache()
    mismatches = [t for t in multi_sentence_texts if list(ours.word_tokenize(t)) != word_tokenize(t)]
    assert mismatches == []
    # the check is about real multi-sentence text, where Punkt's sentence split changes tokens
    multi = [t for t in multi_sentence_texts if len(sent_tokenize(t)) > 1]
    assert len(multi) > 300
    assert sum(word_tokenize(t) != word_tokenize(t, preserve_line=True) for t in multi) > 50


def test_cached_tokens_are_stable():
    text = TRICKY[0]
    assert ours.word_tokenize(text) is ours.word_tokenize(text)
    assert ours.word_tokenize(text) == tuple(word_tokenize(text))


def test_unguarded_fallback_gives_the_same_tokens(monkeypatch):
    monkeypatch.setattr(ours, "PATTERN_FINGERPRINT", "0" * 16)
    sent, treebank, guarded = ours._build()
    assert not guarded
    for text in TRICKY:
        assert [tok for s in sent(text) for tok in treebank(s)] == word_tokenize(text)


def test_rule_table_is_nltk_310s():
    """TREEBANK_RULES and the Punkt language variables are nltk 3.10's (what lets nltk 3.9.1 give 3.10's tokens)."""
    if tuple(int(x) for x in nltk.__version__.split(".")[:2]) < (3, 10):
        pytest.skip(f"nltk {nltk.__version__}: the table is compared with nltk 3.10's own")
    from nltk.tokenize.destructive import NLTKWordTokenizer
    from nltk.tokenize.punkt import PunktLanguageVars

    assert ours._fingerprint(NLTKWordTokenizer) == ours._fingerprint(ours.TREEBANK_RULES) == ours.PATTERN_FINGERPRINT
    theirs = PunktLanguageVars()
    assert ours._BOUNDARY_REALIGNMENT == theirs.re_boundary_realignment.pattern
    # nltk joins a set of characters (its order follows string hashing, so either order occurs); ours sorts them
    assert theirs._re_non_word_chars in (ours._NON_WORD_CHARS % "!\\?", ours._NON_WORD_CHARS % "\\?!")


def test_synonym_sets_match_nltk_synsets(wmt17_deen):
    reader = lexicon.wordnet_reader()
    words = sorted({w for line in wmt17_deen["references"][:80] for w in html.unescape(line).split()})
    words += sorted({lexicon.porter_stem(w) for w in words})
    words += ["geese", "ran", "better", "Dogs", "United_States", "good-looking", "o'clock", "20th", "i"]
    assert len(words) > 1100
    for word in words:
        names = {n for s in reader.synsets(word) for n in s.lemma_names() if "_" not in n}
        assert lexicon.wordnet_synonyms(word) == names | {word}, word
    assert {"sit", "sat", "seat"} <= lexicon.wordnet_synonyms("sat")


def test_stems_match_nltk_porter():
    from nltk.stem.porter import PorterStemmer

    stemmer = PorterStemmer()
    for word in ["running", "generously", "ponies", "caresses", "sat", "relational", "dying", "", "SKY"]:
        assert lexicon.porter_stem(word) == stemmer.stem(word)
