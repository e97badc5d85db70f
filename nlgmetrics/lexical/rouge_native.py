"""rouge-score-rs (Rust) as the fast path of ROUGE-N/L/Lsum in the rouge_score flavor.

rouge-score-rs 0.2 (PyPI, Apache-2.0, a dependency; abi3 manylinux wheels) reimplements rouge_score 0.1.2 in Rust:
its tokenizer, nltk's Porter stemmer, LCS, rougeLsum's union LCS and ``score_multi``, float for float. Checked here
against our Python path (the reference, ``backend="python"``), which stays what defines the numbers:

- tokens, with and without the stemmer, identical on all 216,192 distinct texts of ``../shared/data`` (WMT17 in
  English, German, plus the ROUGE-1.5.5 documents; html-escaped and not), on every Unicode code point between two
  words (``str.lower`` mappings such as ``İ`` -> ``i̇`` and the Kelvin sign included) and on 300,000 random
  ``[a-z0-9]`` words (Porter's edge cases);
- per-example precision, recall and F identical (==) in ``tests/test_rouge_backend.py``: real WMT17 text with
  umlauts, multi-sentence documents, several references, empty texts, lone surrogates (rouge-score-rs replaces
  them with ``?``, a separator in both), stemmer on and off.

:func:`~nlgmetrics.lexical.rouge.compute_rouge` sends here only what it reproduces: types rouge1..rouge9, rougeL,
rougeLsum; rouge_score's tokenizer (the default); F1 (no alpha/beta); newline sentences (no ``split_summaries``);
one reference, or several with ``multi_ref="best"``. Everything else (W, S, SU, the unicode and whitespace
tokenizers, callables, alpha/beta, pooled references, the perl flavor) is ours, in Python. Two rules of our own:

- an example whose texts are all one line (no newline) has one sentence per text, where rougeLsum's union LCS is
  the LCS: its rougeLsum is its rougeL, computed once (as the Python path does). rouge-score-rs would fill a full
  LCS table for the union (1.5 GB at 20,000 words); its rougeL is bit-parallel.
- a multi-line example whose longest lines could need more than ``LSUM_NATIVE_CELLS`` LCS cells (estimated: a line
  of c characters has at most about (c + 1) / 2 tokens) stays on the Python path (bit-parallel columns, m n / 8
  bytes).

``score_batch`` runs on all cores (``RAYON_NUM_THREADS`` limits it) without the GIL.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from itertools import chain, repeat
from operator import contains, itemgetter
from typing import Any

import numpy as np

try:
    from rouge_score_rs import RougeScorer as _NativeScorer
except ImportError:  # a platform without its wheel: every example takes the Python path
    _NativeScorer = None

AVAILABLE = _NativeScorer is not None
LSUM_NATIVE_CELLS = 2**24  # rouge-score-rs's union-LCS table for one sentence pair: about 4 bytes a cell


@lru_cache(maxsize=64)
def _scorer(rouge_types: tuple[str, ...], use_stemmer: bool) -> Any:  # a rouge_score_rs.RougeScorer
    return _NativeScorer(list(rouge_types), use_stemmer=use_stemmer)


def _longest_line(text: str) -> int:
    return max(map(len, text.split("\n")))


def _lsum_cells(prediction: str, references: Sequence[str]) -> int:
    """About the most LCS cells one sentence pair of rougeLsum can need (tokens <= (characters + 1) / 2)."""
    return ((_longest_line(prediction) + 1) // 2) * ((max(map(_longest_line, references)) + 1) // 2)


def score_into(
    values: np.ndarray,
    predictions: Sequence[str],
    references: Sequence[Sequence[str]],
    names: Sequence[str],
    use_stemmer: bool,
    multi_ref: str = "best",
) -> list[int]:
    """Fill ``values[i, 3 t + c]`` (type ``names[t]``; c = precision, recall, F) for the examples rouge-score-rs
    scores; return the indices of the others, for the Python path (several references pooled with
    ``multi_ref="average"``; multi-line texts over ``LSUM_NATIVE_CELLS``). ``names``: rouge1..9, rougeL, rougeLsum."""
    one_line = tuple("rougeL" if name == "rougeLsum" else name for name in names)  # one sentence: Lsum is L
    texts = chain(predictions, chain.from_iterable(references))
    lines = "rougeLsum" in names and any(map(contains, texts, repeat("\n")))
    if not lines and multi_ref == "best":  # the common case: every example in one batch
        _fill(values, range(len(predictions)), one_line, predictions, references, use_stemmer)
        return []
    groups: dict[tuple[str, ...], list[int]] = {one_line: [], tuple(names): []}
    rest: list[int] = []
    for i, (prediction, refs) in enumerate(zip(predictions, references)):
        if len(refs) > 1 and multi_ref != "best":
            rest.append(i)
        elif not lines or ("\n" not in prediction and not any("\n" in ref for ref in refs)):
            groups[one_line].append(i)
        elif _lsum_cells(prediction, refs) > LSUM_NATIVE_CELLS:
            rest.append(i)
        else:
            groups[tuple(names)].append(i)
    for keys, rows in groups.items():
        if rows:
            _fill(values, rows, keys, predictions, references, use_stemmer)
    return rest


def _fill(
    values: np.ndarray,
    rows: Sequence[int],
    keys: tuple[str, ...],
    predictions: Sequence[str],
    references: Sequence[Sequence[str]],
    use_stemmer: bool,
) -> None:
    """Score the examples ``rows`` asking rouge-score-rs for the distinct ``keys``; column t of ``values`` reads
    ``keys[t]``."""
    scorer = _scorer(tuple(dict.fromkeys(keys)), use_stemmer)
    pick = itemgetter(*keys) if len(keys) > 1 else lambda score: (score[keys[0]],)  # type -> (P, R, F) tuples
    single = [i for i in rows if len(references[i]) == 1]
    several = [i for i in rows if len(references[i]) > 1] if len(single) < len(rows) else []
    for ids, scores in (
        (single, scorer.score_batch([references[i][0] for i in single], [predictions[i] for i in single])),
        (several, [scorer.score_multi(references[i], predictions[i]) for i in several]),
    ):
        if ids:
            flat = chain.from_iterable(chain.from_iterable(map(pick, scores)))
            values[ids] = np.fromiter(flat, np.float64, 3 * len(keys) * len(ids)).reshape(len(ids), -1)
