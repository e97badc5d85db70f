"""evaluate's own distributed mode (num_process, process_id) gives the one-process result.

Two processes each add half of the pairs; process 0 gathers both halves and computes, process 1 returns None. The
lexical metrics run in forked processes. The modules that load torch run in forks of a forkserver (a fork of the test
process after torch has started its threads can hang; the server is single-threaded and preloads torch and evaluate
once, tests/gloo_ranks.py), kept in one two-worker pool for the whole file so that each worker starts once.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import sys
import uuid
from pathlib import Path

import pytest
from gloo_ranks import forkserver_context

from nlgmetrics.registry import EMBEDDING, LEXICAL, SPECS, self_contained_metrics
from nlgmetrics.resources import BUNDLED_ENCODER_ID, bundled_encoder_path

REPO = Path(__file__).resolve().parent.parent
TIMEOUT = 180
TOL = 1e-6  # float32 encoder sums differ in the last bits between processes with different thread counts

# lexical modules fork; modules that load torch use a spawned pool (fork after torch threads can hang)
FORK_CASES = {name: {"use_stemmer": True} if name == "rouge" else {} for name in self_contained_metrics(LEXICAL)}
SPAWN_CASES = {
    **{name: {**SPECS[name].demo_options, "batch_size": 8} for name in self_contained_metrics(EMBEDDING)},
    "nlg_suite": {
        "metrics": ["bleu", "rouge", "bertscore"],
        "metric_options": {"bleu": {"tokenizer": "intl", "sentence_scores": True}, "rouge": {"use_stemmer": True}},
        "model_type": BUNDLED_ENCODER_ID,
        "batch_size": 8,
        "flat": False,
    },
}


def _compute_share(name, process_id, num_process, experiment_id, predictions, references, options):
    """One process's part: add its pairs to the shared experiment, then compute (None on every process but 0)."""
    import evaluate

    module = evaluate.load(str(REPO / "metrics" / name), num_process=num_process, process_id=process_id,
                           experiment_id=experiment_id)
    module.add_batch(predictions=predictions, references=references)
    return module.compute(**options)


def _fork_worker(queue, name, process_id, num_process, experiment_id, predictions, references, options):
    result = _compute_share(name, process_id, num_process, experiment_id, predictions, references, options)
    queue.put((process_id, result))


def _one_torch_thread() -> None:
    """One intra-op thread in each pool worker (2 shared cores): torch is already imported there when the
    forkserver preloaded it."""
    os.environ["OMP_NUM_THREADS"] = "1"
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(1)


def _assert_same(got, want, where: str = "result") -> None:
    """``got == want``, floats within TOL, at every depth of nested dicts and lists."""
    if isinstance(want, dict):
        assert isinstance(got, dict) and got.keys() == want.keys(), where
        for key in want:
            _assert_same(got[key], want[key], f"{where}[{key!r}]")
    elif isinstance(want, (list, tuple)):
        assert isinstance(got, (list, tuple)) and len(got) == len(want), where
        for i, (g, w) in enumerate(zip(got, want)):
            _assert_same(g, w, f"{where}[{i}]")
    elif isinstance(want, float):
        assert got == pytest.approx(want, rel=0, abs=TOL), where
    else:
        assert got == want, where


def _halves(predictions, references):
    middle = len(predictions) // 2
    return [(predictions[:middle], references[:middle]), (predictions[middle:], references[middle:])]


@pytest.fixture(scope="module")
def spawn_pool():
    with forkserver_context().Pool(2, initializer=_one_torch_thread) as pool:
        yield pool


@pytest.mark.parametrize("name", [name for name in FORK_CASES if name in self_contained_metrics()])
def test_two_forked_processes_equal_one(name, wmt17_ende):
    import evaluate

    refs = wmt17_ende["reference"][:60]
    hyps = wmt17_ende["systems"]["online-F.0"][:60]
    options = FORK_CASES[name]
    single = evaluate.load(f"./metrics/{name}").compute(predictions=hyps, references=refs, **options)

    ctx = mp.get_context("fork")
    queue = ctx.Queue()
    experiment_id = uuid.uuid4().hex
    procs = [
        ctx.Process(target=_fork_worker, args=(queue, name, i, 2, experiment_id, p, r, options))
        for i, (p, r) in enumerate(_halves(hyps, refs))
    ]
    for proc in procs:
        proc.start()
    results = dict(queue.get(timeout=TIMEOUT) for _ in procs)
    for proc in procs:
        proc.join(timeout=60)
        assert proc.exitcode == 0
    assert results[1] is None  # only process 0 computes
    assert results[0] == single


@pytest.mark.skipif(bundled_encoder_path() is None, reason="bundled MiniLM encoder not installed")
@pytest.mark.parametrize("name", list(SPAWN_CASES))
def test_two_spawned_processes_equal_one(name, wmt17_deen, spawn_pool):
    import evaluate

    # 16 pairs; varying reference counts (every third pair has a second one) cross the process boundary too
    hyps = wmt17_deen["systems"]["online-F.0"][:16]
    refs = [[ref, alt] if i % 3 == 0 else [ref] for i, (ref, alt) in
            enumerate(zip(wmt17_deen["references"][:16], wmt17_deen["systems"]["online-B.0"][:16]))]
    options = SPAWN_CASES[name]
    single = evaluate.load(f"./metrics/{name}").compute(predictions=hyps, references=refs, **options)

    experiment_id = uuid.uuid4().hex
    # both shares must run at once (evaluate's rendezvous): the pool has exactly two workers, both idle here
    pending = [
        spawn_pool.apply_async(_compute_share, (name, i, 2, experiment_id, p, r, options))
        for i, (p, r) in enumerate(_halves(hyps, refs))
    ]
    results = [job.get(timeout=TIMEOUT) for job in pending]
    assert results[1] is None  # only process 0 computes
    _assert_same(results[0], single)
    assert len(single) > 1
