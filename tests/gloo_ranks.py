"""Run a test's worker on several CPU ranks of a gloo process group (torch.multiprocessing spawn) and collect what
each rank's worker returns. Used by the torch.distributed tests (tests/test_distributed_torch.py, tests/test_comet.py).
"""

from __future__ import annotations

import os
import pickle
import socket
import tempfile
from collections.abc import Callable
from typing import Any


#: imported once by the forkserver (a module that fails to import is skipped there and imported by the child)
PRELOAD = ["torch", "torch.distributed", "torch.multiprocessing.spawn", "transformers", "evaluate", "nlgmetrics.embed",
           "nlgmetrics.semantic.bertscore", "nlgmetrics.semantic.moverscore", "nlgmetrics.learned.comet"]


def forkserver_context():
    """multiprocessing's forkserver context, its server preloading :data:`PRELOAD`: each child is a fork of that
    single-threaded server (fork-safe, unlike a fork of a test process whose torch threads ran), so the heavy imports
    are paid once per test process instead of once per spawned child (~15 CPU s each here). One server per test
    process serves every file that uses this (a test process runs one server: set here, before it starts)."""
    import multiprocessing

    multiprocessing.set_forkserver_preload(PRELOAD)
    return multiprocessing.get_context("forkserver")


def run_ranks(worker: Callable[..., Any], world: int, *args: Any) -> list[Any]:
    """``worker(rank, *args)`` on ``world`` gloo ranks (one torch thread each), its results in rank order. The
    worker runs between ``init_process_group`` and ``destroy_process_group``; it must be a module-level function
    and return something picklable."""
    import torch.multiprocessing as tmp

    forkserver_context()  # ranks fork from the forkserver instead of spawning (see there)
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with tempfile.TemporaryDirectory(prefix="gloo-ranks-") as folder:
        tmp.start_processes(_rank, args=(world, port, folder, worker, args), nprocs=world, join=True,
                            start_method="forkserver")
        results = []
        for rank in range(world):
            with open(os.path.join(folder, f"rank{rank}.pkl"), "rb") as handle:
                results.append(pickle.load(handle))
    return results


def _rank(rank: int, world: int, port: int, folder: str, worker: Callable[..., Any], args: tuple) -> None:
    import torch
    import torch.distributed as dist

    torch.set_num_threads(1)
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    dist.init_process_group("gloo", rank=rank, world_size=world)
    try:
        result = worker(rank, *args)
    finally:
        dist.destroy_process_group()
    with open(os.path.join(folder, f"rank{rank}.pkl"), "wb") as handle:
        pickle.dump(result, handle)
