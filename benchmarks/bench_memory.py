"""Peak memory of the embedding metrics on long streams: BERTScore and MoverScore over 10k and 100k random pairs.

Each case runs in a fresh interpreter: it loads the bundled MiniLM, sets the embedding cache budget (256 MiB), draws
``n`` random (prediction, reference) pairs from all WMT17 DA text (every reference and system line of the five
to-English pairs), and scores them in **one call** (the scorers embed and score ``PAIR_CHUNK`` pairs at a time). It
reports the process's peak RSS, its RSS after the model load (the fixed part), the cache's bytes at the end (must stay
under the budget), the number of distinct texts and the wall time.

    python -m benchmarks.bench_memory [--data ../shared/data] [--sizes 10000,100000] [--metrics bertscore,moverscore]

Writes ``benchmarks/results/memory.json`` (merged with earlier runs of other sizes) and ``memory.md``. Slow on a 2-core CPU (every distinct text is encoded):
about 10-15 minutes for the 100k cases.
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.common import DEFAULT_DATA

RESULTS = Path(__file__).resolve().parent / "results"
BUDGET_MB = 256

_CHILD = """
import json, os, random, resource, sys, time
import torch
torch.set_num_threads({threads})
sys.path.insert(0, {root!r})
from benchmarks.common import DA_PAIRS, load_wmt17_da
from nlgmetrics.embed import configure_cache, get_cache
from nlgmetrics.resources import BUNDLED_ENCODER_ID

rss = lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
texts = []
for pair in DA_PAIRS:
    ref, systems = load_wmt17_da({data!r}, pair)
    texts += ref + [line for hyps in systems.values() for line in hyps]
rng = random.Random(0)
preds = [rng.choice(texts) for _ in range({n})]
refs = [rng.choice(texts) for _ in range({n})]
cache = configure_cache(budget_mb={budget})
if {metric!r} == "bertscore":
    from nlgmetrics.semantic.bertscore import compute_bertscore as compute
else:
    from nlgmetrics.semantic.moverscore import compute_moverscore as compute
compute(["a warm-up text."], ["a warm-up text."], model_type=BUNDLED_ENCODER_ID, idf=False)  # model loaded
cache.clear()
loaded = rss()
start = time.perf_counter()
out = compute(preds, refs, model_type=BUNDLED_ENCODER_ID)
seconds = time.perf_counter() - start
scores = out["f1"] if "f1" in out else out["scores"]
assert len(scores) == {n} and all(s == s for s in scores)
print(json.dumps({{"metric": {metric!r}, "pairs": {n}, "distinct_texts": len(set(preds + refs)), "seconds": seconds,
                  "rss_after_model_load_mb": loaded, "peak_rss_mb": rss(), "cache_mb": cache.nbytes / 2**20,
                  "budget_mb": {budget}}}))
"""


def measure(metric: str, n: int, data: Path, threads: int = 2) -> dict:
    """One case in a fresh interpreter (peak RSS is per process)."""
    code = _CHILD.format(threads=threads, root=str(Path(__file__).resolve().parent.parent), data=str(data), n=n,
                         budget=BUDGET_MB, metric=metric)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    if proc.returncode:
        raise RuntimeError(f"{metric} {n}: {proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def markdown(rows: list[dict]) -> str:
    lines = [
        f"Measured {time.strftime('%Y-%m-%d')} on {platform.machine()} (CPU, 2 torch threads), bundled MiniLM, "
        f"embedding cache budget {BUDGET_MB} MiB, one call per case, random pairs of WMT17 DA text.",
        "",
        "| metric | pairs | distinct texts | seconds | RSS after model load (MiB) | peak RSS (MiB) | cache at end (MiB) |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(f"| {r['metric']} | {r['pairs']:,} | {r['distinct_texts']:,} | {r['seconds']:.0f} | "
                     f"{r['rss_after_model_load_mb']:.0f} | {r['peak_rss_mb']:.0f} | {r['cache_mb']:.0f} |")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--metrics", default="bertscore,moverscore")
    args = parser.parse_args()
    if not (args.data / "wmt17-da").is_dir():
        sys.exit(f"benchmark data not found under {args.data}: pass --data PATH (the folder holding wmt17-da/)")
    rows = []
    for metric in args.metrics.split(","):
        for n in (int(s) for s in args.sizes.split(",")):
            rows.append(measure(metric, n, args.data))
            print(json.dumps(rows[-1]), flush=True)
            if rows[-1]["cache_mb"] > BUDGET_MB:
                print(f"cache over budget: {rows[-1]}", file=sys.stderr)
                return 1
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / "memory.json"
    earlier = json.loads(path.read_text()) if path.is_file() else []  # runs of other sizes are kept
    done = {(r["metric"], r["pairs"]) for r in rows}
    rows = sorted([r for r in earlier if (r["metric"], r["pairs"]) not in done] + rows,
                  key=lambda r: (r["metric"], r["pairs"]))
    path.write_text(json.dumps(rows, indent=1))
    (RESULTS / "memory.md").write_text(markdown(rows))
    print(markdown(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
