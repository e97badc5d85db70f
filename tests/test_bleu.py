"""BLEU: parity with sacrebleu 2.6 on real WMT17 text (compute_sacrebleu, and the sacrebleu keys of compute_bleu),
the Moses values, bad input, the evaluate module. HF bleu's tensorflow-nmt keys: tests/test_hf_mt_modules.py."""

from __future__ import annotations

import doctest
import json
import math

import pytest
import sacrebleu
from conftest import DATA

from nlgmetrics.lexical.bleu import BLEU, compute_bleu, compute_sacrebleu
from nlgmetrics.text.tokenizers import BLEU_TOKENIZERS

TOKENIZERS = sorted(BLEU_TOKENIZERS)
SMOOTHING = ["exp", "floor", "add-k", "none"]


def _sacrebleu_kwargs(tokenize, smooth, lowercase):
    return dict(tokenize=tokenize, smooth_method=smooth, lowercase=lowercase)


def assert_same_corpus(ours: dict, theirs) -> None:
    """compute_sacrebleu's keys (also the sacrebleu keys of compute_bleu, which has HF's precisions and BP)."""
    assert abs(ours["score"] - theirs.score) <= 1e-9
    assert ours["counts"] == theirs.counts
    assert ours["totals"] == theirs.totals
    assert ours["sys_len"] == theirs.sys_len and ours["ref_len"] == theirs.ref_len
    if "bp" in ours:
        assert abs(ours["bp"] - theirs.bp) <= 1e-9
        for ours_p, their_p in zip(ours["precisions"], theirs.precisions):
            assert abs(ours_p - their_p) <= 1e-9


@pytest.mark.parametrize("tokenize", TOKENIZERS)
@pytest.mark.parametrize("smooth", SMOOTHING)
@pytest.mark.parametrize("lowercase", [False, True])
def test_corpus_and_sentence_parity_every_tokenizer_and_smoothing(wmt17_ende, tokenize, smooth, lowercase):
    refs = wmt17_ende["reference"][:400]
    hyps = wmt17_ende["systems"]["online-F.0"][:400]
    ours = compute_sacrebleu(hyps, refs, sentence_scores=True, **_sacrebleu_kwargs(tokenize, smooth, lowercase))
    theirs = sacrebleu.corpus_bleu(hyps, [refs], **_sacrebleu_kwargs(tokenize, smooth, lowercase))
    assert_same_corpus(ours, theirs)
    # the bleu entry point's sacrebleu keys, on the same named tokenizer
    kwargs = {"tokenizer": tokenize, "smooth_method": smooth, "lowercase": lowercase}
    assert_same_corpus(compute_bleu(hyps, refs, **kwargs), theirs)
    for i in range(0, 400, 5):
        sent = sacrebleu.sentence_bleu(hyps[i], [refs[i]], **_sacrebleu_kwargs(tokenize, smooth, lowercase))
        assert abs(ours["scores"][i] - sent.score) <= 1e-9, i


@pytest.mark.parametrize("max_order", [1, 2, 3, 6])
@pytest.mark.parametrize("effective_order", [False, True])
def test_parity_order_and_effective_order(wmt17_ende, max_order, effective_order):
    refs = wmt17_ende["reference"][1000:1300]
    hyps = wmt17_ende["systems"]["uedin-nmt.4722"][1000:1300]
    ours = compute_sacrebleu(hyps, refs, max_ngram_order=max_order, use_effective_order=effective_order)
    bleu = sacrebleu.BLEU(max_ngram_order=max_order, effective_order=effective_order)
    assert_same_corpus(ours, bleu.corpus_score(hyps, [refs]))


def test_floor_and_add_k_values(wmt17_ende):
    refs = wmt17_ende["reference"][:200]
    hyps = wmt17_ende["systems"]["C-3MA.4959"][:200]
    for smooth, value in [("floor", 0.5), ("add-k", 2)]:
        ours = compute_sacrebleu(hyps, refs, smooth_method=smooth, smooth_value=value, sentence_scores=True)
        theirs = sacrebleu.corpus_bleu(hyps, [refs], smooth_method=smooth, smooth_value=value)
        assert_same_corpus(ours, theirs)
        bleu = sacrebleu.BLEU(smooth_method=smooth, smooth_value=value, effective_order=True)
        for i in range(0, 200, 9):
            assert abs(ours["scores"][i] - bleu.sentence_score(hyps[i], [refs[i]]).score) <= 1e-9


def test_several_references_varying_count(wmt17_ende):
    """References per example vary (1-3); sacrebleu takes streams padded with None."""
    systems = wmt17_ende["systems"]
    refs1 = wmt17_ende["reference"][:300]
    refs2 = systems["uedin-nmt.4722"][:300]
    refs3 = systems["C-3MA.4959"][:300]
    hyps = systems["online-F.0"][:300]
    ours_refs = [[a] if i % 3 == 0 else [a, b] if i % 3 == 1 else [a, b, c]
                 for i, (a, b, c) in enumerate(zip(refs1, refs2, refs3))]
    stream2 = [b if i % 3 else None for i, b in enumerate(refs2)]
    stream3 = [c if i % 3 == 2 else None for i, c in enumerate(refs3)]
    ours = compute_sacrebleu(hyps, ours_refs, sentence_scores=True)
    theirs = sacrebleu.corpus_bleu(hyps, [refs1, stream2, stream3])
    assert_same_corpus(ours, theirs)
    assert ours["signature"].startswith("nrefs:var|")
    for i in range(0, 300, 7):
        assert abs(ours["scores"][i] - sacrebleu.sentence_bleu(hyps[i], ours_refs[i]).score) <= 1e-9


def test_closest_reference_length_ties_to_shorter():
    # hypothesis of 4 tokens; references of 3 and 5 tokens are equally close: sacrebleu takes 3
    ours = compute_sacrebleu(["a b c d"], [["a b c", "a b c d e"]])
    theirs = sacrebleu.corpus_bleu(["a b c d"], [["a b c"], ["a b c d e"]])
    assert ours["ref_len"] == theirs.ref_len == 3


def test_official_moses_values(wmt17_ende):
    """The full 3,004-segment WMT17 en-de outputs reproduce mteval-v13a BLEU to two decimals."""
    moses = json.loads((DATA / "wmt17_ende_moses_bleu.json").read_text())["bleu"]
    assert len(wmt17_ende["systems"]) == 3
    for name, hyps in wmt17_ende["systems"].items():
        assert round(compute_sacrebleu(hyps, wmt17_ende["reference"])["score"], 2) == pytest.approx(moses[name], abs=1e-9)


def test_signature_matches_sacrebleu_except_version():
    bleu = sacrebleu.BLEU(tokenize="zh", smooth_method="floor", lowercase=True)
    bleu.corpus_score(["x"], [["x"]])
    theirs = str(bleu.get_signature()).rsplit("|version:", 1)[0]
    ours = compute_sacrebleu(["x"], ["x"], tokenize="zh", smooth_method="floor", lowercase=True)["signature"]
    assert ours == theirs + "|version:nlgmetrics-0.1.0"


def test_bootstrap_is_seeded_and_matches_sacrebleu(wmt17_ende):
    refs = wmt17_ende["reference"][:500]
    hyps = wmt17_ende["systems"]["uedin-nmt.4722"][:500]
    first = compute_bleu(hyps, refs, n_bootstrap=200)
    again = compute_bleu(hyps, refs, n_bootstrap=200)
    other_seed = compute_bleu(hyps, refs, n_bootstrap=200, seed=7)
    assert first == again
    assert first["score_mean"] != other_seed["score_mean"]
    assert first["score_low"] <= first["score"] <= first["score_high"]
    assert first["signature"].startswith("nrefs:1|bs:200|seed:12345|")
    theirs = sacrebleu.BLEU().corpus_score(hyps, [refs], n_bootstrap=200)
    # sacrebleu sums resampled statistics in float32; the difference stays far below the printed precision
    assert abs(first["score_mean"] - theirs._mean) <= 1e-4
    assert abs(first["score_ci"] - theirs._ci) <= 1e-4


@pytest.mark.parametrize(
    "prediction, reference",
    [("", "a reference"), ("a prediction", ""), ("", ""), ("   ", "  \t "), ("\n", "x")],
)
def test_empty_and_whitespace_text_gets_sacrebleu_scores(prediction, reference):
    ours = compute_sacrebleu([prediction], [reference], sentence_scores=True)
    theirs = sacrebleu.corpus_bleu([prediction], [[reference]])
    assert_same_corpus(ours, theirs)
    assert ours["scores"] == [sacrebleu.sentence_bleu(prediction, [reference]).score]
    assert all(math.isfinite(v) for v in [ours["score"], ours["bp"]])
    hf_keys = compute_bleu([prediction], [reference])
    assert all(math.isfinite(hf_keys[k]) for k in ["bleu", "brevity_penalty", "length_ratio"])


def test_cjk_emoji_and_rtl_text_are_finite_and_match():
    preds = ["猫坐在垫子上。", "I ❤️ 🐍 code", "مرحبا بالعالم"]
    refs = ["猫坐在垫子上。", "I ❤️ 🐍 python code", "مرحبا يا عالم"]
    for tokenize in TOKENIZERS:
        ours = compute_sacrebleu(preds, refs, tokenize=tokenize)
        assert_same_corpus(ours, sacrebleu.corpus_bleu(preds, [refs], tokenize=tokenize))


@pytest.mark.parametrize(
    "predictions, references, error, match",
    [
        (["a", "b"], ["a"], ValueError, "2 predictions but 1 references"),
        ([], [], ValueError, "no examples"),
        (["a"], [[]], ValueError, "empty list"),
        ([None], ["a"], TypeError, r"predictions\[0\] must be a string"),
        (["a"], [None], TypeError, r"references\[0\] must be a string or a list"),
        (["a"], [["a", 3]], TypeError, r"references\[0\]\[1\] must be a string"),
        ("a single string", ["a"], TypeError, "list of strings"),
    ],
)
def test_bad_input_raises_named_errors(predictions, references, error, match):
    with pytest.raises(error, match=match):
        compute_bleu(predictions, references)


@pytest.mark.parametrize(
    "options, match",
    [({"tokenize": "moses"}, "unknown tokenize"), ({"smooth_method": "add-two"}, "unknown smooth_method"),
     ({"max_ngram_order": 0}, "max_ngram_order"), ({"smooth_value": -1, "smooth_method": "floor"}, "smooth_value"),
     ({"smooth_value": math.inf, "smooth_method": "floor"}, "finite"),
     ({"smooth_value": math.nan, "smooth_method": "add-k"}, "finite")],
)
def test_bad_options_raise(options, match):
    with pytest.raises(ValueError, match=match):
        compute_sacrebleu(["a"], ["a"], **options)


def test_reference_cache_is_keyed_by_settings():
    """The same references under another tokenizer or casing must not reuse cached statistics."""
    refs = ["The Cat, sat."]
    assert compute_sacrebleu(["the cat , sat ."], refs, tokenize="none")["counts"][0] == 0
    assert compute_sacrebleu(["the cat , sat ."], refs, tokenize="none", lowercase=True)["counts"][0] == 1
    assert compute_sacrebleu(["the cat , sat ."], refs, tokenize="13a", lowercase=True)["counts"][0] == 5
    assert compute_bleu(["the cat , sat ."], refs, tokenizer=str.split, lowercase=True)["counts"][0] == 1


def test_corpus_statistics_equal_segment_statistics_on_random_text():
    """The whole-corpus integer path (corpus_statistics) gives each segment's Counter statistics exactly: any
    tokenizer (a callable too), casing, order 1-9, 1-3 references of varying count, empty texts, repeated n-grams."""
    import random

    import numpy as np

    rng = random.Random(7)
    words = "a b c d the cat . , - 1 2 x y".split() + [""]

    def text():
        return " ".join(rng.choice(words) for _ in range(rng.randint(0, 12)))

    for _ in range(300):
        n = rng.randint(1, 12)
        preds = [text() for _ in range(n)]
        refs = [[text() for _ in range(rng.randint(1, 3))] for _ in range(n)]
        bleu = BLEU(tokenize=rng.choice([*TOKENIZERS, str.split]), lowercase=rng.random() < 0.3,
                    max_ngram_order=rng.randint(1, 9))
        expected = np.array([bleu.segment_statistics(p, r) for p, r in zip(preds, refs)])
        assert bleu.corpus_statistics(preds, refs).tolist() == expected.tolist(), (preds, refs, bleu)


def test_bleu_object_matches_function(wmt17_ende):
    refs = wmt17_ende["reference"][:100]
    hyps = wmt17_ende["systems"]["C-3MA.4959"][:100]
    score = BLEU(tokenize="intl").corpus_score(hyps, [[r] for r in refs])
    assert score.score == compute_sacrebleu(hyps, refs, tokenize="intl")["score"]


def test_evaluate_module_end_to_end_and_doctest(wmt17_ende):
    import evaluate

    module = evaluate.load("./metrics/bleu")
    refs = wmt17_ende["reference"][:50]
    hyps = wmt17_ende["systems"]["uedin-nmt.4722"][:50]
    result = module.compute(predictions=hyps, references=refs, return_details=True)
    assert_same_corpus(result, sacrebleu.corpus_bleu(hyps, [refs]))
    multi = module.compute(predictions=hyps[:3], references=[[r, "x"] for r in refs[:3]], sentence_scores=True)
    assert len(multi["scores"]) == 3
    for key in ["bleu", "precisions", "brevity_penalty", "length_ratio", "translation_length", "reference_length"]:
        assert key in result
    parser = doctest.DocTestParser()
    test = parser.get_doctest(type(module).__doc__ or module.inputs_description, {"evaluate": evaluate}, "bleu", None, 0)
    runner = doctest.DocTestRunner()
    runner.run(test)
    assert runner.tries >= 3 and runner.failures == 0


def test_evaluate_module_rejects_mismatched_lengths():
    import evaluate

    module = evaluate.load("./metrics/bleu")
    with pytest.raises(ValueError):
        module.compute(predictions=["a", "b"], references=["a"])


@pytest.mark.parametrize(
    "kwargs, error, match",
    [(dict(predictions=[None], references=["a"]), TypeError, r"predictions\[0\] must be a string"),
     (dict(predictions=[3], references=["a"]), TypeError, r"predictions\[0\] must be a string"),
     (dict(predictions=[], references=[]), ValueError, "no examples"),
     (dict(predictions=["a"], references=[["a", None]]), TypeError, r"references\[0\]\[1\]"),
     (dict(predictions="abc", references=["a"]), TypeError, "list of strings")],
)
def test_evaluate_module_bad_input_gets_our_messages(kwargs, error, match):
    import evaluate

    with pytest.raises(error, match=match):
        evaluate.load("./metrics/bleu").compute(**kwargs)


def test_evaluate_module_mixes_string_and_list_references():
    import evaluate

    module = evaluate.load("./metrics/bleu")
    module.add_batch(predictions=["a b c d"], references=["a b c d"])
    module.add_batch(predictions=["e f g h"], references=[["e f g h", "x"]])
    assert module.compute(return_details=True)["score"] == pytest.approx(100.0)
