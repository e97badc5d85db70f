"""ROUGE-1.5.5 flavor (``flavor="rouge155"``) beside our default rouge_score flavor on WMT17 de-en (3,004 pairs), and
its reproduction of ROUGE-1.5.5.pl's printed figures.

Cases (both flavors through ``compute_rouge``, taking turns, best of ``--repeat``; every call starts with cold token
and stem caches):

- ``rouge1+rouge2+rougeL``, per example (``use_aggregator=False``), without and with the stemmer (perl's own Porter
  variant against nltk's);
- the same aggregated: the default flavor takes plain means, the perl flavor adds perl's 1,000-resample bootstrap
  (means and 95% intervals, as ROUGE-1.5.5.pl prints them);
- all eight types ROUGE-1.5.5.pl prints with ``-n 4 -2 4 -U -w 1.2`` (rouge1..4, rougeL, rougeW, rougeS4, rougeSU4;
  the default flavor's W/S/SU follow the paper, so its figures differ, its work is comparable).

``speedup`` is default seconds / perl-flavor seconds (>= 0.5: the perl flavor is within 2x of the default). The last
row scores the 22 ROUGE-1.5.5.pl runs kept in ``tests/data/rouge155`` and counts the per-case figures that equal
perl's printed ones (``exact``); ``max_abs_diff`` is over those figures.
"""

from __future__ import annotations

import argparse
import gzip
import json
import time
from pathlib import Path

from benchmarks.common import DEFAULT_DATA, load_wmt17_da, peak_rss_mb
from nlgmetrics.lexical import rouge155
from nlgmetrics.lexical.rouge import compute_rouge
from nlgmetrics.text.rouge_tokenize import clear_caches

PERL_FIGURES = Path(__file__).resolve().parent.parent / "tests" / "data" / "rouge155" / "perl_figures.json.gz"
PERL_TYPES = {"ROUGE-1": "rouge1", "ROUGE-2": "rouge2", "ROUGE-3": "rouge3", "ROUGE-4": "rouge4",
              "ROUGE-L": "rougeL", "ROUGE-W-1.2": "rougeW", "ROUGE-S4": "rougeS4", "ROUGE-SU4": "rougeSU4"}  # fmt: skip
RUN_OPTIONS = {"base": {}, "zspl": {}, "fA": {}, "fB": {"multi_ref": "best"}, "m": {"use_stemmer": True},
               "m_wnexc": {"use_stemmer": True, "wordnet_exceptions": True}, "s": {"remove_stopwords": True},
               "s_crash": {"remove_stopwords": True}, "ms": {"use_stemmer": True, "remove_stopwords": True},
               "ms_crash": {"use_stemmer": True, "remove_stopwords": True}, "l30": {"length_limit": 30},
               "b150": {"byte_limit": 150, "byte_limit_bug": True}}  # fmt: skip


def _cold_call(flavor: str, hyps: list[str], refs: list[str], types: list[str], stem: bool, agg: bool) -> float:
    clear_caches()
    rouge155.clear_caches()
    start = time.perf_counter()
    compute_rouge(hyps, refs, rouge_types=types, use_stemmer=stem, use_aggregator=agg, flavor=flavor)
    return time.perf_counter() - start


def _case(label: str, hyps: list[str], refs: list[str], types: list[str], stem: bool, agg: bool, repeat: int) -> dict:
    best = {"rouge_score": float("inf"), "rouge155": float("inf")}
    for _ in range(repeat):  # the flavors take turns, so machine load touches both alike
        for flavor, seconds in best.items():
            best[flavor] = min(seconds, _cold_call(flavor, hyps, refs, types, stem, agg))
    return {
        "case": f"{label}: {'+'.join(types)}{' +stemmer' if stem else ''}, "
        f"{'aggregated' if agg else 'per example'}, 1 x {len(hyps)}",
        "ours_s": best["rouge155"],
        "anchor": "our default flavor (rouge_score)",
        "anchor_s": best["rouge_score"],
        "speedup": best["rouge_score"] / best["rouge155"],
        "perl_flavor_over_default": best["rouge155"] / best["rouge_score"],
        "segments_per_s": len(hyps) / best["rouge155"],
    }


def perl_parity(path: Path = PERL_FIGURES) -> dict:
    """Every per-case figure of the 22 ROUGE-1.5.5.pl runs in tests/data/rouge155, recomputed."""
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        perl = json.load(handle)
    exact = total = 0
    worst = 0.0
    start = time.perf_counter()
    for key, run in perl["runs"].items():
        set_name, run_name = key.split("/")
        wanted = set(run["cases"])
        cases = [c for c in perl["inputs"][set_name] if c["case"] in wanted]
        figures = rouge155.rouge155_scores(
            ["\n".join(c["peer"]) for c in cases], [["\n".join(m) for m in c["models"]] for c in cases],
            [PERL_TYPES[t] for t in run["types"]], **RUN_OPTIONS[run_name],
        )  # fmt: skip
        for perl_type, expected in run["figures"].items():
            for want, got in zip(expected, figures[PERL_TYPES[perl_type]]):
                total += 1
                exact += want == " ".join(f"{x:.5f}" for x in got)
                worst = max(worst, *(abs(float(w) - g) for w, g in zip(want.split(), got)))
    return {
        "case": f"parity: {len(perl['runs'])} ROUGE-1.5.5.pl runs, 8 types (tests/data/rouge155)",
        "ours_s": time.perf_counter() - start,
        "anchor": "ROUGE-1.5.5.pl printed figures",
        "exact": f"{exact}/{total}",
        "max_abs_diff": worst,
    }


def run(data: Path = DEFAULT_DATA, quick: bool = False, repeat: int = 3) -> dict:
    reference, systems = load_wmt17_da(data, "de-en")
    hyps = next(iter(systems.values()))
    if quick:
        reference, hyps, repeat = reference[:500], hyps[:500], 1
    main = ["rouge1", "rouge2", "rougeL"]
    perl_types = list(PERL_TYPES.values())
    rows = [
        _case("perl vs default flavor", hyps, reference, main, False, False, repeat),
        _case("perl vs default flavor", hyps, reference, main, True, False, repeat),
        _case("perl vs default flavor", hyps, reference, main, False, True, repeat),
        _case("perl vs default flavor", hyps, reference, perl_types, False, False, repeat),
        perl_parity(),
    ]
    return {
        "metric": "rouge155",
        "rows": rows,
        "peak_rss_mb": peak_rss_mb(),
        "notes": [
            f"best of {repeat} turns per flavor, each with cold caches; speedup = default s / perl-flavor s",
            (
                "without stemmer the perl flavor's ROUGE-N/L reuse the default flavor's counts (same hits), then "
                "round as perl; the aggregated perl flavor includes perl's 1,000-resample bootstrap"
            ),
        ],
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(json.dumps(run(args.data, args.quick, args.repeat), indent=1))
