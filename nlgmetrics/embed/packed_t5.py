"""Padding-free ("packed") forward of a T5 / mT5 encoder and of one decoder step: what MetricX computes, without
computing pad tokens.

The sequences of a batch are concatenated into one ``(T, d_model)`` matrix, so every projection, RMS norm and
feed-forward runs on real tokens only; attention gathers each sequence's q, k, v into a padded grid
(:class:`~nlgmetrics.embed.packed.Grid`), pad keys masked by ``-inf``. T5 attention is unscaled and adds a learned
bias of the relative position, which depends only on ``j - i``: the bias of a length-``n`` sequence is the top-left
``n x n`` block of the bias at the longest length, computed once per batch by the first block's own
``compute_bias``::

    x = E[ids]                                                              # (T, d), packed
    per block:  h = RMSNorm(x);  a[s] = softmax(q[s] k[s]^T + B[:n_s, :n_s]) v[s];  x = x + a Wo
                x = x + FF(RMSNorm(x))                                      # the block's own T5LayerFF
    e = RMSNorm_final(x)

One decoder step from the start token 0 (:func:`t5_first_decoder_state`): self-attention over a single position is
``softmax([s]) = [1]``, so it returns ``v`` itself (exactly). Cross-attention of the one query over a sequence's
encoder rows ``e`` never forms their keys and values: per head ``h``, ``q_h . (e Wk_h) = (q_h Wk_h) . e`` and
``sum_t p_t e_t Wv_h = (sum_t p_t e_t) Wv_h`` (14% of mT5-small's work saved)::

    p_h = softmax((q_h Wk_h) e^T);   a_h = (p_h e) Wv_h^T;   y = y + [a_1 .. a_H] Wo

Everything but the attention products is the model's own modules, so the result is the padded forward's up to
float32 summation order (checked against it in tests/test_metricx.py, and against metricx's code within 1e-5).
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
import torch.nn.functional as F

from nlgmetrics.embed.packed import Grid


def _attend(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """``softmax(q k^T + bias) v`` over ``(sequences, heads, n, d)`` (T5: no scaling; ``bias`` broadcasts to
    ``(sequences, heads, n, keys)``). Two matmuls and a softmax on CPU, as T5's eager attention; SDPA elsewhere."""
    if q.device.type == "cpu":
        return torch.matmul(torch.matmul(q, k.transpose(-1, -2)).add_(bias).softmax(dim=-1), v)
    return F.scaled_dot_product_attention(q, k, v, attn_mask=bias.to(q.dtype), scale=1.0)


def t5_encoder_states(encoder: torch.nn.Module, batch: Sequence[Sequence[int]], device: torch.device
                      ) -> tuple[torch.Tensor, Grid]:
    """The encoder's final hidden states of ``batch`` (token-id sequences), packed ``(sum of lengths, d_model)``,
    and the batch's :class:`Grid`. Call under ``torch.inference_mode()``."""
    grid = Grid([len(ids) for ids in batch], device)
    ids = torch.tensor([t for ids in batch for t in ids], dtype=torch.long).to(device)
    x = encoder.embed_tokens(ids)
    blocks = encoder.block
    first = blocks[0].layer[0].SelfAttention
    bias = first.compute_bias(grid.longest, grid.longest, device=device) + grid.bias  # (count, heads, L, L)
    heads = first.n_heads
    for block in blocks:
        layer = block.layer[0]
        attention = layer.SelfAttention
        h = layer.layer_norm(x)
        q, k, v = (grid.spread(projection(h), heads) for projection in (attention.q, attention.k, attention.v))
        x = x + attention.o(grid.collect(_attend(q, k, v, bias)))
        x = block.layer[1](x)
    return encoder.final_layer_norm(x), grid


def t5_first_decoder_state(decoder: torch.nn.Module, encoded: torch.Tensor, grid: Grid) -> torch.Tensor:
    """The decoder's final hidden state ``(sequences, d_model)`` after one step from token 0, cross-attending the
    packed encoder states ``encoded`` of each sequence (:func:`t5_encoder_states`)."""
    y = decoder.embed_tokens(torch.zeros(grid.count, dtype=torch.long, device=encoded.device))
    for block in decoder.block:
        self_attention, cross = block.layer[0], block.layer[1]
        y = y + self_attention.SelfAttention.o(self_attention.SelfAttention.v(self_attention.layer_norm(y)))
        attention = cross.EncDecAttention
        heads = attention.n_heads
        q = attention.q(cross.layer_norm(y)).view(grid.count, heads, -1)  # keys and values never formed (docstring)
        keys = attention.k.weight.view(heads, -1, encoded.shape[1])  # (heads, d, d_model)
        values = attention.v.weight.view(heads, -1, encoded.shape[1])
        rows = grid.spread(encoded, 1)[:, 0]  # (count, L, d_model)
        queries = torch.einsum("chd,hdm->chm", q, keys)  # (count, heads, d_model)
        weights = torch.bmm(queries, rows.transpose(1, 2)).add_(grid.bias[:, 0]).softmax(dim=-1)  # (count, heads, L)
        context = torch.einsum("chm,hdm->chd", torch.bmm(weights, rows), values)  # (count, heads, d)
        y = y + attention.o(context.reshape(grid.count, -1))
        y = block.layer[2](y)
    return decoder.final_layer_norm(y)
