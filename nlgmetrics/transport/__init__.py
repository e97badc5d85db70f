"""Optimal transport for many small problems: one interface over exact EMD, entropic Sinkhorn and relaxed transport.

A batch is B independent problems ``(a_k, b_k, M_k)``: source masses (n_k,), target masses (m_k,) with the same total,
and costs (n_k, m_k). Methods:

- ``"exact"``: the earth mover's distance ``min_P <P, M>`` s.t. ``P 1 = a, P^T 1 = b, P >= 0`` on POT's network
  simplex (``ot.emd2``'s solver), zero-mass points dropped, spread over a thread pool (CPU).
- ``"sinkhorn"``: the entropic problem ``min_P <P, M> - reg H(P)`` by log-domain Sinkhorn, all problems at once as
  zero-padded (B, n, m) tensors, on CPU or CUDA; the reported cost is ``<P_reg, M>`` (-> EMD as reg -> 0).
- ``"relaxed"``: one-sided transport, ``sum_j b_j min_{i: a_i > 0} M_ij`` (each target point to its nearest source).

:func:`solve_batch` takes cost matrices; :func:`solve_clouds` takes point clouds (e.g. token embeddings), builds the
costs batched on the chosen device (:mod:`nlgmetrics.transport.costs`) and solves. Memory stays bounded on large
problems: past :data:`LAZY_COST_ENTRIES` cost entries in a batch, ``exact`` builds each problem's cost matrix inside
the worker that solves it (one matrix per thread, not the batch's); ``relaxed`` builds a problem larger than a chunk
in blocks of columns (memory linear in its size); the exact solver refuses problems past
:data:`nlgmetrics.transport.exact.MAX_ENTRIES` entries with a ``ValueError`` naming the alternatives. Both return a
:class:`TransportResult` with the costs and, when asked, the flows. A problem without mass costs 0 (flow all zeros).
"""

from __future__ import annotations

from nlgmetrics.extras import require_extra

require_extra("embed", "nlgmetrics.transport", ("torch", "ot"))  # a MissingExtraError, not ModuleNotFoundError

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from nlgmetrics.errors import OptionError
from nlgmetrics.transport.costs import (
    METRICS, _numpy_costs, _to_numpy64, batched_costs, check_metric, pad_stack, pairwise_costs,
)
from nlgmetrics.transport.exact import check_size, default_threads, emd, emd_batch
from nlgmetrics.transport.relaxed import relaxed_batch, relaxed_clouds
from nlgmetrics.transport.sinkhorn import DEFAULT_REG, sinkhorn_log

METHODS = ("exact", "sinkhorn", "relaxed")
LAZY_COST_ENTRIES = 2**25  # past this many cost entries in one exact batch, costs are built per problem on demand
CHUNK_ENTRIES = 2**24  # padded cost entries per sinkhorn / relaxed chunk (a larger relaxed problem: column blocks)

__all__ = [
    "DEFAULT_REG", "METHODS", "METRICS", "TransportResult", "batched_costs", "default_threads", "emd", "emd_batch",
    "pairwise_costs", "relaxed_batch", "relaxed_clouds", "sinkhorn_log", "solve_batch", "solve_clouds",
]


@dataclass(frozen=True)
class TransportResult:
    """``costs[k]`` = <P_k, M_k> of problem k (float64); ``flows[k]`` = P_k (n_k, m_k) when requested, else None."""

    costs: np.ndarray
    flows: list[np.ndarray] | None = None


def _check_method(method: str) -> str:
    if method not in METHODS:
        raise OptionError(f"unknown transport method {method!r}; choose one of {', '.join(METHODS)}.")
    return method


class _LazyCosts(Sequence):
    """The cost matrices of point-cloud pairs, each built when read (by the exact solver's worker for that problem)."""

    def __init__(self, xs: Sequence, ys: Sequence, metric: str, device, dtype: torch.dtype, unit_rows: bool) -> None:
        self.xs, self.ys, self.metric, self.device, self.dtype, self.unit_rows = xs, ys, metric, device, dtype, unit_rows

    def __len__(self) -> int:
        return len(self.xs)

    def __getitem__(self, k: int) -> np.ndarray:
        x, y = self.xs[k], self.ys[k]
        if (self.device is None or torch.device(self.device).type == "cpu") and self.dtype == torch.float64:
            return np.ascontiguousarray(_numpy_costs(_to_numpy64(x), _to_numpy64(y), self.metric, self.unit_rows))
        return batched_costs([x], [y], self.metric, device=self.device, dtype=self.dtype, unit_rows=self.unit_rows)[0]


def _padded_solve(
    a: Sequence, b: Sequence, M: Sequence | None, method: str, *, reg: float, return_flow: bool, device,
    dtype: torch.dtype, max_iter: int, tol: float, xs: Sequence | None = None, ys: Sequence | None = None,
    metric: str = "euclidean", max_elements: int | None = None,
) -> TransportResult:
    """Sinkhorn / relaxed on zero-padded chunks of similar size (at most ``max_elements`` entries, default
    :data:`CHUNK_ENTRIES`, past the first problem); costs from ``M`` or built from ``xs``/``ys``."""
    max_elements = CHUNK_ENTRIES if max_elements is None else max_elements
    sizes = [(len(a[k]), len(b[k])) for k in range(len(a))]
    order = sorted(range(len(a)), key=lambda k: sizes[k])
    costs = np.zeros(len(a))
    flows: list[np.ndarray | None] = [None] * len(a)
    if method == "relaxed" and xs is not None and not return_flow:  # a problem past a chunk: in blocks of columns
        for k in [k for k in order if sizes[k][0] * sizes[k][1] > max_elements]:
            costs[k] = relaxed_clouds(xs[k], ys[k], a[k], b[k], metric, max_elements=max_elements, device=device,
                                      dtype=dtype)
            order.remove(k)
    start = 0
    while start < len(order):
        stop, n_max, m_max = start, 1, 1
        while stop < len(order):
            n2, m2 = max(n_max, sizes[order[stop]][0]), max(m_max, sizes[order[stop]][1])
            if stop > start and (stop - start + 1) * n2 * m2 > max_elements:
                break
            n_max, m_max, stop = n2, m2, stop + 1
        chunk = order[start:stop]
        A = pad_stack([np.asarray(a[k], dtype=np.float64) for k in chunk], n_max, dtype=dtype, device=device)
        B = pad_stack([np.asarray(b[k], dtype=np.float64) for k in chunk], m_max, dtype=dtype, device=device)
        if M is not None:
            C = torch.zeros((len(chunk), n_max, m_max), dtype=dtype, device=device)
            for row, k in enumerate(chunk):
                C[row, : sizes[k][0], : sizes[k][1]] = torch.as_tensor(M[k]).to(device=device, dtype=dtype)
        else:
            X = pad_stack([xs[k] for k in chunk], n_max, dtype=dtype, device=device)
            Y = pad_stack([ys[k] for k in chunk], m_max, dtype=dtype, device=device)
            C = pairwise_costs(X, Y, metric)
        if method == "sinkhorn":
            cost, plan = sinkhorn_log(A, B, C, reg, max_iter=max_iter, tol=tol)
        else:
            cost, plan = relaxed_batch(A, B, C)
        cost = cost.to("cpu", torch.float64).numpy()
        plan_np = plan.to("cpu", torch.float64).numpy() if return_flow else None
        for row, k in enumerate(chunk):
            costs[k] = cost[row]
            if plan_np is not None:
                flows[k] = np.ascontiguousarray(plan_np[row, : sizes[k][0], : sizes[k][1]])
        start = stop
    return TransportResult(costs, flows if return_flow else None)  # type: ignore[arg-type]


def solve_batch(
    a: Sequence,
    b: Sequence,
    M: Sequence,
    *,
    method: str = "exact",
    reg: float = DEFAULT_REG,
    return_flow: bool = False,
    num_threads: int | None = None,
    device: str | torch.device | None = None,
    dtype: torch.dtype = torch.float64,
    max_iter: int | None = None,
    tol: float = 1e-6,
) -> TransportResult:
    """Solve B problems ``(a[k], b[k], M[k])`` (array-likes, numpy or torch) with ``method``.

    ``num_threads`` applies to ``exact`` (default: usable cores, max 16); ``device``/``dtype``/``reg``/``tol`` to
    ``sinkhorn`` and ``relaxed`` (default CPU, float64).
    """
    _check_method(method)
    if not (len(a) == len(b) == len(M)):
        raise OptionError(f"got {len(a)}, {len(b)} and {len(M)} source, target and cost entries: they must match.")
    if method == "exact":
        to_np = lambda t: t.detach().cpu().numpy() if isinstance(t, torch.Tensor) else t  # noqa: E731
        costs, flows = emd_batch([to_np(x) for x in a], [to_np(x) for x in b], [to_np(x) for x in M],
                                 return_flow=return_flow, num_threads=num_threads,
                                 **({"max_iter": max_iter} if max_iter else {}))
        return TransportResult(costs, flows)
    return _padded_solve(a, b, M, method, reg=reg, return_flow=return_flow, device=device, dtype=dtype,
                         max_iter=max_iter or 1_000, tol=tol)


def solve_clouds(
    xs: Sequence,
    ys: Sequence,
    a: Sequence,
    b: Sequence,
    *,
    metric: str = "euclidean",
    method: str = "exact",
    reg: float = DEFAULT_REG,
    return_flow: bool = False,
    num_threads: int | None = None,
    device: str | torch.device | None = None,
    dtype: torch.dtype = torch.float64,
    max_iter: int | None = None,
    tol: float = 1e-6,
    unit_rows: bool = False,
) -> TransportResult:
    """Transport between point clouds: problem k moves ``a[k]`` on the rows of ``xs[k]`` (n_k, d) to ``b[k]`` on
    the rows of ``ys[k]`` (m_k, d) under the ground ``metric`` (see :mod:`nlgmetrics.transport.costs`).

    Costs are built in zero-padded batches on ``device``; ``exact`` then solves on the CPU thread pool, ``sinkhorn``
    and ``relaxed`` stay on ``device``. ``unit_rows=True`` promises L2-normalised rows (a faster CPU cost path).
    """
    _check_method(method)
    check_metric(metric)
    if not (len(xs) == len(ys) == len(a) == len(b)):
        raise OptionError("xs, ys, a and b must have one entry per problem.")
    for k in range(len(xs)):
        if len(a[k]) != len(xs[k]) or len(b[k]) != len(ys[k]):
            raise OptionError(f"problem {k}: masses ({len(a[k])}, {len(b[k])}) do not match the clouds "
                             f"({len(xs[k])}, {len(ys[k])}).")
    if method == "exact":
        a64 = [np.asarray(x.detach().cpu() if isinstance(x, torch.Tensor) else x, dtype=np.float64) for x in a]
        b64 = [np.asarray(x.detach().cpu() if isinstance(x, torch.Tensor) else x, dtype=np.float64) for x in b]
        for x, y in zip(a64, b64):  # before any cost matrix is built
            check_size(int(np.count_nonzero(x)), int(np.count_nonzero(y)))
        positive = not return_flow and all(x.size and x.min() > 0 for x in a64 + b64)
        if sum(len(x) * len(y) for x, y in zip(xs, ys)) <= LAZY_COST_ENTRIES:
            M = batched_costs(xs, ys, metric, device=device, dtype=dtype, unit_rows=unit_rows)
            finite = all(np.isfinite(m).all() for m in M)
        else:
            M = _LazyCosts(xs, ys, metric, device, dtype, unit_rows)
            finite = all(bool(torch.isfinite(torch.as_tensor(p)).all()) for p in (*xs, *ys))  # finite points
        # masses all positive and every cost finite: the solver can skip its checks and compression
        trusted = positive and finite
        costs, flows = emd_batch(a64, b64, M, return_flow=return_flow, num_threads=num_threads, trusted=trusted,
                                 **({"max_iter": max_iter} if max_iter else {}))
        return TransportResult(costs, flows)
    return _padded_solve(a, b, None, method, reg=reg, return_flow=return_flow, device=device, dtype=dtype,
                         max_iter=max_iter or 1_000, tol=tol, xs=xs, ys=ys, metric=metric)
