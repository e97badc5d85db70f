"""TER vs sacrebleu 2.6 on the 16 WMT17 en-de systems: speed, and exact parity over every segment.

Case ``16 systems``: each system scored by one corpus call against the same reference, as a user comparing systems
does. Ours is ``compute_ter``; the anchor is the body of sacrebleu's ``TER().corpus_score`` (what ``corpus_ter``
runs: per-segment statistics, then the aggregate), so that its per-segment edit counts can be checked too. Both
start cold in every turn (tokenizer, reference and pair caches cleared); turns alternate, ours then sacrebleu's,
``BENCH_REPEAT`` times (default 3), and the best of each is reported. A second case, one turn with
``normalized=True``, checks the Tercom normalization on the full data. The run fails if any system's score differs by
more than 1e-9 or any segment's edit count or reference length differs.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from sacrebleu.metrics.ter import TER as SacreTER
from sacrebleu.tokenizers.tokenizer_ter import TercomTokenizer

from benchmarks.common import DEFAULT_DATA, load_wmt17_ende, main, peak_rss_mb
from nlgmetrics.lexical import ter as ours_ter
from nlgmetrics.text.tercom import tokenize_tercom


def _clear_caches() -> None:
    for cached in (tokenize_tercom, ours_ter._reference_masks, ours_ter.ter_edits, ours_ter._beam):
        cached.cache_clear()
    TercomTokenizer.__call__.cache_clear()


def _case(reference: list[str], systems: dict[str, list[str]], options: dict, repeat: int) -> dict:
    """One row: ours and sacrebleu's, turn by turn, then the parity check of every segment."""

    def ours():
        _clear_caches()
        return {name: ours_ter.compute_ter(hyps, reference, **options)["score"] for name, hyps in systems.items()}

    def anchor():
        _clear_caches()
        out = {}
        for name, hyps in systems.items():
            metric = SacreTER(**options)
            stats = metric._extract_corpus_statistics(hyps, [reference])
            out[name] = (metric._aggregate_and_compute(stats).score, stats)
        return out

    ours_s = anchor_s = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        ours_scores = ours()
        ours_s = min(ours_s, time.perf_counter() - start)
        start = time.perf_counter()
        anchor_out = anchor()
        anchor_s = min(anchor_s, time.perf_counter() - start)

    # parity: corpus scores and every segment's statistics (ours recomputed from warm caches, untimed)
    diff = max(abs(ours_scores[name] - anchor_out[name][0]) for name in systems)
    refs = [[line] for line in reference]
    segments = differing = 0
    for name, hyps in systems.items():
        stats = ours_ter.TER(**options).corpus_statistics(hyps, refs)
        for ours_row, their_row in zip(stats.tolist(), anchor_out[name][1]):
            segments += 1
            differing += ours_row != [float(x) for x in their_row]
    if diff > 1e-9 or differing:
        raise AssertionError(
            f"TER parity broken ({options}): max score diff {diff}, {differing} of {segments} segments differ"
        )
    shown = ", ".join(f"{key}" for key, value in options.items() if value) or "default options"
    return {
        "case": f"corpus TER ({shown}), {len(systems)} systems x {len(reference)} segments, best of {repeat}",
        "ours_s": ours_s, "anchor": "sacrebleu 2.6 TER().corpus_score", "anchor_s": anchor_s,
        "speedup": anchor_s / ours_s, "max_abs_diff": diff,
        "segments_per_s": segments / ours_s,
        "segment_edit_counts_equal": f"{segments - differing}/{segments}",
    }


def run(data: Path = DEFAULT_DATA, quick: bool = False) -> dict:
    reference, systems = load_wmt17_ende(data)
    if quick:
        reference = reference[:1000]
        systems = {name: hyps[:1000] for name, hyps in list(systems.items())[:4]}
    repeat = 1 if quick else int(os.environ.get("BENCH_REPEAT", "3"))
    rows = [_case(reference, systems, {}, repeat), _case(reference, systems, {"normalized": True}, 1)]
    note = ("cold caches in every turn; turns alternate; best of BENCH_REPEAT (default 3) turns with default options, "
            "one turn normalized; every segment's edit count and reference length equal to sacrebleu's (asserted)")
    return {"metric": "ter", "rows": rows, "peak_rss_mb": peak_rss_mb(), "notes": [note]}


if __name__ == "__main__":
    main(run)
