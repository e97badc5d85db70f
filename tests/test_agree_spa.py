"""Soft pairwise accuracy (spa), pairwise-difference Pearson (pdp) and the mt-metrics-eval data-folder reader against
mt-metrics-eval's own outputs (tests/data/mtme_oracle_spa.json.gz, recorded by benchmarks/mtme_oracle_spa.py from its
unit tests' inputs and from tests/data/mtme_wmt17 read by its EvalSet)."""

from __future__ import annotations

import gzip
import json
import shutil
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest

from nlgmetrics.agreement import agree
from nlgmetrics.agreement import statistics as A
from nlgmetrics.agreement.mtme_data import read_documents, read_mtme_data
from nlgmetrics.cli import main

DATA = Path(__file__).parent / "data"
FOLDER = DATA / "mtme_wmt17" / "wmt17"


@lru_cache(maxsize=1)
def oracle() -> dict:
    return json.loads(gzip.decompress((DATA / "mtme_oracle_spa.json.gz").read_bytes()))


def cases(kind: str) -> list[dict]:
    return [case for case in oracle()["cases"] if case["kind"] == kind]


def _matrix(values: list, n_sys: int) -> np.ndarray:
    return np.array([np.nan if v is None else v for v in values], dtype=float).reshape(n_sys, -1)


def _unit(name: str) -> tuple[np.ndarray, np.ndarray]:
    data = oracle()["inputs"][name]
    return _matrix(data["gold"], data["systems"]), _matrix(data["metric"], data["systems"])


def test_oracle_provenance():
    provenance = oracle()["provenance"]
    assert provenance["commit"].startswith("68a481a") and "PairwiseConfidenceError" in provenance["reference"]


# -- mt-metrics-eval's unit-test inputs -------------------------------------------------------------------------
@pytest.mark.parametrize("case", cases("pdp"), ids=lambda c: f"{c['input']}-{c['average_by']}")
def test_pdp_equals_mt_metrics_eval(case):
    human, metric = _unit(case["input"])
    if "error" in case:  # fewer than two systems (cells) per group
        with pytest.raises(ValueError, match="at least 2"):
            A.correlation(human, metric, "pearson", case["average_by"], pdp=True)
        return
    result = A.correlation(human, metric, "pearson", case["average_by"], pdp=True)
    assert result.value == pytest.approx(case["value"], abs=1e-12)
    assert A.correlation(human, metric, "pdp", case["average_by"]) == result


def test_pdp_refuses_other_statistics():
    assert "other than Pearson" in cases("pdp_error")[0]["error"]
    with pytest.raises(ValueError, match="Pearson only"):
        A.correlation([[1.0, 2.0], [3.0, 4.0]], [[1.0, 2.0], [3.0, 4.0]], "kendall_b", pdp=True)


@pytest.mark.parametrize("case", cases("spa"), ids=lambda c: c["input"])
def test_spa_equals_mt_metrics_eval(case):
    human, metric = _unit(case["input"])
    result = A.correlation(human, metric, "spa")
    if "error" in case:
        # mt-metrics-eval drops the missing cells and reshapes what is left, which fails (or, with as many missing
        # cells per system, pairs different items); here the items judged for every system are compared
        assert "reshape" in case["error"]
        complete = ~np.isnan(human).any(axis=0)
        assert result.value == A.correlation(human[:, complete], metric[:, complete], "spa").value
    elif np.isnan(case["value"]):  # one system: no pair
        assert result.value is None and "pairs of systems" in result.reason
    else:
        assert result.value == case["value"]  # the same float32 arithmetic: equal, not close


@pytest.mark.parametrize("case", cases("p_values"), ids=lambda c: c["input"])
def test_pairwise_p_values_equal_mt_metrics_eval(case):
    human, _ = _unit(case["input"])
    assert A.spa_p_values(human).tolist() == case["p_values"]


@pytest.mark.parametrize("case", cases("dataset"), ids=lambda c: f"{c['dataset']}-{c['metric']}")
def test_pdp_and_spa_on_wmt17_da_and_synthetic_data(case):
    """The first oracle's data (every judged WMT17 DA de-en/cs-en segment, synthetic ties and missing judgments)."""
    from test_agree import oracle as first_oracle

    data = first_oracle()["datasets"][case["dataset"]]
    human, metric = data["human"], data["metrics"][case["metric"]]
    for average, expected in case["pdp"].items():
        if isinstance(expected, dict):  # one item per system, differences by system
            with pytest.raises(ValueError, match="at least 2"):
                A.correlation(human, metric, "pdp", average)
        else:
            assert _value(A.correlation(human, metric, "pdp", average)) == pytest.approx(expected, abs=1e-12)
    spa, complete = A.correlation(human, metric, "spa"), ~np.isnan(human).any(axis=0)
    if complete.all():
        assert spa.value == case["spa"]
    elif not complete.any():
        # WMT17 DA judges each segment for one system: no pair of systems shares an item. mt-metrics-eval drops the
        # missing cells and reshapes what is left: an error for de-en (560 cells, 11 systems), for cs-en (4 systems)
        # a number that compares different segments of each system
        assert spa.value is None and "no item is judged for every system" in spa.reason
    else:
        assert spa.value == A.correlation(human[:, complete], metric[:, complete], "spa").value


# -- the data folder --------------------------------------------------------------------------------------------
def _read(key: str):
    """Our reader on the key's (gold, level, domain), systems put in mt-metrics-eval's order."""
    gold, level, domain = key.split("/")
    judgments = read_mtme_data(FOLDER, "de-en", gold, level, None if domain == "None" else domain)
    order = [judgments.systems.index(s) for s in oracle()["folder"][key]["systems"]]
    return judgments.human[order], {name: matrix[order] for name, matrix in judgments.metrics.items()}


@pytest.mark.parametrize("key", list(oracle()["folder"]))
def test_folder_reader_equals_evalset(key):
    expected = oracle()["folder"][key]
    human, metrics = _read(key)
    n_sys = len(expected["systems"])
    np.testing.assert_array_equal(human, _matrix(expected["gold"], n_sys))
    assert set(metrics) == set(expected["metrics"])
    for name, values in expected["metrics"].items():
        judged = ~np.isnan(human)  # mt-metrics-eval keeps metric scores of unjudged cells; they are not used
        np.testing.assert_array_equal(metrics[name][judged], _matrix(values, n_sys)[judged])


def _value(result: A.Correlation):
    return 0.0 if result.value is None else result.value  # mt-metrics-eval: 0 where nothing is defined


@pytest.mark.parametrize("case", cases("folder"), ids=lambda c: f"{c['key']}-{c['metric']}")
def test_folder_statistics_equal_mt_metrics_eval(case):
    human, metrics = _read(case["key"])
    metric = metrics[case["metric"]]
    for statistic in ("pearson", "pdp"):
        for average, expected in case[statistic].items():
            if isinstance(expected, dict) and statistic == "pdp":  # one item per system, differences by system
                with pytest.raises(ValueError, match="at least 2"):
                    A.correlation(human, metric, statistic, average)
            elif isinstance(expected, dict):  # scipy on one cell per group: undefined here
                assert A.correlation(human, metric, statistic, average).value is None
            else:
                ours = A.correlation(human, metric, statistic, average)
                assert _value(ours) == pytest.approx(expected, abs=1e-12), (statistic, average)
    if "spa" in case:
        ours = A.correlation(human, metric, "spa")
        if isinstance(case["spa"], dict):  # sparse DA: mt-metrics-eval's reshape fails
            assert ours.value is None and "no item is judged for every system" in ours.reason
        else:
            assert ours.value == case["spa"]
        assert _value(A.correlation(human, metric, "acc_eq", "item")) == pytest.approx(case["acc_eq_item"], abs=1e-12)


@pytest.mark.parametrize("case", cases("spa_clusters"), ids=lambda c: f"k{c['k']}-block{c['block_size']}")
def test_spa_clusters_equal_mt_metrics_eval(case):
    human, metrics = _read(case["key"])
    names, results, pvalues, ranks = A.significance_clusters(
        human, metrics, "spa", k=case["k"], seed=case["seed"], params=A.PermutationParams(case["block_size"]))
    assert names == case["order"] and [r.value for r in results] == case["values"]
    np.testing.assert_array_equal(pvalues, np.array(case["pvalues"]))
    assert ranks == case["ranks"]
    assert any(0 < p < 1 for row in case["pvalues"] for p in row)


@pytest.mark.parametrize("case", cases("pdp_permutation"), ids=lambda c: f"{c['key']}-{c['average_by']}")
def test_pdp_permutation_equals_mt_metrics_eval(case):
    human, metrics = _read(case["key"])
    p, delta, draws = A.permutation_test(human, metrics[case["metric_a"]], metrics[case["metric_b"]], "pdp",
                                         case["average_by"], k=case["k"], seed=case["seed"])
    assert round(p * draws) == round(case["p_value"] * case["draws"]) and draws == case["draws"]
    assert delta == pytest.approx(case["delta"], abs=1e-12)


def test_wmt24_style_row_from_the_folder(capsys):
    """SPA at system level and acc_eq (by item) at segment level, Python and CLI alike."""
    judgments = read_mtme_data(FOLDER, "de-en", "mqm")
    assert judgments.dropped == 10 * len(judgments.systems)  # segments 71-80 unscored
    spa = agree(judgments, statistics=["spa"], levels=["system"], n_resamples=20, k=50)
    seg = agree(judgments, statistics=["acc_eq"], levels=["segment"], average_by="item", n_resamples=0, k=0)
    row = spa["rows"][0]
    expected = next(c for c in cases("folder") if c["key"] == "mqm/seg/None" and c["metric"] == row["metric"])
    # systems in sorted order here, in mt-metrics-eval's set order there: the same pairs, averaged in another order
    assert row["value"] == pytest.approx(expected["spa"], abs=1e-12)
    assert row["level"] == "system" and row["ci_low"] <= row["value"] <= row["ci_high"]
    assert {r["metric"]: r["value"] for r in seg["rows"]} == pytest.approx(
        {c["metric"]: c["acc_eq_item"] for c in cases("folder") if c["key"] == "mqm/seg/None"}, abs=1e-12)
    assert main(["agree", str(FOLDER), "-i", "mtme", "--mtme-pair", "de-en", "-s", "spa", "acc_eq", "pdp",
                 "--level", "system", "segment", "--average", "item", "--k", "0", "--n-resamples", "0",
                 "-f", "csv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert sum(",spa," in line for line in lines) == 3 and all(",segment,spa," not in line for line in lines)
    pdp = {line.split(",")[3]: float(line.split(",")[4]) for line in lines if line.startswith("segment,pdp,item,")}
    assert pdp == pytest.approx({c["metric"]: c["pdp"]["item"] for c in cases("folder")
                                 if c["key"] == "mqm/seg/None"}, abs=1e-12)
    with pytest.raises(ValueError, match="system-level statistic"):
        agree(judgments, statistics=["spa"], levels=["segment"])


def test_levels_and_domains_read_their_files():
    by_doc = read_mtme_data(FOLDER, "de-en", level="doc")
    assert by_doc.items == [f"doc{k:02d}" for k in range(1, 9)] and np.isnan(by_doc.human[:, -1]).all()
    domains = read_mtme_data(FOLDER, "de-en", level="sys", domain="news-a")
    assert domains.items == ["news-a"] and domains.human.shape == (11, 1)
    assert read_mtme_data(FOLDER, "de-en", level="domain").items == ["news-a", "news-b"]
    assert read_mtme_data(FOLDER, "de-en", domain="news-b").items == [str(k) for k in range(40, 80)]
    domain, docs = read_documents(FOLDER, "de-en")
    assert len(docs) == 80 and domain[0] == "news-a" and docs[-1] == "doc08"


# -- malformed folders ------------------------------------------------------------------------------------------
@pytest.fixture
def folder(tmp_path):
    target = tmp_path / "wmt17"
    shutil.copytree(FOLDER, target)
    return target


def _edit(path: Path, line: int, text: str) -> None:
    lines = path.read_text().splitlines()
    lines[line - 1] = text
    path.write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize("file,line,text,message", [
    ("human-scores/de-en.mqm.seg.score", 5, "KIT.4951\t2.0", r"de-en.mqm.seg.score:5: MQM score 2 is positive"),
    ("human-scores/de-en.mqm.seg.score", 7, "KIT.4951 -1.0 x", r"de-en.mqm.seg.score:7: expected 'SYSTEM SCORE'"),
    ("human-scores/de-en.mqm.seg.score", 9, "KIT.4951\tbad", r"de-en.mqm.seg.score:9: human score"),
    ("metric-scores/de-en/chrF-refA.seg.score", 3, "KIT.4951\tNone", r"chrF-refA.seg.score:3: metric score"),
    ("documents/de-en.docs", 25, "news-a doc01", r"de-en.docs:25: document 'doc01' is not one contiguous"),
    ("human-scores/de-en.mqm.domain.score", 2, "sports KIT.4951 -1.0", r"domain.score:2: unknown domain 'sports'"),
])
def test_malformed_files_are_refused_with_file_and_line(folder, file, line, text, message):
    _edit(folder / file, line, text)
    level = "domain" if "domain.score" in file else "seg"
    with pytest.raises(ValueError, match=message):
        read_mtme_data(folder, "de-en", level=level)


def test_esa_range_missing_outputs_and_counts(folder):
    esa = folder / "human-scores" / "de-en.esa.seg.score"
    esa.write_text((folder / "human-scores" / "de-en.mqm.seg.score").read_text().replace("\t-", "\t"))
    _edit(esa, 4, "KIT.4951\t101")
    with pytest.raises(ValueError, match=r"de-en.esa.seg.score:4: ESA score 101 is outside 0-100"):
        read_mtme_data(folder, "de-en", "esa")
    (folder / "system-outputs" / "de-en" / "KIT.4951.txt").unlink()
    with pytest.raises(ValueError, match="system 'KIT.4951' has no output file"):
        read_mtme_data(folder, "de-en")
    short = folder / "human-scores" / "de-en.mqm.sys.score"
    short.write_text(short.read_text() + "KIT.4951\t-1.0\n")
    with pytest.raises(ValueError, match="system 'KIT.4951' has 2 scores where 1 are expected"):
        read_mtme_data(folder, "de-en", level="sys")
    with pytest.raises(ValueError, match="human score files for de-en: de-en.esa.seg.score"):
        read_mtme_data(folder, "de-en", "psqm")


def test_spa_uses_the_items_judged_for_every_system():
    rng = np.random.default_rng(3)
    human, metric = rng.normal(size=(4, 30)), rng.normal(size=(4, 30))
    holes = human.copy()
    holes[0, 3] = holes[2, 7] = np.nan  # two items judged for some systems only
    holes[3] = np.nan  # a system without human scores is left out
    keep = np.ones(30, dtype=bool)
    keep[[3, 7]] = False
    result = A.correlation(holes, metric, "spa")
    assert result.value == A.correlation(human[:3, keep], metric[:3, keep], "spa").value
    assert result.cells == 3 * 28
    with pytest.raises(ValueError, match="average_by does not apply"):
        A.correlation(human, metric, "spa", "item")
