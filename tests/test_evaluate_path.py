"""How our evaluate modules run ``compute``: directly on the checked inputs when nothing was added (no Arrow cache
file), through evaluate's Arrow round trip otherwise, with evaluate's numpy seeding either way, and from several
threads on one module object."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import evaluate
import numpy as np
import pytest

from nlgmetrics.integration import evaluate_support

THREADS, CALLS = 4, 3


def _info() -> evaluate.MetricInfo:
    return evaluate.MetricInfo(description="test", citation="", inputs_description="",
                               features=evaluate_support.text_pair_features())


def _draws(predictions, draws):
    """What a bootstrap aggregate does: draws from numpy's global RNG, with a chance of a thread switch between."""
    values = []
    for _ in range(draws):
        values.append(float(np.random.random()))
        time.sleep(0)
    return {"draws": values, "n": len(predictions)}


class Draws(evaluate_support.NLGMetric):
    def _info(self):
        return _info()

    def _compute(self, predictions, references, draws=5):
        return _draws(predictions, draws)


class EvaluateDraws(evaluate.Metric):
    """The same metric on evaluate's own ``compute`` (Arrow round trip, ``temp_seed``)."""

    def _info(self):
        return _info()

    def _compute(self, predictions, references, draws=5):
        return _draws(predictions, draws)


def _same_state(a, b) -> bool:
    return a[0] == b[0] and np.array_equal(a[1], b[1]) and a[2:] == b[2:]


@pytest.fixture()
def wmt(wmt17_ende):
    return wmt17_ende["reference"], list(wmt17_ende["systems"].values())


def test_direct_compute_seeds_numpy_as_evaluate_does(tmp_path):
    np.random.seed(7)
    theirs = EvaluateDraws(cache_dir=str(tmp_path / "a"), seed=123)
    ours = Draws(cache_dir=str(tmp_path / "b"), seed=123)
    before = np.random.get_state()
    want = theirs.compute(predictions=["a", "b"], references=["a", "b"])
    assert _same_state(np.random.get_state(), before)  # evaluate restores the global state after _compute
    got = ours.compute(predictions=["a", "b"], references=[["a"], ["b", "c"]])
    assert got == want and got["n"] == 2
    assert _same_state(np.random.get_state(), before)
    assert len(set(got["draws"])) == 5
    # seed=None: evaluate takes the seed from the global state when the module is made; both paths use that seed
    np.random.seed(11)
    unseeded = Draws(cache_dir=str(tmp_path / "c"))
    np.random.seed(11)
    unseeded_evaluate = EvaluateDraws(cache_dir=str(tmp_path / "d"))
    assert unseeded.seed == unseeded_evaluate.seed
    direct = unseeded.compute(predictions=["a"], references=["a"], draws=3)
    unseeded.add_batch(predictions=["a"], references=["a"])
    through_arrow = unseeded.compute(draws=3)
    assert direct == through_arrow == unseeded_evaluate.compute(predictions=["a"], references=["a"], draws=3)
    np.random.seed(12)
    assert Draws(cache_dir=str(tmp_path / "e")).compute(predictions=["a"], references=["a"], draws=3) != direct


def test_direct_compute_writes_no_cache_file_and_equals_the_arrow_path(wmt, monkeypatch):
    reference, systems = wmt
    module = evaluate.load("./metrics/bleu")
    arrow = []
    for hyps in systems:
        module.add_batch(predictions=hyps[:200], references=reference[:200])
        arrow.append(module.compute(return_details=True))

    def no_writer(*args, **kwargs):
        raise AssertionError("the direct path must not open an Arrow cache file")

    monkeypatch.setattr(type(module), "_init_writer", no_writer)
    direct = [module.compute(predictions=hyps[:200], references=reference[:200], return_details=True)
              for hyps in systems]
    assert direct == arrow
    assert len({round(r["score"], 6) for r in direct}) == len(systems)


def test_compute_with_inputs_after_add_batch_keeps_evaluates_semantics(wmt):
    reference, (hyps, *_) = wmt
    module = evaluate.load("./metrics/bleu")
    whole = module.compute(predictions=hyps[:100], references=reference[:100])
    module.add_batch(predictions=hyps[:60], references=reference[:60])
    # evaluate adds the given inputs to what was added, then computes over all of it
    assert module.compute(predictions=hyps[60:100], references=reference[60:100]) == whole
    assert module.compute(predictions=hyps[:100], references=reference[:100]) == whole  # nothing left over


def _inputs(reference, systems, thread, call):
    start = 20 * thread
    stop = start + 40 + 10 * call
    return systems[(thread + call) % len(systems)][start:stop], reference[start:stop]


@pytest.mark.parametrize("name", ["bleu", "meteor"])
def test_one_module_object_from_four_threads_gives_the_serial_results(name, wmt):
    reference, systems = wmt
    module = evaluate.load(f"./metrics/{name}")
    jobs = [(t, c) for t in range(THREADS) for c in range(CALLS)]
    serial = {job: module.compute(predictions=p, references=r) for job in jobs for p, r in [_inputs(reference,
                                                                                                       systems, *job)]}
    assert len({str(v) for v in serial.values()}) == len(jobs)  # every call has its own numbers
    barrier = threading.Barrier(THREADS)

    def worker(thread):
        barrier.wait()
        return {(thread, c): module.compute(predictions=p, references=r)
                for c in range(CALLS) for p, r in [_inputs(reference, systems, thread, c)]}

    with ThreadPoolExecutor(THREADS) as pool:
        concurrent = {k: v for part in pool.map(worker, range(THREADS)) for k, v in part.items()}
    assert concurrent == serial


def test_seeded_computes_from_four_threads_draw_as_in_serial(tmp_path):
    module = Draws(cache_dir=str(tmp_path), seed=2024)
    serial = {(t, c): module.compute(predictions=["x"] * (t + 1), references=["y"] * (t + 1), draws=20 + c)
              for t in range(THREADS) for c in range(CALLS)}
    barrier = threading.Barrier(THREADS)

    def worker(thread):
        barrier.wait()
        return {(thread, c): module.compute(predictions=["x"] * (thread + 1), references=["y"] * (thread + 1),
                                            draws=20 + c) for c in range(CALLS)}

    with ThreadPoolExecutor(THREADS) as pool:
        concurrent = {k: v for part in pool.map(worker, range(THREADS)) for k, v in part.items()}
    assert concurrent == serial


def test_add_batch_from_four_threads_then_compute(wmt):
    """add/add_batch on one object from several threads: every example lands once in the one shared stream."""
    reference, (hyps, *_) = wmt
    module = evaluate.load("./metrics/bleu")
    want = module.compute(predictions=hyps[:400], references=reference[:400], return_details=True)
    barrier = threading.Barrier(THREADS)

    def worker(thread):
        barrier.wait()
        for start in range(100 * thread, 100 * thread + 100, 20):
            module.add_batch(predictions=hyps[start:start + 10], references=reference[start:start + 10])
            for i in range(start + 10, start + 20):
                module.add(prediction=hyps[i], reference=reference[i])

    with ThreadPoolExecutor(THREADS) as pool:
        list(pool.map(worker, range(THREADS)))
    got = module.compute(return_details=True)
    # corpus BLEU adds up per-segment statistics, so the order the threads added in does not matter
    assert got["counts"] == want["counts"] and got["sys_len"] == want["sys_len"]
    assert got["score"] == pytest.approx(want["score"], abs=1e-12)


def test_module_object_still_pickles(tmp_path):
    import pickle

    module = Draws(cache_dir=str(tmp_path), seed=5)
    copy = pickle.loads(pickle.dumps(module))
    assert copy.compute(predictions=["a"], references=["a"]) == module.compute(predictions=["a"], references=["a"])


def test_add_batch_stores_lone_surrogates_as_replacement_characters():
    import warnings

    import evaluate

    module = evaluate.load("./metrics/sacrebleu")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        module.add_batch(predictions=["\ud800 the cat sat"], references=[["the cat sat"]])
        module.add(prediction="a dog ran", reference="a dog ran")
    assert any("lone surrogates" in str(w.message) for w in caught)
    expected = evaluate.load("./metrics/sacrebleu").compute(predictions=["\ufffd the cat sat", "a dog ran"],
                                                           references=[["the cat sat"], ["a dog ran"]])
    assert module.compute()["score"] == expected["score"] > 0
