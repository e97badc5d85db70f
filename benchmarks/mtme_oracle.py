"""Record mt-metrics-eval's own statistics as the test oracle of ``nlgmetrics.agreement``.

Writes tests/data/mtme_oracle.json.gz.

mt-metrics-eval (github.com/google-research/mt-metrics-eval, Apache-2.0) is not a dependency and is never vendored:
this script imports ``mt_metrics_eval.stats`` from a local checkout given on the command line (it needs numpy and
scipy only; ``AssignRanks`` is compiled from ``data.py`` alone, whose imports need apache_beam and dacite). Do not
``pip install mt-metrics-eval``: that PyPI name belongs to an unrelated package.

    git clone https://github.com/google-research/mt-metrics-eval /tmp/mtme
    python -m benchmarks.mtme_oracle --mtme /tmp/mtme [--data ../shared/data] [--out tests/data/mtme_oracle.json.gz]

Inputs (stored in the fixture with the outputs): WMT17 DA de-en and cs-en (every judged segment; metric scores are
sentence BLEU and sentence chrF, which equal sacrebleu's, a length count and the human score plus seeded noise) and
synthetic data with ties and missing judgments (DARR needs several systems per segment on a 0-100 scale).
"""

from __future__ import annotations

import argparse
import ast
import gzip
import json
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import scipy.stats

from benchmarks.common import DEFAULT_DATA
from nlgmetrics.agreement.records import read_wmt_da
from nlgmetrics.registry import get_metric

SEED = 12345


def load_mtme(path: Path):
    """mt_metrics_eval's stats module, and AssignRanks compiled from the checkout's data.py (whose module imports
    apache_beam and dacite, which its stats functions do not need)."""
    sys.path.insert(0, str(path))
    from mt_metrics_eval import stats  # noqa: PLC0415

    tree = ast.parse((path / "mt_metrics_eval" / "data.py").read_text())
    function = next(node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == "AssignRanks")
    namespace: dict = {}
    exec(compile(ast.Module([function], []), "mt_metrics_eval/data.py", "exec"), namespace)
    return stats, namespace["AssignRanks"]


def wmt_dataset(data: Path, pair: str) -> dict:
    judgments = read_wmt_da(data / "wmt17-da" / "DA-seglevel.csv", pair, texts=data / "wmt17-da")
    cells = [(s, i) for s in range(len(judgments.systems)) for i in range(len(judgments.items))
             if not np.isnan(judgments.human[s, i])]
    hyps = [judgments.hypotheses[s][i] for s, i in cells]
    refs = [judgments.references[i][0] for s, i in cells]
    scores = {
        "sentbleu": get_metric("bleu")(hyps, refs, sentence_scores=True)["scores"],
        "chrf": get_metric("chrf")(hyps, refs, sentence_scores=True)["scores"],
        "length": [float(len(h.split())) for h in hyps],
    }
    rng = np.random.default_rng(SEED)
    scores["human_noisy"] = list(np.array([judgments.human[c] for c in cells]) + rng.normal(size=len(cells)))
    metrics = {}
    for name, values in scores.items():
        matrix = np.full(judgments.human.shape, np.nan)
        for (s, i), value in zip(cells, values):
            matrix[s, i] = value
        metrics[name] = matrix
    return {"systems": judgments.systems, "items": judgments.items, "human": judgments.human, "metrics": metrics,
            "threshold": 0.5}


def synthetic_dataset(n_sys: int, n_items: int, seed: int, missing: float) -> dict:
    rng = np.random.default_rng(seed)
    quality = rng.normal(0, 1, (n_sys, 1)) + rng.normal(0, 1, (1, n_items))
    human = np.clip(np.round((50 + 15 * (quality + rng.normal(0, 0.7, (n_sys, n_items)))) / 5) * 5, 0, 100)
    metrics = {
        "fine": np.round(quality + rng.normal(0, 0.6, quality.shape), 2),
        "coarse": np.round(quality + rng.normal(0, 0.8, quality.shape)),  # many ties
        "noise": rng.integers(0, 4, quality.shape).astype(float),
        "partly_constant": np.round(quality + rng.normal(0, 0.6, quality.shape), 1),
    }
    metrics["partly_constant"][:, : max(1, n_items // 5)] = 0.5  # constant over some items
    metrics["partly_constant"][: max(1, n_sys // 3)] = 0.25  # and over some systems
    human[rng.random(human.shape) < missing] = np.nan
    return {"systems": [f"sys{k}" for k in range(n_sys)], "items": [str(k) for k in range(n_items)],
            "human": human, "metrics": metrics, "threshold": 25.0}


def flat(matrix: np.ndarray, fill: float | None) -> list:
    return [fill if np.isnan(v) else float(v) for v in matrix.ravel()]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mtme", type=Path, required=True, help="a local checkout of google-research/mt-metrics-eval")
    parser.add_argument("--commit", default=None, help="the checkout's commit (default: git rev-parse HEAD there)")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--out", type=Path,
                        default=Path(__file__).resolve().parent.parent / "tests" / "data" / "mtme_oracle.json.gz")
    args = parser.parse_args()
    if not args.out.name.endswith(".json.gz") or (args.out.exists() and args.out.read_bytes()[:2] != b"\x1f\x8b"):
        sys.exit(f"--out {args.out}: give a .json.gz path (an existing file is replaced only if it is gzip)")
    commit = args.commit or subprocess.run(["git", "-C", str(args.mtme), "rev-parse", "HEAD"], capture_output=True,
                                           text=True, check=True).stdout.strip()
    stats, assign_ranks = load_mtme(args.mtme)
    warnings.simplefilter("ignore")

    datasets = {"wmt17-de-en": wmt_dataset(args.data, "de-en"), "wmt17-cs-en": wmt_dataset(args.data, "cs-en"),
                "synthetic": synthetic_dataset(6, 40, 1, 0.1), "synthetic-full": synthetic_dataset(5, 30, 2, 0.0)}
    system = synthetic_dataset(12, 1, 3, 0.0)
    datasets["synthetic-system"] = system
    functions = {"pearson": scipy.stats.pearsonr, "spearman": scipy.stats.spearmanr,
                 "kendall_b": scipy.stats.kendalltau}
    cases = []

    def corr(name, metric):
        d = datasets[name]
        return stats.Correlation(len(d["systems"]), flat(d["human"], None), flat(d["metrics"][metric], 0.0))

    for name, d in datasets.items():
        n_sys = len(d["systems"])
        averages = ["none"] if name == "synthetic-system" else ["none", "item", "sys"]
        for metric in d["metrics"]:
            c = corr(name, metric)
            for average in averages:
                for stat, fn, extra in [*((s, f, {}) for s, f in functions.items()),
                                        ("kendall_c", scipy.stats.kendalltau, {"variant": "c"}),
                                        ("accuracy", stats.KendallVariants, {"variant": "acc23"})]:
                    value, _, n = stats.AverageCorrelation(fn, n_sys, average, **extra)(c.gold_scores, c.metric_scores)
                    cases.append({"kind": "correlation", "dataset": name, "metric": metric, "statistic": stat,
                                  "average_by": average, "value": float(value), "n": float(n)})
                value, _, n = stats.AverageCorrelation(stats.KendallLike, n_sys, average, macro=False,
                                                       thresh=d["threshold"])(c.gold_scores, c.metric_scores)
                cases.append({"kind": "correlation", "dataset": name, "metric": metric, "statistic": "kendall_like",
                              "average_by": average, "threshold": d["threshold"], "value": float(value),
                              "n": float(n)})
                if name != "wmt17-cs-en":
                    tau, epsilon, result = stats.KendallWithTiesOpt(c.gold_scores, c.metric_scores, "acc23", n_sys,
                                                                    average, sample_rate=1.0)
                    cases.append({"kind": "correlation", "dataset": name, "metric": metric, "statistic": "acc_eq",
                                  "average_by": average, "value": float(tau), "epsilon": float(epsilon),
                                  "n": float(len(result.taus))})
        if name == "synthetic-system":
            for metric in d["metrics"]:
                c = corr(name, metric)
                agree, pairs = stats.Agreement(c.gold_scores, c.metric_scores)
                cases.append({"kind": "agreement", "dataset": name, "metric": metric, "value": float(agree / pairs)})

    # mt-metrics-eval's own unit-test data (stats_test.PermutationSigDiffTest): 4 systems x 2 items, so by system
    # every group has two cells, whose Pearson scipy gives as exactly +-1
    datasets["mtme-test"] = {
        "systems": [f"sys{k}" for k in range(4)], "items": ["0", "1"], "threshold": 25.0,
        "human": np.array([1, 2, 3, 4, 5, 5, 7, 8], dtype=float).reshape(4, 2),
        "metrics": {"metric1": np.array([1, 2, 3, 3, 7, 3, 5, 5], dtype=float).reshape(4, 2),
                    "metric2": np.array([2, 1, 2, 6, 8, 8, 7, 6], dtype=float).reshape(4, 2)}}
    permutations = [
        ("mtme-test", "metric1", "metric2", "pearson", "sys", 1000, 1000),
        ("mtme-test", "metric1", "metric2", "pearson", "item", 1000, 1000),
        ("wmt17-cs-en", "chrf", "sentbleu", "accuracy", "item", 1000, 1000, 777),
        ("synthetic", "coarse", "fine", "accuracy", "sys", 300, 100),
        ("mtme-test", "metric1", "metric2", "acc_eq", "item", 10, 10),
        ("synthetic-full", "coarse", "fine", "acc_eq", "item", 100, 100),
        ("synthetic", "coarse", "partly_constant", "acc_eq", "item", 100, 100),  # 10% of human scores missing
        ("synthetic", "coarse", "partly_constant", "acc_eq", "none", 100, 100),
        ("synthetic-full", "coarse", "partly_constant", "acc_eq", "none", 100, 100),
        ("wmt17-de-en", "sentbleu", "chrf", "pearson", "none", 1000, 1000),
        ("wmt17-de-en", "length", "sentbleu", "pearson", "none", 1000, 1000),
        ("wmt17-cs-en", "chrf", "sentbleu", "spearman", "none", 300, 100),
        ("wmt17-de-en", "chrf", "sentbleu", "kendall_b", "none", 200, 100),
        ("synthetic", "coarse", "fine", "pearson", "item", 400, 100),
        ("synthetic", "fine", "coarse", "pearson", "sys", 400, 100),
        ("synthetic", "noise", "coarse", "kendall_b", "item", 300, 100),
        ("synthetic", "coarse", "fine", "spearman", "sys", 300, 1000),
        ("synthetic", "coarse", "partly_constant", "pearson", "item", 300, 1000),
    ]
    tests = {**{s: (f, {}) for s, f in functions.items()},
             "accuracy": (stats.KendallVariants, {"variant": "acc23"}),
             "acc_eq": (stats.KendallWithTiesOpt, {"variant": "acc23", "sample_rate": 1.0})}
    for name, first, second, stat, average, k, block, *seed in permutations:
        seed = seed[0] if seed else SEED
        np.random.seed(seed)
        function, extra = tests[stat]
        p, delta, used, _ = stats.PermutationSigDiff(
            corr(name, first), corr(name, second), function, average, k,
            stats.PermutationSigDiffParams(block_size=block), **extra)
        cases.append({"kind": "permutation", "dataset": name, "metric_a": first, "metric_b": second,
                      "statistic": stat, "average_by": average, "k": k, "block_size": block, "seed": seed,
                      "p_value": float(p), "delta": float(delta), "draws": int(used)})

    for first, second in [("fine", "coarse"), ("noise", "fine")]:
        c1, c2 = corr("synthetic-full", first), corr("synthetic-full", second)
        wrapper = stats.AverageCorrelation(scipy.stats.pearsonr, len(datasets["synthetic-full"]["systems"]), "none")
        p, r1, r2 = stats.WilliamsSigDiff(c1, c2, wrapper)
        cases.append({"kind": "williams", "dataset": "synthetic-full", "metric_a": first, "metric_b": second,
                      "p_value": float(p), "r_a": float(r1), "r_b": float(r2)})

    for name, k in [("wmt17-de-en", 200), ("synthetic", 200)]:
        d = datasets[name]
        wrapper = stats.AverageCorrelation(scipy.stats.pearsonr, len(d["systems"]), "none")
        values = {m: wrapper(corr(name, m).gold_scores, corr(name, m).metric_scores)[0] for m in d["metrics"]}
        ordered = sorted(values, key=lambda m: (-values[m], m))
        sig = np.zeros((len(ordered), len(ordered)))
        for i in range(len(ordered)):
            for j in range(i + 1, len(ordered)):
                np.random.seed(SEED)
                sig[i, j] = stats.PermutationSigDiff(corr(name, ordered[j]), corr(name, ordered[i]),
                                                     scipy.stats.pearsonr, "none", k)[0]
        cases.append({"kind": "clusters", "dataset": name, "statistic": "pearson", "average_by": "none", "k": k,
                      "seed": SEED, "order": ordered, "pvalues": sig.tolist(),
                      "ranks": [int(r) for r in assign_ranks(sig, 0.05)]})

    fixture = {
        "provenance": {
            "reference": "github.com/google-research/mt-metrics-eval (Apache-2.0), mt_metrics_eval/stats.py "
                         "(Correlation, AverageCorrelation, KendallLike, KendallVariants, KendallWithTiesOpt, "
                         "Agreement, PermutationSigDiff, WilliamsSigDiff) and data.py (AssignRanks)",
            "commit": commit,
            "command": "python -m benchmarks.mtme_oracle --mtme CHECKOUT",
            "numpy": np.__version__, "scipy": scipy.__version__,
            "data": "WMT17 DA from ../shared/data/wmt17-da (github.com/AIPHES/emnlp19-moverscore MT/ at e8cdebd, "
                    "MIT); metric scores: nlgmetrics sentence BLEU / chrF (= sacrebleu 2.6), token count, "
                    "human + N(0,1) noise (seed 12345); synthetic data: this script's synthetic_dataset",
            "notes": "mt-metrics-eval returns 0 (with n = 0) where no group is defined; nlgmetrics returns None "
                     "with a reason. Missing cells: null.",
        },
        "datasets": {name: {"systems": d["systems"], "items": d["items"], "threshold": d["threshold"],
                            "human": [[None if np.isnan(v) else float(v) for v in row] for row in d["human"]],
                            "metrics": {m: [[None if np.isnan(v) else float(v) for v in row] for row in matrix]
                                        for m, matrix in d["metrics"].items()}}
                     for name, d in datasets.items()},
        "cases": cases,
    }
    args.out.write_bytes(gzip.compress((json.dumps(fixture, separators=(",", ":")) + "\n").encode(), mtime=0))
    print(f"wrote {args.out}: {len(cases)} cases from mt-metrics-eval {commit[:12]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
