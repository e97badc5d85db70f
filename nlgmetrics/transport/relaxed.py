"""One-sided ("relaxed") transport: only the target marginal is enforced.

Every target point j sends its mass b_j to its nearest source point that has mass, so::

    RT(a, b, M) = sum_j b_j * min_{i : a_i > 0} M_ij

With b uniform this is the average over target points of the distance to the nearest source point (Kusner et al.'s
relaxed word mover's distance, one direction); it is a lower bound of the exact EMD. Source masses only decide which
points are eligible. A problem with no mass on either side costs 0.
"""

from __future__ import annotations

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
