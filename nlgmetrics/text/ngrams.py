"""N-gram counting: per text with ``Counter`` (tuples built at C speed), or for a whole corpus at once as integers.

Corpus-wide, each n-gram gets a dense integer code (:func:`ngram_codes`) and each segment's clipped matches come
from one sort of reference and hypothesis keys ``segment * scale + code`` (:func:`segment_clipped_matches`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import repeat

import numpy as np


def ngram_counts(tokens: Sequence[str], max_order: int) -> list[Counter]:
    """Counts of the n-grams of each order 1..max_order, as one Counter per order.

    Unigrams are keyed by the token itself, higher orders by tuples (built by ``zip`` at C speed).
    """
    counts = [Counter(tokens)]
    for n in range(2, max_order + 1):
        counts.append(Counter(zip(*(tokens[i:] for i in range(n)))))
    return counts


def clipped_matches(hypothesis: Counter, reference_max: dict) -> int:
    """Sum over n-grams of min(count in hypothesis, maximum count in any reference)."""
    get = reference_max.get
    return sum(map(min, hypothesis.values(), map(get, hypothesis, repeat(0))))


def ngram_codes(
    ids: np.ndarray, lens: np.ndarray, max_order: int, base: int, tables: Sequence[np.ndarray] | None = None
) -> tuple[list[np.ndarray], list[tuple[np.ndarray, np.ndarray]]]:
    """Dense integer codes of the n-grams (orders 1..max_order) of many segments of token ids.

    ``ids``: the segments' token ids concatenated, each in 0..base-1, or -1 for a token no table knows; ``lens``:
    tokens per segment. A unigram's code is its id; an n-gram's is the index of ``code(its first n-1 tokens) * base
    + id(its last token)`` in the sorted ``tables[n-1]``, or -1 where that key is absent (so is every n-gram holding
    an unknown token). Without ``tables``, they are built from these n-grams (``tables[0]`` is unused: None).

    Returns the tables and, per order, ``(segment, code)`` of each n-gram that lies inside one segment and has a code.
    """
    segment = np.repeat(np.arange(len(lens), dtype=np.int64), lens)
    left = np.repeat(np.cumsum(lens), lens) - np.arange(len(ids))  # tokens from each position to its segment's end
    built: list[np.ndarray] = [None]  # type: ignore[list-item]
    found = []
    code = ids
    for n in range(1, max_order + 1):
        if n > 1:
            prev, last = code[:-1], ids[n - 1 :]
            inside = (prev >= 0) & (last >= 0) & (left[: len(prev)] >= n)
            where = np.flatnonzero(inside)
            keys = prev[where] * base + last[where]
            table = np.unique(keys) if tables is None else tables[n - 1]
            position = np.minimum(np.searchsorted(table, keys), len(table) - 1)
            code = np.full(len(prev), -1, dtype=np.int64)
            if len(table):
                hit = table[position] == keys
                code[where[hit]] = position[hit]
            built.append(table)
        keep = code >= 0
        found.append((segment[: len(code)][keep], code[keep]))
    return (built if tables is None else list(tables)), found


def segment_clipped_matches(reference: np.ndarray, hypothesis: np.ndarray, scale: int, n_segments: int) -> np.ndarray:
    """Per segment, sum over n-grams of min(hypothesis count, reference count).

    ``reference`` holds 2 x key of each reference n-gram, sorted; ``hypothesis`` the keys of the hypothesis n-grams;
    ``key // scale`` is the segment. Sorted together, with the hypothesis tagged odd, each key's r reference
    occurrences come just before its h hypothesis occurrences. From the last reference entry p of a key the
    hypothesis has too, entries p - k + 1 and p + k hold that key exactly for k = 1..min(r, h).
    """
    tagged = np.concatenate((reference, hypothesis * 2 + 1))
    tagged.sort()
    last = np.flatnonzero((tagged[1:] - tagged[:-1] == 1) & (tagged[:-1] & 1 == 0))
    matched, k = [last], 1
    while len(last):
        k += 1
        last = last[(last >= k - 1) & (last + k < len(tagged))]
        last = last[(tagged[last - k + 1] == tagged[last]) & (tagged[last + k] == tagged[last] + 1)]
        matched.append(last)
    return np.bincount((tagged[np.concatenate(matched)] >> 1) // scale, minlength=n_segments)
