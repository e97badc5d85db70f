"""Out of memory in a model forward: halve the batch and go on. The one home of this rule; every model forward loop
(the embedding engine for BERTScore/MoverScore, COMET, BLEURT, MetricX, the LLM judge's in-process backend) runs its
batches through it.

Rule: a batch whose forward raises the device's out-of-memory error (``torch.OutOfMemoryError``; or a
``RuntimeError`` saying "out of memory", as cuBLAS/cuDNN, MPS and older torch report it) is retried at half the batch
size, ``n -> n // 2``, after the allocator's cache is freed; the smaller size holds for the rest of the call. Each
halving warns once (one line: ``CUDA out of memory at batch 512; retrying at 256``). A single sequence that still
does not fit raises :class:`DeviceMemoryError` (a :class:`~nlgmetrics.errors.LimitError`: one line, exit 2 on the
command line) naming the fixes: shorter inputs, a smaller model, or the CPU.

Scores: the batches hold consecutive sequences of the same length-sorted order whatever their size, and each
sequence's outputs depend on its batch only through float32 rounding (matrix-multiply blocking chosen by shape).
Measured on CPU (tests/test_oom.py): BERTScore on the bundled MiniLM (packed forward) is bit-identical after halving
64 -> 32 -> 16; BLEURT and MetricX agree with the unhalved run to a relative 1e-6 (MetricX: |Δ| 1.7e-6 on 0..25).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar

import torch

from nlgmetrics.errors import LimitError

R = TypeVar("R")

_FIX = "use shorter inputs (a smaller max length), a smaller model, or the CPU (device='cpu')"


class DeviceMemoryError(LimitError):
    """The device ran out of memory with one sequence per forward: nothing smaller is left to try."""


def is_out_of_memory(error: BaseException) -> bool:
    """Whether ``error`` is a device running out of memory (CUDA, MPS, or a library reporting it as RuntimeError)."""
    kinds = tuple(k for k in (getattr(torch, "OutOfMemoryError", None), getattr(torch.cuda, "OutOfMemoryError", None))
                  if isinstance(k, type))
    if kinds and isinstance(error, kinds):
        return True
    return isinstance(error, RuntimeError) and "out of memory" in str(error).lower()


def free_device_memory() -> None:
    """Give the allocator's cached blocks back, so the smaller batch starts from a clean pool."""
    if torch.cuda.is_available():
        torch.cuda.empty_cache()
    mps = getattr(torch, "mps", None)
    if mps is not None and getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
        mps.empty_cache()


def _device_name(device: torch.device | str | None) -> str:
    kind = torch.device(device).type if device is not None else "cuda"
    return {"cuda": "CUDA", "mps": "MPS", "cpu": "CPU"}.get(kind, kind)


class _Halving:
    """The batch size of one call: halved on each out-of-memory error, never below 1."""

    def __init__(self, batch_size: int, device: torch.device | str | None, what: str, fix: str) -> None:
        self.size, self.device, self.what, self.fix = batch_size, _device_name(device), what, fix

    def after(self, error: BaseException, longest: int | None) -> None:
        """Called inside the ``except`` of an out-of-memory ``error``: raise if at 1, else halve (warned)."""
        if self.size <= 1:
            tokens = f" of {longest} tokens" if longest is not None else ""
            raise DeviceMemoryError(
                f"{self.device} out of memory with one sequence{tokens} per forward ({self.what}): the model does "
                f"not fit the device's free memory; {self.fix}."
            ) from error
        half = self.size // 2
        warnings.warn(f"{self.device} out of memory at batch {self.size}; retrying at {half}", UserWarning,
                      stacklevel=3)  # the loop's caller: after() <- halving_batches/halving_call <- it
        self.size = half


def halving_batches(
    lengths: Sequence[int],
    batch_size: int,
    forward: Callable[[list[int]], R],
    *,
    device: torch.device | str | None = None,
    what: str = "model forward",
    fix: str = _FIX,
    progress: str | None = None,
) -> Iterator[tuple[list[int], R]]:
    """``(batch, forward(batch))`` for batches of indices into ``lengths``: consecutive runs of the length-sorted
    order (longest first, as :func:`nlgmetrics.embed.encoder.plan_batches`), ``batch_size`` at a time, halved for the
    rest of the call whenever ``forward`` runs out of memory (the batch is then retried). ``forward`` must leave
    nothing behind when it raises (store its results only from what it returns). ``progress``: a tqdm description
    (the bar counts sequences, since batches change size)."""
    order = sorted(range(len(lengths)), key=lambda k: -lengths[k])
    state = _Halving(batch_size, device, what, fix)
    bar = None
    if progress and order:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(order), desc=progress, unit="seq")
    start = 0
    try:
        while start < len(order):
            batch = order[start : start + state.size]
            try:
                result = forward(batch)
            except Exception as error:  # noqa: BLE001 - only out of memory is handled; anything else re-raised
                if not is_out_of_memory(error):
                    raise
                state.after(error, max(lengths[k] for k in batch))
                failed = True
            else:
                failed = False
            if failed:  # outside the except block: the error's frames (and their tensors) are gone
                free_device_memory()
                continue
            start += len(batch)
            if bar is not None:
                bar.update(len(batch))
            yield batch, result
    finally:
        if bar is not None:
            bar.close()


def halving_call(
    call: Callable[[int], R],
    batch_size: int,
    *,
    device: torch.device | str | None = None,
    what: str = "model forward",
    fix: str = _FIX,
) -> R:
    """``call(batch_size)``, called again at half the size whenever it runs out of memory (the same rule as
    :func:`halving_batches`, for a loop that cannot be handed its batches one by one: the whole call is retried;
    batches run longest first, so an out-of-memory error comes almost always from the first batch)."""
    state = _Halving(batch_size, device, what, fix)
    while True:
        try:
            return call(state.size)
        except Exception as error:  # noqa: BLE001
            if not is_out_of_memory(error):
                raise
            state.after(error, None)
        free_device_memory()
