"""Modules named like HF evaluate's return HF's keys only when called with HF's arguments alone (issue #29, item 13).

transformers' run_summarization / run_translation examples post-process a result with
``{k: round(v * 100, 4) for k, v in result.items()}``: on our module it must do what it does on HF's (work, or fail
the same way where HF's own result holds a list). Oracles: HF's own module scripts (tests/data/hf_evaluate, verbatim;
bleu's ``nmt_bleu.py`` vendored beside it) where they run offline; for nist_mt (needs nltk's perluniprops download),
meteor (WordNet download) and bertscore (hub model), the key set their scripts return. Our extras come on request:
``return_signature``, ``sentence_scores``, ``n_bootstrap``, ``return_details`` (everything the core computes).
"""

from __future__ import annotations

import evaluate
import pytest
from conftest import DATA
from test_evaluate_modules import hf_meteor

from nlgmetrics.registry import get_metric
from nlgmetrics.resources import bundled_encoder_path

pytestmark = pytest.mark.filterwarnings(r"ignore:ROUGE. \d+ of \d+ texts:UserWarning")

RUNNABLE = ["bleu", "sacrebleu", "google_bleu", "chrf", "ter", "rouge"]  # HF's scripts run offline here
SCRIPT_KEYS = {  # read off HF's scripts' return statements (huggingface/evaluate metrics/<name>/<name>.py)
    "nist_mt": ["nist_mt"],
    "meteor": ["meteor"],
    "bertscore": ["precision", "recall", "f1", "hashcode"],
}


def hf_post_process(result: dict) -> dict:
    """transformers' examples' post-processing."""
    return {k: round(v * 100, 4) for k, v in result.items()}


def outcome(result: dict) -> dict | type:
    """The post-processed result, or the exception type it raises."""
    try:
        return hf_post_process(result)
    except TypeError:
        return TypeError


@pytest.fixture(scope="module")
def pairs(wmt17_deen) -> tuple[list[str], list[str]]:
    """40 real WMT17 de-en segments of one system and their references (one each, as HF's sacrebleu requires)."""
    system = sorted(wmt17_deen["systems"])[0]
    return wmt17_deen["systems"][system][:40], wmt17_deen["references"][:40]


def _same(ours, hf) -> bool:
    if isinstance(hf, (list, tuple)):
        return len(ours) == len(hf) and all(_same(a, b) for a, b in zip(ours, hf))
    if isinstance(hf, str):
        return ours == hf
    return ours == pytest.approx(float(hf), rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("name", RUNNABLE)
def test_hf_arguments_alone_give_hf_keys_and_numbers(name, pairs):
    predictions, references = pairs
    hf = evaluate.load(str(DATA / "hf_evaluate" / name)).compute(predictions=predictions, references=references)
    ours = evaluate.load(f"./metrics/{name}").compute(predictions=predictions, references=references)
    assert list(ours) == list(hf)
    assert all(_same(ours[key], hf[key]) for key in hf), (ours, hf)
    assert outcome(ours) == outcome(hf)  # e.g. chrf: {'score': 52.1234, ...}; bleu: TypeError on both (a list)
    if not any(isinstance(v, list) for v in hf.values()):
        assert outcome(ours) is not TypeError


def test_rouge_per_example_has_hf_keys(pairs):
    predictions, references = pairs
    hf = evaluate.load(str(DATA / "hf_evaluate" / "rouge")).compute(
        predictions=predictions, references=references, use_aggregator=False, rouge_types=["rouge1", "rougeL"])
    ours = evaluate.load("./metrics/rouge").compute(
        predictions=predictions, references=references, use_aggregator=False, rouge_types=["rouge1", "rougeL"])
    assert list(ours) == list(hf) == ["rouge1", "rougeL"] and ours["rouge1"] == hf["rouge1"]


def test_nist_mt_and_meteor_give_the_keys_of_hf_scripts(pairs):
    predictions, references = pairs
    for name in ("nist_mt", "meteor"):
        ours = evaluate.load(f"./metrics/{name}").compute(predictions=predictions, references=references)
        assert list(ours) == SCRIPT_KEYS[name]
        assert hf_post_process(ours)[name] == round(ours[name] * 100, 4) and 5 < ours[name] * 100 < 1000
    want = hf_meteor(predictions, references)
    assert ours["meteor"] == pytest.approx(float(want["meteor"]), abs=1e-12)


@pytest.mark.skipif(bundled_encoder_path() is None, reason="bundled MiniLM encoder not installed")
def test_bertscore_gives_the_keys_of_hf_script(pairs):
    predictions, references = pairs
    ours = evaluate.load("./metrics/bertscore").compute(
        predictions=predictions[:4], references=references[:4], model_type=bundled_encoder_path(), num_layers=6)
    assert list(ours) == SCRIPT_KEYS["bertscore"]
    assert outcome(ours) is TypeError  # as on HF's: its values are lists and a string


EXTRAS = [  # (module, extra options, keys they add to HF's)
    ("bleu", {"return_signature": True}, ["signature"]),
    ("sacrebleu", {"return_signature": True, "sentence_scores": True}, ["scores", "signature"]),
    ("sacrebleu", {"n_bootstrap": 50}, ["score_mean", "score_ci", "score_low", "score_high"]),
    ("google_bleu", {"sentence_scores": True}, ["scores"]),
    ("nist_mt", {"n_bootstrap": 50}, ["nist_mean", "nist_ci", "nist_low", "nist_high"]),
    ("chrf", {"return_signature": True}, ["signature"]),
    ("chrf", {"sentence_scores": True, "n_bootstrap": 50}, ["scores", "score_mean", "score_ci", "score_low",
                                                          "score_high"]),
    ("ter", {"return_signature": True, "sentence_scores": True}, ["scores", "signature"]),
    ("meteor", {"sentence_scores": True}, ["scores"]),
    ("meteor", {"return_signature": True}, ["signature"]),
    ("rouge", {"n_bootstrap": 50, "rouge_types": ["rouge1"]},
     [f"rouge1{part}_{bound}" for part in ("", "_precision", "_recall") for bound in ("low", "mid", "high")]),
]


@pytest.mark.parametrize("name, options, added", EXTRAS)
def test_extras_come_when_asked(name, options, added, pairs):
    predictions, references = pairs
    plain = evaluate.load(f"./metrics/{name}").compute(
        predictions=predictions, references=references,
        **{k: v for k, v in options.items() if k == "rouge_types"})
    got = evaluate.load(f"./metrics/{name}").compute(predictions=predictions, references=references, **options)
    assert set(got) - set(plain) == set(added) and set(plain) <= set(got)
    if "scores" in added:
        assert len(got["scores"]) == len(predictions)


@pytest.mark.parametrize("name", RUNNABLE + ["nist_mt", "meteor"])
def test_return_details_gives_everything_the_core_computes(name, pairs):
    """The CLI, suite, Trainer and lm-eval call the core: its result keeps every extra."""
    predictions, references = pairs
    core = get_metric(name)(predictions, references)
    got = evaluate.load(f"./metrics/{name}").compute(predictions=predictions, references=references,
                                                     return_details=True)
    assert got.keys() == core.keys() - ({"scores"} if name == "meteor" else set())  # scores: sentence_scores=True
    if name in ("bleu", "sacrebleu", "chrf", "ter", "meteor"):
        assert "signature" in got


@pytest.mark.parametrize("option", ["return_signature", "return_details"])
def test_extra_switches_must_be_booleans(option):
    with pytest.raises(TypeError, match=f"chrf: {option} must be True or False, got 'false'"):
        evaluate.load("./metrics/chrf").compute(predictions=["a b c"], references=["a b c"], **{option: "false"})
