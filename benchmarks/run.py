"""``make bench``: every metric's side-by-side benchmark; writes results/bench.json and results/bench.md.

    python -m benchmarks.run [--data ../shared/data] [--quick] [--only bleu,rouge]
"""

from __future__ import annotations

import argparse
import importlib
import json
import platform
import sys
import time
import traceback
from pathlib import Path

from benchmarks.common import DEFAULT_DATA

BENCHMARKS = ["bleu", "nist", "rouge", "meteor", "bertscore", "moverscore"]
RESULTS = Path(__file__).resolve().parent / "results"


def _fmt(value) -> str:
    if isinstance(value, float):
        return f"{value:.3g}" if abs(value) < 1e-2 and value != 0 else f"{value:.2f}"
    return str(value)


def markdown(results: list[dict], quick: bool) -> str:
    lines = [
        f"Measured {time.strftime('%Y-%m-%d')} on {platform.machine()}, Python {platform.python_version()}"
        f"{' (--quick)' if quick else ''}. Seconds are best-of-N wall clock, ours and the anchor in one process.",
        "",
        "| metric | case | ours (s) | anchor | anchor (s) | speed-up | max abs diff |",
        "|---|---|---|---|---|---|---|",
    ]
    for result in results:
        if "error" in result:
            lines.append(f"| {result['metric']} | failed: {result['error']} | | | | | |")
            continue
        for row in result["rows"]:
            lines.append(
                f"| {result['metric']} | {row['case']} | {_fmt(row.get('ours_s', ''))} | {row.get('anchor', '')} "
                f"| {_fmt(row.get('anchor_s', ''))} | {_fmt(row.get('speedup', ''))}x "
                f"| {_fmt(row.get('max_abs_diff', ''))} |"
            )
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--only", default=",".join(BENCHMARKS))
    args = parser.parse_args()
    if not (args.data / "wmt17-en-de").is_dir():
        sys.exit(f"benchmark data not found under {args.data}: pass --data PATH (the folder holding wmt17-en-de/)")
    results = []
    for name in args.only.split(","):
        try:
            module = importlib.import_module(f"benchmarks.bench_{name}")
        except ModuleNotFoundError:
            continue
        print(f"== {name}", flush=True)
        try:
            result = module.run(args.data, args.quick)
        except Exception as exc:  # a failing benchmark is reported, the others still run
            traceback.print_exc()
            result = {"metric": name, "error": f"{type(exc).__name__}: {exc}"}
        results.append(result)
        print(json.dumps(result, indent=1), flush=True)
    RESULTS.mkdir(exist_ok=True)
    suffix = "-quick" if args.quick else ""
    (RESULTS / f"bench{suffix}.json").write_text(json.dumps(results, indent=1))
    (RESULTS / f"bench{suffix}.md").write_text(markdown(results, args.quick))
    print((RESULTS / f"bench{suffix}.md").read_text())
    return 1 if any("error" in r for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
