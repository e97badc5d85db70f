"""CUDA check of the embedding metrics (run on a GPU machine; not part of the test suite).

Scores WMT17 de-en pairs (tests/data) with BERTScore on CPU float32 and on CUDA float32 / float16 / bfloat16, and
reports the largest per-example difference to CPU and the throughput of each; CUDA float32 also runs once with the
padded forward (``encoder.packed = False``) to compare with the padding-free one. MoverScore is included when POT is
importable.

    python -m benchmarks.gpu_check --model PATH [--pairs 600]
"""

from __future__ import annotations

import argparse
import html
import json
import time
from pathlib import Path

import torch

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "wmt17_deen_150.json"


def load_pairs(n: int) -> tuple[list[str], list[str]]:
    data = json.loads(DATA.read_text(encoding="utf-8"))
    refs = [html.unescape(r) for r in data["references"]]
    preds, out_refs = [], []
    for outputs in data["systems"].values():
        preds += [html.unescape(p) for p in outputs]
        out_refs += refs
    return preds[:n], out_refs[:n]


def run_metric(name: str, compute, preds, refs, model: str, key: str, **options) -> dict:
    from nlgmetrics.embed import clear_encoders, get_cache, get_encoder

    rows = {}
    runs = [("cpu", None, True), ("cuda", None, True), ("cuda", None, False), ("cuda", "float16", True),
            ("cuda", "bfloat16", True)]
    for device, dtype, packed in runs:
        clear_encoders()
        get_cache().clear()
        encoder = get_encoder(model, device=device, dtype=dtype)
        encoder.packed = encoder.packed and packed  # only where the load-time check turned it on
        compute(preds[:8], refs[:8], model_type=model, device=device, dtype=dtype, **options)  # load + warm up
        seconds = float("inf")
        for _ in range(3):  # the first full pass also pays CUDA's lazy kernel loading for new shapes
            get_cache().clear()
            if device == "cuda":
                torch.cuda.synchronize()
            start = time.perf_counter()
            result = compute(preds, refs, model_type=model, device=device, dtype=dtype, **options)
            if device == "cuda":
                torch.cuda.synchronize()
            seconds = min(seconds, time.perf_counter() - start)
        label = f"{device}/{dtype or 'float32'}" + ("" if packed else "/padded")
        rows[label] = {"seconds": seconds, "pairs_per_s": len(preds) / seconds, "packed": encoder.packed,
                       "scores": result[key]}
    base = rows["cpu/float32"]["scores"]
    for label, row in rows.items():
        scores = row.pop("scores")
        row["max_abs_diff_vs_cpu"] = max(abs(a - b) for a, b in zip(scores, base))
    return {"metric": name, "pairs": len(preds), "rows": rows}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", required=True)
    parser.add_argument("--pairs", type=int, default=600)
    args = parser.parse_args()
    assert torch.cuda.is_available(), "no CUDA device"
    print(torch.cuda.get_device_name(0), torch.__version__, flush=True)
    preds, refs = load_pairs(args.pairs)
    from nlgmetrics.semantic.bertscore import compute_bertscore

    results = [run_metric("bertscore", compute_bertscore, preds, refs, args.model, "f1", num_layers=6)]
    try:
        import ot  # noqa: F401

        from nlgmetrics.semantic.moverscore import compute_moverscore

        results.append(run_metric("moverscore", compute_moverscore, preds, refs, args.model, "scores"))
    except ImportError as exc:
        print(f"moverscore skipped: {exc}")
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
