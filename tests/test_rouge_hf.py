"""ROUGE as a drop-in for HF evaluate's `rouge`: with HF's arguments, HF's exact numbers.

The oracle is HF's own module script (tests/data/hf_evaluate/rouge/rouge.py, verbatim), loaded with evaluate.load
offline: rouge_score's per-example scores and its BootstrapAggregator mid, drawn from numpy's global RNG that evaluate
seeds with the module's `seed`. Ours must give the same floats, bit for bit, for the same seed.
"""

from __future__ import annotations

import html

import numpy as np
import pytest
from conftest import DATA
from rouge_score import rouge_scorer, scoring

from nlgmetrics.lexical.rouge import (
    compute_rouge,
    numpy_global_seed,
    rouge_score_bootstrap,
    rouge_scores,
)

pytestmark = pytest.mark.filterwarnings(r"ignore:ROUGE. \d+ of \d+ texts:UserWarning")

HF_ROUGE = str(DATA / "hf_evaluate" / "rouge")
HF_TYPES = ["rouge1", "rouge2", "rougeL", "rougeLsum"]


@pytest.fixture(scope="module")
def deen(wmt17_deen) -> dict:
    refs = [html.unescape(r) for r in wmt17_deen["references"]]
    systems = {name: [html.unescape(h) for h in hyps] for name, hyps in wmt17_deen["systems"].items()}
    return {"refs": refs, "systems": systems}


def _load_pair(seed=None):
    import evaluate

    return evaluate.load(HF_ROUGE, seed=seed), evaluate.load("./metrics/rouge", seed=seed)


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
    hf, ours = _load_pair(seed)
    hyps, refs = deen["systems"]["online-F.0"], deen["refs"]  # 35 of its outputs have non-ASCII letters
    options = CASES[case]
    _hf_keys_equal(hf.compute(predictions=hyps, references=refs, **options),
                   ours.compute(predictions=hyps, references=refs, **options))


def test_module_gives_hf_numbers_on_german_and_several_references(wmt17_ende):
    hf, ours = _load_pair(7)
    refs = wmt17_ende["reference"][:120]
    hyps = wmt17_ende["systems"]["uedin-nmt.4722"][:120]
    several = [[r, c] for r, c in zip(refs, wmt17_ende["systems"]["C-3MA.4959"][:120])]
    for references in (refs, several):
        for options in ({}, {"use_stemmer": True}):
            _hf_keys_equal(hf.compute(predictions=hyps, references=references, **options),
                           ours.compute(predictions=hyps, references=references, **options))


def test_globally_seeded_numpy_gives_hf_numbers_without_a_seed(deen):
    """transformers' set_seed(s) seeds numpy; evaluate then takes each module's seed from numpy's global state, so
    both modules loaded afterwards draw the same resamples."""
    hyps, refs = deen["systems"]["KIT.4951"], deen["refs"]
    np.random.seed(1234)
    hf, ours = _load_pair()
    assert hf.seed == ours.seed == 1234
    _hf_keys_equal(hf.compute(predictions=hyps, references=refs), ours.compute(predictions=hyps, references=refs))


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
