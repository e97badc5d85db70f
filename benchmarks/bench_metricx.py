"""MetricX-24 vs google-research/metricx's own code on the same checkpoint, WMT17 en-de, CPU, in one run.

Needs a local checkout of github.com/google-research/metricx (``--metricx PATH``; it cannot be installed from PyPI
and is not part of nlgmetrics). The checkpoint has google/mt5-small's architecture (8+8 layers, d_model 512, the
250,112-row vocabulary; MetricX-24 itself ships mT5 large/xl/xxl, too large for this 2-core machine) with seeded random
weights and a test tokenizer (tests/learned_checkpoints.py build_metricx), in MetricX's layout. Inputs: ``N``
reference-based examples (WMT17 en-de reference and uedin-nmt output, English WMT17 sentences as sources).

- anchor: metricx24/predict.py's own steps in a venv with transformers 4.57.6 (``get_dataset`` with
  ``max_input_length=1536``, ``MT5ForRegression``, ``Trainer.predict`` with batch size 1 as its README runs it),
  timed around ``Trainer.predict`` only.
- ours: ``MetricXScorer.score`` (length-sorted padded batches of 8, one LM-head row).

One torch thread each side (``--threads``); wall and process CPU seconds, best of ``repeat``; model loading excluded.
Run: ``python -m benchmarks.bench_metricx --metricx PATH [--data ../shared/data] [--pairs N] [--threads T]``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import torch  # noqa: E402

from benchmarks.common import DEFAULT_DATA, load_wmt17_da, load_wmt17_ende  # noqa: E402
from benchmarks.metricx_oracle import REQUIREMENTS  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from learned_checkpoints import MT5_SMALL, build_metricx  # noqa: E402
from oracle_venv import oracle_python  # noqa: E402

ANCHOR = r"""
import json, sys, time
import torch, transformers
from metricx24 import models, predict
folder, data, out_dir, repeat, threads = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
torch.set_num_threads(threads)
tokenizer = transformers.AutoTokenizer.from_pretrained(folder)
model = models.MT5ForRegression.from_pretrained(folder, torch_dtype="auto").eval()
ds = predict.get_dataset(data, tokenizer, 1536, torch.device("cpu"), False)
args = transformers.TrainingArguments(output_dir=out_dir, per_device_eval_batch_size=1, dataloader_pin_memory=False,
                                      report_to=[], disable_tqdm=True)
trainer = transformers.Trainer(model=model, args=args)
best = best_cpu = float("inf")
for _ in range(repeat):
    start, cpu = time.perf_counter(), time.process_time()
    predictions, _, _ = trainer.predict(test_dataset=ds["test"])
    best, best_cpu = min(best, time.perf_counter() - start), min(best_cpu, time.process_time() - cpu)
print(json.dumps({"seconds": best, "cpu_seconds": best_cpu, "scores": [float(p) for p in predictions]}))
"""


def run(data: Path, metricx: Path, pairs: int = 100, repeat: int = 2, threads: int = 1) -> dict:
    from nlgmetrics.learned.metricx import MetricXScorer

    torch.set_num_threads(threads)
    reference, systems = load_wmt17_ende(data)
    english, _ = load_wmt17_da(data, "de-en")
    refs, hyps, srcs = reference[:pairs], systems["uedin-nmt.4722"][:pairs], english[:pairs]
    with tempfile.TemporaryDirectory() as tmp:
        folder = build_metricx(Path(tmp) / "ckpt", seed=0, sizes=MT5_SMALL)
        data_file = Path(tmp) / "in.jsonl"
        data_file.write_text("".join(json.dumps({"source": s, "hypothesis": h, "reference": r}) + "\n"
                                     for s, h, r in zip(srcs, hyps, refs)))
        env = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1",
               "OMP_NUM_THREADS": str(threads),
               "PATH": "/usr/bin:/bin", "HOME": tmp, "CUDA_VISIBLE_DEVICES": "", "TOKENIZERS_PARALLELISM": "false"}
        done = subprocess.run([str(oracle_python(REQUIREMENTS)), "-c", ANCHOR, str(folder), str(data_file), tmp,
                               str(repeat), str(threads)], cwd=metricx, env=env, capture_output=True, text=True, check=True)
        anchor = json.loads(done.stdout.strip().splitlines()[-1])
        scorer = MetricXScorer(str(folder), device="cpu")
        best = best_cpu = float("inf")
        for _ in range(repeat):
            start, cpu = time.perf_counter(), time.process_time()
            ours = scorer.score(hyps, refs, srcs)
            best, best_cpu = min(best, time.perf_counter() - start), min(best_cpu, time.process_time() - cpu)
    return {
        "metric": "metricx",
        "rows": [{"case": f"{pairs} WMT17 en-de examples (ref-based, with sources), mT5-small architecture, random "
                          "weights", "ours_s": round(best, 3), "anchor": "metricx24 predict.py (batch 1)",
                  "anchor_s": round(anchor["seconds"], 3), "speedup": round(anchor["seconds"] / best, 2),
                  "ours_cpu_s": round(best_cpu, 3), "anchor_cpu_s": round(anchor["cpu_seconds"], 3),
                  "cpu_speedup": round(anchor["cpu_seconds"] / best_cpu, 2),
                  "max_abs_diff": max(abs(a - b) for a, b in zip(ours, anchor["scores"]))}],
        "notes": [f"CPU, {threads} torch thread(s) each side; model load excluded; best of {repeat} runs"],
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--metricx", type=Path, required=True)
    parser.add_argument("--pairs", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    print(json.dumps(run(args.data, args.metricx, args.pairs, args.repeat, args.threads), indent=1))
