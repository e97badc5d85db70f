"""Ground costs between two point clouds, one problem or a padded batch of them (torch, any device).

For rows ``x_i`` of ``X`` (n, d) and ``y_j`` of ``Y`` (m, d)::

    euclidean    M_ij = ||x_i - y_j||_2 = sqrt(max(||x_i||^2 + ||y_j||^2 - 2 <x_i, y_j>, 0))
    sqeuclidean  M_ij = ||x_i - y_j||_2^2
    cosine       M_ij = 1 - <x_i, y_j> / (||x_i|| ||y_j||)      (0 where a row is all zeros)

Costs are computed in float64 by default: the expanded euclidean formula loses about sqrt(eps) near zero distance,
which in float32 (3e-4) would be visible in a score, in float64 (1e-8) is not.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from nlgmetrics.errors import OptionError

METRICS = ("euclidean", "sqeuclidean", "cosine")


def check_metric(metric: str) -> str:
    if metric not in METRICS:
        raise OptionError(f"unknown ground metric {metric!r}; choose one of {', '.join(METRICS)}.")
    return metric


def pairwise_costs(x: torch.Tensor, y: torch.Tensor, metric: str = "euclidean") -> torch.Tensor:
    """Cost matrices ``(..., n, m)`` between ``x`` (..., n, d) and ``y`` (..., m, d); batched over leading dims."""
    check_metric(metric)
    if metric == "cosine":
        xn = x / x.norm(dim=-1, keepdim=True).clamp_min(1e-30)
        yn = y / y.norm(dim=-1, keepdim=True).clamp_min(1e-30)
        return 1.0 - xn @ yn.transpose(-2, -1)
    sq = (x * x).sum(-1).unsqueeze(-1) + (y * y).sum(-1).unsqueeze(-2) - 2.0 * (x @ y.transpose(-2, -1))
    sq = sq.clamp_min_(0.0)
    return sq if metric == "sqeuclidean" else sq.sqrt_()


def _numpy_costs(x: np.ndarray, y: np.ndarray, metric: str, unit_rows: bool = False) -> np.ndarray:
    """One problem's costs in float64 numpy (the CPU path: no padding, no torch per-op overhead). ``unit_rows``:
    the rows are known to be L2-normalised, so ||x||^2 = ||y||^2 = 1 and cos = <x, y>."""
    if unit_rows:
        dot = x @ y.T
        if metric == "cosine":
            return np.subtract(1.0, dot, out=dot)
        sq = np.multiply(dot, -2.0, out=dot)
        sq += 2.0
        np.maximum(sq, 0.0, out=sq)
        return sq if metric == "sqeuclidean" else np.sqrt(sq, out=sq)
    if metric == "cosine":
        xn = x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-30)
        yn = y / np.maximum(np.linalg.norm(y, axis=1, keepdims=True), 1e-30)
        return np.ascontiguousarray(1.0 - xn @ yn.T)
    sq = np.einsum("ij,ij->i", x, x)[:, None] + np.einsum("ij,ij->i", y, y)[None, :] - 2.0 * (x @ y.T)
    np.maximum(sq, 0.0, out=sq)
    return sq if metric == "sqeuclidean" else np.sqrt(sq, out=sq)


def _single_threaded_blas():
    """BLAS limited to one thread: for many tiny products OpenBLAS's threads cost far more than they save
    (measured 3-15x slower on a busy 2-core machine)."""
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=1, user_api="blas")


def _to_numpy64(a) -> np.ndarray:
    if isinstance(a, torch.Tensor):
        a = a.detach().cpu().numpy()
    return np.asarray(a, dtype=np.float64)


def pad_stack(
    arrays: Sequence[np.ndarray | torch.Tensor], length: int | None = None, *, dtype=torch.float64, device=None
) -> torch.Tensor:
    """Stack arrays of shape (n_k, ...) into one zero-padded tensor (K, length, ...)."""
    tensors = [torch.as_tensor(a) for a in arrays]
    length = max((t.shape[0] for t in tensors), default=0) if length is None else length
    tail = tuple(tensors[0].shape[1:]) if tensors else ()
    out = torch.zeros((len(tensors), length, *tail), dtype=dtype, device=device)
    for k, t in enumerate(tensors):
        out[k, : t.shape[0]] = t.to(device=device, dtype=dtype)
    return out


def batched_costs(
    xs: Sequence[np.ndarray | torch.Tensor],
    ys: Sequence[np.ndarray | torch.Tensor],
    metric: str = "euclidean",
    *,
    device: str | torch.device | None = None,
    dtype: torch.dtype = torch.float64,
    max_elements: int = 2**24,
    unit_rows: bool = False,
) -> list[np.ndarray]:
    """Cost matrix of every pair ``(xs[k], ys[k])`` as C-contiguous float64 numpy arrays ``(n_k, m_k)``.

    On the CPU (``device`` None or "cpu") each pair is one small float64 numpy product. On another device pairs are
    sorted by size and computed in zero-padded chunks of at most ``max_elements`` cost entries, one batched matmul
    each. ``unit_rows=True`` promises L2-normalised rows (norms are then not recomputed on the CPU path).
    """
    check_metric(metric)
    if len(xs) != len(ys):
        raise OptionError(f"got {len(xs)} source clouds but {len(ys)} target clouds.")
    if (device is None or torch.device(device).type == "cpu") and dtype == torch.float64:
        with _single_threaded_blas():
            return [_numpy_costs(_to_numpy64(x), _to_numpy64(y), metric, unit_rows) for x, y in zip(xs, ys)]
    shapes = [(int(x.shape[0]), int(y.shape[0])) for x, y in zip(xs, ys)]
    order = sorted(range(len(xs)), key=lambda k: shapes[k])
    out: list[np.ndarray | None] = [None] * len(xs)
    start = 0
    while start < len(order):
        stop, n_max, m_max = start, 1, 1
        while stop < len(order):
            n, m = shapes[order[stop]]
            n2, m2 = max(n_max, n), max(m_max, m)
            if stop > start and (stop - start + 1) * n2 * m2 > max_elements:
                break
            n_max, m_max, stop = n2, m2, stop + 1
        chunk = order[start:stop]
        x = pad_stack([xs[k] for k in chunk], n_max, dtype=dtype, device=device)
        y = pad_stack([ys[k] for k in chunk], m_max, dtype=dtype, device=device)
        costs = pairwise_costs(x, y, metric).to("cpu", torch.float64).numpy()
        for row, k in enumerate(chunk):
            n, m = shapes[k]
            out[k] = np.ascontiguousarray(costs[row, :n, :m])
        start = stop
    return out  # type: ignore[return-value]
