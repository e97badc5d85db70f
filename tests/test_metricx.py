"""MetricX-24: parity with google-research/metricx's own predict.py, recorded in tests/data/metricx_oracle.json by
benchmarks/metricx_oracle.py on the checkpoint tests/learned_checkpoints.py builds (rebuilt here, checked by hash);
tokenization as in metricx's pinned environment (transformers 4.30.2, run in an oracle venv: one job for the module);
the published MetricX-24 large/xl shapes; strict, checked loading; input formats, QE, truncation, multi-reference,
bad input, the module."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sentencepiece")
torch = pytest.importorskip("torch")

from learned_checkpoints import DATA, build_metricx, documented_weights_digest, folder_hash, wmt17_lines  # noqa: E402
from oracle_venv import run_oracle  # noqa: E402

from nlgmetrics.learned.metricx import MetricXScorer, compute_metricx, make_input  # noqa: E402

FIXTURE = json.loads((DATA / "metricx_oracle.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
    folder = build_metricx(tmp_path_factory.mktemp("metricx") / "ckpt", seed=0)
    assert folder_hash(folder) == FIXTURE["checkpoint_sha256"], (
        "the rebuilt checkpoint differs from the one metricx ran on (tokenizer training or seeded weights are not "
        "reproducible here); regenerate the fixture with python -m benchmarks.metricx_oracle")
    return str(folder)


#: metricx's pinned environment (its requirements.txt: transformers 4.30.2), for its tokenizer and model classes;
#: transformers 4.30's bundled sentencepiece protobuf needs the pure-Python protobuf parser (env below)
PINNED = ("torch==2.13.0", "transformers==4.30.2", "sentencepiece==0.2.3", "protobuf<5", "numpy<2")

PINNED_SCRIPT = r"""
import json, sys
import torch
import transformers
from transformers import AutoTokenizer, MT5Config, MT5ForConditionalGeneration
tokenizer_folder, texts, configs = sys.argv[1], json.load(open(sys.argv[2])), json.loads(sys.argv[3])
tokenizer = AutoTokenizer.from_pretrained(tokenizer_folder)  # as metricx24/predict.py, then its EOS removal
ids = [tokenizer(t, max_length=1536, truncation=True, padding=False)["input_ids"][:-1] for t in texts]
shapes = {}
for name, values in configs.items():
    with torch.device("meta"):
        model = MT5ForConditionalGeneration(MT5Config(**values))
    shapes[name] = {k: list(v.shape) for k, v in model.state_dict().items()}
# the test checkpoint saved sharded by the pinned transformers' save_pretrained (metricx's MT5ForRegression is an
# MT5PreTrainedModel with these weights' names), in both formats, with a small max_shard_size
shard = json.loads(sys.argv[4])
model = MT5ForConditionalGeneration.from_pretrained(shard["source"])
saved = {}
for form, safe in (("sharded-bin", False), ("sharded-safetensors", True)):
    model.save_pretrained(shard["out"] + "-" + form, safe_serialization=safe, max_shard_size="2MB")
    saved[form] = sorted(__import__("os").listdir(shard["out"] + "-" + form))
print(json.dumps({"version": transformers.__version__, "tokenizer": type(tokenizer).__name__, "ids": ids,
                  "shapes": shapes, "saved": saved}))
"""

#: inputs whose last field is empty or ends in whitespace, or that hold </s>, <pad>, <unk> as text, where
#: transformers 4.30.2's tokenizer puts a "▁" token that later versions drop; and neighbours that must not change
EDGE = [("Hallo", "", "Hi", False), ("Hallo ", "Welt", "Hi", False), ("Hallo", "Welt ", "Hi", False),
        ("Hallo", "Welt  ", "Hi", False), ("Ha</s>llo", "Welt", "Hi", False), ("Hallo", "W<pad>elt", "Hi", False),
        ("Hallo <unk> x", "Welt", "Hi", False), ("", "", "", False), ("", "", "", True), ("a", "b", "", True),
        (" Hallo", "  Welt", " Hi ", False), ("Hallo\n", "Welt\t", "Hi", False), ("Hallo", "Welt</s>", "Hi", False),
        ("Hallo", "Welt </s>", "Hi", False), ("</s>", "<pad>", "<unk>", False), ("x", "y\u3000", "z", False),
        ("Hallo", "Welt\u00a0", "Hi", False), ("Hallo", "Welt.", "Hi ", True), ("Hallo  ", "Welt", "Hi", True),
        ("a<pad>", "b", "c", False), ("a </s> b", "c", "d", False), ("a</s> b", "c", "d", False)]

#: MetricX-24 hybrid large / xl (v2p6): mT5-large / mT5-xl shapes, as their config.json give them
_MT5 = {"vocab_size": 250112, "d_kv": 64, "num_layers": 24, "num_decoder_layers": 24,
        "relative_attention_num_buckets": 32, "relative_attention_max_distance": 128,
        "feed_forward_proj": "gated-gelu", "tie_word_embeddings": False, "layer_norm_epsilon": 1e-6,
        "dropout_rate": 0.1, "decoder_start_token_id": 0, "pad_token_id": 0, "eos_token_id": 1, "model_type": "mt5",
        "architectures": ["MT5ForRegression"], "tokenizer_class": "T5Tokenizer", "is_encoder_decoder": True}
PUBLISHED = {"metricx-24-hybrid-large-v2p6": {**_MT5, "d_model": 1024, "d_ff": 2816, "num_heads": 16},
             "metricx-24-hybrid-xl-v2p6": {**_MT5, "d_model": 2048, "d_ff": 5120, "num_heads": 32}}


SHARDED = {"sharded-bin": "pytorch_model.bin.index.json", "sharded-safetensors": "model.safetensors.index.json"}


def _texts() -> list[str]:
    return [make_input(c["hypothesis"], c["reference"], c["source"], c["mode"] == "qe") for c in FIXTURE["cases"]] + [
        make_input(h, r, s, qe) for h, r, s, qe in EDGE]


@pytest.fixture(scope="module")
def pinned(checkpoint, tmp_path_factory):
    """metricx's pinned transformers on the test tokenizer as google/mt5-xl ships it (spiece.model and
    tokenizer_config.json, no tokenizer.json: 4.30.2 converts it), and on the published configurations."""
    folder = tmp_path_factory.mktemp("mt5_tokenizer")
    for name in ("spiece.model", "tokenizer_config.json"):
        (folder / name).write_bytes((Path(checkpoint) / name).read_bytes())
    texts = folder / "texts.json"
    texts.write_text(json.dumps(_texts()))
    shards = {"source": checkpoint, "out": str(folder / "ckpt")}
    result = run_oracle(PINNED_SCRIPT, str(folder), str(texts), json.dumps(PUBLISHED), json.dumps(shards),
                        requirements=PINNED, env={"PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION": "python"})
    result["sharded"] = {}
    for form in SHARDED:
        result["sharded"][form] = sharded = folder / f"ckpt-{form}"
        for name in ("spiece.model", "tokenizer.json", "tokenizer_config.json"):  # save_pretrained saved the model
            (sharded / name).write_bytes((Path(checkpoint) / name).read_bytes())
    return result


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


def test_tokenization_as_metricx_pinned_transformers(pinned, scorer):
    """Every input's ids equal those of metricx's pinned tokenizer (transformers 4.30.2 converting spiece.model),
    the edge cases included (a trailing "▁" after an empty or whitespace-final last field, and before </s>, <pad>,
    <unk> written in the text), though the checkpoint folder's tokenizer.json was saved by transformers 5."""
    assert (pinned["version"], pinned["tokenizer"]) == ("4.30.2", "T5TokenizerFast")
    texts = _texts()
    ours, _ = scorer.token_ids(texts)
    assert ours == pinned["ids"]
    underscore = scorer.tokenizer.convert_tokens_to_ids("\u2581")
    empty_last = texts.index(make_input("Hallo", "", "Hi", False))
    assert ours[empty_last][-1] == underscore  # "... reference: " ends in the "▁" token
    from transformers import AutoTokenizer

    current = AutoTokenizer.from_pretrained(str(scorer.folder))(texts, add_special_tokens=False)["input_ids"]
    differ = [i for i, (a, b) in enumerate(zip(current, ours)) if a[:1535] != b]
    assert differ and all(i >= len(FIXTURE["cases"]) for i in differ)  # only edge cases, which transformers 5 drops


@pytest.mark.parametrize("name", list(PUBLISHED))
def test_published_configuration_loads(name, pinned, tmp_path):
    """MetricX-24 hybrid large/xl configs build (on the meta device: nothing allocated) into exactly the weights
    metricx's pinned transformers builds for them, names and shapes, so their checkpoints pass strict loading."""
    from nlgmetrics.learned.metricx import build_on_meta, expected_weights

    model, tied = build_on_meta(PUBLISHED[name], tmp_path / "config.json")
    expected, aliases = expected_weights(model, tied)
    theirs = {k: tuple(v) for k, v in pinned["shapes"][name].items()}
    assert set(theirs) - set(expected) == aliases - {"decoder.block.0.layer.1.EncDecAttention.relative_attention_bias"
                                                     ".weight"}  # tied copies of shared.weight
    assert all(theirs[k] == shape for k, shape in expected.items())
    assert model.config._attn_implementation == "eager" and model.lm_head.weight.is_meta
    params = sum(int(np.prod(shape)) for shape in expected.values())
    assert round(params / 1e9, 2) == {"metricx-24-hybrid-large-v2p6": 1.23, "metricx-24-hybrid-xl-v2p6": 3.74}[name]


@pytest.mark.parametrize("form", list(SHARDED))
def test_sharded_checkpoint_from_metricx_transformers(form, pinned, scorer):
    """The checkpoint as metricx's pinned transformers (4.30.2) saves it with a small max_shard_size: an index and
    shards (.bin: the embedding's tied copies saved too; safetensors: aliases removed), the form of the published
    MetricX-24 XL/XXL. Strict loading reads it and every score is the single-file checkpoint's, metricx's own."""
    from nlgmetrics.learned.locate import find_weights

    folder = pinned["sharded"][form]
    assert SHARDED[form] in pinned["saved"][form] and sum(
        name.endswith((".bin", ".safetensors")) for name in pinned["saved"][form]) >= 3
    weights = find_weights(folder, "metricx")
    assert weights.path.name == SHARDED[form] and len(weights.files) >= 3
    cases = [c for c in FIXTURE["cases"] if c["mode"] == "ref"][:12]
    inputs = ([c["hypothesis"] for c in cases], [c["reference"] for c in cases], [c["source"] for c in cases])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sharded = MetricXScorer(str(folder), device="cpu")
        ours = np.array(sharded.score(*inputs, batch_size=8))
        single = np.array(scorer.score(*inputs, batch_size=8))
    assert np.array_equal(ours, single)
    assert np.abs(ours - np.array([c["prediction"] for c in cases])).max() <= 1e-5
    assert sharded.weights.files == weights.files


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


def batch_tolerance(checkpoint) -> float:
    """How far one pair's float32 score may move when it is scored in another batch. The calls compared below pack
    the pairs into other batches (padding-free: other row counts), so BLAS sums each float32 reduction in another
    order. A float32 sum of n terms is exact to n*u relative (u = 2**-24, the unit roundoff); the longest reduction
    has d_ff terms and a score is at most 25 (MetricX's range), so two orders of the last sum differ by at most
    2 * d_ff * u * 25 (9.5e-5 for this checkpoint's d_ff = 32; measured differences are about 1.2e-6)."""
    d_ff = json.loads((Path(checkpoint) / "config.json").read_text())["d_ff"]
    return 2 * d_ff * 2.0**-24 * 25


def test_compute(checkpoint, scorer):
    refs, hyps = wmt17_lines()[:4], wmt17_lines("newstest2017.uedin-nmt.4722.en-de")[:4]
    srcs = ["a", "b", "c", "d"]
    tolerance = batch_tolerance(checkpoint)
    single = scorer.score(hyps, refs, srcs)
    other = scorer.score(hyps, refs[1:] + refs[:1], srcs)
    result = compute_metricx(hyps, [[a, b] for a, b in zip(refs, refs[1:] + refs[:1])], checkpoint, sources=srcs,
                             device="cpu")
    assert result["scores"] == pytest.approx([min(a, b) for a, b in zip(single, other)], abs=tolerance)  # lower: better
    assert result["metricx"] == pytest.approx(np.mean(result["scores"]))
    digest = documented_weights_digest(Path(checkpoint) / "model.safetensors")
    parts = dict(part.split(":", 1) for part in result["signature"].split("|"))
    assert parts["model"] == "ckpt" and parts["weights"] == digest and parts["dtype"] == "float32"
    assert result["signature"].endswith("|mode:ref|src:yes|max_len:1536|multi_ref:min|version:nlgmetrics-0.1.0")
    no_source = compute_metricx(hyps, refs, checkpoint, device="cpu")["scores"]
    assert no_source == pytest.approx(scorer.score(hyps, refs, [""] * 4), abs=tolerance)  # metricx's README: '' source
    qe = compute_metricx(hyps, None, checkpoint, sources=srcs, qe=True, device="cpu", n_bootstrap=100)
    assert qe["scores"] == pytest.approx(scorer.score(hyps, None, srcs, qe=True), abs=tolerance)
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


def _edit_config(folder, **changes):
    config = json.loads((folder / "config.json").read_text())
    config.update(changes)
    (folder / "config.json").write_text(json.dumps(config))


def _edit_weights(folder, edit):
    from safetensors.torch import load_file, save_file

    state = load_file(folder / "model.safetensors")
    edit(state)
    save_file(state, folder / "model.safetensors")


def _pickled(folder):
    from safetensors.torch import load_file

    state = load_file(folder / "model.safetensors")
    state["extra"] = _NotATensor()
    torch.save(state, folder / "pytorch_model.bin")
    (folder / "model.safetensors").unlink()


def _truncated_bin(folder):
    from safetensors.torch import load_file

    torch.save(load_file(folder / "model.safetensors"), folder / "pytorch_model.bin")
    (folder / "model.safetensors").unlink()
    (folder / "pytorch_model.bin").write_bytes((folder / "pytorch_model.bin").read_bytes()[:4000])


class _NotATensor:
    pass


BROKEN = {
    "unused weight": (lambda f: _edit_weights(f, lambda s: s.update({"encoder.extra.weight": torch.zeros(2)})),
                      r"\(not used by the model: encoder.extra.weight\)"),
    "missing weight": (lambda f: _edit_weights(f, lambda s: s.pop("decoder.final_layer_norm.weight")),
                       r"\(missing decoder.final_layer_norm.weight\)"),
    "config disagrees": (lambda f: _edit_config(f, d_ff=40),
                         r"shapes differ: decoder.block.0.layer.2.DenseReluDense.wi_0.weight \(32, 16\) "
                         r"\(config says \(40, 16\)\)"),
    "hparams huge": (lambda f: _edit_config(f, d_model=4_000_000, d_ff=4_000_000), r"shapes differ: "),
    "wrong-typed config": (lambda f: _edit_config(f, num_layers="2"),
                           r"num_layers in .*config.json is '2'; it must be a positive integer"),
    "bad feed-forward": (lambda f: _edit_config(f, feed_forward_proj="gated-nothing"),
                         r"feed_forward_proj in .*config.json is 'gated-nothing', not an mT5 feed-forward"),
    "tie flag not a bool": (lambda f: _edit_config(f, tie_word_embeddings="no"),
                            r"tie_word_embeddings in .*config.json is 'no', not true or false"),
    "truncated safetensors": (lambda f: (f / "model.safetensors").write_bytes(
                                  (f / "model.safetensors").read_bytes()[:-100]),
                              r"model.safetensors cannot be read \(SafetensorError: .*\); it is truncated or "
                              r"corrupted"),
    "truncated bin": (_truncated_bin,
                      r"pytorch_model.bin cannot be read \(\w+Error: .*\); it is truncated or corrupted"),
    "pickle": (_pickled, r"pytorch_model.bin holds pickled Python objects besides tensors; nlgmetrics refuses"),
}


@pytest.mark.parametrize("case", list(BROKEN))
def test_broken_checkpoints(case, checkpoint, tmp_path):
    """Strict, checked loading: each broken folder is one CheckpointError (a ValueError) naming the file and the
    difference, raised before anything the config sizes is allocated; never a raw RuntimeError, SafetensorError,
    UnpicklingError or TypeError, and never torch's advice to pass weights_only=False."""
    from nlgmetrics.learned.locate import CheckpointError

    folder = tmp_path / "ckpt"
    folder.mkdir()
    for path in Path(checkpoint).iterdir():
        (folder / path.name).write_bytes(path.read_bytes())
    damage, message = BROKEN[case]
    damage(folder)
    with pytest.raises(CheckpointError, match=message) as raised:
        MetricXScorer(str(folder), device="cpu")
    assert str(folder) in str(raised.value) and "weights_only" not in str(raised.value)


def test_tied_copies_and_ignored_key_load(checkpoint, tmp_path, scorer):
    """What transformers accepts besides the model's own weights loads to the same scores: copies of shared.weight
    saved as encoder/decoder.embed_tokens.weight, and the cross-attention position bias key T5 ignores."""
    folder = tmp_path / "ckpt"
    folder.mkdir()
    for path in Path(checkpoint).iterdir():
        (folder / path.name).write_bytes(path.read_bytes())
    _edit_weights(folder, lambda s: s.update({
        "encoder.embed_tokens.weight": s["shared.weight"].clone(),
        "decoder.embed_tokens.weight": s["shared.weight"].clone(),
        "decoder.block.0.layer.1.EncDecAttention.relative_attention_bias.weight": torch.zeros(32, 4)}))
    hyps, refs = wmt17_lines("newstest2017.uedin-nmt.4722.en-de")[:3], wmt17_lines()[:3]
    assert MetricXScorer(str(folder), device="cpu").score(hyps, refs, ["s"] * 3) == pytest.approx(
        scorer.score(hyps, refs, ["s"] * 3), abs=1e-6)
