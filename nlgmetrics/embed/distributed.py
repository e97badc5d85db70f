"""Sharded encoding under ``torch.distributed``: each rank encodes a share of the texts, every rank gets them all.

When several processes score the *same* predictions and references (transformers ``Trainer`` under DDP calls
``compute_metrics`` on every rank with the gathered predictions), encoding everything on every rank repeats the
whole forward pass ``world_size`` times. With sharding on, :meth:`Encoder.embed <nlgmetrics.embed.Encoder.embed>`
does instead, for the texts missing from the cache:

1. gather every rank's missing texts (and namespace; ranks out of step raise ``RuntimeError`` on every rank) and
   take their union, in rank order, so a rank whose cache was already warm still takes part;
2. tokenize a strided slice of the union on each rank and gather the token counts (the load of a text:
   its token count, at most ``max_len`` with ``long_text="truncate"``);
3. split the union by :func:`split_by_cost` (deterministic, balanced by tokens), run :meth:`Encoder.compute` on this
   rank's shard only;
4. ``all_gather_object`` the (index, ids, float32 CPU embeddings) of every shard: every rank puts all of them in its
   cache and returns the same tensors.

Cost of step 4: every rank receives every embedding, pickled: about ``4 * hidden * total tokens`` bytes
(``* (L + 1)`` with all layers; e.g. 10k texts of 40 tokens at hidden 1024: 1.6 GB), padded to the largest rank's
payload, over gloo (TCP) or NCCL (through GPU buffers on the current device). The embedding metrics bound one call
(BERTScore embeds at most 8,192 texts per call), and the gathered embeddings are what the cache holds anyway.

Scores: the scorers (:class:`~nlgmetrics.semantic.bertscore.BERTScorer`,
:class:`~nlgmetrics.semantic.moverscore.MoverScorer`) first check that every rank passed the same inputs (a
fingerprint is gathered; different inputs raise ``ValueError`` on every rank, never a silent mix), and finally take
rank 0's scores (``broadcast_object_list``), so every rank returns identical numbers even where an embedding was
cached earlier on each rank separately. MoverScore also shares out its exact transport problems (:func:`map_sharded`,
balanced by cost-matrix size; only the distances travel), the part that runs on the CPU. COMET
(:func:`~nlgmetrics.learned.comet.compute_comet`) shards its sentence or joint-sequence vectors the same way
(:func:`encode_sharded`) and checks inputs and agrees on scores likewise.

Sharding is never automatic: every step is a collective call, so a rank that does not make the same call hangs the
others. lm-evaluation-harness aggregates metrics once, on rank 0 only, after gathering the samples: there is nothing
repeated to shard, and sharding there would hang. Turn it on with ``distributed=True`` / ``"auto"`` on the
embedding metrics (or their scorers) and COMET, or around any code with :func:`sharded_encoding`; the transformers
adapter (:func:`nlgmetrics.integration.transformers.make_compute_metrics`) passes ``"auto"``.

Modes: ``False`` off; ``True`` on (``torch.distributed`` must be initialised, else ``ValueError``); ``"auto"`` on
when ``torch.distributed`` is initialised with ``world_size > 1``, else off. With one process, on or off is the same.
"""

from __future__ import annotations

import hashlib
import heapq
import json
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, TypeVar

from nlgmetrics.embed.cache import TokenEmbeddings
from nlgmetrics.errors import OptionError

if TYPE_CHECKING:  # pragma: no cover
    from nlgmetrics.embed.encoder import Encoder

MODES = (False, True, "auto")
_MODE: ContextVar[bool | str] = ContextVar("nlgmetrics_sharded_encoding", default=False)
T = TypeVar("T")


def check_mode(mode: Any) -> bool | str:
    """``mode`` if it is one of False, True, "auto"; else ``ValueError``."""
    if not any(mode is m or (isinstance(m, str) and mode == m) for m in MODES):
        raise OptionError(f"distributed must be False, True or 'auto', got {mode!r}.")
    return mode


@contextmanager
def sharded_encoding(mode: bool | str | None = True) -> Iterator[None]:
    """Within the block, encoding is sharded per ``mode`` (see the module docstring); ``None`` changes nothing.

    Every rank must enter the block and make the same embedding calls with the same texts.
    """
    if mode is None:
        yield
        return
    from nlgmetrics.embed.encoder import MISSING_TEXTS_HOOK

    token = _MODE.set(check_mode(mode))
    hook_token = MISSING_TEXTS_HOOK.set(_encode_missing)
    try:
        yield
    finally:
        MISSING_TEXTS_HOOK.reset(hook_token)
        _MODE.reset(token)


def _encode_missing(encoder: Encoder, missing: Sequence[str], layer: int | None, **options: Any):
    """The engine's hook inside :func:`sharded_encoding`: shard the missing texts when sharding is active, else
    decline (None: the engine encodes them itself)."""
    return compute_sharded(encoder, missing, layer, **options) if active() else None


def _initialised_world() -> tuple[int, int] | None:
    """(rank, world_size) of the default process group, or None when torch.distributed is not initialised."""
    import torch.distributed as dist

    if not (dist.is_available() and dist.is_initialized()):
        return None
    return dist.get_rank(), dist.get_world_size()


def active() -> bool:
    """Whether the current setting shards encoding now (an initialised process group with ``world_size > 1``).

    Raises ``ValueError`` when the setting is ``True`` and ``torch.distributed`` is not initialised.
    """
    mode = _MODE.get()
    if mode is False:
        return False
    world = _initialised_world()
    if world is None:
        if mode is True:
            raise OptionError(
                "distributed=True needs torch.distributed initialised (torch.distributed.init_process_group, or "
                "launch with torchrun/accelerate); pass distributed='auto' to fall back to one process."
            )
        return False
    return world[1] > 1


def split_by_cost(costs: Sequence[float], world_size: int) -> list[list[int]]:
    """Indices ``0..len(costs)-1`` in ``world_size`` shards of near-equal total cost (longest processing time first).

    Items in decreasing cost (ties: lower index first) each go to the shard with the least total so far (ties: fewer
    items, then the lower rank); each shard is returned in ascending index order. Deterministic, so every rank
    computes the same split; the largest shard exceeds the mean by at most one item's cost.
    """
    if isinstance(world_size, bool) or not isinstance(world_size, int) or world_size < 1:
        raise OptionError(f"world_size must be a positive integer, got {world_size!r}.")
    heap = [(0.0, 0, rank) for rank in range(world_size)]
    shards: list[list[int]] = [[] for _ in range(world_size)]
    for k in sorted(range(len(costs)), key=lambda i: (-costs[i], i)):
        load, count, rank = heapq.heappop(heap)
        shards[rank].append(k)
        heapq.heappush(heap, (load + costs[k], count + 1, rank))
    return [sorted(shard) for shard in shards]


def compute_sharded(
    encoder: Encoder,
    missing: Sequence[str],
    layer: int | None,
    *,
    batch_size: int = 64,
    long_text: str = "window",
    progress: bool = False,
) -> list[tuple[str, TokenEmbeddings]]:
    """(text, embeddings) for the union over ranks of the ``missing`` texts, each encoded on one rank only.

    A collective call: every rank of the default process group must call it (with its own ``missing``, possibly
    empty) for the same layer and long-text mode. The result is the same on every rank.
    """
    import torch.distributed as dist

    def costs(texts: list[str]) -> list[int]:
        counts = [len(ids) for ids in encoder.token_ids(texts)]
        return [min(c, encoder.max_len) for c in counts] if long_text == "truncate" else counts

    def compute(texts: list[str]) -> list[tuple[list[int], Any]]:
        entries = encoder.compute(texts, layer, batch_size=batch_size, long_text=long_text,
                                  progress=progress and dist.get_rank() == 0)
        return [(e.input_ids, e.embeddings) for e in entries]

    pairs = encode_sharded(encoder.namespace(layer, long_text), missing, costs, compute)
    return [(text, TokenEmbeddings(list(ids), emb)) for text, (ids, emb) in pairs]


def encode_sharded(
    namespace: str,
    missing: Sequence[str],
    costs: Callable[[list[str]], Sequence[float]],
    compute: Callable[[list[str]], Sequence[T]],
) -> list[tuple[str, T]]:
    """(key, value) for the union over ranks of the ``missing`` keys (steps 1-4 of the module docstring), each value
    computed on one rank only: ``costs(keys)`` gives each key's load, ``compute(keys)`` one value per key.

    A collective call: every rank must call it for the same ``namespace`` (else ``RuntimeError`` on every rank), with
    its own ``missing``, possibly empty. The result is the same on every rank.
    """
    import torch.distributed as dist

    rank, world = dist.get_rank(), dist.get_world_size()
    requests: list[Any] = [None] * world
    dist.all_gather_object(requests, (namespace, list(missing)))
    if any(ns != namespace for ns, _ in requests):
        others = sorted({ns for ns, _ in requests})
        raise RuntimeError(
            "sharded encoding: the ranks asked for different encoders or layers in the same step "
            f"({others}); every rank must make the same embedding calls (same model, options and inputs)."
        )
    union = list(dict.fromkeys(key for _, keys in requests for key in keys))
    if not union:
        return []
    gathered: list[Any] = [None] * world
    dist.all_gather_object(gathered, list(costs(union[rank::world])))
    loads: list[float] = [0] * len(union)
    for r, part in enumerate(gathered):
        loads[r::world] = part
    return list(zip(union, _shard_and_gather(compute, union, loads)))


def map_sharded(function: Callable[[list], Sequence[Any]], items: Sequence[Any], costs: Sequence[float]) -> list:
    """``function(items)`` as a list; when sharding is active, each rank applies ``function`` to its share of the
    items (:func:`split_by_cost` on ``costs``) and the results are gathered in order on every rank (a collective).

    ``function`` maps a list of items to one result per item and must not depend on which items share a call (e.g.
    MoverScore's exact transport problems, solved one by one).
    """
    if not active():
        return list(function(list(items)))
    return _shard_and_gather(function, items, costs)


def _shard_and_gather(function: Callable[[list], Sequence[Any]], items: Sequence[Any], costs: Sequence[float]) -> list:
    """:func:`map_sharded`'s collective part: this rank's share of ``items`` through ``function``, gathered in order."""
    import torch.distributed as dist

    rank, world = dist.get_rank(), dist.get_world_size()
    shard = split_by_cost(costs, world)[rank]
    local = list(function([items[k] for k in shard])) if shard else []
    gathered: list[Any] = [None] * world
    dist.all_gather_object(gathered, list(zip(shard, local)))
    out: list[Any] = [None] * len(items)
    for part in gathered:
        for k, value in part:
            out[k] = value
    return out


def fingerprint(*values: Any) -> str:
    """A SHA-256 of JSON-like values (strings, numbers, nested lists; anything else by ``repr``)."""
    return hashlib.sha256(json.dumps(values, default=repr, ensure_ascii=False).encode("utf-8")).hexdigest()


def check_same_inputs(*values: Any) -> None:
    """When sharding is active, raise ``ValueError`` on every rank unless every rank passed equal ``values``."""
    if not active():
        return
    import torch.distributed as dist

    digests: list[Any] = [None] * dist.get_world_size()
    dist.all_gather_object(digests, fingerprint(*values))
    differ = [r for r, d in enumerate(digests) if d != digests[0]]
    if differ:
        raise OptionError(
            f"distributed scoring needs the same predictions and references on every rank, but rank(s) {differ} "
            "differ from rank 0 (Trainer gathers them before compute_metrics). To score each rank's own data, "
            "pass distributed=False."
        )


def agree(value: T) -> T:
    """When sharding is active, rank 0's ``value`` on every rank (``broadcast_object_list``); else ``value``."""
    if not active():
        return value
    import torch.distributed as dist

    box = [value]
    dist.broadcast_object_list(box, src=0)
    return box[0]


def score_sharded(mode: bool | str | None, score: Callable[..., T], *inputs: Any) -> T:
    """``score(*inputs)`` under :func:`sharded_encoding` (``mode``): every rank must pass equal ``inputs``
    (:func:`check_same_inputs`) and all return rank 0's result (:func:`agree`). The scorers' one entry point."""
    with sharded_encoding(mode):
        check_same_inputs(*inputs)
        return agree(score(*inputs))
