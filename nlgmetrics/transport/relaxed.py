"""One-sided ("relaxed") transport: only the target marginal is enforced.

Every target point j sends its mass b_j to its nearest source point that has mass, so::

    RT(a, b, M) = sum_j b_j * min_{i : a_i > 0} M_ij

With b uniform this is the average over target points of the distance to the nearest source point (Kusner et al.'s
relaxed word mover's distance, one direction); it is a lower bound of the exact EMD. Source masses only decide which
points are eligible. A problem with no mass on either side costs 0.
"""

from __future__ import annotations

import numpy as np
import torch


def relaxed_batch(a: torch.Tensor, b: torch.Tensor, M: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Costs (B,) and plans (B, n, m) of a padded batch ``a`` (B, n), ``b`` (B, m), ``M`` (B, n, m)."""
    eligible = (a > 0).unsqueeze(-1)
    inf = torch.tensor(float("inf"), dtype=M.dtype, device=M.device)
    masked = torch.where(eligible, M, inf)
    best, arg = masked.min(dim=-2)  # (B, m)
    empty = ~(a > 0).any(-1)
    weights = torch.where(empty.unsqueeze(-1), torch.zeros_like(b), b)
    cost = (weights * torch.where(torch.isfinite(best), best, torch.zeros_like(best))).sum(-1)
    plan = torch.zeros_like(M)
    plan.scatter_(-2, arg.unsqueeze(-2), weights.unsqueeze(-2))
    return cost, plan


def relaxed_clouds(x, y, a, b, metric: str, *, max_elements: int = 2**24, device=None,
                   dtype: torch.dtype = torch.float64) -> float:
    """RT of one problem given as point clouds ``x`` (n, d), ``y`` (m, d) with masses ``a``, ``b``, the cost matrix
    built ``max_elements`` entries at a time (a block of columns against every source point with mass): memory linear
    in n + m, the value :func:`relaxed_batch` gives on the whole matrix."""
    from nlgmetrics.transport.costs import pairwise_costs

    a = torch.as_tensor(np.asarray(a, dtype=np.float64))
    b = torch.as_tensor(np.asarray(b, dtype=np.float64)).to(device=device, dtype=dtype)
    eligible = a > 0
    if not bool(eligible.any()) or b.numel() == 0:
        return 0.0
    xs = torch.as_tensor(x)[eligible].to(device=device, dtype=dtype)
    ys = torch.as_tensor(y).to(device=device, dtype=dtype)
    best = torch.empty(ys.shape[0], dtype=dtype, device=device)
    step = max(1, max_elements // xs.shape[0])
    for lo in range(0, ys.shape[0], step):
        best[lo : lo + step] = pairwise_costs(xs, ys[lo : lo + step], metric).min(dim=0).values
    return float((b * best).sum())
