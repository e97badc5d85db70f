"""What every ``metrics/<name>/<name>.py`` evaluate module shares: the input schema, input validation and the call
into the core.

Modules subclass :class:`NLGMetric` through this module (``evaluate_support.NLGMetric``, not a ``from`` import:
evaluate takes the first ``EvaluationModule`` subclass in the script's namespace as the metric class).
"""

from __future__ import annotations

from typing import Any

import datasets
import evaluate

from nlgmetrics.inputs import check_pairs


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


class NLGMetric(evaluate.Metric):
    """Base of the nlgmetrics evaluate modules.

    Inputs are checked with nlgmetrics' rules (:mod:`nlgmetrics.inputs`) before evaluate stores them, so bad input
    gets the same named ``TypeError``/``ValueError`` as the core (not an error from inside evaluate or pyarrow), and
    references are always stored as a list per prediction, so string and list references can be mixed and evaluate's
    feature-format choice never depends on the first batch. ``metric_name`` is the registry name.
    """

    metric_name: str = ""

    def add_batch(self, *, predictions=None, references=None, **kwargs):
        """Add a batch of predictions and references (checked by nlgmetrics.inputs)."""
        predictions, references = check_pairs(predictions, references, allow_empty=True)
        return super().add_batch(predictions=predictions, references=references, **kwargs)

    def add(self, *, prediction=None, reference=None, **kwargs):
        """Add one prediction and its reference(s) (checked by nlgmetrics.inputs)."""
        (prediction,), (reference,) = check_pairs([prediction], [reference])
        return super().add(prediction=prediction, reference=reference, **kwargs)

    def compute(self, *, predictions=None, references=None, **kwargs):
        """Compute the metric on what was added and/or the given predictions and references."""
        if predictions is not None or references is not None:
            predictions, references = check_pairs(predictions, references)
        return super().compute(predictions=predictions, references=references, **kwargs)

    def _compute(self, predictions, references, **options):
        return compute_metric(self.metric_name, predictions, references, **options)
