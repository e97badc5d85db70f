"""Agreement of metric scores with human judgments: the statistics WMT reports, as mt-metrics-eval computes them.

Scores are ``(n_systems, n_items)`` matrices (an item is a segment, document or summary judged for every system);
a missing human score is ``NaN`` and that cell is left out (``n_missing`` counts them). Segment-level statistics
group the judged cells by ``average_by``: ``"none"`` (one vector of all cells), ``"item"`` (one vector per item,
across systems) or ``"sys"`` (one vector per system, across items); a group's statistic is computed on its own
cells and the groups are averaged (groups with fewer than two cells, or where the statistic is undefined, are left
out). System-level statistics use one ``(n_systems, 1)`` matrix of system scores. With ``g`` the human and ``m``
the metric scores of a group, ``sgn`` the sign, pairs ``i < j``:

- ``pearson``: ``sum (g - mean g)(m - mean m) / (|g - mean g| |m - mean m|)``; ``spearman``: Pearson of the
  average ranks; both undefined when ``g`` or ``m`` is constant.
- ``kendall_b``: ``(C - D) / sqrt((P - T_m)(P - T_g))`` with ``C``/``D`` concordant/discordant pairs, ``P`` all
  pairs, ``T_m``/``T_g`` pairs tied in ``m``/``g``; ``kendall_c``: ``2 (C - D) / (n^2 (k - 1) / k)`` with ``k``
  the smaller number of distinct values. Undefined when either side is all ties (scipy's ``kendalltau``).
- ``kendall_like`` (WMT DARR): over pairs with ``|g_i - g_j| >= threshold`` (25 DA points), concordant when the
  metric orders them as the humans (a metric tie is discordant), ``(C - D) / (C + D)``; groups are weighted by
  their number of such pairs (WMT's micro average).
- ``accuracy``: pairwise accuracy, ``(C + T_both) / P`` (a pair tied in both counts as agreement; at system level
  this is WMT's pairwise accuracy).
- ``acc_eq``: accuracy with tie calibration (acc*_eq, Deutsch et al. 2023): metric pairs closer than ``epsilon``
  count as ties, ``epsilon`` chosen (among 0 and every pair's metric difference) to maximise the average accuracy
  over the groups; the smallest such ``epsilon`` is kept. mt-metrics-eval's exact search (``sample_rate=1``).
- ``pdp``: pairwise-difference Pearson (mt-metrics-eval's ``Pearson(..., pdp=True)``; ``correlation(...,
  pdp=True)``): Pearson over ``(g_j - g_i, m_j - m_i)`` for every ordered pair of judged cells of a group (``i = j``
  included), one pooled vector: ``average_by`` chooses the groups (``item``: the systems of an item, WMT's use;
  ``sys``: the items of a system; ``none``: all cells) and does not average. Equal to ``sum_r n_r C_r / sqrt(sum_r
  n_r SSg_r sum_r n_r SSm_r)`` over groups of ``n_r`` judged cells (``C``, ``SS``: centred cross and square sums),
  computed so in O(cells). A group narrower than 2 (one system per item, one item per system, at system level by
  system) is an error, as there.
- ``spa``: soft pairwise accuracy (WMT24's system-level primary; mt-metrics-eval's ``PairwiseConfidenceError`` as
  ``1 - PCE``), from segment scores: for every pair of systems ``i < j``, the permutation p-value that i beats j
  (:func:`spa_p_values`: 1,000 sign flips of the per-item differences, ``default_rng(4)``, float32 sums as there),
  from the human and from the metric scores; ``spa = 1 - mean_{i<j} |p_human - p_metric|``. It uses the systems
  with a human score, on the items judged for every one of them (mt-metrics-eval drops the missing cells and
  reshapes: an error when systems lack different numbers of items, other items paired when they lack as many in
  different places). Its p-values follow the system order: mt-metrics-eval's is a Python set's (with
  ``PYTHONHASHSEED``); a pair whose permuted sums tie the observed one counts for ``i`` beating ``j`` and for ``j``
  beating ``i``, so another order can move a value by a few thousandths of a pair. ``average_by`` does not apply.

Significance (mt-metrics-eval's ``PermutationSigDiff``, PERM-BOTH of Deutsch et al. 2021): both metrics'
judged scores are z-scored, and in each of ``k`` draws every cell's two scores are swapped with probability 1/2;
``p`` is the share of draws whose difference ``stat(b') - stat(a')`` reaches the observed ``stat(b) - stat(a)``
(early stopping every ``block_size`` draws when ``p < early_min`` or ``p > early_max``). The draws are those of
``numpy.random.RandomState(seed).binomial(1, 0.5, n)`` called once per draw (so a seed gives mt-metrics-eval's
p-value after ``np.random.seed(seed)``); every pair of metrics is tested with the same draws. Significance
clusters are mt-metrics-eval's ``AssignRanks``. Bootstrap intervals resample items with replacement.

The test of ``acc_eq`` follows mt-metrics-eval's ``KendallWithTiesOpt`` branch: both metrics are z-scored over all
cells (those with a metric score) and a flag is drawn for every cell in system order, judged or not. A draw counts
as reaching the observed difference within :data:`TIE_TOLERANCE` (mt-metrics-eval computes both with the same
arithmetic, so draws equal to the observation tie exactly there; here they tie up to rounding), and Pearson on two
cells is exactly +-1 (scipy's value). A draw that ties the observation in exact arithmetic but not in
mt-metrics-eval's floating-point sums (its ``acc_eq`` keeps a running sum) is counted here and not there: one
draw in 100 in one of the oracle's cases (p 0.72 vs 0.71). A constant metric z-scores to zeros where its statistic
is defined (``accuracy``, ``kendall_like``, ``acc_eq``, ``spa``; mt-metrics-eval: NaN).

The test of ``spa`` is mt-metrics-eval's (``CompareMetricsWithPairwiseConfidenceError``: the PERM-BOTH test above
over the judged cells in system order, each draw's two mixtures scored with ``spa``) with its arithmetic: float32
p-values as :func:`spa_p_values` computes them (its matrix products are bitwise those of its per-matrix calls, several
matrices at once), float64 ``1 - mean``, and a draw counts when its difference is ``>=`` the observed one exactly (no
:data:`TIE_TOLERANCE`: SPA values are few and tie often). Same seed, same draws, same p-values (the tests compare
them for equality). mt-metrics-eval has no test of ``pdp`` (its permutation test passes ``pdp`` to scipy's
``pearsonr``, which refuses it): here it is the same PERM-BOTH test over the judged cells in system order, checked
against mt-metrics-eval's ``PermutationSigDiff`` run with its own PDP as the statistic.

Where this differs from mt-metrics-eval, on purpose: an undefined statistic is None with a reason (mt-metrics-eval:
0 or NaN); ``acc_eq`` searches every pair (``sample_rate=1``; exact ties between thresholds go to the smallest);
the permutation test of ``kendall_like`` averages groups as the statistic does (weighted by pairs; mt-metrics-eval's
test takes the plain mean); Williams' test counts the judged cells only. Memory: the draws and the bootstrap
resamples are generated and used in chunks (the same random streams), so memory stays bounded at any ``k``,
``n_resamples`` (both at most 100,000) and number of cells. Cost: pair counts come from all pairs at
once for small groups and from sorting (O(n log^2 n)) for groups over 64 cells, except DARR's and acc_eq's, which
stay O(n^2) per group; the permutation test of ``acc_eq`` recalibrates on every draw, as mt-metrics-eval's. Pearson
without grouping is vectorised over draws and resamples from sums (one matrix product each).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import scipy.stats

STATISTICS = ("pearson", "spearman", "kendall_b", "kendall_c", "kendall_like", "accuracy", "acc_eq", "pdp", "spa")
AVERAGES = ("none", "item", "sys")
DARR_THRESHOLD = 25.0
_CELLS_PER_CHUNK = 4_000_000  # pair differences held at once
_SORTED_FROM = 64  # group size from which pair counts (no tie threshold) come from sorting, row by row
#: soft pairwise accuracy: permutations per system pair and their seed (mt-metrics-eval's
#: ``pce.compute_pairwise_p_values`` defaults, which ``PairwiseConfidenceError`` uses)
SPA_PERMUTATIONS = 1000
SPA_SEED = 4
_SPA_CELLS = 2**22  # float32 null differences (permutations x matrices x systems^2) held at once


@dataclass(frozen=True)
class Correlation:
    """One statistic: ``value`` (None when undefined, with the ``reason``), the number of groups averaged and of
    judged cells used, and for ``acc_eq`` the calibrated tie threshold ``epsilon``."""

    value: float | None
    reason: str | None = None
    groups: int = 0
    cells: int = 0
    epsilon: float | None = None


@dataclass(frozen=True)
class _Layout:
    """The judged cells of a matrix in group order: ``order`` (flat indices into the matrix), the groups of at
    least two cells as {size: (n_groups, size) positions into ``order``}, and their number."""

    order: np.ndarray
    by_size: dict[int, np.ndarray]
    n_groups: int
    group_of: np.ndarray | None = None  # pdp: the group (item, system or 0) of each cell in ``order``
    shape: tuple[int, int] | None = None  # spa: (systems, items) of the complete items, ``order`` system-major


def _check_statistic(statistic: str, average_by: str) -> None:
    if statistic not in STATISTICS:
        raise ValueError(f"unknown statistic {statistic!r}; choose from {', '.join(STATISTICS)}.")
    if average_by not in AVERAGES:
        raise ValueError(f"average_by must be one of {', '.join(AVERAGES)} (mt-metrics-eval's names), "
                         f"got {average_by!r}.")
    if statistic == "spa" and average_by != "none":
        raise ValueError("spa compares every pair of systems over all items (a system-level statistic from "
                         f"segment scores): average_by does not apply; give 'none', not {average_by!r}.")


def as_matrix(scores: object, name: str) -> np.ndarray:
    """Scores as a 2-D float matrix ``(n_systems, n_items)`` (a vector is one system); None becomes NaN."""
    try:
        matrix = np.array(scores, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be numbers (a vector or a systems x items matrix); None marks a missing "
                        "human score.") from None
    if matrix.ndim == 1:
        matrix = matrix[None, :]
    if matrix.ndim != 2:
        raise ValueError(f"{name} must be a vector or a systems x items matrix, got {matrix.ndim} dimensions.")
    return matrix


def _layout(human: np.ndarray, average_by: str) -> _Layout:
    index = np.arange(human.size).reshape(human.shape)
    rows = index.T if average_by == "item" else index.reshape(1, -1) if average_by == "none" else index
    judged = ~np.isnan(human.ravel())[rows]
    sizes = judged.sum(1)
    starts = np.r_[0, np.cumsum(sizes)[:-1]]
    by_size = {int(size): starts[sizes == size][:, None] + np.arange(size) for size in np.unique(sizes) if size >= 2}
    return _Layout(rows[judged], by_size, int((sizes >= 2).sum()))


def _statistic_layout(human: np.ndarray, statistic: str | None, average_by: str) -> _Layout:
    """The cells a statistic uses, in order. ``pdp``: every judged cell in system order, each with its group
    (item, system or one group; at least two cells per group as mt-metrics-eval reshapes them, judged or not).
    ``spa``: the systems with a judged cell, on the items judged for every one of them, in system order. The
    others: :func:`_layout` (grouped by ``average_by``)."""
    if statistic == "pdp":
        width = {"item": human.shape[0], "sys": human.shape[1], "none": human.size}[average_by]
        if width < 2:
            what = {"item": "systems", "sys": "items", "none": "cells"}[average_by]
            raise ValueError(f"pdp (pairwise-difference Pearson) with average_by={average_by!r} takes differences "
                             f"between the {what} of each group and there is {width}: it needs at least 2 "
                             "(mt-metrics-eval: 'Pairwise diffs cannot be calculated for less than 2 systems').")
        base = _layout(human, "none")
        systems, items = np.divmod(base.order, human.shape[1])
        group = {"item": items, "sys": systems, "none": np.zeros_like(items)}[average_by]
        return _Layout(base.order, base.by_size, int((np.bincount(group) >= 2).sum()) if group.size else 0,
                       group_of=group)
    if statistic == "spa":
        judged = ~np.isnan(human)
        systems = judged.any(axis=1)
        items = judged[systems].all(axis=0) if systems.any() else np.zeros(human.shape[1], dtype=bool)
        order = np.arange(human.size).reshape(human.shape)[systems][:, items].ravel()
        shape = (int(systems.sum()), int(items.sum()))
        defined = shape[0] >= 2 and shape[1] >= 1
        return _Layout(order, {order.size: np.arange(order.size)[None]} if defined else {}, int(defined),
                       shape=shape)
    return _layout(human, average_by)


# -- per-group statistics: gold (G, L), metric (k, G, L) -> values (k, G) and weights (k, G) ----------------------
def _pearson(gold: np.ndarray, metric: np.ndarray) -> np.ndarray:
    if gold.shape[-1] == 2:  # two points: exactly the sign product (+-1), as scipy's pearsonr gives it
        r = np.sign(gold[..., 1] - gold[..., 0]) * np.sign(metric[..., 1] - metric[..., 0])
        return np.where(r == 0, np.nan, r.astype(float))
    gc = gold - gold.mean(axis=-1, keepdims=True)
    mean = metric.mean(axis=-1, keepdims=True)
    mc = metric - mean
    with np.errstate(invalid="ignore", divide="ignore"):
        gc = gc / np.linalg.norm(gc, axis=-1, keepdims=True)
        norm = np.sqrt(np.einsum("...l,...l->...", mc, mc))
        r = np.clip(np.einsum("...l,...l->...", mc, np.broadcast_to(gc, mc.shape)) / norm, -1.0, 1.0)
    return np.where(_constant(metric, norm, mean[..., 0]) | _constant(gold), np.nan, r)


def _constant(values: np.ndarray, centred_norm: np.ndarray | None = None, mean: np.ndarray | None = None
              ) -> np.ndarray:
    """Whether each vector (last axis) is constant. Given its mean and centred norm, only vectors whose centred
    norm is tiny beside the mean (a constant vector's is rounding error) are compared element by element."""
    if centred_norm is None:
        return (values == values[..., :1]).all(axis=-1)
    suspect = centred_norm <= 1e-9 * np.abs(mean) * np.sqrt(values.shape[-1])
    out = np.zeros(suspect.shape, dtype=bool)
    if suspect.any():
        out[suspect] = (values[suspect] == values[suspect][..., :1]).all(axis=-1)
    return out


def _pair_counts(gold: np.ndarray, metric: np.ndarray, epsilon: float, threshold: float | None):
    """Per group: concordant, discordant, metric-only ties, gold-only ties, ties in both (or, with ``threshold``,
    WMT's DARR concordant/discordant over pairs whose gold difference reaches it)."""
    size = gold.shape[-1]
    i, j = np.triu_indices(size, 1)
    dg = gold[..., j] - gold[..., i]
    out = []
    step = max(1, _CELLS_PER_CHUNK // max(1, dg.size))
    for start in range(0, metric.shape[0], step):
        dm = metric[start : start + step, :, j] - metric[start : start + step, :, i]
        if threshold is not None:
            counted = np.abs(dg) >= threshold
            con = (counted & (((dg > 0) & (dm > 0)) | ((dg < 0) & (dm < 0)))).sum(-1)
            out.append(np.stack([con, counted.sum(-1) - con]))
            continue
        m_tie = np.abs(dm) <= epsilon if epsilon > 0 else dm == 0
        g_tie = dg == 0
        con = (~m_tie & (((dg > 0) & (dm > 0)) | ((dg < 0) & (dm < 0)))).sum(-1)
        both = (m_tie & g_tie).sum(-1)
        m_only = (m_tie & ~g_tie).sum(-1)
        g_only = (~m_tie & g_tie).sum(-1)
        dis = dg.shape[-1] - con - both - m_only - g_only
        out.append(np.stack([con, dis, m_only, g_only, both]))
    return np.concatenate(out, axis=1).astype(np.int64)


def _tie_pairs(*columns: np.ndarray) -> int:
    """Pairs equal in every column, the columns sorted so that equal rows are adjacent."""
    change = np.zeros(len(columns[0]) - 1, dtype=bool)
    for column in columns:
        change |= column[1:] != column[:-1]
    runs = np.diff(np.flatnonzero(np.r_[True, change, True]))
    return int((runs * (runs - 1) // 2).sum())


def _inversions(ranks: np.ndarray) -> int:
    """Pairs ``i < j`` with ``ranks[i] > ranks[j]``, by bottom-up merging: at each width, every element of a right
    half counts the larger elements of its (sorted) left half with ``searchsorted``; O(n log^2 n)."""
    n, values, total, width = len(ranks), ranks.astype(np.int64), 0, 1
    big = int(values.max()) + 1 if n else 1
    position = np.arange(n)
    while width < n:
        block = position // (2 * width)
        keys = block * big + values  # each half of every block is sorted
        right = (position // width) % 2 == 1
        left = keys[~right]
        ends = np.searchsorted(left, (block[right] + 1) * big, side="left")
        total += int((ends - np.searchsorted(left, keys[right], side="right")).sum())
        values = np.sort(keys) % big  # merge: blocks stay in order
        width *= 2
    return total


def _sorted_counts(gold: np.ndarray, metric: np.ndarray) -> np.ndarray:
    """:func:`_pair_counts` without a tie threshold in O(n log^2 n) per vector: sorted by (gold, metric), the
    discordant pairs are the inversions of the metric's ranks; the ties come from run lengths."""
    out = np.zeros((5, *metric.shape[:2]), dtype=np.int64)
    size = gold.shape[-1]
    for group, g in enumerate(gold):
        for row in range(metric.shape[0]):
            m = metric[row, group]
            order = np.lexsort((m, g))
            gs, ms = g[order], m[order]
            dis = _inversions(np.unique(ms, return_inverse=True)[1])
            both, g_ties, m_ties = _tie_pairs(gs, ms), _tie_pairs(gs), _tie_pairs(np.sort(m))
            con = size * (size - 1) // 2 - dis - g_ties - m_ties + both
            out[:, row, group] = con, dis, m_ties - both, g_ties - both, both
    return out


def _group_values(statistic: str, gold: np.ndarray, metric: np.ndarray, epsilon: float = 0.0,
                  threshold: float = DARR_THRESHOLD) -> tuple[np.ndarray, np.ndarray]:
    """Values and averaging weights of a statistic for groups of one size (NaN: undefined)."""
    weights = np.ones(metric.shape[:2])
    if statistic == "pearson":
        return _pearson(gold, metric), weights
    if statistic == "spearman":
        values = _pearson(scipy.stats.rankdata(gold, axis=-1), scipy.stats.rankdata(metric, axis=-1))
        return np.where(_constant(metric) | _constant(gold), np.nan, values), weights
    if statistic == "kendall_like":
        con, dis = _pair_counts(gold, metric, 0.0, threshold)
        pairs = con + dis
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(pairs > 0, (con - dis) / np.maximum(pairs, 1), np.nan), pairs.astype(float)
    if epsilon == 0 and gold.shape[-1] > _SORTED_FROM:
        con, dis, m_only, g_only, both = _sorted_counts(gold, metric)
    else:
        con, dis, m_only, g_only, both = _pair_counts(gold, metric, epsilon, None)
    total = con + dis + m_only + g_only + both
    if statistic in ("accuracy", "acc_eq"):
        return (con + both) / total, weights
    m_ties, g_ties = m_only + both, g_only + both
    undefined = (m_ties == total) | (g_ties == total)
    with np.errstate(invalid="ignore", divide="ignore"):
        if statistic == "kendall_b":
            tau = (con - dis) / np.sqrt(total - m_ties) / np.sqrt(total - g_ties)
        else:  # kendall_c
            size = gold.shape[-1]
            distinct = np.minimum(_distinct(metric), _distinct(np.broadcast_to(gold, metric.shape)))
            tau = 2 * (con - dis) / (size**2 * (distinct - 1) / distinct)
    return np.where(undefined, np.nan, np.clip(tau, -1.0, 1.0)), weights


def _distinct(values: np.ndarray) -> np.ndarray:
    ordered = np.sort(values, axis=-1)
    return (np.diff(ordered, axis=-1) != 0).sum(-1) + 1


def _average(values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Mean over groups of the defined values (weighted for DARR), per row; NaN where none is defined."""
    defined = ~np.isnan(values)
    w = np.where(defined, weights, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(w.sum(-1) > 0, (np.where(defined, values, 0.0) * w).sum(-1) / w.sum(-1), np.nan)


def _pdp(gold: np.ndarray, metric: np.ndarray, group: np.ndarray) -> np.ndarray:
    """Pairwise-difference Pearson of each row of ``metric`` (k, n) with ``gold`` (n,), cells grouped by
    ``group``: Pearson over the differences ``x_j - x_i`` of every ordered pair of cells in a group (``i = j``
    included, as mt-metrics-eval enumerates them). Those differences have mean 0 and, per group of ``n_r`` cells,
    ``sum dg dm = 2 n_r sum (g - mean g)(m - mean m)``, so ``r = sum_r n_r C_r / sqrt(sum_r n_r SSg_r *
    sum_r n_r SSm_r)`` (centred per group); NaN when every group's human or metric scores are constant."""
    order = np.argsort(group, kind="stable")
    counts = np.bincount(group)
    counts = counts[counts > 0]
    starts = np.r_[0, np.cumsum(counts)[:-1]]

    def centred(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        x = x[..., order]
        means = np.add.reduceat(x, starts, axis=-1) / counts
        flat = np.maximum.reduceat(x, starts, axis=-1) == np.minimum.reduceat(x, starts, axis=-1)
        out = np.where(np.repeat(flat, counts, axis=-1), 0.0, x - np.repeat(means, counts, axis=-1))
        return out, flat.all(axis=-1)

    g, g_flat = centred(gold)
    m, m_flat = centred(metric)
    weight = np.repeat(counts, counts).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = (m * (weight * g)).sum(-1) / np.sqrt((weight * g * g).sum() * (weight * m * m).sum(-1))
    return np.where(m_flat | g_flat, np.nan, np.clip(r, -1.0, 1.0))


@lru_cache(maxsize=2)
def _spa_signs(n_items: int, permutations: int = SPA_PERMUTATIONS, seed: int = SPA_SEED) -> np.ndarray:
    """mt-metrics-eval's permutation signs (``2m - 1``, float32, (permutations, n_items)): ``default_rng(seed)
    .random(dtype=float32)``, rounded to 0/1, times 2, minus 1, as ``pce.compute_pairwise_p_values`` makes them."""
    signs = np.random.default_rng(seed).random(size=(permutations, n_items), dtype=np.float32)
    np.rint(signs, out=signs, casting="same_kind")
    signs *= 2.0
    signs -= 1.0
    signs.flags.writeable = False
    return signs


def spa_p_values(scores: np.ndarray) -> np.ndarray:
    """Per matrix of segment scores ``(..., n_systems, n_items)``, the p-value that system i beats system j for
    every pair ``i < j`` (``np.triu_indices`` order): the share of :data:`SPA_PERMUTATIONS` sign permutations
    (seed :data:`SPA_SEED`) whose ``sum_t s_t (x_it - x_jt)`` reaches the observed ``sum_t (x_it - x_jt)``, with
    mt-metrics-eval's arithmetic: float32 scores, system sums by numpy's float32 sum, permuted sums by one float32
    matrix product, ``>=`` (its ties: a float64 or other-order sum flips draws). Matrices are multiplied in
    batches (the product of each is the same), at most :data:`_SPA_CELLS` null differences at once."""
    scores = np.asarray(scores, dtype=np.float32)
    batch = scores.reshape(-1, *scores.shape[-2:])
    n_sys, n_items = batch.shape[1:]
    signs = _spa_signs(n_items)
    totals = np.sum(batch, axis=-1)
    counts = np.empty((len(batch), n_sys * (n_sys - 1) // 2), dtype=np.int64)
    step = max(1, _SPA_CELLS // max(1, len(signs) * n_sys))
    for start in range(0, len(batch), step):
        chunk, total = batch[start : start + step], totals[start : start + step]
        # (matrices, systems, permutations): the same products as signs @ chunk.T, laid out for the reductions
        partial = np.matmul(chunk.reshape(-1, n_items), signs.T).reshape(len(chunk), n_sys, len(signs))
        column = 0
        for i in range(n_sys - 1):
            observed = total[:, i : i + 1] - total[:, i + 1 :]
            null = partial[:, i : i + 1] - partial[:, i + 1 :]
            counts[start : start + len(chunk), column : column + n_sys - 1 - i] = (null >= observed[..., None]).sum(-1)
            column += n_sys - 1 - i
    return (counts / len(signs)).reshape(*scores.shape[:-2], counts.shape[1])


def _spa(gold: np.ndarray, metric: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """Soft pairwise accuracy of each row of ``metric`` (k, systems * items, system-major): ``1 - mean_{i<j}
    |p_human(i, j) - p_metric(i, j)|`` (mt-metrics-eval's ``compute_one_minus_pce``)."""
    human = spa_p_values(gold.reshape(shape))
    return 1.0 - np.mean(np.abs(human - spa_p_values(metric.reshape(-1, *shape))), axis=-1)


def _take(metric: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """``metric[:, positions]``, as a view when the positions are one contiguous run (no grouping)."""
    start = positions[0, 0]
    if positions[-1, -1] - start + 1 == positions.size:
        return metric[:, start : start + positions.size].reshape(len(metric), *positions.shape)
    return metric[:, positions]


def _batched(statistic: str, gold: np.ndarray, metric: np.ndarray, layout: _Layout, epsilon: float,
             threshold: float) -> np.ndarray:
    """The averaged statistic for each row of ``metric`` (k, n_cells in layout order): (k,)."""
    if statistic == "pdp":
        return _pdp(gold, metric, layout.group_of)
    if statistic == "spa":
        return _spa(gold, metric, layout.shape)
    values, weights = [], []
    for positions in layout.by_size.values():
        v, w = _group_values(statistic, gold[positions], _take(metric, positions), epsilon, threshold)
        values.append(v)
        weights.append(w)
    if not values:
        return np.full(len(metric), np.nan)
    return _average(np.concatenate(values, axis=1), np.concatenate(weights, axis=1))


def _calibrate_ties(gold: np.ndarray, metric: np.ndarray, layout: _Layout) -> tuple[float, float]:
    """The tie threshold maximising the average pairwise accuracy over groups, and that accuracy (mt-metrics-eval's
    ``tau_optimization`` with ``acc_23``): every candidate threshold at once from the sorted pair differences."""
    diffs, gains = [], []
    base = 0.0
    for size, positions in layout.by_size.items():
        i, j = np.triu_indices(size, 1)
        g, m = gold[positions], metric[positions]
        dg, dm = g[:, j] - g[:, i], m[:, j] - m[:, i]
        # making a pair a metric tie: +1 agreement if humans tie it, -1 if it was concordant
        concordant = ((dg > 0) & (dm > 0)) | ((dg < 0) & (dm < 0))
        gain = np.where(dg == 0, (dm != 0).astype(float), -concordant.astype(float))
        pairs = len(i)
        base += ((concordant | ((dg == 0) & (dm == 0))).sum(-1) / pairs).sum()
        diffs.append(np.abs(dm).ravel())
        gains.append((gain / pairs).ravel())
    if not diffs:
        return 0.0, math.nan
    diff, gain = np.concatenate(diffs), np.concatenate(gains)
    order = np.argsort(diff, kind="stable")
    diff, tau = diff[order], base + np.cumsum(gain[order])
    last = np.r_[diff[1:] != diff[:-1], True]  # a threshold makes every pair with that difference a tie
    thresholds, taus = diff[last], tau[last]
    if thresholds[0] != 0.0:
        thresholds, taus = np.r_[0.0, thresholds], np.r_[base, taus]
    best = np.flatnonzero(taus >= taus.max() - 1e-12 * max(1.0, abs(taus.max())))[0]
    return float(thresholds[best]), float(taus[best]) / layout.n_groups


def _prepare(human: object, metric: object, average_by: str, statistic: str | None = None
             ) -> tuple[np.ndarray, np.ndarray, _Layout]:
    h, m = as_matrix(human, "human"), as_matrix(metric, "metric")
    if h.shape != m.shape:
        raise ValueError(f"human scores are {h.shape[0]} systems x {h.shape[1]} items but metric scores are "
                         f"{m.shape[0]} x {m.shape[1]}: give both for the same systems and items.")
    if np.isinf(h).any():
        raise ValueError("human scores contain infinity; mark a missing judgment with None or NaN.")
    judged = ~np.isnan(h)
    if not np.isfinite(m[judged]).all():
        raise ValueError("the metric has no finite score for some judged cell (NaN or infinity where a human score "
                         "exists): score every judged segment.")
    layout = _statistic_layout(h, statistic, average_by)
    return h.ravel()[layout.order], m.ravel()[layout.order], layout


def correlation(human: object, metric: object, statistic: str = "pearson", average_by: str = "none",
                threshold: float = DARR_THRESHOLD, pdp: bool = False) -> Correlation:
    """One agreement statistic of ``metric`` with ``human`` (matrices ``(n_systems, n_items)``, NaN/None for a
    missing human score; see the module docstring for the formulas). ``pdp=True`` is mt-metrics-eval's
    ``Pearson(..., pdp=True)``, the statistic ``"pdp"`` (an error for any other statistic than Pearson)."""
    if pdp:
        if statistic not in ("pearson", "pdp"):
            raise ValueError(f"pdp=True (pairwise-difference Pearson) applies to Pearson only, not {statistic!r} "
                             "(as mt-metrics-eval's 'pdp is not supported for correlations other than Pearson').")
        statistic = "pdp"
    _check_statistic(statistic, average_by)
    gold, metric_cells, layout = _prepare(human, metric, average_by, statistic)
    return _correlation(statistic, gold, metric_cells, layout, threshold)


def _correlation(statistic: str, gold: np.ndarray, metric: np.ndarray, layout: _Layout,
                 threshold: float) -> Correlation:
    cells = int(sum(p.size for p in layout.by_size.values()))
    if not layout.n_groups:
        if statistic == "spa":
            systems, items = layout.shape
            reason = (f"{systems} system(s) with human scores: spa compares pairs of systems" if systems < 2 else
                      "no item is judged for every system (spa compares systems on the same items)")
            return Correlation(None, reason, 0, 0)
        return Correlation(None, "no group of two or more judged cells to correlate", 0, cells)
    if statistic == "acc_eq":
        epsilon, value = _calibrate_ties(gold, metric, layout)
        extra = {"epsilon": epsilon}
    else:
        value, extra = float(_batched(statistic, gold, metric[None], layout, 0.0, threshold)[0]), {}
    if math.isnan(value):
        reason = {"kendall_like": f"no pair of cells whose human scores differ by {threshold:g} or more",
                  "pdp": "the human or the metric scores are constant in every group (no pairwise difference)"
                  }.get(statistic, "the human or the metric scores are constant in every group")
        return Correlation(None, reason, layout.n_groups, cells, **extra)
    return Correlation(value, None, layout.n_groups, cells, **extra)


# -- significance -------------------------------------------------------------------------------------------------
#: the most permutation draws per pair of metrics (``k``); mt-metrics-eval's default is 1,000. Memory does not grow
#: with it (draws are generated and used in chunks); the time does, linearly.
MAX_DRAWS = 100_000
#: draws (cells x rows) generated at once, and kept for the next pairs while they fit in this many bytes
_DRAW_CHUNK = 2**22
_DRAW_CACHE = 2**27
#: a draw whose difference is within this of the observed one counts as reaching it: mt-metrics-eval computes the
#: two with the same arithmetic, so a draw equal to the observation (the identity, swaps of equal cells) ties exactly
#: there; here the draws come from sums (Pearson) or in another order, so they tie up to rounding.
TIE_TOLERANCE = 1e-12


@dataclass(frozen=True)
class PermutationParams:
    """mt-metrics-eval's ``PermutationSigDiffParams``: early stopping every ``block_size`` draws."""

    block_size: int = 1000
    early_min: float = 0.02
    early_max: float = 0.5


class _Draws:
    """The keep/swap draws of ``RandomState(seed)`` (``random_sample > 0.5``, the draws of ``binomial(1, 0.5, n)``),
    one row of ``n_cells`` flags per draw, in chunks of at most :data:`_DRAW_CHUNK` flags. Each pair tested reads the
    stream from its start (as after ``np.random.seed(seed)``); the first chunks are kept for the next pairs while they
    fit in :data:`_DRAW_CACHE` bytes, the rest is generated again (memory stays bounded at any ``k`` and size)."""

    def __init__(self, seed: int | None, n_cells: int) -> None:
        if seed is None:  # one OS-entropy seed, so every pair still sees the same draws
            seed = int(np.random.SeedSequence().generate_state(1)[0])
        self.n_cells, self.rows = n_cells, max(1, _DRAW_CHUNK // max(n_cells, 1))
        self._cached: list[np.ndarray] = []
        self._state = np.random.RandomState(seed).get_state()  # after the cached chunks

    def chunks(self) -> Iterator[np.ndarray]:
        index = 0
        while index < len(self._cached):
            yield self._cached[index]
            index += 1
        rng = np.random.RandomState()
        rng.set_state(self._state)
        caching = True
        while True:
            chunk = rng.random_sample((self.rows, self.n_cells)) > 0.5
            caching = caching and (len(self._cached) + 1) * chunk.nbytes <= _DRAW_CACHE
            if caching:
                self._cached.append(chunk)
                self._state = rng.get_state()
            yield chunk


def permutation_test(human: object, metric_a: object, metric_b: object, statistic: str = "pearson",
                     average_by: str = "none", k: int = 1000, seed: int | None = 12345,
                     params: PermutationParams = PermutationParams(), threshold: float = DARR_THRESHOLD
                     ) -> tuple[float, float, int]:
    """p-value that ``metric_b`` agrees better than ``metric_a`` (mt-metrics-eval's ``PermutationSigDiff``,
    see the module docstring), the observed difference ``stat(b) - stat(a)`` and the number of draws used."""
    _check_statistic(statistic, average_by)
    check_draws(k)
    gold, a, layout = _prepare(human, metric_a, average_by, statistic)
    _, b, _ = _prepare(human, metric_b, average_by, statistic)
    full = (as_matrix(metric_a, "metric").ravel(), as_matrix(metric_b, "metric").ravel())
    n_draw = full[0].size if statistic == "acc_eq" else len(gold)
    return _permutation(statistic, gold, a, b, layout, k, _Draws(seed, n_draw), params, threshold, full)


def check_draws(k: object) -> int:
    """Permutation draws per pair: an integer in [1, :data:`MAX_DRAWS`]."""
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k <= MAX_DRAWS:
        raise ValueError(f"k (permutation draws) must be an integer from 1 to {MAX_DRAWS:,} (mt-metrics-eval: "
                         f"1000), got {k!r}.")
    return int(k)


def _zscore(values: np.ndarray, statistic: str) -> np.ndarray:
    """``(x - mean) / std`` (scipy's ``zscore``). A constant metric: all zeros where the statistic is defined for
    it (``accuracy``, ``kendall_like``, ``acc_eq``: every pair a metric tie); an error for the correlations."""
    finite = values[np.isfinite(values)]
    std = finite.std() if finite.size else 0.0
    if std == 0:
        if statistic in ("accuracy", "kendall_like", "acc_eq", "spa"):
            return np.where(np.isfinite(values), 0.0, values)
        raise ValueError(f"a metric gives every judged cell the same score: its {statistic} is undefined, so it "
                         "cannot be tested for significance.")
    return (values - finite.mean()) / std


def _permutation(statistic: str, gold: np.ndarray, a: np.ndarray, b: np.ndarray, layout: _Layout, k: int,
                 draws: _Draws, params: PermutationParams, threshold: float,
                 full: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[float, float, int]:
    """The test on prepared cells. ``acc_eq`` (given ``full``, the two metrics' whole matrices in system order)
    z-scores every cell with a metric score and draws a flag for every cell in system order, as mt-metrics-eval's
    ``KendallWithTiesOpt`` branch does; the other statistics z-score and draw over the judged cells in group
    order (mt-metrics-eval's ``_ReshapeAndFilter``)."""
    check_draws(k)
    if statistic == "acc_eq" and full is not None:
        za_full, zb_full = _zscore(full[0], statistic), _zscore(full[1], statistic)
        za, zb, cells = za_full[layout.order], zb_full[layout.order], layout.order
    else:
        za, zb, cells = _zscore(a, statistic), _zscore(b, statistic), None
    fast = statistic == "pearson" and layout.n_groups == 1 and len(gold) == len(next(iter(layout.by_size.values()))[0])

    def stat(metric: np.ndarray) -> np.ndarray:
        if statistic == "acc_eq":  # recalibrated on every draw, as mt-metrics-eval's KendallWithTiesOpt test
            return np.array([_calibrate_ties(gold, row, layout)[1] for row in metric])
        values = _batched(statistic, gold, metric, layout, 0.0, threshold)
        return np.nan_to_num(values, nan=0.0)  # mt-metrics-eval: an average of no defined group is 0

    delta = float(stat(zb[None])[0] - stat(za[None])[0])
    tolerance = 0.0 if statistic == "spa" else TIE_TOLERANCE  # spa: mt-metrics-eval's own arithmetic, exact ties
    count = used = 0
    stream, pending = draws.chunks(), np.zeros((0, draws.n_cells), dtype=bool)
    while used < k:
        if not len(pending):
            pending = next(stream)
        take = min(len(pending), k - used, params.block_size - used % params.block_size)
        keep, pending = pending[:take], pending[take:]
        if cells is not None:
            keep = keep[:, cells]
        if fast:
            stat_a, stat_b = _pearson_of_mixtures(gold, za, zb, keep)
        else:
            stat_a, stat_b = stat(np.where(keep, za, zb)), stat(np.where(keep, zb, za))
        count += int((stat_b - stat_a >= delta - tolerance).sum())
        used += take
        if used % params.block_size == 0 and not params.early_min <= count / used <= params.early_max:
            break
    return count / used, delta, used


def _pearson_of_mixtures(gold: np.ndarray, za: np.ndarray, zb: np.ndarray, keep: np.ndarray
                         ) -> tuple[np.ndarray, np.ndarray]:
    """Pearson with ``gold`` (one group) of every draw's mixtures ``a' = where(keep, za, zb) = zb + keep d`` and
    ``b' = where(keep, zb, za) = za - keep d`` (``d = za - zb``), from sums, without building them: with ``K`` the
    0/1 draw matrix, ``sum a' = sum zb + K d``, ``a'.g = zb.g + K (d g)``, ``sum a'^2 = sum zb^2 + K (za^2 - zb^2)``
    (g centred and normalised; z-scored inputs keep ``sum x^2 - (sum x)^2 / n`` well conditioned); one product."""
    n = len(gold)
    g = gold - gold.mean()
    with np.errstate(invalid="ignore", divide="ignore"):
        g = g / np.linalg.norm(g)
        d = za - zb
        sums = keep.astype(float) @ np.stack([d, d * g, za * za - zb * zb], axis=1)
        out = []
        for base, sign in ((zb, 1.0), (za, -1.0)):
            total, dot = base.sum() + sign * sums[:, 0], base @ g + sign * sums[:, 1]
            square = base @ base + sign * sums[:, 2]
            out.append(np.nan_to_num(np.clip(dot / np.sqrt(square - total * total / n), -1.0, 1.0), nan=0.0))
    return out[0], out[1]


def williams_test(human: object, metric_a: object, metric_b: object, one_sided: bool = True) -> float:
    """Williams' test (Graham & Baldwin 2014) that two Pearson correlations with the same human scores differ:
    with ``r1``, ``r2`` each metric's and ``r12`` the metrics' correlation over the ``n`` judged cells,
    ``t = (r1 - r2) sqrt((n-1)(1+r12)) / sqrt(2 (n-1)/(n-3) K + ((r1+r2)/2)^2 (1-r12)^3)``,
    ``K = 1 - r1^2 - r2^2 - r12^2 + 2 r1 r2 r12``; p from Student's t with ``n - 3`` degrees of freedom."""
    gold, a, layout = _prepare(human, metric_a, "none")
    _, b, _ = _prepare(human, metric_b, "none")
    n = len(gold)
    if n < 4:
        raise ValueError(f"Williams' test needs at least 4 judged cells, got {n}.")
    r1, r2, r12 = (float(_pearson(x, y[None])[0]) for x, y in ((gold, a), (gold, b), (a, b)))
    if any(math.isnan(r) for r in (r1, r2, r12)):
        raise ValueError("Williams' test is undefined here: a metric or the human scores are constant.")
    k_ = 1 - r1**2 - r2**2 - r12**2 + 2 * r1 * r2 * r12
    t = (r1 - r2) * np.sqrt((n - 1) * (1 + r12)) / np.sqrt(
        2 * (n - 1) / (n - 3) * k_ + ((r1 + r2) / 2) ** 2 * (1 - r12) ** 3)
    p = float(scipy.stats.t.sf(abs(t), n - 3))
    return p if one_sided else 2 * p


def assign_ranks(pvalues: np.ndarray, alpha: float = 0.05) -> list[int]:
    """Significance clusters (mt-metrics-eval's ``AssignRanks``): metrics sorted by decreasing agreement;
    ``pvalues[i, j]`` (i < j) is the p-value that metric i beats metric j. A metric starts a new cluster when one of
    the current cluster significantly beats it."""
    ranks, rank, start = [], 1, 0
    for i in range(len(pvalues)):
        if (pvalues[start:i, i] <= alpha).any():
            rank += 1
            start = i
        ranks.append(rank)
    return ranks


def significance_clusters(human: object, metrics: Mapping[str, object], statistic: str = "pearson",
                          average_by: str = "none", k: int = 1000, seed: int | None = 12345, alpha: float = 0.05,
                          params: PermutationParams = PermutationParams(), threshold: float = DARR_THRESHOLD
                          ) -> tuple[list[str], list[Correlation], np.ndarray, list[int]]:
    """Metrics sorted by decreasing agreement (name breaks ties), their statistics, the matrix of permutation
    p-values (``[i, j]``: metric i beats metric j; each pair tested with ``RandomState(seed)``'s draws) and the
    cluster of each (mt-metrics-eval's ``CompareMetrics``). Metrics whose statistic is undefined come last,
    outside any cluster (rank None)."""
    _check_statistic(statistic, average_by)
    check_draws(k)
    prepared = {name: _prepare(human, scores, average_by, statistic) for name, scores in metrics.items()}
    full = {name: as_matrix(scores, "metric").ravel() for name, scores in metrics.items()}
    results = {name: _correlation(statistic, g, m, layout, threshold) for name, (g, m, layout) in prepared.items()}
    defined = sorted((n for n in results if results[n].value is not None), key=lambda n: (-results[n].value, n))
    undefined = sorted(n for n in results if results[n].value is None)
    pvalues = np.zeros((len(defined), len(defined)))
    if defined:
        n_draw = len(full[defined[0]]) if statistic == "acc_eq" else len(prepared[defined[0]][0])
        draws = _Draws(seed, n_draw)
    for i, first in enumerate(defined):
        for j in range(i + 1, len(defined)):
            gold, a, layout = prepared[defined[j]]
            pvalues[i, j] = _permutation(statistic, gold, a, prepared[first][1], layout, k, draws, params,
                                         threshold, (full[defined[j]], full[first]))[0]
    ranks = assign_ranks(pvalues, alpha) + [None] * len(undefined)
    names = defined + undefined
    return names, [results[n] for n in names], pvalues, ranks


# -- bootstrap ----------------------------------------------------------------------------------------------------
#: resampled cells (resamples x cells) held at once: memory stays bounded at any ``n_resamples`` and size
_RESAMPLE_CHUNK = 2**21


def _resample_chunks(n_items: int, n_resamples: int, seed: int | None) -> Iterator[np.ndarray]:
    """``default_rng(seed).choice(n_items, size=(n_resamples, n_items))`` a few rows at a time (the same indices:
    the generator draws row-splittable int64s), at most :data:`_RESAMPLE_CHUNK` indices per chunk."""
    rng = np.random.default_rng(seed)
    rows = max(1, _RESAMPLE_CHUNK // max(n_items, 1))
    for start in range(0, n_resamples, rows):
        yield rng.choice(n_items, size=(min(rows, n_resamples - start), n_items), replace=True)


def bootstrap_interval(human: object, metric: object, statistic: str = "pearson", average_by: str = "none",
                       n_resamples: int = 1000, seed: int | None = 12345, confidence: float = 0.95,
                       threshold: float = DARR_THRESHOLD, level: str = "segment") -> tuple[float | None, float | None]:
    """Percentile interval of the statistic over ``n_resamples`` resamples of the items (the matrix columns),
    drawn with replacement by ``numpy.random.default_rng(seed)`` (scipy's paired percentile bootstrap when there
    is one system). ``level="system"``: each resample's system scores are the means over its items (then
    ``average_by`` is ignored). Resamples where the statistic is undefined are left out; (None, None) when more
    than half are, or when fewer than two items are judged (every resample would be the same data: no interval).
    Segment-level Pearson without grouping is computed for all resamples of a chunk at once
    (:func:`_resampled_pearson`); the other statistics resample by resample. Resamples are drawn in chunks, so
    memory does not grow with ``n_resamples`` (at most :data:`nlgmetrics.stats.MAX_RESAMPLES`)."""
    from nlgmetrics.stats import check_resamples

    _check_statistic(statistic, average_by)
    if level not in ("segment", "system"):
        raise ValueError(f"level must be 'segment' or 'system', got {level!r}.")
    check_resamples("n_resamples", n_resamples)
    h, m = as_matrix(human, "human"), as_matrix(metric, "metric")
    _prepare(h, m, average_by, statistic)  # checks
    if (~np.isnan(h)).any(axis=0).sum() < 2:
        return None, None
    values: list[np.ndarray] = []
    fast = statistic == "pearson" and average_by == "none" and level == "segment"
    for indices in _resample_chunks(h.shape[1], n_resamples, seed):
        if fast:
            values.append(_resampled_pearson(h, m, indices))
            continue
        for columns in indices:
            sub_h, sub_m, average = h[:, columns], m[:, columns], average_by
            if level == "system" and statistic != "spa":  # spa: a system-level statistic of segment scores
                sub_h, sub_m = system_scores(sub_h, sub_h)[:, None], system_scores(sub_m, sub_h)[:, None]
                average = "none"
            gold, cells, layout = _prepare(sub_h, sub_m, average, statistic)
            value = _correlation(statistic, gold, cells, layout, threshold).value
            values.append(np.array([math.nan if value is None else value]))
    drawn = np.concatenate(values)
    drawn = drawn[~np.isnan(drawn)]
    if len(drawn) < n_resamples / 2:
        return None, None
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(drawn, [tail, 100 - tail])
    return float(low), float(high)


def _resampled_pearson(human: np.ndarray, metric: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """Pearson of the judged cells of every resample of items (rows of ``indices``) at once: with ``w`` how often
    each cell's item was drawn, weighted sums ``sum w``, ``sum w g``, ``sum w m``, ``sum w g^2``, ``sum w m^2``,
    ``sum w g m`` come from one matrix product (inputs z-scored first, which leaves r unchanged and keeps
    ``sum w x^2 - (sum w x)^2 / sum w`` well conditioned); NaN where a resample's human or metric cells are constant.
    Rows are taken a few at a time so that the weights hold at most :data:`_RESAMPLE_CHUNK` cells."""
    judged = ~np.isnan(human)
    items = np.nonzero(judged)[1]
    gold, values = human[judged], metric[judged]
    g = (gold - gold.mean()) / (gold.std() or 1.0)
    x = (values - values.mean()) / (values.std() or 1.0)
    columns = np.stack([np.ones_like(g), g, x, g * g, x * x, g * x], axis=1)
    n_items = human.shape[1]
    step = max(1, _RESAMPLE_CHUNK // max(n_items, len(items), 1))
    out = np.empty(len(indices))
    for start in range(0, len(indices), step):
        chunk = indices[start : start + step]
        flat = (np.arange(len(chunk))[:, None] * n_items + chunk).ravel()
        counts = np.bincount(flat, minlength=len(chunk) * n_items).reshape(len(chunk), n_items)
        weights = counts[:, items].astype(float)
        n, sg, sx, sgg, sxx, sgx = (weights @ columns).T
        with np.errstate(invalid="ignore", divide="ignore"):
            var_g, var_x = sgg - sg * sg / n, sxx - sx * sx / n
            r = (sgx - sg * sx / n) / np.sqrt(var_g * var_x)
        # a constant resample's variance is rounding error: only near-zero ones are checked value by value
        constant = np.zeros(len(chunk), dtype=bool)
        for row in np.flatnonzero((var_g <= 1e-9 * n) | (var_x <= 1e-9 * n)):
            drawn = weights[row] > 0
            constant[row] = np.ptp(gold[drawn]) == 0 or np.ptp(values[drawn]) == 0
        out[start : start + len(chunk)] = np.where(constant | (n < 2), np.nan, np.clip(r, -1.0, 1.0))
    return out


def system_scores(scores: np.ndarray, human: np.ndarray) -> np.ndarray:
    """Each system's mean score over its judged items (NaN for a system without any)."""
    judged = ~np.isnan(human)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(judged, scores, 0.0).sum(1) / judged.sum(1)


__all__ = [
    "AVERAGES", "Correlation", "DARR_THRESHOLD", "MAX_DRAWS", "PermutationParams", "SPA_PERMUTATIONS", "SPA_SEED",
    "STATISTICS", "TIE_TOLERANCE", "as_matrix", "assign_ranks", "bootstrap_interval", "check_draws", "correlation",
    "permutation_test", "significance_clusters", "spa_p_values", "system_scores", "williams_test",
]
