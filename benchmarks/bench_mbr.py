"""MBR selection (nlgmetrics.mbr) beside comet-mbr (unbabel-comet 2.2.7) and mbrs 0.1.8, in one run, CPU seconds.

Data: WMT17 en-de (``../shared/data``), the 16 systems' outputs as candidates, newstest2017's English side as the
sources. Two candidate counts:

- ``N=16``: each segment's 16 system outputs are its candidates (``S`` sources);
- ``N=64``: the 16 outputs of 4 consecutive segments, pooled, are the candidates of the first one's source (a timing
  case: 4x the pairs per source, the same number of texts).

Rows (each anchor in its own venv, tests/mbr_oracles.py; both sides one torch thread, model loading excluded, ours
from an empty embedding cache):

1. exact COMET-MBR on the small estimator tests/test_mbr.py builds (tests/mbr_oracles.py's ``ESTIMATOR``) (unbabel-comet's own classes; XLM-R 2 layers,
   hidden 64, head 32-16): comet-mbr's ``build_embeddings`` + ``mbr_decoding`` + ``argmax`` in float32 (its command's
   ``model.half()`` and ``.cuda()`` need a GPU) and mbrs' exact ``DecoderMBR`` with its ``comet`` metric (``cpu``).
   Targets: >= 3x comet-mbr's float32 computation and >= mbrs.
2. exact chrF-MBR: mbrs' default (sacrebleu's sentence chrF in a pool of 8 worker processes, as shipped) and mbrs
   with ``fastchrf`` (Rust). Targets: >= 5x the default, >= fastchrf.
3. reference aggregation: chrF (mbrs default and fastchrf) and COMET. Target: >= mbrs.
4. memory: exact chrF-MBR and COMET-MBR of one source with N = 1,024 candidates (64 segments' outputs pooled):
   seconds and the peak of memory allocated during the call (tracemalloc: numpy's and torch's CPU buffers are not
   all traced by it, so the process's peak RSS growth is reported too).
5. exact COMET-MBR on a MiniLM-size encoder (12 layers, hidden 384: encoding compute-bound), with a softmax mix of
   every layer and with wmt22-comet-da's sparsemax mix (a random draw: ours runs the encoder only up to the last
   layer the mix weights), against comet-mbr's float32 computation.
6. quality (a sanity figure, not a target): corpus BLEU and chrF against the reference of the outputs selected by
   chrF-MBR and BLEU-MBR over all segments, beside the best and the median single system and the oracle selection
   (the candidate with the best sentence chrF against the reference).

``same selection``: whether ours selected the same texts as the anchor (a different index of an identical text counts
as the same). CPU seconds include child processes (mbrs' pools). Speed-ups are CPU-second ratios.

Run: ``python -m benchmarks.bench_mbr [--data ../shared/data] [--quick] [--write]`` (default S = 100 sources for
N = 16 and 25 for N = 64; quick: 20 and 5, no quality figure; ``--write``: results/mbr.json and results/mbr.md).
"""

from __future__ import annotations

import html
import os
import resource
import sys
import tempfile
import time
import tracemalloc
import warnings
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import torch  # noqa: E402

from benchmarks.common import load_wmt17_ende, read_lines  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from comet_builder import build_encoder, oracle_scores  # noqa: E402
from mbr_oracles import COMET_MBR, ESTIMATOR, comet_mbr_run, run_mbrs  # noqa: E402

THREADS = int(os.environ.get("NLGMETRICS_BENCH_THREADS", "1"))


def _cpu() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _timed(fn):
    start, cpu = time.perf_counter(), _cpu()
    result = fn()
    return result, _cpu() - cpu, time.perf_counter() - start


def cases(data: Path, quick: bool) -> tuple[dict, list[str], dict[str, list[str]]]:
    """``{"N=16": (sources, groups), "N=64": (...)}``, the reference and the systems."""
    reference, systems = load_wmt17_ende(data)
    sources = [html.unescape(line) for line in read_lines(Path(data) / "wmt17-da" / "newstest2017-deen-ref.en")]
    outputs = list(systems.values())
    s16, s64 = (20, 5) if quick else (100, 25)
    n16 = ([sources[i] for i in range(s16)], [[o[i] for o in outputs] for i in range(s16)])
    n64 = ([sources[4 * k] for k in range(s64)], [[o[i] for i in range(4 * k, 4 * k + 4) for o in outputs]
                                                  for k in range(s64)])
    return {"N=16": n16, "N=64": n64}, reference, systems


def _same(ours: list[str], theirs: list[str]) -> bool:
    return list(ours) == list(theirs)


def _row(case: str, ours: tuple, anchor: str, theirs: dict, ours_text: list[str]) -> dict:
    _, cpu, wall = ours
    return {"case": case, "ours_s": wall, "ours_cpu_s": cpu, "anchor": anchor, "anchor_s": theirs["wall_s"],
            "anchor_cpu_s": theirs["cpu_s"], "speedup": theirs["wall_s"] / wall, "speedup_cpu": theirs["cpu_s"] / cpu,
            "same_selection": _same(ours_text, theirs["text"])}


def run(data: Path, quick: bool) -> dict:
    """The benchmark's rows; its checkpoints live in a temporary folder removed at the end."""
    with tempfile.TemporaryDirectory(prefix="bench-mbr-") as work:
        return _run(data, quick, Path(work))


def _run(data: Path, quick: bool, work: Path) -> dict:
    from nlgmetrics.embed.cache import get_cache
    from nlgmetrics.learned.comet import load_comet
    from nlgmetrics.mbr import mbr

    torch.set_num_threads(THREADS)
    warnings.simplefilter("ignore")
    by_case, reference, systems = cases(data, quick)
    sources_all = [html.unescape(line) for line in read_lines(Path(data) / "wmt17-da" / "newstest2017-deen-ref.en")]
    texts = reference + sources_all[:3004] + [t for o in list(systems.values())[:4] for t in o]
    encoder = build_encoder(work / "xlmr", texts[:20000], vocab_size=1000, num_hidden_layers=2,
                            max_position_embeddings=130)
    estimator = work / "estimator"
    env = {"ORACLE_THREADS": str(THREADS), "OMP_NUM_THREADS": str(THREADS)}
    runs = [comet_mbr_run(case, srcs, groups) for case, (srcs, groups) in by_case.items()]
    job = {"models": [{"folder": str(estimator), "hparams": {**ESTIMATOR, "pretrained_model": str(encoder)},
                       "seed": 2, "exec": COMET_MBR, "mbr": runs}], "samples": {}}
    comet_mbr = oracle_scores(job, work, timeout=5400, env=env)[str(estimator)]
    model = {"model": f"{estimator}/checkpoints/model.ckpt", "cpu": True}
    rows, notes = [], []
    load_comet(str(estimator))
    for case, (srcs, groups) in by_case.items():
        mbrs = run_mbrs(groups, [
            {"name": "comet", "metric": "comet", "decoder": "mbr", "config": model},
            {"name": "chrf", "metric": "chrf", "decoder": "mbr"},
            {"name": "chrf_fast", "metric": "chrf", "decoder": "mbr", "config": {"fastchrf": True}},
            {"name": "chrf_aggregate", "metric": "chrf", "decoder": "aggregate_mbr"},
            {"name": "chrf_aggregate_fast", "metric": "chrf", "decoder": "aggregate_mbr",
             "config": {"fastchrf": True}},
            {"name": "comet_aggregate", "metric": "comet", "decoder": "aggregate_mbr", "config": model},
        ], work, sources=srcs, env=env, timeout=5400)
        n = f"{case} x {len(groups)} sources"

        def comet(**kw):
            get_cache().clear()
            return _timed(lambda: mbr(groups, "comet", sources=srcs, model=str(estimator), **kw))

        ours = comet()
        rows.append(_row(f"exact COMET-MBR, {n}", ours, "comet-mbr (float32)", comet_mbr["__mbr__" + case],
                         ours[0]["text"]))
        ours = comet(convention="mbrs")
        rows.append(_row(f"exact COMET-MBR, {n}", ours, "mbrs DecoderMBR comet", mbrs["comet"], ours[0]["text"]))
        ours = _timed(lambda: mbr(groups, "chrf", convention="mbrs"))
        rows.append(_row(f"exact chrF-MBR, {n}", ours, "mbrs DecoderMBR chrf (default: sacrebleu, 8 processes)",
                         mbrs["chrf"], ours[0]["text"]))
        rows.append(_row(f"exact chrF-MBR, {n}", ours, "mbrs DecoderMBR chrf fastchrf", mbrs["chrf_fast"],
                         ours[0]["text"]))
        ours = _timed(lambda: mbr(groups, "chrf", method="aggregate", convention="mbrs"))
        rows.append(_row(f"aggregate chrF-MBR, {n}", ours, "mbrs DecoderAggregateMBR chrf (default)",
                         mbrs["chrf_aggregate"], ours[0]["text"]))
        rows.append(_row(f"aggregate chrF-MBR, {n}", ours, "mbrs DecoderAggregateMBR chrf fastchrf",
                         mbrs["chrf_aggregate_fast"], ours[0]["text"]))
        ours = comet(method="aggregate", convention="mbrs")
        rows.append(_row(f"aggregate COMET-MBR, {n}", ours, "mbrs DecoderAggregateMBR comet", mbrs["comet_aggregate"],
                         ours[0]["text"]))
    rows += minilm_rows(by_case["N=16"], texts, work, env, quick)
    rows += memory_rows(systems, sources_all, estimator, quick)
    notes.append(f"CPU, {THREADS} torch thread(s) each side, model loading excluded; CPU seconds include child "
                 "processes. COMET checkpoint: random weights, unbabel-comet's own classes (tests/comet_builder.py, "
                 "tests/mbr_oracles.py's ESTIMATOR on a 2-layer hidden-64 XLM-R).")
    result = {"metric": "mbr", "rows": rows, "notes": notes}
    if not quick:
        result["quality"] = quality(reference, systems)
        notes.append("quality: " + "; ".join(f"{k}: BLEU {v['bleu']:.2f}, chrF {v['chrf']:.2f}"
                                               for k, v in result["quality"].items()))
    return result


def minilm_rows(case: tuple, texts: list[str], work: Path, env: dict, quick: bool) -> list[dict]:
    """Exact COMET-MBR on a larger encoder (Multilingual-MiniLM-L12-H384's shape: 12 layers, hidden 384) where
    encoding is compute-bound, with two layer mixes: softmax over every layer (the whole encoder runs) and
    wmt22-comet-da's sparsemax (a random draw keeps some layers: ours runs the encoder up to the last one)."""
    from nlgmetrics.embed.cache import get_cache
    from nlgmetrics.learned.comet import load_comet
    from nlgmetrics.mbr import mbr

    sources, groups = case
    n = 5 if quick else 40
    sources, groups = sources[:n], groups[:n]
    encoder = build_encoder(work / "xlmr-minilm", texts[:20000], vocab_size=4000, hidden_size=384,
                            num_hidden_layers=12, num_attention_heads=12, intermediate_size=1536)
    mixes = {"softmax mix of every layer": ESTIMATOR,
             "sparsemax mix (wmt22-comet-da's), random draw": {**ESTIMATOR, "layer_transformation": "sparsemax",
                                                               "layer_norm": False}}
    rows = []
    for k, (label, hparams) in enumerate(mixes.items()):
        folder = work / f"minilm-{k}"
        job = {"models": [{"folder": str(folder), "hparams": {**hparams, "pretrained_model": str(encoder)}, "seed": 2,
                           "exec": COMET_MBR, "mbr": [comet_mbr_run("N=16", sources, groups)]}], "samples": {}}
        anchor = oracle_scores(job, work, timeout=5400, env=env)[str(folder)]["__mbr__N=16"]
        comet = load_comet(str(folder))
        get_cache().clear()
        ours = _timed(lambda: mbr(groups, "comet", sources=sources, model=str(folder)))
        row = _row(f"exact COMET-MBR, MiniLM-size encoder, {label}, N=16 x {n} sources", ours, "comet-mbr (float32)",
                   anchor, ours[0]["text"])
        row["encoder_blocks_run"] = len(comet.encoder.encoder.layer)
        rows.append(row)
    return rows


def memory_rows(systems: dict, sources: list[str], estimator: Path, quick: bool) -> list[dict]:
    """One source with N = 1,024 candidates (64 segments' 16 outputs pooled): time and peak memory of the call."""
    from nlgmetrics.embed.cache import get_cache
    from nlgmetrics.mbr import mbr

    outputs = list(systems.values())
    n = 256 if quick else 1024
    group = [[o[i] for i in range(n // 16) for o in outputs]]
    rows = []
    for label, call in (("chrF", lambda: mbr(group, "chrf")),
                        ("COMET", lambda: mbr(group, "comet", sources=sources[:1], model=str(estimator)))):
        get_cache().clear()
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        tracemalloc.start()
        result, cpu, wall = _timed(call)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        rows.append({"case": f"exact {label}-MBR, one source, N={n} ({n * n:,} pairs)", "ours_s": wall,
                     "ours_cpu_s": cpu, "traced_peak_mb": peak / 2**20,
                     "rss_growth_mb": (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss) / 1024,
                     "selected": result["index"][0]})
    return rows


def quality(reference: list[str], systems: dict) -> dict:
    """Corpus BLEU / chrF of chrF-MBR's and BLEU-MBR's selections, the best and median single system, the oracle."""
    import numpy as np

    from nlgmetrics.lexical.bleu import compute_sacrebleu
    from nlgmetrics.lexical.chrf import compute_chrf
    from nlgmetrics.mbr import mbr, rerank

    outputs = list(systems.values())
    groups = [[o[i] for o in outputs] for i in range(len(reference))]

    def scores(texts: list[str]) -> dict:
        return {"bleu": compute_sacrebleu(texts, reference)["score"], "chrf": compute_chrf(texts, reference)["score"]}

    per_system = {name: scores(o) for name, o in systems.items()}
    out = {}
    for key in ("bleu", "chrf"):
        values = sorted(s[key] for s in per_system.values())
        best = max(per_system, key=lambda name: per_system[name][key])
        out[f"best system by {key} ({best})"] = per_system[best]
        out[f"median system ({key})"] = {key: float(np.median(values))}
    out["chrF-MBR (comet-mbr convention)"] = scores(mbr(groups, "chrf")["text"])
    out["BLEU-MBR (sacrebleu, comet-mbr convention)"] = scores(mbr(groups, "sacrebleu")["text"])
    out["oracle (best sentence chrF vs the reference)"] = scores(rerank(groups, "chrf", references=reference)["text"])
    medians = {key: float(np.median([s[key] for s in per_system.values()])) for key in ("bleu", "chrf")}
    out["median system"] = medians
    return {k: v for k, v in out.items() if not k.startswith("median system (")}


def markdown(result: dict) -> str:
    """The rows (speed and memory) and the quality figure as markdown tables."""
    lines = ["| case | anchor | ours (CPU s) | anchor (CPU s) | speed-up (CPU) | same selection |", "|---|---|---|---|---|---|"]
    for row in result["rows"]:
        if "anchor" in row:
            lines.append(f"| {row['case']} | {row['anchor']} | {row['ours_cpu_s']:.3f} | {row['anchor_cpu_s']:.3f} | "
                         f"{row['speedup_cpu']:.2f}x | {'yes' if row['same_selection'] else 'no'} |")
    lines += ["", "| memory case | seconds (CPU) | traced peak (MiB) | peak RSS growth (MiB) |", "|---|---|---|---|"]
    for row in result["rows"]:
        if "traced_peak_mb" in row:
            lines.append(f"| {row['case']} | {row['ours_cpu_s']:.2f} | {row['traced_peak_mb']:.1f} | "
                         f"{row['rss_growth_mb']:.0f} |")
    if "quality" in result:
        lines += ["", "| selection (all 3,004 segments, 16 candidates each) | BLEU | chrF |", "|---|---|---|"]
        for name, values in result["quality"].items():
            lines.append(f"| {name} | {values['bleu']:.2f} | {values['chrf']:.2f} |")
    return "\n".join(lines + ["", *[f"- {note}" for note in result["notes"]]]) + "\n"


if __name__ == "__main__":
    import argparse
    import json

    from benchmarks.common import DEFAULT_DATA

    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--write", action="store_true", help="also write benchmarks/results/mbr.json and mbr.md")
    args = parser.parse_args()
    measured = run(args.data, args.quick)
    print(json.dumps(measured, indent=1))
    if args.write:
        results = Path(__file__).resolve().parent / "results"
        (results / "mbr.json").write_text(json.dumps(measured, indent=1) + "\n", encoding="utf-8")
        (results / "mbr.md").write_text(markdown(measured), encoding="utf-8")
