"""Policy test (issue 33.5): every entry point that takes a metric name reads it through ``registry.metric_name`` /
``get_spec``, so an alias (``rougeL``, ``BLEU``, ``bert_score``) means the metric and a typo is one error with
"Did you mean". The entry points are listed here once; the CLI's own case is tests/test_policy.py's."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from nlgmetrics.integration import lm_eval, suite
from nlgmetrics.integration.transformers import make_compute_metrics


def _tokenizer():
    return SimpleNamespace(pad_token_id=0, batch_decode=lambda ids, skip_special_tokens=True: ["a b c"] * len(ids))


#: entry point -> call(metric name) returning the canonical metric names it will compute
ENTRY_POINTS = {
    "compute_suite": lambda name: list(suite.compute_suite(["the cat sat"], ["the cat sat"], [name])),
    "suite metric_options": lambda name: list(suite.metric_options_for(
        suite.check_metrics([name]), {name: {}})),
    "make_compute_metrics": lambda name: make_compute_metrics(_tokenizer(), metrics=[name], warmup=False).metrics,
    "lm_eval_names": lambda name: sorted({metric for metric, _ in lm_eval.lm_eval_names([name]).values()}),
}


@pytest.mark.parametrize("entry", list(ENTRY_POINTS))
@pytest.mark.parametrize("given, canonical", [("rougeL", "rouge"), ("BLEU", "bleu"), ("Sacre-BLEU", "sacrebleu")])
def test_an_alias_means_the_metric(entry, given, canonical):
    assert ENTRY_POINTS[entry](given) == [canonical]


@pytest.mark.parametrize("entry", list(ENTRY_POINTS))
def test_a_typo_is_one_error_with_did_you_mean(entry):
    with pytest.raises(ValueError, match=r"unknown metric 'blue'\. Did you mean 'bleu'\?"):
        ENTRY_POINTS[entry]("blue")


def test_ray_and_inspect_read_names_through_get_spec():
    pytest.importorskip("torch")
    from nlgmetrics.integration import ray_data

    assert ray_data.columns("BLEU") == ray_data.columns("bleu")
