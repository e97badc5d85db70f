"""METEOR: per-example parity with nltk 3.10's meteor_score on word_tokenize tokens (HF evaluate's path), on real
WMT17 de-en text; several references; custom parameters; bad input; the evaluate module."""

from __future__ import annotations

import doctest
import html
import math

import pytest

from nlgmetrics.lexical.meteor import align, compute_meteor, count_chunks, segment_score
from nlgmetrics.text import lexicon

nltk = pytest.importorskip("nltk")
from nltk.tokenize import word_tokenize  # noqa: E402
from nltk.translate.meteor_score import meteor_score  # noqa: E402

TOLERANCE = 1e-9


def nltk_meteor(prediction: str, references: list[str], **params) -> float:
    """What HF evaluate's meteor module computes for one example."""
    return meteor_score([word_tokenize(r) for r in references], word_tokenize(prediction), **params)


@pytest.fixture(scope="module")
def deen(wmt17_deen) -> dict:
    references = [html.unescape(r) for r in wmt17_deen["references"]]
    systems = {name: [html.unescape(h) for h in hyps] for name, hyps in wmt17_deen["systems"].items()}
    return {"references": references, "systems": systems}


@pytest.mark.parametrize("system", ["C-3MA.4958", "KIT.4951", "online-A.0", "online-G.0", "uedin-nmt.4723"])
def test_per_example_parity_with_nltk(deen, system):
    refs, hyps = deen["references"], deen["systems"][system]
    result = compute_meteor(hyps, refs)
    theirs = [nltk_meteor(h, [r]) for h, r in zip(hyps, refs)]
    assert len(result["scores"]) == len(theirs) == 150
    assert max(abs(a - b) for a, b in zip(result["scores"], theirs)) <= TOLERANCE
    assert result["meteor"] == pytest.approx(sum(theirs) / len(theirs), abs=TOLERANCE)
    assert 0.2 < result["meteor"] < 0.8  # real values, not a degenerate 0 or 1
    assert len(set(round(s, 6) for s in result["scores"])) > 100


def test_all_three_stages_are_exercised(deen):
    """The slice has stem and WordNet synonym matches, so parity above covers every stage."""
    stem_only = synonym_only = 0
    for hyp, ref in zip(deen["systems"]["online-A.0"], deen["references"]):
        h = [t.lower() for t in word_tokenize(hyp)]
        r = [t.lower() for t in word_tokenize(ref)]
        for i, j in align(h, r):
            if h[i] != r[j]:
                if lexicon.porter_stem(h[i]) == lexicon.porter_stem(r[j]):
                    stem_only += 1
                else:
                    synonym_only += 1
    assert stem_only >= 10 and synonym_only >= 10


def test_several_references_take_the_best(deen):
    refs = deen["references"][:60]
    systems = deen["systems"]
    multi = [[r, a, b] for r, a, b in zip(refs, systems["online-B.0"][:60], systems["SYSTRAN.4846"][:60])]
    hyps = systems["KIT.4951"][:60]
    ours = compute_meteor(hyps, multi)["scores"]
    theirs = [nltk_meteor(h, rs) for h, rs in zip(hyps, multi)]
    assert max(abs(a - b) for a, b in zip(ours, theirs)) <= TOLERANCE
    single = compute_meteor(hyps, refs)["scores"]
    assert all(m >= s for m, s in zip(ours, single)) and sum(ours) > sum(single)
    # a varying number of references per example, mixed with plain strings
    mixed = [rs[: 1 + k % 3] if k % 4 else rs[0] for k, rs in enumerate(multi)]
    ours = compute_meteor(hyps, mixed)["scores"]
    theirs = [nltk_meteor(h, [rs] if isinstance(rs, str) else rs) for h, rs in zip(hyps, mixed)]
    assert max(abs(a - b) for a, b in zip(ours, theirs)) <= TOLERANCE


@pytest.mark.parametrize(
    "params", [dict(alpha=0.85, beta=0.2, gamma=0.6), dict(alpha=0.5, beta=1.0, gamma=0.0), dict(alpha=1, beta=0, gamma=1)]
)
def test_custom_parameters_match_nltk(deen, params):
    refs, hyps = deen["references"][:80], deen["systems"]["LIUM-NMT.4733"][:80]
    ours = compute_meteor(hyps, refs, **params)
    theirs = [nltk_meteor(h, [r], **params) for h, r in zip(hyps, refs)]
    assert max(abs(a - b) for a, b in zip(ours["scores"], theirs)) <= TOLERANCE
    assert ours["scores"] != compute_meteor(hyps, refs)["scores"]
    assert f"alpha:{params['alpha']:g}|beta:{params['beta']:g}|gamma:{params['gamma']:g}" in ours["signature"]


def test_known_values_and_formula():
    # nltk's own doctest example (0.6944) and a hand-computed case
    hyp = "It is a guide to action which ensures that the military always obeys the commands of the party"
    ref = "It is a guide to action that ensures that the military will forever heed Party commands"
    assert compute_meteor([hyp], [ref])["scores"][0] == pytest.approx(0.6944444444444445, abs=1e-12)
    # 3 of 4 words match in 2 chunks: P = 3/4, R = 3/3, Fmean = PR / (0.9P + 0.1R), Pen = 0.5 (2/3)^3
    p, r = 3 / 4, 1.0
    expected = (1 - 0.5 * (2 / 3) ** 3) * p * r / (0.9 * p + 0.1 * r)
    assert segment_score(["a", "b", "x", "c"], ["a", "b", "c"]) == pytest.approx(expected, abs=1e-15)
    assert count_chunks([(0, 0), (1, 1), (3, 2)]) == 2


def test_alignment_order_quirks():
    # exact stage: the last hypothesis word takes the last free reference word
    assert align(["a", "a"], ["a", "b", "a"]) == [(0, 0), (1, 2)]
    # stem stage pairs stems; the synonym stage then compares stems ("sat" -> "sat", WordNet: sit)
    assert align(["cats", "sat"], ["cat", "sitting"]) == [(0, 0), (1, 1)]
    assert segment_score(["x", "y"], ["z"]) == 0.0


@pytest.mark.parametrize(
    "prediction, reference",
    [("", "a reference"), ("   ", "a reference"), ("a prediction", ""), ("", ""), ("\n\t", " "), (".", "a")],
)
def test_empty_and_whitespace_text_score_zero_like_nltk(prediction, reference):
    result = compute_meteor([prediction], [reference])
    assert result["scores"] == [nltk_meteor(prediction, [reference])] == [0.0]
    assert not math.isnan(result["meteor"])


def test_whitespace_tokenizer_for_pretokenized_text(wmt17_deen):
    refs, hyps = wmt17_deen["references"][:40], wmt17_deen["systems"]["online-F.0"][:40]
    ours = compute_meteor(hyps, refs, tokenize="whitespace")["scores"]
    theirs = [meteor_score([r.split()], h.split()) for h, r in zip(hyps, refs)]
    assert max(abs(a - b) for a, b in zip(ours, theirs)) <= TOLERANCE


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (dict(predictions=["a", "b"], references=["a"]), ValueError, "2 predictions but 1 references"),
        (dict(predictions=[None], references=["a"]), TypeError, r"predictions\[0\] must be a string"),
        (dict(predictions=["a"], references=[["a", 3]]), TypeError, r"references\[0\]\[1\] must be a string"),
        (dict(predictions=["a"], references=[None]), TypeError, r"references\[0\] must be a string or a list"),
        (dict(predictions=[], references=[]), ValueError, "no examples"),
        (dict(predictions=["a"], references=[[]]), ValueError, r"references\[0\] is an empty list"),
        (dict(predictions="a b", references=["a b"]), TypeError, "list of strings"),
        (dict(predictions=["a"], references=["a"], alpha=1.5), ValueError, r"alpha must be a finite number in \[0, 1\]"),
        (dict(predictions=["a"], references=["a"], alpha=True), TypeError, "alpha must be a finite number, got bool"),
        (dict(predictions=["a"], references=["a"], beta=-1), ValueError, r"beta must be a finite number in \[0, "),
        (dict(predictions=["a"], references=["a"], gamma="0.5"), TypeError, "gamma must be a finite number, got str"),
        (dict(predictions=["a"], references=["a"], gamma=float("nan")), ValueError, "gamma must be a finite"),
        (dict(predictions=["a"], references=["a"], tokenize="moses"), ValueError, "unknown tokenize='moses'"),
    ],
)
def test_bad_input_is_named(kwargs, error, match):
    with pytest.raises(error, match=match):
        compute_meteor(**kwargs)


def test_missing_wordnet_names_the_fix(monkeypatch, tmp_path):
    from nlgmetrics import resources

    monkeypatch.setenv("NLGMETRICS_HOME", str(tmp_path))
    monkeypatch.setattr(resources, "_wordnet_source", lambda: None)
    monkeypatch.setattr(lexicon, "_WORDNET", None)
    with pytest.raises(RuntimeError) as info:
        compute_meteor(["a cat"], ["a cat"])
    message = str(info.value)
    assert "WordNet 3.0" in message and "pip install -e '.[wordnet]'" in message
    assert "python -m nlgmetrics.resources prepare" in message and "never calls nltk.download" in message


def test_evaluate_module_end_to_end_and_doctest(deen):
    import evaluate

    module = evaluate.load("./metrics/meteor")
    assert module.name == "meteor"
    refs, hyps = deen["references"][:30], deen["systems"]["online-B.0"][:30]
    result = module.compute(predictions=hyps, references=refs, sentence_scores=True)
    theirs = [nltk_meteor(h, [r]) for h, r in zip(hyps, refs)]
    assert max(abs(a - b) for a, b in zip(result["scores"], theirs)) <= TOLERANCE
    assert result["meteor"] == pytest.approx(sum(theirs) / len(theirs), abs=TOLERANCE)
    module.add_batch(predictions=hyps[:2], references=refs[:2])
    module.add_batch(predictions=hyps[2:4], references=[[r, "x"] for r in refs[2:4]])
    assert module.compute(sentence_scores=True)["scores"] == pytest.approx(result["scores"][:4], abs=TOLERANCE)
    with pytest.raises(ValueError, match="no examples"):
        module.compute(predictions=[], references=[])
    parser = doctest.DocTestParser()
    test = parser.get_doctest(type(module).__doc__ or module.inputs_description, {"evaluate": evaluate}, "meteor", None, 0)
    runner = doctest.DocTestRunner()
    runner.run(test)
    assert runner.tries >= 6 and runner.failures == 0


def test_registry_and_json_friendly_result():
    import json

    from nlgmetrics.registry import get_metric

    result = get_metric("meteor")(["the cat sat"], [["a cat sat", "the dog"]])
    assert json.loads(json.dumps(result)) == result
    assert set(result) == {"meteor", "scores", "signature"}
