"""Long texts: every metric on one pair of 20,000-word real texts, seconds and peak RSS.

The pair: WMT17 de-en (``wmt17-da``, ``html.unescape``d), the reference lines joined with spaces until 20,000 words
(prediction: the same segments from one system, online-B). Each row runs in a fresh interpreter, so its peak RSS is
its own; the interpreter's RSS after imports (and, for the embedding metrics, after loading the bundled MiniLM) is
reported beside it. A row that runs past ``--timeout`` seconds is killed and reported as ``timeout``; a row whose call
is refused up front (MoverScore's exact transport past its size limit) reports the error it raised.

    python -m benchmarks.bench_long [--data ../shared/data] [--words 20000] [--timeout 300] [--rows bleu,rougeW,...]

Rows: bleu; rouge-1/2/L, rougeW, rougeS* (ROUGE types; also with the ROUGE-1.5.5 flavor); ter; meteor; bertscore-window (every token, sliding windows);
moverscore-truncate (v2's default, first 512 tokens), moverscore-window-exact (refused up front: past the exact
solver's size limit), moverscore-window-relaxed (every token, one-sided transport in blocks).

Writes ``benchmarks/results/long.json`` and ``long.md``.
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
ROOT = Path(__file__).resolve().parent.parent
SYSTEM = "online-B.0"

#: row name -> (metric, options, how to read the headline number)
ROWS: dict[str, tuple[str, dict, str]] = {
    "bleu": ("bleu", {}, "score"),
    "rouge-1/2/L": ("rouge", {"rouge_types": ["rouge1", "rouge2", "rougeL"]}, "rougeL"),
    "rougeW": ("rouge", {"rouge_types": ["rougeW"]}, "rougeW"),
    "rougeS*": ("rouge", {"rouge_types": ["rougeS*"]}, "rougeS*"),
    "rougeW-1.5.5": ("rouge", {"rouge_types": ["rougeW"], "flavor": "rouge155"}, "rougeW"),
    "rougeS*-1.5.5": ("rouge", {"rouge_types": ["rougeS*"], "flavor": "rouge155"}, "rougeS*"),
    "ter": ("ter", {}, "score"),
    "meteor": ("meteor", {}, "meteor"),
    "bertscore-window": ("bertscore", {"long_text": "window"}, "f1"),
    # idf=False: idf over a corpus of one pair gives every token zero mass (MoverScore's documented 0.0)
    "moverscore-truncate": ("moverscore", {"idf": False}, "moverscore"),
    "moverscore-window-exact": ("moverscore", {"idf": False, "long_text": "window"}, "moverscore"),
    "moverscore-window-relaxed": ("moverscore", {"idf": False, "long_text": "window", "relaxed": True}, "moverscore"),
}

_CHILD = """
import html, json, resource, sys, time, warnings
sys.path.insert(0, {root!r})
import torch
torch.set_num_threads({threads})
from benchmarks.common import read_lines
from nlgmetrics.registry import get_metric

def text(path, words):
    out, n = [], 0
    for line in read_lines(path):
        if n >= words:
            break
        out.append(html.unescape(line))
        n += len(out[-1].split())
    return " ".join(out)

data = {data!r}
reference = text(data + "/wmt17-da/newstest2017-deen-ref.en", {words})
prediction = text(data + "/wmt17-da/de-en/newstest2017.{system}.de-en", {words})
options = {options!r}
compute = get_metric({metric!r})
if {metric!r} in ("bertscore", "moverscore"):
    from nlgmetrics.resources import BUNDLED_ENCODER_ID
    options["model_type"] = BUNDLED_ENCODER_ID
    compute(["a warm-up text."], ["a warm-up text."], model_type=BUNDLED_ENCODER_ID, idf=False)  # model loaded
rss = lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
loaded = rss()
start = time.perf_counter()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    try:
        out = compute([prediction], [reference], **options)
        error = None
    except ValueError as exc:
        out, error = None, str(exc)
seconds = time.perf_counter() - start
value = None
if out is not None:
    value = out[{key!r}] if {key!r} in out else out.get("mean")
    value = value[0] if isinstance(value, list) else value
print(json.dumps({{"words": [len(prediction.split()), len(reference.split())], "seconds": seconds, "value": value,
                  "rss_before_call_mb": loaded, "peak_rss_mb": rss(), "error": error,
                  "warnings": [str(w.message)[:200] for w in caught]}}))
"""


def measure(row: str, data: Path, words: int, timeout: float, threads: int = 2) -> dict:
    """One row in a fresh interpreter; ``timeout`` seconds at most."""
    metric, options, key = ROWS[row]
    code = _CHILD.format(root=str(ROOT), threads=threads, data=str(data), words=words, system=SYSTEM,
                         options=options, metric=metric, key=key)
    start = time.perf_counter()
    try:
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout,
                              check=False)
    except subprocess.TimeoutExpired:
        return {"row": row, "status": "timeout", "seconds": time.perf_counter() - start}
    if proc.returncode:
        return {"row": row, "status": f"crashed (exit {proc.returncode})", "stderr": proc.stderr[-1500:]}
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    result["status"] = "refused" if result["error"] else "ok"
    return {"row": row, **result}


def markdown(rows: list[dict], words: int) -> str:
    lines = [
        (f"Measured {time.strftime('%Y-%m-%d')} on {platform.machine()} (CPU, 2 torch threads): one pair of "
         f"{words:,}-word texts (WMT17 de-en reference and {SYSTEM}, segments joined), each row in its own process; "
         "bundled MiniLM for the embedding metrics."),
        "",
        "| row | status | seconds | value | RSS before the call (MiB) | peak RSS (MiB) |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        value = f"{r['value']:.4f}" if isinstance(r.get("value"), (int, float)) else ""
        before = f"{r['rss_before_call_mb']:.0f}" if "rss_before_call_mb" in r else ""
        peak = f"{r['peak_rss_mb']:.0f}" if "peak_rss_mb" in r else ""
        status = r["status"] if r["status"] != "refused" else f"refused: {r['error'][:90]}..."
        lines.append(f"| {r['row']} | {status} | {r['seconds']:.1f} | {value} | {before} | {peak} |")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--words", type=int, default=20_000)
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per row before it is reported as timeout")
    parser.add_argument("--rows", default=",".join(ROWS), help="comma-separated row names (default: all)")
    args = parser.parse_args()
    if not (args.data / "wmt17-da").is_dir():
        sys.exit(f"benchmark data not found under {args.data}: pass --data PATH (the folder holding wmt17-da/)")
    names = [name for name in args.rows.split(",") if name]
    unknown = [name for name in names if name not in ROWS]
    if unknown:
        sys.exit(f"unknown rows {unknown}; choose from {list(ROWS)}")
    rows = []
    for name in names:
        rows.append(measure(name, args.data, args.words, args.timeout))
        print(json.dumps(rows[-1]), flush=True)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "long.json").write_text(json.dumps(rows, indent=1))
    (RESULTS / "long.md").write_text(markdown(rows, args.words))
    print(markdown(rows, args.words))
    return 0


if __name__ == "__main__":
    sys.exit(main())
