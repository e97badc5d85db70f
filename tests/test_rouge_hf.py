"""ROUGE as a drop-in for HF evaluate's `rouge`: with HF's arguments, HF's exact numbers.

The oracle is ``hf_rouge`` below: rouge_score 0.1.2 called the way HF's module script (huggingface/evaluate
metrics/rouge/rouge.py) calls it, not HF's code: RougeScorer(rouge_types, use_stemmer, tokenizer wrapped to have a
``tokenize`` method), ``score_multi`` when references are lists, and either the per-example F lists or its
BootstrapAggregator mid, drawn from numpy's global RNG seeded (then restored) with the module's `seed`, as evaluate's
``compute`` does. Ours must give the same floats, bit for bit, for the same seed.
"""

from __future__ import annotations

import contextlib
import html

import numpy as np
import pytest
from rouge_score import rouge_scorer, scoring

from nlgmetrics.lexical.rouge import (
    compute_rouge,
    numpy_global_seed,
    rouge_score_bootstrap,
    rouge_scores,
)

pytestmark = pytest.mark.filterwarnings(r"ignore:ROUGE. \d+ of \d+ texts:UserWarning")

HF_TYPES = ["rouge1", "rouge2", "rougeL", "rougeLsum"]  # HF's default rouge_types


@contextlib.contextmanager
def _seeded(seed):
    """evaluate's compute: numpy's global RNG seeded with the module's seed for the call, its state restored after."""
    state = np.random.get_state()
    np.random.seed(seed)
    try:
        yield
    finally:
        np.random.set_state(state)


class _Tokenize:
    """rouge_score wants an object with a ``tokenize`` method; HF's module wraps a user's callable so."""

    def __init__(self, function):
        self.tokenize = function


def hf_rouge(predictions, references, rouge_types=None, use_aggregator=True, use_stemmer=False, tokenizer=None,
             seed=0) -> dict:
    """HF rouge's result from rouge_score (its defaults: the four HF_TYPES, aggregator on, no stemmer)."""
    scorer = rouge_scorer.RougeScorer(rouge_types=rouge_types or HF_TYPES, use_stemmer=use_stemmer,
                                      tokenizer=None if tokenizer is None else _Tokenize(tokenizer))
    rows = [scorer.score_multi(ref, pred) if isinstance(ref, list) else scorer.score(ref, pred)
            for ref, pred in zip(references, predictions)]
    if not use_aggregator:
        return {key: [row[key].fmeasure for row in rows] for key in rows[0]}
    aggregator = scoring.BootstrapAggregator()
    for row in rows:
        aggregator.add_scores(row)
    with _seeded(seed):
        result = aggregator.aggregate()
    return {key: value.mid.fmeasure for key, value in result.items()}


@pytest.fixture(scope="module")
def deen(wmt17_deen) -> dict:
    refs = [html.unescape(r) for r in wmt17_deen["references"]]
    systems = {name: [html.unescape(h) for h in hyps] for name, hyps in wmt17_deen["systems"].items()}
    return {"refs": refs, "systems": systems}


def _ours(seed=None):
    import evaluate

    return evaluate.load("./metrics/rouge", seed=seed)


def _hf_keys_equal(hf: dict, ours: dict) -> None:
    """Every key HF returns, with HF's value exactly (floats compared with ==, lists element by element)."""
    assert set(hf) <= set(ours)
    for key, value in hf.items():
        assert ours[key] == value, (key, ours[key], value)


CASES = {
    "defaults": {},
    "stemmer": {"use_stemmer": True},
    "types": {"rouge_types": ["rougeLsum", "rouge3", "rouge1"]},
    "per example": {"use_aggregator": False, "use_stemmer": True},
    "callable tokenizer": {"tokenizer": str.split, "rouge_types": ["rouge1", "rougeL"]},
}


@pytest.mark.parametrize("seed", [0, 42, 2**32 - 1])
@pytest.mark.parametrize("case", list(CASES))
def test_module_gives_hf_numbers_for_the_same_seed(deen, case, seed):
    ours = _ours(seed)
    hyps, refs = deen["systems"]["online-F.0"], deen["refs"]  # 35 of its outputs have non-ASCII letters
    options = CASES[case]
    hf = hf_rouge(hyps, refs, seed=seed, **options)
    assert list(hf) == options.get("rouge_types", HF_TYPES)
    _hf_keys_equal(hf, ours.compute(predictions=hyps, references=refs, **options))


def test_module_gives_hf_numbers_on_german_and_several_references(wmt17_ende):
    ours = _ours(7)
    refs = wmt17_ende["reference"][:120]
    hyps = wmt17_ende["systems"]["uedin-nmt.4722"][:120]
    several = [[r, c] for r, c in zip(refs, wmt17_ende["systems"]["C-3MA.4959"][:120])]
    for references in (refs, several):
        for options in ({}, {"use_stemmer": True}):
            _hf_keys_equal(hf_rouge(hyps, references, seed=7, **options),
                           ours.compute(predictions=hyps, references=references, **options))


def test_globally_seeded_numpy_gives_hf_numbers_without_a_seed(deen):
    """transformers' set_seed(s) seeds numpy; evaluate then takes each module's seed from numpy's global state (here
    1234), so our module draws the resamples HF's module loaded at that point would."""
    hyps, refs = deen["systems"]["KIT.4951"], deen["refs"]
    np.random.seed(1234)
    ours = _ours()
    assert ours.seed == 1234  # evaluate's rule: the seed the global state was set with
    _hf_keys_equal(hf_rouge(hyps, refs, seed=1234), ours.compute(predictions=hyps, references=refs))


def test_aggregate_is_rouge_score_bootstrap_call_for_call(deen):
    """The core's aggregator="bootstrap" against rouge_score's BootstrapAggregator after np.random.seed: low, mid
    and high of precision, recall and F, bit for bit; with numpy_seed=None both consume the global RNG alike."""
    hyps, refs = deen["systems"]["uedin-nmt.4723"], deen["refs"]
    types = ["rouge1", "rouge2", "rougeL", "rougeW", "rougeSU4"]  # our own types draw in the same way, in order
    rows = rouge_scores(hyps, refs, types, use_stemmer=True)
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=True)

    def theirs():
        aggregator = scoring.BootstrapAggregator()
        for row, hyp, ref in zip(rows, hyps, refs):
            score = scorer.score(ref, hyp)
            score.update({t: scoring.Score(*row[t]) for t in ("rougeW", "rougeSU4")})
            aggregator.add_scores(score)
        return aggregator.aggregate()

    values = np.array([[x for t in types for x in row[t]] for row in rows])
    np.random.seed(99)
    expected = theirs()
    state_after = np.random.get_state()[1].copy()
    np.random.seed(99)
    ours = rouge_score_bootstrap(values)  # numpy_seed=None: the global RNG as it stands
    assert np.array_equal(np.random.get_state()[1], state_after)  # the same draws consumed
    for t, name in enumerate(types):
        for b, bound in enumerate(("low", "mid", "high")):
            assert tuple(ours[b, 3 * t : 3 * t + 3]) == tuple(getattr(expected[name], bound)), (name, bound)
    seeded = compute_rouge(hyps, refs, rouge_types=types, use_stemmer=True, aggregator="bootstrap", numpy_seed=99)
    for name in types:
        assert seeded[name] == expected[name].mid.fmeasure
        assert seeded[f"{name}_precision"] == expected[name].mid.precision
        assert seeded[f"{name}_recall"] == expected[name].mid.recall


def test_numpy_seed_restores_the_global_rng():
    np.random.seed(5)
    before = np.random.get_state()[1].copy()
    with numpy_global_seed(123):
        first = np.random.random()
    assert np.array_equal(np.random.get_state()[1], before)
    with numpy_global_seed(123):
        assert np.random.random() == first
    result = compute_rouge(["a b c", "a c"], ["a b", "c"], aggregator="bootstrap", numpy_seed=1)
    assert np.array_equal(np.random.get_state()[1], before)
    assert result == compute_rouge(["a b c", "a c"], ["a b", "c"], aggregator="bootstrap", numpy_seed=1)


def test_mean_and_bootstrap_aggregators(deen):
    import evaluate

    hyps, refs = deen["systems"]["online-A.0"], deen["refs"]
    module = evaluate.load("./metrics/rouge", seed=11)
    default = module.compute(predictions=hyps, references=refs, return_details=True)
    mean = module.compute(predictions=hyps, references=refs, aggregator="mean", return_details=True)
    assert mean == compute_rouge(hyps, refs)  # the core's default is the exact mean
    assert default == compute_rouge(hyps, refs, aggregator="bootstrap", numpy_seed=11)
    for key in HF_TYPES:
        assert default[key] != mean[key] and abs(default[key] - mean[key]) < 5e-3
    # n_bootstrap intervals are seeded by `seed` alone, whatever the aggregator and the module's seed
    a = module.compute(predictions=hyps, references=refs, n_bootstrap=200, seed=3)
    b = evaluate.load("./metrics/rouge", seed=12).compute(predictions=hyps, references=refs, n_bootstrap=200, seed=3,
                                                          aggregator="mean")
    assert all(a[k] == b[k] for k in a if k.endswith(("_low", "_mid", "_high")))


def test_split_summaries_is_rouge_scores():
    from nlgmetrics.resources import ensure_punkt

    try:
        ensure_punkt()  # rouge_score calls nltk.sent_tokenize, which reads the same provisioned Punkt tables
    except RuntimeError as exc:
        pytest.skip(str(exc))
    summaries = [
        "The cat sat on the mat. It purred loudly! Then it slept.",
        "Dr. Smith arrived at 5 p.m. yesterday. Nobody expected him.",
        "One line\nsplit here. And a second sentence.",
        "no sentence end at all",
        "",
    ]
    targets = [
        "It purred. The cat was sitting on the mat. Later it slept.",
        "Nobody expected Dr. Smith. He arrived yesterday at 5 p.m.",
        "A second sentence. One line split here.",
        "at all no sentence end",
        "Something.",
    ]
    for use_stemmer in (False, True):
        scorer = rouge_scorer.RougeScorer(["rougeLsum", "rouge1"], use_stemmer=use_stemmer, split_summaries=True)
        ours = rouge_scores(summaries, targets, ["rougeLsum", "rouge1"], use_stemmer=use_stemmer, split_summaries=True)
        for summary, target, row in zip(summaries, targets, ours):
            theirs = scorer.score(target, summary)
            assert row["rougeLsum"] == tuple(theirs["rougeLsum"]) and row["rouge1"] == tuple(theirs["rouge1"])
    split = compute_rouge(summaries[:2], targets[:2], rouge_types=["rougeLsum"], split_summaries=True)
    whole = compute_rouge(summaries[:2], targets[:2], rouge_types=["rougeLsum"])
    assert split["rougeLsum"] > whole["rougeLsum"]


def test_concurrent_bootstrap_draws_do_not_interleave(deen):
    """Threads share numpy's global RNG: each call's 1000 draws per type run under one lock, so every thread gets the
    numbers of its own seed (without the lock, this fails: the draws interleave)."""
    import threading

    refs, systems = deen["refs"], list(deen["systems"].values())[:6]
    want = [compute_rouge(h, refs, aggregator="bootstrap", numpy_seed=i) for i, h in enumerate(systems)]
    got: list = [None] * len(systems)

    def run(i: int) -> None:
        got[i] = compute_rouge(systems[i], refs, aggregator="bootstrap", numpy_seed=i)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(systems))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert got == want
