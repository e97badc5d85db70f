"""make_compute_metrics: decoding (-100, pad, special tokens), flat floats equal to the core's, batch_eval_metrics,
models loaded once; and the tiny Seq2SeqTrainer example end to end on CPU, offline."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import time

import numpy as np
import pytest

pytest.importorskip("accelerate", reason="transformers' Trainer needs accelerate")

from nlgmetrics.integration.suite import compute_suite, flatten_suite  # noqa: E402
from nlgmetrics.integration.transformers import make_compute_metrics  # noqa: E402
from nlgmetrics.registry import SPECS, self_contained_metrics  # noqa: E402
from nlgmetrics.resources import BUNDLED_ENCODER_ID, bundled_encoder_path  # noqa: E402

from conftest import REPO  # noqa: E402

sys.path.insert(0, str(REPO / "integration" / "transformers"))
import train_tiny_seq2seq as example  # noqa: E402

EMBEDDING = ("bertscore", "moverscore")
PAIRS = example.load_pairs()[:6]
TOKENIZER = example.build_tokenizer([text for pair in example.load_pairs() for text in pair])


def metric_options(names):
    return {name: {"model_type": BUNDLED_ENCODER_ID} for name in names if name in EMBEDDING}


def usable_metrics():
    names = self_contained_metrics()
    if bundled_encoder_path() is None:
        names = [n for n in names if n not in EMBEDDING]
    return names


def encode(texts, width, pad_with=-100):
    """Token ids padded to ``width`` as Trainer gives them (labels padded with -100)."""
    rows = [TOKENIZER(text_target=t)["input_ids"] for t in texts]
    return np.array([row + [pad_with] * (width - len(row)) for row in rows])


def eval_prediction(predictions, references, width=48):
    from transformers import EvalPrediction

    # generated ids start with the decoder start token and are padded with the pad id, then -100 across batches
    generated = [[TOKENIZER.bos_token_id] + TOKENIZER(p)["input_ids"] for p in predictions]
    preds = np.array([row + [TOKENIZER.pad_token_id] * 2 + [-100] * (width - len(row) - 2) for row in generated])
    return EvalPrediction(predictions=preds, label_ids=encode(references, width))


def test_decodes_and_matches_the_core():
    names = usable_metrics()
    predictions = [p for p, _ in PAIRS]
    references = [r for _, r in PAIRS]
    compute = make_compute_metrics(TOKENIZER, names, metric_options(names), sentence_split=None)
    got = compute(eval_prediction(predictions, references))
    # the word-level tokenizer decodes to its tokens joined by single spaces
    expected = flatten_suite(compute_suite([" ".join(p.split()) for p in predictions],
                                           [" ".join(r.split()) for r in references], names, metric_options(names)))
    assert set(got) == set(expected) | {"gen_len"}
    for key, value in expected.items():
        assert isinstance(got[key], float) and got[key] == pytest.approx(value, abs=1e-6), key
    assert all(set(SPECS[name].headline) <= set(got) for name in names)
    assert got["gen_len"] == pytest.approx(np.mean([len(TOKENIZER(p)["input_ids"]) + 1 for p in predictions]))


def test_logits_and_keys_filter():
    if "bleu" not in self_contained_metrics():
        pytest.skip("needs bleu")
    from transformers import EvalPrediction

    references = [r for _, r in PAIRS[:2]]
    labels = encode(references, 40)
    logits = np.full(labels.shape + (len(TOKENIZER),), -1.0)
    ids = np.where(labels == -100, TOKENIZER.pad_token_id, labels)
    np.put_along_axis(logits, ids[..., None], 1.0, axis=-1)
    compute = make_compute_metrics(TOKENIZER, ["bleu"], keys=["bleu"], warmup=False)
    got = compute(EvalPrediction(predictions=(logits, None), label_ids=labels))
    assert got == pytest.approx({"bleu": 1.0, "gen_len": float((ids != TOKENIZER.pad_token_id).sum(1).mean())})
    with pytest.raises(KeyError, match="not in the results"):
        make_compute_metrics(TOKENIZER, ["bleu"], keys=["rouge1"], warmup=False)(
            EvalPrediction(predictions=(logits, None), label_ids=labels))


def test_batch_eval_metrics_accumulates_until_compute_result():
    import torch
    from transformers import EvalPrediction

    names = [n for n in ("bleu", "rouge") if n in self_contained_metrics()]
    predictions = [p for p, _ in PAIRS]
    references = [r for _, r in PAIRS]
    compute = make_compute_metrics(TOKENIZER, names)
    whole = compute(eval_prediction(predictions, references))
    outputs = []
    for start, width in ((0, 40), (2, 56), (4, 44)):  # batches padded to different widths, as torch tensors
        batch = eval_prediction(predictions[start:start + 2], references[start:start + 2], width)
        batch = EvalPrediction(torch.tensor(batch.predictions), torch.tensor(batch.label_ids))
        outputs.append(compute(batch, compute_result=start == 4))
    assert outputs[0] == outputs[1] == {}
    assert outputs[2] == pytest.approx(whole)
    assert compute(eval_prediction(predictions[:1], references[:1]), compute_result=True)["gen_len"] > 0  # reset


def test_bad_arguments_fail_early():
    with pytest.raises(ValueError, match="unknown metric"):
        make_compute_metrics(TOKENIZER, ["bleu", "blue"])
    if "bleu" in self_contained_metrics():
        with pytest.raises(ValueError, match="unknown option 'lowercas'. Did you mean 'lowercase'"):
            make_compute_metrics(TOKENIZER, ["bleu"], {"bleu": {"lowercas": True}})  # options checked up front
        with pytest.raises(ValueError, match="not computed"):
            make_compute_metrics(TOKENIZER, ["bleu"], {"rouge": {}})


def test_models_load_once():
    if "bertscore" not in usable_metrics():
        pytest.skip("needs bertscore and the bundled encoder")
    from nlgmetrics.embed import encoder as encoder_module

    created = []
    original = encoder_module.Encoder.__init__

    def counting(self, *args, **kwargs):
        created.append(args[0] if args else kwargs.get("model_type"))
        original(self, *args, **kwargs)

    encoder_module.clear_encoders()
    encoder_module.Encoder.__init__ = counting
    try:
        compute = make_compute_metrics(TOKENIZER, ["bertscore"], metric_options(["bertscore"]))
        for _ in range(3):  # three evaluations
            compute(eval_prediction([p for p, _ in PAIRS[:2]], [r for _, r in PAIRS[:2]]))
    finally:
        encoder_module.Encoder.__init__ = original
    assert len(created) == 1


@pytest.mark.slow
def test_example_trains_and_evaluates_end_to_end(tmp_path):
    """integration/transformers/train_tiny_seq2seq.py as a user runs it: a fresh process, CPU, offline, without
    ``--metrics`` (issue #36 item 2: the default once included COMET and crashed with "comet needs sources"), so it
    scores every self-contained metric."""
    names = usable_metrics()
    assert names == self_contained_metrics() and "comet" not in names
    out = tmp_path / "metrics.json"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "OMP_NUM_THREADS": "1"}
    start = time.perf_counter()
    run = subprocess.run(
        [sys.executable, "integration/transformers/train_tiny_seq2seq.py", "--steps", "40", "--threads", "1",
         "--batch-eval-metrics", "--json", str(out), "--output-dir", str(tmp_path / "run")],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=240,
    )
    elapsed = time.perf_counter() - start
    assert run.returncode == 0, run.stderr[-3000:]
    metrics = json.loads(out.read_text())
    for name in names:
        key = "eval_" + SPECS[name].headline[0]
        assert key in metrics and isinstance(metrics[key], float) and math.isfinite(metrics[key]), key
    assert metrics["eval_gen_len"] > 2  # the model learned to generate something in 40 steps
    assert "eval_rougeLsum" in metrics if "rouge" in names else True
    assert elapsed < 120, f"the example took {elapsed:.0f} s"
