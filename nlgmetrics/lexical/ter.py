"""TER, translation edit rate (Snover et al., 2006), with sacrebleu 2.6 semantics, edit for edit.

Flow: text -> Tercom tokens (``nlgmetrics.text.tercom``; references tokenized twice, as sacrebleu does) ->
per-segment statistics ``[num_edits, ref_length]`` -> summed -> score::

    TER = 100 * sum(num_edits) / sum(ref_length)      (100 if the references are empty and edits > 0, else 0)

``num_edits`` is the fewest edits over a segment's references and ``ref_length`` its references' average length.
The edits of one hypothesis against one reference are Tercom's, as sacrebleu computes them: greedily apply the block
shift (at most 10 words, at most 50 positions away, at most 1,000 candidates in all) that lowers the edit distance
most, until none does; then edits = shifts + the edit distance. The edit distance is sacrebleu's beam-limited
Levenshtein: row ``i`` only fills the cells within 25 (more for very uneven lengths) of the pseudo-diagonal
``floor(i * m / n)``, and its trace (ties: match/substitution, then deletion, then insertion) decides which shifts
are tried.

How it is fast and still exact:

- The distance is Myers' bit-parallel Levenshtein (one reference word per bit, one hypothesis word per step). The
  beam can only matter for a path leaving it, and a path through cell ``(i, j)`` costs at least
  ``|i - j| + |(n - i) - (m - j)|``; when the distance is below the least such bound over the cells outside the beam,
  every optimal path lies inside it, so the beam-limited value and its trace are the unrestricted ones. Otherwise
  (long, very different segments) the beam-limited rows are computed as sacrebleu does.
- A shift candidate shares the rows before its first moved word with the current hypothesis, so only the rest is
  recomputed; a candidate whose unrestricted distance is not below the current one cannot be the chosen shift.
- Hypothesis words enter only as the bitmask of the reference positions they match, so the edits are a function of
  ``(masks, reference length)``, memoised across systems; reference tokens are cached per reference.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from nlgmetrics.inputs import check_pairs
from nlgmetrics.options import check_flag, checked_options
from nlgmetrics.signature import nrefs as count_references
from nlgmetrics.stats import DEFAULT_SEED, bootstrap_corpus_scores, sacrebleu_interval
from nlgmetrics.text.tercom import tokenize_tercom

MAX_SHIFT_SIZE = 10  # words in a shifted block
MAX_SHIFT_DIST = 50  # positions between the block's hypothesis and reference starts
MAX_SHIFT_CANDIDATES = 1000  # shift candidates evaluated per hypothesis-reference pair, over all shift rounds
BEAM_WIDTH = 25
REFERENCE_CACHE_SIZE = 2**17
PAIR_CACHE_SIZE = 2**17
_INF = 1 << 60  # beam-limited cells outside the beam


@dataclass(frozen=True)
class TERScore:
    """One TER result: ``score`` on sacrebleu's 0-100 scale, summed edits and summed average reference lengths."""

    score: float
    num_edits: int
    ref_length: float


# -- the beam ---------------------------------------------------------------------------------------------------
@lru_cache(maxsize=2**14)
def _beam(n: int, m: int) -> tuple[tuple[tuple[int, int], ...], int]:
    """sacrebleu's beam for an n-word hypothesis and m-word reference, and the least cost of a path leaving it.

    Row ``i`` fills columns ``lo <= j < hi`` (row 0 and the last row's right end are complete). The bound is the
    minimum of ``|i - j| + |(n - i) - (m - j)|`` over the cells outside the beam (``_INF`` if there are none).
    """
    ratio = m / n
    width = math.ceil(ratio / 2 + BEAM_WIDTH) if BEAM_WIDTH < ratio / 2 else BEAM_WIDTH
    rows = [(0, m + 1)]
    bound = _INF
    for i in range(1, n + 1):
        diagonal = math.floor(i * ratio)
        lo, hi = max(0, diagonal - width), min(m + 1, diagonal + width)
        if i == n:
            hi = m + 1
        rows.append((lo, hi))
        # |j - i| + |j - (m - n + i)| is smallest between its two kinks: clip them into each outside interval
        for first, last in ((0, lo - 1), (hi, m)):
            if first <= last:
                for kink in (i, m - n + i):
                    j = min(max(kink, first), last)
                    bound = min(bound, abs(i - j) + abs(n - i - m + j))
    return tuple(rows), bound


def _banded_rows(words: Sequence[int], m: int, beam: Sequence[tuple[int, int]], rows: list) -> list:
    """Extend ``rows`` (beam-limited distance rows of ``words[:len(rows) - 1]``) to all of ``words``, as sacrebleu.

    Each row is ``(lo, values)``: only the beam's cells ``lo <= j < lo + len(values)`` are stored (every other cell is
    unreachable, ``_INF``, as sacrebleu's), so memory is linear in the text length: :func:`_cell` reads a cell.
    """
    for i in range(len(rows), len(words) + 1):
        lo, hi = beam[i]
        prev_lo, prev = rows[i - 1]
        prev_hi = prev_lo + len(prev)
        eq = words[i - 1]
        row = []
        left = _INF  # the cell left of the beam
        start = lo
        if lo == 0:
            left = min((prev[0] if prev_lo == 0 else _INF) + 1, _INF)
            row.append(left)
            start = 1
        for j in range(start, hi):
            diagonal = prev[j - 1 - prev_lo] if prev_lo <= j - 1 < prev_hi else _INF
            up = prev[j - prev_lo] if prev_lo <= j < prev_hi else _INF
            left = min(diagonal + 1 - ((eq >> (j - 1)) & 1), up + 1, left + 1, _INF)
            row.append(left)
        rows.append((lo, row))
    return rows


def _cell(rows: list, i: int, j: int) -> int:
    """Cell ``(i, j)`` of :func:`_banded_rows`' rows (``_INF`` outside the beam)."""
    lo, values = rows[i]
    return values[j - lo] if lo <= j < lo + len(values) else _INF


# -- Myers' bit-parallel Levenshtein ----------------------------------------------------------------------------
def _myers(
    words: Sequence[int], full: int, vp: int, vn: int, plus: list[int] | None = None, minus: list[int] | None = None
) -> tuple[int, int]:
    """Myers' step over ``words`` from the row given by ``vp``/``vn``; the rows are appended to ``plus``/``minus``.

    ``vp``/``vn``: bitmasks of the columns j where ``D[i][j] - D[i][j-1]`` is +1 / -1 (bit j-1); row 0 is
    ``(full, 0)`` and ``D[i][0] = i``, so ``D[i][m] = i + popcount(vp) - popcount(vn)``.
    """
    for eq in words:
        x = eq | vn
        d0 = (((eq & vp) + vp) ^ vp) | x
        hp = ((vn | ~(d0 | vp)) << 1) | 1
        hn = (vp & d0) << 1
        vp = (hn | ~(d0 | hp)) & full
        vn = d0 & hp & full
        if plus is not None:
            plus.append(vp)
            minus.append(vn)
    return vp, vn


def _alignment(words: Sequence[int], m: int, value) -> tuple[list[int], list[int], list[int]]:
    """Alignment and error positions from the distance trace, as sacrebleu's ``trace_to_alignment``.

    ``value(i, j)`` is the distance matrix. The trace goes back from ``(n, m)`` taking, at each cell, the first of
    match/substitution, deletion (a hypothesis word), insertion (a reference word) that gives the cell its value.
    Returns ``align`` (reference position -> the hypothesis position it follows or matches), the cumulative
    hypothesis errors and the cumulative reference errors.
    """
    n = len(words)
    align, hyp_err, ref_err = [-1] * m, [0] * n, [0] * m
    i, j, v = n, m, value(n, m)
    while i > 0 and j > 0:
        mismatch = 1 - ((words[i - 1] >> (j - 1)) & 1)
        diagonal = value(i - 1, j - 1)
        if diagonal + mismatch == v:
            i, j, v = i - 1, j - 1, diagonal
            align[j], hyp_err[i], ref_err[j] = i, mismatch, mismatch
            continue
        up = value(i - 1, j)
        if up + 1 == v:
            i, v = i - 1, up
            hyp_err[i] = 1
        else:
            j, v = j - 1, v - 1
            align[j], ref_err[j] = i - 1, 1
    for rest in range(i):  # deletions down the first column
        hyp_err[rest] = 1
    for rest in range(j):  # insertions along the first row
        align[rest], ref_err[rest] = -1, 1
    hyp_cum, ref_cum = [0], [0]
    for err in hyp_err:
        hyp_cum.append(hyp_cum[-1] + err)
    for err in ref_err:
        ref_cum.append(ref_cum[-1] + err)
    return align, hyp_cum, ref_cum


def _shift_candidates(
    words: Sequence[int], m: int, align: list[int], hyp_cum: list[int], ref_cum: list[int], checked: int
) -> tuple[list[tuple[int, int, int]], int]:
    """Tercom's shift candidates ``(length, start, target)`` in sacrebleu's order, and the updated count.

    A block ``words[start:start+length]`` equal to ``ref[ref_start:ref_start+length]`` (starts at most 50 apart)
    is a candidate if it has a hypothesis error, the reference block has an error and the block is not already
    aligned there; its targets are just after the hypothesis words aligned to ``ref_start - 1 .. ref_start +
    length - 1`` (repeats skipped). The enumeration stops after the block that brings the count to 1,000.
    """
    n = len(words)
    out = []
    for start in range(n):
        mask = words[start] >> max(0, start - MAX_SHIFT_DIST) << max(0, start - MAX_SHIFT_DIST)
        mask &= (1 << (start + MAX_SHIFT_DIST + 1)) - 1
        while mask:
            low = mask & -mask
            mask ^= low
            ref_start = low.bit_length() - 1
            length = 0
            while length < MAX_SHIFT_SIZE and (words[start + length] >> (ref_start + length)) & 1:
                length += 1
                if (
                    hyp_cum[start + length] != hyp_cum[start]
                    and ref_cum[ref_start + length] != ref_cum[ref_start]
                    and not start <= align[ref_start] < start + length
                ):
                    previous = -1
                    for ref_pos in range(ref_start - 1, ref_start + length):
                        target = align[ref_pos] + 1 if ref_pos >= 0 else 0
                        if target != previous:
                            previous = target
                            out.append((length, start, target))
                            checked += 1
                    if checked >= MAX_SHIFT_CANDIDATES:
                        return out, checked
                if start + length == n or ref_start + length == m:
                    break
    return out, checked


def _perform_shift(words: tuple, start: int, length: int, target: int) -> tuple:
    """Move ``words[start:start+length]`` before position ``target`` (sacrebleu's ``_perform_shift``)."""
    if target < start:
        return words[:target] + words[start : start + length] + words[target:start] + words[start + length :]
    if target > start + length:
        return words[:start] + words[start + length : target] + words[start : start + length] + words[target:]
    return (
        words[:start] + words[start + length : length + target] + words[start : start + length]
        + words[length + target :]
    )


@lru_cache(maxsize=PAIR_CACHE_SIZE)
def ter_edits(words: tuple[int, ...], m: int) -> int:
    """Tercom edits (shifts + beam-limited edit distance) of a hypothesis against an ``m``-word reference.

    ``words[i]`` is the bitmask of the reference positions equal to hypothesis word ``i`` (0 if none); this is all
    TER needs to know of the two texts.
    """
    n = len(words)
    if m == 0 or n == 0:
        return n + m
    beam, bound = _beam(n, m)
    full = (1 << m) - 1
    plus, minus = [full], [0]
    _myers(words, full, full, 0, plus, minus)
    dist = n + plus[n].bit_count() - minus[n].bit_count()
    banded = None
    if dist >= bound:  # the beam may bind: sacrebleu's rows
        banded = _banded_rows(words, m, beam, [(0, list(range(m + 1)))])
        dist = _cell(banded, n, m)
    shifts, checked = 0, 0
    unrestricted: dict[tuple, int] = {}
    while True:
        if banded is None:
            def value(i, j, plus=plus, minus=minus):
                low = (1 << j) - 1
                return i + (plus[i] & low).bit_count() - (minus[i] & low).bit_count()
        else:
            def value(i, j, banded=banded):
                return _cell(banded, i, j)
        align, hyp_cum, ref_cum = _alignment(words, m, value)
        candidates, checked = _shift_candidates(words, m, align, hyp_cum, ref_cum, checked)
        if checked >= MAX_SHIFT_CANDIDATES:
            break
        best = None
        for length, start, target in dict.fromkeys(candidates):
            shifted = _perform_shift(words, start, length, target)
            cost = unrestricted.get(shifted)
            first = min(start, target)  # the rows before the first moved word are the current hypothesis'
            if cost is None:
                vp, vn = _myers(shifted[first:], full, plus[first], minus[first])
                cost = unrestricted[shifted] = n + vp.bit_count() - vn.bit_count()
            if bound <= cost < dist:  # a possible improvement where the beam may bind (so banded is set)
                cost = _cell(_banded_rows(shifted, m, beam, banded[: first + 1]), n, m)
            key = (dist - cost, length, -start, -target)
            if best is None or key > best[0]:
                best = (key, shifted, cost)
        if best is None or best[0][0] <= 0:
            break
        shifts += 1
        _, words, dist = best
        plus, minus = [full], [0]
        _myers(words, full, full, 0, plus, minus)
        banded = _banded_rows(words, m, beam, [(0, list(range(m + 1)))]) if dist >= bound else None
    return shifts + dist


# -- statistics and scores --------------------------------------------------------------------------------------
@lru_cache(maxsize=REFERENCE_CACHE_SIZE)
def _reference_masks(tokens: tuple[str, ...]) -> dict[str, int]:
    """Each reference word's bitmask of positions."""
    masks: dict[str, int] = {}
    for position, token in enumerate(tokens):
        masks[token] = masks.get(token, 0) | (1 << position)
    return masks


@dataclass(frozen=True)
class TER:
    """A TER configuration (sacrebleu's ``TER`` arguments)."""

    normalized: bool = False
    no_punct: bool = False
    asian_support: bool = False
    case_sensitive: bool = False

    def __post_init__(self) -> None:
        for name in ("normalized", "no_punct", "asian_support", "case_sensitive"):
            check_flag(name, getattr(self, name))

    def tokenize(self, text: str) -> tuple[str, ...]:
        """Tokens of ``text`` as sacrebleu's TER sees them (trailing whitespace stripped first)."""
        return tokenize_tercom(text.rstrip(), self.normalized, self.no_punct, self.asian_support, self.case_sensitive)

    def reference_tokens(self, text: str) -> tuple[str, ...]:
        """Tokens of a reference: sacrebleu 2.6 tokenizes references twice (once when it caches them, once more when
        it splits them into words), which matters with ``normalized``: ``Nima's,`` gives ``nima's ,`` the first
        time and ``nima 's ,`` the second."""
        return self.tokenize(" ".join(self.tokenize(text)))

    def segment_statistics(self, prediction: str, references: Sequence[str]) -> list[float]:
        """``[num_edits, ref_length]``: fewest edits over the references and their average length."""
        hyp = self.tokenize(prediction)
        best, total = None, 0
        for reference in references:
            ref = self.reference_tokens(reference)
            masks = _reference_masks(ref)
            edits = ter_edits(tuple(masks.get(word, 0) for word in hyp), len(ref))
            total += len(ref)
            if best is None or edits < best:
                best = edits
        return [best, total / len(references)]

    def corpus_statistics(self, predictions: Sequence[str], references: Sequence[Sequence[str]]) -> np.ndarray:
        """Per-segment statistics, shape (n_segments, 2), float64 (edit counts are whole numbers)."""
        rows = [self.segment_statistics(pred, refs) for pred, refs in zip(predictions, references)]
        return np.array(rows, dtype=np.float64).reshape(len(rows), 2)

    def score_from_statistics(self, stats: Sequence) -> TERScore:
        """TER from summed (or one segment's) statistics (float32 statistics, sacrebleu's bootstrap resamples: a
        float32 score, as sacrebleu computes it; see nlgmetrics.comparison)."""
        edits, ref_length = stats[0], stats[1]
        float32 = isinstance(ref_length, np.float32)
        if not float32:
            ref_length = float(ref_length)
        if ref_length > 0:
            score = edits / ref_length
        else:  # empty references: 100 if anything is to be deleted, else 0
            score = 1.0 if edits > 0 else 0.0
        return TERScore(100 * score if float32 else 100 * float(score), int(edits), float(ref_length))

    def corpus_score(self, predictions: Sequence[str], references: Sequence[Sequence[str]]) -> TERScore:
        return self.score_from_statistics(self.corpus_statistics(predictions, references).sum(axis=0))

    def sentence_score(self, prediction: str, references: Sequence[str]) -> TERScore:
        return self.score_from_statistics(self.segment_statistics(prediction, references))

    def signature(self, nrefs: int | str, n_bootstrap: int | None = None, seed: int | None = None) -> str:
        """sacrebleu's signature (:mod:`nlgmetrics.signature`), e.g. ``nrefs:1|case:lc|tok:tercom|norm:no|punct:yes|
        asian:no|version:...``."""
        from nlgmetrics.signature import bootstrap_parts, build

        return build([
            ("nrefs", nrefs), *bootstrap_parts(n_bootstrap, seed), ("case", "mixed" if self.case_sensitive else "lc"),
            ("tok", "tercom"), ("norm", self.normalized), ("punct", not self.no_punct), ("asian", self.asian_support),
        ])


@checked_options
def compute_ter(
    predictions: Sequence[str],
    references: Sequence[str | Sequence[str]],
    *,
    normalized: bool = False,
    no_punct: bool = False,
    asian_support: bool = False,
    case_sensitive: bool = False,
    sentence_scores: bool = False,
    n_bootstrap: int = 0,
    seed: int | None = DEFAULT_SEED,
) -> dict:
    """Corpus TER of ``predictions`` against ``references`` (one string or a list of strings per prediction).

    Returns HF evaluate's ``ter`` keys (``score`` 0-100, ``num_edits``, ``ref_length``) and ``signature``. With
    ``sentence_scores=True``, ``scores`` holds each example's sentence TER (as ``sacrebleu.sentence_ter``). With
    ``n_bootstrap`` >= 2, ``score_mean``, ``score_ci`` (half-width of the 95% interval), ``score_low`` and
    ``score_high`` come from a seeded bootstrap over segments (sacrebleu's resampling; same seed, same interval).
    """
    preds, refs = check_pairs(predictions, references)
    ter = TER(normalized, no_punct, asian_support, case_sensitive)
    stats = ter.corpus_statistics(preds, refs)
    result = ter.score_from_statistics(stats.sum(axis=0))
    nrefs = count_references(refs)
    out: dict = {"score": result.score, "num_edits": result.num_edits, "ref_length": result.ref_length}
    if sentence_scores:
        out["scores"] = [ter.score_from_statistics(row).score for row in stats]
    if n_bootstrap:
        samples = bootstrap_corpus_scores(stats, lambda s: ter.score_from_statistics(s).score, n_bootstrap, seed,
                                          float32=True)  # sacrebleu's corpus_score(n_bootstrap=...), exactly
        interval = sacrebleu_interval(samples, single_system=True)
        out.update({f"score_{key}": value for key, value in interval.items()})
    out["signature"] = ter.signature(nrefs, n_bootstrap or None, seed if n_bootstrap else None)
    return out
