"""Embedding-based metrics on the shared engine (:mod:`nlgmetrics.embed`): BERTScore (greedy matching), MoverScore
(optimal transport), and BERTScore's baseline rescaling."""

#: Pairs embedded and scored per step by BERTScore and MoverScore: long streams run in bounded memory (embeddings of
#: one chunk at a time; the shared cache, under its byte budget, keeps what repeats).
PAIR_CHUNK = 1024


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
