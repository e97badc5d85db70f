"""Seeded bootstrap resampling shared by the corpus metrics (BLEU, ROUGE, NIST).

The resampling matches sacrebleu's: ``numpy.random.default_rng(seed).choice(n, size=(n_samples, n))`` draws all
resamples at once, so the same seed gives the same intervals as ``sacrebleu`` (whose default seed is 12345).
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from nlgmetrics.options import check_int

DEFAULT_SEED = 12345
#: the most bootstrap resamples or randomization trials one call draws (sacrebleu's defaults: 1000 and 10000): the
#: work and the per-resample scores grow with it.
MAX_RESAMPLES = 100_000
#: random draws held at once (resample indices or swap flags): memory stays bounded whatever the corpus size.
CHUNK_ELEMENTS = 2**21


def check_resamples(name: str, value: object) -> int:
    """A resample or trial count: an integer in [2, MAX_RESAMPLES] (a one-line ``ValueError`` otherwise)."""
    return check_int(name, value, 2, MAX_RESAMPLES, "at least 2 to estimate an interval; sacrebleu: 1000")


def chunk_rows(n_items: int) -> int:
    """Resamples per chunk for ``n_items`` items: about :data:`CHUNK_ELEMENTS` draws, a multiple of 32 rows, so
    numpy's buffered boolean draws split into such chunks give the same stream as one draw of all of them."""
    return max(32, CHUNK_ELEMENTS // max(n_items, 1) // 32 * 32)


def draw_chunks(rng: np.random.Generator, n_items: int, n_rows: int, swaps: bool = False) -> Iterator[np.ndarray]:
    """``rng.choice(n_items, size=(n_rows, n_items))`` (or, with ``swaps``, ``rng.integers(2, size=..., dtype=bool)``)
    drawn :func:`chunk_rows` rows at a time: the same numbers, and the same generator state afterwards, as one draw."""
    rows = chunk_rows(n_items)
    for start in range(0, n_rows, rows):
        size = (min(rows, n_rows - start), n_items)
        yield rng.integers(2, size=size, dtype=bool) if swaps else rng.choice(n_items, size=size, replace=True)


def bootstrap_indices(n_items: int, n_samples: int, seed: int | None = DEFAULT_SEED) -> np.ndarray:
    """Indices of ``n_samples`` resamples (with replacement) of ``n_items`` items: shape (n_samples, n_items)."""
    return np.concatenate(list(bootstrap_index_chunks(n_items, n_samples, seed)))


def bootstrap_index_chunks(n_items: int, n_samples: int, seed: int | None = DEFAULT_SEED) -> Iterator[np.ndarray]:
    """:func:`bootstrap_indices` in chunks of rows (bounded memory), checked first."""
    check_resamples("n_bootstrap", n_samples)
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0):
        raise ValueError(f"seed must be a non-negative integer (sacrebleu's default: 12345) or None, got {seed!r}.")
    return draw_chunks(np.random.default_rng(seed), n_items, n_samples)


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
    values = np.asarray(segment_stats, dtype=np.float32 if float32 else None)
    scores: list = []
    for idxs in bootstrap_index_chunks(len(values), n_samples, seed):
        for start in range(0, len(idxs), chunk):
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



def bootstrap_mean_interval(scores: Sequence[float], n_samples: int, seed: int | None = DEFAULT_SEED) -> dict[str, float]:
    """Seeded 95% interval of the mean of per-example ``scores``: the means of ``n_samples`` resamples
    (:func:`bootstrap_indices`), summarised by :func:`sacrebleu_interval` (``mean``, ``ci``, ``low``, ``high``)."""
    values = np.asarray(scores, dtype=np.float64)
    idxs = bootstrap_indices(len(values), n_samples, seed)
    return sacrebleu_interval(values[idxs].mean(axis=1))
