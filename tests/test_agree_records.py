"""The agree reader rule (nlgmetrics.agreement.records): every format refuses a record missing a field and a
non-numeric human score with its line, accepts a BOM, and says which option names a missing column."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from nlgmetrics.agreement import Judgments, agree, read_annotations, read_mtme, read_table, read_wmt_da
from nlgmetrics.cli import main
from nlgmetrics.errors import InputError

MINI = Path(__file__).parent / "data" / "wmt17_da_mini"


def _jsonl(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_jsonl_record_without_system_is_an_error_with_its_line(tmp_path):
    records = [{"system": "a", "item": 1, "human": 1.0, "m": 0.1}, {"system": "b", "item": 1, "human": 2.0, "m": 0.2},
               {"item": 2, "human": 3.0, "m": 0.3}]
    with pytest.raises(ValueError, match=r"records.jsonl:3: the record has no 'system' field"):
        read_table(_jsonl(tmp_path / "records.jsonl", records), metrics=["m"])


@pytest.mark.parametrize("raw", [True, False, "inf", "-Infinity", "good", [1]])
def test_non_numeric_human_scores_are_refused_with_their_line(tmp_path, raw):
    records = [{"system": "a", "item": 1, "human": 1.0}, {"system": "a", "item": 2, "human": raw}]
    with pytest.raises(ValueError, match=r"h.jsonl:2: human score"):
        read_table(_jsonl(tmp_path / "h.jsonl", records))
    if not isinstance(raw, (bool, list)):
        (tmp_path / "h.csv").write_text(f"system,item,human\na,1,1.0\na,2,{raw}\n")
        with pytest.raises(ValueError, match=r"h.csv:3: human score"):
            read_table(tmp_path / "h.csv")
    with pytest.raises(ValueError, match=r"record 2: human score"):  # the Python API: the same rule
        Judgments.from_records(["a", "a"], [1, 2], [1.0, raw])


def test_missing_markers_drop_the_record_and_count_it(tmp_path):
    (tmp_path / "h.csv").write_text("system,item,human\na,1,1.0\na,2,\na,3,NA\na,4,nan\na,5,2.5\n")
    judgments = read_table(tmp_path / "h.csv")
    assert judgments.dropped == 3 and np.isnan(judgments.human).sum() == 3
    np.testing.assert_array_equal(judgments.human[0, [0, 4]], [1.0, 2.5])


def test_truncated_and_overlong_csv_rows_are_malformed(tmp_path):
    (tmp_path / "short.csv").write_text("system,item,human,m\na,1,1.0,0.5\na,2,2.0\n")
    with pytest.raises(ValueError, match=r"short.csv:3: malformed row: 3 fields where the header has 4"):
        read_table(tmp_path / "short.csv", metrics=["m"])
    (tmp_path / "long.csv").write_text("system,item,human\na,1,1.0\na,2,2.0,9\n")
    with pytest.raises(ValueError, match=r"long.csv:3: malformed row: 4 fields where the header has 3"):
        read_table(tmp_path / "long.csv")


def test_a_byte_order_mark_is_accepted_by_every_reader(tmp_path):
    text = (MINI / "DA-seglevel.csv").read_text(encoding="utf-8")
    (tmp_path / "bom.csv").write_text("\ufeff" + text, encoding="utf-8")
    plain, bom = read_wmt_da(MINI / "DA-seglevel.csv", "de-en"), read_wmt_da(tmp_path / "bom.csv", "de-en")
    np.testing.assert_array_equal(plain.human, bom.human)
    (tmp_path / "t.csv").write_text("\ufeffsystem,item,human\na,1,1.0\na,2,2.0\n", encoding="utf-8")
    assert read_table(tmp_path / "t.csv").human.tolist() == [[1.0, 2.0]]
    (tmp_path / "h.seg.score").write_text("\ufeffs1\t1.0\ns1\t2.0\n", encoding="utf-8")
    assert read_mtme(tmp_path / "h.seg.score").systems == ["s1"]
    (tmp_path / "a.jsonl").write_text("\ufeff" + json.dumps({"id": 1, "model_id": "M", "a": [{"x": 2}]}) + "\n",
                                      encoding="utf-8")
    assert read_annotations(tmp_path / "a.jsonl", "x", annotations="a").human.tolist() == [[2.0]]


def test_an_empty_mtme_score_file_is_named(tmp_path):
    """Issue 43: an empty file was called a file with "no human scores"."""
    (tmp_path / "h.seg.score").write_text("")
    with pytest.raises(InputError, match=r"h.seg.score is empty: an mt-metrics-eval human score file"):
        read_mtme(tmp_path / "h.seg.score")
    (tmp_path / "h.seg.score").write_text("s1\t1.0\ns1\t2.0\n")
    (tmp_path / "m.seg.score").write_text("\n")
    with pytest.raises(InputError, match=r"m.seg.score is empty: an mt-metrics-eval metric score \(m\) file"):
        read_mtme(tmp_path / "h.seg.score", {"m": tmp_path / "m.seg.score"})


def _judged(tmp_path: Path, rows: list[dict]) -> Path:
    return _jsonl(tmp_path / "t.jsonl", rows)


def test_conflicting_references_for_one_item_are_refused_with_both_lines(tmp_path):
    """Issue 43: reference X in system A's row and Y in B's row was scored against the last one (Pearson 0.504 instead
    of 0.894), silently."""
    rows = [{"system": "A", "item": 1, "hypothesis": "the cat sat", "reference": "the cat sat", "human": 80},
            {"system": "B", "item": 1, "hypothesis": "a cat", "reference": "a dog barked", "human": 40},
            {"system": "A", "item": 2, "hypothesis": "a dog", "reference": "a dog", "human": 70}]
    with pytest.raises(InputError, match=r"t.jsonl:2: item '1' has the reference\(s\) \['a dog barked'\] here but "
                                         r"\['the cat sat'\] at .*t.jsonl:1"):
        read_table(_judged(tmp_path, rows))
    rows[1]["reference"] = ["the cat sat"]  # the same reference, as a list: one set of references
    assert read_table(_judged(tmp_path, rows)).references == [["the cat sat"], ["a dog"]]
    with pytest.raises(InputError, match=r"record 2: item '1' has the reference"):  # the Python API: the same rule
        Judgments.from_records(["A", "B"], [1, 1], [1.0, 2.0], hypotheses=["x", "y"], references=["x", "z"])


@pytest.mark.parametrize("field", ["system", "item"])
@pytest.mark.parametrize("value,shown", [(None, "null"), ("", "empty"), (True, "a bool"), ([1], "a list")])
def test_null_or_non_scalar_system_and_item_keys_are_refused(tmp_path, field, value, shown):
    """Issue 43: "system": null became a system named "None"."""
    rows = [{"system": "A", "item": 1, "human": 1.0}, {"system": "B", "item": 1, "human": 2.0}]
    rows[1][field] = value
    with pytest.raises(InputError, match=rf"t.jsonl:2: the {field} is {shown}"):
        read_table(_judged(tmp_path, rows))


@pytest.mark.parametrize("value,shown", [(None, "null"), (3, r"a int \(3\)"), ([], "an empty list"),
                                         (["ok", None], "null"), ({"text": "x"}, r"a dict \(\{'text': 'x'\}\)")])
def test_null_and_non_text_references_are_refused_with_their_line(tmp_path, value, shown):
    """Issue 43: a null or numeric reference gave "'NoneType' object is not iterable" without file or line."""
    rows = [{"system": "A", "item": 1, "hypothesis": "a", "reference": "a", "human": 1.0},
            {"system": "A", "item": 2, "hypothesis": "b", "reference": value, "human": 2.0}]
    with pytest.raises(InputError, match=rf"t.jsonl:2: the reference is {shown}, not text"):
        read_table(_judged(tmp_path, rows))
    rows[1].update(reference="b", hypothesis=None)
    with pytest.raises(InputError, match=r"t.jsonl:2: the hypothesis is null, not text"):
        read_table(_judged(tmp_path, rows))


def test_agree_cli_reports_a_conflicting_reference_as_one_line(tmp_path, capsys):
    rows = [{"system": "A", "item": 1, "hypothesis": "the cat sat", "reference": "the cat sat", "human": 80},
            {"system": "B", "item": 1, "hypothesis": "a cat", "reference": "a dog barked", "human": 40}]
    assert main(["agree", str(_judged(tmp_path, rows)), "-m", "chrf", "--k", "0", "--n-resamples", "0"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "t.jsonl:2: item '1' has the reference(s)" in err


def test_metric_score_of_a_judged_record_must_be_a_number(tmp_path):
    (tmp_path / "h.csv").write_text("system,item,human,m\na,1,1.0,0.5\na,2,2.0,\n")
    with pytest.raises(ValueError, match=r"h.csv:3: metric 'm': '' is not a number"):
        read_table(tmp_path / "h.csv", metrics=["m"])


def test_column_errors_name_the_option(tmp_path, capsys):
    (tmp_path / "t.csv").write_text("system,item,score,hypothesis,reference\na,1,1.0,the cat,the cat\n"
                                    "a,2,2.0,a dog,the dog\nb,1,1.5,cat,the cat\nb,2,3.0,the dog,the dog\n")
    assert main(["agree", str(tmp_path / "t.csv"), "-m", "bleu", "--k", "0", "--n-resamples", "0"]) == 2
    assert "--human-column" in capsys.readouterr().err
    # hypothesis/reference columns are found by name: no --hypothesis-column/--reference-column needed
    judgments = read_table(tmp_path / "t.csv", human="score")
    assert judgments.references[1] == ["the dog"] and judgments.hypotheses[1][0] == "cat"
    assert agree(judgments, ["sacrebleu"], n_resamples=0, k=0)["rows"][0]["value"] is not None
    (tmp_path / "nohyp.csv").write_text("system,item,human,reference\na,1,1.0,x\na,2,2.0,y\n")
    with pytest.raises(ValueError, match=r"no hypothesis texts.*--hypothesis-column NAME"):
        agree(read_table(tmp_path / "nohyp.csv"), ["bleu"], n_resamples=0, k=0)
