"""N-gram counting without per-n-gram Python objects beyond the tuples themselves."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import repeat


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
