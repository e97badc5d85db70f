"""Seeded bootstrap resampling shared by the corpus metrics (BLEU, ROUGE, NIST).

The resampling matches sacrebleu's: ``numpy.random.default_rng(seed).choice(n, size=(n_samples, n))`` draws all
resamples at once, so the same seed gives the same intervals as ``sacrebleu`` (whose default seed is 12345).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

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
    score_fn: Callable[[np.ndarray], float],
    n_samples: int,
    seed: int | None = DEFAULT_SEED,
    chunk: int = 64,
) -> list[float]:
    """Score of each bootstrap resample of a corpus metric whose statistics add up over segments.

    ``segment_stats`` is (n_segments, n_stats); ``score_fn`` maps summed statistics to a score. Resamples are summed
    in chunks so memory stays at ``chunk * n_segments * n_stats`` values.
    """
    idxs = bootstrap_indices(len(segment_stats), n_samples, seed)
    scores: list[float] = []
    for start in range(0, n_samples, chunk):
        sums = segment_stats[idxs[start : start + chunk]].sum(axis=1)
        scores.extend(score_fn(row) for row in sums)
    return scores


def sacrebleu_interval(scores: Sequence[float]) -> dict[str, float]:
    """Mean and 95% interval of bootstrap scores as sacrebleu reports them.

    low/high are the 2.5th and 97.5th percentile order statistics (index n//40 and n-n//40-1 of the sorted scores);
    ``ci`` is half their distance (sacrebleu's "mu ± ci").
    """
    ordered = np.sort(np.asarray(scores))  # float32 scores stay float32 (sacrebleu's chrF resamples), as sacrebleu
    lower_idx = len(ordered) // 40
    low, high = ordered[lower_idx], ordered[len(ordered) - lower_idx - 1]
    return {"mean": float(ordered.mean()), "ci": float(0.5 * (high - low)), "low": float(low), "high": float(high)}



def bootstrap_mean_interval(scores: Sequence[float], n_samples: int, seed: int | None = DEFAULT_SEED) -> dict[str, float]:
    """Seeded 95% interval of the mean of per-example ``scores``: the means of ``n_samples`` resamples
    (:func:`bootstrap_indices`), summarised by :func:`sacrebleu_interval` (``mean``, ``ci``, ``low``, ``high``)."""
    values = np.asarray(scores, dtype=np.float64)
    idxs = bootstrap_indices(len(values), n_samples, seed)
    return sacrebleu_interval(values[idxs].mean(axis=1))
