"""The per-sample / corpus rule the Inspect and lighteval adapters share (nlgmetrics.integration.samplewise), in the
main venv without either framework: a corpus headline is the core's number on the same texts (BLEU over the corpus,
not a mean of sentence BLEU), a learned metric's is the mean of its segment scores, and the options a framework would
log are checked."""

from __future__ import annotations

import html
import json
import math
from pathlib import Path

import pytest

from nlgmetrics.integration.samplewise import (
    SampleText, check_options, corpus_headline, headline, recomputes_corpus, sample_options, score_sample,
)
from nlgmetrics.registry import score

DATA = json.loads((Path(__file__).parent / "data" / "wmt17_deen_150.json").read_text(encoding="utf-8"))
REFS = [html.unescape(t) for t in DATA["references"][:12]]
PREDS = [html.unescape(t) for t in next(iter(DATA["systems"].values()))[:12]]
SAMPLES = [SampleText(p, r) for p, r in zip(PREDS, REFS)]

LEXICAL = ["bleu", "sacrebleu", "google_bleu", "nist_mt", "chrf", "ter", "rouge", "meteor"]


@pytest.mark.parametrize("metric", LEXICAL)
def test_corpus_headline_is_the_core_number(metric):
    expected = headline(metric, score(metric, PREDS, REFS))
    assert recomputes_corpus(metric)
    assert corpus_headline(metric, {}, SAMPLES) == expected
    assert set(expected) == set(score_sample(metric, {}, SAMPLES[0])[0])  # same keys per sample


@pytest.mark.parametrize("metric", ["bleu", "chrf", "ter", "nist_mt"])
def test_corpus_statistic_is_not_the_mean_of_sample_values(metric):
    (key,) = headline(metric, score(metric, PREDS, REFS))
    per_sample = [score_sample(metric, {}, s)[0][key] for s in SAMPLES]
    corpus = corpus_headline(metric, {}, SAMPLES)[key]
    assert per_sample[0] == headline(metric, score(metric, PREDS[:1], REFS[:1]))[key]
    assert abs(corpus - sum(per_sample) / len(per_sample)) > 1e-3


def test_options_and_multiple_references_reach_the_core():
    samples = [SampleText(p, [r, p.upper()]) for p, r in zip(PREDS, REFS)]
    options = check_options("ter", {"normalized": True, "ignore_punct": True})  # an HF alias too
    got = corpus_headline("ter", options, samples)
    want = score("ter", PREDS, [[r, p.upper()] for p, r in zip(PREDS, REFS)], normalized=True, no_punct=True)
    assert got == {"ter": want["score"]}


def test_learned_headline_is_the_mean_of_scored_samples():
    assert not recomputes_corpus("comet") and not recomputes_corpus("llm_judge")
    values = [{"llm_judge": 4.0}, {}, {"llm_judge": 2.5}, {"llm_judge": float("nan")}]  # {}: unreadable answer
    assert corpus_headline("llm_judge", {}, SAMPLES[:4], values) == {"llm_judge": 3.25}
    with pytest.raises(ValueError, match="mean of the per-sample values"):
        corpus_headline("comet", {}, SAMPLES)


def test_corpus_idf_is_off_for_one_sample_only():
    assert sample_options("moverscore", {}) == {"idf": False}
    assert sample_options("moverscore", {"idf": False}) == {"idf": False}
    assert sample_options("bertscore", {"idf": True, "lang": "en"}) == {"idf": False, "lang": "en"}
    assert sample_options("bertscore", {}) == {}
    assert sample_options("bleu", {"smooth": True}) == {"smooth": True}


def test_options_a_framework_would_log_are_checked():
    assert check_options("ter", {"ignore_punct": True}) == {"no_punct": True}
    with pytest.raises(ValueError, match="n_bootstrap.*bootstrap interval is over the whole corpus"):
        check_options("bleu", {"n_bootstrap": 100})
    with pytest.raises(ValueError, match="api_key.*OPENAI_API_KEY"):
        check_options("llm_judge", {"api_key": "sk-secret"})
    with pytest.raises(TypeError, match="JSON values"):
        check_options("bleu", {"tokenizer": str.split})
    with pytest.raises(ValueError, match="Did you mean 'lowercase'"):
        check_options("bleu", {"lowercas": True})


def test_reference_free_and_empty_inputs():
    with pytest.raises(ValueError, match="needs references"):
        corpus_headline("bleu", {}, [SampleText("a b c", None)])
    with pytest.raises(ValueError, match="no samples"):
        corpus_headline("bleu", {}, [])
    empty = corpus_headline("chrf", {}, [SampleText("", REFS[0])])
    assert empty == {"chrf": 0.0} and all(math.isfinite(v) for v in empty.values())
