"""``agree`` (Python and ``nlgmetrics agree``) and its readers, on a slice of WMT17 DA and small files."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest
import sacrebleu
import scipy.stats

from nlgmetrics import agree
from nlgmetrics.agreement import statistics as A
from nlgmetrics.agreement.mtme_data import read_mtme_folder
from nlgmetrics.agreement.records import Judgments, read_annotations, read_mtme, read_table, read_wmt_da
from nlgmetrics.cli import main
from nlgmetrics.agreement import check_plot_path, merge, report

pytestmark = pytest.mark.filterwarnings("ignore:100 or more predictions end in a tokenized period")
MINI = Path(__file__).parent / "data" / "wmt17_da_mini"


@pytest.fixture(scope="module")
def wmt():
    return read_wmt_da(MINI / "DA-seglevel.csv", "de-en", texts=MINI)


def _sentence_bleu(judgments: Judgments) -> tuple[np.ndarray, np.ndarray]:
    """sacrebleu's own sentence BLEU of every judged cell, and the human scores, in the same order."""
    cells = np.argwhere(~np.isnan(judgments.human))
    scores = [sacrebleu.sentence_bleu(judgments.hypotheses[s][i], judgments.references[i]).score for s, i in cells]
    return np.array(scores), judgments.human[tuple(cells.T)]


def test_wmt_da_reader(wmt):
    assert len(wmt.systems) == 11 and (~np.isnan(wmt.human)).sum() == 135 and wmt.dropped == 0
    assert "C-3MA.4958" in wmt.systems and all("+" not in s for s in wmt.systems)
    item = wmt.items.index("28")  # escaped in the file: "&quot; mother &apos;s day"
    assert '" mother \'s day' in wmt.references[item][0]
    assert all("&apos;" not in refs[0] and "&quot;" not in refs[0] for refs in wmt.references)


def test_agree_scores_metrics_by_name_as_sacrebleu(wmt):
    bleu, human = _sentence_bleu(wmt)
    result = agree(wmt, ["sacrebleu"], statistics=["pearson", "kendall_b"], n_resamples=0, k=0)
    values = {row["statistic"]: row["value"] for row in result["rows"]}
    assert values["pearson"] == pytest.approx(scipy.stats.pearsonr(bleu, human)[0], abs=1e-12)
    assert values["kendall_b"] == pytest.approx(scipy.stats.kendalltau(bleu, human)[0], abs=1e-12)
    assert result["judged"] == 135 and result["dropped"] == 0


def test_agree_system_level_uses_system_means(wmt):
    bleu, _ = _sentence_bleu(wmt)
    matrix = np.full(wmt.human.shape, np.nan)
    matrix[~np.isnan(wmt.human)] = bleu
    judgments = Judgments(wmt.systems, wmt.items, wmt.human, {"bleu": matrix})
    row = agree(judgments, levels=["system"], n_resamples=0, k=0)["rows"][0]
    human_means = np.nanmean(wmt.human, axis=1)
    bleu_means = np.nanmean(matrix, axis=1)
    assert row["value"] == pytest.approx(scipy.stats.pearsonr(bleu_means, human_means)[0], abs=1e-12)


def test_agree_clusters_and_intervals_use_agreement():
    rng = np.random.default_rng(0)
    human = rng.normal(size=(3, 150))
    metrics = {"good": human + 0.3 * rng.normal(size=human.shape), "poor": human + 3 * rng.normal(size=human.shape),
               "flat": np.ones_like(human)}
    judgments = Judgments(["a", "b", "c"], [str(i) for i in range(150)], human, metrics)
    result = agree(judgments, n_resamples=200, k=200, seed=3)
    rows = {row["metric"]: row for row in result["rows"]}
    names, results, pvalues, ranks = A.significance_clusters(human, metrics, k=200, seed=3)
    assert [row["metric"] for row in result["rows"]] == names == ["good", "poor", "flat"]
    assert rows["good"]["rank"] == 1 and rows["poor"]["rank"] == 2 and rows["flat"]["rank"] is None
    assert rows["flat"]["value"] is None and "constant" in rows["flat"]["reason"]
    assert (rows["good"]["ci_low"], rows["good"]["ci_high"]) == A.bootstrap_interval(human, metrics["good"],
                                                                                      n_resamples=200, seed=3)
    assert result["pvalues"]["segment/pearson"]["matrix"] == pvalues.tolist()
    williams = result["pvalues"]["segment/pearson"]["williams"]
    assert williams[0][1] == A.williams_test(human, metrics["good"], metrics["poor"]) < 0.05
    assert json.loads(report(result, "json"))["rows"][2]["value"] is None  # never NaN in JSON
    text = report(result, "table")
    assert "undefined" in text and "(2)" in text
    assert report(result, "csv").splitlines()[0].startswith("level,statistic,average_by,metric,value")


def test_table_reader_drops_missing_human_scores_with_a_count(tmp_path):
    path = tmp_path / "judgments.csv"
    rows = [{"system": s, "item": i, "human": "" if (s, i) == ("b", 2) else h, "m": h + 0.1 * (i % 3)}
            for s, off in (("a", 0.0), ("b", 1.0)) for i, h in ((i, off + i) for i in range(6))]
    with open(path, "w", newline="") as handle:
        writer = csv.DictWriter(handle, ["system", "item", "human", "m"])
        writer.writeheader()
        writer.writerows(rows)
    judgments = read_table(path, metrics=["m"])
    assert judgments.dropped == 1 and np.isnan(judgments.human[1, 2]) and judgments.human.shape == (2, 6)
    with pytest.raises(ValueError, match="no column 'score'.*system, item, human, m"):
        read_table(path, human="score")
    with open(path, "a") as handle:
        handle.write("a,0,1.0,2.0\n")
    with pytest.raises(ValueError, match="given twice"):
        read_table(path, metrics=["m"])


def test_mtme_reader(tmp_path):
    (tmp_path / "h.seg.score").write_text("s1\t1.0\ns1\tNone\ns1\t3.0\ns2\t2.0\ns2\t1.0\ns2\t0.5\n")
    (tmp_path / "m.seg.score").write_text("s1\t0.1\ns1\t0.2\ns1\t0.3\ns2\t0.2\ns2\t0.15\ns2\t0.0\n")
    (tmp_path / "short.seg.score").write_text("s1\t0.1\ns2\t0.2\n")
    judgments = read_mtme(tmp_path / "h.seg.score", {"m": tmp_path / "m.seg.score"})
    assert judgments.systems == ["s1", "s2"] and judgments.dropped == 1
    np.testing.assert_array_equal(judgments.metrics["m"][0], [0.1, np.nan, 0.3])
    with pytest.raises(ValueError, match="1 segments for 's1' but the human scores have 3"):
        read_mtme(tmp_path / "h.seg.score", {"short": tmp_path / "short.seg.score"})


def test_annotations_reader_means_annotators(tmp_path):
    records = [
        {"id": "d1", "model_id": "M0", "decoded": "x", "references": ["r"], "rouge": 0.5,
         "expert_annotations": [{"relevance": 4, "fluency": 5}, {"relevance": 2, "fluency": 4}]},
        {"id": "d1", "model_id": "M1", "decoded": "y", "references": ["r"], "rouge": 0.2,
         "expert_annotations": [{"relevance": 1}, {"fluency": 3}]},
        {"id": "d2", "model_id": "M0", "decoded": "z", "references": ["r2"], "rouge": 0.4,
         "expert_annotations": [{"fluency": 1}]},
    ]
    path = tmp_path / "summeval.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    judgments = read_annotations(path, "relevance", metrics=["rouge"])
    assert judgments.human[0, 0] == 3.0 and judgments.human[1, 0] == 1.0 and judgments.dropped == 1
    assert judgments.hypotheses[0][0] == "x" and judgments.references[1] == ["r2"]
    with pytest.raises(ValueError, match="dimensions are fluency, relevance"):
        read_annotations(path, "coherence")


def test_bad_input(wmt):
    with pytest.raises(ValueError, match="no rows for 'xx-en'"):
        read_wmt_da(MINI / "DA-seglevel.csv", "xx-en")
    with pytest.raises(ValueError, match="needs the texts"):
        agree(read_wmt_da(MINI / "DA-seglevel.csv", "de-en"), ["bleu"])
    with pytest.raises(ValueError, match="no metric to correlate"):
        agree(read_wmt_da(MINI / "DA-seglevel.csv", "de-en"))
    with pytest.raises(ValueError, match="unknown statistic 'r'"):
        agree(wmt, ["bleu"], statistics=["r"])
    named_twice = Judgments.from_records(["a"] * 3, [1, 2, 3], [1.0, 2.0, 3.0], {"sentence_bleu": [1.0, 2.0, 2.5]},
                                         ["x y", "y z", "z"], ["x y", "y", "z"])
    with pytest.raises(ValueError, match="both given as scores and named"):
        agree(named_twice, ["bleu"], n_resamples=0, k=0)
    with pytest.raises(ValueError, match="threshold must be a number"):
        agree(named_twice, n_resamples=0, k=0, threshold="25")
    with pytest.raises(ValueError, match="alpha must be between 0 and 1"):
        agree(named_twice, n_resamples=0, k=0, alpha=5)
    with pytest.raises(TypeError, match="Judgments"):
        agree({"human": [1.0]}, ["bleu"])
    with pytest.raises(ValueError, match="metrics\\['m'\\] has 1 entries but human has 2"):
        Judgments.from_records(["a", "a"], [1, 2], [1.0, 2.0], {"m": [1.0]})


def test_plot_path_refuses_inputs_and_non_images(tmp_path):
    data = tmp_path / "scores.csv"
    data.write_text("system,item,human\n")
    with pytest.raises(ValueError, match="is an input file"):
        check_plot_path(data, [data])
    with pytest.raises(ValueError, match="a figure is written as .png, .pdf, .svg"):
        check_plot_path(data)
    with pytest.raises(ValueError, match="is an input file"):
        check_plot_path(tmp_path / "x.png", [tmp_path / "x.png"])
    (tmp_path / "notes.png").write_text("my notes")
    with pytest.raises(ValueError, match="is not a PNG image"):
        check_plot_path(tmp_path / "notes.png")
    with pytest.raises(ValueError, match="does not exist; create it first"):
        check_plot_path(tmp_path / "nodir" / "fig.png")


def test_cli_wmt_da(capsys, tmp_path):
    plot = tmp_path / "agree.png"
    code = main(["agree", str(MINI / "DA-seglevel.csv"), "-i", "wmt-da", "--pair", "de-en", "--texts", str(MINI),
                 "-m", "sacrebleu", "chrf", "-s", "pearson", "acc_eq", "--level", "segment", "system",
                 "--n-resamples", "50", "--k", "50", "-f", "json", "--plot", str(plot)])
    assert code == 0
    result = json.loads(capsys.readouterr().out)
    assert {(r["level"], r["statistic"]) for r in result["rows"]} == {
        (level, stat) for level in ("segment", "system") for stat in ("pearson", "acc_eq")}
    assert plot.read_bytes().startswith(b"\x89PNG")


def test_cli_table_columns(capsys, tmp_path):
    path = tmp_path / "j.jsonl"
    rng = np.random.default_rng(1)
    human = rng.normal(size=40)
    path.write_text("".join(json.dumps({"system": "s", "item": i, "human": float(h), "metric": float(h + rng.normal())})
                            + "\n" for i, h in enumerate(human)))
    assert main(["agree", str(path), "--columns", "metric", "--n-resamples", "0", "--k", "0", "-f", "csv"]) == 0
    line = capsys.readouterr().out.splitlines()[1].split(",")
    metric = [json.loads(x)["metric"] for x in path.read_text().splitlines()]
    assert float(line[4]) == pytest.approx(scipy.stats.pearsonr(human, metric)[0], abs=1e-12)


@pytest.mark.parametrize("argv,message", [
    (["-i", "wmt-da"], "needs --pair"),
    (["-i", "wmt-da", "--pair", "de-en", "-m", "blue"], "unknown metric 'blue'"),
    (["-i", "wmt-da", "--pair", "de-en", "--texts", str(MINI), "-m", "bleu", "--plot", str(MINI / "DA-seglevel.csv")],
     "is an input file of this command"),
    (["-i", "table", "--columns", "x"], "no column 'human'"),
])
def test_cli_errors(capsys, argv, message):
    assert main(["agree", str(MINI / "DA-seglevel.csv"), *argv]) == 2
    assert message in capsys.readouterr().err


def test_merge_reports_a_column_per_dataset():
    rng = np.random.default_rng(2)
    results = {}
    for pair in ("cs-en", "de-en"):
        human = rng.normal(size=(2, 30))
        metrics = {"a": human + rng.normal(size=human.shape), "b": human + 2 * rng.normal(size=human.shape)}
        results[pair] = agree(Judgments(["s1", "s2"], [str(i) for i in range(30)], human, metrics),
                              n_resamples=0, k=0)
    merged = merge(results)
    lines = report(merged, "markdown").splitlines()
    assert lines[0] == "| metric | cs-en | de-en |"
    value = next(r["value"] for r in results["de-en"]["rows"] if r["metric"] == "b")
    assert f"{value:.3f}" in next(line for line in lines if line.startswith("| b |")).split("|")[3]
    assert report(merged, "csv").splitlines()[0].startswith("dataset,level,")


def test_readers_refuse_empty_and_non_object_records(tmp_path):
    (tmp_path / "empty.csv").write_text("system,item,human\n")
    with pytest.raises(ValueError, match="has no records"):
        read_table(tmp_path / "empty.csv")
    (tmp_path / "list.jsonl").write_text("[1, 2]\n")
    with pytest.raises(ValueError, match="expected a JSON object"):
        read_annotations(tmp_path / "list.jsonl", "relevance")


def test_last_line_without_newline_is_read(tmp_path):
    (tmp_path / "h.seg.score").write_text("s1\t1.0\ns1\t2.0\ns1\t3.0")
    assert read_mtme(tmp_path / "h.seg.score").human.shape == (1, 3)


def test_mtme_folder_and_several_dimensions(tmp_path, capsys):
    (tmp_path / "human-scores").mkdir()
    (tmp_path / "metric-scores" / "en-de").mkdir(parents=True)
    rng = np.random.default_rng(6)
    human = -np.abs(rng.normal(size=(3, 8)))  # MQM: negative penalties
    metric = human + rng.normal(size=human.shape)
    for path, matrix in ((tmp_path / "human-scores" / "en-de.mqm.seg.score", human),
                         (tmp_path / "metric-scores" / "en-de" / "m-refA.seg.score", metric)):
        path.write_text("".join(f"sys{s}\t{float(v)!r}\n" for s, row in enumerate(matrix) for v in row))
    judgments = read_mtme_folder(tmp_path, "en-de")
    np.testing.assert_array_equal(judgments.metrics["m-refA"], metric)
    with pytest.raises(ValueError, match="human score files for en-de: en-de.mqm.seg.score"):
        read_mtme_folder(tmp_path, "en-de", rater="psqm")
    assert main(["agree", str(tmp_path), "-i", "mtme", "--mtme-pair", "en-de", "--k", "0", "--n-resamples", "0",
                 "-f", "csv"]) == 0
    value = float(capsys.readouterr().out.splitlines()[1].split(",")[4])
    assert value == pytest.approx(scipy.stats.pearsonr(human.ravel(), metric.ravel())[0], abs=1e-12)

    records = [{"id": f"d{i}", "model_id": f"M{s}", "m": float(s + i),
                "expert_annotations": [{"coherence": s + i, "relevance": s - i}]} for s in range(2) for i in range(5)]
    path = tmp_path / "summeval.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert main(["agree", str(path), "-i", "annotations", "--dimension", "coherence", "relevance", "--columns", "m",
                 "-s", "kendall_b", "--k", "0", "--n-resamples", "0", "-f", "markdown"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "| metric | coherence | relevance |"
    assert "| m | 1.000 |" in out
