"""COMET vs comet-score (unbabel-comet 2.2.7, in the oracle venv) on the same checkpoint and WMT17 en-de, CPU.

No published weights are available offline, and random weights of a published architecture run exactly as fast, so
the checkpoints are built as the parity tests build them (tests/comet_builder.py: a sentencepiece model trained on
this WMT17 text, unbabel-comet's own model class, Unbabel's on-disk layout), in three sizes:

- ``large``: the same estimator on xlm-roberta-large's shape (24 layers, hidden 1024, 16 heads, FFN 4096), the encoder
  of wmt22-comet-da itself and the largest this machine holds in reasonable time; 16 segments per system, float32 only
  (comet-score's half precision on CPU would take hours);
- ``minilm-size``: a wmt22-comet-da estimator (sparsemax mix, avg pooling, FFN 3072-1024) on an XLM-R encoder of
  Multilingual-MiniLM-L12-H384's shape (12 layers, hidden 384, 12 heads, FFN 1536), the encoder size of
  eamt22-cometinho-da;
- ``small``: the same on a 3-layer, hidden-64 encoder (the parity tests' size: overheads dominate).

Cases: 16 systems (each scored against the same sources and references) and 1 system, ``N`` segments each. The anchor
is comet-score's own code path, timed inside the oracle venv after loading (``load_from_checkpoint``, ``eval()``,
``half()`` as comet-score always calls it, its sentence-embedding LRU cache on, one ``predict`` per system); a
float32 variant (the same without ``half()``) is reported too, since half precision on CPU is comet-score's
choice, not a need. Ours: ``compute_comet`` per system after the model is loaded, from an empty embedding cache.
Wall-clock and process CPU seconds are both reported (CPU seconds are steadier on a shared machine).
``max_abs_diff`` is against the float32 anchor. Both use 1 torch thread (``NLGMETRICS_BENCH_THREADS=2`` for two),
batch size 16 (comet-score's default).

One thread by default, as bench_bleurt and bench_metricx: on this shared 2-core machine, with 2 threads a busy core
turns every kernel call into a wait for a scheduler slice (CPU seconds grow too, spinning), which swamps the
comparison; with 2 threads, run it alone.

Each size runs with two layer mixes (:data:`MIXES`): one that weights every layer (the whole encoder runs: the
fair case for one system) and the random draw (a sparse mix: the encoder is cut above its last weighted layer);
each row names the layers its mix reads. The anchor's LRU cache hits and misses are counted per row.

Run: ``python -m benchmarks.bench_comet [--data ../shared/data] [--quick]`` (default: 16 segments on the large
model, 48 on the MiniLM-size one and 100 on the small one; quick: the MiniLM-size one, both mixes).
"""

from __future__ import annotations

import html
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import torch  # noqa: E402

from benchmarks.common import load_wmt17_ende, main, read_lines  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from comet_builder import build_encoder, oracle_scores  # noqa: E402

BATCH = 16
THREADS = int(os.environ.get("NLGMETRICS_BENCH_THREADS", "1"))
SIZES = {
    "large": dict(hidden_size=1024, num_hidden_layers=24, num_attention_heads=16, intermediate_size=4096),
    "minilm-size": dict(hidden_size=384, num_hidden_layers=12, num_attention_heads=12, intermediate_size=1536),
    "small": dict(hidden_size=64, num_hidden_layers=3, num_attention_heads=4, intermediate_size=128),
}
ESTIMATOR = {
    "class_identifier": "regression_metric", "encoder_model": "XLM-RoBERTa", "hidden_sizes": [3072, 1024],
    "layer": "mix", "layer_transformation": "sparsemax", "layer_norm": False, "pool": "avg", "dropout": 0.1,
    "activations": "Tanh", "final_activation": None,
}


def _sources(data: Path) -> list[str]:
    """newstest2017's English side (the de-en reference: the same 3,004 segments), HTML-unescaped."""
    return [html.unescape(line) for line in read_lines(Path(data) / "wmt17-da" / "newstest2017-deen-ref.en")]


def _ours(folder: Path, sources, reference, systems: dict) -> tuple[float, dict]:
    from nlgmetrics.embed.cache import get_cache
    from nlgmetrics.learned.comet import compute_comet, load_comet

    load_comet(str(folder))  # loaded once, as the anchor's timing starts after loading
    get_cache().clear()
    start, cpu = time.perf_counter(), time.process_time()
    scores = {name: compute_comet(outputs, reference, sources=sources, model=str(folder),
                                  batch_size=BATCH)["scores"] for name, outputs in systems.items()}
    return time.perf_counter() - start, time.process_time() - cpu, scores


#: the layer mix of the benchmark checkpoint: its layerwise-attention scalars. "every layer": all equal, so sparsemax
#: gives every hidden state (embeddings + all layers) the same weight and the whole encoder runs, as with a softmax
#: mix; "random draw": N(0, 1) scalars (seed 0), whose sparsemax keeps a few layers only, so the encoder is cut above
#: the last one (the layers read are reported per row).
MIXES = {"every layer": "zeros", "random draw": None}


def _mix_read(folder: Path) -> str:
    from nlgmetrics.learned.comet import load_comet

    weights = load_comet(str(folder)).mix.weights()
    read = [int(i) for i in torch.nonzero(weights).view(-1)]
    blocks = len(load_comet(str(folder)).encoder.encoder.layer)
    return (f"mix weights {len(read)} of {len(weights)} hidden states (layers {', '.join(map(str, read))}; "
            f"{blocks} encoder blocks run)")


def run(data: Path, quick: bool, threads: int = THREADS, plans: list | None = None,
        cases: tuple[str, ...] = ("16 systems", "1 system")) -> dict:
    """The benchmark's rows; its checkpoints (~270 MB) live in a temporary folder removed at the end."""
    with tempfile.TemporaryDirectory(prefix="bench-comet-") as work:
        return _run(data, quick, threads, plans, cases, Path(work))


def _run(data: Path, quick: bool, threads: int, plans: list | None, cases: tuple[str, ...], work: Path) -> dict:
    torch.set_num_threads(threads)
    reference, all_systems = load_wmt17_ende(data)
    sources = _sources(data)
    names = list(all_systems)
    texts = sources + reference + [line for name in names[:4] for line in all_systems[name]]
    plans = plans or ([("minilm-size", 48, "every layer"), ("minilm-size", 48, "random draw")] if quick else
                      [(size, n, mix) for size, n in (("large", 16), ("minilm-size", 48), ("small", 100))
                       for mix in MIXES])
    rows, notes = [], []
    for size, n, mix in plans:
        encoder = work / f"xlmr-{size}"
        if not encoder.exists():
            build_encoder(encoder, texts, vocab_size=8000, **SIZES[size])
        folder = work / f"comet-{size}-{mix.replace(' ', '-')}"
        layers = SIZES[size]["num_hidden_layers"] + 1
        fill = ({f"layerwise_attention.scalar_parameters.{i}": [0.0] for i in range(layers)}
                if MIXES[mix] == "zeros" else {})
        for label, chosen in (("16 systems", names), ("1 system", names[:1])):
            if label not in cases:
                continue
            samples = {name: [{"src": s, "mt": m, "ref": r} for s, m, r in
                              zip(sources[:n], all_systems[name][:n], reference[:n])] for name in chosen}
            job = {"models": [{"folder": str(folder), "hparams": {**ESTIMATOR, "pretrained_model": str(encoder)},
                               "fill": fill}],
                   "samples": samples, "batch_size": BATCH,
                   "time": [{"half": False}] if size == "large" else [{"half": False}, {"half": True}]}
            anchor = oracle_scores(job, work, timeout=3000,
                                   env={"ORACLE_THREADS": str(threads), "OMP_NUM_THREADS": str(threads)})[str(folder)]
            systems = {name: all_systems[name][:n] for name in chosen}
            ours_s, ours_cpu, ours = _ours(folder, sources[:n], reference[:n], systems)
            diff = max(abs(a - b) for name in chosen for a, b in zip(ours[name], anchor["__scores_float32__"][name]))
            for variant in ("half", "float32") if size != "large" else ("float32",):
                rows.append({
                    "case": f"{size}, {label} x {n} segments", "mix": _mix_read(folder), "ours_s": ours_s,
                    "anchor": f"comet-score path ({'half(), as comet-score' if variant == 'half' else 'float32'})",
                    "anchor_s": anchor[f"__seconds_{variant}__"],
                    "speedup": anchor[f"__seconds_{variant}__"] / ours_s,
                    "ours_cpu_s": ours_cpu, "anchor_cpu_s": anchor[f"__cpu_seconds_{variant}__"],
                    "speedup_cpu": anchor[f"__cpu_seconds_{variant}__"] / ours_cpu,
                    "anchor_cache_hits": anchor[f"__cache_{variant}__"]["hits"],
                    "anchor_cache_misses": anchor[f"__cache_{variant}__"]["misses"],
                    "max_abs_diff": diff if variant == "float32" else None,
                })
    notes.append("checkpoints: random weights, built by unbabel-comet's own classes (tests/comet_builder.py); "
                 "sizes: " + "; ".join(f"{k}: {v}" for k, v in SIZES.items()) + "; mixes: " + "; ".join(MIXES))
    hits = sum(row["anchor_cache_hits"] for row in rows)
    notes.append(f"CPU, {threads} torch thread(s) each side, batch size {BATCH}, load time excluded on both sides; "
                 "ours from an empty embedding cache. The anchor's sentence-embedding LRU cache (comet-score's "
                 f"set_embedding_cache) was measured: {hits} hits over all rows (anchor_cache_hits per row). Its key "
                 "is a whole padded batch (the tensor's repr), so it can hit only when a batch of sources or "
                 "references recurs exactly.")
    return {"metric": "comet", "rows": rows, "notes": notes}


if __name__ == "__main__":
    main(run)
