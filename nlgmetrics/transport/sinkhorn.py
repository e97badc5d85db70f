"""Entropic optimal transport for a padded batch of problems: log-domain Sinkhorn in torch (CPU or CUDA).

For each problem, with histograms ``a`` (n,), ``b`` (m,) of total mass 1 and costs ``M`` (n, m), Sinkhorn solves::

    P_reg = argmin_P <P, M> - reg * H(P)   subject to  P 1 = a,  P^T 1 = b,   H(P) = -sum P_ij (log P_ij - 1)

in the dual (potentials f, g), alternating exact block updates in the log domain so small ``reg`` cannot under- or
overflow::

    f_i <- -reg * LSE_j( log b_j + (g_j - M_ij) / reg )
    g_j <- -reg * LSE_i( log a_i + (f_i - M_ij) / reg )
    P_ij = exp( log a_i + log b_j + (f_i + g_j - M_ij) / reg )

Padding (and any zero mass) has ``log a = -inf`` and receives no flow. Iteration stops when every problem's
row-marginal error ``||P 1 - a||_1`` (columns are exact after a g-update) is below ``tol`` (checked every 10 steps) or
after ``max_iter`` steps; before that, epsilon scaling (reg halved from max(M) down to ``reg``, ``scaling_sweeps``
sweeps per level, potentials carried over) makes small ``reg`` converge in far fewer steps. The last plan is rounded
onto the exact marginals (Altschuler et al., 2017; a change of the order of the remaining marginal error), so the
reported cost ``<P_reg, M>`` is that of a feasible plan: an upper bound of the EMD that tends to it as ``reg -> 0``
(gap O(reg log(nm))). All B problems advance together, one (B, n, m) logsumexp per half-step: GPU-friendly.
"""

from __future__ import annotations

import warnings
from contextlib import contextmanager

import torch

from nlgmetrics.errors import OptionError

DEFAULT_REG = 0.01


SMALL_CPU_BATCH = 2**20


@contextmanager
def _serial_if_small(M: torch.Tensor):
    """Small batches on CPU run single-threaded: for (B, n, m) of a few thousand entries torch's intra-op threads
    cost more than they save (10-100x slower logsumexp when the cores are busy)."""
    if M.device.type != "cpu" or M.numel() > SMALL_CPU_BATCH or torch.get_num_threads() == 1:
        yield
        return
    previous = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(previous)


def round_to_marginals(plan: torch.Tensor, a: torch.Tensor, b: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Altschuler et al. (2017)'s rounding: the nearby plan with exactly the marginals ``a``, ``b`` (and the L1
    row-marginal error before rounding). Scale rows down to ``a``, columns down to ``b``, then add the rank-one
    correction ``e_r e_c^T / ||e_r||_1`` for the mass still missing."""
    rows = plan.sum(-1)
    err = (rows - a).abs().sum(-1)
    zero = torch.zeros((), dtype=plan.dtype, device=plan.device)
    plan = plan * torch.where(rows > a, a / rows.clamp_min(1e-300), torch.ones_like(a)).unsqueeze(-1)
    cols = plan.sum(-2)
    plan = plan * torch.where(cols > b, b / cols.clamp_min(1e-300), torch.ones_like(b)).unsqueeze(-2)
    e_r = (a - plan.sum(-1)).clamp_min(0)
    e_c = (b - plan.sum(-2)).clamp_min(0)
    total = e_r.sum(-1, keepdim=True)
    plan = plan + torch.where(total > 0, e_r / total.clamp_min(1e-300), zero).unsqueeze(-1) * e_c.unsqueeze(-2)
    return plan, err


def _sweep(log_a, log_b, Mr, f, g, eps):
    """One f- then g-update at regularisation ``eps``; ``Mr`` is M / eps."""
    f = -eps * torch.logsumexp(log_b.unsqueeze(-2) + g.unsqueeze(-2) / eps - Mr, dim=-1)
    g = -eps * torch.logsumexp(log_a.unsqueeze(-1) + f.unsqueeze(-1) / eps - Mr, dim=-2)
    return f, g


def sinkhorn_log(*args, **kwargs) -> tuple[torch.Tensor, torch.Tensor]:
    """Costs (B,) and plans (B, n, m) of a padded batch: ``a`` (B, n), ``b`` (B, m), ``M`` (B, n, m), ``reg``.

    Keywords: ``max_iter`` (1000), ``tol`` (1e-6), ``check_every`` (10), ``scaling_sweeps`` (10). Both sides of a
    problem should carry the same total mass s (the plan is solved for mass 1 and scaled by s, the total of ``a``); a
    problem with no mass on either side costs 0 with a zero plan.
    """
    M = kwargs["M"] if "M" in kwargs else args[2]
    with _serial_if_small(M):
        return _sinkhorn_log(*args, **kwargs)


def _sinkhorn_log(
    a: torch.Tensor,
    b: torch.Tensor,
    M: torch.Tensor,
    reg: float = DEFAULT_REG,
    *,
    max_iter: int = 1_000,
    tol: float = 1e-6,
    check_every: int = 10,
    scaling_sweeps: int = 10,
) -> tuple[torch.Tensor, torch.Tensor]:
    if not (isinstance(reg, (int, float)) and reg > 0):
        raise OptionError(f"reg must be a positive number, got {reg!r}.")
    if a.dim() != 2 or b.dim() != 2 or M.shape != (a.shape[0], a.shape[1], b.shape[1]):
        raise OptionError(f"expected a (B, n), b (B, m), M (B, n, m); got {tuple(a.shape)}, {tuple(b.shape)}, "
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
    plan, err = round_to_marginals(log_p.exp(), a, b)
    if not converged and bool((err > 1e-3).any()):
        warnings.warn(f"Sinkhorn stopped after {max_iter} iterations (reg={reg:g}) with a marginal error up to "
                      f"{float(err.max()):.1e} before rounding; costs are approximate. Raise reg or max_iter.",
                      RuntimeWarning, stacklevel=2)
    # back to the caller's mass scale (the exact solver's convention); empty problems move nothing
    plan = torch.where(empty.view(-1, 1, 1), torch.zeros((), dtype=plan.dtype, device=plan.device),
                       plan * sa.unsqueeze(-1))
    cost = (plan * torch.where(torch.isfinite(M), M, torch.zeros((), dtype=M.dtype, device=M.device))).sum((-2, -1))
    return cost, plan
