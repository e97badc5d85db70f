"""Validation and normalisation of (predictions, references) shared by every metric.

One place decides what input is acceptable, so every metric, the evaluate modules and the CLI fail the same way:
a ``TypeError`` or ``ValueError`` that names the problem and the fix.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Union

References = Sequence[Union[str, Sequence[str]]]


def _describe(value: object) -> str:
    return f"{type(value).__name__} {value!r:.60}"


def check_predictions(predictions: object, name: str = "predictions") -> list[str]:
    """Return ``predictions`` as a list of str, or raise ``TypeError`` naming the first bad item."""
    if isinstance(predictions, (str, bytes)) or not isinstance(predictions, Sequence):
        raise TypeError(
            f"{name} must be a list of strings, one per example; got {_describe(predictions)}. "
            f"Wrap a single text in a list: [text]."
        )
    out = list(predictions)
    for i, text in enumerate(out):
        if not isinstance(text, str):
            raise TypeError(
                f"{name}[{i}] must be a string, got {_describe(text)}. "
                f"Replace missing outputs with an empty string '' (it gets the metric's defined empty-text score)."
            )
    return out


def check_references(references: object, n_predictions: int | None = None) -> list[list[str]]:
    """Return references as one list of strings per example.

    Each item may be a string (one reference) or a non-empty list of strings (any count, varying per example).
    """
    if isinstance(references, (str, bytes)) or not isinstance(references, Sequence):
        raise TypeError(
            "references must be a list with one item per prediction (a string, or a list of strings); "
            f"got {_describe(references)}."
        )
    out: list[list[str]] = []
    for i, item in enumerate(references):
        if isinstance(item, str):
            out.append([item])
            continue
        if isinstance(item, bytes) or not isinstance(item, Sequence):
            raise TypeError(
                f"references[{i}] must be a string or a list of strings, got {_describe(item)}."
            )
        refs = list(item)
        if not refs:
            raise ValueError(
                f"references[{i}] is an empty list: every prediction needs at least one reference. "
                "Drop the example, or pass [''] to score it against an empty reference."
            )
        for j, ref in enumerate(refs):
            if not isinstance(ref, str):
                raise TypeError(f"references[{i}][{j}] must be a string, got {_describe(ref)}.")
        out.append(refs)
    if n_predictions is not None and len(out) != n_predictions:
        raise ValueError(
            f"got {n_predictions} predictions but {len(out)} references: pass exactly one reference item "
            "(a string or a list of strings) per prediction."
        )
    return out


def check_pairs(
    predictions: object, references: object, allow_empty: bool = False
) -> tuple[list[str], list[list[str]]]:
    """Validate a prediction/reference pairing; references come back as a list of lists.

    Raises ``ValueError`` for zero examples unless ``allow_empty`` (a metric then returns its documented empty
    result).
    """
    preds = check_predictions(predictions)
    refs = check_references(references, len(preds))
    if not preds and not allow_empty:
        raise ValueError("no examples to score: predictions and references are empty lists.")
    return preds, refs
