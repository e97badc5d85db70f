"""ROUGE (Lin, 2004): N, L, Lsum (rouge_score 0.1.2-exact), W, S and SU: the rouge_score flavor and the counting
that ROUGE-1.5.5's flavor (:mod:`nlgmetrics.lexical.rouge155`) builds on. The public entry is
:func:`nlgmetrics.lexical.rouge.compute_rouge`, which picks the flavor; this module imports neither of those.

Flow: text -> tokens (:mod:`nlgmetrics.text.rouge_tokenize`; rouge_score's by default, as HF evaluate) -> per
reference, one statistic triple ``(hit, ref_total, pred_total)`` per ROUGE type -> precision, recall, F per example
-> one aggregate per key (:func:`aggregate`) or per-example lists. This file is the reference implementation
(``backend="python"``); by default rouge-score-rs computes the per-example scores where it gives the same floats
(ROUGE-N/L/Lsum, rouge_score's tokenizer, F1, best reference: :func:`native_refusal`,
:mod:`nlgmetrics.lexical.rouge_native`)::

    P = g(hit / pred_total)      R = g(hit / ref_total)      (0 when the total is 0; g is x -> x, or f^-1 for W)
    F = 2PR / (P + R)                                         (0 when P + R = 0; rouge_score's formula)
    F_alpha = PR / ((1 - alpha) P + alpha R)                  (ROUGE-1.5.5's -p alpha; alpha=0.5 is F above)
    F_beta  = (1 + beta^2) PR / (beta^2 P + R)                (Lin 2004; beta = 1 is F above)

The types (X = reference tokens, length m; Y = prediction tokens, length n):

- ``rouge1`` .. ``rouge9`` (ROUGE-N): hit = sum over n-grams g of min(count_X(g), count_Y(g)); totals are the n-gram
  counts of X and Y.
- ``rougeL`` (sentence-level LCS): hit = LCS(X, Y); totals m and n. Computed bit-parallel (Hyyro 2004): with one bit
  per reference position and M[t] the positions of token t, each prediction token updates
  ``V <- (V + (V & M[t])) | (V & ~M[t])``; LCS = m - popcount(V).
- ``rougeLsum`` (summary-level LCS, Lin 2004 section 3.2 as ROUGE-1.5.5 implements it): texts are split on newlines
  (empty lines dropped); for each reference sentence r_i the union of one LCS with every prediction sentence is taken
  (rouge_score's backtrack picks which LCS), and its tokens count as hits while both texts still have that token
  unused (no double counting); totals are the token counts. Without newlines it is rouge_score's rougeLsum of one
  sentence, which equals rougeL. ``split_summaries=True`` takes the sentences from nltk's ``sent_tokenize`` instead,
  as rouge_score's option of that name.
- ``rougeW`` (weighted LCS, Lin 2004 section 3.3), ``f(k) = k^w`` (``weight_factor`` w, default 1.2): the dynamic
  program ``c(i,j) = c(i-1,j-1) + f(k+1) - f(k)`` on a match (k = length of the run of consecutive matches ending at
  (i-1, j-1)), else ``max(c(i-1,j), c(i,j-1))`` with the run reset; hit = c(m,n), totals f(m) and f(n), g = f^-1,
  i.e. ``R = (WLCS / m^w)^(1/w)``. ``rougeW-1.5`` sets w for that type. Long texts: the cells of one anti-diagonal
  (i + j = d) depend only on the two diagonals before it, so numpy computes a diagonal at once (same floats).
- ``rougeS<d>`` / ``rougeS*`` (skip-bigrams, section 5): every ordered pair of tokens (x_i, x_j), i < j, with at most
  d tokens between them (j - i <= d + 1, ROUGE-1.5.5's ``-2 d``), or any distance for ``*``; hit = clipped pair
  matches; totals the pair counts (C(m,2) for ``*``). Long texts (over ``SKIP_PAIR_LIMIT`` pairs) are counted without
  listing pairs: over the vocabulary V shared by both texts, c(a, b) = sum over positions i of a of the count of b in
  the window after i, read off prefix counts of b (:func:`skip_bigram_hits`): O((m + n) V) time, bounded memory.
- ``rougeSU<d>`` / ``rougeSU*``: skip-bigrams plus unigrams, both counted in hit and totals.

Where ROUGE-1.5.5 (the perl script) differs from the paper, and what we follow:

- ROUGE-SU: perl's ``-u`` adds the unigrams of all tokens except the last one (its loop stops one token early), so a
  one-word text has no unit at all; the paper adds every unigram. We follow the paper.
- ROUGE-W: perl runs the paper's dynamic program (with ties going "up" instead of "left") only to mark one WLCS in
  the reference, then scores that marking by runs of consecutive *reference* positions, so two matches that are
  adjacent in the reference but not in the prediction count as one run; it also clips hits by unigram counts across
  reference sentences. We follow the paper: WLCS = c(m, n), the text as one sequence.
- Skip distance: the paper leaves the denominator of a distance-limited ROUGE-S implicit; we follow perl and divide
  by the number of skip-bigrams within the distance (equal to the paper's C(m,2) when unlimited).
- ROUGE-S/SU treat the whole text as one sequence (as perl does: pairs may cross sentence boundaries).
- Several references: ``multi_ref="best"`` is rouge_score's ``score_multi`` (per type, the reference with the highest
  F; the first on ties). ``multi_ref="average"`` is perl's default ``-f A``: hits and totals are summed over the
  references, then P/R/F (longer references weigh more). Perl's ``-f B`` picks the best reference by recall, not F.

Aggregation over examples (``use_aggregator=True``), one place, :func:`aggregate`:

- ``aggregator="mean"`` (the core's default): the exact mean, ``fsum / n``.
- ``aggregator="bootstrap"`` (HF evaluate's ``rouge``, the default of ``metrics/rouge``): rouge_score's
  ``BootstrapAggregator`` mid. For each type in turn, 1000 times ``np.random.choice(np.arange(n), size=n)`` from
  numpy's legacy global RNG and the mean of those rows, then the 50th percentile of the 1000 means
  (:func:`rouge_score_bootstrap`, call for call). evaluate seeds the global RNG with the module's ``seed`` around
  ``_compute``; ``numpy_seed`` does the same here (state restored after), so the same seed gives HF's exact floats.
- ``n_bootstrap`` intervals are separate: ``numpy.random.default_rng(seed)`` resamples (as BLEU and NIST), whatever the
  aggregator.
"""

from __future__ import annotations

import math
import numbers
import os
import re
import threading
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import chain, repeat
from typing import Any

import numpy as np

from nlgmetrics.errors import LimitError, OptionError, OptionTypeError
from nlgmetrics._quiet import warn
from nlgmetrics.inputs import check_pairs
from nlgmetrics.lexical import rouge_native
from nlgmetrics.options import MAX_BETA, check_flag, check_real
from nlgmetrics.stats import DEFAULT_SEED, bootstrap_indices, check_resamples
from nlgmetrics.text.rouge_tokenize import (
    RougeTokenizer,
    TokenizerSpec,
    count_lost_letters,
    get_rouge_tokenizer,
    is_default_tokenizer,
    tokenizer_for_lang,
)

DEFAULT_ROUGE_TYPES = ("rouge1", "rouge2", "rougeL", "rougeLsum")
DEFAULT_WEIGHT_FACTOR = 1.2
MAX_WEIGHT_FACTOR = 16.0  # k**16 stays finite for every run length k below 10**19
AGGREGATORS = ("mean", "bootstrap")
BACKENDS = ("auto", "native", "python")
BACKEND_ENV = "NLGMETRICS_ROUGE_BACKEND"  # the default of ``backend`` (else "auto")
ROUGE_SCORE_SAMPLES = 1000  # rouge_score's BootstrapAggregator(n_samples=1000, confidence_interval=0.95)
ROUGE_SCORE_CONFIDENCE = 0.95
SKIP_PAIR_LIMIT = 2**18  # skip-bigrams per text above which ROUGE-S counts come from prefix sums, not a Counter
SKIP_BLOCK_ELEMENTS = 2**20  # integers per (positions x token types) block of the prefix-sum count
WLCS_PYTHON_CELLS = 2**12  # dynamic-program cells up to which ROUGE-W runs the plain loop (numpy diagonals above)
# Long-text limits (about a minute on one core; raise them here to go further): ROUGE-W's m * n cells, ROUGE-S's
# (m + n) * shared-vocabulary prefix-sum work. 20,000-word texts take a few seconds and under 100 MiB.
WLCS_MAX_CELLS = 2**32
SKIP_MAX_WORK = 2**32

_TYPE_PATTERN = re.compile(r"rouge(?:(?P<n>[1-9])|(?P<l>L|Lsum)|W(?:-(?P<w>\d+(?:\.\d+)?))?|(?P<s>SU|S)(?P<d>\d+|\*))")
_TYPE_HELP = (
    "rouge1..rouge9, rougeL, rougeLsum, rougeW (or rougeW-<weight>, e.g. rougeW-1.5), rougeS<d> / rougeSU<d> "
    "(d = maximum number of tokens skipped, e.g. rougeS4, rougeSU4) or rougeS* / rougeSU* (no limit)"
)


# ---------------------------------------------------------------------------------------------------------------------
# Type specification
@dataclass(frozen=True)
class RougeType:
    """A parsed ROUGE type name: ``kind`` is one of N, L, Lsum, W, S; ``n`` the n-gram order (N), ``weight`` (W),
    ``skip`` the maximum skip distance (S; None = unlimited) and ``unigrams`` (SU)."""

    name: str
    kind: str
    n: int = 0
    weight: float = 0.0
    skip: int | None = None
    unigrams: bool = False


def parse_rouge_type(name: object, weight_factor: float = DEFAULT_WEIGHT_FACTOR) -> RougeType:
    """Parse ``rouge1``, ``rougeL``, ``rougeLsum``, ``rougeW``, ``rougeW-1.5``, ``rougeS4``, ``rougeSU*``, ..."""
    if not isinstance(name, str):
        raise OptionTypeError(f"a ROUGE type must be a string such as 'rouge1', got {type(name).__name__} {name!r:.40}.")
    match = _TYPE_PATTERN.fullmatch(name)
    if match is None:
        raise OptionError(f"invalid ROUGE type {name!r}; valid types are {_TYPE_HELP}.")
    if match["n"]:
        return RougeType(name, "N", n=int(match["n"]))
    if match["l"]:
        return RougeType(name, match["l"])
    if match["s"]:
        skip = None if match["d"] == "*" else int(match["d"])
        return RougeType(name, "S", skip=skip, unigrams=match["s"] == "SU")
    weight = float(match["w"]) if match["w"] else weight_factor
    _check_weight(weight)
    return RougeType(name, "W", weight=weight)


def _check_weight(weight: object) -> None:
    check_real("weight_factor", weight, 1, MAX_WEIGHT_FACTOR,
               "f(k) = k^w; 1 gives plain LCS, ROUGE-1.5.5 uses 1.2; k^w stays finite for any text up to this bound")


# ---------------------------------------------------------------------------------------------------------------------
# Statistics: each returns (hit, ref_total, pred_total)
class _TooLong(ValueError):
    """A text pair above a long-text limit (re-raised by compute_rouge_score with the example's index)."""


def ngram_counter(tokens: Sequence[str], n: int) -> Counter:
    """Counts of the n-grams of ``tokens`` (unigrams keyed by the token, higher orders by tuples)."""
    if n == 1:
        return Counter(tokens)
    return Counter(zip(*(tokens[i:] for i in range(n))))


def overlap(a: Counter, b: Counter) -> int:
    """Clipped matches: sum over keys of min(a[k], b[k])."""
    if len(a) > len(b):
        a, b = b, a
    return sum(map(min, a.values(), map(b.get, a.keys(), repeat(0))))


def lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the longest common subsequence, bit-parallel (one bit per token of the longer sequence)."""
    if len(a) < len(b):
        a, b = b, a
    if not b:
        return 0
    masks: dict[str, int] = {}
    get = masks.get
    for i, token in enumerate(a):
        masks[token] = get(token, 0) | (1 << i)
    v = (1 << len(a)) - 1
    for token in b:
        match = get(token)
        if match:
            u = v & match
            v = (v + u) | (v - u)  # carries past bit len(a) never reach the low bits; masked below
    return len(a) - (v & ((1 << len(a)) - 1)).bit_count()


def lcs_positions(ref: Sequence[str], can: Sequence[str]) -> list[int]:
    """Reference positions of one LCS of ``ref`` and ``can``: the one rouge_score's backtrack reads out.

    Column j of the LCS table is the bit vector after j candidate tokens: ``t[i][j] = i - popcount(V_j mod 2^i)``.
    The backtrack starts at (m, n): a token match goes diagonal, else left when ``t[i][j-1] > t[i-1][j]``, else up.
    """
    m, n = len(ref), len(can)
    if not m or not n:
        return []
    masks: dict[str, int] = {}
    get = masks.get
    for i, token in enumerate(ref):
        masks[token] = get(token, 0) | (1 << i)
    v = (1 << m) - 1
    columns = [v]
    for token in can:
        match = get(token)
        if match:
            u = v & match
            v = (v + u) | (v - u)
        columns.append(v)
    positions = []
    i, j = m, n
    while i > 0 and j > 0:
        if ref[i - 1] == can[j - 1]:
            positions.append(i - 1)
            i -= 1
            j -= 1
        else:
            low = (1 << (i - 1)) - 1
            left = i - (columns[j - 1] & ((1 << i) - 1)).bit_count()  # t[i][j-1]
            up = i - 1 - (columns[j] & low).bit_count()  # t[i-1][j]
            if left > up:
                j -= 1
            else:
                i -= 1
    return positions


def summary_lcs_hits(ref_sents: Sequence[Sequence[str]], can_sents: Sequence[Sequence[str]]) -> tuple[int, int, int]:
    """ROUGE-Lsum statistics: union-LCS hits over reference sentences, clipped by token counts; (hits, m, n)."""
    m = sum(map(len, ref_sents))
    n = sum(map(len, can_sents))
    if not ref_sents or not can_sents or not m or not n:
        return 0, m, n
    if len(ref_sents) == 1 and len(can_sents) == 1:
        # one LCS, a common subsequence, never uses a token more often than either text has it: no clipping
        return lcs_length(ref_sents[0], can_sents[0]), m, n
    left_ref = Counter(token for sent in ref_sents for token in sent)
    left_can = Counter(token for sent in can_sents for token in sent)
    hits = 0
    for ref in ref_sents:
        union: set[int] = set()
        for can in can_sents:
            union.update(lcs_positions(ref, can))
        for position in union:
            token = ref[position]
            if left_can[token] > 0 and left_ref[token] > 0:
                hits += 1
                left_can[token] -= 1
                left_ref[token] -= 1
    return hits, m, n


def wlcs(ref: Sequence[str], can: Sequence[str], weight: float) -> float:
    """Weighted LCS of Lin (2004), f(k) = k^weight: the value c(m, n) of the paper's dynamic program.

    ``c(i,j) = c(i-1,j-1) + f(k+1) - f(k)`` on a match (k = the run of matches ending at (i-1, j-1)), else
    ``max(c(i-1,j), c(i,j-1))`` with the run reset. Up to ``WLCS_PYTHON_CELLS`` cells a plain loop, above it the same
    cell updates one anti-diagonal at a time in numpy (every cell of a diagonal depends only on the two before it),
    which gives the same floats: O(m n) time, O(m) memory.
    """
    m, n = len(ref), len(can)
    if not m or not n:
        return 0.0
    if m * n > WLCS_MAX_CELLS:
        raise _TooLong(
            f"rougeW of a {m}-token reference and a {n}-token prediction needs {m * n:.3g} dynamic-program cells, "
            f"more than nlgmetrics.lexical.rouge_core.WLCS_MAX_CELLS = {WLCS_MAX_CELLS:.3g} (about a minute): score "
            "shorter segments (e.g. one per paragraph or document), use rougeL (bit-parallel, fast at any length), or "
            "raise that limit."
        )
    gain = [(k + 1) ** weight - k**weight for k in range(min(m, n) + 1)]
    if m * n > WLCS_PYTHON_CELLS:
        return _wlcs_by_diagonals(ref, can, gain)
    prev_c = [0.0] * (n + 1)
    prev_k = [0] * (n + 1)
    for x in ref:
        cur_c = [0.0] * (n + 1)
        cur_k = [0] * (n + 1)
        for j in range(1, n + 1):
            if x == can[j - 1]:
                k = prev_k[j - 1]
                cur_c[j] = prev_c[j - 1] + gain[k]
                cur_k[j] = k + 1
            elif prev_c[j] > cur_c[j - 1]:
                cur_c[j] = prev_c[j]
            else:
                cur_c[j] = cur_c[j - 1]
        prev_c, prev_k = cur_c, cur_k
    return prev_c[n]


def _wlcs_by_diagonals(ref: Sequence[str], can: Sequence[str], gain: list[float]) -> float:
    """:func:`wlcs`'s dynamic program over anti-diagonals d = i + j. Diagonal arrays are indexed by i; cell (i, j)
    reads up = c(i-1, j) and left = c(i, j-1) from diagonal d-1 (indices i-1, i) and c(i-1, j-1), k(i-1, j-1) from
    diagonal d-2 (index i-1). Index 0 (i = 0) and index d (j = 0) hold the zero border."""
    m, n = len(ref), len(can)
    ids: dict[str, int] = {}
    x = np.fromiter((ids.setdefault(t, len(ids)) for t in ref), dtype=np.int64, count=m)
    y_rev = np.fromiter((ids.get(t, -1) for t in reversed(can)), dtype=np.int64, count=n)  # y[j-1] = y_rev[n-j]
    gains = np.asarray(gain, dtype=np.float64)
    c = [np.zeros(m + 1) for _ in range(3)]  # diagonals d-2, d-1, d (rotated)
    k = [np.zeros(m + 1, dtype=np.int64) for _ in range(3)]
    for d in range(2, m + n + 1):
        c2, c1, c0 = c
        k2, k1, k0 = k
        lo, hi = max(1, d - n), min(m, d - 1)
        match = x[lo - 1 : hi] == y_rev[n - d + lo : n - d + hi + 1]
        run = k2[lo - 1 : hi]
        c0[lo : hi + 1] = np.where(match, c2[lo - 1 : hi] + gains[run], np.maximum(c1[lo - 1 : hi], c1[lo : hi + 1]))
        k0[lo : hi + 1] = np.where(match, run + 1, 0)
        if hi < m:  # cell (hi + 1, j = d - hi - 1 = 0 when hi = d - 1): border, read by the next two diagonals
            c0[hi + 1] = 0.0
            k0[hi + 1] = 0
        c = [c1, c0, c2]
        k = [k1, k0, k2]
    return float(c[1][m])


def skip_bigram_counter(tokens: Sequence[str], skip: int | None, unigrams: bool = False) -> Counter:
    """Skip-bigrams (x_i, x_j), i < j, j - i <= skip + 1 (any j for ``skip=None``), plus unigrams for ROUGE-SU."""
    counts: Counter = Counter()
    last = len(tokens) - 1 if skip is None else min(skip + 1, len(tokens) - 1)
    for gap in range(1, last + 1):
        counts.update(zip(tokens, tokens[gap:]))
    if unigrams:
        counts.update(tokens)
    return counts


def skip_bigram_total(length: int, skip: int | None) -> int:
    """How many skip-bigrams a text of ``length`` tokens has: sum over gaps g = 1 .. min(skip + 1, length - 1) of
    (length - g); C(length, 2) for ``skip=None``."""
    last = max(0, length - 1 if skip is None else min(skip + 1, length - 1))
    return last * length - last * (last + 1) // 2


def skip_bigram_hits(ref: Sequence[str], pred: Sequence[str], skip: int | None) -> int:
    """Clipped skip-bigram matches, sum over pairs (a, b) of min(c_ref(a, b), c_pred(a, b)), without listing pairs.

    Only tokens found in both texts can match; over that shared vocabulary (ids 0..V-1),
    ``c(a, b) = sum over positions i with x_i = a of (P[min(i + skip + 2, m), b] - P[i + 1, b])``, where ``P[r, b]``
    counts b among the first r tokens (``P[m]`` for ``skip=None``). ``P`` is built for a block of b columns at a
    time, its rows are summed per a (``np.add.reduceat`` over positions sorted by token), and the two texts' (V, block)
    counts are clipped and added: O((m + n) V) time, O((m + n) block) memory, integers throughout (exact).
    """
    shared = set(ref).intersection(pred)
    if not shared:
        return 0
    work = (len(ref) + len(pred)) * len(shared)
    if work > SKIP_MAX_WORK:
        raise _TooLong(
            f"skip-bigrams of a {len(ref)}-token reference and a {len(pred)}-token prediction sharing {len(shared)} "
            f"words need {work:.3g} counting steps, more than nlgmetrics.lexical.rouge_core.SKIP_MAX_WORK = "
            f"{SKIP_MAX_WORK:.3g} (about a minute): score shorter segments (e.g. one per paragraph or document), or "
            "raise that limit."
        )
    vocab = {token: i for i, token in enumerate(shared)}
    texts = [_SkipText(np.fromiter((vocab.get(t, -1) for t in tokens), np.int64, len(tokens)), skip)
             for tokens in (ref, pred)]
    block = max(1, SKIP_BLOCK_ELEMENTS // (max(len(ref), len(pred)) + 1))
    hits = 0
    for low in range(0, len(vocab), block):
        high = min(len(vocab), low + block)
        hits += int(np.minimum(texts[0].counts(low, high), texts[1].counts(low, high)).sum())
    return hits


class _SkipText:
    """One text's token ids (-1: not shared), its shared positions grouped by token: :func:`skip_bigram_hits`."""

    def __init__(self, ids: np.ndarray, skip: int | None) -> None:
        self.ids = ids
        self.skip = skip
        positions = np.flatnonzero(ids >= 0)
        first = positions[np.argsort(ids[positions], kind="stable")]  # positions i, grouped by token a = 0..V-1
        sorted_ids = ids[first]
        self.starts = np.flatnonzero(np.r_[True, sorted_ids[1:] != sorted_ids[:-1]])  # every a occurs: V groups
        self.occurrences = np.diff(np.r_[self.starts, len(first)])[:, None]
        self.low_rows = first + 1
        self.high_rows = None if skip is None else np.minimum(first + skip + 2, len(ids))

    def counts(self, low: int, high: int) -> np.ndarray:
        """(V, high - low) int64: c(a, b) for every shared a and b in [low, high)."""
        ids = self.ids
        prefix = np.zeros((len(ids) + 1, high - low), dtype=np.int32)
        at = np.flatnonzero((ids >= low) & (ids < high))
        prefix[at + 1, ids[at] - low] = 1
        np.cumsum(prefix, axis=0, out=prefix)
        before = np.add.reduceat(prefix[self.low_rows], self.starts, axis=0, dtype=np.int64)
        if self.high_rows is None:  # every later position: occurrences(a) * P[m] - sum of P[i + 1]
            return self.occurrences * prefix[-1].astype(np.int64) - before
        return np.add.reduceat(prefix[self.high_rows], self.starts, axis=0, dtype=np.int64) - before


# ---------------------------------------------------------------------------------------------------------------------
# Scores
def fmeasure(precision: float, recall: float, alpha: float | None = None, beta: float | None = None) -> float:
    """F from precision and recall: rouge_score's 2PR/(P+R), or weighted by ``alpha`` (perl) or ``beta`` (paper)."""
    if beta is not None:
        if beta == 1:
            return 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
        b2 = beta * beta
        denominator = b2 * precision + recall
        return (1 + b2) * precision * recall / denominator if denominator > 0 else 0.0
    if alpha is None or alpha == 0.5:
        return 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    denominator = (1 - alpha) * precision + alpha * recall
    return precision * recall / denominator if denominator > 0 else 0.0


def _ratio(hit: float, total: float, weight: float) -> float:
    if not total:
        return 0.0
    value = hit / total
    return value ** (1.0 / weight) if weight else value


def summary_sentences(text: str, split_summaries: bool = False) -> list[str]:
    """rouge_score's sentences of ``text`` for rougeLsum: its lines, or with ``split_summaries`` nltk's
    ``sent_tokenize`` (English Punkt, provisioned offline by :func:`nlgmetrics.resources.ensure_punkt`) of the whole
    text; empty ones dropped."""
    if split_summaries:
        import nltk

        sentences = nltk.sent_tokenize(text)
    else:
        sentences = text.split("\n")
    return [sentence for sentence in sentences if sentence]


class _Example:
    """Lazily computed token views of one text (n-gram counters, sentences, skip-bigrams), shared across types."""

    __slots__ = ("text", "tokens", "tokenize", "split_summaries", "_ngrams", "_sents", "_skips")

    def __init__(self, text: str, tokenize: RougeTokenizer, split_summaries: bool = False) -> None:
        self.text = text
        self.tokenize = tokenize
        self.split_summaries = split_summaries
        self.tokens = tokenize(text)
        self._ngrams: dict[int, Counter] = {}
        self._sents: list[tuple[str, ...]] | None = None
        self._skips: dict[tuple, Counter] = {}

    def ngrams(self, n: int) -> Counter:
        counts = self._ngrams.get(n)
        if counts is None:
            counts = self._ngrams[n] = ngram_counter(self.tokens, n)
        return counts

    def one_line(self) -> bool:
        """Whether rougeLsum sees one sentence (or none): no newline, no sentence splitting."""
        return not self.split_summaries and "\n" not in self.text

    def sentences(self) -> list[tuple[str, ...]]:
        if self._sents is None:
            self._sents = [self.tokenize(s) for s in summary_sentences(self.text, self.split_summaries)]
        return self._sents

    def skips(self, skip: int | None, unigrams: bool) -> Counter:
        key = (skip, unigrams)
        counts = self._skips.get(key)
        if counts is None:
            counts = self._skips[key] = skip_bigram_counter(self.tokens, skip, unigrams)
        return counts


def type_statistics(
    rouge_type: RougeType, ref: _Example, pred: _Example, memo: dict | None = None
) -> tuple[float, float, float]:
    """``(hit, ref_total, pred_total)`` of one ROUGE type for one reference and one prediction (``memo``: a dict
    shared by the types of one pair, so rougeL and one-line rougeLsum compute the LCS once)."""
    kind = rouge_type.kind
    if kind == "N":
        n = rouge_type.n
        return (
            overlap(ref.ngrams(n), pred.ngrams(n)),
            max(len(ref.tokens) - n + 1, 0),
            max(len(pred.tokens) - n + 1, 0),
        )
    if kind == "L" or (kind == "Lsum" and ref.one_line() and pred.one_line()):
        # a one-line text is one sentence (or none, when empty): rougeLsum's statistics are rougeL's
        if memo is not None and "L" in memo:
            return memo["L"]
        stats = (lcs_length(ref.tokens, pred.tokens), len(ref.tokens), len(pred.tokens))
        if memo is not None:
            memo["L"] = stats
        return stats
    if kind == "Lsum":
        return summary_lcs_hits(ref.sentences(), pred.sentences())
    m, n = len(ref.tokens), len(pred.tokens)
    if kind == "W":
        w = rouge_type.weight
        return wlcs(ref.tokens, pred.tokens, w), float(m) ** w, float(n) ** w
    skip, unigrams = rouge_type.skip, rouge_type.unigrams
    ref_total, pred_total = skip_bigram_total(m, skip), skip_bigram_total(n, skip)
    if max(ref_total, pred_total) <= SKIP_PAIR_LIMIT:
        hit = overlap(ref.skips(skip, unigrams), pred.skips(skip, unigrams))  # unigram keys never equal pair keys
    else:  # long texts: count without listing the pairs
        hit = skip_bigram_hits(ref.tokens, pred.tokens, skip)
        if unigrams:
            hit += overlap(ref.ngrams(1), pred.ngrams(1))
    if unigrams:
        return hit, ref_total + m, pred_total + n
    return hit, ref_total, pred_total


def scores_from_statistics(
    rouge_type: RougeType, stats: tuple[float, float, float], alpha: float | None = None, beta: float | None = None
) -> tuple[float, float, float]:
    """(precision, recall, F) from ``(hit, ref_total, pred_total)``."""
    hit, ref_total, pred_total = stats
    weight = rouge_type.weight if rouge_type.kind == "W" else 0.0
    precision = _ratio(hit, pred_total, weight)
    recall = _ratio(hit, ref_total, weight)
    return precision, recall, fmeasure(precision, recall, alpha, beta)


@dataclass(frozen=True)
class RougeScorer:
    """A ROUGE configuration; :meth:`score` gives per-example (precision, recall, F) for every type."""

    rouge_types: tuple[RougeType, ...]
    tokenize: RougeTokenizer
    multi_ref: str = "best"
    alpha: float | None = None
    beta: float | None = None
    split_summaries: bool = False
    tokenizer_name: str | None = None  # the built-in tokenizer's name; None for a callable
    use_stemmer: bool = False

    def score(self, prediction: str, references: Sequence[str]) -> dict[str, tuple[float, float, float]]:
        """Scores of one prediction against its references (best reference per type, or pooled averaging)."""
        pred = _Example(prediction, self.tokenize, self.split_summaries)
        refs = [_Example(ref, self.tokenize, self.split_summaries) for ref in references]
        out = {}
        memos: list[dict] = [{} for _ in refs]
        for rouge_type in self.rouge_types:
            per_ref = [type_statistics(rouge_type, ref, pred, memo) for ref, memo in zip(refs, memos)]
            if self.multi_ref == "average" and len(per_ref) > 1:
                pooled = tuple(sum(column) for column in zip(*per_ref))
                out[rouge_type.name] = scores_from_statistics(rouge_type, pooled, self.alpha, self.beta)
                continue
            best = None
            for stats in per_ref:
                scores = scores_from_statistics(rouge_type, stats, self.alpha, self.beta)
                if best is None or scores[2] > best[2]:
                    best = scores
            out[rouge_type.name] = best
        return out


# ---------------------------------------------------------------------------------------------------------------------
# Options and aggregation
def _check_seed(name: str, value: object, allow_none: bool = True) -> None:
    if value is None and allow_none:
        return
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not 0 <= value < 2**32:
        either = " or None" if allow_none else ""
        raise OptionError(f"{name} must be an integer in [0, 2**32){either}, got {value!r:.40}.")


def make_scorer(
    rouge_types: Sequence[str] | str | None = None,
    *,
    use_stemmer: bool = False,
    tokenizer: TokenizerSpec = None,
    lang: str | None = None,
    split_summaries: bool = False,
    multi_ref: str = "best",
    weight_factor: float = DEFAULT_WEIGHT_FACTOR,
    alpha: float | None = None,
    beta: float | None = None,
) -> RougeScorer:
    """A checked :class:`RougeScorer` (options as :func:`compute_rouge_score`): every option error is raised here, before
    any text is scored."""
    if rouge_types is None:
        rouge_types = DEFAULT_ROUGE_TYPES
    elif isinstance(rouge_types, str):
        rouge_types = [rouge_types]
    elif not isinstance(rouge_types, Sequence) or not rouge_types:
        raise OptionError(f"rouge_types must be a non-empty list of ROUGE type names ({_TYPE_HELP}).")
    _check_weight(weight_factor)
    types = tuple({t.name: t for t in (parse_rouge_type(name, weight_factor) for name in rouge_types)}.values())
    if multi_ref not in ("best", "average"):
        raise OptionError(
            f"multi_ref must be 'best' (rouge_score's score_multi) or 'average' (ROUGE-1.5.5 -f A), got {multi_ref!r}."
        )
    if alpha is not None and beta is not None:
        raise OptionError("give alpha (ROUGE-1.5.5's -p) or beta (F_beta), not both.")
    if alpha is not None:
        alpha = check_real("alpha", alpha, 0, 1, "1: precision only, 0: recall only")
    if beta is not None:
        beta = check_real("beta", beta, 0, MAX_BETA,
                          "beta > 1 favours recall; for recall alone read the recall key rather than a huge beta")
    if lang is not None:
        if not is_default_tokenizer(tokenizer):
            raise OptionError(
                f"give tokenizer or lang, not both: lang={lang!r} only picks a tokenizer ('unicode' for any language "
                "but English)."
            )
        tokenizer = tokenizer_for_lang(lang)
    split_summaries = check_flag("split_summaries", split_summaries)
    if split_summaries and any(t.kind == "Lsum" for t in types):
        from nlgmetrics.resources import ensure_punkt

        ensure_punkt()
    use_stemmer = check_flag("use_stemmer", use_stemmer)
    tokenize = get_rouge_tokenizer(tokenizer, use_stemmer)
    name = "rouge_score" if is_default_tokenizer(tokenizer) else tokenizer if isinstance(tokenizer, str) else None
    return RougeScorer(types, tokenize, multi_ref, alpha, beta, split_summaries, name, use_stemmer)


def warn_lost_letters(predictions: Sequence[str], references: Sequence[Sequence[str]]) -> None:
    """One warning when rouge_score's (default) tokenizer drops letters from some of the texts."""
    texts = list(chain(predictions, chain.from_iterable(references)))
    count, letter, where = count_lost_letters(texts)
    if not count:
        return
    if where < len(predictions):
        name = f"predictions[{where}]"
    else:
        where -= len(predictions)
        for i, refs in enumerate(references):
            if where < len(refs):
                name = f"references[{i}][{where}]"
                break
            where -= len(refs)
    warn(
        f"ROUGE: {count} of {len(texts)} texts (predictions and references) have letters that the default tokenizer "
        f"drops (e.g. {letter!r} in {name}): it is rouge_score's, as in HF evaluate's rouge, and keeps only ASCII "
        "a-z and 0-9, so accented, Chinese, Japanese, Cyrillic... letters do not count. To keep them, pass "
        "tokenizer='unicode' or the texts' language, e.g. lang='de' or lang='zh'."
    )


def resolve_backend(backend: str | None) -> str:
    """``backend``, or when None the environment variable ``NLGMETRICS_ROUGE_BACKEND``, else ``"auto"``; checked."""
    source = ""
    if backend is None:
        backend, source = os.environ.get(BACKEND_ENV) or "auto", f" (from ${BACKEND_ENV})"
    if backend not in BACKENDS:
        raise OptionError(
            f"backend must be 'auto' (rouge-score-rs where it gives rouge_score's numbers, else Python), 'native' "
            f"(the same, but an error where it cannot) or 'python' (our reference implementation), got "
            f"{backend!r:.40}{source}."
        )
    return backend


def native_refusal(scorer: RougeScorer) -> str | None:
    """Why rouge-score-rs cannot score ``scorer``'s configuration bit for bit (None: it can)."""
    if not rouge_native.AVAILABLE:
        return "rouge-score-rs is not installed (pip install rouge-score-rs)"
    if scorer.tokenizer_name != "rouge_score":
        return "it has rouge_score's tokenizer only (the default; not tokenizer=..., lang=... other than English)"
    other = [t.name for t in scorer.rouge_types if t.kind not in ("N", "L", "Lsum")]
    if other:
        return f"it computes rouge1..rouge9, rougeL and rougeLsum, not {', '.join(other)}"
    if scorer.split_summaries:
        return "split_summaries=True is scored in Python"
    if scorer.alpha is not None or scorer.beta is not None:
        return "it computes F1 only, not alpha/beta"
    return None


def _score_examples(
    predictions: Sequence[str],
    references: Sequence[str | Sequence[str]],
    rouge_types: Any,
    options: dict,
    backend: str | None = None,
) -> tuple[list[str], np.ndarray]:
    """Check, warn, score: type names and ``values[i, 3 * t + c]`` (example i, type t, c = precision, recall, F).

    rouge-score-rs scores what it reproduces (:func:`native_refusal`, :mod:`nlgmetrics.lexical.rouge_native`), the
    Python path (:class:`RougeScorer`) the rest; ``backend="python"`` takes the Python path for everything."""
    backend = resolve_backend(backend)
    preds, refs = check_pairs(predictions, references)
    scorer = make_scorer(rouge_types, **options)
    if is_default_tokenizer(options.get("tokenizer")) and options.get("lang") is None:
        warn_lost_letters(preds, refs)
    names = [t.name for t in scorer.rouge_types]
    values = np.empty((len(preds), 3 * len(names)), dtype=np.float64)
    todo: Sequence[int] = range(len(preds))
    if backend != "python":
        refusal = native_refusal(scorer)
        if refusal is None:
            todo = rouge_native.score_into(values, preds, refs, names, scorer.use_stemmer, scorer.multi_ref)
        elif backend == "native":
            raise OptionError(f"backend='native' (rouge-score-rs) cannot score these options: {refusal}; use "
                             "backend='auto' (Python where needed) or 'python'.")
    for i in todo:
        try:
            row = scorer.score(preds[i], refs[i])
        except _TooLong as exc:
            raise LimitError(f"example {i}: {exc}") from None
        values[i] = [x for name in names for x in row[name]]
    return names, values


_NUMPY_GLOBAL_RNG = threading.Lock()  # one draw sequence at a time: concurrent calls never interleave their draws


@contextmanager
def numpy_global_seed(seed: int | None) -> Iterator[None]:
    """numpy's legacy global RNG seeded with ``seed`` inside, its state restored after (what evaluate does around
    ``_compute`` with the module's seed); ``None`` leaves the global RNG as it stands (and advances it). Held under a
    lock, so calls from several threads draw one after the other."""
    with _NUMPY_GLOBAL_RNG:
        if seed is None:
            yield
            return
        state = np.random.get_state()
        np.random.seed(seed)
        try:
            yield
        finally:
            np.random.set_state(state)


def rouge_score_bootstrap(values: np.ndarray, numpy_seed: int | None = None) -> np.ndarray:
    """(3, k) low/mid/high of rouge_score 0.1.2's ``BootstrapAggregator().aggregate()``, call for call.

    ``values`` is (n, k) with (precision, recall, F) column triples per type. For each type in turn, 1000 times:
    ``idx = np.random.choice(np.arange(n), size=n)`` (numpy's global RNG), the mean of those rows; then
    ``np.percentile`` at 2.5, 50 and 97.5 of the 1000 means. The same RNG state gives the same floats.
    """
    n = values.shape[0]
    delta = (1 - ROUGE_SCORE_CONFIDENCE) / 2
    q = 100 * np.array([delta, 0.5, 1 - delta])
    out = np.empty((3, values.shape[1]))
    with numpy_global_seed(numpy_seed):
        for t in range(0, values.shape[1], 3):
            matrix = np.ascontiguousarray(values[:, t : t + 3])  # rouge_score's np.vstack of Score tuples
            sample_mean = np.zeros((ROUGE_SCORE_SAMPLES, 3))
            for i in range(ROUGE_SCORE_SAMPLES):
                sample_idx = np.random.choice(np.arange(n), size=n)
                sample_mean[i, :] = np.mean(matrix[sample_idx, :], axis=0)
            out[:, t : t + 3] = np.percentile(sample_mean, q, axis=0)
    return out


def aggregate(values: np.ndarray, aggregator: str = "mean", numpy_seed: int | None = None) -> list[float]:
    """One value per column of ``values`` (n examples x k): the exact mean (``"mean"``, ``math.fsum`` / n) or
    rouge_score's bootstrap mid (``"bootstrap"``, HF evaluate's ``rouge``: :func:`rouge_score_bootstrap`)."""
    if aggregator == "bootstrap":
        return rouge_score_bootstrap(values, numpy_seed)[1].tolist()
    return [math.fsum(column) / len(column) for column in values.T.tolist()]


def _bootstrap(values: np.ndarray, n_samples: int, seed: int | None, confidence: float) -> np.ndarray:
    """(3, k) low/mid/high percentiles of the column means over seeded bootstrap resamples of the rows."""
    indices = bootstrap_indices(len(values), n_samples, seed)
    means = np.empty((n_samples, values.shape[1]))
    chunk = max(1, 2**22 // max(1, values.size))
    for start in range(0, n_samples, chunk):
        means[start : start + chunk] = values[indices[start : start + chunk]].mean(axis=1)
    delta = (1 - confidence) / 2
    return np.percentile(means, [100 * delta, 50, 100 * (1 - delta)], axis=0)


def compute_rouge_score(
    predictions: Sequence[str],
    references: Sequence[str | Sequence[str]],
    *,
    rouge_types: Sequence[str] | str | None = None,
    use_aggregator: bool = True,
    use_stemmer: bool = False,
    tokenizer: TokenizerSpec = None,
    lang: str | None = None,
    split_summaries: bool = False,
    aggregator: str = "mean",
    numpy_seed: int | None = None,
    multi_ref: str | None = None,
    weight_factor: float = DEFAULT_WEIGHT_FACTOR,
    alpha: float | None = None,
    beta: float | None = None,
    n_bootstrap: int = 0,
    confidence_interval: float = 0.95,
    seed: int | None = DEFAULT_SEED,
    backend: str | None = None,
) -> dict[str, Any]:
    """The rouge_score flavor of :func:`nlgmetrics.lexical.rouge.compute_rouge` (its keywords and keys, without
    ``flavor`` and perl's options); :mod:`nlgmetrics.lexical.rouge155` builds its shared ratios on it."""
    multi_ref = "best" if multi_ref is None else multi_ref
    if aggregator not in AGGREGATORS:
        raise OptionError(
            f"aggregator must be 'mean' (the exact mean over examples) or 'bootstrap' (HF evaluate's rouge: the median "
            f"of rouge_score's 1000 bootstrap means), got {aggregator!r:.40}."
        )
    _check_seed("numpy_seed", numpy_seed)
    use_aggregator = check_flag("use_aggregator", use_aggregator)
    if n_bootstrap:
        check_resamples("n_bootstrap", n_bootstrap)
        if not use_aggregator:
            raise OptionError("n_bootstrap needs use_aggregator=True: intervals are over the mean of the examples.")
    if isinstance(confidence_interval, bool) or not isinstance(confidence_interval, numbers.Real) or not (
        0 <= confidence_interval <= 1  # rouge_score's BootstrapAggregator range: 0 gives low = mid = high
    ):
        raise OptionError(f"confidence_interval must be a number in [0, 1], e.g. 0.95, got {confidence_interval!r:.40}.")
    _check_seed("seed", seed)
    options = {
        "use_stemmer": use_stemmer, "tokenizer": tokenizer, "lang": lang, "split_summaries": split_summaries,
        "multi_ref": multi_ref, "weight_factor": weight_factor, "alpha": alpha, "beta": beta,
    }
    names, values = _score_examples(predictions, references, rouge_types, options, backend)

    out: dict[str, Any] = {}
    suffixes = ("_precision", "_recall", "")
    point = aggregate(values, aggregator, numpy_seed) if use_aggregator else None
    for t, name in enumerate(names):
        for c in (2, 0, 1):
            out[name + suffixes[c]] = point[3 * t + c] if point is not None else values[:, 3 * t + c].tolist()
    if n_bootstrap:
        bounds = _bootstrap(values, int(n_bootstrap), seed, confidence_interval)
        for t, name in enumerate(names):
            for c in (2, 0, 1):
                for b, label in enumerate(("low", "mid", "high")):
                    out[f"{name}{suffixes[c]}_{label}"] = float(bounds[b, 3 * t + c])
    return out


def rouge_scores(
    predictions: Sequence[str],
    references: Sequence[str | Sequence[str]],
    rouge_types: Sequence[str] = DEFAULT_ROUGE_TYPES,
    backend: str | None = None,
    **options: Any,
) -> list[dict[str, tuple[float, float, float]]]:
    """Per-example ``{type: (precision, recall, F)}``, the shape of rouge_score's ``score`` output (for tests and
    tools); options as :func:`make_scorer` (tokenizer, lang, use_stemmer, split_summaries, multi_ref, weight_factor,
    alpha, beta); ``backend`` as :func:`compute_rouge_score`."""
    names, values = _score_examples(predictions, references, rouge_types, options, backend)
    return [{name: tuple(row[3 * t : 3 * t + 3]) for t, name in enumerate(names)} for row in values.tolist()]


__all__: list[str] = [
    "compute_rouge_score",
    "rouge_scores",
    "make_scorer",
    "aggregate",
    "rouge_score_bootstrap",
    "numpy_global_seed",
    "RougeScorer",
    "RougeType",
    "parse_rouge_type",
    "lcs_length",
    "lcs_positions",
    "wlcs",
    "skip_bigram_counter",
    "skip_bigram_hits",
    "skip_bigram_total",
    "summary_sentences",
    "fmeasure",
]
