"""One bad-input matrix for every evaluate module and the CLI: a named ValueError/TypeError, or finite scores."""

from __future__ import annotations

import math
import subprocess
import sys

import pytest

from nlgmetrics.registry import SPECS, self_contained_metrics

from conftest import REPO

OPTIONS = {name: dict(spec.demo_options) for name, spec in SPECS.items()}
METRICS = self_contained_metrics()
LONG = " ".join(f"word{i % 97} and" for i in range(3000))  # 6,000 words

SCORED = {
    "empty prediction": (["", "the cat sat"], ["a reference", "the cat sat"]),
    "empty reference": (["a prediction", "the cat sat"], ["", "the cat sat"]),
    "whitespace only": (["   \t ", "the cat sat"], [" \n ", "the cat sat"]),
    "chinese": (["猫坐在垫子上。", "the cat sat"], ["猫坐在垫子上了。", "the cat sat"]),
    "emoji": (["I ❤️ 🐍 code 🎉", "the cat sat"], ["I ❤️ 🐍 python", "the cat sat"]),
    "right-to-left": (["مرحبا بالعالم", "שלום עולם"], ["مرحبا يا عالم", "שלום לכל העולם"]),
    "6000-word text": ([LONG, "the cat sat"], [LONG.replace("word3 ", "term3 "), "the cat sat"]),
    "varying reference lists": (["the cat sat", "a dog ran"], [["the cat sat"], ["a dog ran", "the dog ran", "x"]]),
}
RAISES = {
    "mismatched lengths": ((["a", "b"], ["a"]), ValueError, "2 predictions but 1 references"),
    "None prediction": (([None], ["a"]), TypeError, r"predictions\[0\] must be a string"),
    "None reference": ((["a"], [None]), TypeError, r"references\[0\] must be a string"),
    "non-string item": (([42], ["a"]), TypeError, r"predictions\[0\] must be a string"),
    "non-string in list": ((["a"], [["a", 7]]), TypeError, r"references\[0\]\[1\] must be a string"),
    "zero examples": (([], []), ValueError, "no examples"),
    "empty reference list": ((["a"], [[]]), ValueError, "empty list"),
}


def _finite_values(result: dict) -> list[float]:
    values = []
    for key, value in result.items():
        items = value if isinstance(value, list) else [value]
        values += [float(v) for v in items if isinstance(v, (int, float)) and not isinstance(v, bool)]
    return values


@pytest.fixture(scope="module")
def modules():
    """evaluate modules by name, loaded once per test module."""
    import evaluate

    class Loaded(dict):
        def __missing__(self, name):
            self[name] = evaluate.load(str(REPO / "metrics" / name))
            return self[name]

    return Loaded()


@pytest.mark.parametrize("case", list(SCORED))
@pytest.mark.parametrize("name", METRICS)
def test_scored_cases_are_finite(modules, name, case):
    predictions, references = SCORED[case]
    result = modules[name].compute(predictions=predictions, references=references, **OPTIONS.get(name, {}))
    values = _finite_values(result)
    assert values, result
    assert all(math.isfinite(v) for v in values), (case, result)


@pytest.mark.parametrize("case", list(RAISES))
@pytest.mark.parametrize("name", METRICS)
def test_bad_cases_raise_named_errors(modules, name, case):
    (predictions, references), error, match = RAISES[case]
    with pytest.raises(error, match=match):
        modules[name].compute(predictions=predictions, references=references, **OPTIONS.get(name, {}))


@pytest.mark.parametrize("name", METRICS)
def test_numpy_arrays_and_pandas_series_are_accepted(modules, name):
    np = pytest.importorskip("numpy")
    pd = pytest.importorskip("pandas")
    preds, refs = ["the cat sat on the mat", "a dog ran"], ["the cat sat on a mat", "the dog ran home"]
    expected = modules[name].compute(predictions=preds, references=refs, **OPTIONS.get(name, {}))
    for p, r in [(np.array(preds), np.array(refs, dtype=object)), (pd.Series(preds), pd.Series(refs)),
                 (np.array(preds), np.array([[x] for x in refs]))]:  # a 2-d array: one column of references
        assert modules[name].compute(predictions=p, references=r, **OPTIONS.get(name, {})) == expected
    with pytest.raises(TypeError, match="1-d numpy array"):
        modules[name].compute(predictions=np.array([preds]), references=refs, **OPTIONS.get(name, {}))


SURROGATES = (["\ud800 the cat sat on the mat", "a dog ran \udcff"], ["the \ud800 cat sat on a mat", "a dog ran"])


@pytest.mark.parametrize("name", METRICS)
def test_lone_surrogates_in_every_core_metric(name):
    """Embedding metrics replace them (U+FFFD, one warning); lexical metrics keep them, as their references do."""
    import warnings

    from nlgmetrics.registry import get_metric

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = get_metric(name)(*SURROGATES, **OPTIONS.get(name, {}))
    assert all(math.isfinite(v) for v in _finite_values(result)), result
    replaced = [w for w in caught if "lone surrogates" in str(w.message)]
    if name in ("bertscore", "moverscore"):
        assert len(replaced) == 1 and "3 text(s)" in str(replaced[0].message)
        fixed = [[t.replace("\ud800", "\ufffd").replace("\udcff", "\ufffd") for t in side] for side in SURROGATES]
        assert get_metric(name)(*fixed, **OPTIONS.get(name, {})) == result
    else:
        assert replaced == []


def test_lone_surrogates_keep_lexical_parity():
    import sacrebleu
    from rouge_score import rouge_scorer

    from nlgmetrics.registry import get_metric

    preds, refs = SURROGATES
    assert get_metric("bleu")(preds, refs)["score"] == pytest.approx(sacrebleu.corpus_bleu(preds, [refs]).score)
    scorer = rouge_scorer.RougeScorer(["rouge1", "rougeL"])
    ours = get_metric("rouge")(preds, refs, rouge_types=["rouge1", "rougeL"], use_aggregator=False)
    for key in ("rouge1", "rougeL"):
        assert ours[key] == pytest.approx([scorer.score(r, p)[key].fmeasure for p, r in zip(preds, refs)])


def _subprocess_cli(*args):
    return subprocess.run([sys.executable, "-m", "nlgmetrics.cli", *args], capture_output=True, text=True, timeout=300)


def _in_process_cli(capsys):
    """``nlgmetrics.cli.main(argv)`` here, its exit status and output as subprocess.run gives them (no interpreter
    start, import of torch or model load per call)."""
    from nlgmetrics import cli

    def run(*args):
        capsys.readouterr()
        code = cli.main(list(args))
        out, err = capsys.readouterr()
        return subprocess.CompletedProcess(args, code, out, err)

    return run


@pytest.mark.parametrize("name", METRICS)
def test_cli_scores_and_reports_bad_files(tmp_path, name, capsys):
    # the real entry point (python -m nlgmetrics.cli, its sys.exit status) for the first metric; main(argv) in this
    # process for the others: the same parser, scoring and error paths
    _cli = _subprocess_cli if name == METRICS[0] else _in_process_cli(capsys)
    hyp, ref, short, binary = (tmp_path / f for f in ("hyp.txt", "ref.txt", "short.txt", "bad.txt"))
    hyp.write_text("the cat sat on the mat\n\n猫坐在垫子上\n", encoding="utf-8")
    ref.write_text("the cat sat on a mat\na reference\n猫坐在垫子上了\n", encoding="utf-8")
    short.write_text("only one line\n", encoding="utf-8")
    binary.write_bytes(b"fine\n\xff\xfe broken\nok\n")
    extra = [part for key, value in OPTIONS[name].items() for part in ("-o", f"{key}={value}")]
    ok = _cli("score", "--metric", name, "-p", str(hyp), "-r", str(ref), "--format", "json", *extra)
    assert ok.returncode == 0, ok.stderr
    assert '"metric": "' + name + '"' in ok.stdout
    missing = _cli("score", "--metric", name, "-p", str(tmp_path / "nope.txt"), "-r", str(ref))
    assert missing.returncode == 2 and "no such file" in missing.stderr
    mismatch = _cli("score", "--metric", name, "-p", str(hyp), "-r", str(short))
    assert mismatch.returncode == 2 and "has 1 lines but" in mismatch.stderr
    undecodable = _cli("score", "--metric", name, "-p", str(binary), "-r", str(ref))
    assert undecodable.returncode == 2 and "line 2 is not valid UTF-8" in undecodable.stderr
