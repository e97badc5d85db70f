"""NIST vs nltk's corpus_nist on the 16 WMT17 en-de systems.

The anchor gets pre-tokenized input (nltk's NISTTokenizer needs the perluniprops download), so its time is
corpus_nist alone; ours includes tokenization (13a, the anchor's tokens; HF nist_mt's default NIST tokenizer gives the
same tokens on this text). Ours starts cold (reference weights computed once, then reused).
"""

from __future__ import annotations

from pathlib import Path

from nltk.translate.nist_score import corpus_nist

from benchmarks.common import DEFAULT_DATA, load_wmt17_ende, main, peak_rss_mb, timed
from nlgmetrics.lexical import nist
from nlgmetrics.text.tokenizers import tokenize_13a


def run(data: Path = DEFAULT_DATA, quick: bool = False) -> dict:
    reference, systems = load_wmt17_ende(data)
    if quick:
        reference = reference[:500]
        systems = {name: hyps[:500] for name, hyps in list(systems.items())[:3]}
    nltk_refs = [[list(tokenize_13a(ref))] for ref in reference]
    nltk_hyps = {name: [list(tokenize_13a(h)) for h in hyps] for name, hyps in systems.items()}

    def ours():
        nist._reference_set.cache_clear()
        return {name: nist.compute_nist(hyps, reference, tokenize="13a")["nist"] for name, hyps in systems.items()}

    def anchor():
        return {name: corpus_nist(nltk_refs, hyps) for name, hyps in nltk_hyps.items()}

    repeat = 1 if quick else 2
    ours_s, ours_scores = timed(ours, repeat)
    anchor_s, anchor_scores = timed(anchor, repeat)
    rows = [{
        "case": f"corpus NIST (n=5), {len(systems)} systems x {len(reference)} segments",
        "ours_s": ours_s, "anchor": "nltk corpus_nist (pre-tokenized)", "anchor_s": anchor_s,
        "speedup": anchor_s / ours_s,
        "max_abs_diff": max(abs(ours_scores[k] - anchor_scores[k]) for k in systems),
    }]
    return {"metric": "nist", "rows": rows, "peak_rss_mb": peak_rss_mb(),
            "notes": ["ours includes 13a tokenization; nltk is given tokens"]}


if __name__ == "__main__":
    main(run)
