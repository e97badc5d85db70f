"""What every ``metrics/<name>/<name>.py`` evaluate module shares: the input schema and the call into the core."""

from __future__ import annotations

from typing import Any

import datasets


def text_pair_features() -> list[datasets.Features]:
    """Predictions are strings; references are a list of strings per prediction (any count) or one string."""
    return [
        datasets.Features(
            {
                "predictions": datasets.Value("string", id="sequence"),
                "references": datasets.Sequence(datasets.Value("string", id="sequence"), id="references"),
            }
        ),
        datasets.Features(
            {
                "predictions": datasets.Value("string", id="sequence"),
                "references": datasets.Value("string", id="sequence"),
            }
        ),
    ]


def compute_metric(name: str, predictions: Any, references: Any, **options: Any) -> dict:
    """Run the core metric ``name`` (see :mod:`nlgmetrics.registry`) on what evaluate gathered."""
    from nlgmetrics.registry import get_metric

    return get_metric(name)(predictions, references, **options)
