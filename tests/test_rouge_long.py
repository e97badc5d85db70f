"""ROUGE-S/SU and ROUGE-W on long texts: the prefix-sum skip-bigram count and the anti-diagonal WLCS give exactly the
numbers of the direct paths (a Counter of all pairs, the cell-by-cell loop), and long texts never list their pairs.
Time and memory on 20,000-word texts are measured by the benchmark, not here."""

from __future__ import annotations

import html
import random

import pytest

from nlgmetrics.lexical import rouge_core
from nlgmetrics.lexical.rouge import (
    compute_rouge,
    overlap,
    rouge_scores,
    skip_bigram_counter,
    skip_bigram_hits,
    wlcs,
)

pytestmark = pytest.mark.filterwarnings(r"ignore:ROUGE. \d+ of \d+ texts:UserWarning")

LONG_TYPES = ["rougeS*", "rougeSU*", "rougeS0", "rougeS4", "rougeSU9", "rougeS40", "rougeW", "rougeW-2"]


@pytest.fixture(scope="module")
def deen(wmt17_deen) -> dict:
    refs = [html.unescape(r) for r in wmt17_deen["references"]]
    systems = {name: [html.unescape(h) for h in hyps] for name, hyps in wmt17_deen["systems"].items()}
    return {"refs": refs, "systems": systems}


def _paragraphs(lines: list[str], size: int) -> list[str]:
    return [" ".join(lines[i : i + size]) for i in range(0, len(lines), size)]


def test_long_paths_equal_direct_paths_on_real_text(deen, monkeypatch):
    """WMT17 de-en segments (about 25 words) without the stemmer and paragraphs of 10 segments (about 250 words) with
    it: every type, precision, recall and F identical (==)."""
    refs, hyps = deen["refs"], deen["systems"]["online-B.0"]
    cases = [(hyps[:80], refs[:80], False), (_paragraphs(hyps, 10), _paragraphs(refs, 10), True)]
    direct = [rouge_scores(h, r, LONG_TYPES, use_stemmer=stem) for h, r, stem in cases]
    with monkeypatch.context() as patch:
        patch.setattr(rouge_core, "SKIP_PAIR_LIMIT", 0)  # every pair of texts through skip_bigram_hits
        patch.setattr(rouge_core, "WLCS_PYTHON_CELLS", 0)  # every WLCS through the numpy diagonals
        fast = [rouge_scores(h, r, LONG_TYPES, use_stemmer=stem) for h, r, stem in cases]
    assert fast == direct


def test_skip_bigram_hits_and_wlcs_on_random_sequences():
    rng = random.Random(3)
    for _ in range(400):
        a = [rng.choice("abcdefgh") for _ in range(rng.randint(1, 70))]
        b = [rng.choice("abcdefghij") for _ in range(rng.randint(1, 70))]
        for skip in (None, 0, 1, 3, 20, 100):
            assert skip_bigram_hits(a, b, skip) == overlap(skip_bigram_counter(a, skip), skip_bigram_counter(b, skip))
        weight = rng.choice([1.0, 1.2, 1.5, 2.0])
        gain = [(k + 1) ** weight - k**weight for k in range(min(len(a), len(b)) + 1)]
        loop = wlcs(a, b, weight) if len(a) * len(b) <= rouge_core.WLCS_PYTHON_CELLS else None
        if loop is not None:
            assert rouge_core._wlcs_by_diagonals(a, b, gain) == loop
    # the paper's dynamic program can decrease to the right (a match restarts the run): c(4, 5) < c(4, 4) here
    x, y = ["p", "q", "r", "a"], ["p", "q", "r", "a", "a"]
    gain = [(k + 1) ** 1.2 - k**1.2 for k in range(5)]
    assert rouge_core._wlcs_by_diagonals(x, y, gain) == wlcs(x, y, 1.2) == 3**1.2 + 1


def test_a_long_pair_never_lists_its_pairs(deen, monkeypatch):
    """About 2,500 tokens each: ROUGE-S* has about 3 million pairs per text; the Counter path must not be taken."""
    reference = " ".join(deen["refs"])
    prediction = " ".join(deen["systems"]["uedin-nmt.4723"])
    counted = []
    real_counter = rouge_core.skip_bigram_counter

    def watched(tokens, skip, unigrams=False):
        counted.append((len(tokens), skip))
        return real_counter(tokens, skip, unigrams)

    monkeypatch.setattr(rouge_core, "skip_bigram_counter", watched)
    result = compute_rouge([prediction], [reference], rouge_types=["rougeS*", "rougeSU*", "rougeS4", "rougeW"])
    assert len(counted) == 2 and {skip for _, skip in counted} == {4}  # only rougeS4's 12,000 pairs per text
    assert min(length for length, _ in counted) > 2000
    assert all(0.1 < result[key] < 1 for key in ("rougeS*", "rougeSU*", "rougeS4", "rougeW"))
    assert result["rougeSU*_recall"] > result["rougeS*_recall"]


def test_limits_are_named_with_the_fix(monkeypatch):
    monkeypatch.setattr(rouge_core, "WLCS_MAX_CELLS", 1000)
    monkeypatch.setattr(rouge_core, "SKIP_MAX_WORK", 1000)
    monkeypatch.setattr(rouge_core, "SKIP_PAIR_LIMIT", 10)
    long = " ".join(f"w{i % 40}" for i in range(60))
    with pytest.raises(ValueError, match=r"example 1: rougeW .*WLCS_MAX_CELLS = 1e\+03 .* use rougeL"):
        compute_rouge(["a b", long], ["a b", long], rouge_types=["rougeW"])
    with pytest.raises(ValueError, match=r"example 0: skip-bigrams .*SKIP_MAX_WORK = 1e\+03 .*shorter segments"):
        compute_rouge([long], [long], rouge_types=["rougeS*"])
    monkeypatch.setattr(rouge_core, "SKIP_PAIR_LIMIT", 200)
    assert compute_rouge([long], [long], rouge_types=["rougeS1"])["rougeS1"] == 1.0  # 117 pairs: the Counter path
