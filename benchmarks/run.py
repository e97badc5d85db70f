"""``make bench``: every metric's side-by-side benchmark; writes results/bench.json and results/bench.md.

Each metric's benchmark runs in its own interpreter, so its peak RSS (ours and the anchor together, model loads
included) is its own.

    python -m benchmarks.run [--data ../shared/data] [--quick] [--only bleu,rouge]
"""

from __future__ import annotations

import argparse
import difflib
import json
import subprocess
import tempfile
import platform
import sys
import time
from pathlib import Path

from benchmarks.common import DEFAULT_DATA

BENCHMARKS = ["bleu", "evaluate", "nist", "chrf", "ter", "rouge", "rouge155", "meteor", "bertscore", "moverscore",
              "compare", "comet", "bleurt", "llm_judge", "mbr"]
RESULTS = Path(__file__).resolve().parent / "results"


def _fmt(value) -> str:
    if isinstance(value, float):
        return f"{value:.3g}" if abs(value) < 1e-2 and value != 0 else f"{value:.2f}"
    return str(value)


def benchmark_names(text: str) -> list[str]:
    """``--only``'s comma-separated names, each a known benchmark (an ``ArgumentTypeError`` naming the closest)."""
    names = [name.strip() for name in text.split(",") if name.strip()]
    for name in names:
        if name not in BENCHMARKS:
            close = difflib.get_close_matches(name, BENCHMARKS, n=1)
            hint = f" Did you mean {close[0]!r}?" if close else ""
            raise argparse.ArgumentTypeError(f"unknown benchmark {name!r}.{hint} Choose from {', '.join(BENCHMARKS)}.")
    if not names:
        raise argparse.ArgumentTypeError(f"name at least one benchmark: {', '.join(BENCHMARKS)}.")
    return names


def markdown(results: list[dict], quick: bool) -> str:
    """The results table; each metric's rows carry the date they were measured (``--only`` keeps older rows)."""
    lines = [
        f"On {platform.machine()}, Python {platform.python_version()}{' (--quick)' if quick else ''}. Seconds are "
        "best-of-N wall clock, ours and the anchor in one process; each row's date is when it was measured.",
        "",
        "| metric | case | ours (s) | anchor | anchor (s) | speed-up | max abs diff | peak RSS (MiB) | measured |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    notes = []
    for result in results:
        if "error" in result:
            lines.append(f"| {result['metric']} | failed: {result['error']} | | | | | | | {result.get('measured', '')} |")
            continue
        for row in result["rows"]:
            speedup = row.get("speedup", "")
            shown = _fmt(speedup) + "x" if isinstance(speedup, float) else ""
            if isinstance(row.get("speedup_cpu"), float):
                shown += f" (CPU time: {row['speedup_cpu']:.2f}x)"
            lines.append(
                f"| {result['metric']} | {row['case']} | {_fmt(row.get('ours_s', ''))} | {row.get('anchor', '')} "
                f"| {_fmt(row.get('anchor_s', ''))} | {shown} "
                f"| {_fmt(row.get('max_abs_diff', ''))} | {row.get('peak_rss_mb', result.get('peak_rss_mb', 0)):.0f} "
                f"| {result.get('measured', 'not recorded')} |"
            )
        notes += [f"- {result['metric']}: {note}" for note in result.get("notes", [])]
    lines += ["", "Peak RSS: the benchmark's own process (ours and the anchor, models included), or the case's "
              "subprocess where a case runs in one.", "", *notes]
    return "\n".join(lines) + "\n"


def run_isolated(name: str, data: Path, quick: bool) -> dict:
    """``benchmarks.bench_<name>.run(data, quick)`` in a fresh interpreter; a failure becomes ``{"error": ...}``."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "result.json"
        code = (f"import json; from pathlib import Path; from benchmarks.bench_{name} import run; "
                f"Path({str(out)!r}).write_text(json.dumps(run(Path({str(data)!r}), {quick!r})))")
        proc = subprocess.run([sys.executable, "-c", code], cwd=Path(__file__).resolve().parent.parent)
        measured = time.strftime("%Y-%m-%d")
        if proc.returncode or not out.is_file():  # a failing benchmark is reported, the others still run
            return {"metric": name, "error": f"exit status {proc.returncode} (traceback above)", "measured": measured}
        return {**json.loads(out.read_text()), "measured": measured}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--only", type=benchmark_names, default=BENCHMARKS, metavar="NAME[,NAME...]",
                        help=f"run only these: {', '.join(BENCHMARKS)}")
    args = parser.parse_args(argv)
    if not (args.data / "wmt17-en-de").is_dir():
        sys.exit(f"benchmark data not found under {args.data}: pass --data PATH (the folder holding wmt17-en-de/)")
    results = []
    for name in args.only:
        print(f"== {name}", flush=True)
        result = run_isolated(name, args.data, args.quick)
        results.append(result)
        print(json.dumps(result, indent=1), flush=True)
    RESULTS.mkdir(exist_ok=True)
    suffix = "-quick" if args.quick else ""
    earlier = RESULTS / f"bench{suffix}.json"
    if earlier.is_file():  # --only: the other metrics' last results are kept
        ran = {r["metric"] for r in results}
        kept = [r for r in json.loads(earlier.read_text()) if r["metric"] not in ran]
        results = sorted(kept + results, key=lambda r: BENCHMARKS.index(r["metric"]))
    (RESULTS / f"bench{suffix}.json").write_text(json.dumps(results, indent=1))
    (RESULTS / f"bench{suffix}.md").write_text(markdown(results, args.quick))
    print((RESULTS / f"bench{suffix}.md").read_text())
    return 1 if any("error" in r for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
