"""BLEU vs sacrebleu 2.6 on the 16 WMT17 en-de systems: parity, the Moses values, throughput.

Case ``16 systems``: each system scored by one corpus call against the same reference, as a user comparing systems
does; ours and sacrebleu.corpus_bleu each start cold (caches cleared) and are timed best-of-3 in this process.
"""

from __future__ import annotations

import json
from pathlib import Path

import sacrebleu

from benchmarks.common import DEFAULT_DATA, load_wmt17_ende, main, peak_rss_mb, timed
from nlgmetrics.lexical import bleu as ours_bleu
from nlgmetrics.text import tokenizers

MOSES = Path(__file__).resolve().parent.parent / "tests" / "data" / "wmt17_ende_moses_bleu.json"


def _clear_caches() -> None:
    ours_bleu._reference_info.cache_clear()
    ours_bleu._encode_references.cache_clear()
    for tokenize in (tokenizers.tokenize_13a, tokenizers.tokenize_intl, tokenizers.tokenize_zh):
        tokenize.cache_clear()
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a
    from sacrebleu.tokenizers.tokenizer_re import TokenizerRegexp

    Tokenizer13a.__call__.cache_clear()
    TokenizerRegexp.__call__.cache_clear()


def run(data: Path = DEFAULT_DATA, quick: bool = False) -> dict:
    reference, systems = load_wmt17_ende(data)
    if quick:
        reference = reference[:1000]
        systems = {name: hyps[:1000] for name, hyps in list(systems.items())[:4]}
    moses = json.loads(MOSES.read_text())["bleu"]

    def ours():
        _clear_caches()
        return {name: ours_bleu.compute_sacrebleu(hyps, reference)["score"] for name, hyps in systems.items()}

    def anchor():
        _clear_caches()
        return {name: sacrebleu.corpus_bleu(hyps, [reference]).score for name, hyps in systems.items()}

    repeat = 1 if quick else 3
    ours_s, ours_scores = timed(ours, repeat)
    anchor_s, anchor_scores = timed(anchor, repeat)
    diff = max(abs(ours_scores[name] - anchor_scores[name]) for name in systems)
    moses_ok = sum(round(ours_scores[name], 2) == moses[name] for name in systems) if not quick else None
    segments = sum(len(h) for h in systems.values())
    rows = [{
        "case": f"corpus BLEU, {len(systems)} systems x {len(reference)} segments",
        "ours_s": ours_s, "anchor": "sacrebleu 2.6 corpus_bleu", "anchor_s": anchor_s,
        "speedup": anchor_s / ours_s, "max_abs_diff": diff,
        "segments_per_s": segments / ours_s,
        "moses_matches": f"{moses_ok}/{len(systems)}" if moses_ok is not None else "n/a (quick)",
    }]
    return {"metric": "bleu", "rows": rows, "peak_rss_mb": peak_rss_mb(),
            "notes": ["both start with cold caches in every repeat; best of 3"]}


if __name__ == "__main__":
    main(run)
