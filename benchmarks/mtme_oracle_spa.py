"""Record mt-metrics-eval's soft pairwise accuracy (PCE), pairwise-difference Pearson and data-folder reading as the
test oracle of ``nlgmetrics.agreement`` (the second fixture beside benchmarks/mtme_oracle.py's).

Writes tests/data/mtme_oracle_spa.json.gz, and first (with --build-fixture) tests/data/mtme_wmt17/: WMT17 de-en
in mt-metrics-eval's data-folder layout (see tests/data/README.md for what is real and what is synthetic).

mt-metrics-eval is imported from a local checkout (never ``pip install mt-metrics-eval``: an unrelated package). Its
``data.py`` imports apache_beam and dacite, which neither ``EvalSet`` nor ``GetCorrelations`` use: empty stand-in
modules take their place here. The process runs with PYTHONHASHSEED=0 (it re-executes itself): mt-metrics-eval
orders systems by iterating a Python set, and the recorded order is the one its vectors have.

    python -m benchmarks.mtme_oracle_spa --mtme CHECKOUT [--build-fixture] [--data ../shared/data]
"""

from __future__ import annotations

import argparse
import functools
import gzip
import json
import os
import subprocess
import sys
import types
import warnings
from pathlib import Path

import numpy as np
import scipy.stats

from benchmarks.common import DEFAULT_DATA
from benchmarks.mtme_oracle import SEED

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "data" / "mtme_wmt17"
PAIR, SEGMENTS, DOC_SIZE = "de-en", 80, 10
METRICS = {"sentBLEU-refA": "bleu", "chrF-refA": "chrf"}


def build_fixture(data: Path, out: Path) -> None:
    """WMT17 de-en lines 1-80 in mt-metrics-eval's layout: real outputs, reference and DA; synthetic documents,
    domains and MQM-style penalties (seeded; see tests/data/README.md)."""
    from nlgmetrics.agreement.records import read_wmt_da
    from nlgmetrics.registry import get_metric

    da = read_wmt_da(data / "wmt17-da" / "DA-seglevel.csv", PAIR)
    systems = sorted(da.systems)
    folder = out / "wmt17"
    for sub in ("documents", "sources", "references", f"system-outputs/{PAIR}", "human-scores",
                f"metric-scores/{PAIR}"):
        (folder / sub).mkdir(parents=True, exist_ok=True)

    def lines(path: Path) -> list[str]:
        import html

        return [html.unescape(x) for x in path.read_text(encoding="utf-8").split("\n")[:SEGMENTS]]

    reference = lines(data / "wmt17-da" / "newstest2017-deen-ref.en")
    outputs = {s: lines(data / "wmt17-da" / PAIR / f"newstest2017.{s}.{PAIR}") for s in systems}
    docs = [f"doc{k // DOC_SIZE + 1:02d}" for k in range(SEGMENTS)]
    domains = ["news-a" if k < SEGMENTS // 2 else "news-b" for k in range(SEGMENTS)]
    write = functools.partial(Path.write_text, encoding="utf-8")
    write(folder / "documents" / f"{PAIR}.docs", "".join(f"{d} {c}\n" for d, c in zip(domains, docs)))
    write(folder / "sources" / f"{PAIR}.txt", "[No translation supplied]\n" * SEGMENTS)
    write(folder / "references" / f"{PAIR}.refA.txt", "".join(x + "\n" for x in reference))
    for system, text in outputs.items():
        write(folder / "system-outputs" / PAIR / f"{system}.txt", "".join(x + "\n" for x in text))

    # real DA (standardised), sparse: the judged cells with SID <= 80, None elsewhere
    da_rows = {s: [None] * SEGMENTS for s in systems}
    for s, system in enumerate(da.systems):
        for i, item in enumerate(da.items):
            if int(item) <= SEGMENTS and not np.isnan(da.human[s, i]):
                da_rows[system][int(item) - 1] = float(da.human[s, i])
    # synthetic MQM-style penalties: per system quality and per segment difficulty set Poisson rates of minor
    # (1 point; a tenth of them punctuation, 0.1) and major (5) errors; segments 71-80 unscored for every system
    rng = np.random.default_rng(SEED)
    quality, difficulty = rng.normal(0, 0.5, len(systems)), rng.normal(0, 0.5, SEGMENTS)
    mqm = {}
    for s, system in enumerate(systems):
        rate = np.exp(difficulty - quality[s])
        minor, punct, major = rng.poisson(0.9 * rate), rng.poisson(0.1 * rate), rng.poisson(0.25 * rate)
        values = -(minor + 0.1 * punct + 5.0 * major)
        mqm[system] = [None if k >= SEGMENTS - 10 else round(float(v), 1) + 0.0 for k, v in enumerate(values)]

    def mean(values):
        values = [v for v in values if v is not None]
        return sum(values) / len(values) if values else None

    def write_levels(path_for, scores, human):
        def fmt(v):
            return "None" if v is None else repr(v)

        write(path_for("seg"), "".join(f"{s}\t{fmt(v)}\n" for s, row in scores.items() for v in row))
        doc_names = list(dict.fromkeys(docs))
        write(path_for("doc"), "".join(f"{s}\t{fmt(mean([v for v, d in zip(row, docs) if d == doc]))}\n"
                                       for s, row in scores.items() for doc in doc_names))
        write(path_for("domain"), "".join(
            f"{dom}\t{s}\t{fmt(mean([v for v, d in zip(row, domains) if d == dom]))}\n"
            for s, row in scores.items() for dom in sorted(set(domains))))
        write(path_for("sys"), "".join(f"{s}\t{fmt(mean(row))}\n" for s, row in scores.items()))

    write_levels(lambda level: folder / "human-scores" / f"{PAIR}.mqm.{level}.score", mqm, True)
    write(folder / "human-scores" / f"{PAIR}.wmt-z.seg.score",
          "".join(f"{s}\t{'None' if v is None else repr(v)}\n" for s, row in da_rows.items() for v in row))
    for name, metric in METRICS.items():
        scores = {s: [float(x) for x in get_metric(metric)(outputs[s], [[r] for r in reference],
                                                            sentence_scores=True)["scores"]] for s in systems}
        write_levels(lambda level, name=name: folder / "metric-scores" / PAIR / f"{name}.{level}.score", scores,
                     False)
    scores = {s: [float(len(h.split())) for h in outputs[s]] for s in systems}
    write(folder / "metric-scores" / PAIR / "Length-src.seg.score",
          "".join(f"{s}\t{v!r}\n" for s, row in scores.items() for v in row))


def _select(values, evs, level, domain):
    """Scores of one system as GetCorrelations filters them to a domain."""
    values = list(values)
    if domain is None:
        return values
    units = {"domain": evs.domain_names, "doc": evs.DomainsPerDoc(), "seg": evs.DomainsPerSeg()}[level]
    return [v for v, d in zip(values, units) if d == domain]


def load(path: Path):
    for name in ("apache_beam", "dacite"):
        sys.modules.setdefault(name, types.ModuleType(name))
    sys.path.insert(0, str(path))
    from mt_metrics_eval import data, meta_info, pce, stats  # noqa: PLC0415

    return data, meta_info, pce, stats


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mtme", type=Path, required=True, help="a local checkout of google-research/mt-metrics-eval")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--build-fixture", action="store_true", help="(re)write tests/data/mtme_wmt17 first")
    parser.add_argument("--out", type=Path, default=ROOT / "tests" / "data" / "mtme_oracle_spa.json.gz")
    args = parser.parse_args()
    if os.environ.get("PYTHONHASHSEED") != "0":
        return subprocess.call([sys.executable, "-m", "benchmarks.mtme_oracle_spa", *sys.argv[1:]],
                               env={**os.environ, "PYTHONHASHSEED": "0"})
    if args.build_fixture:
        build_fixture(args.data, FIXTURE)
    commit = subprocess.run(["git", "-C", str(args.mtme), "rev-parse", "HEAD"], capture_output=True, text=True,
                            check=True).stdout.strip()
    data, meta_info, pce, stats = load(args.mtme)
    warnings.simplefilter("ignore")
    cases: list[dict] = []
    inputs: dict[str, dict] = {}

    def attempt(function) -> float | dict:
        """mt-metrics-eval's value, or the error it raises."""
        try:
            return float(function())
        except ValueError as exc:
            return {"error": str(exc)}

    def vector(values):
        return [None if v is None else float(v) for v in values]

    # -- mt-metrics-eval's own unit tests' inputs (stats_test.py, pce_test.py, pce.py's docstring) ---------------
    unit = {
        "corr-2x3": (2, [1, 2, 3, 4, 5, 6], [2, 1, 4, 3, 3, 7]),
        "pce-2x3": (2, [1, 2, 3, 2, 3, 4], [2, 2, 4, 1, 3, 5]),
        "pce-nones": (2, [1, None, 3, 4, None, 6], [2, 1, 8, 3, 5, 6]),
        "pdp-nones": (2, [1, 5, None, 10, 2, 12], [3, 15, 1, 20, 4, 24]),
        "pdp-one-system": (1, [1, 5, None, 10, 2, 12], [3, 15, 1, 20, 4, 24]),
        "pce-docstring": (2, [0.8, 0.9, 0.7, 1.0, 0.6, 0.2, 0.3, 0.1, 0.4, 0.0],
                          [0.8, 0.9, 0.7, 1.0, 0.6, 0.2, 0.3, 0.1, 0.4, 0.0]),
    }
    rand = np.random.RandomState(SEED).rand(10, 100)  # pce_test's np.random.rand(10, 100), seeded here
    unit["pce-test-rand"] = (10, list(rand.ravel()), list(np.random.RandomState(SEED + 1).rand(10, 100).ravel()))
    for name, (n_sys, gold, metric) in unit.items():
        inputs[name] = {"systems": n_sys, "gold": vector(gold), "metric": vector(metric)}
        corr = stats.Correlation(n_sys, list(gold), list(metric))
        for average in ("none", "item", "sys"):
            try:
                value, _, n = corr.Pearson(average, pdp=True)
                cases.append({"kind": "pdp", "input": name, "average_by": average, "value": float(value),
                              "n": float(n)})
            except ValueError as exc:
                cases.append({"kind": "pdp", "input": name, "average_by": average, "error": str(exc)})
        try:
            cases.append({"kind": "spa", "input": name, "value": float(corr.PairwiseConfidenceError()[0])})
        except ValueError as exc:
            cases.append({"kind": "spa", "input": name, "error": str(exc)})
        if n_sys > 1 and None not in gold:
            matrix = np.array(gold, dtype=float).reshape(n_sys, -1)
            p = pce.compute_pairwise_p_values(matrix)
            cases.append({"kind": "p_values", "input": name, "p_values": p[np.triu_indices(n_sys, 1)].tolist()})
    try:
        stats.AverageCorrelation(scipy.stats.kendalltau, 2, "none", pdp=True)([1, 2, 3, 4], [1, 2, 3, 4])
    except ValueError as exc:
        cases.append({"kind": "pdp_error", "statistic": "kendall_b", "error": str(exc)})

    # -- the first oracle's datasets (tests/data/mtme_oracle.json.gz: every judged WMT17 DA de-en and cs-en
    # segment with its metric scores, synthetic data with ties and missing judgments) -------------------------
    first = json.loads(gzip.decompress((ROOT / "tests" / "data" / "mtme_oracle.json.gz").read_bytes()))
    for name, dataset in first["datasets"].items():
        gold = [v for row in dataset["human"] for v in row]
        for metric, rows in dataset["metrics"].items():
            values = [0.0 if v is None else v for row in rows for v in row]
            corr = stats.Correlation(len(dataset["human"]), gold, values)
            cases.append({"kind": "dataset", "dataset": name, "metric": metric,
                          "pdp": {a: attempt(lambda a=a: corr.Pearson(a, pdp=True)[0]) for a in ("none", "item", "sys")},
                          "spa": attempt(lambda: corr.PairwiseConfidenceError()[0])})

    # -- the data folder: EvalSet + GetCorrelations, every level ------------------------------------------------
    info = meta_info.MetaInfo("refA", {"seg": "mqm", "doc": "mqm", "domain": "mqm", "sys": "mqm"}, set(), set())
    evs = data.EvalSet("wmt17", PAIR, True, info=info, path=str(FIXTURE), strict=True)
    folder: dict[str, dict] = {}
    for gold, level, domain in [("mqm", "seg", None), ("mqm", "seg", "news-b"), ("mqm", "doc", None),
                                ("mqm", "domain", None), ("mqm", "sys", None), ("mqm", "sys", "news-a"),
                                ("wmt-z", "seg", None)]:
        corrs = data.GetCorrelations(evs, level, {"refA"}, set(), False, False, gold, False, domain)
        key = f"{gold}/{level}/{domain}"
        file_level = "domain" if level == "sys" and domain else level
        first_name, first = next(iter(corrs.items()))
        # the systems in the order of mt-metrics-eval's vectors (a set's order): each block of the gold and the
        # first metric's vector matched to the system whose scores it holds
        metric_file = evs.Scores(file_level, first_name)
        gold_file = evs.Scores(file_level, gold)
        n = first.num_items
        order = []
        for k in range(first.num_sys):
            block = (first.gold_scores[k * n : (k + 1) * n], first.metric_scores[k * n : (k + 1) * n])
            matches = [s for s in gold_file if s in metric_file and s != "refA"
                       and (_select(gold_file[s], evs, file_level, domain), _select(metric_file[s], evs, file_level,
                                                                                   domain)) == block]
            assert len(matches) == 1, (key, k, matches)
            order.append(matches[0])
        folder[key] = {"systems": order, "items": first.num_items,
                       "gold": vector(first.gold_scores),
                       "metrics": {m: vector(c.metric_scores) for m, c in corrs.items()}}
        for metric, corr in corrs.items():
            row = {"kind": "folder", "key": key, "metric": metric,
                   "pearson": {a: attempt(lambda a=a: corr.Pearson(a)[0]) for a in ("none", "item", "sys")},
                   "pdp": {a: attempt(lambda a=a: corr.Pearson(a, pdp=True)[0]) for a in ("none", "item", "sys")}}
            if level == "seg":
                row["spa"] = attempt(lambda: corr.PairwiseConfidenceError()[0])
                row["acc_eq_item"] = attempt(lambda: stats.KendallWithTiesOpt(
                    corr.gold_scores, corr.metric_scores, "acc23", corr.num_sys, "item", sample_rate=1.0)[0])
            cases.append(row)

    # -- SPA's significance clusters: CompareMetricsWithPairwiseConfidenceError's order and values, then its
    # PermutationSigDiff per pair, each pair seeded like nlgmetrics' (every pair sees the same draws) -----------
    corrs = data.GetCorrelations(evs, "seg", {"refA"}, set(), False, False, "mqm", False, None)
    ranked, _, _, _ = data.CompareMetricsWithPairwiseConfidenceError(corrs, k=0)
    order = list(ranked)
    first = corrs[order[0]]
    wrapper = functools.partial(stats.PairwiseConfidenceError, num_sys=first.num_sys,
                                filter_nones=first.none_count > 0)
    for k, block in [(200, 100), (100, 1000)]:
        sig = np.zeros((len(order), len(order)))
        for i in range(len(order)):
            for j in range(i + 1, len(order)):
                np.random.seed(SEED)
                sig[i, j] = stats.PermutationSigDiff(corrs[order[j]], corrs[order[i]], wrapper, "none", k,
                                                     stats.PermutationSigDiffParams(block_size=block))[0]
        cases.append({"kind": "spa_clusters", "key": "mqm/seg/None", "k": k, "block_size": block, "seed": SEED,
                      "order": order, "values": [float(ranked[m][0]) for m in order], "pvalues": sig.tolist(),
                      "ranks": [int(r) for r in data.AssignRanks(sig, 0.05)]})

    # -- PDP's permutation test: mt-metrics-eval has none (its PermutationSigDiff passes pdp to scipy's pearsonr);
    # here its PermutationSigDiff runs with its own PDP (AverageCorrelation(pearsonr, pdp=True)) as the statistic,
    # over the judged cells in system order
    for key, first_metric, second_metric, average, k in [
            ("mqm/seg/None", "chrF-refA", "sentBLEU-refA", "item", 300),
            ("mqm/seg/None", "Length-src", "chrF-refA", "sys", 200),
            ("wmt-z/seg/None", "sentBLEU-refA", "chrF-refA", "none", 300)]:
        gold_name, level, _ = key.split("/")
        level_corrs = data.GetCorrelations(evs, level, {"refA"}, set(), False, False, gold_name, False, None)
        c1, c2 = level_corrs[first_metric], level_corrs[second_metric]
        judged = [k_ for k_, g in enumerate(c1.gold_scores) if g is not None]

        def pdp_statistic(gold, metric, corr=c1, judged=judged, average=average):
            full = [0.0] * len(corr.gold_scores)
            for position, value in zip(judged, metric):
                full[position] = value
            return stats.AverageCorrelation(scipy.stats.pearsonr, corr.num_sys, average, pdp=True)(
                corr.gold_scores, full)[:1]

        np.random.seed(SEED)
        p, delta, used, _ = stats.PermutationSigDiff(c1, c2, pdp_statistic, "none", k)
        cases.append({"kind": "pdp_permutation", "key": key, "metric_a": first_metric, "metric_b": second_metric,
                      "average_by": average, "k": k, "seed": SEED, "p_value": float(p), "delta": float(delta),
                      "draws": int(used)})

    fixture = {
        "provenance": {
            "reference": "github.com/google-research/mt-metrics-eval (Apache-2.0): stats.py (Correlation.Pearson "
                         "with pdp, PairwiseConfidenceError, KendallWithTiesOpt, PermutationSigDiff), pce.py "
                         "(compute_pairwise_p_values, compute_one_minus_pce), data.py (EvalSet, GetCorrelations, "
                         "CompareMetricsWithPairwiseConfidenceError, AssignRanks)",
            "commit": commit, "command": "python -m benchmarks.mtme_oracle_spa --mtme CHECKOUT",
            "numpy": np.__version__, "scipy": scipy.__version__, "pythonhashseed": "0",
            "inputs": "mt-metrics-eval's unit-test vectors (stats_test.py; pce_test.py's np.random.rand(10, 100), "
                      "drawn here with RandomState(12345)); tests/data/mtme_oracle.json.gz's datasets (WMT17 DA "
                      "de-en and cs-en, synthetic); tests/data/mtme_wmt17 read by its EvalSet",
        },
        "inputs": inputs, "folder": folder, "cases": cases,
    }
    args.out.write_bytes(gzip.compress((json.dumps(fixture, separators=(",", ":")) + "\n").encode(), mtime=0))
    print(f"wrote {args.out}: {len(cases)} cases from mt-metrics-eval {commit[:12]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
