"""Seeded bootstrap resampling shared by the corpus metrics (BLEU, ROUGE, NIST).

The resampling matches sacrebleu's: ``numpy.random.default_rng(seed).choice(n, size=(n_samples, n))`` draws all
resamples at once, so the same seed gives the same intervals as ``sacrebleu`` (whose default seed is 12345).
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

DEFAULT_SEED = 12345


def bootstrap_indices(n_items: int, n_samples: int, seed: int | None = DEFAULT_SEED) -> np.ndarray:
    """Indices of ``n_samples`` resamples (with replacement) of ``n_items`` items: shape (n_samples, n_items)."""
    if isinstance(n_samples, bool) or not isinstance(n_samples, (int, np.integer)) or n_samples < 2:
        raise ValueError(f"n_bootstrap must be an integer of at least 2 to estimate an interval, got {n_samples!r}.")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0):
        raise ValueError(f"seed must be a non-negative integer (sacrebleu's default: 12345) or None, got {seed!r}.")
    rng = np.random.default_rng(seed)
    return rng.choice(n_items, size=(n_samples, n_items), replace=True)


def bootstrap_corpus_scores(
    segment_stats: np.ndarray,
    score_fn: Callable[[np.ndarray], Any],
    n_samples: int,
    seed: int | None = DEFAULT_SEED,
    chunk: int = 64,
    float32: bool = False,
) -> list:
    """Score of each bootstrap resample of a corpus metric whose statistics add up over segments.

    ``segment_stats`` is (n_segments, n_stats); ``score_fn`` maps summed statistics to a score. Resamples are summed
    in chunks so memory stays at ``chunk * n_segments * n_stats`` values. ``float32``: sacrebleu's arithmetic
    (``corpus_score(n_bootstrap=...)``, and :mod:`nlgmetrics.comparison`'s): the statistics are rounded to float32,
    summed exactly, and the float32 sums are scored (BLEU's precisions, chrF and TER in float32), so BLEU, chrF and
    TER intervals are sacrebleu's exactly.
    """
    idxs = bootstrap_indices(len(segment_stats), n_samples, seed)
    values = np.asarray(segment_stats, dtype=np.float32 if float32 else None)
    scores: list = []
    for start in range(0, n_samples, chunk):
        sums = values[idxs[start : start + chunk]].sum(axis=1, dtype=np.float64)  # exact for float32 counts
        scores.extend(score_fn(row) for row in (sums.astype(np.float32) if float32 else sums))
    return scores


def sacrebleu_interval(scores: Sequence[Any], single_system: bool = False) -> dict[str, float]:
    """Mean and 95% interval of bootstrap scores as sacrebleu reports them.

    low/high are the 2.5th and 97.5th percentile order statistics (index n//40 and n-n//40-1 of the sorted scores);
    ``ci`` is half their distance (sacrebleu's "mu ± ci"). The mean: sacrebleu's single-system interval
    (``Score.estimate_ci``, ``single_system=True``) takes ``statistics.mean`` (exact, in the scores' own type); its
    paired tests (``significance.estimate_ci``) numpy's mean.
    """
    ordered = np.sort(np.asarray(scores))  # float32 scores stay float32 (sacrebleu's chrF and TER resamples)
    lower_idx = len(ordered) // 40
    low, high = ordered[lower_idx], ordered[len(ordered) - lower_idx - 1]
    mean = statistics.mean(list(ordered)) if single_system else ordered.mean()
    return {"mean": float(mean), "ci": float(0.5 * (high - low)), "low": float(low), "high": float(high)}

