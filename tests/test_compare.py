"""nlgmetrics.compare (nlgmetrics.comparison): paired bootstrap and approximate randomization, sacrebleu-exact for BLEU, defined elsewhere."""

from __future__ import annotations

import math

import numpy as np
import pytest

from nlgmetrics import compare
from nlgmetrics.registry import get_metric

SEGMENTS = 300  # a slice keeps sacrebleu's own test (the oracle) quick; p-values there are not all minimal


@pytest.fixture(scope="module")
def wmt(wmt17_ende):
    refs = wmt17_ende["reference"][:SEGMENTS]
    systems = {name.split(".")[0]: lines[:SEGMENTS] for name, lines in wmt17_ende["systems"].items()}
    # a system close to uedin-nmt (every 20th line from C-3MA), so that not every p-value is the minimum
    systems["uedin-mix"] = [c if i % 20 == 0 else u for i, (u, c) in enumerate(zip(systems["uedin-nmt"],
                                                                                   systems["C-3MA"]))]
    return systems, refs


def _sacrebleu_paired(systems, refs, baseline, test_type, n_samples, n_ar_confidence=-1, metric="bleu", **options):
    from sacrebleu.metrics import BLEU, CHRF, TER
    from sacrebleu.significance import PairedTest

    named = [(baseline, systems[baseline])] + [(n, s) for n, s in systems.items() if n != baseline]
    oracle = {"bleu": BLEU, "chrf": CHRF, "ter": TER}[metric](**options)
    _, scores = PairedTest(named, {"m": oracle}, references=[refs], test_type=test_type, n_samples=n_samples,
                           n_ar_confidence=n_ar_confidence)()
    (results,) = [value for key, value in scores.items() if key != "System"]
    return dict(zip(scores["System"], results))


@pytest.mark.parametrize("baseline", ["online-F", "uedin-nmt"])
def test_paired_bootstrap_equals_sacrebleu(wmt, baseline):
    systems, refs = wmt
    expected = _sacrebleu_paired(systems, refs, baseline, "bs", 1000)
    rows = compare(systems, refs, ["sacrebleu"], baseline=baseline, paired="bs", n_resamples=1000)
    assert [r["system"] for r in rows][0] == baseline and len(rows) == len(systems)
    for row in rows:
        oracle = expected[row["system"]]
        assert row["score"] == oracle.score and row["mean"] == oracle.mean and row["ci"] == oracle.ci
        assert row["p_value"] == oracle.p_value
        assert row["ci_low"] <= row["mean"] <= row["ci_high"]
        assert row["signature"].startswith("nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp")
    assert any(r["p_value"] > 0.05 for r in rows if not r["baseline"]) or baseline == "online-F"


def test_approximate_randomization_equals_sacrebleu(wmt):
    systems, refs = wmt
    expected = _sacrebleu_paired(systems, refs, "C-3MA", "ar", 2000, n_ar_confidence=200)
    rows = compare(systems, refs, ["sacrebleu"], baseline="C-3MA", paired="ar", n_trials=2000, n_resamples=200)
    for row in rows:
        oracle = expected[row["system"]]
        assert (row["score"], row["p_value"], row["mean"], row["ci"]) == (
            oracle.score, oracle.p_value, oracle.mean, oracle.ci)


@pytest.mark.parametrize("paired", ["bs", "ar"])
@pytest.mark.parametrize("word_order", [0, 2])
def test_chrf_paired_tests_equal_sacrebleu(wmt, paired, word_order):
    systems, refs = wmt
    expected = _sacrebleu_paired(systems, refs, "uedin-nmt", paired, 1000 if paired == "bs" else 1000,
                                 n_ar_confidence=-1 if paired == "bs" else 200, metric="chrf", word_order=word_order)
    rows = compare(systems, refs, ["chrf"], baseline="uedin-nmt", paired=paired, n_trials=1000,
                   n_resamples=1000 if paired == "bs" else 200, metric_options={"chrf": {"word_order": word_order}})
    assert any(r["p_value"] and r["p_value"] > 0.05 for r in rows)
    for row in rows:
        oracle = expected[row["system"]]
        assert (row["score"], row["p_value"], row["mean"], row["ci"]) == (
            oracle.score, oracle.p_value, oracle.mean, oracle.ci)


@pytest.mark.parametrize("paired", ["bs", "ar"])
def test_ter_paired_tests_equal_sacrebleu(wmt, paired):
    systems, refs = wmt
    systems = {name: lines[:150] for name, lines in systems.items()}
    expected = _sacrebleu_paired(systems, refs[:150], "uedin-nmt", paired, 500,
                                 n_ar_confidence=-1 if paired == "bs" else 100, metric="ter")
    rows = compare(systems, refs[:150], ["ter"], baseline="uedin-nmt", paired=paired, n_trials=500,
                   n_resamples=500 if paired == "bs" else 100)
    for row in rows:
        oracle = expected[row["system"]]
        assert (row["score"], row["p_value"], row["mean"], row["ci"]) == (
            oracle.score, oracle.p_value, oracle.mean, oracle.ci)


def test_same_seed_same_numbers_in_any_system_order(wmt):
    systems, refs = wmt
    forward = compare(systems, refs, ["bleu", "rouge"], baseline="uedin-nmt", n_resamples=200)
    backward = compare(dict(reversed(list(systems.items()))), refs, ["bleu", "rouge"], baseline="uedin-nmt",
                               n_resamples=200)
    key = lambda r: (r["metric"], r["system"])  # noqa: E731
    assert sorted(forward, key=key) == sorted(backward, key=key)
    other_seed = compare(systems, refs, ["bleu"], baseline="uedin-nmt", n_resamples=200, seed=7)
    assert [r["mean"] for r in other_seed] != [r["mean"] for r in forward if r["metric"] == "bleu"]


def test_per_example_metrics_resample_example_scores(wmt):
    systems, refs = wmt
    systems = {name: lines[:80] for name, lines in systems.items()}
    refs = refs[:80]
    rows = compare(systems, refs, ["rouge", "meteor"], baseline="online-F", n_resamples=300, seed=3)
    assert {r["metric"] for r in rows} == {"rouge1", "rouge2", "rougeL", "rougeLsum", "meteor"}
    # the same test, written out from the per-example scores
    per_example = {name: get_metric("rouge")(preds, refs, rouge_types=["rouge2"], use_aggregator=False)["rouge2"]
                   for name, preds in systems.items()}
    indices = np.random.default_rng(3).choice(80, size=(300, 80), replace=True)
    base = np.asarray(per_example["online-F"])[indices].mean(1)
    for name, scores in per_example.items():
        samples = np.asarray(scores)[indices].mean(1)
        row = next(r for r in rows if r["metric"] == "rouge2" and r["system"] == name)
        assert row["score"] == pytest.approx(np.mean(scores), abs=1e-12)
        assert row["mean"] == pytest.approx(samples.mean(), abs=1e-12)
        ordered = np.sort(samples)
        assert (row["ci_low"], row["ci_high"]) == pytest.approx((ordered[300 // 40], ordered[300 - 300 // 40 - 1]))
        if name != "online-F":
            deltas = np.abs(samples - base)
            exceed = np.sum(deltas - deltas.mean() > abs(np.mean(scores) - np.mean(per_example["online-F"])) )
            assert row["p_value"] == pytest.approx((exceed + 1) / 301)
            assert row["significant"] == (row["p_value"] < 0.05)


def test_identical_system_has_p_one(wmt):
    systems, refs = wmt
    same = {"base": systems["C-3MA"], "copy": list(systems["C-3MA"])}
    for paired in ("bs", "ar"):
        rows = compare(same, refs, ["bleu", "meteor"], paired=paired, n_resamples=50, n_trials=50)
        for row in rows[1::2]:
            assert row["p_value"] == 1.0 and row["significant"] is False


def test_embedding_metric_embeds_references_once(wmt):
    from nlgmetrics.embed import Encoder

    systems, refs = wmt
    systems = {name: lines[:12] for name, lines in systems.items()}
    calls = []
    original = Encoder.compute

    def counting(self, texts, *args, **kwargs):
        calls.extend(texts)
        return original(self, texts, *args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Encoder, "compute", counting)
        rows = compare(systems, refs[:12], ["bertscore"], n_resamples=50,
                               metric_options={"bertscore": {"model_type": "minilm", "batch_size": 8}})
    assert len(calls) == len(set(calls))  # each text embedded at most once across the three systems
    assert {r["metric"] for r in rows} == {"bertscore_precision", "bertscore_recall", "bertscore_f1"}
    assert all(math.isfinite(r["score"]) and 0 < r["score"] <= 1 for r in rows)


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"systems": {"a": ["x"]}}, ValueError, "at least two systems"),
        ({"systems": {"a": ["x"], "b": ["x", "y"]}}, ValueError, "'b' has 2 segments but there are 1 references"),
        ({"baseline": "c"}, ValueError, "baseline 'c' is not one of the systems"),
        ({"paired": "perm"}, ValueError, "paired must be 'bs'"),
        ({"n_resamples": 1}, ValueError, r"n_resamples must be an integer in \[2, 100000\]"),
        ({"metrics": ["nist_mt"]}, ValueError, "cannot be resampled"),
        ({"metrics": ["bleu"], "metric_options": {"bleu": {"sentence_scores": True}}}, ValueError,
         "do not change bleu's corpus score"),
        ({"metrics": ["bleu"], "metric_options": {"bleu": {"smooth_method": "floor"}}}, ValueError,
         r"smooth_method do not change bleu's corpus score \(they change sacrebleu's: -m sacrebleu\)"),
        ({"metric_options": {"rouge": {}}}, ValueError, "names metrics that are not computed: rouge"),
        ({"systems": ["x", "y"]}, TypeError, "systems must be a dict"),
    ],
)
def test_bad_input_is_named(kwargs, error, match):
    call = {"systems": {"a": ["the cat"], "b": ["a cat"]}, "references": ["the cat"], "metrics": ["bleu"], **kwargs}
    with pytest.raises(error, match=match):
        compare(**call)


def test_reports_and_plot(wmt, tmp_path):
    import json

    from nlgmetrics.comparison import plot, report

    systems, refs = wmt
    rows = compare({k: v[:40] for k, v in systems.items()}, refs[:40], ["bleu", "meteor"], baseline="uedin-nmt",
                   n_resamples=100)
    assert json.loads(report(rows, "json")) == rows
    table = report(rows, "table").splitlines()
    assert table[0].split()[:2] == ["System", "bleu"] and table[2].startswith("Baseline: uedin-nmt")
    markdown = report(rows, "markdown").splitlines()
    assert markdown[1] == "|---|---|---|" and markdown[2].startswith("| Baseline: uedin-nmt |")
    mix = next(r for r in rows if r["system"] == "uedin-mix" and r["metric"] == "bleu")
    assert f"(p = {mix['p_value']:.4f})" in report(rows, "markdown")
    csv_lines = report(rows, "csv").splitlines()
    assert csv_lines[0].startswith("system,metric,score") and len(csv_lines) == len(rows) + 1
    with pytest.raises(ValueError, match="format must be one of"):
        report(rows, "html")
    pytest.importorskip("matplotlib")
    target = plot(rows, tmp_path / "compare.png")
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_compare(wmt, tmp_path, capsys):
    import json

    from nlgmetrics.cli import main

    systems, refs = wmt
    ref = tmp_path / "ref.txt"
    ref.write_text("\n".join(refs[:60]) + "\n", encoding="utf-8")
    files = []
    for name in ("uedin-nmt", "C-3MA", "uedin-mix"):
        files.append(tmp_path / f"{name}.txt")
        files[-1].write_text("\n".join(systems[name][:60]) + "\n", encoding="utf-8")
    argv = ["compare", "-r", str(ref), "--baseline", str(files[0]), str(files[1]), str(files[2]), "-m", "bleu",
            "--n-resamples", "200", "--format", "json"]
    assert main(argv) == 0
    rows = json.loads(capsys.readouterr().out)
    expected = compare({f.name: systems[f.stem][:60] for f in files}, refs[:60], ["bleu"], n_resamples=200)
    assert rows == expected
    assert main(argv[:-2] + ["--paired-ar", "--n-trials", "100", "-o", "bleu.tokenizer=intl"]) == 0
    assert "Baseline: uedin-nmt.txt" in capsys.readouterr().out
    short = tmp_path / "short.txt"
    short.write_text("one line\n", encoding="utf-8")
    assert main(["compare", "-r", str(ref), "--baseline", str(files[0]), str(short)]) == 2
    assert "short.txt has 1 lines but" in capsys.readouterr().err
    assert main(["compare", "-r", str(ref), "--baseline", str(files[0]), str(files[1]), "-o", "bleu.lowercse=1"]) == 2
    assert "Did you mean 'lowercase'" in capsys.readouterr().err


@pytest.mark.parametrize("paired", ["bs", "ar"])
def test_zero_differences_are_not_significant(paired):
    """Issue 29.3: BLEU 0.0 against 0.0 on every resample gave p = 0.001 (bs) / 1e-4 (ar), significant."""
    systems = {"a": ["x y z", "p q r", "k l m"], "b": ["u v w", "d e f", "g h i"]}  # different, both BLEU 0
    rows = compare(systems, ["a b c", "s t u", "n o p"], ["bleu"], paired=paired, n_resamples=100, n_trials=100)
    assert [r["score"] for r in rows] == [0.0, 0.0]
    assert rows[1]["p_value"] == 1.0 and rows[1]["significant"] is False


def test_one_segment_warns_and_is_not_significant():
    with pytest.warns(UserWarning, match="one segment"):
        rows = compare({"a": ["the cat sat on the mat"], "b": ["a dog ran off"]}, ["the cat sat on the mat"], ["bleu"],
                       n_resamples=50)
    assert rows[0]["score"] != rows[1]["score"]
    assert rows[1]["p_value"] == 1.0 and rows[1]["significant"] is False and rows[1]["ci"] == 0.0


def test_memory_is_bounded_by_the_chunk_not_resamples_times_segments():
    """Issue 29.8: compare() on 10**5 segments peaked at 4.0 GB: the (resamples x segments) indices, counts and
    randomization flags were held whole. Now they are drawn chunk by chunk (same numbers: the sacrebleu tests above)."""
    import tracemalloc

    n = 20_000
    refs = [f"w{i % 7} w{i % 11} w{i % 13}" for i in range(n)]
    systems = {"a": [f"w{i % 7} w{i % 11}" for i in range(n)], "b": [f"w{i % 7} x w{i % 13}" for i in range(n)]}
    for paired in ("bs", "ar"):
        tracemalloc.start()
        compare(systems, refs, ["bleu"], paired=paired, n_resamples=1000, n_trials=1000)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert peak < 120 * 2**20, f"{paired}: peak {peak / 2**20:.0f} MiB"  # 1000 x 20,000 int64 alone is 153 MiB


def test_numpy_and_pandas_systems_and_numpy_integers():
    """Issue 29.11: compare refused numpy/pandas systems and numpy integers that the rest of the library accepts."""
    pd = pytest.importorskip("pandas")
    systems = {"a": ["the cat sat on the mat", "a dog barks"], "b": ["a cat sat on a mat", "the dog barks"]}
    refs = ["the cat sat on the mat", "the dog barks"]
    expected = compare(systems, refs, ["bleu"], n_resamples=50, seed=3)
    as_arrays = {"a": np.array(systems["a"]), "b": pd.Series(systems["b"])}
    assert compare(as_arrays, np.array(refs), ["bleu"], n_resamples=np.int64(50), seed=np.int32(3)) == expected


def test_ter_takes_hf_evaluates_option_names_in_compare_and_the_cli(tmp_path, capsys):
    """Issue 29.11: TER's evaluate names (ignore_punct, support_zh_ja_chars) were refused by the CLI and compare."""
    from nlgmetrics.cli import main

    systems = {"a": ["the cat , sat .", "a dog"], "b": ["the cat sat", "a dog !"]}
    refs = ["the cat sat", "a dog"]
    ours = compare(systems, refs, ["ter"], n_resamples=20, metric_options={"ter": {"no_punct": True}})
    hf = compare(systems, refs, ["ter"], n_resamples=20, metric_options={"ter": {"ignore_punct": True}})
    assert hf == ours and ours[0]["score"] == 0.0
    for name, lines in (("a", systems["a"]), ("r", refs)):
        (tmp_path / name).write_text("\n".join(lines) + "\n")
    argv = ["score", "-m", "ter", "-p", str(tmp_path / "a"), "-r", str(tmp_path / "r"), "-f", "json"]
    assert main([*argv, "-o", "ignore_punct=true", "-o", "support_zh_ja_chars=false"]) == 0
    assert '"score": 0.0' in capsys.readouterr().out
