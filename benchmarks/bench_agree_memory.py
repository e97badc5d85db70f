"""Peak memory (and CPU time) of ``nlgmetrics agree`` at scale, each run in a fresh process.

Cases (seeded synthetic CSV: one system, ``item``, ``human`` and two metric columns ``m1``, ``m2``):

- ``default``: 10^6 segments, default settings (Pearson, 1,000 bootstrap resamples, 1,000 permutation draws);
- ``max-resamples``: 20,000 segments, ``--n-resamples 100000`` (the documented maximum).

Peak RSS is the child's ``ru_maxrss`` (``os.wait4``); CPU seconds are its user + system time. ``--code DIR`` runs
another checkout's ``nlgmetrics`` (e.g. an older commit unpacked with ``git archive``) for a side-by-side figure.

    python -m benchmarks.bench_agree_memory [--scale 1.0] [--code DIR] [--out benchmarks/results/agree-memory.json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
CASES = {"default": (1_000_000, []), "max-resamples": (20_000, ["--n-resamples", "100000"])}


def write_table(path: Path, n: int, seed: int = 12345) -> None:
    rng = np.random.default_rng(seed)
    human = rng.normal(size=n)
    m1, m2 = human + 0.8 * rng.normal(size=n), human + 0.9 * rng.normal(size=n)
    with open(path, "w") as handle:
        handle.write("system,item,human,m1,m2\n")
        for start in range(0, n, 100_000):
            stop = min(n, start + 100_000)
            handle.writelines(f"s,{i},{human[i]:.6f},{m1[i]:.6f},{m2[i]:.6f}\n" for i in range(start, stop))


def run(code: Path, table: Path, extra: list[str]) -> dict:
    """One ``nlgmetrics agree`` in a fresh process: exit status, peak RSS (MiB), CPU seconds, its stderr tail."""
    command = [sys.executable, "-c", "import sys; from nlgmetrics.cli import main; sys.exit(main(sys.argv[1:]))",
               "agree", str(table), "--columns", "m1", "m2", "-f", "json", *extra]
    env = {**os.environ, "PYTHONPATH": str(code), "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        child = subprocess.Popen(command, stdout=out, stderr=err, env=env, cwd=code)
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        tail = err.read().decode(errors="replace")[-300:]
    return {"exit": child.returncode, "peak_rss_mib": round(usage.ru_maxrss / 1024), "cpu_s":
            round(usage.ru_utime + usage.ru_stime, 1), "stderr_tail": tail.strip()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=float, default=1.0, help="segments x this (quick runs, older code)")
    parser.add_argument("--code", type=Path, default=ROOT, help="the checkout whose nlgmetrics runs")
    parser.add_argument("--cases", nargs="+", default=list(CASES), choices=list(CASES))
    parser.add_argument("--out", type=Path, default=None, help="write the figures as JSON here")
    args = parser.parse_args()
    results = {}
    with tempfile.TemporaryDirectory() as folder:
        for name in args.cases:
            n, extra = CASES[name]
            n = max(10, int(n * args.scale))
            table = Path(folder) / f"{name}.csv"
            write_table(table, n)
            results[name] = {"segments": n, "options": " ".join(extra) or "(defaults)", **run(args.code, table, extra)}
            print(name, json.dumps(results[name]), flush=True)
    report = {"command": "python -m benchmarks.bench_agree_memory " + " ".join(sys.argv[1:]), "code": str(args.code),
              "cases": results}
    if args.out:
        args.out.write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
