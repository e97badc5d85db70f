"""``make demo``: score a bundled sample (12 WMT17 de-en segments) with every available metric; print a table.

Run as ``python -m nlgmetrics.demo``. Embedding metrics use the bundled offline encoder.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from nlgmetrics.registry import available_metrics, get_metric
from nlgmetrics.resources import BUNDLED_ENCODER_ID

SAMPLE = Path(__file__).resolve().parent / "data" / "demo_sample.json"

# Per metric: options for the demo, and the result keys shown (in order).
DEMO = {
    "bleu": ({}, ["score"]),
    "nist": ({}, ["nist"]),
    "rouge": ({}, ["rouge1", "rouge2", "rougeL", "rougeLsum"]),
    "meteor": ({}, ["meteor"]),
    "ter": ({}, ["score"]),
    "bertscore": ({"model_type": BUNDLED_ENCODER_ID}, ["precision", "recall", "f1"]),
    "moverscore": ({"model_type": BUNDLED_ENCODER_ID}, ["moverscore"]),
}


def _mean(value):
    if isinstance(value, list):
        return sum(value) / len(value) if value else float("nan")
    return value


def main() -> None:
    sample = json.loads(SAMPLE.read_text(encoding="utf-8"))
    predictions, references = sample["predictions"], sample["references"]
    print(f"nlgmetrics demo: {len(predictions)} segments ({sample['source'].split(';')[0]})\n")
    print(f"{'metric':<12} {'value':<44} {'seconds':>8}")
    print("-" * 66)
    for name in available_metrics():
        options, keys = DEMO[name]
        start = time.perf_counter()
        result = get_metric(name)(predictions, references, **options)
        elapsed = time.perf_counter() - start
        shown = "  ".join(f"{key}={_mean(result[key]):.4f}" for key in keys if key in result)
        print(f"{name:<12} {shown:<44} {elapsed:>8.2f}")


if __name__ == "__main__":
    main()
