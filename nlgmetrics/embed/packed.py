"""Padding-free ("packed") forward for BERT-family encoders: the same hidden states, without computing pad tokens.

A padded batch of length-sorted texts still spends 10-25% of the encoder's work on pad rows (bert_score's batches of
WMT17 sentences: 27%). Here the sequences of a batch are concatenated into one ``(T, hidden)`` matrix, so every dense
layer, GELU and LayerNorm runs on real tokens only. Self-attention, the one step that mixes tokens, runs per group
of equal-length sequences (a batch is length-sorted, so each group is a contiguous block) with no mask; on CPU with
short sequences, on q, k, v gathered into one padded grid with pad keys masked (see :func:`_attention`)::

    x      = Embeddings(ids, positions restarting at each sequence)           # (T, hidden)
    q,k,v  = x Wq, x Wk, x Wv                                                  # (T, heads, d), packed
    a[g]   = softmax(q[g] k[g]^T / sqrt(d)) v[g]  for each group g of n sequences of length L, as (n, heads, L, d)
    h      = LayerNorm(a Wo + x);  x' = LayerNorm(GELU(h W1) W2 + h)           # the model's own modules

It calls the model's own submodules for everything but the attention product, so it is exact up to float32
summation order (|Δ| ~1e-6 on hidden states, ~1e-7 on scores). It applies to the architectures in
:data:`PACKABLE_MODEL_TYPES` with absolute positions, and an :class:`~nlgmetrics.embed.encoder.Encoder` turns it on
only after :func:`~nlgmetrics.embed.encoder.packing_matches` has checked it against the padded forward at load
time; any other model runs the standard padded forward.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import torch
import torch.nn.functional as F

PACKABLE_MODEL_TYPES = ("bert", "roberta", "xlm-roberta", "camembert", "electra")
_ROBERTA_POSITIONS = ("roberta", "xlm-roberta", "camembert")
EAGER_MAX_LENGTH = 128  # CPU: plain matmul attention up to this length, SDPA above (measured crossover ~100-200)


def can_pack(model: torch.nn.Module) -> bool:
    """Whether ``model`` has the BERT layout this forward relies on (type, absolute positions, encoder only)."""
    config = getattr(model, "config", None)
    if config is None or getattr(config, "model_type", None) not in PACKABLE_MODEL_TYPES:
        return False
    if getattr(config, "position_embedding_type", "absolute") != "absolute" or getattr(config, "is_decoder", False):
        return False
    layers = getattr(getattr(model, "encoder", None), "layer", None)
    if not isinstance(layers, torch.nn.ModuleList) or not hasattr(model, "embeddings"):
        return False
    needed = ("attention.self.query", "attention.self.key", "attention.self.value", "attention.output", "intermediate",
              "output")
    return all(_has_path(block, path) for block in layers for path in needed)


def _has_path(module: torch.nn.Module, dotted: str) -> bool:
    for name in dotted.split("."):
        module = getattr(module, name, None)
        if module is None:
            return False
    return True


def _position_ids(model: torch.nn.Module, input_ids: torch.Tensor, lengths: Sequence[int]) -> torch.Tensor:
    """Positions restarting at every sequence of the packed ``input_ids`` ``(1, T)``. RoBERTa-style models number
    them as transformers' ``create_position_ids_from_input_ids``: ``pad + cumsum(id != pad)`` at non-pad tokens and
    ``pad`` at a pad id (one written inside a text, e.g. ``<pad>`` decoded from a generation), so the tokens after it
    keep their padded-forward positions."""
    counts = torch.tensor(list(lengths))
    if model.config.model_type not in _ROBERTA_POSITIONS:
        starts = torch.repeat_interleave(counts.cumsum(0) - counts, counts)
        return (torch.arange(int(counts.sum())) - starts).unsqueeze(0)
    pad = model.config.pad_token_id
    real = (input_ids[0] != pad).long()
    running = real.cumsum(0)
    ends = counts.cumsum(0) - 1  # each sequence's last row: the running count before the next sequence
    before = torch.repeat_interleave(torch.cat([running.new_zeros(1), running[ends[:-1]]]), counts)
    return ((running - before) * real + pad).unsqueeze(0)


def _equal_length_groups(lengths: Sequence[int]) -> list[tuple[int, int, int]]:
    """(first token row, number of sequences, length) of each run of equal-length sequences."""
    groups: list[tuple[int, int, int]] = []
    row = 0
    for n in lengths:
        if groups and groups[-1][2] == n:
            start, count, _ = groups[-1]
            groups[-1] = (start, count + 1, n)
        else:
            groups.append((row, 1, n))
        row += n
    return groups


class Grid:
    """Where each packed row sits in a padded ``(sequences, longest)`` grid, computed once per batch: attention
    gathers q, k, v into the grid (``gather``), masks pad keys (``bias``: 0 or ``-inf``, ``(sequences, 1, 1,
    longest)``) and takes the real rows back out (``back``)."""

    def __init__(self, lengths: Sequence[int], device: torch.device) -> None:
        self.count, self.longest = len(lengths), max(lengths)
        starts = torch.tensor([0, *lengths[:-1]]).cumsum(0)
        column = torch.arange(self.longest)
        valid = column.unsqueeze(0) < torch.tensor(lengths).unsqueeze(1)  # (count, longest)
        self.gather = (starts.unsqueeze(1) + column).masked_fill(~valid, 0).view(-1).to(device)
        self.back = valid.view(-1).nonzero().view(-1).to(device)  # grid cell of each packed row, in order
        self.bias = torch.zeros(valid.shape).masked_fill_(~valid, float("-inf")).view(self.count, 1, 1, -1).to(device)

    def spread(self, packed: torch.Tensor, heads: int) -> torch.Tensor:
        """Packed rows ``(T, heads * d)`` as ``(sequences, heads, longest, d)`` (pad cells hold some real row)."""
        return packed.index_select(0, self.gather).view(self.count, self.longest, heads, -1).transpose(1, 2)

    def collect(self, grid: torch.Tensor) -> torch.Tensor:
        """``(sequences, heads, longest, d)`` back to packed rows ``(T, heads * d)``, pad cells dropped."""
        return grid.transpose(1, 2).reshape(self.count * self.longest, -1).index_select(0, self.back)


def _attention(block: torch.nn.Module, x: torch.Tensor, groups: list[tuple[int, int, int]],
               grid: Grid | None) -> torch.Tensor:
    """Self-attention of every sequence over itself only, on packed rows ``x`` (T, hidden) -> (T, heads * d).

    On CPU, with every sequence up to :data:`EAGER_MAX_LENGTH` tokens (``grid`` given), the batch's q, k, v are
    gathered into one padded grid and attended with two batched matmuls and a softmax, pad keys masked by ``-inf``:
    a handful of kernel calls per layer whatever the number of lengths (on 2 busy cores each call can cost a
    scheduler slice), and 1.2-3x faster than SDPA's fused kernel on short rows. Otherwise (long sequences, GPUs)
    each run of equal-length sequences goes through SDPA without a mask."""
    attn = block.attention.self
    heads, d = attn.num_attention_heads, attn.attention_head_size
    scale = getattr(attn, "scaling", None) or d**-0.5
    q, k, v = (proj(x).view(-1, heads, d) for proj in (attn.query, attn.key, attn.value))
    if grid is not None:
        q, k, v = (grid.spread(t, heads) for t in (q, k, v))
        weights = torch.matmul(q, k.transpose(-1, -2)).mul_(scale).add_(grid.bias).softmax(dim=-1)
        return grid.collect(torch.matmul(weights, v))
    out = torch.empty_like(q)
    for start, count, length in groups:
        rows = slice(start, start + count * length)

        def split(t: torch.Tensor) -> torch.Tensor:
            return t[rows].view(count, length, heads, d).transpose(1, 2)

        product = F.scaled_dot_product_attention(split(q), split(k), split(v), scale=scale)
        out[rows].view(count, length, heads, d).copy_(product.transpose(1, 2))
    return out.view(-1, heads * d)


def packed_hidden_states(
    model: torch.nn.Module,
    batch: Sequence[Sequence[int]],
    layer: int | None,
    device: torch.device,
    token_type_ids: Sequence[Sequence[int]] | None = None,
    on_layer: Callable[[int, torch.Tensor], None] | None = None,
) -> torch.Tensor | None:
    """Hidden states of ``batch`` (token-id sequences, ideally length-sorted) at ``layer`` (0 = embedding output),
    packed: ``(sum of lengths, hidden)``, the sequences one after another; ``layer=None``: every layer,
    ``(sum of lengths, L + 1, hidden)``; or with ``on_layer`` (and ``layer=None``), ``on_layer(l, H_l)`` for each
    state as it is computed and None returned (a caller that reduces the layers keeps no stack of them).
    ``token_type_ids``: segment ids per sequence (sentence pairs; default 0). Call under ``torch.inference_mode()``."""
    lengths = [len(ids) for ids in batch]
    input_ids = torch.tensor([t for ids in batch for t in ids], dtype=torch.long).unsqueeze(0)  # built on the CPU,
    positions = _position_ids(model, input_ids, lengths)  # moved to the device in one copy each
    segments = (None if token_type_ids is None
                else torch.tensor([s for seg in token_type_ids for s in seg], dtype=torch.long).unsqueeze(0).to(device))
    x = model.embeddings(input_ids=input_ids.to(device), position_ids=positions.to(device), token_type_ids=segments)
    if hasattr(model, "embeddings_project"):  # ELECTRA with embedding_size != hidden_size
        x = model.embeddings_project(x)
    x = x[0]
    blocks = model.encoder.layer if layer is None else model.encoder.layer[:layer]
    groups = _equal_length_groups(lengths)
    grid = Grid(lengths, device) if device.type == "cpu" and max(lengths) <= EAGER_MAX_LENGTH else None
    if on_layer is not None:
        on_layer(0, x)
    states = [x]
    for i, block in enumerate(blocks, start=1):
        h = block.attention.output(_attention(block, x, groups, grid), x)
        x = block.output(block.intermediate(h), h)
        if on_layer is not None:
            on_layer(i, x)
        elif layer is None:
            states.append(x)
    if on_layer is not None:
        return None
    return torch.stack(states, dim=1) if layer is None else x
