"""Every ``metrics/<name>/`` module against Hugging Face evaluate's own module rules, and the HF-named modules
(meteor, bertscore) against HF's modules: HF's keyword arguments, HF's keys, HF's numbers."""

from __future__ import annotations

import html
import importlib
import inspect
import re

import evaluate
import pytest
from conftest import REPO

from nlgmetrics.registry import get_metric
from nlgmetrics.resources import bundled_encoder_path

MODULES = sorted(path.name for path in (REPO / "metrics").iterdir() if (path / f"{path.name}.py").is_file())
# modules whose explicit _compute signature comes with another branch (drop a name once that branch is merged)
PENDING_SIGNATURE: dict[str, str] = {}
# modules whose _compute forwards every option, unchanged, to their core (the signature must match it)
FORWARDING = ["meteor", "nist_mt", "bertscore", "moverscore"]
DROP_IN_DEFAULTS = {"meteor": {"sentence_scores": False}}


def _module_class(name: str) -> type:
    """As HF's tests/test_metric_common.py ``test_load`` does it: the factory, the import, the main class."""
    factory = evaluate.loading.evaluation_module_factory(str(REPO / "metrics" / name), module_type="metric")
    script = importlib.import_module(factory.module_path)
    return evaluate.loading.import_main_class(script.__name__)


@pytest.mark.parametrize("name", [
    pytest.param(name, marks=pytest.mark.xfail(reason=f"{PENDING_SIGNATURE[name]} gives it one", strict=False))
    if name in PENDING_SIGNATURE else name for name in MODULES
])
def test_compute_has_no_var_keyword_as_hf_module_test_requires(name):
    parameters = inspect.signature(_module_class(name)._compute).parameters
    assert all(p.kind != p.VAR_KEYWORD for p in parameters.values())  # HF: "no **kwargs"
    assert list(parameters)[1:3] == ["predictions", "references"]


@pytest.mark.parametrize("name", [name for name in FORWARDING if name in MODULES])
def test_module_options_are_the_cores(name):
    """Names and defaults written once more in the module stay those of the core they forward to."""
    module_params = list(inspect.signature(_module_class(name)._compute).parameters.values())[3:]
    core_params = [p for p in inspect.signature(get_metric(name)).parameters.values() if p.kind is p.KEYWORD_ONLY]
    module = {p.name: p.default for p in module_params if p.name not in ("return_signature", "return_details")}
    # meteor's per-example scores come on request in the module (HF's keys only by default), always in the core
    assert module == {p.name: p.default for p in core_params} | DROP_IN_DEFAULTS.get(name, {})


@pytest.mark.parametrize("name, typo, closest", [
    ("meteor", "alhpa", "alpha"), ("nist_mt", "lowercased", "lowercase"), ("bertscore", "model", "model_type"),
    ("moverscore", "stopwords", "stop_words"), ("nlg_suite", "metric", "metrics"),
])
def test_unknown_option_names_module_accepted_and_closest(name, typo, closest):
    module = evaluate.load(f"./metrics/{name}")
    accepted = list(inspect.signature(module._compute).parameters)[2:]
    with pytest.raises(ValueError) as info:
        module.compute(predictions=["a b"], references=["a b"], **{typo: 1})
    message = str(info.value)
    assert message.startswith(f"{name}: unknown option {typo!r}.") and f"Did you mean {closest!r}?" in message
    assert message.endswith(f"Accepted options: {', '.join(accepted)}.")
    # the same check after add_batch, before evaluate touches what was added
    module.add_batch(predictions=["a b"], references=["a b"])
    with pytest.raises(ValueError, match=f"unknown options {typo!r}, 'zzz'"):
        module.compute(**{typo: 1, "zzz": 2})
    if name in ("meteor", "nist_mt"):  # what was added is still there
        assert module.compute() == module.compute(predictions=["a b"], references=["a b"])


def test_unknown_option_without_close_match():
    with pytest.raises(ValueError, match=r"unknown option 'xyz'\. Accepted options: alpha, beta, gamma, tokenize, sentence_scores, "
                       r"return_signature, return_details\.$"):
        evaluate.load("./metrics/meteor").compute(predictions=["a"], references=["a"], xyz=1)


# ---------------------------------------------------------------- HF meteor: HF's module, as it computes


nltk = pytest.importorskip("nltk")


def hf_meteor(predictions, references, alpha=0.9, beta=3, gamma=0.5) -> dict:
    """HF evaluate's metrics/meteor/meteor.py ``_compute`` (nltk >= 3.6.5 branch), line for line."""
    import numpy as np
    from nltk.tokenize import word_tokenize
    from nltk.translate import meteor_score

    if isinstance(references[0], list):
        scores = [meteor_score.meteor_score([word_tokenize(ref) for ref in refs], word_tokenize(pred), alpha=alpha,
                                            beta=beta, gamma=gamma) for refs, pred in zip(references, predictions)]
    else:
        scores = [meteor_score.single_meteor_score(word_tokenize(ref), word_tokenize(pred), alpha=alpha, beta=beta,
                                                   gamma=gamma) for ref, pred in zip(references, predictions)]
    return {"meteor": np.mean(scores)}


@pytest.fixture(scope="module")
def deen(wmt17_deen) -> dict:
    refs = [html.unescape(r) for r in wmt17_deen["references"][:60]]
    systems = [[html.unescape(h) for h in hyps[:60]] for hyps in wmt17_deen["systems"].values()]
    return {"refs": refs, "hyps": systems[0], "multi": [[r, s] for r, s in zip(refs, systems[1])]}


@pytest.mark.parametrize("hf_args", [{}, {"alpha": 0.85, "beta": 0.2, "gamma": 0.6}, {"alpha": 0.5, "beta": 1},
                                     {"gamma": 0.0}])
@pytest.mark.parametrize("multi", [False, True])
def test_meteor_module_with_hf_arguments_gives_hf_numbers(deen, hf_args, multi):
    refs = deen["multi"] if multi else deen["refs"]
    want = hf_meteor(deen["hyps"], refs, **hf_args)
    got = evaluate.load("./metrics/meteor").compute(predictions=deen["hyps"], references=refs, **hf_args)
    assert set(want) <= set(got)
    assert got["meteor"] == pytest.approx(float(want["meteor"]), abs=1e-12)
    assert 0.2 < got["meteor"] < 0.95  # real values, not a degenerate 0 or 1


# ---------------------------------------------------------------- HF bertscore: HF's module, as it computes


def hf_bertscore(predictions, references, lang=None, model_type=None, num_layers=None, verbose=False, idf=False,
                 device=None, batch_size=64, nthreads=4, all_layers=False, rescale_with_baseline=False,
                 baseline_path=None, use_fast_tokenizer=False) -> dict:
    """HF evaluate's metrics/bertscore/bertscore.py ``_compute`` (bert-score >= 0.3.10), less its logging filter.

    One change: HF wraps string references in lists, which bert_score 0.3.13 cannot score with ``all_layers=True``
    (IndexError inside ``BERTScorer.score``, so HF's module fails there); with all_layers the strings go as they are.
    ``nthreads`` only sizes bert_score's idf process pool: it runs in process here (same numbers, no fork).
    """
    import bert_score

    if isinstance(references[0], str) and not all_layers:
        references = [[ref] for ref in references]
    idf_sents = [r for ref in references for r in ref] if idf else None
    if model_type is None:
        model_type = bert_score.utils.lang2model[lang.lower()]
    if num_layers is None:
        num_layers = bert_score.utils.model2layers[model_type]
    hashcode = bert_score.utils.get_hash(model=model_type, num_layers=num_layers, idf=idf,
                                         rescale_with_baseline=rescale_with_baseline,
                                         use_custom_baseline=baseline_path is not None,
                                         use_fast_tokenizer=use_fast_tokenizer)
    scorer = bert_score.BERTScorer(model_type=model_type, num_layers=num_layers, batch_size=batch_size,
                                   nthreads=0, all_layers=all_layers, idf=idf, idf_sents=idf_sents,
                                   device=device, lang=lang, rescale_with_baseline=rescale_with_baseline,
                                   baseline_path=baseline_path, use_fast_tokenizer=use_fast_tokenizer)
    P, R, F = scorer.score(cands=predictions, refs=references, verbose=verbose, batch_size=batch_size)
    return {"precision": P.tolist(), "recall": R.tolist(), "f1": F.tolist(), "hashcode": hashcode}


def _max_diff(a, b) -> float:
    if isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b)
        return max((_max_diff(x, y) for x, y in zip(a, b)), default=0.0)
    return abs(a - b)


@pytest.mark.skipif(bundled_encoder_path() is None, reason="bundled MiniLM encoder not installed")
@pytest.mark.parametrize("hf_args", [
    {"num_layers": 6},
    {"num_layers": 4, "idf": True, "multi": True, "batch_size": 3, "nthreads": 1, "device": "cpu", "verbose": False},
    {"num_layers": 6, "all_layers": True},
    {"num_layers": 5, "lang": "en", "rescale_with_baseline": True, "baseline_path": "BASE", "use_fast_tokenizer": True},
])
def test_bertscore_module_with_hf_arguments_gives_hf_numbers(deen, hf_args, tmp_path):
    pytest.importorskip("bert_score")
    hf_args = dict(hf_args, model_type=bundled_encoder_path())
    if hf_args.get("baseline_path") == "BASE":
        base = tmp_path / "base.tsv"
        base.write_text("LAYER,P,R,F\n" + "".join(f"{k},0.{k}1,0.{k}2,0.{k}3\n" for k in range(7)))
        hf_args["baseline_path"] = str(base)
    refs = deen["multi"][:10] if hf_args.pop("multi", False) else deen["refs"][:10]
    hyps = deen["hyps"][:10]
    want = hf_bertscore(hyps, refs, **hf_args)
    got = evaluate.load("./metrics/bertscore").compute(predictions=hyps, references=refs, **hf_args)
    assert set(want) <= set(got)
    for key in ("precision", "recall", "f1"):
        assert _max_diff(got[key], want[key]) <= 1e-5, key
    version = re.compile(r"version=[^(]*\(")  # the library named in the hashcode: bert_score's or ours
    assert version.sub("version=(", got["hashcode"]) == version.sub("version=(", want["hashcode"])


@pytest.mark.parametrize("name", ["chrf", "bleu", "ter", "rouge"])
def test_empty_first_batch_adds_nothing(name):
    """Issue 29.10: add_batch(predictions=[], references=[]) as the first batch raised evaluate's internal
    IndexError (it infers the feature format from a batch's first example)."""
    module = evaluate.load(str(REPO / "metrics" / name))
    module.add_batch(predictions=[], references=[])
    module.add_batch(predictions=["the cat sat on the mat"], references=[["the cat sat on the mat"]])
    module.add_batch(predictions=[], references=[])
    direct = evaluate.load(str(REPO / "metrics" / name)).compute(predictions=["the cat sat on the mat"],
                                                                  references=[["the cat sat on the mat"]])
    assert module.compute() == direct
