"""chrF and chrF++ vs sacrebleu 2.6 on the 16 WMT17 en-de systems: parity (corpus and every sentence), throughput.

Cases ``chrF`` and ``chrF++``: each system scored by one corpus call against the same reference, as a user comparing
systems does; ours (compute_chrf) and sacrebleu.corpus_chrf each start cold (caches cleared) in every repeat and are
timed best-of-N in this process, turn about. Parity (not timed): every corpus score, and every sentence score against
``sacrebleu.sentence_chrf``.

    python -m benchmarks.bench_chrf [--data ../shared/data] [--quick] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import sacrebleu

from benchmarks.common import DEFAULT_DATA, load_wmt17_ende, max_abs_diff, peak_rss_mb
from nlgmetrics.lexical import chrf as ours_chrf

CASES = {"chrF": {"word_order": 0}, "chrF++": {"word_order": 2}}


def _clear_caches() -> None:
    ours_chrf._reference_set.cache_clear()
    ours_chrf._reference_ngrams.cache_clear()


def run(data: Path = DEFAULT_DATA, quick: bool = False, repeat: int | None = None) -> dict:
    reference, systems = load_wmt17_ende(data)
    if quick:
        reference = reference[:1000]
        systems = {name: hyps[:1000] for name, hyps in list(systems.items())[:4]}
    repeat = repeat or (1 if quick else 3)
    segments = sum(len(h) for h in systems.values())
    rows = []
    for case, options in CASES.items():
        def ours(options=options):
            _clear_caches()
            return {name: ours_chrf.compute_chrf(hyps, reference, **options)["score"] for name, hyps in systems.items()}

        def anchor(options=options):
            return {name: sacrebleu.corpus_chrf(hyps, [reference], **options).score for name, hyps in systems.items()}

        ours_s = anchor_s = float("inf")
        for _ in range(repeat):  # turn about, so load changes hit both alike
            start = time.perf_counter()
            ours_scores = ours()
            ours_s = min(ours_s, time.perf_counter() - start)
            start = time.perf_counter()
            anchor_scores = anchor()
            anchor_s = min(anchor_s, time.perf_counter() - start)
        corpus_diff = max(abs(ours_scores[name] - anchor_scores[name]) for name in systems)
        sentence_diff = 0.0
        for hyps in systems.values():
            mine = ours_chrf.compute_chrf(hyps, reference, sentence_scores=True, **options)["scores"]
            theirs = [sacrebleu.sentence_chrf(h, [r], **options).score for h, r in zip(hyps, reference)]
            sentence_diff = max(sentence_diff, max_abs_diff(mine, theirs))
        rows.append({
            "case": f"corpus {case}, {len(systems)} systems x {len(reference)} segments",
            "ours_s": ours_s, "anchor": "sacrebleu 2.6 corpus_chrf", "anchor_s": anchor_s,
            "speedup": anchor_s / ours_s, "max_abs_diff": max(corpus_diff, sentence_diff),
            "corpus_max_abs_diff": corpus_diff, "sentence_max_abs_diff": sentence_diff,
            "segments_per_s": segments / ours_s,
        })
    return {"metric": "chrf", "rows": rows, "peak_rss_mb": peak_rss_mb(),
            "notes": [(f"ours starts with cold caches in every repeat; best of {repeat}, ours and sacrebleu in turn; "
                       "max abs diff covers every corpus score and every sentence score (sacrebleu.sentence_chrf)")]}


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeat", type=int, default=None)
    args = parser.parse_args()
    print(json.dumps(run(args.data, args.quick, args.repeat), indent=1))
