"""N-gram counting: per text with ``Counter`` (tuples built at C speed), or for a whole corpus at once as integers.

Corpus-wide, each n-gram gets a dense integer code (:func:`ngram_codes`) and each segment's clipped matches come
from one sort of reference and hypothesis keys ``segment * scale + code`` (:func:`segment_clipped_matches`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import repeat
from typing import Any

import numpy as np

from nlgmetrics.errors import LimitError


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
            code = np.full(len(prev), -1, dtype=np.int64)
            if tables is None:  # the table of these keys: each key's code is its rank
                table, rank = np.unique(keys, return_inverse=True)
                code[where] = rank.reshape(-1)
            else:
                table = tables[n - 1]
                position = np.minimum(np.searchsorted(table, keys), len(table) - 1)
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


# -- all pairs within groups (MBR utilities) ------------------------------------------------------------------------
def ngram_count_matrices(ids: np.ndarray, lens: np.ndarray, groups: np.ndarray, max_order: int,
                         base: int) -> list[Any]:
    """Per order n = 1..max_order, a sparse ``(n_texts, n_columns)`` CSR matrix of each text's n-gram counts.

    ``ids``/``lens``: the texts' item ids (characters or words, each in 0..base-1) concatenated, and items per text
    (as :func:`ngram_codes`); ``groups[t]``: the group of text ``t`` (non-decreasing). A column is one (group, n-gram)
    pair, so texts of different groups share no column and their products are zero without being computed.

    An n-gram's code is ``code(first n-1 items) * base + id(last item)`` while ``n_texts * width`` stays below 2^62
    (``width``: the codes' range), and its rank among the codes present (one sort) beyond."""
    from scipy.sparse import csr_matrix

    n_texts = len(lens)
    segment = np.repeat(np.arange(n_texts, dtype=np.int64), lens)
    left = np.repeat(np.cumsum(lens), lens) - np.arange(len(ids))  # items from each position to its text's end
    code, width = ids.astype(np.int64), max(int(base), 1)
    matrices = []
    for n in range(1, max_order + 1):
        if n > 1:
            if width * base * max(n_texts, 1) >= 2**62:  # too wide for int64 keys: rank the codes first
                _, code = np.unique(code, return_inverse=True)
                code, width = code.reshape(-1), len(code) + 1
                if width * base * max(n_texts, 1) >= 2**62:
                    raise LimitError(f"{n_texts} texts of {len(ids)} items in all are too many to count n-grams of "
                                     "in one call: score fewer at a time.")
            code = code[:-1] * base + ids[n - 1 :]
            width *= base
        inside = left[: len(code)] >= n
        cells, counts = np.unique(segment[: len(code)][inside] * width + code[inside], return_counts=True)
        rows, codes = cells // width, cells % width
        _, column = np.unique(groups[rows] * width + codes, return_inverse=True)
        indptr = np.concatenate(([0], np.cumsum(np.bincount(rows, minlength=n_texts))))
        matrices.append(csr_matrix((counts, column.reshape(-1), indptr),
                                   shape=(n_texts, int(column.max(initial=-1)) + 1)))
    return matrices


def pairwise_clipped_matches(counts: Any, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """``sum_g min(counts[rows[k], g], counts[cols[k], g])`` for every pair ``k`` (``counts``: a CSR matrix of
    :func:`ngram_count_matrices`), exact in integers.

    ``min(a, b) = sum_{t >= 1} [a >= t] [b >= t]``: with ``B_t`` the 0/1 matrix of counts of at least ``t``, the
    matches are ``sum_t (B_t B_t^T)[row, col]``: one sparse product per level ``t``, over the rows and columns the
    pairs name (most counts are 1, so the levels above the first are small)."""
    from scipy.sparse import csr_matrix

    row_ids, row_at = np.unique(rows, return_inverse=True)
    col_ids, col_at = np.unique(cols, return_inverse=True)
    row_at, col_at = row_at.reshape(-1), col_at.reshape(-1)
    same = np.array_equal(row_ids, col_ids)  # hypotheses are their own pseudo-references
    left = counts[row_ids]
    right = left if same else counts[col_ids]
    total = np.zeros(len(rows), dtype=np.int64)
    level = 1
    while left.nnz and right.nnz:
        a = _indicator(left)
        b = a if same else _indicator(right)
        total += np.asarray((a @ b.T)[row_at, col_at]).reshape(-1)
        level += 1
        left = _at_least(left, level)
        right = left if same else _at_least(right, level)
    return total


def _indicator(matrix: Any) -> Any:
    """The 0/1 matrix of ``matrix``'s stored entries."""
    ones = matrix.copy()
    ones.data = np.ones_like(ones.data)
    return ones


def _at_least(matrix: Any, level: int) -> Any:
    """``matrix`` without its entries below ``level``."""
    kept = matrix.copy()
    kept.data[kept.data < level] = 0
    kept.eliminate_zeros()
    return kept
