"""ROUGE vs rouge_score 0.1.2 on WMT17 de-en (11 systems x 3004 segments): throughput and per-example parity.

Cases (each timed once, ours and rouge_score one after the other in this process; ours starts with cold caches):

- ``all systems``: rouge1+rouge2+rougeL with the Porter stemmer, every system scored against the same reference,
  as a user comparing systems does. rouge_score: ``RougeScorer.score(ref, hyp)`` per segment (what HF evaluate's
  ``rouge`` runs); ours: one ``compute_rouge(..., use_aggregator=False)`` call per system.
- ``one system``: the same for the first system alone (no reuse of references across systems).
- ``HF default types``: rouge1, rouge2, rougeL, rougeLsum without stemmer, one system.

Ours uses ``tokenizer="rouge_score"`` so that every example is comparable; the default ``unicode`` tokenizer takes
the same code path on ASCII text and is timed too (``ours_default_s``). ``max_abs_diff`` is over per-example
precision, recall and F of every type.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rouge_score import rouge_scorer

from benchmarks.common import DEFAULT_DATA, load_wmt17_da, peak_rss_mb, timed
from nlgmetrics.lexical.rouge import compute_rouge
from nlgmetrics.text.rouge_tokenize import clear_caches

MEASURES = ("precision", "recall", "fmeasure")


def _ours(systems: dict[str, list[str]], reference: list[str], types: list[str], stem: bool, tokenizer: str):
    clear_caches()
    out = {}
    for name, hyps in systems.items():
        result = compute_rouge(
            hyps, reference, rouge_types=types, use_stemmer=stem, use_aggregator=False, tokenizer=tokenizer
        )
        out[name] = {t: (result[f"{t}_precision"], result[f"{t}_recall"], result[t]) for t in types}
    return out


def _anchor(systems: dict[str, list[str]], reference: list[str], types: list[str], stem: bool):
    scorer = rouge_scorer.RougeScorer(types, use_stemmer=stem)
    out = {}
    for name, hyps in systems.items():
        scores = [scorer.score(ref, hyp) for ref, hyp in zip(reference, hyps)]
        out[name] = {t: tuple([getattr(s[t], m) for s in scores] for m in MEASURES) for t in types}
    return out


def _diff(ours: dict, anchor: dict) -> float:
    worst = 0.0
    for name, per_type in anchor.items():
        for t, measures in per_type.items():
            for a_values, o_values in zip(measures, ours[name][t]):
                worst = max(worst, max((abs(a - o) for a, o in zip(a_values, o_values)), default=0.0))
    return worst


def _cpu_timed(fn: Callable[[], Any]) -> tuple[float, float, Any]:
    """Wall-clock and CPU seconds (this process) of one call, and its result."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = fn()
    return time.perf_counter() - wall, time.process_time() - cpu, result


def _case(label: str, systems: dict, reference: list[str], types: list[str], stem: bool) -> dict:
    ours_s, ours_cpu, ours = _cpu_timed(lambda: _ours(systems, reference, types, stem, "rouge_score"))
    default_s, _ = timed(lambda: _ours(systems, reference, types, stem, "unicode"), 1)
    anchor_s, anchor_cpu, anchor = _cpu_timed(lambda: _anchor(systems, reference, types, stem))
    segments = sum(len(h) for h in systems.values())
    return {
        "case": f"{label}: {'+'.join(types)}{' +stemmer' if stem else ''}, {len(systems)} x {len(reference)}",
        "ours_s": ours_s,
        "ours_default_s": default_s,
        "anchor": "rouge_score 0.1.2 RougeScorer.score",
        "anchor_s": anchor_s,
        "speedup": anchor_s / ours_s,
        "ours_cpu_s": ours_cpu,
        "anchor_cpu_s": anchor_cpu,
        "speedup_cpu": anchor_cpu / ours_cpu,
        "max_abs_diff": _diff(ours, anchor),
        "segments_per_s": segments / ours_s,
    }


def run(data: Path = DEFAULT_DATA, quick: bool = False) -> dict:
    reference, systems = load_wmt17_da(data, "de-en")
    if quick:
        reference = reference[:500]
        systems = {name: hyps[:500] for name, hyps in list(systems.items())[:2]}
    first = dict(list(systems.items())[:1])
    main = ["rouge1", "rouge2", "rougeL"]
    rows = [
        _case("all systems", systems, reference, main, True),
        _case("one system", first, reference, main, True),
        _case("HF default types", first, reference, ["rouge1", "rouge2", "rougeL", "rougeLsum"], False),
    ]
    return {
        "metric": "rouge",
        "rows": rows,
        "peak_rss_mb": peak_rss_mb(),
        "notes": [
            "one timed run per side; ours starts each case with cold token and stem caches",
            "speedup_cpu compares process CPU seconds, steadier than wall-clock on a shared machine",
            "parity is per example (precision, recall, F of every type) against rouge_score 0.1.2",
        ],
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    print(json.dumps(run(args.data, args.quick), indent=1))
