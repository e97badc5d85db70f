"""Modules named like HF evaluate's return HF's keys only when called with HF's arguments alone (issue #29, item 13).

transformers' run_summarization / run_translation examples post-process a result with
``{k: round(v * 100, 4) for k, v in result.items()}``: on our module it must do what it does on HF's (work, or fail
the same way where HF's own result holds a list). HF's key sets are the constants below (facts read off HF's module
scripts); HF's numbers come from the reference libraries called as those scripts call them (the oracles below, none
of them HF's code): sacrebleu 2.6 (sacrebleu, chrf, ter; references transposed into streams), nltk's corpus_gleu on
sacrebleu's 13a tokens (google_bleu), rouge_score 0.1.2 (rouge, tests/test_rouge_hf.py), tensorflow-nmt's BLEU
(bleu; the independent oracle of tests/test_hf_mt_modules.py). With a local checkout of huggingface/evaluate in
NLGMETRICS_HF_EVALUATE, HF's own scripts are run too. Our extras come on request: ``return_signature``,
``sentence_scores``, ``n_bootstrap``, ``return_details`` (everything the core computes).
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import evaluate
import pytest
from sacrebleu import CHRF, TER, corpus_bleu
from test_evaluate_modules import hf_meteor
from test_hf_mt_modules import gleu_reference, nmt_bleu_oracle
from test_rouge_hf import hf_rouge

from nlgmetrics.registry import get_metric
from nlgmetrics.resources import bundled_encoder_path

pytestmark = pytest.mark.filterwarnings(r"ignore:ROUGE. \d+ of \d+ texts:UserWarning")

# The keys (in order) HF's module scripts return with their default arguments, read off their return statements:
# github.com/huggingface/evaluate metrics/<name>/<name>.py at a7dd338 (rouge's keys are its default rouge_types).
HF_KEYS = {
    "bleu": ("bleu", "precisions", "brevity_penalty", "length_ratio", "translation_length", "reference_length"),
    "sacrebleu": ("score", "counts", "totals", "precisions", "bp", "sys_len", "ref_len"),
    "google_bleu": ("google_bleu",),
    "chrf": ("score", "char_order", "word_order", "beta"),
    "ter": ("score", "num_edits", "ref_length"),
    "rouge": ("rouge1", "rouge2", "rougeL", "rougeLsum"),
    "nist_mt": ("nist_mt",),  # nist_mt, meteor, bertscore: no numeric oracle offline here (nltk's perluniprops
    "meteor": ("meteor",),  # and WordNet downloads, a hub model); meteor's number: test_evaluate_modules.hf_meteor
    "bertscore": ("precision", "recall", "f1", "hashcode"),
}
RUNNABLE = ["bleu", "sacrebleu", "google_bleu", "chrf", "ter", "rouge"]  # their numbers are checked below


def _streams(references: list) -> list[list[str]]:
    """HF's sacrebleu / chrf / ter: one reference per example becomes a list of one; then one stream per position."""
    references = [[r] if isinstance(r, str) else r for r in references]
    return [[refs[i] for refs in references] for i in range(len(references[0]))]


def hf_oracle(name: str, predictions: list[str], references: list) -> dict:
    """HF's result for HF's default arguments, from the reference library called the way HF's script calls it."""
    if name == "bleu":
        return nmt_bleu_oracle(predictions, [[r] if isinstance(r, str) else r for r in references])
    if name == "google_bleu":
        return gleu_reference(predictions, [[r] if isinstance(r, str) else r for r in references])
    if name == "rouge":
        return hf_rouge(predictions, references, seed=0)
    if name == "sacrebleu":
        out = corpus_bleu(predictions, _streams(references), smooth_method="exp", smooth_value=None, force=False,
                          lowercase=False, use_effective_order=False)
    elif name == "chrf":
        out = CHRF(6, 0, 2, False, False, False).corpus_score(predictions, _streams(references))
    else:  # ter: HF's normalized / ignore_punct / support_zh_ja_chars / case_sensitive, all False
        out = TER(normalized=False, no_punct=False, asian_support=False, case_sensitive=False).corpus_score(
            predictions, _streams(references))
    return {key: getattr(out, key) for key in HF_KEYS[name]}


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
    system = min(wmt17_deen["systems"])
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
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # sacrebleu's "not detokenized?" warning
        hf = hf_oracle(name, predictions, references)
    module = evaluate.load(f"./metrics/{name}", seed=0)  # seed: HF rouge's bootstrap mid, drawn as evaluate seeds it
    ours = module.compute(predictions=predictions, references=references)
    assert tuple(ours) == tuple(hf) == HF_KEYS[name]
    assert all(_same(ours[key], hf[key]) for key in hf), (ours, hf)
    assert outcome(ours) == outcome(hf)  # e.g. chrf: {'score': 52.1234, ...}; bleu: TypeError on both (a list)
    if not any(isinstance(v, list) for v in hf.values()):
        assert outcome(ours) is not TypeError
    if name == "bleu":  # the module is the core's HF-mode BLEU
        assert ours["bleu"] == get_metric("bleu")(predictions, references)["bleu"]


def test_rouge_per_example_has_hf_keys(pairs):
    predictions, references = pairs
    options = {"use_aggregator": False, "rouge_types": ["rouge1", "rougeL"]}
    hf = hf_rouge(predictions, references, **options)
    ours = evaluate.load("./metrics/rouge").compute(predictions=predictions, references=references, **options)
    assert list(ours) == list(hf) == ["rouge1", "rougeL"]
    assert ours["rouge1"] == hf["rouge1"] and ours["rougeL"] == hf["rougeL"] and len(ours["rouge1"]) == 40


HF_CHECKOUT = os.environ.get("NLGMETRICS_HF_EVALUATE")


@pytest.mark.skipif(not HF_CHECKOUT, reason="NLGMETRICS_HF_EVALUATE (a local huggingface/evaluate checkout) not set; "
                    "the oracles above stand in for HF's scripts")
@pytest.mark.parametrize("name", ["sacrebleu", "google_bleu", "chrf", "ter", "rouge"])  # bleu's script downloads
def test_hf_scripts_from_a_local_checkout(name, pairs):  # tensorflow-nmt's bleu.py on load
    predictions, references = pairs
    script = Path(HF_CHECKOUT) / "metrics" / name
    if not script.is_dir():
        pytest.skip(f"{script} not found")
    hf = evaluate.load(str(script), seed=0).compute(predictions=predictions, references=references)
    ours = evaluate.load(f"./metrics/{name}", seed=0).compute(predictions=predictions, references=references)
    assert tuple(ours) == tuple(hf) == HF_KEYS[name]
    assert all(_same(ours[key], hf[key]) for key in hf), (ours, hf)


def test_nist_mt_and_meteor_give_the_keys_of_hf_scripts(pairs):
    predictions, references = pairs
    for name in ("nist_mt", "meteor"):
        ours = evaluate.load(f"./metrics/{name}").compute(predictions=predictions, references=references)
        assert tuple(ours) == HF_KEYS[name]
        assert hf_post_process(ours)[name] == round(ours[name] * 100, 4) and 5 < ours[name] * 100 < 1000
    want = hf_meteor(predictions, references)
    assert ours["meteor"] == pytest.approx(float(want["meteor"]), abs=1e-12)


@pytest.mark.skipif(bundled_encoder_path() is None, reason="bundled MiniLM encoder not installed")
def test_bertscore_gives_the_keys_of_hf_script(pairs):
    predictions, references = pairs
    ours = evaluate.load("./metrics/bertscore").compute(
        predictions=predictions[:4], references=references[:4], model_type=bundled_encoder_path(), num_layers=6)
    assert tuple(ours) == HF_KEYS["bertscore"]
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
