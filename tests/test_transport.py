"""The optimal-transport layer on its own: exact EMD against ot.emd2 and a linear program, Sinkhorn against exact,
relaxed transport against its definition, padding / zero mass / bad input."""

from __future__ import annotations

import itertools

import numpy as np
import ot
import pytest
import torch

from nlgmetrics.transport import (
    TransportResult,
    batched_costs,
    emd,
    emd_batch,
    pairwise_costs,
    sinkhorn_log,
    solve_batch,
    solve_clouds,
)


def _problem(rng, n, m, zeros=0):
    a, b = rng.random(n), rng.random(m)
    if zeros:
        a[rng.choice(n, size=min(zeros, n - 1), replace=False)] = 0.0
        b[rng.choice(m, size=min(zeros, m - 1), replace=False)] = 0.0
    return a / a.sum(), b / b.sum(), rng.random((n, m)) * 2


@pytest.fixture(scope="module")
def problems():
    rng = np.random.default_rng(7)
    sizes = [(1, 1), (1, 5), (5, 1), (3, 4), (12, 9), (20, 20), (31, 17), (8, 40)]
    return [_problem(rng, n, m, zeros=(k % 3)) for k, (n, m) in enumerate(sizes * 3)]


def test_exact_matches_ot_emd2(problems):
    a, b, M = zip(*problems)
    for threads in (1, 2):
        res = solve_batch(a, b, M, method="exact", num_threads=threads, return_flow=True)
        assert isinstance(res, TransportResult) and res.costs.shape == (len(problems),)
        for (ak, bk, Mk), cost, flow in zip(problems, res.costs, res.flows):
            assert cost == pytest.approx(ot.emd2(ak, bk, Mk), abs=1e-12)
            np.testing.assert_allclose(flow.sum(1), ak, atol=1e-12)
            np.testing.assert_allclose(flow.sum(0), bk, atol=1e-12)
            assert (flow >= 0).all() and float((flow * Mk).sum()) == pytest.approx(cost, abs=1e-12)


def test_exact_batch_threads_large_batch_matches_serial():
    rng = np.random.default_rng(3)
    probs = [_problem(rng, int(rng.integers(1, 25)), int(rng.integers(1, 25))) for _ in range(80)]
    serial, _ = emd_batch(*zip(*probs), num_threads=1)
    pooled, _ = emd_batch(*zip(*probs), num_threads=3)
    assert np.array_equal(serial, pooled)


def test_exact_matches_linear_program():
    from scipy.optimize import linprog

    rng = np.random.default_rng(11)
    for n, m in [(2, 3), (4, 4), (6, 5)]:
        a, b, M = _problem(rng, n, m)
        rows = [np.kron(np.eye(n)[i], np.ones(m)) for i in range(n)]
        cols = [np.kron(np.ones(n), np.eye(m)[j]) for j in range(m)]
        lp = linprog(M.ravel(), A_eq=np.array(rows + cols), b_eq=np.concatenate([a, b]), bounds=(0, None),
                     method="highs")
        assert emd(a, b, M)[0] == pytest.approx(lp.fun, abs=1e-10)


def test_exact_brute_force_permutations():
    """Uniform masses on n points each: the optimum is a permutation (Birkhoff), so brute force is exact."""
    rng = np.random.default_rng(5)
    n = 5
    M = rng.random((n, n))
    best = min(sum(M[i, p[i]] for i in range(n)) for p in itertools.permutations(range(n))) / n
    u = np.full(n, 1 / n)
    assert emd(u, u, M)[0] == pytest.approx(best, abs=1e-12)


def test_zero_mass_and_bad_input():
    cost, flow = emd(np.zeros(3), np.zeros(2), np.ones((3, 2)), return_flow=True)
    assert cost == 0.0 and flow.shape == (3, 2) and not flow.any()
    with pytest.raises(ValueError, match="equal total mass"):
        emd([1.0, 0.0], [0.5, 0.2], np.ones((2, 2)))
    with pytest.raises(ValueError, match="shape"):
        emd([1.0], [1.0], np.ones((2, 2)))
    with pytest.raises(ValueError, match="non-negative"):
        emd([1.5, -0.5], [1.0], np.ones((2, 1)))
    with pytest.raises(ValueError, match="method"):
        solve_batch([[1.0]], [[1.0]], [np.ones((1, 1))], method="greedy")
    with pytest.raises(ValueError, match="metric"):
        solve_clouds([np.ones((1, 2))], [np.ones((1, 2))], [[1.0]], [[1.0]], metric="manhattan")
    # inf cost on a zero-mass row is fine (never used)
    assert emd([1.0, 0.0], [1.0], np.array([[0.5], [np.inf]]))[0] == 0.5


@pytest.mark.filterwarnings("ignore:Sinkhorn stopped")
def test_sinkhorn_close_to_exact_at_small_reg():
    rng = np.random.default_rng(8)
    problems = [_problem(rng, n, m, zeros=k % 2) for k, (n, m) in enumerate([(1, 4), (3, 4), (12, 9), (16, 16)])]
    a, b, M = zip(*problems)
    exact = solve_batch(a, b, M, method="exact").costs
    gaps = []
    for reg in (0.05, 0.01):
        res = solve_batch(a, b, M, method="sinkhorn", reg=reg, return_flow=True, max_iter=500, tol=1e-6)
        gaps.append(np.abs(res.costs - exact).max())
        for (ak, bk, _), flow in zip(problems, res.flows):
            np.testing.assert_allclose(flow.sum(0), bk, atol=1e-12)  # rounded onto the exact marginals
            np.testing.assert_allclose(flow.sum(1), ak, atol=1e-12)
            assert (flow >= 0).all()
    assert gaps[1] < 2e-3 and gaps[1] < gaps[0]  # the entropic cost tends to the EMD as reg -> 0
    assert (res.costs >= exact - 1e-12).all()  # a feasible plan: never below the optimum


def test_sinkhorn_matches_pot_sinkhorn():
    rng = np.random.default_rng(2)
    a, b, M = _problem(rng, 7, 9)
    reg = 0.1
    plan_pot = ot.sinkhorn(a, b, M, reg, method="sinkhorn_log", stopThr=1e-12, numItermax=100_000)
    cost, plan = sinkhorn_log(torch.tensor(a)[None], torch.tensor(b)[None], torch.tensor(M)[None], reg, tol=1e-12)
    np.testing.assert_allclose(plan[0].numpy(), plan_pot, atol=1e-9)
    assert float(cost[0]) == pytest.approx(float((plan_pot * M).sum()), abs=1e-9)


def test_rounding_gives_exact_marginals():
    from nlgmetrics.transport.sinkhorn import round_to_marginals

    rng = np.random.default_rng(6)
    a = torch.tensor(rng.dirichlet(np.ones(5)))[None]
    b = torch.tensor(np.r_[rng.dirichlet(np.ones(3)), 0.0])[None]  # last column: padding
    plan = torch.rand(1, 5, 4, dtype=torch.float64) * torch.tensor([1.0, 1, 1, 0], dtype=torch.float64) / 10
    rounded, err = round_to_marginals(plan, a, b)
    np.testing.assert_allclose(rounded.sum(-1), a, atol=1e-14)
    np.testing.assert_allclose(rounded.sum(-2), b, atol=1e-14)
    assert (rounded >= 0).all() and float(err[0]) > 0


def test_sinkhorn_padding_and_empty_problems():
    rng = np.random.default_rng(4)
    a, b, M = _problem(rng, 3, 5)
    alone = solve_batch([a], [b], [M], method="sinkhorn", reg=0.05).costs[0]
    big = _problem(rng, 20, 30)
    mixed = solve_batch([a, big[0], np.zeros(2)], [b, big[1], np.zeros(4)], [M, big[2], np.ones((2, 4))],
                        method="sinkhorn", reg=0.05)
    assert mixed.costs[0] == pytest.approx(alone, abs=1e-6)
    assert mixed.costs[2] == 0.0 and np.isfinite(mixed.costs).all()


def test_relaxed_definition(problems):
    a, b, M = zip(*problems)
    res = solve_batch(a, b, M, method="relaxed", return_flow=True)
    exact = solve_batch(a, b, M, method="exact").costs
    for (ak, bk, Mk), cost, flow, ex in zip(problems, res.costs, res.flows, exact):
        expected = sum(bk[j] * Mk[ak > 0, j].min() for j in range(len(bk)))
        assert cost == pytest.approx(expected, abs=1e-12)
        assert cost <= ex + 1e-12  # a lower bound of the exact problem
        np.testing.assert_allclose(flow.sum(0), bk, atol=1e-12)


def test_costs_against_numpy():
    rng = np.random.default_rng(9)
    xs = [rng.normal(size=(n, 6)) for n in (1, 4, 9)]
    ys = [rng.normal(size=(m, 6)) for m in (3, 1, 7)]
    for metric in ("euclidean", "sqeuclidean", "cosine"):
        got = batched_costs(xs, ys, metric)
        padded = batched_costs(xs, ys, metric, dtype=torch.float32, max_elements=30)  # torch path, several chunks
        for c, p in zip(got, padded):
            np.testing.assert_allclose(c, p, atol=1e-5)
        for x, y, c in zip(xs, ys, got):
            diff = x[:, None, :] - y[None, :, :]
            if metric == "euclidean":
                want = np.sqrt((diff**2).sum(-1))
            elif metric == "sqeuclidean":
                want = (diff**2).sum(-1)
            else:
                want = 1 - (x / np.linalg.norm(x, axis=1, keepdims=True)) @ (y / np.linalg.norm(y, axis=1,
                                                                                                 keepdims=True)).T
            np.testing.assert_allclose(c, want, atol=1e-12)
        unit = [x / np.linalg.norm(x, axis=1, keepdims=True) for x in xs]
        unit_y = [y / np.linalg.norm(y, axis=1, keepdims=True) for y in ys]
        for c1, c2 in zip(batched_costs(unit, unit_y, metric), batched_costs(unit, unit_y, metric, unit_rows=True)):
            np.testing.assert_allclose(c1, c2, atol=1e-12)
    same = pairwise_costs(torch.tensor(xs[1]), torch.tensor(xs[1]))
    assert float(same.diagonal().abs().max()) < 1e-6


def test_solve_clouds_all_methods_agree_with_matrices():
    rng = np.random.default_rng(1)
    xs = [rng.normal(size=(n, 5)) for n in (3, 6, 2)]
    ys = [rng.normal(size=(m, 5)) for m in (4, 2, 5)]
    a = [np.full(len(x), 1 / len(x)) for x in xs]
    b = [rng.dirichlet(np.ones(len(y))) for y in ys]
    M = batched_costs(xs, ys, "euclidean")
    for method in ("exact", "sinkhorn", "relaxed"):
        from_clouds = solve_clouds(xs, ys, a, b, method=method, reg=0.05).costs
        from_matrices = solve_batch(a, b, M, method=method, reg=0.05).costs
        np.testing.assert_allclose(from_clouds, from_matrices, atol=1e-10)


# -- bounded memory on large problems ---------------------------------------------------------------------------------
def _clouds(rng, sizes, d=16):
    def unit(n):
        x = rng.normal(size=(n, d))
        return x / np.linalg.norm(x, axis=1, keepdims=True)

    xs, ys = [unit(n) for n, _ in sizes], [unit(m) for _, m in sizes]
    a = [rng.random(n) + 0.1 for n, _ in sizes]
    b = [rng.random(m) + 0.1 for _, m in sizes]
    return xs, ys, [x / x.sum() for x in a], [y / y.sum() for y in b]


def test_exact_costs_built_per_problem_give_the_same_costs(monkeypatch):
    from nlgmetrics import transport

    xs, ys, a, b = _clouds(np.random.default_rng(5), [(30, 20), (7, 45), (60, 60), (1, 3)] * 10)
    eager = solve_clouds(xs, ys, a, b, method="exact", unit_rows=True).costs
    built = []
    real = transport._numpy_costs
    monkeypatch.setattr(transport, "_numpy_costs", lambda *args: built.append(1) or real(*args))
    monkeypatch.setattr(transport, "LAZY_COST_ENTRIES", 0)  # every batch "large": costs built inside the workers
    lazy = solve_clouds(xs, ys, a, b, method="exact", unit_rows=True, num_threads=2).costs
    assert len(built) == len(xs) and np.array_equal(lazy, eager)


def test_relaxed_in_blocks_equals_the_whole_matrix():
    from nlgmetrics.transport import relaxed_batch, relaxed_clouds

    rng = np.random.default_rng(11)
    (x,), (y,), (a,), (b,) = _clouds(rng, [(300, 250)])
    a[::7] = 0.0  # points without mass are never a nearest neighbour
    for metric in ("euclidean", "cosine"):
        M = pairwise_costs(torch.from_numpy(x), torch.from_numpy(y), metric)
        whole, _ = relaxed_batch(torch.from_numpy(a)[None], torch.from_numpy(b)[None], M[None])
        for limit in (1, 999, 300 * 40):
            assert relaxed_clouds(x, y, a, b, metric, max_elements=limit) == pytest.approx(float(whole[0]), abs=1e-12)
    assert relaxed_clouds(x, y, np.zeros_like(a), b, "euclidean") == 0.0


def test_exact_solver_refuses_problems_past_its_limit(monkeypatch):
    from nlgmetrics.transport import exact

    monkeypatch.setattr(exact, "MAX_ENTRIES", 100)
    a, b, M = _problem(np.random.default_rng(1), 11, 10)
    with pytest.raises(ValueError, match="beyond the exact solver's limit of 100 entries.*method='relaxed'"):
        emd(a, b, M)
    assert emd(a[:10] / a[:10].sum(), b, M[:10])[0] > 0  # 10 x 10 = 100 entries: allowed
    xs, ys, ma, mb = _clouds(np.random.default_rng(2), [(11, 10)])
    with pytest.raises(ValueError, match="limit"):
        solve_clouds(xs, ys, ma, mb, method="exact")
    assert solve_clouds(xs, ys, ma, mb, method="relaxed").costs[0] > 0


def test_relaxed_problems_past_a_chunk_are_solved_in_blocks(monkeypatch):
    from nlgmetrics import transport

    xs, ys, a, b = _clouds(np.random.default_rng(4), [(30, 20), (5, 6), (40, 35)])
    whole = solve_clouds(xs, ys, a, b, method="relaxed").costs
    blocked = []
    real = transport.relaxed_clouds
    monkeypatch.setattr(transport, "relaxed_clouds", lambda *args, **kw: blocked.append(kw) or real(*args, **kw))
    monkeypatch.setattr(transport, "CHUNK_ENTRIES", 100)
    np.testing.assert_allclose(solve_clouds(xs, ys, a, b, method="relaxed").costs, whole, rtol=0, atol=1e-12)
    assert len(blocked) == 2 and all(kw["max_elements"] == 100 for kw in blocked)  # 30 x 20 and 40 x 35
