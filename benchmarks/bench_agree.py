"""``agree``'s significance clusters beside mt-metrics-eval's on the same work, in one process.

The work: 10 metrics, 3,000 judged segments (seeded synthetic scores: human + noise of ten sizes), Pearson with no
averaging, the permutation test (PERM-BOTH, 1,000 draws) for every pair of metrics (45 pairs), as
mt-metrics-eval's ``CompareMetrics`` computes its significance matrix; each pair is seeded with
``np.random.seed(12345)`` on the mt-metrics-eval side, so both give the same p-values (compared). Our 95% bootstrap
intervals of the 10 metrics (1,000 resamples) are timed too (mt-metrics-eval has none).

The new statistics, the same way (seeded systems x items matrices: 12 systems x 250 items = 3,000 cells):

- ``spa``: the significance clusters of 4 metrics (6 pairs x 1,000 draws) beside mt-metrics-eval's
  ``PermutationSigDiff`` with its ``PairwiseConfidenceError`` (as ``CompareMetricsWithPairwiseConfidenceError``);
  both give the same p-values (compared for equality);
- ``pdp`` (by item): the values of 10 metrics beside ``Correlation.Pearson(pdp=True)``, and the permutation test of
  3 metric pairs (200 draws) beside ``PermutationSigDiff`` with its PDP as the statistic (mt-metrics-eval has no PDP
  test of its own; see benchmarks/mtme_oracle_spa.py).

mt-metrics-eval is imported from a local checkout (see benchmarks/mtme_oracle.py; never ``pip install
mt-metrics-eval``, an unrelated package):

    python -m benchmarks.bench_agree --mtme /tmp/mtme [--quick]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import scipy.stats

from benchmarks.mtme_oracle import SEED, load_mtme
from nlgmetrics.agreement import statistics as A

RESULTS = Path(__file__).resolve().parent / "results"


def workload(n_metrics: int, n_segments: int) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    rng = np.random.default_rng(SEED)
    human = rng.normal(size=n_segments)
    metrics = {f"m{k}": human + (0.8 + 0.05 * k) * rng.normal(size=n_segments) for k in range(n_metrics)}
    return human, metrics


def mtme_clusters(stats, assign_ranks, corrs, value, statistic, k):
    """mt-metrics-eval's significance clusters: its metrics ranked by ``value(gold, metric)``, then
    ``PermutationSigDiff`` with ``statistic`` for every pair (numpy reseeded per pair, as its scripts do)."""
    values = {name: value(c.gold_scores, c.metric_scores)[0] for name, c in corrs.items()}
    order = sorted(values, key=lambda m: (-values[m], m))
    sig = np.zeros((len(order), len(order)))
    for i in range(len(order)):
        for j in range(i + 1, len(order)):
            np.random.seed(SEED)
            sig[i, j] = stats.PermutationSigDiff(corrs[order[j]], corrs[order[i]], statistic, "none", k)[0]
    return order, values, sig, assign_ranks(sig, 0.05)


def matrix_workload(n_metrics: int, n_sys: int = 12, n_items: int = 250) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """MQM-like human scores (0.1-point steps) and metrics of ten noise sizes on a systems x items matrix."""
    rng = np.random.default_rng(SEED)
    quality = rng.normal(0, 0.5, (n_sys, 1)) + rng.normal(0, 1, (1, n_items))
    human = np.round(-np.abs(quality + rng.normal(0, 1, (n_sys, n_items))), 1)
    metrics = {f"m{k}": quality + (0.8 + 0.05 * k) * rng.normal(size=(n_sys, n_items)) for k in range(n_metrics)}
    return human, metrics


def _mtme_corr(stats, human: np.ndarray, metric: np.ndarray):
    return stats.Correlation(len(human), list(human.ravel()), list(metric.ravel()))


def new_statistics(stats, assign_ranks, quick: bool) -> dict:
    """spa clusters and pdp values/tests, ours beside mt-metrics-eval's (same seeds, compared)."""
    import functools

    n_spa, k_spa = (3, 200) if quick else (4, 1000)
    human, metrics = matrix_workload(10)
    out = {}
    spa_metrics = dict(list(metrics.items())[:n_spa])
    start = time.perf_counter()
    names, results, ours, ranks = A.significance_clusters(human, spa_metrics, "spa", k=k_spa, seed=SEED)
    ours_s = time.perf_counter() - start
    start = time.perf_counter()
    corrs = {m: _mtme_corr(stats, human, v) for m, v in spa_metrics.items()}
    wrapper = functools.partial(stats.PairwiseConfidenceError, num_sys=len(human), filter_nones=False)
    order, values, theirs, their_ranks = mtme_clusters(stats, assign_ranks, corrs, wrapper, wrapper, k_spa)
    mtme_s = time.perf_counter() - start
    out["spa_clusters"] = {
        "work": f"{n_spa} metrics, {human.shape[0]} systems x {human.shape[1]} items, "
                f"{n_spa * (n_spa - 1) // 2} pairs x {k_spa} draws", "ours_s": round(ours_s, 3),
        "mt_metrics_eval_s": round(mtme_s, 3), "speedup": round(mtme_s / ours_s, 1), "same_order": names == order,
        "same_values": [r.value for r in results] == [values[m] for m in order],
        "same_pvalues": bool(np.array_equal(ours, theirs)),
        "same_ranks": ranks == [int(r) for r in their_ranks]}

    start = time.perf_counter()
    ours_values = {m: A.correlation(human, v, "pdp", "item").value for m, v in metrics.items()}
    ours_s = time.perf_counter() - start
    start = time.perf_counter()
    their_values = {m: _mtme_corr(stats, human, v).Pearson("item", pdp=True)[0] for m, v in metrics.items()}
    mtme_s = time.perf_counter() - start
    out["pdp_values"] = {
        "work": f"{len(metrics)} metrics, {human.shape[0]} systems x {human.shape[1]} items, by item",
        "ours_s": round(ours_s, 4), "mt_metrics_eval_s": round(mtme_s, 3), "speedup": round(mtme_s / ours_s, 1),
        "max_abs_diff": max(abs(ours_values[m] - their_values[m]) for m in metrics)}

    pairs, k_pdp = [("m0", "m1"), ("m1", "m2"), ("m0", "m2")][: 1 if quick else 3], 100 if quick else 200
    start = time.perf_counter()
    ours_p = [A.permutation_test(human, metrics[a], metrics[b], "pdp", "item", k=k_pdp, seed=SEED)[0]
              for a, b in pairs]
    ours_s = time.perf_counter() - start
    start = time.perf_counter()
    their_p = []
    for a, b in pairs:
        c1, c2 = _mtme_corr(stats, human, metrics[a]), _mtme_corr(stats, human, metrics[b])

        def pdp(gold, metric, corr=c1):
            return stats.AverageCorrelation(scipy.stats.pearsonr, corr.num_sys, "item", pdp=True)(
                corr.gold_scores, list(metric))[:1]

        np.random.seed(SEED)
        their_p.append(stats.PermutationSigDiff(c1, c2, pdp, "none", k_pdp)[0])
    mtme_s = time.perf_counter() - start
    out["pdp_permutation"] = {
        "work": f"{len(pairs)} metric pairs x {k_pdp} draws, by item", "ours_s": round(ours_s, 3),
        "mt_metrics_eval_s": round(mtme_s, 3), "speedup": round(mtme_s / ours_s, 1),
        "max_abs_p_diff": float(np.abs(np.array(ours_p) - np.array(their_p)).max())}
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mtme", type=Path, required=True, help="a local checkout of google-research/mt-metrics-eval")
    parser.add_argument("--quick", action="store_true", help="4 metrics, 6 pairs")
    args = parser.parse_args()
    stats, assign_ranks = load_mtme(args.mtme)
    warnings.simplefilter("ignore")
    n_metrics, n_segments, k = (4 if args.quick else 10), 3000, 1000
    human, metrics = workload(n_metrics, n_segments)

    start = time.perf_counter()
    names, _, ours, ranks = A.significance_clusters(human, metrics, "pearson", "none", k=k, seed=SEED)
    ours_s = time.perf_counter() - start
    start = time.perf_counter()
    corrs = {name: stats.Correlation(1, list(human), list(values)) for name, values in metrics.items()}
    pearson = stats.AverageCorrelation(scipy.stats.pearsonr, 1, "none")
    order, _, theirs, their_ranks = mtme_clusters(stats, assign_ranks, corrs, pearson, scipy.stats.pearsonr, k)
    mtme_s = time.perf_counter() - start
    start = time.perf_counter()
    for values in metrics.values():
        A.bootstrap_interval(human, values, "pearson", "none", n_resamples=1000, seed=SEED)
    bootstrap_s = time.perf_counter() - start

    result = {
        "work": f"{n_metrics} metrics x {n_segments} segments, Pearson, {n_metrics * (n_metrics - 1) // 2} pairs x "
                f"{k} permutation draws",
        "ours_s": round(ours_s, 3), "mt_metrics_eval_s": round(mtme_s, 3), "speedup": round(mtme_s / ours_s, 1),
        "same_order": names == order, "same_ranks": ranks == [int(r) for r in their_ranks],
        "max_abs_p_diff": float(np.abs(ours - theirs).max()),
        "bootstrap_1000_resamples_all_metrics_s": round(bootstrap_s, 3),
        **new_statistics(stats, assign_ranks, args.quick),
        "command": "python -m benchmarks.bench_agree --mtme CHECKOUT" + (" --quick" if args.quick else ""),
    }
    parts = [result, *(result[key] for key in ("spa_clusters", "pdp_values", "pdp_permutation"))]
    result["all_ours_s"] = round(sum(part["ours_s"] for part in parts), 3)
    result["all_mt_metrics_eval_s"] = round(sum(part["mt_metrics_eval_s"] for part in parts), 3)
    result["all_speedup"] = round(result["all_mt_metrics_eval_s"] / result["all_ours_s"], 1)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"agree{'-quick' if args.quick else ''}.json").write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
