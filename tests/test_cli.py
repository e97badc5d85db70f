"""The command line in process: embedding-metric extras (progress bar, alignment plot, baseline command)."""

from __future__ import annotations

import json

import pytest
import torch

from nlgmetrics import cli
from nlgmetrics.semantic import baselines
from nlgmetrics.semantic.moverscore import compute_moverscore

PREDS = ["they have air conditioning and new toilets .", "the cat sat on the mat ."]
REFS = ["they are now equipped with air conditioning .", "a cat was sitting on the mat ."]


@pytest.fixture()
def files(tmp_path):
    hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp.write_text("\n".join(PREDS) + "\n", encoding="utf-8")
    ref.write_text("\n".join(REFS) + "\n", encoding="utf-8")
    return str(hyp), str(ref)


def test_score_json_equals_library_and_progress_bar_on_request(files, capsys):
    hyp, ref = files
    assert cli.main(["score", "-m", "moverscore", "-p", hyp, "-r", ref, "-f", "json", "--progress", "on"]) == 0
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert out["scores"] == pytest.approx(compute_moverscore(PREDS, REFS)["scores"], abs=1e-12)
    assert "embedding" in captured.err  # tqdm's bar, on stderr
    assert cli.main(["score", "-m", "moverscore", "-p", hyp, "-r", ref, "--progress", "off"]) == 0
    assert "embedding" not in capsys.readouterr().err


def test_show_progress_auto_needs_a_long_run_on_a_terminal(monkeypatch):
    monkeypatch.setattr(cli.sys.stderr, "isatty", lambda: True, raising=False)
    assert cli.show_progress("auto", cli.PROGRESS_MIN_LINES)
    assert not cli.show_progress("auto", cli.PROGRESS_MIN_LINES - 1)
    assert cli.show_progress("on", 1) and not cli.show_progress("off", 10**6)


@pytest.mark.parametrize("metric", ["moverscore", "bertscore"])
def test_plot_alignment_option_writes_the_pairs_heatmap(files, tmp_path, capsys, metric):
    pytest.importorskip("matplotlib")
    hyp, ref = files
    png = tmp_path / "plots" / f"{metric}.png"
    extra = ["-o", "model_type=minilm"] if metric == "bertscore" else []  # bertscore needs lang or model_type
    code = cli.main(["score", "-m", metric, "-p", hyp, "-r", ref, *extra, "--plot-alignment", str(png),
                     "--plot-index", "1"])
    assert code == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert str(png) in capsys.readouterr().err


def test_plot_alignment_errors_name_the_problem(files, tmp_path, capsys):
    hyp, ref = files
    png = str(tmp_path / "x.png")
    assert cli.main(["score", "-m", "bleu", "-p", hyp, "-r", ref, "--plot-alignment", png]) == 2
    assert "--plot-alignment works with bertscore and moverscore" in capsys.readouterr().err
    assert cli.main(["score", "-m", "moverscore", "-p", hyp, "-r", ref, "--plot-alignment", png,
                     "--plot-index", "5"]) == 2
    assert "--plot-index 5 is out of range: there are 2 predictions" in capsys.readouterr().err


def test_baseline_command_writes_a_bert_score_format_file(tmp_path, capsys):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(PREDS + REFS) + "\n", encoding="utf-8")
    out = tmp_path / "b.tsv"
    assert cli.main(["baseline", "--model", "minilm", "--corpus", str(corpus), "--out", str(out)]) == 0
    assert f"wrote {out}" in capsys.readouterr().out
    table = baselines.read_baseline(out)
    assert table.shape == (7, 3)
    expected = baselines.compute_baseline(PREDS + REFS, "minilm")
    assert torch.allclose(table, expected, atol=1e-6)
    # the module entry point is the same command
    assert baselines.main(["--model", "minilm", "--corpus", str(corpus), "--out", str(tmp_path / "c.tsv")]) == 0
    assert cli.main(["baseline", "--model", "minilm", "--corpus", str(corpus)]) == 2
    assert "pass --lang" in capsys.readouterr().err
    assert cli.main(["baseline", "--model", "minilm", "--corpus", str(tmp_path / "none.txt"), "--lang", "xx"]) == 2
    assert "cannot read corpus" in capsys.readouterr().err
