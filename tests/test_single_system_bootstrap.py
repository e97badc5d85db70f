"""Single-system bootstrap intervals (``n_bootstrap``) of BLEU, chrF and TER are sacrebleu's
``corpus_score(n_bootstrap=...)`` exactly (issue #29, item 15): the same resample indices, the statistics summed and
scored in float32 as sacrebleu does, and its mean (``statistics.mean`` of the resample scores), on real WMT17 en-de
text. Before, the float64 arithmetic left up to 1.2e-5 in ``score_mean``."""

from __future__ import annotations

import pytest
import sacrebleu
from sacrebleu.significance import _bootstrap_resample

from nlgmetrics.registry import get_metric

CASES = [
    ("sacrebleu", sacrebleu.BLEU, {}),
    ("sacrebleu", sacrebleu.BLEU, {"lowercase": True, "tokenize": "intl"}),
    ("chrf", sacrebleu.CHRF, {}),
    ("chrf", sacrebleu.CHRF, {"word_order": 2}),
    ("ter", sacrebleu.TER, {}),
    ("ter", sacrebleu.TER, {"normalized": True}),
]


@pytest.mark.parametrize("nrefs", [1, 2])
@pytest.mark.parametrize("name, metric_class, options", CASES)
def test_interval_is_sacrebleus_exactly(name, metric_class, options, nrefs, wmt17_ende):
    systems = sorted(wmt17_ende["systems"])
    hyps = wmt17_ende["systems"][systems[0]][:400]
    ref_streams = [wmt17_ende["reference"][:400], wmt17_ende["systems"][systems[1]][:400]][:nrefs]
    metric = metric_class(**options)
    theirs = metric.corpus_score(hyps, ref_streams, n_bootstrap=1000)
    _, resampled = _bootstrap_resample(metric._extract_corpus_statistics(hyps, ref_streams), metric, 1000)
    ordered = sorted(score.score for score in resampled)
    ours = get_metric(name)(hyps, [list(refs) for refs in zip(*ref_streams)], n_bootstrap=1000, **options)
    assert ours["score"] == pytest.approx(theirs.score, abs=1e-9)
    assert ours["score_mean"] == float(theirs._mean)  # equal, not close
    assert ours["score_ci"] == float(theirs._ci)
    assert (ours["score_low"], ours["score_high"]) == (float(ordered[25]), float(ordered[-26]))
    assert 0 < ours["score_ci"] < 10
