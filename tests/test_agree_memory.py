"""agree's memory stays bounded: resamples and permutation draws are drawn in chunks (the same random streams), so a
run far beyond what the old all-at-once matrices allowed fits under an address-space cap; chunking changes no
number."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from nlgmetrics.agreement import statistics as A

ROOT = Path(__file__).resolve().parent.parent

# The cap is the process's address space after imports plus HEADROOM_MIB. The old code needed, beyond that,
# 30,000 x 4,000 int64 resample indices (915 MiB) and a 1,000 x 150,000 float block of draws (1,144 MiB).
HEADROOM_MIB = 400
CAPPED = textwrap.dedent("""
    import resource, sys
    import numpy as np
    from nlgmetrics.agreement import Judgments, agree
    from nlgmetrics.agreement import statistics as A

    vm = int(next(line for line in open("/proc/self/status") if line.startswith("VmSize")).split()[1]) * 1024
    limit = vm + int(sys.argv[1]) * 2**20
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    rng = np.random.default_rng(0)
    human = rng.normal(size=4000)
    low, high = A.bootstrap_interval(human, human + rng.normal(size=4000), n_resamples=30_000, seed=1)
    print("interval", low, high)
    human = rng.normal(size=(1, 150_000))
    metrics = {"a": human + 0.9 * rng.normal(size=human.shape), "b": human + 1.0 * rng.normal(size=human.shape)}
    result = agree(Judgments(["s"], [str(i) for i in range(human.shape[1])], human, metrics), n_resamples=0, k=1000)
    print("p", result["pvalues"]["segment/pearson"]["matrix"][0][1], [row["rank"] for row in result["rows"]])
""")


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads VmSize from /proc")
def test_agree_beyond_the_old_matrices_runs_under_a_memory_cap():
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
           "MKL_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, "-c", CAPPED, str(HEADROOM_MIB)], capture_output=True, text=True, env=env,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = dict(line.split(" ", 1) for line in done.stdout.splitlines())
    low, high = map(float, lines["interval"].split())
    r = 1 / np.sqrt(2)  # human vs human + N(0, 1): Pearson 0.707, interval about +-0.016 on 4,000 items
    assert low < r < high and 0.02 < high - low < 0.05
    p, ranks = lines["p"].split(" ", 1)
    assert float(p) == 0.0 and ranks == "[1, 2]"  # a (noise 0.9) agrees significantly better than b (noise 1.0)


def test_chunk_sizes_change_no_number(monkeypatch):
    """Tiny chunks (a few rows of draws or resamples at a time) give the numbers of the default chunks."""
    rng = np.random.default_rng(3)
    human = np.round(rng.normal(size=(3, 50)), 1)
    human[rng.random(human.shape) < 0.2] = np.nan
    a, b = human + rng.normal(size=human.shape), human + 1.3 * rng.normal(size=human.shape)
    cases = [("pearson", "none"), ("kendall_b", "item"), ("acc_eq", "sys")]

    def numbers():
        out = []
        for statistic, average in cases:
            out.append(A.permutation_test(human, a, b, statistic, average, k=60, seed=5,
                                          params=A.PermutationParams(block_size=20)))
            out.append(A.bootstrap_interval(human, a, statistic, average, n_resamples=40, seed=5))
        return out

    expected = numbers()
    monkeypatch.setattr(A, "_DRAW_CHUNK", 3 * human.size)  # 3 rows of draws per chunk
    monkeypatch.setattr(A, "_DRAW_CACHE", 0)  # nothing cached: every pair regenerates the stream
    monkeypatch.setattr(A, "_RESAMPLE_CHUNK", 2 * human.shape[1])  # 2 resamples per chunk
    chunked = numbers()
    assert chunked[::2] == expected[::2]  # p-value, difference, draws used: identical
    for got, want in zip(chunked[1::2], expected[1::2]):  # intervals: up to the matrix product's rounding
        assert got == pytest.approx(want, abs=1e-13)
    assert any(0 < p < 1 for p, _, _ in expected[::2])
