"""Embedding-based metrics on the shared engine (:mod:`nlgmetrics.embed`): BERTScore (greedy matching), MoverScore
(optimal transport), and BERTScore's baseline rescaling."""

from nlgmetrics.extras import require_extra

require_extra("embed", "nlgmetrics.semantic")  # a MissingExtraError, not ModuleNotFoundError


import os
import warnings

#: Pairs embedded and scored per step by BERTScore and MoverScore: long streams run in bounded memory (embeddings of
#: one chunk at a time; the shared cache, under its byte budget, keeps what repeats).
PAIR_CHUNK = 1024


def available_memory() -> int | None:
    """Bytes of memory available to new allocations (psutil when installed, else ``MemAvailable`` from
    /proc/meminfo, else free physical pages from ``os.sysconf``); ``None`` when it cannot be told."""
    try:
        import psutil

        return int(psutil.virtual_memory().available)
    except Exception:  # noqa: BLE001, S110 - not installed, or no support on this platform: read /proc
        pass
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return None


def warn_if_memory_short(estimate: float, what: str, fix: str, *, free: int | None = None, stacklevel: int = 3) -> bool:
    """Warn (``UserWarning``) when ``estimate`` bytes exceed ``free`` (default: :func:`available_memory`); returns
    whether it warned. ``what`` says what needs the memory, ``fix`` how to need less."""
    free = available_memory() if free is None else free
    if free is None or estimate <= free:
        return False
    warnings.warn(
        f"{what} needs an estimated {estimate / 2**30:.1f} GiB but only {free / 2**30:.1f} GiB of memory is "
        f"available: it may fail or be killed. {fix}",
        UserWarning,
        stacklevel=stacklevel,
    )
    return True


def release_freed_memory() -> None:
    """Hand freed heap memory back to the OS after a chunk (glibc ``malloc_trim``; a no-op elsewhere). Without it,
    glibc's fragmented heap lets a long stream's RSS creep up chunk after chunk even though the live data is bounded."""
    global _TRIM
    if _TRIM is None:
        import ctypes
        import ctypes.util

        try:
            _TRIM = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
        except (OSError, AttributeError):
            _TRIM = False
    if _TRIM:
        _TRIM(0)


_TRIM = None
