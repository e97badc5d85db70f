"""Models load in float32 whatever dtype their checkpoint was saved in (transformers 5 otherwise keeps the saved
dtype, so a float16 checkpoint would silently compute in float16 on CPU)."""

from __future__ import annotations

import torch

from nlgmetrics.embed import clear_encoders, get_encoder
from nlgmetrics.resources import bundled_encoder_path


def test_float16_checkpoint_computes_in_float32(tmp_path):
    from transformers import AutoModel, AutoTokenizer

    source = bundled_encoder_path()
    AutoModel.from_pretrained(source).half().save_pretrained(tmp_path)
    AutoTokenizer.from_pretrained(source).save_pretrained(tmp_path)
    try:
        encoder = get_encoder(str(tmp_path), device="cpu")
        assert {p.dtype for p in encoder.model.parameters()} == {torch.float32}
        [emb] = encoder.embed(["a short text"], layer=6)
        assert emb.embeddings.dtype == torch.float32
        full = get_encoder(source, device="cpu").embed(["a short text"], layer=6)[0].embeddings
        # float16-rounded weights, float32 arithmetic: close to the original, not float16-far
        assert (emb.embeddings - full).abs().max() < 5e-3
    finally:
        clear_encoders()
