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


def run_ranks(worker: Callable[..., Any], world: int, *args: Any) -> list[Any]:
    """``worker(rank, *args)`` on ``world`` gloo ranks (one torch thread each), its results in rank order. The
    worker runs between ``init_process_group`` and ``destroy_process_group``; it must be a module-level function
    and return something picklable."""
    import torch.multiprocessing as tmp

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with tempfile.TemporaryDirectory(prefix="gloo-ranks-") as folder:
        tmp.spawn(_rank, args=(world, port, folder, worker, args), nprocs=world, join=True)
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
