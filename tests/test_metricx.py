"""MetricX-24: parity with google-research/metricx's own predict.py, recorded in tests/data/metricx_oracle.json by
benchmarks/metricx_oracle.py on the checkpoint tests/learned_checkpoints.py builds (rebuilt here, checked by hash);
input formats, QE, truncation, multi-reference, bad input, the module."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

pytest.importorskip("sentencepiece")
torch = pytest.importorskip("torch")

from learned_checkpoints import DATA, build_metricx, folder_hash, wmt17_lines  # noqa: E402

from nlgmetrics.learned.metricx import MetricXScorer, compute_metricx, make_input  # noqa: E402

FIXTURE = json.loads((DATA / "metricx_oracle.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
    folder = build_metricx(tmp_path_factory.mktemp("metricx") / "ckpt", seed=0)
    assert folder_hash(folder) == FIXTURE["checkpoint_sha256"], (
        "the rebuilt checkpoint differs from the one metricx ran on (tokenizer training or seeded weights are not "
        "reproducible here); regenerate the fixture with python -m benchmarks.metricx_oracle")
    return str(folder)


@pytest.fixture(scope="module")
def scorer(checkpoint):
    return MetricXScorer(checkpoint, device="cpu")


def test_input_format():
    assert make_input("H", "R", "S", qe=False) == "source: S candidate: H reference: R"
    assert make_input("H", "R", "S", qe=True) == "source: S candidate: H"


@pytest.mark.parametrize("mode", ["ref", "qe"])
def test_parity_with_metricx_predict(mode, scorer):
    cases = [c for c in FIXTURE["cases"] if c["mode"] == mode]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ours = scorer.score([c["hypothesis"] for c in cases], [c["reference"] for c in cases],
                            [c["source"] for c in cases], qe=mode == "qe", batch_size=8)
    expected = np.array([c["prediction"] for c in cases])
    diff = np.abs(np.array(ours) - expected)
    assert diff.max() <= 1e-5, (diff.max(), int(diff.argmax()))
    assert np.std(ours) > 0.3 and 0 < min(ours) and max(ours) < 25  # varied, inside the clamp
    assert [str(w.message) for w in caught if "truncated" in str(w.message)] == [
        f"metricx: 1 of {len(cases)} input(s) exceed 1535 tokens (+ EOS) and were truncated at the end, as metricx's "
        "predict.py does."]


def test_padded_forward_gives_the_same_scores(scorer, monkeypatch):
    """The padding-free forward is on for mT5 (checked against the padded one at load); the model's own padded
    forward, which other T5 layouts keep, gives metricx's numbers too."""
    assert scorer.packed
    cases = [c for c in FIXTURE["cases"] if c["mode"] == "ref"]
    inputs = ([c["hypothesis"] for c in cases], [c["reference"] for c in cases], [c["source"] for c in cases])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        packed = np.array(scorer.score(*inputs, batch_size=8))
        monkeypatch.setattr(scorer, "packed", False)
        padded = np.array(scorer.score(*inputs, batch_size=8))
    assert np.abs(padded - np.array([c["prediction"] for c in cases])).max() <= 1e-5
    assert np.abs(packed - padded).max() <= 1e-5


def test_compute(checkpoint, scorer):
    refs, hyps = wmt17_lines()[:4], wmt17_lines("newstest2017.uedin-nmt.4722.en-de")[:4]
    srcs = ["a", "b", "c", "d"]
    single = scorer.score(hyps, refs, srcs)
    other = scorer.score(hyps, refs[1:] + refs[:1], srcs)
    result = compute_metricx(hyps, [[a, b] for a, b in zip(refs, refs[1:] + refs[:1])], checkpoint, sources=srcs,
                             device="cpu")
    assert result["scores"] == pytest.approx([min(a, b) for a, b in zip(single, other)], abs=1e-6)  # lower is better
    assert result["metricx"] == pytest.approx(np.mean(result["scores"]))
    assert result["signature"] == "ckpt:ckpt|mode:ref|src:yes|max_len:1536|multi_ref:min|version:nlgmetrics-0.1.0"
    no_source = compute_metricx(hyps, refs, checkpoint, device="cpu")["scores"]
    assert no_source == pytest.approx(scorer.score(hyps, refs, [""] * 4), abs=1e-6)  # metricx's README: '' source
    qe = compute_metricx(hyps, None, checkpoint, sources=srcs, qe=True, device="cpu", n_bootstrap=100)
    assert qe["scores"] == pytest.approx(scorer.score(hyps, None, srcs, qe=True), abs=1e-6)
    assert qe["metricx_low"] <= qe["metricx"] <= qe["metricx_high"]


def test_bad_input(checkpoint, tmp_path):
    with pytest.raises(ValueError, match="qe=True scores a translation from its source: pass sources"):
        compute_metricx(["a"], None, checkpoint, qe=True)
    with pytest.raises(ValueError, match="pass references"):
        compute_metricx(["a"], None, checkpoint)
    with pytest.raises(ValueError, match="got 1 predictions but 2 sources"):
        compute_metricx(["a"], ["b"], checkpoint, sources=["x", "y"])
    with pytest.raises(TypeError, match=r"sources\[0\] must be a string"):
        compute_metricx(["a"], ["b"], checkpoint, sources=[None])
    with pytest.raises(ValueError, match="multi_ref"):
        compute_metricx(["a"], ["b"], checkpoint, multi_ref="max")
    with pytest.raises(ValueError, match="no config.json"):
        MetricXScorer(str(tmp_path), device="cpu")
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "mt5", "vocab_size": 32128}))
    with pytest.raises(ValueError, match="not a MetricX"):
        MetricXScorer(str(tmp_path), device="cpu")
    with pytest.raises(ValueError, match=r"'metricx-24-hybrid-xl-v2p6' \(hub repository "
                                         r"'google/metricx-24-hybrid-xl-v2p6'\) is not a local folder, and .*offline"):
        MetricXScorer("metricx-24-hybrid-xl-v2p6", device="cpu")
    no_tokenizer = tmp_path / "no_tokenizer"
    no_tokenizer.mkdir()
    for name in ("config.json", "model.safetensors"):
        (no_tokenizer / name).symlink_to(f"{checkpoint}/{name}")
    with pytest.raises(ValueError, match=r"metricx: tokenizer 'google/mt5-xl' .*offline.* pass tokenizer=DIR"):
        MetricXScorer(str(no_tokenizer), device="cpu")  # the default tokenizer is a download


def test_evaluate_module(checkpoint):
    import evaluate

    refs, hyps = wmt17_lines()[:3], wmt17_lines("newstest2017.uedin-nmt.4722.en-de")[:3]
    expected = compute_metricx(hyps, refs, checkpoint, sources=["s"] * 3, device="cpu")
    module = evaluate.load("./metrics/metricx", checkpoint)
    result = module.compute(predictions=hyps, references=refs, sources=["s"] * 3)
    assert set(result) == set(expected) and result["scores"] == pytest.approx(expected["scores"], abs=1e-6)
    assert result["metricx"] == pytest.approx(expected["metricx"], abs=1e-6)
    qe = module.compute(predictions=hyps, references=refs, sources=["s"] * 3, qe=True)
    assert qe["scores"] == pytest.approx(compute_metricx(hyps, None, checkpoint, sources=["s"] * 3, qe=True)["scores"],
                                         abs=1e-6)


def test_through_the_spec(checkpoint, tmp_path, capsys):
    """CLI score with --sources (and QE without references), compare, the suite, lm-eval (lower is better), Ray."""
    from lm_eval.api import registry as lm_registry

    from nlgmetrics import compare
    from nlgmetrics.cli import main
    from nlgmetrics.integration import lm_eval as nlgm
    from nlgmetrics.integration.suite import compute_suite

    refs, hyps = wmt17_lines()[:3], wmt17_lines("newstest2017.uedin-nmt.4722.en-de")[:3]
    srcs = ["one source", "another source", "a third"]
    expected = compute_metricx(hyps, refs, checkpoint, sources=srcs, device="cpu")["scores"]
    expected_qe = compute_metricx(hyps, None, checkpoint, sources=srcs, qe=True, device="cpu")["scores"]
    for name, lines in (("hyp", hyps), ("ref", refs), ("src", srcs)):
        (tmp_path / f"{name}.txt").write_text("\n".join(lines) + "\n")
    assert main(["score", "-m", "metricx", "-p", str(tmp_path / "hyp.txt"), "-r", str(tmp_path / "ref.txt"),
                 "--sources", str(tmp_path / "src.txt"), "-o", f"checkpoint={checkpoint}", "-f", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["scores"] == pytest.approx(expected, abs=1e-6)
    assert main(["score", "-m", "metricx", "-p", str(tmp_path / "hyp.txt"), "--sources", str(tmp_path / "src.txt"),
                 "-o", f"checkpoint={checkpoint}", "-o", "qe=true", "-f", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["scores"] == pytest.approx(expected_qe, abs=1e-6)

    rows = compare({"a": hyps, "b": refs}, refs, metrics=["metricx"], baseline="a", n_resamples=50, sources=srcs,
                   metric_options={"metricx": {"checkpoint": checkpoint}})
    assert rows[0]["score"] == pytest.approx(np.mean(expected), abs=1e-6)
    suite = compute_suite(hyps, refs, ["metricx"], {"metricx": {"checkpoint": checkpoint}}, sources=srcs)
    assert suite["metricx"]["scores"] == pytest.approx(expected, abs=1e-6)

    assert nlgm.register(["metricx"]) == ["nlgm_metricx"]
    assert lm_registry.is_higher_better("nlgm_metricx") is False
    items = [nlgm.nlgm_metricx(references=[f"{s}\t{r}"], predictions=[h], checkpoint=checkpoint,
                               source_separator="\t") for s, r, h in zip(srcs, refs, hyps)]
    assert nlgm.score_corpus("metricx", items)["metricx"] == pytest.approx(np.mean(expected), abs=1e-6)

    from nlgmetrics.integration.ray_data import MetricScorer

    scorer = MetricScorer(["metricx"], source_column="source", metric_options={"metricx": {"checkpoint": checkpoint}})
    batch = scorer({"prediction": np.array(hyps, dtype=object), "reference": np.array(refs, dtype=object),
                    "source": np.array(srcs, dtype=object)})
    assert batch["metricx"].tolist() == pytest.approx(expected, abs=1e-6)


def test_trainer_compute_metrics(checkpoint):
    """Trainer's compute_metrics (opt-in: named): reference-based with and without sources (a list, or decoded from
    EvalPrediction.inputs), and QE; the numbers are compute_metricx's on the same texts."""
    from transformers import AutoTokenizer, EvalPrediction

    from nlgmetrics.integration.transformers import make_compute_metrics

    tokenizer = AutoTokenizer.from_pretrained(checkpoint)
    refs, hyps = wmt17_lines()[:3], wmt17_lines("newstest2017.uedin-nmt.4722.en-de")[:3]
    srcs = ["one source", "another source", "a third"]

    def ids(texts):
        return tokenizer(texts, padding=True, return_tensors="np")["input_ids"]  # with </s>, as generate() gives

    labels = np.where(ids(refs) == tokenizer.pad_token_id, -100, ids(refs))
    decoded = {name: [t.strip() for t in tokenizer.batch_decode(ids(texts), skip_special_tokens=True)]
               for name, texts in (("refs", refs), ("hyps", hyps), ("srcs", srcs))}
    options = {"metricx": {"checkpoint": checkpoint, "device": "cpu"}}

    def direct(references, sources=None, **extra):
        return compute_metricx(decoded["hyps"], references, checkpoint, sources=sources, device="cpu", **extra)

    got = make_compute_metrics(tokenizer, ["metricx"], options, sentence_split=None)(
        EvalPrediction(predictions=ids(hyps), label_ids=labels))
    expected = direct(decoded["refs"])
    assert set(got) == {"metricx", "gen_len"}
    assert got["metricx"] == pytest.approx(expected["metricx"], abs=1e-6)
    assert got["metricx"] == pytest.approx(np.mean(expected["scores"]), abs=1e-6) and 0 < got["metricx"] < 25
    # lower is better: what TrainingArguments(metric_for_best_model=..., greater_is_better=...) needs
    mixed = make_compute_metrics(tokenizer, ["bleu", "metricx"], options, warmup=False)
    assert [mixed.greater_is_better(key) for key in ("eval_metricx", "metricx_low", "bleu", "eval_bleu")] == [
        False, False, True, True]
    with pytest.raises(ValueError, match="'gen_len' is not a key of the metrics bleu, metricx"):
        mixed.greater_is_better("gen_len")

    with_sources = direct(decoded["refs"], decoded["srcs"])["metricx"]
    assert with_sources != pytest.approx(expected["metricx"], abs=1e-6)  # sources change the score
    listed = make_compute_metrics(tokenizer, ["metricx"], options, sentence_split=None, sources=decoded["srcs"])
    assert listed(EvalPrediction(predictions=ids(hyps), label_ids=labels))["metricx"] == pytest.approx(with_sources,
                                                                                                      abs=1e-6)
    from_inputs = make_compute_metrics(tokenizer, ["metricx"], options, sentence_split=None, sources="inputs")
    assert from_inputs(EvalPrediction(predictions=ids(hyps), label_ids=labels, inputs=ids(srcs)))["metricx"] == (
        pytest.approx(with_sources, abs=1e-6))

    qe = make_compute_metrics(tokenizer, ["metricx"], {"metricx": {**options["metricx"], "qe": True}},
                              sentence_split=None, sources=decoded["srcs"])
    assert qe(EvalPrediction(predictions=ids(hyps), label_ids=labels))["metricx"] == pytest.approx(
        direct(None, decoded["srcs"], qe=True)["metricx"], abs=1e-6)
