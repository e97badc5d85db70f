"""BLEURT: parity with bleurt-pytorch 0.0.1 (run in the oracle venv) on checkpoints of both published architectures
built here (tests/learned_checkpoints.py), on WMT17 en-de text; truncation, multi-reference, bad input, the module."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

pytest.importorskip("sentencepiece")
torch = pytest.importorskip("torch")

from learned_checkpoints import build_bleurt, wmt17_lines  # noqa: E402
from oracle_venv import run_oracle  # noqa: E402

from nlgmetrics.learned.bleurt import BleurtScorer, compute_bleurt, truncate_pair  # noqa: E402

ORACLE = r"""
import json, sys
import torch
torch.set_num_threads(2)
from bleurt_pytorch import BleurtForSequenceClassification, BleurtTokenizer
out = {}
for kind, folder, data in json.loads(sys.argv[1]):
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
#: pairs past 512 tokens: the longer side is cut (BLEURT's rule, which the slow SentencePiece tokenizer follows)
LONG = [("x " * 300, "y " * 10), ("kurz", "z " * 600), ("a b c " * 100, "d e f " * 100), ("g h " * 130, "i j " * 140)]


def _pairs(long: bool) -> tuple[list[str], list[str]]:
    refs, cands = wmt17_lines()[:120], wmt17_lines("newstest2017.uedin-nmt.4722.en-de")[:120]
    refs += wmt17_lines()[1000:1030]
    cands += wmt17_lines("newstest2017.online-F.0.en-de")[1000:1030]
    extra = EDGE + (LONG if long else [])
    return refs + [r for r, _ in extra], cands + [c for _, c in extra]


@pytest.fixture(scope="session")
def checkpoints(tmp_path_factory):
    root = tmp_path_factory.mktemp("bleurt")
    return {kind: build_bleurt(root / kind, kind) for kind in ("rembert", "bert")}


@pytest.fixture(scope="session")
def oracle(checkpoints, tmp_path_factory):
    """bleurt-pytorch's scores for each checkpoint kind (the legacy WordPiece kind without the over-long pairs: its
    fast tokenizer's pair truncation splits an odd budget the other way round; see test_truncation_rule)."""
    jobs = []
    for kind, folder in checkpoints.items():
        refs, cands = _pairs(long=kind == "rembert")
        data = tmp_path_factory.mktemp("data") / f"{kind}.json"
        data.write_text(json.dumps({"references": refs, "candidates": cands}))
        jobs.append([kind, str(folder), str(data)])
    return run_oracle(ORACLE, json.dumps(jobs))  # one interpreter for both


@pytest.mark.parametrize("kind", ["rembert", "bert"])
def test_parity_with_bleurt_pytorch(kind, checkpoints, oracle):
    refs, cands = _pairs(long=kind == "rembert")
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
    assert truncated == ([f"bleurt: 4 of {len(refs)} (reference, candidate) pair(s) exceed 512 tokens and were "
                          "truncated as BLEURT does (from the end of the longer text)."] if kind == "rembert" else [])


def test_truncation_rule():
    """BLEURT's _truncate_seq_pair: the longer side loses its last token, the candidate on a tie (budget 509)."""
    def lengths(a, b):
        ref, cand, cut = truncate_pair(list(range(a)), list(range(b)), 509)
        assert ref == list(range(len(ref))) and cand == list(range(len(cand)))  # kept from the start
        return len(ref), len(cand), cut

    assert lengths(300, 300) == (255, 254, True)
    assert lengths(300, 301) == (255, 254, True)
    assert lengths(400, 150) == (359, 150, True)
    assert lengths(10, 600) == (10, 499, True)
    assert lengths(200, 309) == (200, 309, False)


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
    assert best["signature"] == "ckpt:rembert|max_len:512|multi_ref:max|version:nlgmetrics-0.1.0"
    boot = compute_bleurt(cands, refs, folder, device="cpu", n_bootstrap=200, seed=1)
    assert boot["bleurt_low"] < boot["bleurt"] < boot["bleurt_high"]
    assert boot == compute_bleurt(cands, refs, folder, device="cpu", n_bootstrap=200, seed=1)
    # max_length below the checkpoint's: truncated, and a different number
    short = compute_bleurt(cands[:2], refs[:2], folder, device="cpu", max_length=8)
    assert short["scores"] != single[:2] and short["signature"].startswith("ckpt:rembert|max_len:8|")


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
