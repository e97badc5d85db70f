"""BLEURT vs bleurt-pytorch 0.0.1 on WMT17 en-de, CPU, on the same checkpoint, in one run.

The checkpoint has the published architecture of bleurt-tiny-128/512 (BERT-Tiny: 2 layers, hidden 128, 2 heads,
vocabulary 30,522; ``--config base``: bleurt-base, BERT-Base, 12 layers, hidden 768) with seeded random weights and a
WordPiece tokenizer trained on WMT17 text (tests/learned_checkpoints.py), saved in the layout bleurt-pytorch reads:
random weights of the real shape give real timings. Pairs: ``N`` references of the WMT17 en-de test set against
system uedin-nmt.

- anchor: bleurt-pytorch's documented use (its README) in the oracle venv (tests/oracle_venv.py: transformers
  4.57): ``BleurtTokenizer(refs, cands, padding="longest", truncation=True, max_length=512)`` and
  ``BleurtForSequenceClassification`` on batches of 16 pairs in the data's order, ``torch.no_grad``.
- ours: ``BleurtScorer.score`` (length-sorted batches of 32 pairs, padding-free packed forward).

One torch thread each side (on a loaded 2-core machine, two OpenMP threads per op make wall clock erratic). Both
times exclude model loading; each side is timed (wall and process CPU seconds) best of ``repeat`` in its own process,
one after the other.
Every pair's encoding holds both texts, so nothing can be cached per text across systems (unlike BERTScore).
Run: ``python -m benchmarks.bench_bleurt [--data ../shared/data] [--quick] [--config tiny|base] [--pairs N]``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import torch  # noqa: E402

from benchmarks.common import DEFAULT_DATA, load_wmt17_ende  # noqa: E402

TESTS = Path(__file__).resolve().parent.parent / "tests"
sys.path.insert(0, str(TESTS))
from learned_checkpoints import BLEURT_BASE, BLEURT_TINY, build_bleurt  # noqa: E402
from oracle_venv import run_oracle  # noqa: E402

ANCHOR = r"""
import json, sys, time
import torch
torch.set_num_threads(1)
from bleurt_pytorch import BleurtForSequenceClassification, BleurtTokenizer
folder, data, repeat = sys.argv[1], sys.argv[2], int(sys.argv[3])
pairs = json.load(open(data))
tok = BleurtTokenizer.from_pretrained(folder)
model = BleurtForSequenceClassification.from_pretrained(folder, dtype=torch.float32).eval()
refs, cands = pairs["references"], pairs["candidates"]
best = best_cpu = float("inf")
for _ in range(repeat):
    start, cpu = time.perf_counter(), time.process_time()
    out = []
    with torch.no_grad():
        for b in range(0, len(refs), 16):
            enc = tok(refs[b:b + 16], cands[b:b + 16], padding="longest", truncation=True, max_length=512,
                      return_tensors="pt")
            out.extend(model(**enc).logits.flatten().tolist())
    best, best_cpu = min(best, time.perf_counter() - start), min(best_cpu, time.process_time() - cpu)
print(json.dumps({"seconds": best, "cpu_seconds": best_cpu, "scores": out}))
"""


def run(data: Path, quick: bool, config: str = "tiny", pairs: int | None = None) -> dict:
    from nlgmetrics.learned.bleurt import BleurtScorer

    torch.set_num_threads(1)
    reference, systems = load_wmt17_ende(data)
    n = pairs or (300 if quick else (1000 if config == "tiny" else 200))
    refs, cands = reference[:n], systems["uedin-nmt.4722"][:n]
    repeat = 1 if quick else 2
    with tempfile.TemporaryDirectory() as tmp:
        folder = build_bleurt(Path(tmp) / "ckpt", "bert", sizes=BLEURT_TINY if config == "tiny" else BLEURT_BASE)
        data_file = Path(tmp) / "pairs.json"
        data_file.write_text(json.dumps({"references": refs, "candidates": cands}))
        anchor = run_oracle(ANCHOR, str(folder), str(data_file), str(repeat))
        scorer = BleurtScorer(str(folder), device="cpu")
        best = best_cpu = float("inf")
        for _ in range(repeat):
            start, cpu = time.perf_counter(), time.process_time()
            ours = scorer.score(refs, cands)
            best, best_cpu = min(best, time.perf_counter() - start), min(best_cpu, time.process_time() - cpu)
    diff = max(abs(a - b) for a, b in zip(ours, anchor["scores"]))
    name = "bleurt-tiny (BERT-Tiny, L2 H128)" if config == "tiny" else "bleurt-base (BERT-Base, L12 H768)"
    return {
        "metric": "bleurt",
        "rows": [{"case": f"{n} WMT17 en-de pairs, {name}, random weights", "ours_s": round(best, 3),
                  "anchor": "bleurt-pytorch 0.0.1 (README usage, batches of 16)", "anchor_s": round(anchor["seconds"], 3),
                  "speedup": round(anchor["seconds"] / best, 2), "ours_cpu_s": round(best_cpu, 3),
                  "anchor_cpu_s": round(anchor["cpu_seconds"], 3),
                  "cpu_speedup": round(anchor["cpu_seconds"] / best_cpu, 2), "max_abs_diff": diff,
                  "pairs_per_s": round(n / best, 1)}],
        "notes": [f"CPU, 1 torch thread each side (steadier on a shared machine); model load excluded; best of "
                  f"{repeat} runs; CPU seconds are the steadier figure under load",
                  "no embedding cache across systems: each pair's encoding holds both texts"],
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--config", choices=("tiny", "base"), default="tiny")
    parser.add_argument("--pairs", type=int, default=None)
    args = parser.parse_args()
    print(json.dumps(run(args.data, args.quick, args.config, args.pairs), indent=1))
