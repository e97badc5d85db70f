"""``agree``'s significance clusters beside mt-metrics-eval's on the same work, in one process.

The work: 10 metrics, 3,000 judged segments (seeded synthetic scores: human + noise of ten sizes), Pearson with no
averaging, the permutation test (PERM-BOTH, 1,000 draws) for every pair of metrics (45 pairs), as
mt-metrics-eval's ``CompareMetrics`` computes its significance matrix; each pair is seeded with
``np.random.seed(12345)`` on the mt-metrics-eval side, so both give the same p-values (compared). Our 95% bootstrap
intervals of the 10 metrics (1,000 resamples) are timed too (mt-metrics-eval has none).

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


def mtme_clusters(stats, assign_ranks, human, metrics, k):
    gold = list(human)
    corrs = {name: stats.Correlation(1, gold, list(values)) for name, values in metrics.items()}
    wrapper = stats.AverageCorrelation(scipy.stats.pearsonr, 1, "none")
    values = {name: wrapper(c.gold_scores, c.metric_scores)[0] for name, c in corrs.items()}
    order = sorted(values, key=lambda m: (-values[m], m))
    sig = np.zeros((len(order), len(order)))
    for i in range(len(order)):
        for j in range(i + 1, len(order)):
            np.random.seed(SEED)
            sig[i, j] = stats.PermutationSigDiff(corrs[order[j]], corrs[order[i]], scipy.stats.pearsonr, "none", k)[0]
    return order, sig, assign_ranks(sig, 0.05)


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
    order, theirs, their_ranks = mtme_clusters(stats, assign_ranks, human, metrics, k)
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
        "command": "python -m benchmarks.bench_agree --mtme CHECKOUT" + (" --quick" if args.quick else ""),
    }
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"agree{'-quick' if args.quick else ''}.json").write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
