"""BLEU through Hugging Face evaluate vs sacrebleu 2.6, on the 16 WMT17 en-de systems: what the evaluate layer costs.

Rows, each against ``sacrebleu.corpus_bleu`` in the same turns: ``evaluate.load("./metrics/bleu").compute(
predictions=..., references=...)`` (the direct path: no Arrow cache file), the same module fed by ``add_batch``
first (evaluate's Arrow round trip: write a cache file, read it back), and the core ``compute_bleu`` with no evaluate
at all. Each system is one call, as a user comparing systems does. The cases take turns (one turn: every case once,
caches cleared before each), and each case's time is its best turn (wall clock and process CPU time), so machine
load hits all of them alike.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("HF_EVALUATE_OFFLINE", "1")

import evaluate
import sacrebleu

from benchmarks.bench_bleu import _clear_caches
from benchmarks.common import DEFAULT_DATA, load_wmt17_ende, main, peak_rss_mb
from nlgmetrics.lexical import bleu as ours_bleu

MODULE = Path(__file__).resolve().parent.parent / "metrics" / "bleu"


def _take_turns(cases: dict[str, Callable[[], dict]], repeat: int) -> tuple[dict, dict, dict]:
    """Best wall-clock and best process-CPU seconds of each case over ``repeat`` turns, and its last result."""
    wall = {name: float("inf") for name in cases}
    cpu = dict(wall)
    results = {}
    for _ in range(repeat):
        for name, fn in cases.items():
            _clear_caches()
            start, start_cpu = time.perf_counter(), time.process_time()
            results[name] = fn()
            wall[name] = min(wall[name], time.perf_counter() - start)
            cpu[name] = min(cpu[name], time.process_time() - start_cpu)
    return wall, cpu, results


def run(data: Path = DEFAULT_DATA, quick: bool = False) -> dict:
    reference, systems = load_wmt17_ende(data)
    if quick:
        reference = reference[:1000]
        systems = {name: hyps[:1000] for name, hyps in list(systems.items())[:4]}
    module = evaluate.load(str(MODULE))

    def direct():
        return {name: module.compute(predictions=hyps, references=reference)["score"] for name, hyps in systems.items()}

    def arrow():
        scores = {}
        for name, hyps in systems.items():
            module.add_batch(predictions=hyps, references=reference)
            scores[name] = module.compute()["score"]
        return scores

    def core():
        return {name: ours_bleu.compute_bleu(hyps, reference)["score"] for name, hyps in systems.items()}

    def anchor():
        return {name: sacrebleu.corpus_bleu(hyps, [reference]).score for name, hyps in systems.items()}

    cases = {"direct": direct, "arrow": arrow, "core": core, "anchor": anchor}
    seconds, cpu, scores = _take_turns(cases, 1 if quick else 5)
    size = f"{len(systems)} systems x {len(reference)} segments"
    labels = {
        "direct": f"evaluate bleu compute(predictions, references), {size}",
        "arrow": f"evaluate bleu add_batch + compute() (Arrow cache file), {size}",
        "core": f"core compute_bleu, no evaluate, {size}",
    }
    rows = [{
        "case": labels[name], "ours_s": seconds[name], "anchor": "sacrebleu 2.6 corpus_bleu",
        "anchor_s": seconds["anchor"], "speedup": seconds["anchor"] / seconds[name],
        "speedup_cpu": cpu["anchor"] / cpu[name],
        "max_abs_diff": max(abs(scores[name][system] - scores["anchor"][system]) for system in systems),
    } for name in labels]
    return {"metric": "evaluate", "rows": rows, "peak_rss_mb": peak_rss_mb(),
            "notes": [(f"cases take turns, caches cleared before each; best of {1 if quick else 5} turns; speed-ups "
                       "in wall clock and in process CPU time (steadier on a shared machine)")]}


if __name__ == "__main__":
    main(run)
