"""Shared benchmark helpers: data loading from ../shared/data, timing, peak memory.

Every ``bench_<metric>.py`` exposes ``run(data: Path, quick: bool) -> dict`` returning
``{"metric": name, "rows": [{"case": ..., "ours_s": ..., "anchor": ..., "anchor_s": ..., "speedup": ...,
"max_abs_diff": ..., ...}], "notes": [...]}``; ``benchmarks/run.py`` collects them into JSON and a markdown table.
Timings are best-of-``repeat`` wall-clock seconds, ours and the anchor measured in the same process, one after the
other, so machine load affects both alike.
"""

from __future__ import annotations

import argparse
import glob
import html
import json
import os
import resource
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

DEFAULT_DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data"
DA_PAIRS = ("cs-en", "de-en", "ru-en", "tr-en", "zh-en")


def main(run: Callable[[Path, bool], dict]) -> None:
    """A benchmark's command line: ``--data PATH`` (default ../shared/data) and ``--quick``; prints run's JSON."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    print(json.dumps(run(args.data, args.quick), indent=1))


def read_lines(path: str | Path) -> list[str]:
    with open(path, encoding="utf-8") as handle:
        return handle.read().split("\n")[:-1]


def load_wmt17_ende(data: Path) -> tuple[list[str], dict[str, list[str]]]:
    """The WMT17 en-de reference and its 16 systems (detokenized, cased)."""
    folder = Path(data) / "wmt17-en-de"
    reference = read_lines(folder / "newstest2017-ende-ref.de")
    systems = {
        os.path.basename(path)[len("newstest2017.") : -len(".en-de")]: read_lines(path)
        for path in sorted(glob.glob(str(folder / "newstest2017.*.en-de")))
    }
    return reference, systems


def load_wmt17_da(data: Path, pair: str, unescape: bool = True) -> tuple[list[str], dict[str, list[str]]]:
    """Reference and system outputs of one WMT17 DA to-English pair (``html.unescape``d by default)."""
    folder = Path(data) / "wmt17-da"
    src = pair.split("-")[0]
    fix = html.unescape if unescape else (lambda s: s)
    reference = [fix(line) for line in read_lines(folder / f"newstest2017-{src}en-ref.en")]
    systems = {
        os.path.basename(path)[len("newstest2017.") : -len("." + pair)]: [fix(line) for line in read_lines(path)]
        for path in sorted(glob.glob(str(folder / pair / f"newstest2017.*.{pair}")))
    }
    return reference, systems


def timed(fn: Callable[[], Any], repeat: int = 3) -> tuple[float, Any]:
    """Best wall-clock seconds over ``repeat`` calls, and the last call's result."""
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def peak_rss_mb() -> float:
    """Peak resident memory of this process so far, in MiB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def max_abs_diff(ours: list[float], theirs: list[float]) -> float:
    if len(ours) != len(theirs):
        raise ValueError(f"length mismatch: {len(ours)} vs {len(theirs)}")
    return max((abs(a - b) for a, b in zip(ours, theirs)), default=0.0)
