"""The 13a tokenizer: ``tokenize_13a_batch`` and ``tokenize_13a`` give sacrebleu 2.6's ``Tokenizer13a`` tokens (and
each other's) on real WMT17 text, on a seeded fuzz over an adversarial alphabet and on edge cases; the closed form of
the period and comma rules (tokenizers.py) on runs of marks; the tokenizers sharing those rules (zh, NIST, Tercom)
still match their references."""

from __future__ import annotations

import gzip
import json
import random

import pytest
from conftest import DATA
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a
from sacrebleu.tokenizers.tokenizer_ter import TercomTokenizer
from sacrebleu.tokenizers.tokenizer_zh import TokenizerZh

from nlgmetrics.text.tercom import tokenize_tercom
from nlgmetrics.text.tokenizers import (
    text_tokens,
    tokenize_13a,
    tokenize_13a_batch,
    tokenize_nist,
    tokenize_zh,
)

_SACREBLEU_13A = Tokenizer13a()


def sacrebleu_13a(line: str) -> tuple[str, ...]:
    """sacrebleu's tokens for one line, as its BLEU calls the tokenizer (trailing whitespace stripped)."""
    return tuple(_SACREBLEU_13A(line.rstrip()).split())


def assert_all_agree(lines: list[str]) -> list[tuple[str, ...]]:
    expected = [sacrebleu_13a(line) for line in lines]
    assert tokenize_13a_batch(lines) == expected
    assert [text_tokens(line, "13a") for line in lines] == expected
    return expected


def test_real_wmt17_text(wmt17_ende):
    """The full reference and three systems, and every 10th line of all 16 systems: 12,016 + 5,117 lines."""
    with gzip.open(DATA / "wmt17_ende_16systems_every10th.json.gz", "rt", encoding="utf-8") as handle:
        every10th = json.load(handle)
    lines = wmt17_ende["reference"] + [line for system in wmt17_ende["systems"].values() for line in system]
    lines += every10th["reference"] + [line for system in every10th["systems"].values() for line in system]
    tokenize_13a.cache_clear()
    expected = assert_all_agree(lines)
    assert len(expected) == 17_133
    # the text exercises the rules: numbers with . and , kept whole, dashes after digits split off
    tokens = {token for line in expected for token in line}
    assert {"2017", "10.000", "1,5", "12,5,4,4", "-"} <= tokens


# letters, digits, marks, dashes, whitespace (incl. Unicode whitespace str.split knows, U+001F the marks' padding),
# entities and their pieces, <skipped> and its pieces, line breaks, non-ASCII (2-, 3-, 4-byte UTF-8, a lone surrogate)
_ALPHABET = [*"aZ0159.,.,.,--  \t", "...", ",,", "1.5", "&quot;", "&amp;", "&lt;", "&gt;", "&", "amp;", "quot;",
             "<skipped>", "<skip", "ped>", "\n", "-\n", "\r", "\x1f", "\x1c", "\x85", "\xa0", "\u2028", "ü", "€",
             "中", "😀", "\ud800", "٣", "²", "x's", "!", "(", "'", "/"]


def _random_lines(seed: int, count: int, alphabet: list[str], max_pieces: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choices(alphabet, k=rng.randint(0, max_pieces))) for _ in range(count)]


@pytest.mark.parametrize("seed", range(4))
def test_fuzz_batch_per_line_and_sacrebleu(seed):
    lines = _random_lines(seed, 1500, _ALPHABET, 14)
    assert_all_agree(lines)
    for start in range(0, 60, 7):  # short batches: lines next to each other in every combination of neighbours
        assert_all_agree(lines[start : start + 3])


@pytest.mark.parametrize("alphabet", ["1.,a", "9.,x -", ".,0", ".,", "1.", "a,"])
def test_fuzz_runs_of_marks(alphabet):
    """Long runs of periods and commas between digits and letters: the closed form of rules 2-3."""
    assert_all_agree(_random_lines(7, 1500, list(alphabet), 24))


@pytest.mark.parametrize(
    ("line", "tokens"),
    [
        ("1.5 1,5 17.05.2017", ["1.5", "1,5", "17.05.2017"]),  # a lone mark between digits stays
        ("a.5 1.a .5 5.", ["a", ".", "5", "1", ".", "a", ".", "5", "5", "."]),
        ("1..5", ["1", ".", ".", "5"]),  # k = 2 after a digit: both split
        ("a..5", ["a", ".", ".5"]),  # k = 2 after a non-digit: the last mark stays with the digit
        ("1...5", ["1", ".", ".", ".5"]),  # k = 3 after a digit: the last mark stays with the digit
        ("a...5", ["a", ".", ".", ".", "5"]),
        ("1.,.,5 a,.,.5", ["1", ".", ",", ".", ",", "5", "a", ",", ".", ",", ".5"]),
        ("2-3 a-b 2.-3", ["2", "-", "3", "a-b", "2", ".", "-3"]),  # a dash after a digit only
    ],
)
def test_runs_of_marks_closed_form(line, tokens):
    assert tokenize_13a_batch([line]) == [tuple(tokens)]
    assert sacrebleu_13a(line) == tuple(tokens)


def test_edge_cases():
    assert tokenize_13a_batch([]) == []
    assert tokenize_13a_batch(()) == []
    assert tokenize_13a_batch(["", "   ", "\t\n", "<skipped>"]) == [(), (), (), ()]
    assert tokenize_13a_batch([".,.;!?", "..."]) == [tuple(".,.;!?"), (".", ".", ".")]
    lines = ["", "a-\nb", " x  ", "", "c\nd.", "1.\n5", "-\n", "-\nx", ""]  # line breaks inside lines
    assert assert_all_agree(lines) == [(), ("ab",), ("x",), (), ("c", "d", "."), ("1", ".", "5"), ("-",), ("x",), ()]
    assert tokenize_13a_batch(iter(["a.", "b"])) == [("a", "."), ("b",)]  # any iterable of lines


def test_bad_input_names_the_fix():
    with pytest.raises(TypeError, match="not one string"):
        tokenize_13a_batch("a line")
    with pytest.raises(TypeError, match="sequence of str lines"):
        tokenize_13a_batch(["a", 3])
    with pytest.raises(TypeError):
        tokenize_13a_batch([b"bytes"])


def test_tokenizers_sharing_the_rules_match_their_references(nltk_nist_tokenizer):
    """zh (no padding: marks at the text ends), NIST (nltk's NISTTokenizer) and normalized Tercom use the 13a rules."""
    zh = TokenizerZh()
    tercoms = {(p, a): TercomTokenizer(normalized=True, no_punct=p, asian_support=a) for p in (0, 1) for a in (0, 1)}
    for line in _random_lines(11, 600, _ALPHABET + ["。", "中文", "ひら"], 12):
        assert tokenize_zh(line) == tuple(zh(line).split())
        for lowercase in (False, True):
            assert tokenize_nist(line, lowercase) == tuple(nltk_nist_tokenizer.tokenize(line, lowercase=lowercase))
        for (no_punct, asian), tercom in tercoms.items():
            assert tokenize_tercom(line, True, bool(no_punct), bool(asian)) == tuple(tercom(line).split())
