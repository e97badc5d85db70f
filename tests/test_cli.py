"""The command line in process: embedding-metric extras (progress bars, alignment plot, baseline command)."""

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
    png.parent.mkdir()  # an output's folder must exist (issue 33: checked before the work, never created by a typo)
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
    # an existing file is replaced only with --overwrite, and only when it is a baseline file
    assert cli.main(["baseline", "--model", "minilm", "--corpus", str(corpus), "--out", str(out), "--pairs", "1"]) == 2
    assert "exists; pass --overwrite" in capsys.readouterr().err
    assert torch.equal(baselines.read_baseline(out), table)
    assert cli.main(["baseline", "--model", "minilm", "--corpus", str(corpus), "--out", str(out), "--pairs", "1",
                     "--overwrite"]) == 0
    assert not torch.equal(baselines.read_baseline(out), table)  # one pair now, not four
    assert cli.main(["baseline", "--model", "minilm", "--corpus", str(corpus)]) == 2
    assert "pass --lang" in capsys.readouterr().err
    assert cli.main(["baseline", "--model", "minilm", "--corpus", str(tmp_path / "none.txt"), "--lang", "xx"]) == 2
    assert "cannot read corpus" in capsys.readouterr().err


def test_baseline_refuses_what_it_did_not_write_before_any_work(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("NLGMETRICS_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(baselines, "compute_baseline", lambda *a, **k: pytest.fail("must refuse before computing"))
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(PREDS + REFS) + "\n", encoding="utf-8")
    notes = tmp_path / "notes.tsv"
    notes.write_text("my notes\n", encoding="utf-8")
    base = ["baseline", "--model", "minilm", "--corpus", str(corpus)]
    cases = [
        (["--out", str(notes)], "exists; pass --overwrite"),
        (["--out", str(notes), "--overwrite"], "is not a baseline file"),
        (["--out", str(tmp_path)], "is a folder; pass a file name"),
        (["--lang", "../../../x"], "is not a language code"),
        (["--lang", "en/../../x"], "is not a language code"),
    ]
    for extra, message in cases:
        assert cli.main(base + extra) == 2, extra
        err = capsys.readouterr().err
        assert message in err and "Traceback" not in err, (extra, err)
    assert notes.read_text(encoding="utf-8") == "my notes\n"
    for model in ("../../../x", str(tmp_path / "abs" / "model"), "org/name/extra", "..", "a/../../b"):
        assert cli.main(["baseline", "--model", model, "--corpus", str(corpus), "--lang", "en"]) == 2, model
        assert "is not a hub id" in capsys.readouterr().err
    assert not (tmp_path / "home").exists() and not (tmp_path / "x").exists()
    with pytest.raises(SystemExit) as exit_info:  # argparse: usage and exit code 2
        cli.main(base + ["--lang", "xx", "--pairs", "0"])
    assert exit_info.value.code == 2 and "at least 1" in capsys.readouterr().err
    # the default location stays inside the baselines folder; lookups never leave it either
    home = tmp_path / "home" / "baselines"
    assert baselines.default_baseline_path("en-sci", "org/model") == home / "en-sci" / "org" / "model.tsv"
    with pytest.raises(ValueError, match="not a language code"):
        baselines.find_baseline("../x", "minilm")
    with pytest.raises(ValueError, match="not a hub id"):
        baselines.find_baseline("en", str(tmp_path / "etc" / "passwd"))


def test_third_party_load_messages_only_with_progress_on(files, capfd):
    """transformers' "Loading weights" bar: hidden by default, shown with --progress on; hidden from Python too (issue
    #29 item 21), and transformers' own setting is restored after each load."""
    from transformers.utils import logging as transformers_logging

    from nlgmetrics.embed.encoder import Encoder, clear_encoders

    hyp, ref = files
    for progress, shown in (("off", False), ("auto", False), ("on", True)):
        clear_encoders()
        assert cli.main(["score", "-m", "moverscore", "-p", hyp, "-r", ref, "--progress", progress]) == 0
        err = capfd.readouterr().err
        assert ("Loading weights" in err) is shown, (progress, err)
    clear_encoders()
    Encoder("minilm")  # outside the CLI: hidden as well
    assert "Loading weights" not in capfd.readouterr().err and transformers_logging.is_progress_bar_enabled()


# -- issue #29 item 20: CLI errors give command-line advice, compare checks every metric before the long runs ------
def test_core_errors_give_command_line_advice(files, capsys):
    hyp, ref = files
    assert cli.main(["score", "-m", "bertscore", "-p", hyp, "-r", ref]) == 2
    err = capsys.readouterr().err
    assert "-o lang=en" in err and "-o model_type=sentence-transformers/all-MiniLM-L6-v2" in err
    assert "model_type='" not in err and "lang='" not in err
    if not torch.cuda.is_available():
        assert cli.main(["score", "-m", "bertscore", "-p", hyp, "-r", ref, "-o", "model_type=minilm",
                         "--device", "cuda"]) == 2
        err = capsys.readouterr().err
        assert err.startswith("nlgmetrics: error: --device cuda but CUDA is not available")
        assert "pass --device cpu, or --device auto" in err and "device=None" not in err


def test_cli_advice_rewrites_python_keywords_only():
    assert cli.cli_advice("use model_type='x/y' and idf=True, device=None; HF_HUB_OFFLINE=1 stays") == (
        "use -o model_type=x/y and -o idf=true, --device auto; HF_HUB_OFFLINE=1 stays")
    assert cli.cli_advice("e.g. lang='en'", "bertscore.") == "e.g. -o bertscore.lang=en"
    assert cli.cli_advice("pass model_type='m'", flags={"model_type": "--model"}) == "pass --model m"


def test_compare_checks_every_metric_before_scoring_any(files, monkeypatch, capsys):
    import nlgmetrics.comparison as comparison

    hyp, ref = files

    def never(*args, **kwargs):
        raise AssertionError("compare ran before every metric's options were checked")

    monkeypatch.setattr(comparison, "compare", never)
    assert cli.main(["compare", "-r", ref, "--baseline", ref, hyp, "-m", "bleu", "bertscore"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "-o bertscore.model_type=sentence-transformers/all-MiniLM-L6-v2" in err


@pytest.mark.parametrize("metric, key", [("moverscore", "scores"), ("bertscore", "f1")])
def test_plot_alignment_title_shows_the_printed_pair_score(files, tmp_path, capsys, monkeypatch, metric, key):
    """issue #29 item 18: the title showed the plot's own recomputation (no idf: 0.5916) beside a printed 0.4853."""
    pytest.importorskip("matplotlib")
    from matplotlib.axes import Axes

    titles = []
    monkeypatch.setattr(Axes, "set_title", lambda self, text, *a, **k: titles.append(text))
    hyp, ref = files
    png = tmp_path / f"{metric}.png"
    assert cli.main(["score", "-m", metric, "-p", hyp, "-r", ref, "-o", "model_type=minilm", "-f", "json",
                     "--plot-alignment", str(png), "--plot-index", "1"]) == 0
    printed = json.loads(capsys.readouterr().out)[key][1]
    assert titles and titles[-1].endswith(f"this pair's score in the run: {printed:.4f}")
