"""The command line reads options by their declared type, files as UTF-8 (BOM, stdin, folders), writes valid JSON, and
reports every error in one line with exit code 2 (in process, lexical metrics: fast)."""

from __future__ import annotations

import collections.abc
import io
import json
import math

import pytest

from nlgmetrics import cli
from nlgmetrics.lexical.bleu import compute_bleu
from nlgmetrics.lexical.rouge import compute_rouge

PREDS = ["THE CAT SAT ON THE MAT.", "HELLO WORLD"]
REFS = ["the cat sat on the mat.", "hello world"]


@pytest.fixture()
def files(tmp_path):
    hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp.write_text("\n".join(PREDS) + "\n", encoding="utf-8")
    ref.write_text("\n".join(REFS) + "\n", encoding="utf-8")
    return str(hyp), str(ref)


def run_json(capsys, *argv) -> dict:
    assert cli.main(["score", *argv, "-f", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def error_of(capsys, *argv) -> str:
    """The one-line error of a failing command (exit code 2, no traceback)."""
    assert cli.main(list(argv)) == 2
    err = capsys.readouterr().err
    assert err.startswith("nlgmetrics: error: ") and "Traceback" not in err and err.count("\n") == 1, err
    return err


@pytest.mark.parametrize("word", ["False", "false", "FALSE", "no", "No", "0"])
def test_false_words_are_false(files, capsys, word):
    hyp, ref = files
    out = run_json(capsys, "-m", "bleu", "-p", hyp, "-r", ref, "-o", f"lowercase={word}")
    assert out["score"] == pytest.approx(compute_bleu(PREDS, REFS, lowercase=False)["score"], abs=1e-12)
    assert out["score"] < 10  # case differs everywhere: far from the lowercased 100


@pytest.mark.parametrize("word", ["True", "true", "yes", "YES", "1"])
def test_true_words_are_true(files, capsys, word):
    hyp, ref = files
    out = run_json(capsys, "-m", "bleu", "-p", hyp, "-r", ref, "-o", f"lowercase={word}")
    assert out["score"] == pytest.approx(100.0, abs=1e-9)


def test_use_stemmer_false_is_false(tmp_path, capsys):
    hyp, ref = tmp_path / "h.txt", tmp_path / "r.txt"
    hyp.write_text("the cats were running\n", encoding="utf-8")
    ref.write_text("the cat was run\n", encoding="utf-8")
    off = run_json(capsys, "-m", "rouge", "-p", str(hyp), "-r", str(ref), "-o", "use_stemmer=False")
    on = run_json(capsys, "-m", "rouge", "-p", str(hyp), "-r", str(ref), "-o", "use_stemmer=yes")
    assert off["rouge1"] == pytest.approx(compute_rouge(["the cats were running"], ["the cat was run"])["rouge1"])
    assert on["rouge1"] > off["rouge1"]


def test_coerce_option_by_declared_type():
    coerce = cli.coerce_option
    assert coerce("bleu", "max_order", "2") == 2 and isinstance(coerce("bleu", "max_order", "2"), int)
    assert coerce("sacrebleu", "max_ngram_order", "3") == 3 and coerce("bleu", "smooth", "yes") is True
    assert coerce("bleu", "smooth_value", "0.5") == 0.5 and coerce("bleu", "smooth_value", "None") is None
    assert coerce("bleu", "seed", "null") is None and coerce("bleu", "seed", "7") == 7
    assert coerce("sacrebleu", "tokenize", "zh") == "zh"  # str: as given
    assert coerce("sacrebleu", "tokenize", "none") == "none"  # a tokenizer of its own, not None (= the default 13a)
    assert coerce("sacrebleu", "tokenize", "null") is None
    assert coerce("rouge", "rouge_types", '["rouge1", "rougeL"]') == ["rouge1", "rougeL"]
    assert coerce("rouge", "rouge_types", "rougeLsum") == "rougeLsum"
    assert coerce("rouge", "alpha", "NONE") is None
    assert coerce("bertscore", "idf", "false") is False and coerce("bertscore", "idf", '{"5": 1.5}') == {"5": 1.5}
    assert coerce("moverscore", "stop_words", '["the", "a"]') == ["the", "a"]
    assert coerce("moverscore", "distributed", "auto") == "auto" and coerce("moverscore", "distributed", "0") is False
    assert math.isinf(coerce("rouge", "beta", "inf"))  # parsed; the core decides whether it is allowed


@pytest.mark.parametrize("item, message", [
    ("n_bootstrap=abc", "option 'n_bootstrap' of bleu takes an integer, not 'abc'"),
    ("max_order=2.5", "takes an integer, not '2.5'"),
    ("lowercase=maybe", "takes true or false (also yes/no, 1/0), not 'maybe'"),
    ("smooth_value=abc", "takes a number or none, not 'abc'"),
    ("lowercas=1", "bleu: unknown option 'lowercas'. Did you mean 'lowercase'?"),
    ("predictions=x", "bleu: unknown option 'predictions'."),
    ("novalue", "write options as key=value"),
])
def test_bad_option_values_name_the_option_and_type(files, capsys, item, message):
    hyp, ref = files
    assert message in error_of(capsys, "score", "-m", "bleu", "-p", hyp, "-r", ref, "-o", item)


def test_sacrebleu_tokenize_none_is_no_tokenization(tmp_path, capsys):
    """``-o tokenize=none`` is sacrebleu's 'none' tokenizer (whitespace split only), not None, which selects 13a: the
    score equals sacrebleu's with tokenize='none' and differs from 13a's on text with punctuation."""
    import sacrebleu

    hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp.write_text("The cat sat on the mat.\nHello, world!\n", encoding="utf-8")
    ref.write_text("The cat sat on a mat.\nHello world!\n", encoding="utf-8")
    got = run_json(capsys, "-m", "sacrebleu", "-p", str(hyp), "-r", str(ref), "-o", "tokenize=none")["score"]
    hyps, refs = ["The cat sat on the mat.", "Hello, world!"], [["The cat sat on a mat.", "Hello world!"]]
    assert got == pytest.approx(sacrebleu.corpus_bleu(hyps, refs, tokenize="none").score, abs=1e-9)
    assert got != pytest.approx(sacrebleu.corpus_bleu(hyps, refs, tokenize="13a").score, abs=1e-3)


def test_option_types_come_from_the_signature():
    types = cli.option_types("rouge")
    assert types["use_stemmer"] is bool and types["n_bootstrap"] is int
    assert "predictions" not in types and "references" not in types
    with pytest.raises(cli.CLIError, match="a JSON list"):
        cli.coerce_option("moverscore", "stop_words", "the")
    with pytest.raises(ValueError, match="not settable from the command line"):
        cli._convert(collections.abc.Callable[[str], list], "x")


def test_bom_is_dropped(tmp_path, capsys):
    hyp, ref = tmp_path / "h.txt", tmp_path / "r.txt"
    hyp.write_text("the cat sat on the mat .\n", encoding="utf-8")
    ref.write_bytes("\ufeffthe cat sat on the mat .\n".encode("utf-8"))
    assert run_json(capsys, "-m", "bleu", "-p", str(hyp), "-r", str(ref))["score"] == pytest.approx(100.0, abs=1e-9)
    assert cli.read_text_file(str(ref)) == ["the cat sat on the mat ."]


def test_stdin_and_directories(files, tmp_path, capsys, monkeypatch):
    hyp, ref = files
    monkeypatch.setattr(cli.sys, "stdin", io.TextIOWrapper(io.BytesIO("\n".join(PREDS).encode("utf-8"))))
    from_stdin = run_json(capsys, "-m", "bleu", "-p", "-", "-r", ref)
    assert from_stdin["score"] == pytest.approx(compute_bleu(PREDS, REFS)["score"], abs=1e-12)
    assert "only one of --predictions and --references can be '-'" in error_of(
        capsys, "score", "-m", "bleu", "-p", "-", "-r", "-")
    assert f"{tmp_path} is a directory; pass a file" in error_of(
        capsys, "score", "-m", "bleu", "-p", str(tmp_path), "-r", ref)
    missing = str(tmp_path / "nope.txt")
    assert "nope.txt: no such file" in error_of(capsys, "score", "-m", "bleu", "-p", hyp, "-r", missing)
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"fine\n\xff\xfe broken\n")
    assert "line 2 is not valid UTF-8" in error_of(capsys, "score", "-m", "bleu", "-p", str(bad), "-r", ref)


def test_json_output_is_valid_json_even_with_non_finite_values(monkeypatch, capsys):
    assert json.loads(cli.format_result("m", {"a": 1.5, "b": [1.0, float("nan")], "c": float("inf")}, "json")) == {
        "metric": "m", "a": 1.5, "b": [1.0, None], "c": None}
    assert "b[1], c not a finite number; written as null" in capsys.readouterr().err
    import numpy as np

    assert json.loads(cli.format_result("m", {"x": np.float32(0.5), "y": np.array([1, 2])}, "json")) == {
        "metric": "m", "x": 0.5, "y": [1, 2]}


def test_device_and_batch_size_apply_to_embedding_metrics_only(files, capsys):
    hyp, ref = files
    assert "--device applies to the embedding metrics" in error_of(
        capsys, "score", "-m", "bleu", "-p", hyp, "-r", ref, "--device", "cuda")
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["score", "-m", "bertscore", "-p", hyp, "-r", ref, "--batch-size", "0"])
    assert exit_info.value.code == 2


def _core_checks_cuda() -> bool:
    """Whether the engine answers a CUDA request without CUDA with a ValueError (the core's device check)."""
    torch = pytest.importorskip("torch")
    from nlgmetrics.embed.encoder import pick_device

    if torch.cuda.is_available():
        return True
    try:
        pick_device("cuda")
    except ValueError:
        return True
    except (AssertionError, RuntimeError):
        return False
    return False


@pytest.mark.xfail(not _core_checks_cuda(), strict=True,
                   reason="needs the core's device check (pick_device raising ValueError without CUDA)")
def test_cuda_without_cuda_is_a_clear_error(files, capsys):
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    hyp, ref = files
    err = error_of(capsys, "score", "-m", "bertscore", "-p", hyp, "-r", ref, "-o", "model_type=minilm",
                   "--device", "cuda")
    assert "cuda" in err.lower()


def test_list_says_an_option_is_not_settable_only_when_it_is_not():
    """Issue 43: `nlgmetrics list bleu` said tokenizer cannot be set from the command line, but -o tokenizer=intl
    works. Every option of every metric: "not settable" only where -o cannot set it (a function alone)."""
    from nlgmetrics.cli.listing import metric_options
    from nlgmetrics.registry import available_metrics

    samples = {"text": "intl", "an integer": "3", "a number": "0.5", "true or false": "true", "a JSON": "[]"}
    for metric in available_metrics():
        for name, takes, _ in metric_options(metric):
            if name == "KEY" or takes.startswith("alias of"):
                continue
            if "not settable" in takes:
                with pytest.raises(cli.CLIError, match="not settable"):
                    cli.coerce_option(metric, name, "x")
                continue
            raw = next((value for start, value in samples.items() if takes.startswith(start)), "none")
            cli.coerce_option(metric, name, raw)  # what the listing offers is read
    assert "not settable" not in dict((n, t) for n, t, _ in metric_options("bleu"))["tokenizer"]
    assert cli.coerce_option("bleu", "tokenizer", "intl") == "intl"
