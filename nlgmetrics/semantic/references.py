"""Several references per prediction: one place for how their scores are combined (BERTScore and MoverScore).

For an example with references r_1..r_k and per-pair scores s_1..s_k::

    max:      s = max_i s_i                    (bert_score's and MoverScore's choice)
    mean:     s = (1/k) sum_i s_i
    weights:  s = sum_i w_i s_i / sum_i w_i    (w_i >= 0, not all zero; e.g. retrieval scores of passages)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import torch

from nlgmetrics.errors import OptionError

MULTI_REF_MODES = ("max", "mean")


def check_multi_ref(multi_ref: Any) -> str:
    if multi_ref not in MULTI_REF_MODES:
        raise OptionError(f"multi_ref must be one of {MULTI_REF_MODES}, got {multi_ref!r}.")
    return multi_ref


def check_ref_weights(ref_weights: Any, sizes: Sequence[int]) -> list[list[float]] | None:
    """``ref_weights`` as one list of floats per example (a bare number is accepted for a single reference).

    Raises ValueError naming the example when a list has the wrong length or a weight is negative, not finite, or
    all are zero.
    """
    if ref_weights is None:
        return None
    if isinstance(ref_weights, (str, bytes)) or not isinstance(ref_weights, Sequence) or len(ref_weights) != len(sizes):
        raise OptionError(
            f"ref_weights needs one list of weights per example ({len(sizes)} examples), got {ref_weights!r:.80}."
        )
    out = []
    for i, (w, size) in enumerate(zip(ref_weights, sizes)):
        if isinstance(w, (int, float)) and not isinstance(w, bool) and size == 1:
            w = [w]
        ok = isinstance(w, Sequence) and not isinstance(w, (str, bytes)) and len(w) == size
        values: list[float] = []
        if ok:
            try:
                values = [float(x) for x in w if not isinstance(x, bool)]
            except (TypeError, ValueError):
                values = []
            ok = len(values) == size and all(math.isfinite(x) and x >= 0 for x in values) and sum(values) > 0
        if not ok:
            raise OptionError(
                f"ref_weights[{i}] must be {size} finite, non-negative numbers, not all zero (one per reference); "
                f"got {w!r:.80}."
            )
        out.append(values)
    return out


def combine_references(
    flat: torch.Tensor, sizes: Sequence[int], mode: str = "max", weights: Sequence[Sequence[float]] | None = None
) -> torch.Tensor:
    """Per-example values from per-pair rows along the last-but-one axis (pairs of an example are consecutive,
    ``sizes`` of them): max, mean, or the weighted mean with validated ``weights`` (:func:`check_ref_weights`)."""
    if weights is None and all(s == 1 for s in sizes):
        return flat
    rows = []
    start = 0
    for i, size in enumerate(sizes):
        block = flat[..., start : start + size, :]
        if weights is not None:
            w = torch.tensor(weights[i], dtype=flat.dtype, device=flat.device)
            rows.append((block * (w / w.sum())[:, None]).sum(dim=-2))
        elif mode == "max":
            rows.append(block.max(dim=-2).values)
        else:
            rows.append(block.mean(dim=-2))
        start += size
    return torch.stack(rows, dim=-2)
