"""evaluate's own distributed mode (num_process, process_id) gives the one-process result."""

from __future__ import annotations

import multiprocessing as mp
import uuid

import pytest

from nlgmetrics.registry import available_metrics

CASES = {"bleu": {}, "nist": {}, "rouge": {"use_stemmer": True}, "meteor": {}}


def _worker(name, process_id, num_process, experiment_id, predictions, references, options, queue):
    import evaluate

    module = evaluate.load(f"./metrics/{name}", num_process=num_process, process_id=process_id,
                           experiment_id=experiment_id)
    module.add_batch(predictions=predictions, references=references)
    queue.put((process_id, module.compute(**options)))


@pytest.mark.parametrize("name", [name for name in CASES if name in available_metrics()])
def test_two_processes_equal_one(name, wmt17_ende):
    import evaluate

    refs = wmt17_ende["reference"][:60]
    hyps = wmt17_ende["systems"]["online-F.0"][:60]
    options = CASES[name]
    single = evaluate.load(f"./metrics/{name}").compute(predictions=hyps, references=refs, **options)

    ctx = mp.get_context("fork")
    queue = ctx.Queue()
    experiment_id = uuid.uuid4().hex
    halves = [(hyps[:30], refs[:30]), (hyps[30:], refs[30:])]
    procs = [
        ctx.Process(target=_worker, args=(name, i, 2, experiment_id, p, r, options, queue))
        for i, (p, r) in enumerate(halves)
    ]
    for proc in procs:
        proc.start()
    results = dict(queue.get(timeout=120) for _ in procs)
    for proc in procs:
        proc.join(timeout=60)
        assert proc.exitcode == 0
    assert results[1] is None  # only process 0 computes
    assert results[0] == single
