"""The MBR reference implementations as oracles of tests/test_mbr.py and benchmarks/bench_mbr.py, each in its own venv
(tests/oracle_venv.py); neither is imported by nlgmetrics.

- comet-mbr (unbabel-comet 2.2.7, ``COMET_ORACLE``): :data:`COMET_MBR` runs inside tests/comet_builder.py's
  ``ORACLE_SCRIPT`` on the loaded estimator checkpoint (a model's ``exec``): comet-mbr's own functions from
  ``comet/cli/mbr.py`` (``build_embeddings``, ``mbr_decoding``, ``rerank_top_k``) and its ``torch.argmax`` per source,
  on the file layout it reads (N consecutive candidates per source). Its command then calls ``model.cuda()`` and
  ``model.half()``, which need a GPU: left out here, so this is comet-mbr's computation in float32 on CPU.
- mbrs 0.1.8 (``MBRS_ORACLE``): :data:`MBRS_SCRIPT` decodes each source with mbrs' ``DecoderMBR`` (exact) or
  ``DecoderAggregateMBR`` (reference aggregation) and its ``chrf``, ``bleu`` or ``comet`` metric, candidates as
  their own pseudo-references. ``serial`` replaces the process pool mbrs' chrF and BLEU score pairs in with a serial
  map (the same calls, the same numbers, without starting processes per source).

Both time themselves when asked (``time``): process CPU seconds including reaped child processes (mbrs' pools) and
wall seconds, model loading excluded.
"""

from __future__ import annotations

import json
from pathlib import Path

#: a wmt22-comet-da-like estimator (regression head on sentence embeddings) and a COMET-Kiwi-like QE model, small
#: (tests/test_mbr.py, benchmarks/bench_mbr.py)
ESTIMATOR = {"class_identifier": "regression_metric", "encoder_model": "XLM-RoBERTa", "hidden_sizes": [32, 16],
             "layer": "mix", "layer_transformation": "softmax", "layer_norm": True, "pool": "avg", "dropout": 0.1,
             "activations": "Tanh", "final_activation": None}
KIWI = {"class_identifier": "unified_metric", "encoder_model": "XLM-RoBERTa", "hidden_sizes": [32, 16],
        "sent_layer": "mix", "layer_transformation": "sparsemax", "layer_norm": False, "word_layer": 2,
        "input_segments": ["mt", "src"], "dropout": 0.1, "activations": "Tanh", "final_activation": "Sigmoid"}

COMET_MBR = r'''
import resource, time
import torch
from comet.cli.mbr import build_embeddings, mbr_decoding, rerank_top_k
from comet.models import load_from_checkpoint

def _cpu():
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime

def _select(sources, translations, n, batch_size):
    # comet-mbr's mbr_command after loading, without model.cuda() / model.half()
    src_embeddings, mt_embeddings = build_embeddings(sources, translations, model, batch_size)
    mt_embeddings = mt_embeddings.reshape(len(sources), n, -1)
    matrix = mbr_decoding(src_embeddings, mt_embeddings, model)
    groups = [translations[i : i + n] for i in range(0, len(translations), n)]
    best = [int(torch.argmax(matrix[i, :])) for i in range(len(groups))]
    return {"index": best, "text": [g[b] for g, b in zip(groups, best)], "expected": matrix.tolist()}

model.eval()
for run in spec["mbr"]:
    sources, translations, n = run["sources"], run["translations"], run["num_samples"]
    start, cpu = time.perf_counter(), _cpu()
    if run.get("qe_checkpoint"):
        qe = load_from_checkpoint(run["qe_checkpoint"])
        translations = rerank_top_k(sources, translations, qe, run["batch_size"], 0, n, run["top_k"])
        n = run["top_k"]
        start, cpu = time.perf_counter(), _cpu()
        out = _select(sources, translations, n, run["batch_size"])
        out["kept_texts"] = [translations[i : i + n] for i in range(0, len(translations), n)]
    else:
        out = _select(sources, translations, n, run["batch_size"])
    out["wall_s"], out["cpu_s"] = time.perf_counter() - start, _cpu() - cpu
    scores["__mbr__" + run["name"]] = out
'''

MBRS_SCRIPT = r'''
import json, os, resource, sys, time, warnings
warnings.filterwarnings("ignore")
import logging
logging.disable(logging.WARNING)
import torch
torch.set_num_threads(int(os.environ.get("ORACLE_THREADS", "1")))
import mbrs.metrics.bleu, mbrs.metrics.chrf, mbrs.metrics.comet
from mbrs.decoders.aggregate_mbr import DecoderAggregateMBR
from mbrs.decoders.mbr import DecoderMBR
from mbrs.metrics.bleu import MetricBLEU
from mbrs.metrics.chrf import MetricChrF

class _Serial:
    """concurrent.futures' executor interface, mapping in this process (mbrs' pools start processes per call)."""
    def __init__(self, *args, initializer=None, initargs=(), **kwargs):
        if initializer is not None:
            initializer(*initargs)
    def __enter__(self):
        return self
    def __exit__(self, *exc):
        return False
    def map(self, fn, *iterables, chunksize=1):
        return map(fn, *iterables)

def _cpu():
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime

job = json.load(open(sys.argv[1]))
mbrs.metrics.comet.download_model = lambda model, *a, **k: model  # a local checkpoint file, as comet's loader reads it
out = {}
for run in job["runs"]:
    pool = mbrs.metrics.chrf.concurrent.futures.ProcessPoolExecutor
    if run.get("serial"):
        mbrs.metrics.chrf.concurrent.futures.ProcessPoolExecutor = _Serial
    try:
        if run["metric"] == "comet":
            from mbrs.metrics.comet import MetricCOMET
            metric = MetricCOMET(MetricCOMET.Config(**run.get("config", {})))
        else:
            cls = {"chrf": MetricChrF, "bleu": MetricBLEU}[run["metric"]]
            metric = cls(cls.Config(**run.get("config", {})))
        decoder_cls = {"mbr": DecoderMBR, "aggregate_mbr": DecoderAggregateMBR}[run["decoder"]]
        decoder = decoder_cls(decoder_cls.Config(), metric)
        sources = job.get("sources") if run["metric"] == "comet" else None
        result = {"index": [], "text": [], "expected": []}
        start, cpu = time.perf_counter(), _cpu()
        for i, group in enumerate(job["groups"][: run.get("limit")]):
            o = decoder.decode(group, group, source=None if sources is None else sources[i], nbest=1)
            result["index"].append(int(o.idx[0]))
            result["text"].append(o.sentence[0])
            result["expected"].append(float(o.score[0]))
        result["wall_s"], result["cpu_s"] = time.perf_counter() - start, _cpu() - cpu
    finally:
        mbrs.metrics.chrf.concurrent.futures.ProcessPoolExecutor = pool
    out[run["name"]] = result
print(json.dumps(out))
'''


def comet_mbr_run(name: str, sources: list[str], groups: list[list[str]], batch_size: int = 32,
                  qe_checkpoint: str | None = None, top_k: int | None = None) -> dict:
    """One comet-mbr run for a model's ``mbr`` list (``groups``: N candidates per source, N fixed)."""
    run = {"name": name, "sources": sources, "translations": [t for g in groups for t in g],
           "num_samples": len(groups[0]), "batch_size": batch_size}
    if qe_checkpoint is not None:
        run.update(qe_checkpoint=qe_checkpoint, top_k=top_k)
    return run


def run_mbrs(groups: list[list[str]], runs: list[dict], workdir: Path, sources: list[str] | None = None,
             env: dict[str, str] | None = None, timeout: int = 1800) -> dict:
    """:data:`MBRS_SCRIPT` on ``groups`` in the mbrs venv: ``{run name: {index, text, expected, cpu_s, wall_s}}``.
    A run: ``{"name", "metric": chrf|bleu|comet, "decoder": mbr|aggregate_mbr, "config": mbrs' metric Config,
    "serial": bool, "limit": sources}``."""
    from oracle_venv import MBRS_ORACLE, run_oracle

    path = Path(workdir) / "mbrs_job.json"
    path.write_text(json.dumps({"groups": groups, "sources": sources, "runs": runs}, ensure_ascii=False),
                    encoding="utf-8")
    return run_oracle(MBRS_SCRIPT, str(path), requirements=MBRS_ORACLE, timeout=timeout, env=env)
