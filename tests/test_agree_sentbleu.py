"""BLEU+1 (add-one on every order; WMT's SentBLEU) as a per-segment score, and agree -o bleu.smooth=true using it."""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from nlgmetrics.agreement import agree, read_wmt_da
from nlgmetrics.registry import get_metric

MINI = Path(__file__).parent / "data" / "wmt17_da_mini"


def bleu_plus_one(hypothesis: str, reference: str) -> float:
    """Lin & Och (2004) / Moses sentence-bleu, written out: whitespace tokens, (matches + 1) / (total + 1) for n = 1..4,
    brevity penalty exp(min(0, 1 - r / c)); 0-100."""
    hyp, ref = hypothesis.split(), reference.split()
    logs = 0.0
    for n in range(1, 5):
        h = Counter(tuple(hyp[i : i + n]) for i in range(len(hyp) - n + 1))
        r = Counter(tuple(ref[i : i + n]) for i in range(len(ref) - n + 1))
        logs += math.log((sum((h & r).values()) + 1) / (max(len(hyp) - n + 1, 0) + 1))
    brevity = min(0.0, 1 - len(ref) / len(hyp)) if hyp else -math.inf
    return 100 * math.exp(logs / 4 + brevity)


@pytest.fixture(scope="module")
def wmt():
    return read_wmt_da(MINI / "DA-seglevel.csv", "de-en", texts=MINI)


def test_add_one_sentence_scores_are_bleu_plus_one(wmt):
    cells = np.argwhere(~np.isnan(wmt.human))
    hyps = [wmt.hypotheses[s][i] for s, i in cells]
    refs = [wmt.references[i][0] for _, i in cells]
    expected = [bleu_plus_one(h, r) for h, r in zip(hyps, refs)]
    sacre = get_metric("sacrebleu")(hyps, refs, smooth_method="add-one", tokenize="none", sentence_scores=True)
    assert sacre["scores"] == pytest.approx(expected, rel=1e-12)
    hf = get_metric("bleu")(hyps, refs, smooth=True, tokenizer="none", sentence_scores=True)
    assert hf["scores"] == pytest.approx(expected, rel=1e-12)
    assert min(expected) > 0  # BLEU+1 never gives 0, unlike sacrebleu's sentence BLEU
    with pytest.raises(ValueError, match="disagree"):
        get_metric("bleu")(hyps, refs, smooth=True, smooth_method="floor", sentence_scores=True)


def test_agree_applies_bleu_smooth_to_the_segment_scores(wmt):
    plain = agree(wmt, ["bleu"], n_resamples=0, k=0)["rows"][0]["value"]
    smoothed = agree(wmt, ["bleu"], {"bleu": {"smooth": True, "tokenizer": "none"}}, n_resamples=0, k=0)
    cells = np.argwhere(~np.isnan(wmt.human))
    scores = [bleu_plus_one(wmt.hypotheses[s][i], wmt.references[i][0]) for s, i in cells]
    expected = np.corrcoef(scores, wmt.human[tuple(cells.T)])[0, 1]
    assert smoothed["rows"][0]["value"] == pytest.approx(expected, abs=1e-12)
    assert abs(smoothed["rows"][0]["value"] - plain) > 1e-3  # the option changes the per-segment scores
