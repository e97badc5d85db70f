"""``python -m benchmarks.run`` (issue #29, item 19): an unknown ``--only`` name is an error before anything runs or
is written, and each metric's rows carry the date they were measured (``--only`` keeps older rows)."""

from __future__ import annotations

import pytest
from conftest import REPO


@pytest.fixture()
def run(monkeypatch, tmp_path):
    monkeypatch.syspath_prepend(str(REPO))
    from benchmarks import run

    monkeypatch.setattr(run, "RESULTS", tmp_path / "results")
    return run


def test_unknown_benchmark_is_an_error_and_writes_nothing(run, tmp_path, capsys):
    with pytest.raises(SystemExit) as info:
        run.main(["--only", "blue", "--data", str(tmp_path)])
    assert info.value.code == 2
    assert "unknown benchmark 'blue'. Did you mean 'bleu'?" in capsys.readouterr().err
    assert not (tmp_path / "results").exists()
    with pytest.raises(SystemExit):
        run.main(["--only", "bleu,rouge,nope", "--data", str(tmp_path)])
    assert run.benchmark_names("bleu, rouge") == ["bleu", "rouge"]


def test_each_row_carries_its_own_date(run, monkeypatch, tmp_path):
    data = tmp_path / "data"
    (data / "wmt17-en-de").mkdir(parents=True)
    (tmp_path / "results").mkdir()
    earlier = [{"metric": "rouge", "rows": [{"case": "old", "ours_s": 1.0}], "peak_rss_mb": 10,
                "measured": "2026-01-02"},
               {"metric": "ter", "rows": [{"case": "older", "ours_s": 2.0}], "peak_rss_mb": 10}]
    (tmp_path / "results" / "bench.json").write_text(__import__("json").dumps(earlier))
    monkeypatch.setattr(run, "run_isolated", lambda name, data, quick: {
        "metric": name, "rows": [{"case": "new", "ours_s": 0.5}], "peak_rss_mb": 5, "measured": "2026-11-24"})
    assert run.main(["--only", "bleu", "--data", str(data)]) == 0
    table = (tmp_path / "results" / "bench.md").read_text()
    rows = {line.split(" | ")[1]: line.rstrip(" |").rsplit("| ", 1)[1] for line in table.splitlines()
            if line.startswith("| ") and "|---" not in line and "case" not in line}
    assert rows == {"new": "2026-11-24", "old": "2026-01-02", "older": "not recorded"}
    assert "Measured 20" not in table
