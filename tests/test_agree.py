"""nlgmetrics.agreement against mt-metrics-eval's own functions (recorded in tests/data/mtme_oracle.json.gz by
benchmarks/mtme_oracle.py) and against scipy where scipy computes the same statistic."""

from __future__ import annotations

import gzip
import json
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest
import scipy.stats

from nlgmetrics.agreement import statistics as A

DATA = Path(__file__).parent / "data"


@lru_cache(maxsize=1)
def oracle() -> dict:
    fixture = json.loads(gzip.decompress((DATA / "mtme_oracle.json.gz").read_bytes()))

    def matrix(rows):
        return np.array([[np.nan if v is None else v for v in row] for row in rows])

    datasets = {name: {"human": matrix(d["human"]), "metrics": {m: matrix(v) for m, v in d["metrics"].items()}}
                for name, d in fixture["datasets"].items()}
    return {"datasets": datasets, "cases": fixture["cases"], "provenance": fixture["provenance"]}


def cases(kind: str) -> list[dict]:
    return [case for case in oracle()["cases"] if case["kind"] == kind]


def test_oracle_provenance():
    provenance = oracle()["provenance"]
    assert len(provenance["commit"]) == 40 and "mt-metrics-eval" in provenance["reference"]
    # pdp and spa: the second fixture (tests/test_agree_spa.py)
    assert {c["statistic"] for c in cases("correlation")} == set(A.STATISTICS) - {"pdp", "spa"}


def _id(case: dict) -> str:
    return f"{case['dataset']}-{case['metric']}-{case['statistic']}-{case['average_by']}"


@pytest.mark.parametrize("case", cases("correlation"), ids=_id)
def test_correlation_equals_mt_metrics_eval(case):
    data = oracle()["datasets"][case["dataset"]]
    result = A.correlation(data["human"], data["metrics"][case["metric"]], case["statistic"], case["average_by"],
                           threshold=case.get("threshold", A.DARR_THRESHOLD))
    if case["n"] == 0 or np.isnan(case["value"]):  # mt-metrics-eval: 0 (or NaN) when no group is defined
        assert result.value is None and result.reason
        return
    assert result.value == pytest.approx(case["value"], abs=1e-12)
    if case["statistic"] == "acc_eq":
        assert result.epsilon == pytest.approx(case["epsilon"], abs=1e-12)


def test_system_level_pairwise_accuracy_equals_agreement():
    data = oracle()["datasets"]["synthetic-system"]
    for case in cases("agreement"):
        human, metric = data["human"].T, data["metrics"][case["metric"]].T  # systems as one group
        assert A.correlation(human, metric, "accuracy").value == pytest.approx(case["value"], abs=1e-15)


def _permutation_id(case: dict) -> str:
    return "-".join(case[k] for k in ("dataset", "metric_a", "metric_b", "statistic", "average_by"))


# Draws whose difference equals the observed one in exact arithmetic, which mt-metrics-eval's floating-point sums
# put just below it (so it does not count them) and we count (TIE_TOLERANCE). Draw 56 of this case: -23/1200 both,
# mt-metrics-eval's incremental tau sums give -0.019166666666666554 for the draw and -0.019166666666666388 observed.
FLOAT_TIES = {"synthetic-coarse-partly_constant-acc_eq-item": 1}


@pytest.mark.parametrize("case", cases("permutation"), ids=_permutation_id)
def test_permutation_test_equals_mt_metrics_eval(case):
    """Same seed, same draws: the p-value, the observed difference and the draws used (early stopping) agree."""
    data = oracle()["datasets"][case["dataset"]]
    p, delta, draws = A.permutation_test(
        data["human"], data["metrics"][case["metric_a"]], data["metrics"][case["metric_b"]], case["statistic"],
        case["average_by"], k=case["k"], seed=case["seed"], params=A.PermutationParams(block_size=case["block_size"]))
    exact_ties = FLOAT_TIES.get(_permutation_id(case), 0)
    assert round(p * draws) == round(case["p_value"] * case["draws"]) + exact_ties
    assert delta == pytest.approx(case["delta"], abs=1e-12)
    assert draws == case["draws"]


def test_permutation_oracle_is_not_trivial():
    assert any(0.0 < case["p_value"] < 1.0 for case in cases("permutation"))
    assert any(case["draws"] < case["k"] for case in cases("permutation"))  # early stopping exercised


@pytest.mark.parametrize("case", cases("williams"), ids=lambda c: f"{c['metric_a']}-{c['metric_b']}")
def test_williams_equals_mt_metrics_eval(case):
    data = oracle()["datasets"][case["dataset"]]
    p = A.williams_test(data["human"], data["metrics"][case["metric_a"]], data["metrics"][case["metric_b"]])
    assert p == pytest.approx(case["p_value"], rel=1e-9, abs=1e-15)


@pytest.mark.parametrize("case", cases("clusters"), ids=lambda c: c["dataset"])
def test_significance_clusters_equal_mt_metrics_eval(case):
    data = oracle()["datasets"][case["dataset"]]
    names, results, pvalues, ranks = A.significance_clusters(data["human"], data["metrics"], case["statistic"],
                                                              case["average_by"], k=case["k"], seed=case["seed"])
    assert names == case["order"]
    np.testing.assert_array_equal(pvalues, np.array(case["pvalues"]))
    assert ranks == case["ranks"]
    assert [r.value for r in results] == sorted((r.value for r in results), reverse=True)


def test_assign_ranks():
    p = np.array([[0, 0.3, 0.01, 0.001], [0, 0, 0.2, 0.01], [0, 0, 0, 0.04], [0, 0, 0, 0]])
    assert A.assign_ranks(p) == [1, 1, 2, 3]
    assert A.assign_ranks(np.ones((3, 3))) == [1, 1, 1]


# -- scipy, the same statistics ------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def tied():
    rng = np.random.default_rng(3)
    human = np.round(rng.normal(size=300), 1)
    metric = np.round(human + rng.normal(size=300), 0)  # many ties on both sides
    return human, metric


@pytest.mark.parametrize("statistic,reference", [
    ("pearson", lambda h, m: scipy.stats.pearsonr(h, m)[0]),
    ("spearman", lambda h, m: scipy.stats.spearmanr(h, m)[0]),
    ("kendall_b", lambda h, m: scipy.stats.kendalltau(h, m)[0]),
    ("kendall_c", lambda h, m: scipy.stats.kendalltau(h, m, variant="c")[0]),
])
def test_equals_scipy_with_ties(tied, statistic, reference):
    human, metric = tied
    assert A.correlation(human, metric, statistic).value == pytest.approx(reference(human, metric), abs=1e-12)


def test_bootstrap_equals_scipy_percentile_bootstrap(tied):
    """One system: items are cells, and resampling items is scipy's paired bootstrap with the same generator."""
    human, metric = tied
    ours = A.bootstrap_interval(human, metric, "pearson", n_resamples=300, seed=7)
    theirs = scipy.stats.bootstrap((human, metric), lambda h, m: scipy.stats.pearsonr(h, m)[0], paired=True,
                                   vectorized=False, n_resamples=300, method="percentile",
                                   rng=np.random.default_rng(7)).confidence_interval
    assert ours == pytest.approx((theirs.low, theirs.high), abs=1e-12)


def test_vectorised_pearson_bootstrap_equals_resample_by_resample():
    from nlgmetrics.stats import bootstrap_indices

    rng = np.random.default_rng(4)
    human = np.round(rng.normal(size=(3, 40)), 1)
    metric = human + rng.normal(size=human.shape)
    human[rng.random(human.shape) < 0.4] = np.nan
    metric[:, :3] = 1.0  # some constant stretches
    values = [A.correlation(human[:, c], metric[:, c]).value for c in bootstrap_indices(40, 300, 9)]
    expected = np.percentile([v for v in values if v is not None], [2.5, 97.5])
    assert A.bootstrap_interval(human, metric, n_resamples=300, seed=9) == pytest.approx(tuple(expected), abs=1e-12)


def test_bootstrap_resamples_items_with_missing_cells():
    rng = np.random.default_rng(5)
    human = rng.normal(size=(4, 60))
    metric = human + rng.normal(size=human.shape)
    human[rng.random(human.shape) < 0.3] = np.nan
    value = A.correlation(human, metric, "kendall_b", "item").value
    low, high = A.bootstrap_interval(human, metric, "kendall_b", "item", n_resamples=200, seed=1)
    assert low < value < high and high - low < 0.6
    assert A.bootstrap_interval(human, metric, "kendall_b", "item", n_resamples=200, seed=1) == (low, high)
    assert A.bootstrap_interval(human, metric, "kendall_b", "item", n_resamples=200, seed=2) != (low, high)


def test_sorted_pair_counts_equal_all_pairs():
    """Long groups count pairs by sorting; both ways give the same counts on heavily tied data."""
    rng = np.random.default_rng(8)
    for size in (2, 3, 64, 65, 130, 257):
        gold = rng.integers(0, 5, size=(2, size)).astype(float)
        metric = rng.integers(0, 4, size=(3, 2, size)).astype(float)
        np.testing.assert_array_equal(A._sorted_counts(gold, metric), A._pair_counts(gold, metric, 0.0, None))


def test_darr_threshold_and_metric_ties():
    """Pairs whose human scores differ by less than the threshold are ignored; a metric tie is discordant."""
    human = [[10.0, 40.0, 50.0, 90.0]]
    metric = [[0.1, 0.2, 0.2, 0.5]]
    # pairs with |diff| >= 25: (10,40) C, (10,50) C, (10,90) C, (40,90) C, (50,90) C; (40,50) ignored -> 1.0
    assert A.correlation(human, metric, "kendall_like").value == 1.0
    metric = [[0.1, 0.1, 0.2, 0.5]]  # (10,40) now a metric tie: discordant -> (4 - 1) / 5
    assert A.correlation(human, metric, "kendall_like").value == pytest.approx(0.6)


def test_tie_calibration_rewards_ties_humans_make():
    human = [[1.0, 1.0, 2.0, 2.0, 3.0]]
    metric = [[0.50, 0.51, 0.70, 0.71, 0.90]]
    plain = A.correlation(human, metric, "accuracy").value
    calibrated = A.correlation(human, metric, "acc_eq")
    assert plain == pytest.approx(8 / 10)  # the two human ties count as errors
    assert calibrated.value == 1.0 and calibrated.epsilon == pytest.approx(0.01)


# -- undefined and bad input ---------------------------------------------------------------------------------------
def test_constant_scores_are_undefined_not_nan():
    human = np.arange(10.0)
    for statistic in ("pearson", "spearman", "kendall_b", "kendall_c"):
        result = A.correlation(human, np.ones(10), statistic)
        assert result.value is None and "constant" in result.reason
    assert A.correlation(np.ones(10), np.arange(10.0), "pearson").value is None
    result = A.correlation([[1.0, 2.0, 3.0]], [[1.0, 2.0, 3.0]], "kendall_like")
    assert result.value is None and "25" in result.reason
    result = A.correlation([[1.0, np.nan], [np.nan, 2.0]], [[1.0, 0.0], [0.0, 2.0]], "pearson", "item")
    assert result.value is None and "two or more" in result.reason


def test_partly_constant_groups_are_left_out_of_the_average():
    human = np.array([[1.0, 2.0, 3.0], [1.0, 5.0, 2.0], [3.0, 1.0, 2.0]])
    metric = np.array([[1.0, 2.0, 3.0], [4.0, 4.0, 4.0], [1.0, 2.0, 3.0]])
    result = A.correlation(human, metric, "pearson", "sys")
    assert result.value == pytest.approx((1.0 + -0.5) / 2) and result.groups == 3


def test_missing_human_scores_are_left_out():
    human = np.array([1.0, np.nan, 3.0, 4.0, 2.0])
    metric = np.array([1.0, 100.0, 3.5, 4.0, 2.5])
    assert A.correlation(human, metric).value == pytest.approx(scipy.stats.pearsonr([1, 3, 4, 2], [1, 3.5, 4, 2.5])[0])
    assert A.correlation(human, metric).cells == 4


def test_bad_input():
    with pytest.raises(ValueError, match="2 systems x 3 items"):
        A.correlation(np.ones((2, 3)), np.ones((3, 2)))
    with pytest.raises(ValueError, match="judged"):
        A.correlation([1.0, 2.0, 3.0], [1.0, np.nan, 2.0])
    with pytest.raises(ValueError, match="unknown statistic 'kendal'"):
        A.correlation([1.0, 2.0], [1.0, 2.0], "kendal")
    with pytest.raises(ValueError, match="average_by"):
        A.correlation([1.0, 2.0], [1.0, 2.0], average_by="segment")
    with pytest.raises(TypeError, match="numbers"):
        A.correlation(["a", "b"], [1.0, 2.0])
    with pytest.raises(ValueError, match="same score"):
        A.permutation_test(np.arange(5.0), np.ones(5), np.arange(5.0))
    for k in (0, A.MAX_DRAWS + 1, 2.5, True):
        with pytest.raises(ValueError, match="integer from 1 to 100,000"):
            A.permutation_test(np.arange(5.0), np.arange(5.0), np.arange(5.0) ** 2, k=k)


def test_a_constant_metric_is_tested_where_its_statistic_is_defined():
    """accuracy, kendall_like and acc_eq are defined for a constant metric (every pair a metric tie): it is ranked,
    not an error; for the correlations it is undefined and left out of the clusters."""
    rng = np.random.default_rng(11)
    human = np.round(rng.normal(size=(4, 30)) * 20 + 50)
    metrics = {"good": human + 10 * rng.normal(size=human.shape), "flat": np.ones_like(human)}
    for statistic in ("accuracy", "kendall_like", "acc_eq"):
        names, results, pvalues, ranks = A.significance_clusters(human, metrics, statistic, "item", k=100, seed=1)
        assert names == ["good", "flat"] and ranks == [1, 2] and pvalues[0, 1] == 0.0
        # all metric ties: accuracy = the share of pairs humans tie (per item, averaged); DARR: every pair missed
        ties = np.mean([np.mean([a == b for k, a in enumerate(col) for b in col[k + 1 :]]) for col in human.T])
        assert results[1].value == pytest.approx(-1.0 if statistic == "kendall_like" else ties, abs=1e-12)
    names, results, _, ranks = A.significance_clusters(human, metrics, "pearson", k=100, seed=1)
    assert names == ["good", "flat"] and ranks == [1, None] and results[1].value is None


def test_agree_cli_reports_a_constant_column_per_metric(tmp_path, capsys):
    from nlgmetrics.cli import main

    rows = ["system,item,human,m,flat"] + [f"s{s},{i},{(s * 7 + i * 3) % 11},{(s * 7 + i * 3) % 11 + (i % 2)},1"
                                             for s in range(3) for i in range(12)]
    (tmp_path / "t.csv").write_text("\n".join(rows) + "\n")
    for statistic in ("accuracy", "pearson"):
        assert main(["agree", str(tmp_path / "t.csv"), "--columns", "m", "flat", "-s", statistic,
                     "--n-resamples", "50", "-f", "json"]) == 0
        result = json.loads(capsys.readouterr().out)
        flat = next(row for row in result["rows"] if row["metric"] == "flat")
        assert (flat["value"] is None) == (statistic == "pearson")
