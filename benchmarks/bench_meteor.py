"""METEOR vs nltk 3.10 (HF evaluate's ``meteor`` path) on 600 WMT17 de-en segments: parity and speed.

The anchor is what HF evaluate's ``meteor`` module runs per example: ``nltk.translate.meteor_score.meteor_score(
[word_tokenize(r) for r in refs], word_tokenize(pred))``. Ours is ``compute_meteor(predictions, references)``. Both
include tokenization. Before any timing WordNet is loaded for both (nltk's reader with its index and exception
lists; our lemma-name tables) and the Punkt tables are read, so loading is not timed. Each case is one run per side,
measured in this process one after the other:

- ``first run``: the first scoring of these segments in the process. nltk's reader has parsed no synset yet (it
  parses and keeps one ``Synset`` per synset it meets); our per-word and per-text caches are empty.
- ``repeat, ours cold``: nltk again on the same segments (its synsets now cached) vs ours with every cache cleared:
  the strictest comparison.
- ``repeat, both warm``: both again with whatever they cached (ours: tokens, stems, synonym sets).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from benchmarks.common import DEFAULT_DATA, load_wmt17_da, max_abs_diff, peak_rss_mb, timed
from nlgmetrics.lexical import meteor as ours_meteor
from nlgmetrics.text import lexicon

PAIR = "de-en"


def run(data: Path = DEFAULT_DATA, quick: bool = False) -> dict:
    reference, systems = load_wmt17_da(data, PAIR)
    system = sorted(systems)[0]
    n = 100 if quick else 600
    predictions, references = systems[system][:n], reference[:n]

    from nltk.tokenize import word_tokenize
    from nltk.translate.meteor_score import meteor_score

    lexicon.load_wordnet()  # nltk's WordNet reader (shared by both) and our lemma-name tables
    word_tokenize("Punkt tables load here. Not in the timings.")

    def anchor() -> list[float]:
        return [meteor_score([word_tokenize(r)], word_tokenize(p)) for p, r in zip(predictions, references)]

    def ours() -> list[float]:
        return ours_meteor.compute_meteor(predictions, references)["scores"]

    def ours_cold() -> list[float]:
        ours_meteor.clear_caches()
        return ours()

    rows = []
    cases = (
        ("first run", anchor, ours_cold),
        ("repeat, ours cold", anchor, ours_cold),
        ("repeat, both warm", anchor, ours),
    )
    for case, anchor_fn, ours_fn in cases:
        anchor_s, theirs = timed(anchor_fn, repeat=1)
        ours_s, mine = timed(ours_fn, repeat=1)
        rows.append({
            "case": f"{case}: {len(predictions)} WMT17 {PAIR} segments ({system}), tokenize + score",
            "ours_s": ours_s, "anchor": "nltk 3.10 word_tokenize + meteor_score (HF evaluate meteor)",
            "anchor_s": anchor_s, "speedup": anchor_s / ours_s, "max_abs_diff": max_abs_diff(mine, theirs),
            "segments_per_s": len(predictions) / ours_s,
        })
    return {
        "metric": "meteor", "rows": rows, "peak_rss_mb": peak_rss_mb(),
        "notes": [
            "one run per side and case, in this process; WordNet and Punkt loaded before timing",
            "first run: nltk has parsed no synset, our caches are empty; repeat, ours cold: nltk's synsets cached, "
            "ours cleared",
        ],
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    result = run(args.data, args.quick)
    for row in result["rows"]:
        print(
            f"{row['case']}\n  ours {row['ours_s']:.3f} s  nltk {row['anchor_s']:.3f} s  "
            f"speedup {row['speedup']:.1f}x  max|diff| {row['max_abs_diff']:.1e}"
        )
    print(json.dumps(result, indent=1))
