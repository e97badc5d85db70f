"""BLEURT: parity with bleurt-pytorch 0.0.1 (run in the oracle venv) on checkpoints of both published architectures
built here (tests/learned_checkpoints.py), and on one built by bleurt-pytorch's own classes the way its converter
writes it (a tokenizer.json that keeps the check call's padding state, an embedding projection with
embedding_size == hidden_size), on WMT17 en-de text and over-length pairs; truncation, multi-reference, strict loading,
broken files, the published configurations, the module."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

pytest.importorskip("sentencepiece")
torch = pytest.importorskip("torch")

from learned_checkpoints import build_bleurt, documented_weights_digest, wmt17_lines  # noqa: E402
from oracle_venv import run_oracle  # noqa: E402

from nlgmetrics.learned.bleurt import BleurtScorer, compute_bleurt, truncate_pair  # noqa: E402

ORACLE = r"""
import json, sys
import torch
torch.set_num_threads(1)
from bleurt_pytorch import BleurtConfig, BleurtForSequenceClassification, BleurtTokenizer
from bleurt_pytorch.bleurt.tokenization_bleurt_fast import BleurtTokenizerFast
out = {}
jobs, convert = json.loads(sys.argv[1]), json.loads(sys.argv[2])

# the weights (names, shapes) bleurt-pytorch's model has for each published configuration, built on the meta device
out["published"] = {}
for name, values in json.loads(sys.argv[3]).items():
    with torch.device("meta"):
        built = BleurtForSequenceClassification(BleurtConfig(**values))
    out["published"][name] = {k: list(v.shape) for k, v in built.state_dict().items()}

# a checkpoint written as bleurt_pytorch/utils/convert_tf_to_pytorch_bleurt.py writes one: config + model + tokenizer
# saved after the converter's check call (padding="longest"); embedding_size == hidden_size, so a square projection
tok = BleurtTokenizerFast(vocab_file=convert["vocab"])
config = BleurtConfig(vocab_size=len(tok), embedding_size=32, hidden_size=32, num_hidden_layers=2,
                      num_attention_heads=2, intermediate_size=64, num_labels=1,
                      architectures=["BleurtForSequenceClassification"])
model = BleurtForSequenceClassification(config)
g = torch.Generator().manual_seed(7)
with torch.no_grad():
    for name, p in model.named_parameters():
        p.copy_(torch.randn(p.shape, generator=g) * (p.shape[-1] ** -0.5 if p.dim() == 2 else 0.1)
                + (1.0 if "LayerNorm.weight" in name else 0.0))
model.eval()
with torch.no_grad():
    model(**tok(["a bird chirps by the window"], ["a bird chirps"], padding="longest", return_tensors="pt"))
config.save_pretrained(convert["out"])
model.save_pretrained(convert["out"], safe_serialization=False)
tok.save_pretrained(convert["out"])
out["padding"] = json.load(open(convert["out"] + "/tokenizer.json"))["padding"]
jobs.append(["converted", convert["out"], convert["data"]])
# the same model saved sharded by transformers' save_pretrained (a small max_shard_size), in both formats
for form, safe in (("sharded-bin", False), ("sharded-safetensors", True)):
    folder = convert["out"] + "-" + form
    model.save_pretrained(folder, safe_serialization=safe, max_shard_size="40KB")
    tok.save_pretrained(folder)
    jobs.append([form, folder, convert["data"]])
for kind, folder, data in jobs:
    pairs = json.load(open(data))
    tok = BleurtTokenizer.from_pretrained(folder)
    model = BleurtForSequenceClassification.from_pretrained(folder, dtype=torch.float32).eval()
    scores = []
    with torch.no_grad():
        for b in range(0, len(pairs["references"]), 16):
            enc = tok(pairs["references"][b:b + 16], pairs["candidates"][b:b + 16], padding="longest",
                      truncation=True, max_length=512, return_tensors="pt")
            scores.extend(model(**enc).logits.flatten().tolist())
    out[kind] = {"scores": scores, "tokenizer": type(tok).__name__}
print(json.dumps(out))
"""

#: texts the WMT17 slice lacks: empty sides, special-token strings, case, characters outside the vocabulary
EDGE = [("", "Leer"), ("Ein [SEP] Test", ""), ("ÄÖÜ GROSS", "☃ Schneemann [MASK]"), ("kurz", "kurz")]
#: pairs past 512 tokens: the longer side is cut, an odd budget split by BLEURT's rule (slow SentencePiece tokenizer)
#: or by the fast tokenizer's (WordPiece): the two ties below tell them apart
LONG = [("x " * 300, "y " * 10), ("kurz", "z " * 600), ("a b c " * 100, "d e f " * 100), ("g h " * 130, "i j " * 140)]


#: BLEURT-20's architecture: RemBERT-32 at input length 512 (google-research/bleurt checkpoints.md), with
#: google/rembert's published config values (input embeddings of 256 projected to 1152, 18 heads, feed-forward 4608,
#: 250,300 pieces), as bleurt-pytorch's config.json names them. BLEURT-20-D12: the values of lucadiliello/BLEURT-20-D12's
#: config.json (read in a public fine-tune's config that names it as its _name_or_path): embeddings of 128 projected to
#: 1024, 12 layers of 16 heads, feed-forward 4096, 120,300 pieces, output embeddings of 2048 (RemBERT's masked-LM
#: head, not in BLEURT: no weights). The D6/D3 configs were not found offline (their parameter counts, 45M and 30M,
#: fit no RemBERT-style shape with hidden size 1024), so they are not guessed here.
_BLEURT_COMMON = {"architectures": ["BleurtForSequenceClassification"], "model_type": "bleurt", "hidden_act": "gelu",
                  "hidden_dropout_prob": 0.1, "attention_probs_dropout_prob": 0.1, "max_position_embeddings": 512,
                  "type_vocab_size": 2, "initializer_range": 0.02, "layer_norm_eps": 1e-12, "pad_token_id": 0,
                  "num_labels": 1}
PUBLISHED = {
    "BLEURT-20": _BLEURT_COMMON | {"vocab_size": 250300, "embedding_size": 256, "hidden_size": 1152,
                                   "num_hidden_layers": 32, "num_attention_heads": 18, "intermediate_size": 4608},
    # output_embedding_size: RemBERT's output embeddings (its masked-LM head), which BLEURT has not: no weights
    "BLEURT-20-D12": _BLEURT_COMMON | {"vocab_size": 120300, "embedding_size": 128, "hidden_size": 1024,
                                       "num_hidden_layers": 12, "num_attention_heads": 16, "intermediate_size": 4096,
                                       "output_embedding_size": 2048},
}
#: per configuration: (projection shape, layers, parameter count); google-research/bleurt's checkpoints.md gives 579M for
#: the pre-trained BLEURT-20 (our count: its fine-tuned weights) and 167M for D12
PUBLISHED_SIZES = {"BLEURT-20": ((1152, 256), 32, 575_921_537), "BLEURT-20-D12": ((1024, 128), 12, 167_801_857)}


SHARDED = {"sharded-bin": "pytorch_model.bin.index.json", "sharded-safetensors": "model.safetensors.index.json"}


def _pairs(long: bool) -> tuple[list[str], list[str]]:
    refs, cands = wmt17_lines()[:120], wmt17_lines("newstest2017.uedin-nmt.4722.en-de")[:120]
    refs += wmt17_lines()[1000:1030]
    cands += wmt17_lines("newstest2017.online-F.0.en-de")[1000:1030]
    extra = EDGE + (LONG if long else [])
    return refs + [r for r, _ in extra], cands + [c for _, c in extra]


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory):
    root = tmp_path_factory.mktemp("bleurt")
    return {kind: build_bleurt(root / kind, kind) for kind in ("rembert", "bert")}


@pytest.fixture(scope="module")
def oracle(checkpoints, tmp_path_factory):
    """bleurt-pytorch's scores for each checkpoint kind (over-length pairs included), and the checkpoint its own
    classes write (``converted``: a folder under tmp, scored too), all in one interpreter."""
    jobs, root = [], tmp_path_factory.mktemp("data")
    refs, cands = _pairs(long=True)
    data = root / "pairs.json"
    data.write_text(json.dumps({"references": refs, "candidates": cands}))
    for kind, folder in checkpoints.items():
        jobs.append([kind, str(folder), str(data)])
    convert = {"vocab": str(checkpoints["bert"] / "vocab.txt"), "out": str(root / "converted"), "data": str(data)}
    result = run_oracle(ORACLE, json.dumps(jobs), json.dumps(convert), json.dumps(PUBLISHED))
    result["folder"] = root / "converted"
    result["sharded"] = {form: root / f"converted-{form}" for form in SHARDED}
    return result


@pytest.mark.parametrize("kind", ["rembert", "bert"])
def test_parity_with_bleurt_pytorch(kind, checkpoints, oracle):
    """Both tokenizers, over-length pairs included: the SentencePiece kind cuts an odd budget as BLEURT does (255 /
    254), the WordPiece kind as bleurt-pytorch's fast tokenizer does (254 / 255)."""
    refs, cands = _pairs(long=True)
    expected = oracle[kind]
    assert expected["tokenizer"] == ("BleurtSPTokenizer" if kind == "rembert" else "BleurtTokenizerFast")
    scorer = BleurtScorer(str(checkpoints[kind]), device="cpu")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ours = scorer.score(refs, cands, batch_size=16)
    diff = np.abs(np.array(ours) - np.array(expected["scores"]))
    assert diff.max() <= 1e-5, (diff.max(), int(diff.argmax()))
    assert np.std(ours) > 0.01  # real, varied scores, not a constant head
    truncated = [str(w.message) for w in caught if "truncated" in str(w.message)]
    count = {"rembert": 4, "bert": 3}[kind]  # ("x " * 300, "y " * 10) fits WordPiece's 512 tokens
    assert truncated == [f"bleurt: {count} of {len(refs)} (reference, candidate) pair(s) exceed 512 tokens and were "
                         "truncated as BLEURT does (from the end of the longer text)."]


def test_converted_checkpoint_batch_independent(oracle):
    """The folder bleurt-pytorch's converter writes keeps ``"padding": {"strategy": "BatchLongest"}`` in
    tokenizer.json and has ``embedding_size == hidden_size`` (a square embedding_projection): every pair scores as
    bleurt-pytorch scores it, whatever batch it is in (sizes 16, 5 and 1; the stored padding is cleared on load; the
    projection is loaded and used)."""
    assert oracle["padding"]["strategy"] == "BatchLongest"  # the state the converter leaves: the case under test
    refs, cands = _pairs(long=True)
    expected = np.array(oracle["converted"]["scores"])
    scorer = BleurtScorer(str(oracle["folder"]), device="cpu")
    assert hasattr(scorer.encoder, "embeddings_project")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for batch_size in (16, 5):
            ours = np.array(scorer.score(refs, cands, batch_size=batch_size))
            assert np.abs(ours - expected).max() <= 1e-5, (batch_size, np.abs(ours - expected).max())
        alone = np.array([scorer.score([r], [c])[0] for r, c in zip(refs[-10:], cands[-10:])])  # edge, over-length
        assert np.abs(alone - expected[-10:]).max() <= 1e-5
    assert np.std(expected) > 0.01
    together = scorer.encode(refs[:3], cands[:3])[0]
    assert together == [scorer.encode([r], [c])[0][0] for r, c in zip(refs[:3], cands[:3])]  # no [PAD] inside a pair


@pytest.mark.parametrize("form", list(SHARDED))
def test_sharded_checkpoint_equals_bleurt_pytorch(form, oracle):
    """The converted checkpoint as bleurt-pytorch's save_pretrained writes it with a small max_shard_size (an index
    and its shards, .bin or safetensors): strict loading reads it (names and shapes from the shards' headers), and
    every score equals bleurt-pytorch's on that folder and ours on the single-file folder; its signature names the
    weights' content."""
    from nlgmetrics.learned.locate import find_weights

    folder = oracle["sharded"][form]
    weights = find_weights(folder, "bleurt")
    assert weights.path.name == SHARDED[form] and len(weights.files) >= 3
    refs, cands = _pairs(long=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = np.array(BleurtScorer(str(folder), device="cpu").score(refs, cands, batch_size=16))
        single = np.array(BleurtScorer(str(oracle["folder"]), device="cpu").score(refs, cands, batch_size=16))
    assert np.abs(ours - np.array(oracle[form]["scores"])).max() <= 1e-5
    assert np.array_equal(ours, single)
    assert oracle[form]["scores"] == pytest.approx(oracle["converted"]["scores"], abs=1e-6)
    signature = compute_bleurt(cands[:2], refs[:2], str(folder), device="cpu")["signature"]
    assert f"|weights:{documented_weights_digest(*weights.files, weights.path)}|" in signature


def test_truncation_rule():
    """BLEURT's _truncate_seq_pair: the longer side loses its last token, the candidate on a tie (budget 509); the
    fast tokenizer's LongestFirst: the shorter side (the reference on a tie) keeps budget // 2 when both are long."""
    def lengths(a, b, rule="bleurt"):
        ref, cand, cut = truncate_pair(list(range(a)), list(range(b)), 509, rule)
        assert ref == list(range(len(ref))) and cand == list(range(len(cand)))  # kept from the start
        return len(ref), len(cand), cut

    assert lengths(300, 300) == (255, 254, True)
    assert lengths(300, 301) == (255, 254, True)
    assert lengths(400, 150) == (359, 150, True)
    assert lengths(10, 600) == (10, 499, True)
    assert lengths(200, 309) == (200, 309, False)
    assert lengths(300, 300, "fast") == (254, 255, True)
    assert lengths(300, 301, "fast") == (254, 255, True)
    assert lengths(301, 300, "fast") == (255, 254, True)
    assert lengths(400, 150, "fast") == (359, 150, True)
    assert lengths(254, 600, "fast") == (254, 255, True)
    assert lengths(255, 600, "fast") == (254, 255, True)
    assert lengths(200, 309, "fast") == (200, 309, False)
    for rule in ("bleurt", "fast"):  # an even budget: both rules agree
        assert [len(x) for x in truncate_pair(list(range(300)), list(range(301)), 510, rule)[:2]] == [255, 255]


def test_compute_multi_reference_and_bootstrap(checkpoints):
    folder = str(checkpoints["rembert"])
    refs, cands = wmt17_lines()[:6], wmt17_lines("newstest2017.uedin-nmt.4722.en-de")[:6]
    single = compute_bleurt(cands, refs, folder, device="cpu")["scores"]
    other = compute_bleurt(cands, refs[1:] + refs[:1], folder, device="cpu")["scores"]
    both = [[a, b] for a, b in zip(refs, refs[1:] + refs[:1])]
    best = compute_bleurt(cands, both, folder, device="cpu")
    assert best["scores"] == pytest.approx([max(a, b) for a, b in zip(single, other)], abs=1e-6)  # other batches
    mean = compute_bleurt(cands, both, folder, device="cpu", multi_ref="mean")["scores"]
    assert mean == pytest.approx([(a + b) / 2 for a, b in zip(single, other)], abs=1e-6)
    assert best["bleurt"] == pytest.approx(np.mean(best["scores"]))
    digest = documented_weights_digest(checkpoints["rembert"] / "pytorch_model.bin")
    assert best["signature"].startswith(f"model:rembert|weights:{digest}|dtype:float32|torch:")
    assert best["signature"].endswith("|max_len:512|multi_ref:max|version:nlgmetrics-0.1.0")
    boot = compute_bleurt(cands, refs, folder, device="cpu", n_bootstrap=200, seed=1)
    assert boot["bleurt_low"] < boot["bleurt"] < boot["bleurt_high"]
    assert boot == compute_bleurt(cands, refs, folder, device="cpu", n_bootstrap=200, seed=1)
    # max_length below the checkpoint's: truncated, and a different number
    short = compute_bleurt(cands[:2], refs[:2], folder, device="cpu", max_length=8)
    assert short["scores"] != single[:2] and "|max_len:8|" in short["signature"]


def test_signature_names_the_weights_not_the_folder(checkpoints, tmp_path):
    """Two checkpoints in folders of one name have two signatures; one checkpoint in two folders has one
    (issue 42: the signature named the folder only)."""
    import shutil

    cands, refs = wmt17_lines("newstest2017.uedin-nmt.4722.en-de")[:2], wmt17_lines()[:2]
    first, second = tmp_path / "a" / "model", tmp_path / "b" / "model"
    shutil.copytree(checkpoints["bert"], first)
    shutil.copytree(checkpoints["rembert"], second)
    one, other = (compute_bleurt(cands, refs, str(folder), device="cpu")["signature"] for folder in (first, second))
    assert one.startswith("model:model|") and other.startswith("model:model|") and one != other
    same = compute_bleurt(cands, refs, str(checkpoints["bert"]), device="cpu")["signature"]
    assert same.replace("model:bert|", "model:model|") == one


def test_bad_input(checkpoints, tmp_path):
    folder = checkpoints["rembert"]
    with pytest.raises(ValueError, match="no config.json"):
        BleurtScorer(str(tmp_path), device="cpu")
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "t5"}))
    with pytest.raises(ValueError, match="not a BLEURT checkpoint"):
        BleurtScorer(str(tmp_path), device="cpu")
    with pytest.raises(ValueError, match="checkpoint .* is a file, not a folder"):
        BleurtScorer(str(folder / "config.json"), device="cpu")
    with pytest.raises(ValueError, match="does not exist"):
        BleurtScorer(str(tmp_path / "missing"), device="cpu")
    with pytest.raises(ValueError, match=r"'BLEURT-20' \(hub repository 'lucadiliello/BLEURT-20'\) is not a local folder, and .*offline"):
        BleurtScorer("BLEURT-20", device="cpu")
    with pytest.raises(ValueError, match="multi_ref"):
        compute_bleurt(["a"], ["b"], str(folder), multi_ref="min")
    with pytest.raises(ValueError, match="max_length must be an integer from 3 to 512"):
        compute_bleurt(["a"], ["b"], str(folder), max_length=1000)
    with pytest.raises(TypeError, match="predictions"):
        compute_bleurt("a", ["b"], str(folder))
    broken = tmp_path / "broken"
    broken.mkdir()
    for name in ("config.json", "spm.model", "tokenizer_config.json"):
        (broken / name).write_bytes((folder / name).read_bytes())
    state = torch.load(folder / "pytorch_model.bin", weights_only=True)
    del state["classifier.weight"]
    torch.save(state, broken / "pytorch_model.bin")
    with pytest.raises(ValueError, match="missing classifier.weight"):
        BleurtScorer(str(broken), device="cpu")


def test_evaluate_module_hf_keys(checkpoints):
    import evaluate

    folder = str(checkpoints["bert"])
    refs, cands = wmt17_lines()[:3], wmt17_lines("newstest2017.uedin-nmt.4722.en-de")[:3]
    expected = BleurtScorer(folder, device="cpu").score(refs, cands)
    module = evaluate.load("./metrics/bleurt", folder)  # the checkpoint as config name, as HF's module takes it
    result = module.compute(predictions=cands, references=refs)
    assert list(result) == ["scores"] and result["scores"] == pytest.approx(expected, abs=1e-6)
    default = evaluate.load("./metrics/bleurt")
    detailed = default.compute(predictions=cands, references=refs, checkpoint=folder, details=True)
    assert set(detailed) == {"scores", "bleurt", "signature"}
    assert detailed["bleurt"] == pytest.approx(np.mean(expected), abs=1e-6)


def test_through_the_spec(checkpoints, tmp_path, capsys):
    """CLI score, compare, the suite and Trainer's compute_metrics (opt-in: named), lm-eval, Ray's scorer."""
    from nlgmetrics import compare
    from nlgmetrics.cli import main
    from nlgmetrics.integration import lm_eval as nlgm
    from nlgmetrics.integration.ray_data import MetricScorer
    from nlgmetrics.integration.suite import compute_suite, flatten_suite
    from nlgmetrics.registry import available_metrics, self_contained_metrics

    folder = str(checkpoints["bert"])
    refs, cands = wmt17_lines()[:4], wmt17_lines("newstest2017.uedin-nmt.4722.en-de")[:4]
    expected = BleurtScorer(folder, device="cpu").score(refs, cands)
    assert "bleurt" in available_metrics() and "bleurt" not in self_contained_metrics()

    (tmp_path / "hyp.txt").write_text("\n".join(cands) + "\n")
    (tmp_path / "ref.txt").write_text("\n".join(refs) + "\n")
    assert main(["score", "-m", "bleurt", "-p", str(tmp_path / "hyp.txt"), "-r", str(tmp_path / "ref.txt"),
                 "-o", f"checkpoint={folder}", "-f", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["scores"] == pytest.approx(expected, abs=1e-6)

    rows = compare({"a": cands, "b": refs}, refs, metrics=["bleurt"], baseline="a", n_resamples=100,
                   metric_options={"bleurt": {"checkpoint": folder}})
    assert rows[0]["score"] == pytest.approx(np.mean(expected), abs=1e-6) and rows[1]["p_value"] is not None

    flat = flatten_suite(compute_suite(cands, refs, ["bleurt"], {"bleurt": {"checkpoint": folder}}))
    assert flat["bleurt"] == pytest.approx(np.mean(expected), abs=1e-6)

    names = nlgm.register(["bleurt"])
    assert names == ["nlgm_bleurt"]
    items = [nlgm.nlgm_bleurt(references=[r], predictions=[c], checkpoint=folder) for r, c in zip(refs, cands)]
    assert nlgm.score_corpus("bleurt", [item for item in items])["bleurt"] == pytest.approx(np.mean(expected),
                                                                                             abs=1e-6)

    scorer = MetricScorer(["bleurt"], metric_options={"bleurt": {"checkpoint": folder}})
    batch = scorer({"prediction": np.array(cands, dtype=object), "reference": np.array(refs, dtype=object)})
    assert batch["bleurt"].tolist() == pytest.approx(expected, abs=1e-6)

    from transformers import EvalPrediction, PreTrainedTokenizerFast

    from nlgmetrics.integration.transformers import make_compute_metrics

    tokenizer = PreTrainedTokenizerFast(tokenizer_file=f"{folder}/tokenizer.json", pad_token="[PAD]")
    ids = {name: tokenizer(texts, padding=True, add_special_tokens=False, return_tensors="np")["input_ids"]
           for name, texts in (("refs", refs), ("cands", cands))}
    labels = np.where(ids["refs"] == tokenizer.pad_token_id, -100, ids["refs"])
    compute = make_compute_metrics(tokenizer, ["bleurt"], {"bleurt": {"checkpoint": folder}}, sentence_split=None)
    got = compute(EvalPrediction(predictions=ids["cands"], label_ids=labels))
    decoded = [tokenizer.batch_decode(ids[k], skip_special_tokens=True) for k in ("refs", "cands")]
    assert got["bleurt"] == pytest.approx(np.mean(BleurtScorer(folder, device="cpu").score(*decoded)), abs=1e-6)


def _copy(folder, to):
    to.mkdir()
    for path in folder.iterdir():
        (to / path.name).write_bytes(path.read_bytes())
    return to


def _edit_config(folder, **changes):
    config = json.loads((folder / "config.json").read_text())
    config.update(changes)
    (folder / "config.json").write_text(json.dumps(config))


def _edit_weights(folder, edit):
    state = torch.load(folder / "pytorch_model.bin", weights_only=True)
    edit(state)
    torch.save(state, folder / "pytorch_model.bin")


class _NotATensor:
    pass


BROKEN = {
    # strict loading: a weight the model does not use, one it lacks, a config that disagrees with the weights
    "unused weight": (lambda f: _edit_weights(f, lambda s: s.update({"bleurt.encoder.embedding_projection.weight":
                                                                       torch.zeros(32, 32)})),
                      r"do not match the model its config.json describes \(not used by the model: "
                      r"bleurt.encoder.embedding_projection.weight\)"),
    "missing weight": (lambda f: _edit_weights(f, lambda s: s.pop("bleurt.encoder.layer.1.output.dense.bias")),
                       r"missing bleurt.encoder.layer.1.output.dense.bias\)"),
    "config disagrees": (lambda f: _edit_config(f, intermediate_size=80),
                         r"shapes differ: bleurt.encoder.layer.0.intermediate.dense.bias \(64,\) "
                         r"\(config says \(80,\)\)"),
    "hparams huge": (lambda f: _edit_config(f, hidden_size=4_000_000, intermediate_size=4_000_000),
                     r"shapes differ: bleurt.embeddings.LayerNorm.bias"),
    "wrong-typed config": (lambda f: _edit_config(f, num_hidden_layers="2"),
                           r"num_hidden_layers in .*config.json is '2'; it must be a positive integer"),
    "heads do not divide": (lambda f: _edit_config(f, num_attention_heads=3),
                            r"hidden_size 32 in .*config.json is not a multiple of num_attention_heads 3"),
    "bad activation": (lambda f: _edit_config(f, hidden_act=7), r"hidden_act in .*config.json is 7"),
    "truncated weights": (lambda f: (f / "pytorch_model.bin").write_bytes(
                              (f / "pytorch_model.bin").read_bytes()[:5000]),
                          r"pytorch_model.bin cannot be read \(\w+Error: .*\); it is truncated or corrupted"),
    "pickle": (lambda f: _edit_weights(f, lambda s: s.update({"extra": _NotATensor()})),
               r"pytorch_model.bin holds pickled Python objects besides tensors; nlgmetrics refuses to unpickle"),
    "truncated safetensors": (
        lambda f: ((f / "model.safetensors").write_bytes(b"\x10\x00\x00\x00\x00\x00\x00\x00{\"a\":"),
                   (f / "pytorch_model.bin").unlink()),
        r"model.safetensors cannot be read \(SafetensorError: .*\); it is truncated or corrupted"),
}


@pytest.mark.parametrize("case", list(BROKEN))
def test_broken_checkpoints(case, checkpoints, tmp_path):
    """Strict, checked loading: each broken folder is one CheckpointError (a ValueError) naming the file and the
    difference, raised before anything the config sizes is allocated; never a raw RuntimeError, SafetensorError,
    UnpicklingError or TypeError, and never torch's advice to pass weights_only=False."""
    from nlgmetrics.learned.locate import CheckpointError

    folder = _copy(checkpoints["bert"], tmp_path / "ckpt")
    damage, message = BROKEN[case]
    damage(folder)
    with pytest.raises(CheckpointError, match=message) as raised:
        BleurtScorer(str(folder), device="cpu")
    assert str(folder) in str(raised.value) and "weights_only" not in str(raised.value)


@pytest.mark.parametrize("name", list(PUBLISHED))
def test_published_configuration_loads(name, oracle, tmp_path):
    """A published configuration builds (on the meta device: nothing allocated) into exactly the weights
    bleurt-pytorch's own model has for it, names and shapes (its position_ids buffer aside), so its checkpoint passes
    strict loading; and the sizes are the published ones."""
    from nlgmetrics.learned.bleurt import build_on_meta

    encoder, _, _, expected = build_on_meta(PUBLISHED[name], tmp_path / "config.json")
    theirs = {k: tuple(v) for k, v in oracle["published"][name].items()}
    assert theirs.pop("bleurt.embeddings.position_ids") == (1, 512)
    assert expected == theirs
    projection, layers, parameters = PUBLISHED_SIZES[name]
    assert expected["bleurt.encoder.embedding_projection.weight"] == projection
    assert len(encoder.encoder.layer) == layers and encoder.embeddings.word_embeddings.weight.is_meta
    assert sum(int(np.prod(shape)) for shape in expected.values()) == parameters
