"""The MT modules named like Hugging Face evaluate's (bleu, sacrebleu, google_bleu, nist_mt): called with HF's
arguments they return HF's keys with HF's numbers, on real WMT17 en-de text (tests/data).

References (none of them HF's scripts): HF ``bleu`` is tensorflow-nmt's BLEU, checked against the small independent
oracle below on HF's tokens (HF's ``Tokenizer13a`` is sacrebleu's 13a, split); ``sacrebleu`` against sacrebleu 2.6;
``google_bleu`` against nltk's ``corpus_gleu`` on the same tokens; ``nist_mt`` against nltk's ``corpus_nist`` on
nltk's ``NISTTokenizer`` tokens. Every module goes through ``evaluate.load``.

The README table "Drop-in for evaluate" is this file's measurement on all 16 WMT17 en-de systems::

    PYTHONPATH=. python tests/test_hf_mt_modules.py --data ../shared/data [--modules bleu sacrebleu ...]
"""

from __future__ import annotations

import importlib
import inspect
import math
import os
import warnings
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import sacrebleu
from nltk.translate.gleu_score import corpus_gleu, sentence_gleu
from nltk.translate.nist_score import corpus_nist
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

from nlgmetrics.registry import get_metric

MODULES = ("bleu", "sacrebleu", "google_bleu", "nist_mt")
HF_KEYS = {
    "bleu": ["bleu", "precisions", "brevity_penalty", "length_ratio", "translation_length", "reference_length"],
    "sacrebleu": ["score", "counts", "totals", "precisions", "bp", "sys_len", "ref_len"],
    "google_bleu": ["google_bleu"],
    "nist_mt": ["nist_mt"],
}
TOL = 1e-12
DROP_IN_SWITCHES = ("return_signature", "return_details")
_SACRE_13A = Tokenizer13a()


def hf_13a(text: str) -> list[str]:
    """HF's default tokenizer (its tokenizer_13a.py is sacrebleu's, returning ``line.split()``)."""
    return _SACRE_13A(text).split()


def characters(text: str) -> list[str]:
    """A user tokenizer: every non-space character."""
    return [char for char in text if not char.isspace()]


class UnhashableTokenizer:
    """A tokenizer object that cannot be a cache key (it defines __eq__ only)."""

    def __eq__(self, other):
        return isinstance(other, UnhashableTokenizer)

    def __call__(self, text):
        return text.split()


# -- references -----------------------------------------------------------------------------------------------------
def nmt_bleu_oracle(predictions, references, tokenizer=hf_13a, max_order=4, smooth=False) -> dict:
    """tensorflow-nmt's corpus BLEU from its definition (HF's ``bleu`` module), written independently.

    Per order n: matches = hypothesis n-grams clipped by their largest count in any one reference; possible =
    hypothesis n-grams. p_n = matches / possible (0 when possible is 0), or (matches + 1) / (possible + 1) with
    smooth. r sums each example's shortest reference, c the hypothesis lengths; BP = 1 when c > r, else exp(1 - r/c),
    and 0 when c or r is 0. BLEU = BP * geometric mean of p_n, 0 when any p_n is 0.
    """
    matches, possible = [0] * max_order, [0] * max_order
    hyp_length = ref_length = 0
    for prediction, refs in zip(predictions, references):
        hyp = tokenizer(prediction)
        ref_tokens = [tokenizer(ref) for ref in refs]
        hyp_length += len(hyp)
        ref_length += min(len(ref) for ref in ref_tokens)
        for n in range(1, max_order + 1):
            grams = Counter(tuple(hyp[i : i + n]) for i in range(len(hyp) - n + 1))
            most = Counter()
            for ref in ref_tokens:
                most |= Counter(tuple(ref[i : i + n]) for i in range(len(ref) - n + 1))
            matches[n - 1] += sum(min(count, most[gram]) for gram, count in grams.items())
            possible[n - 1] += max(len(hyp) - n + 1, 0)
    if smooth:
        precisions = [(m + 1) / (t + 1) for m, t in zip(matches, possible)]
    else:
        precisions = [m / t if t else 0.0 for m, t in zip(matches, possible)]
    geo_mean = math.exp(math.fsum(map(math.log, precisions)) / max_order) if min(precisions) > 0 else 0.0
    if hyp_length == 0 or ref_length == 0:
        bp = ratio = 0.0
    else:
        ratio = hyp_length / ref_length
        bp = 1.0 if hyp_length > ref_length else math.exp(1 - ref_length / hyp_length)
    return {"bleu": geo_mean * bp, "precisions": precisions, "brevity_penalty": bp, "length_ratio": ratio,
            "translation_length": hyp_length, "reference_length": ref_length}


def sacrebleu_reference(predictions, references, **kwargs) -> dict:
    """sacrebleu.corpus_bleu as HF's module calls it (reference streams; the same count per example)."""
    streams = [[refs[i] for refs in references] for i in range(len(references[0]))]
    if kwargs.get("tokenize") is None:
        kwargs.pop("tokenize", None)
    out = sacrebleu.corpus_bleu(predictions, streams, **kwargs)
    return {key: getattr(out, key) for key in HF_KEYS["sacrebleu"]}


def gleu_reference(predictions, references, tokenizer=hf_13a, min_len=1, max_len=4) -> dict:
    refs = [[tokenizer(ref) for ref in example] for example in references]
    return {"google_bleu": corpus_gleu(refs, [tokenizer(p) for p in predictions], min_len=min_len, max_len=max_len)}


def nist_reference(nist_tokenizer, predictions, references, n=5, lowercase=False, western_lang=True) -> dict:
    def tokens(text):
        return nist_tokenizer.tokenize(text, lowercase=lowercase, western_lang=western_lang)

    refs = [[tokens(ref) for ref in example] for example in references]
    return {"nist_mt": corpus_nist(refs, [tokens(p) for p in predictions], n=n)}


# module -> [(label, HF keyword arguments)]; each is scored with one and with two references per example
CASES = {
    "bleu": [("defaults", {}), ("max_order=1", {"max_order": 1}), ("max_order=2", {"max_order": 2}),
             ("max_order=6", {"max_order": 6}), ("smooth=True", {"smooth": True}),
             ("max_order=3, smooth=True", {"max_order": 3, "smooth": True}),
             ("tokenizer=str.split", {"tokenizer": str.split}), ("tokenizer=characters", {"tokenizer": characters})],
    "sacrebleu": [("defaults", {}), ("smooth_method=floor", {"smooth_method": "floor"}),
                  ("smooth_method=floor, smooth_value=0.5", {"smooth_method": "floor", "smooth_value": 0.5}),
                  ("smooth_method=add-k", {"smooth_method": "add-k"}),
                  ("smooth_method=add-k, smooth_value=2", {"smooth_method": "add-k", "smooth_value": 2}),
                  ("smooth_method=none", {"smooth_method": "none"}), ("lowercase=True", {"lowercase": True}),
                  ("tokenize=intl", {"tokenize": "intl"}), ("tokenize=zh", {"tokenize": "zh"}),
                  ("tokenize=char", {"tokenize": "char"}), ("tokenize=none", {"tokenize": "none"}),
                  ("use_effective_order=True", {"use_effective_order": True}), ("force=True", {"force": True})],
    "google_bleu": [("defaults", {}), ("min_len=2", {"min_len": 2}), ("max_len=6", {"max_len": 6}),
                    ("min_len=2, max_len=6", {"min_len": 2, "max_len": 6}), ("min_len=3, max_len=3",
                    {"min_len": 3, "max_len": 3}), ("tokenizer=str.split", {"tokenizer": str.split})],
    "nist_mt": [("defaults", {}), ("n=1", {"n": 1}), ("n=3", {"n": 3}), ("n=7", {"n": 7}),
                ("lowercase=True", {"lowercase": True}), ("western_lang=False", {"western_lang": False}),
                ("lowercase=True, western_lang=False", {"lowercase": True, "western_lang": False})],
}


def reference_result(name, predictions, references, kwargs, nist_tokenizer) -> dict:
    if name == "bleu":
        return nmt_bleu_oracle(predictions, references, **kwargs)
    if name == "sacrebleu":
        return sacrebleu_reference(predictions, references, **kwargs)
    if name == "google_bleu":
        return gleu_reference(predictions, references, **kwargs)
    return nist_reference(nist_tokenizer, predictions, references, **kwargs)


def max_abs_diff(ours: dict, theirs: dict) -> float:
    """Largest |ours - theirs| over the reference's keys (lists element by element); inf on a shape mismatch."""
    worst = 0.0
    for key, value in theirs.items():
        a, b = np.asarray(ours[key], dtype=np.float64), np.asarray(value, dtype=np.float64)
        if a.shape != b.shape:
            return math.inf
        if a.size:
            worst = max(worst, float(np.max(np.abs(a - b))))
    return worst


def reference_sets(reference: list[str], second: list[str], same_count: bool) -> dict[str, list[list[str]]]:
    """One reference per example, and two (a second system's output as the second; every other example only, unless
    ``same_count``: HF's sacrebleu needs the same count everywhere)."""
    two = [[a, b] if same_count or i % 2 else [a] for i, (a, b) in enumerate(zip(reference, second))]
    return {"1 ref": [[r] for r in reference], "2 refs": two}


# -- parity ---------------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def modules():
    import evaluate

    return {name: evaluate.load(f"./metrics/{name}") for name in MODULES}


@pytest.fixture(scope="module")
def texts(wmt17_ende):
    systems = wmt17_ende["systems"]
    size = 600
    return (systems["online-F.0"][:size], wmt17_ende["reference"][:size], systems["uedin-nmt.4722"][:size])


@pytest.mark.parametrize("name, label, kwargs", [(name, label, kw) for name in CASES for label, kw in CASES[name]])
def test_hf_arguments_give_hf_numbers(modules, texts, nltk_nist_tokenizer, name, label, kwargs):
    predictions, reference, second = texts
    for refs_label, references in reference_sets(reference, second, name == "sacrebleu").items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # sacrebleu's and our "not detokenized?" warning (force=False)
            theirs = reference_result(name, predictions, references, kwargs, nltk_nist_tokenizer)
        ours = modules[name].compute(predictions=predictions, references=references, **kwargs)
        assert list(ours)[: len(HF_KEYS[name])] == HF_KEYS[name]
        assert max_abs_diff(ours, theirs) <= TOL, (refs_label, ours, theirs)
        for key in ("translation_length", "reference_length", "counts", "totals", "sys_len", "ref_len"):
            if key in theirs:
                assert ours[key] == theirs[key], (refs_label, key)


def test_full_corpus_every_module(modules, wmt17_ende, nltk_nist_tokenizer):
    """All 3,004 segments of one system with HF's defaults."""
    predictions = wmt17_ende["systems"]["C-3MA.4959"]
    references = [[r] for r in wmt17_ende["reference"]]
    for name in MODULES:
        theirs = reference_result(name, predictions, references, {}, nltk_nist_tokenizer)
        ours = modules[name].compute(predictions=predictions, references=references)
        assert max_abs_diff(ours, theirs) <= TOL, name


def test_perfect_match_is_exactly_one(modules):
    predictions = ["hello there general kenobi", "foo bar foobar"]
    references = [["hello there general kenobi", "hello there!"], ["foo bar foobar"]]
    result = modules["bleu"].compute(predictions=predictions, references=references)
    assert result["bleu"] == 1.0 and result["precisions"] == [1.0] * 4 and result["brevity_penalty"] == 1.0
    assert get_metric("bleu")(["a b c d e"], ["a b c d e"])["bleu"] == 1.0
    assert modules["google_bleu"].compute(predictions=predictions, references=references)["google_bleu"] == 1.0


def test_sentence_level_bleu_without_a_four_gram_match_is_zero_as_hf(modules, wmt17_ende):
    """HF's bleu has no smoothing by default: one unmatched order gives 0, where sacrebleu's exp smoothing does not."""
    zero = 0
    for prediction, reference in zip(wmt17_ende["systems"]["C-3MA.4959"][:150], wmt17_ende["reference"][:150]):
        ours = get_metric("bleu")([prediction], [reference])
        theirs = nmt_bleu_oracle([prediction], [[reference]])
        assert max_abs_diff(ours, theirs) <= TOL
        assert ours["score"] == pytest.approx(sacrebleu.corpus_bleu([prediction], [[reference]]).score, abs=1e-9)
        if theirs["bleu"] == 0.0 and ours["score"] > 0:
            zero += 1
    assert zero > 10  # the case is common on single sentences
    smoothed = modules["bleu"].compute(predictions=["the cat sat"], references=["the cat is here"], smooth=True)
    assert max_abs_diff(smoothed, nmt_bleu_oracle(["the cat sat"], [["the cat is here"]], smooth=True)) <= TOL
    assert smoothed["bleu"] > 0


def test_tokenizer_objects_and_unhashable_callables(wmt17_ende):
    predictions, reference = wmt17_ende["systems"]["online-F.0"][:200], wmt17_ende["reference"][:200]
    references = [[r] for r in reference]
    for tokenizer in (UnhashableTokenizer(), _SACRE_13A.__class__()):
        call = tokenizer if isinstance(tokenizer, UnhashableTokenizer) else (lambda s, t=tokenizer: t(s).split())
        ours = get_metric("bleu")(predictions, references, tokenizer=call)
        assert max_abs_diff(ours, nmt_bleu_oracle(predictions, references, tokenizer=call)) <= TOL
        gleu = get_metric("google_bleu")(predictions, references, tokenizer=call)["google_bleu"]
        assert abs(gleu - gleu_reference(predictions, references, tokenizer=call)["google_bleu"]) <= TOL


def test_sentence_gleu_scores_match_nltk(wmt17_ende):
    predictions, reference = wmt17_ende["systems"]["uedin-nmt.4722"][:100], wmt17_ende["reference"][:100]
    second = wmt17_ende["systems"]["C-3MA.4959"][:100]
    references = [[a, b] for a, b in zip(reference, second)]
    result = get_metric("google_bleu")(predictions, references, sentence_scores=True, min_len=2)
    expected = [sentence_gleu([hf_13a(r) for r in refs], hf_13a(p), min_len=2)
                for p, refs in zip(predictions, references)]
    assert max(abs(a - b) for a, b in zip(result["scores"], expected)) <= TOL


def test_sacrebleu_force_controls_the_detokenization_warning():
    predictions = ["a tokenized line ."] * 100
    with pytest.warns(UserWarning, match="force=True"):
        get_metric("sacrebleu")(predictions, predictions)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert get_metric("sacrebleu")(predictions, predictions, force=True)["bp"] == 1.0
        get_metric("sacrebleu")(predictions[:99], predictions[:99])


def test_nist_tokenizer_is_nltks(wmt17_deen, nltk_nist_tokenizer):
    """HTML-escaped WMT17 de-en lines (&apos;, &quot; ...) and edge strings: the same tokens as nltk's NISTTokenizer."""
    from nlgmetrics.text.tokenizers import tokenize_nist

    lines = [*wmt17_deen["references"], *[line for outputs in wmt17_deen["systems"].values() for line in outputs],
             "a &amp;lt; b &apos;x&apos; &#124; &#91;y&#93; <skipped> foo-\nbar", "&QUOT;Q&quot;\u2028x 3.5, y-1"]
    for line in lines:
        for lowercase in (False, True):
            for western_lang in (True, False):
                expected = nltk_nist_tokenizer.tokenize(line, lowercase=lowercase, western_lang=western_lang)
                assert list(tokenize_nist(line, lowercase, western_lang)) == expected, line


# -- HF's module contract ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", MODULES)
def test_hf_module_test_load_contract(name):
    """What HF's tests/test_metric_common.py test_load checks besides the doctests (tests/test_doc_examples.py runs
    those as HF runs them): ``_compute`` without **kwargs."""
    import evaluate

    factory = evaluate.loading.evaluation_module_factory(os.path.join("metrics", name), module_type="metric")
    module = importlib.import_module(factory.module_path)
    metric_class = evaluate.loading.import_main_class(module.__name__)
    parameters = inspect.signature(metric_class._compute).parameters
    assert all(p.kind != p.VAR_KEYWORD for p in parameters.values())


@pytest.mark.parametrize("name", MODULES)
def test_module_signature_is_the_core_signature(name):
    """The module's keyword arguments are the core entry point's, with the same defaults, in the same order."""
    import evaluate

    module_class = type(evaluate.load(f"./metrics/{name}"))
    module_params = list(inspect.signature(module_class._compute).parameters.values())[3:]
    core_params = [p for p in inspect.signature(get_metric(name)).parameters.values() if p.kind == p.KEYWORD_ONLY]
    drop_in = [p for p in module_params if p.name in DROP_IN_SWITCHES]  # ask for our extras (evaluate_support)
    assert [(p.name, p.default) for p in module_params if p not in drop_in] == [(p.name, p.default) for p in core_params]
    assert [p.default for p in drop_in] == [False] * len(drop_in) and drop_in == module_params[-len(drop_in):]


# -- bad input --------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "name, kwargs, error, match",
    [("bleu", {"tokenizer": lambda text: text.upper()}, TypeError, "must return a list of tokens"),
     ("bleu", {"tokenizer": "moses"}, ValueError, "unknown tokenize"),
     ("bleu", {"max_order": 0}, ValueError, "max_order"),
     ("bleu", {"smooth": "yes"}, TypeError, "smooth must be True or False"),
     ("bleu", {"smooth_method": "floor", "smooth_value": math.inf}, ValueError, "finite"),
     ("sacrebleu", {"smooth_method": "add-k", "smooth_value": math.nan}, ValueError, "finite"),
     ("sacrebleu", {"tokenize": "ja-mecab"}, ValueError, "unknown tokenize"),
     ("google_bleu", {"min_len": 0}, ValueError, r"min_len must be an integer in \[1, 32\]"),
     ("google_bleu", {"min_len": 3, "max_len": 2}, ValueError, "above max_len"),
     ("google_bleu", {"tokenizer": lambda text: None}, TypeError, "must return a list of tokens"),
     ("nist_mt", {"n": 0}, ValueError, "highest n-gram order"),
     ("nist_mt", {"tokenize": "13a", "western_lang": False}, ValueError, "western_lang")],
)
def test_bad_hf_arguments_raise_named_errors(name, kwargs, error, match):
    with pytest.raises(error, match=match):
        get_metric(name)(["a b c"], ["a b c"], **kwargs)


# -- the README table -------------------------------------------------------------------------------------------------
def measure(data: Path, modules: tuple[str, ...] = MODULES) -> list[tuple[str, str, str, float]]:
    """(module, HF arguments, reference, max |diff| over every system and both reference settings) on WMT17 en-de."""
    import sys

    import evaluate

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from conftest import make_nltk_nist_tokenizer

    from benchmarks.common import load_wmt17_ende

    nist_tokenizer = make_nltk_nist_tokenizer()
    reference, systems = load_wmt17_ende(data)
    names = sorted(systems)
    labels = {"bleu": "tensorflow-nmt oracle (this file)", "sacrebleu": "sacrebleu 2.6 corpus_bleu",
              "google_bleu": "nltk corpus_gleu", "nist_mt": "nltk corpus_nist + NISTTokenizer"}
    rows = []
    for name in modules:
        module = evaluate.load(f"./metrics/{name}")
        for label, kwargs in CASES[name]:
            worst = 0.0
            for i, system in enumerate(names):
                second = systems[names[(i + 1) % len(names)]]
                for references in reference_sets(reference, second, name == "sacrebleu").values():
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        theirs = reference_result(name, systems[system], references, kwargs, nist_tokenizer)
                    ours = module.compute(predictions=systems[system], references=references, **kwargs)
                    worst = max(worst, max_abs_diff(ours, theirs))
            rows.append((name, label, labels[name], worst))
            print(f"| {name} | {label} | {labels[name]} | {worst:.2g} |", flush=True)
    return rows


if __name__ == "__main__":
    import argparse

    from benchmarks.common import DEFAULT_DATA

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--modules", nargs="+", default=MODULES, choices=MODULES)
    args = parser.parse_args()
    print("| module | HF arguments | reference | max abs diff |\n|---|---|---|---|")
    measure(args.data, tuple(args.modules))
