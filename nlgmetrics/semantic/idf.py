"""Inverse document frequency, as bert_score and MoverScore define it (one place for the formula)::

    idf(t) = log((N + 1) / (df(t) + 1))      df(t): texts of the corpus holding token id t (once per text), N: texts
                                            ids absent from the corpus: log(N + 1)

Counts are additive, so a corpus can be counted in parts (Ray batches) and summed before the idf is taken.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class DocumentFrequencies:
    """Document frequencies over a corpus of ``n`` texts: ``df[t]`` texts contain token id ``t`` (counted once per
    text; repeated texts count each time)."""

    n: int
    df: np.ndarray

    @classmethod
    def count(cls, token_ids: Iterable[Sequence[int]]) -> DocumentFrequencies:
        """The document frequencies of token-id sequences, one per text."""
        unique = [np.unique(np.asarray(ids, dtype=np.int64)) for ids in token_ids]
        flat = np.concatenate(unique) if unique else np.zeros(0, dtype=np.int64)
        return cls(len(unique), np.bincount(flat).astype(np.int64))

    def idf_dict(self) -> defaultdict:
        """``{t: idf(t)}`` for the ids seen, ``log(n + 1)`` for any other (bert_score's ``get_idf_dict`` form)."""
        unseen = math.log(self.n + 1)
        table: defaultdict = defaultdict(lambda: unseen)
        table.update({int(t): math.log((self.n + 1) / (int(self.df[t]) + 1)) for t in np.flatnonzero(self.df)})
        return table

    def idf_array(self, size: int) -> np.ndarray:
        """The same idf as a dense array over ids ``0 .. max(size, len(df)) - 1``."""
        df = np.zeros(max(size, len(self.df)), dtype=np.int64)
        df[: len(self.df)] = self.df
        return np.log((self.n + 1) / (df + 1.0))
