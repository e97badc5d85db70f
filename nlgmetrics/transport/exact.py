"""Exact optimal transport (earth mover's distance) for many small problems, on POT's network simplex.

For histograms ``a`` (n,) and ``b`` (m,) with equal total mass and a cost matrix ``M`` (n, m)::

    EMD(a, b, M) = min_P <P, M>_F   subject to   P 1_m = a,  P^T 1_n = b,  P >= 0

This calls POT's C++ network simplex (the solver behind ``ot.emd2``) directly, which skips ``ot.emd2``'s per-call
backend and marginal checks (about 150 us, more than the solve itself for a 20 x 20 problem). Zero-mass entries are
dropped before the solve (they carry no flow), and the solver releases the GIL, so a thread pool spreads a batch over
cores. A problem whose total mass is zero costs 0 with an all-zero flow.

Size limit: the network simplex needs about 24 bytes per cost entry on top of the 8-byte cost matrix, and time that
grows faster than the number of entries (measured here: 2000 x 2000 in 1 s, 4000 x 4000 in 5 s and 0.4 GiB,
8000 x 8000 in 24 s and 1.5 GiB); past memory it aborts the interpreter (``std::bad_alloc``). A problem with more than
:data:`MAX_ENTRIES` entries between points with mass is refused with a ``ValueError`` before anything is allocated
(raise the module attribute to lift it where memory and time allow).
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from nlgmetrics.errors import LimitError, OptionError

try:  # POT's compiled network simplex; ot.emd2 is the public wrapper around it
    from ot.lp.emd_wrap import emd_c as _emd_c
except ImportError:  # pragma: no cover - a POT without the private module: fall back to the public API
    _emd_c = None

MAX_ITER = 1_000_000
MASS_RTOL = 1e-7
MAX_ENTRIES = 2**26  # largest exact problem (rows x columns with mass): 8192 x 8192, about 2 GiB with its costs
BYTES_PER_ENTRY = 32  # the cost matrix (8) and the solver's arrays (~24)


def check_size(n: int, m: int) -> None:
    """``ValueError`` when an ``n x m`` problem is beyond :data:`MAX_ENTRIES`."""
    if n * m > MAX_ENTRIES:
        raise LimitError(
            f"exact transport between {n} and {m} points ({n * m:,} cost entries) is beyond the exact solver's limit "
            f"of {MAX_ENTRIES:,} entries (about {n * m * BYTES_PER_ENTRY / 2**30:.1f} GiB and a long time here): use "
            "method='relaxed' (memory linear in the size) or 'sinkhorn', or raise "
            "nlgmetrics.transport.exact.MAX_ENTRIES where memory and time allow."
        )


def _as_hist(values, name: str) -> np.ndarray:
    arr = np.asarray(values, dtype=np.float64).reshape(-1)
    if arr.size and (not np.all(np.isfinite(arr)) or arr.min() < 0):
        raise OptionError(f"{name} must hold finite, non-negative masses.")
    return arr


def emd(a, b, M, *, return_flow: bool = False, max_iter: int = MAX_ITER) -> tuple[float, np.ndarray | None]:
    """Exact transport cost ``<P*, M>`` (and the optimal flow ``P*`` when ``return_flow``) of one problem."""
    a = _as_hist(a, "a")
    b = _as_hist(b, "b")
    M = np.asarray(M, dtype=np.float64)
    if M.shape != (a.size, b.size):
        raise OptionError(f"cost matrix has shape {M.shape}, expected {(a.size, b.size)} from the histograms.")
    sa, sb = float(a.sum()), float(b.sum())
    if abs(sa - sb) > MASS_RTOL * max(sa, sb, 1.0):
        raise OptionError(f"histograms must carry equal total mass, got {sa!r} and {sb!r}; normalise them first.")
    if sa == 0.0 or sb == 0.0:
        return 0.0, (np.zeros(M.shape) if return_flow else None)
    rows, cols = np.flatnonzero(a), np.flatnonzero(b)
    check_size(rows.size, cols.size)
    sub = M if (rows.size == a.size and cols.size == b.size) else M[np.ix_(rows, cols)]
    if not np.all(np.isfinite(sub)):
        raise OptionError("cost matrix must be finite where both histograms have mass.")
    ar, bc = a[rows], b[cols] * (sa / sb)  # exact equality of totals, as the simplex needs
    if _emd_c is not None:
        flow, cost, _u, _v, code = _emd_c(ar, bc, np.ascontiguousarray(sub), max_iter, 1)
        if code != 1:  # 1 = optimal; otherwise the solver stopped early or the problem was malformed
            warnings.warn(f"exact transport solver returned code {code} (not optimal); the cost may be inexact.",
                          RuntimeWarning, stacklevel=2)
    else:  # pragma: no cover
        import ot

        flow = ot.emd(ar, bc, np.ascontiguousarray(sub), numItermax=max_iter)
        cost = float((flow * sub).sum())
    if not return_flow:
        return float(cost), None
    full = np.zeros(M.shape)
    full[np.ix_(rows, cols)] = flow
    return float(cost), full


def _emd_trusted(a: np.ndarray, b: np.ndarray, M: np.ndarray, max_iter: int) -> float:
    """The bare solve for inputs already known good: float64, positive masses of equal total, finite C-contiguous
    costs (about half the per-call time of :func:`emd` on 20 x 20 problems)."""
    if _emd_c is None:  # pragma: no cover
        return emd(a, b, M, max_iter=max_iter)[0]
    check_size(a.size, b.size)
    _flow, cost, _u, _v, code = _emd_c(a, b * (a.sum() / b.sum()), M, max_iter, 1)
    if code != 1:
        warnings.warn(f"exact transport solver returned code {code} (not optimal); the cost may be inexact.",
                      RuntimeWarning, stacklevel=2)
    return float(cost)


def default_threads() -> int:
    """Worker threads for a batch of exact problems: ``$NLGMETRICS_OT_THREADS``, else the usable cores (max 16)."""
    env = os.environ.get("NLGMETRICS_OT_THREADS")
    if env:
        return max(1, int(env))
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        cores = os.cpu_count() or 1
    return max(1, min(cores, 16))


def emd_batch(
    a: Sequence,
    b: Sequence,
    M: Sequence,
    *,
    return_flow: bool = False,
    num_threads: int | None = None,
    max_iter: int = MAX_ITER,
    trusted: bool = False,
) -> tuple[np.ndarray, list[np.ndarray] | None]:
    """Exact costs (B,) of B independent problems ``(a[k], b[k], M[k])`` (and their flows), over a thread pool.

    ``trusted=True`` skips validation and zero-mass compression: only for float64 numpy inputs with strictly
    positive masses of equal totals and finite C-contiguous costs (what :func:`nlgmetrics.transport.solve_clouds`
    builds for MoverScore); costs only. ``M[k]`` is read once, inside the worker that solves problem ``k``, so a
    sequence that builds each cost matrix on access keeps one matrix per thread in memory.
    """
    if not (len(a) == len(b) == len(M)):
        raise OptionError(f"got {len(a)}, {len(b)} and {len(M)} source, target and cost entries: they must match.")
    n = len(a)
    threads = default_threads() if num_threads is None else max(1, int(num_threads))

    def one(k: int) -> tuple[float, np.ndarray | None]:
        if trusted and not return_flow:
            return _emd_trusted(a[k], b[k], M[k], max_iter), None
        return emd(a[k], b[k], M[k], return_flow=return_flow, max_iter=max_iter)

    if threads == 1 or n < 32:
        results = [one(k) for k in range(n)]
    else:
        # contiguous slices: one task per thread keeps scheduling overhead off the small solves
        bounds = np.linspace(0, n, threads + 1).astype(int)
        with ThreadPoolExecutor(threads) as pool:
            parts = pool.map(lambda lo_hi: [one(k) for k in range(*lo_hi)], zip(bounds[:-1], bounds[1:]))
            results = [r for part in parts for r in part]
    costs = np.fromiter((c for c, _ in results), dtype=np.float64, count=n)
    return costs, ([f for _, f in results] if return_flow else None)
