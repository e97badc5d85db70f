"""``make demo``: score a bundled sample (12 WMT17 de-en segments) with every available metric; print a table.

Run as ``python -m nlgmetrics.demo``. Each metric runs with its spec's ``demo_options`` (the embedding metrics on the
bundled offline encoder) and shows its spec's headline scores.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from nlgmetrics._quiet import quiet_third_party
from nlgmetrics.integration.suite import flatten_result
from nlgmetrics.registry import SPECS, get_metric, self_contained_metrics

SAMPLE = Path(__file__).resolve().parent / "data" / "demo_sample.json"


def main() -> None:
    sample = json.loads(SAMPLE.read_text(encoding="utf-8"))
    predictions, references = sample["predictions"], sample["references"]
    print(f"nlgmetrics demo: {len(predictions)} segments ({sample['source'].split(';')[0]})\n")
    rows = []
    for name in self_contained_metrics():
        spec = SPECS[name]
        start = time.perf_counter()
        with quiet_third_party():  # no model-loading bars or messages between the rows
            result = flatten_result(name, get_metric(name)(predictions, references, **spec.demo_options))
        elapsed = time.perf_counter() - start
        rows.append((name, "  ".join(f"{key}={result[key]:.4f}" for key in spec.headline), elapsed))
    width = max(len(shown) for _, shown, _ in rows)
    print(f"{'metric':<12} {'value':<{width}} {'seconds':>8}")
    print("-" * (22 + width))
    for name, shown, elapsed in rows:
        print(f"{name:<12} {shown:<{width}} {elapsed:>8.2f}")


if __name__ == "__main__":
    main()
