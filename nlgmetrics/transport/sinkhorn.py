"""Entropic optimal transport for a padded batch of problems: log-domain Sinkhorn in torch (CPU or CUDA).

For each problem, with histograms ``a`` (n,), ``b`` (m,) of total mass 1 and costs ``M`` (n, m), Sinkhorn solves::

    P_reg = argmin_P <P, M> - reg * H(P)   subject to  P 1 = a,  P^T 1 = b,   H(P) = -sum P_ij (log P_ij - 1)

in the dual (potentials f, g), alternating exact block updates in the log domain so small ``reg`` cannot under- or
overflow::

    f_i <- -reg * LSE_j( log b_j + (g_j - M_ij) / reg )
    g_j <- -reg * LSE_i( log a_i + (f_i - M_ij) / reg )
    P_ij = exp( log a_i + log b_j + (f_i + g_j - M_ij) / reg )

Padding (and any zero mass) has ``log a = -inf`` and receives no flow. The reported cost is the transport cost of the
entropic plan, ``<P_reg, M>``, which tends to the exact EMD as ``reg -> 0`` (the gap is O(reg log(nm))). Iteration stops when
every problem's row-marginal error ``||P 1 - a||_1`` (columns are exact after a g-update) is below ``tol`` (checked
every 10 steps) or after ``max_iter`` steps; before that, epsilon scaling (reg halved from max(M) down to ``reg``,
``scaling_sweeps`` sweeps per level, potentials carried over) makes small ``reg`` converge in far fewer steps. All B
problems advance together: one (B, n, m) logsumexp per half-step, GPU-friendly.
"""

from __future__ import annotations

import warnings

import torch

DEFAULT_REG = 0.01


def _sweep(log_a, log_b, Mr, f, g, eps):
    """One f- then g-update at regularisation ``eps``; ``Mr`` is M / eps."""
    f = -eps * torch.logsumexp(log_b.unsqueeze(-2) + g.unsqueeze(-2) / eps - Mr, dim=-1)
    g = -eps * torch.logsumexp(log_a.unsqueeze(-1) + f.unsqueeze(-1) / eps - Mr, dim=-2)
    return f, g


def sinkhorn_log(
    a: torch.Tensor,
    b: torch.Tensor,
    M: torch.Tensor,
    reg: float = DEFAULT_REG,
    *,
    max_iter: int = 10_000,
    tol: float = 1e-6,
    check_every: int = 10,
    scaling_sweeps: int = 10,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Costs (B,) and plans (B, n, m) of a padded batch: ``a`` (B, n), ``b`` (B, m), ``M`` (B, n, m).

    Both sides of a problem should carry the same total mass s (the plan is solved for mass 1 and scaled by s, the
    total of ``a``); a problem with no mass on either side costs 0 with a zero plan.
    """
    if not (isinstance(reg, (int, float)) and reg > 0):
        raise ValueError(f"reg must be a positive number, got {reg!r}.")
    if a.dim() != 2 or b.dim() != 2 or M.shape != (a.shape[0], a.shape[1], b.shape[1]):
        raise ValueError(f"expected a (B, n), b (B, m), M (B, n, m); got {tuple(a.shape)}, {tuple(b.shape)}, "
                         f"{tuple(M.shape)}.")
    sa, sb = a.sum(-1, keepdim=True), b.sum(-1, keepdim=True)
    empty = (sa.squeeze(-1) <= 0) | (sb.squeeze(-1) <= 0)
    # empty problems get a dummy unit mass on entry 0 so the updates stay finite; their results are zeroed below
    a = torch.where(empty.unsqueeze(-1), torch.nn.functional.one_hot(torch.zeros_like(empty, dtype=torch.long),
                                                                       a.shape[1]).to(a.dtype), a / sa.clamp_min(1e-300))
    b = torch.where(empty.unsqueeze(-1), torch.nn.functional.one_hot(torch.zeros_like(empty, dtype=torch.long),
                                                                       b.shape[1]).to(b.dtype), b / sb.clamp_min(1e-300))
    log_a, log_b = a.log(), b.log()  # -inf on padding
    # rows/columns without mass never receive flow; give them a finite cost so no (-inf) - (+inf) appears
    Mr = torch.where(torch.isfinite(M), M, torch.zeros((), dtype=M.dtype, device=M.device)) / reg
    f = torch.zeros_like(a)
    g = torch.zeros_like(b)
    # epsilon scaling: warm-start from coarse regularisations (halving down to reg), a few sweeps each
    scale = float(Mr.amax()) * reg if Mr.numel() else 0.0
    eps = max(scale, reg)
    while eps > reg:
        for _ in range(scaling_sweeps):
            f, g = _sweep(log_a, log_b, Mr * (reg / eps), f, g, eps)
        eps = max(eps / 2, reg)
    converged = False
    for it in range(1, max_iter + 1):
        f, g = _sweep(log_a, log_b, Mr, f, g, reg)
        if it % check_every == 0 or it == max_iter:
            log_p = log_a.unsqueeze(-1) + log_b.unsqueeze(-2) + (f.unsqueeze(-1) + g.unsqueeze(-2)) / reg - Mr
            # after the g-update columns are exact; the row marginals measure what is left
            err = (log_p.exp().sum(-1) - a).abs().sum(-1)
            if bool((err <= tol).all()):
                converged = True
                break
    log_p = log_a.unsqueeze(-1) + log_b.unsqueeze(-2) + (f.unsqueeze(-1) + g.unsqueeze(-2)) / reg - Mr
    plan = log_p.exp()
    if not converged:
        warnings.warn(f"Sinkhorn did not reach tol={tol:g} in {max_iter} iterations (reg={reg:g}); "
                      "costs are approximate. Raise reg or max_iter.", RuntimeWarning, stacklevel=2)
    # back to the caller's mass scale (the exact solver's convention); empty problems move nothing
    plan = torch.where(empty.view(-1, 1, 1), torch.zeros((), dtype=plan.dtype, device=plan.device),
                       plan * sa.unsqueeze(-1))
    cost = (plan * torch.where(torch.isfinite(M), M, torch.zeros((), dtype=M.dtype, device=M.device))).sum((-2, -1))
    return cost, plan
