"""chrF (Popović 2015) and chrF++ (Popović 2017) with sacrebleu 2.6 semantics, score for score.

Flow: text -> (lowercased) characters, whitespace removed unless ``whitespace`` -> character n-grams of orders
1..``char_order`` and, for chrF++ (``word_order`` > 0), word n-grams of orders 1..``word_order`` over words split
on whitespace with one leading or trailing punctuation mark cut off -> per-segment statistics
``[hyp_1, ref_1, match_1, ..., hyp_N, ref_N, match_N]`` (N = char_order + word_order; match_n = sum over n-grams of
min(count in hypothesis, count in reference); hyp_n is 0 when the reference has no n-gram of order n) -> summed ->
score. With several references a segment keeps the statistics of the reference with the best sentence score (the
first one on ties). Per order, P_n = match_n / hyp_n and R_n = match_n / ref_n; with b = beta::

    default (sacrebleu's "effective order"): P, R = means of P_n, R_n over the orders with hyp_n > 0 and ref_n > 0
                                            chrF = 100 * (1 + b^2) P R / (b^2 P + R)      (0 when P + R = 0)
    eps_smoothing=True (chrF++.py, Moses, NLTK): P_n, R_n = 1e-16 where undefined,
                                            chrF = 100 * mean_n (1 + b^2) P_n R_n / (b^2 P_n + R_n)   (1e-16 if 0/0)

Corpus statistics are computed for all segments at once: each n-gram becomes the integer
``segment * base^n + code`` (code: its characters' or words' reference-vocabulary ids in base ``base``; items absent
from every reference get id 0, so they never match), and one sort of the reference and hypothesis keys together
counts the clipped matches of every segment. The reference side is cached per reference set, so scoring several
systems against the same references encodes them once. Where the codes would not fit in 63 bits (more than ~1,300
distinct reference characters at order 6, e.g. large CJK corpora) each segment is scored with ``Counter`` n-grams
instead, as ``segment_statistics`` does; both give the same statistics.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import chain, repeat
from operator import add

import numpy as np

from nlgmetrics.errors import OptionError
from nlgmetrics._cache import REFERENCE_CORPUS_BYTES, byte_lru_cache
from nlgmetrics.inputs import check_pairs
from nlgmetrics.options import MAX_BETA, MAX_NGRAM_ORDER, check_int, check_real, checked_options
from nlgmetrics.signature import nrefs as count_references
from nlgmetrics.stats import DEFAULT_SEED, bootstrap_corpus_scores, sacrebleu_interval
from nlgmetrics.text.ngrams import clipped_matches, ngram_counts, segment_clipped_matches

EPS = 1e-16
PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
REFERENCE_CACHE_SIZE = 2**11  # per-segment path: ~40 KB of Counters per reference (chrF++), ~90 MB at most
_KEY_LIMIT = 2**62  # keys are tagged with one more bit before sorting
PAIRS_PER_BLOCK = 2**16  # pairwise_scores: pairs whose statistics are held at once (~10 MB at chrF++'s 8 orders)


# -- text -> n-grams ---------------------------------------------------------------------------------------------
def split_punctuation(text: str) -> list[str]:
    """chrF++'s words: whitespace-split, then a punctuation mark at a word's end (else its start) split off.

    As sacrebleu (after github.com/m-popovic/chrF): ``'(hi)'`` gives ``['(hi', ')']``, one-character words stay whole.
    """
    words: list[str] = []
    for word in text.split():
        if len(word) == 1:
            words.append(word)
        elif word[-1] in PUNCTUATION:
            words += (word[:-1], word[-1])
        elif word[0] in PUNCTUATION:
            words += (word[0], word[1:])
        else:
            words.append(word)
    return words


def char_ngram_counts(text: str, max_order: int) -> list[Counter]:
    """Counts of the character n-grams of each order 1..max_order, one Counter per order."""
    counts, grams = [], text
    for n in range(max_order):
        if n:  # the n-grams of order n + 1: each of order n extended by the next character
            grams = list(map(add, grams, text[n:]))
        counts.append(Counter(grams))
    return counts


# -- scores ------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class CHRFScore:
    """One chrF result on sacrebleu's 0-100 scale."""

    score: float
    char_order: int
    word_order: int
    beta: float

    @property
    def name(self) -> str:
        """sacrebleu's name of the variant: ``chrF2``, ``chrF2++`` (one ``+`` per word order)."""
        return f"chrF{self.beta}" + "+" * self.word_order


def f_scores(stats: np.ndarray, beta: float, eps_smoothing: bool) -> np.ndarray:
    """chrF of each row of ``stats`` (k x 3N), 0-100, with sacrebleu's floating-point operations in its order.

    float32 statistics (sacrebleu's bootstrap resamples, see nlgmetrics.comparison) are scored in float32, as
    sacrebleu's scalar arithmetic on them does; anything else in float64.
    """
    stats = np.asarray(stats)
    dtype = np.float32 if stats.dtype == np.float32 else np.float64
    rows = stats.astype(dtype, copy=False)
    rows = rows.reshape(len(rows), rows.shape[-1] // 3, 3)
    n_hyp, n_ref, n_match = rows[:, :, 0], rows[:, :, 1], rows[:, :, 2]
    factor = beta**2
    prec = np.divide(n_match, n_hyp, out=np.full_like(n_match, EPS), where=n_hyp > 0)
    rec = np.divide(n_match, n_ref, out=np.full_like(n_match, EPS), where=n_ref > 0)
    denom = factor * prec + rec
    terms = np.divide((1 + factor) * prec * rec, denom, out=np.full_like(denom, EPS), where=denom > 0)
    order = rows.shape[1]
    if eps_smoothing:
        total = np.zeros(len(rows), dtype)
        for i in range(order):  # summed order by order, as sacrebleu
            total += terms[:, i]
        return 100 * total / order
    both = (n_hyp > 0) & (n_ref > 0)
    avg_prec, avg_rec = np.zeros(len(rows), dtype), np.zeros(len(rows), dtype)
    for i in range(order):
        avg_prec = np.where(both[:, i], avg_prec + prec[:, i], avg_prec)
        avg_rec = np.where(both[:, i], avg_rec + rec[:, i], avg_rec)
    effective = both.sum(axis=1)
    avg_prec = np.divide(avg_prec, effective, out=np.zeros(len(rows), dtype), where=effective > 0)
    avg_rec = np.divide(avg_rec, effective, out=np.zeros(len(rows), dtype), where=effective > 0)
    defined = (avg_prec + avg_rec) != 0
    score = np.divide((1 + factor) * avg_prec * avg_rec, factor * avg_prec + avg_rec, out=np.zeros(len(rows), dtype),
                      where=defined)
    return 100 * score


# -- corpus statistics, vectorized -------------------------------------------------------------------------------
def _ngram_keys(ids: np.ndarray, lens: np.ndarray, base: int, max_order: int) -> list[np.ndarray]:
    """For n = 1..max_order, ``segment * base^n + code`` of every n-gram of the segments (``ids`` concatenated)."""
    segment = np.repeat(np.arange(len(lens), dtype=np.int64), lens)
    left = np.repeat(np.cumsum(lens), lens) - np.arange(len(ids))  # items from each position to its segment's end
    keys, code = [], ids
    for n in range(1, max_order + 1):
        if n > 1:
            code = code[:-1] * base + ids[n - 1 :]
        inside = left[: len(code)] >= n
        keys.append(segment[: len(code)][inside] * base**n + code[inside])
    return keys


class _EncodedReferences:
    """One kind of reference n-grams (characters or words) as sorted integer keys, per reference slot and chunk.

    Slot j holds each segment's (j+1)-th reference (segments with fewer references have none there). Segments are
    taken ``chunk`` at a time so that ``chunk * base^max_order`` stays below 2^62.
    """

    def __init__(self, slots: list[tuple[np.ndarray, np.ndarray]], base: int, max_order: int):
        self.base, self.max_order = base, max_order
        self.chunk = _KEY_LIMIT // base**max_order
        self.lens = [lens for _, lens in slots]
        self.keys = []
        for ids, lens in slots:
            offsets = np.concatenate(([0], np.cumsum(lens)))
            per_chunk = []
            for start in range(0, len(lens), self.chunk):
                stop = min(start + self.chunk, len(lens))
                part = _ngram_keys(ids[offsets[start] : offsets[stop]], lens[start:stop], base, max_order)
                per_chunk.append([np.sort(k) * 2 for k in part])
            self.keys.append(per_chunk)

    def matches(self, ids: np.ndarray, lens: np.ndarray) -> list[np.ndarray]:
        """Per slot, the (n_segments, max_order) clipped match counts of the hypotheses ``ids``/``lens``."""
        n_segments = len(lens)
        out = [np.zeros((n_segments, self.max_order), dtype=np.int64) for _ in self.keys]
        offsets = np.concatenate(([0], np.cumsum(lens)))
        for c, start in enumerate(range(0, n_segments, self.chunk)):
            stop = min(start + self.chunk, n_segments)
            hyp_keys = _ngram_keys(ids[offsets[start] : offsets[stop]], lens[start:stop], self.base, self.max_order)
            for slot, per_chunk in zip(out, self.keys):
                for n, (ref_keys, keys) in enumerate(zip(per_chunk[c], hyp_keys)):
                    slot[start:stop, n] = segment_clipped_matches(ref_keys, keys, self.base ** (n + 1), stop - start)
        return out


def _codepoints(texts: Sequence[str]) -> np.ndarray:
    return np.frombuffer("".join(texts).encode("utf-32-le", "surrogatepass"), dtype="<u4").astype(np.int64)


def _lengths(items: Sequence[Sequence]) -> np.ndarray:
    return np.fromiter(map(len, items), dtype=np.int64, count=len(items))


@dataclass(frozen=True)
class _ReferenceSet:
    """A reference corpus encoded once: character ids, word ids and the n-gram keys of every reference slot."""

    n_slots: np.ndarray  # references per segment
    char_ids: np.ndarray  # code point -> id of the character (0: in no reference), up to the largest code point + 1
    vocabulary: dict  # word -> id
    chars: _EncodedReferences | None
    words: _EncodedReferences | None


@byte_lru_cache(REFERENCE_CORPUS_BYTES)
def _reference_set(
    references: tuple[tuple[str, ...], ...], char_order: int, word_order: int, lowercase: bool, whitespace: bool
) -> _ReferenceSet | None:
    """The encoded references, or None where the n-gram keys would not fit in 63 bits."""
    n_slots = _lengths(references)
    slots = [[refs[j] if j < len(refs) else "" for refs in references] for j in range(int(n_slots.max(initial=0)))]
    slots = [[_prepare(text, lowercase) for text in slot] for slot in slots]
    chars = words = None
    char_ids, vocabulary = np.zeros(1, dtype=np.int64), {}
    if char_order:
        texts = [[_characters(text, whitespace) for text in slot] for slot in slots]
        charset, inverse = np.unique(_codepoints(list(chain.from_iterable(texts))), return_inverse=True)
        char_ids = np.zeros(int(charset.max(initial=0)) + 2, dtype=np.int64)
        char_ids[charset] = np.arange(1, len(charset) + 1)
        base = len(charset) + 1
        if base**char_order >= _KEY_LIMIT:
            return None
        ids = np.split(inverse.reshape(-1) + 1, np.cumsum([sum(map(len, slot)) for slot in texts])[:-1])
        chars = _EncodedReferences([(i, _lengths(t)) for i, t in zip(ids, texts)], base, char_order)
    if word_order:
        tokens = [[split_punctuation(text) for text in slot] for slot in slots]
        vocabulary = {word: i for i, word in enumerate(dict.fromkeys(chain.from_iterable(chain(*tokens))), 1)}
        base = len(vocabulary) + 1
        if base**word_order >= _KEY_LIMIT:
            return None
        encoded = [
            (np.fromiter(map(vocabulary.__getitem__, chain.from_iterable(t)), dtype=np.int64), _lengths(t))
            for t in tokens
        ]
        words = _EncodedReferences(encoded, base, word_order)
    return _ReferenceSet(n_slots, char_ids, vocabulary, chars, words)


def _prepare(text: str, lowercase: bool) -> str:
    return text.lower() if lowercase else text


def _characters(text: str, whitespace: bool) -> str:
    return text if whitespace else "".join(text.split())


def _ngram_totals(lens: np.ndarray, max_order: int) -> np.ndarray:
    """(n_segments, max_order): max(len - n + 1, 0), the number of n-grams of each order."""
    return np.maximum(lens[:, None] - np.arange(max_order)[None, :], 0)


# -- the metric --------------------------------------------------------------------------------------------------
@lru_cache(maxsize=REFERENCE_CACHE_SIZE)
def _reference_ngrams(
    references: tuple[str, ...], char_order: int, word_order: int, lowercase: bool, whitespace: bool
) -> tuple[list[Counter], ...]:
    """Each reference's character n-gram counts followed by its word n-gram counts."""
    return tuple(_ngrams(ref, char_order, word_order, lowercase, whitespace) for ref in references)


def _ngrams(text: str, char_order: int, word_order: int, lowercase: bool, whitespace: bool) -> list[Counter]:
    text = _prepare(text, lowercase)
    counts = char_ngram_counts(_characters(text, whitespace), char_order)
    if word_order:
        counts += ngram_counts(split_punctuation(text), word_order)
    return counts


#: the highest char_order / word_order: each order adds three statistics per segment (memory and time grow with it);
#: sacrebleu's defaults are 6 and 0 (2 for chrF++).
MAX_ORDER = MAX_NGRAM_ORDER


def _check_order(name: str, value: object, default: int) -> None:
    check_int(name, value, 0, MAX_ORDER, f"default {default}")


@dataclass(frozen=True)
class CHRF:
    """A chrF configuration (sacrebleu's ``CHRF`` arguments); ``word_order=2`` is chrF++."""

    char_order: int = 6
    word_order: int = 0
    beta: float = 2
    lowercase: bool = False
    whitespace: bool = False
    eps_smoothing: bool = False

    def __post_init__(self) -> None:
        _check_order("char_order", self.char_order, 6)
        _check_order("word_order", self.word_order, 0)
        if self.char_order + self.word_order == 0:
            raise OptionError("char_order and word_order are both 0: nothing to count; use char_order=6 (chrF) "
                             "or char_order=6, word_order=2 (chrF++).")
        check_real("beta", self.beta, 0, MAX_BETA, "recall is beta times as important as precision; default 2")

    @property
    def order(self) -> int:
        return self.char_order + self.word_order

    # -- statistics -------------------------------------------------------------------------------------------
    def segment_statistics(self, prediction: str, references: Sequence[str]) -> list[int]:
        """``[hyp_n, ref_n, match_n]`` for each order (characters, then words), against the best reference."""
        options = (self.char_order, self.word_order, self.lowercase, self.whitespace)
        hyp_ngrams = _ngrams(prediction, *options)
        best: list[int] = []
        best_score = -1.0
        for ref_ngrams in _reference_ngrams(tuple(references), *options):
            stats = []
            for hyp, ref in zip(hyp_ngrams, ref_ngrams):
                stats += (sum(hyp.values()) if ref else 0, sum(ref.values()), clipped_matches(hyp, ref))
            if len(references) == 1:
                return stats
            score = self.f_scores([stats])[0]
            if score > best_score:
                best, best_score = stats, score
        return best

    def corpus_statistics(self, predictions: Sequence[str], references: Sequence[Sequence[str]]) -> np.ndarray:
        """Per-segment statistics, shape (n_segments, 3 * (char_order + word_order)), int64."""
        n_segments = len(predictions)
        encoded = _reference_set(tuple(map(tuple, references)), self.char_order, self.word_order, self.lowercase,
                                 self.whitespace)
        if encoded is None:  # keys too wide for int64: count n-grams segment by segment
            rows = [self.segment_statistics(pred, refs) for pred, refs in zip(predictions, references)]
            return np.array(rows, dtype=np.int64).reshape(n_segments, 3 * self.order)
        texts = [_prepare(text, self.lowercase) for text in predictions]
        parts = []  # per kind: (hypothesis lengths, per-slot reference lengths, per-slot matches)
        if encoded.chars is not None:
            chars = [_characters(text, self.whitespace) for text in texts]
            ids = encoded.char_ids[np.minimum(_codepoints(chars), len(encoded.char_ids) - 1)]
            lens = _lengths(chars)
            parts.append((lens, encoded.chars.lens, encoded.chars.matches(ids, lens), self.char_order))
        if encoded.words is not None:
            tokens = [split_punctuation(text) for text in texts]
            get = encoded.vocabulary.get
            ids = np.fromiter(map(get, chain.from_iterable(tokens), repeat(0)), dtype=np.int64)
            lens = _lengths(tokens)
            parts.append((lens, encoded.words.lens, encoded.words.matches(ids, lens), self.word_order))
        best = np.zeros((n_segments, 3 * self.order), dtype=np.int64)
        best_score = np.full(n_segments, -1.0)
        for slot in range(len(parts[0][1])):
            stats = np.empty((n_segments, self.order, 3), dtype=np.int64)
            column = 0
            for hyp_lens, ref_lens, matches, order in parts:
                n_ref = _ngram_totals(ref_lens[slot], order)
                stats[:, column : column + order, 0] = np.where(n_ref > 0, _ngram_totals(hyp_lens, order), 0)
                stats[:, column : column + order, 1] = n_ref
                stats[:, column : column + order, 2] = matches[slot]
                column += order
            stats = stats.reshape(n_segments, -1)
            if slot == 0:
                best = stats
                if len(parts[0][1]) > 1:
                    best_score = self.f_scores(stats)
                continue
            score = np.where(encoded.n_slots > slot, self.f_scores(stats), -1.0)
            better = score > best_score
            best[better], best_score[better] = stats[better], score[better]
        return best

    def pairwise_scores(self, groups: Sequence[tuple[Sequence[str], Sequence[str]]],
                        max_pairs: int = PAIRS_PER_BLOCK) -> list[np.ndarray]:
        """For each group ``(hypotheses, references)``, the ``(len(hypotheses), len(references))`` matrix of the
        sentence chrF of every hypothesis against every reference alone: what :meth:`sentence_score` (and
        ``compute_chrf(..., sentence_scores=True)``) gives pair by pair, to the last bit (the same integer statistics,
        scored by :func:`f_scores`).

        Each distinct text of a group is prepared and counted once; the clipped matches of all its pairs come from
        sparse products of the groups' n-gram count matrices (:func:`nlgmetrics.text.ngrams.pairwise_clipped_matches`),
        ``max_pairs`` pairs at a time, so memory stays bounded whatever the group sizes (MBR utilities)."""
        from nlgmetrics.options import pair_blocks
        from nlgmetrics.text.ngrams import pairwise_clipped_matches

        hyp_units, ref_units, kinds = self._group_counts(groups)
        out = [np.empty((len(h), len(r))) for h, r in zip(hyp_units, ref_units)]
        for pieces in pair_blocks([(len(h), len(r)) for h, r in zip(hyp_units, ref_units)], max_pairs):
            rows = np.concatenate([np.repeat(hyp_units[g][a:b], len(ref_units[g])) for g, a, b in pieces])
            cols = np.concatenate([np.tile(ref_units[g], b - a) for g, a, b in pieces])
            stats = np.empty((len(rows), self.order, 3), dtype=np.int64)
            column = 0
            for matrices, totals in kinds:
                for n, counts in enumerate(matrices):
                    ref_total = totals[cols, n]
                    stats[:, column + n, 0] = np.where(ref_total > 0, totals[rows, n], 0)
                    stats[:, column + n, 1] = ref_total
                    stats[:, column + n, 2] = pairwise_clipped_matches(counts, rows, cols)
                column += len(matrices)
            scores = self.f_scores(stats.reshape(len(rows), -1))
            start = 0
            for g, a, b in pieces:
                size = (b - a) * len(ref_units[g])
                out[g][a:b] = scores[start : start + size].reshape(b - a, len(ref_units[g]))
                start += size
        return out

    def aggregate_scores(self, groups: Sequence[tuple[Sequence[str], Sequence[str]]]) -> list[np.ndarray]:
        """For each group ``(hypotheses, references)``, the chrF of every hypothesis against the *aggregated*
        reference (Vamvas & Sennrich 2024, MBR's reference aggregation): per n-gram ``g`` the mean count over the
        references ``r_bar(g) = (1/R) sum_j c_j(g)``; then ``match_n = sum_g min(c_h(g), r_bar(g))``, ``ref_n =
        sum_g r_bar(g)`` and ``hyp_n`` as usual (0 where no reference has an n-gram of order n), scored by
        :func:`f_scores` in float64. With one reference this is the sentence chrF against it."""
        hyp_units, ref_units, kinds = self._group_counts(groups)
        n_units = len(kinds[0][1])
        # each reference's weight 1/R (a text given twice counts twice): a column of the count matrices belongs to
        # one group, so weight-summing the rows gives each group's r_bar in its own columns
        weight = np.zeros(n_units)
        for refs in ref_units:
            np.add.at(weight, refs, 1.0 / len(refs))
        group_of = np.zeros(n_units, dtype=np.int64)
        for g, refs in enumerate(ref_units):
            group_of[refs] = g
        rows = np.concatenate(hyp_units) if hyp_units else np.zeros(0, np.int64)
        row_group = np.repeat(np.arange(len(hyp_units)), [len(h) for h in hyp_units])
        stats = np.empty((len(rows), self.order, 3))
        column = 0
        for matrices, totals in kinds:
            ref_totals = np.zeros((len(ref_units), totals.shape[1]))
            np.add.at(ref_totals, group_of, totals * weight[:, None])  # sum_g r_bar(g) = the mean reference total
            for n, counts in enumerate(matrices):
                mean = counts.T @ weight  # r_bar of every (group, n-gram) column
                hyp = counts[rows].tocoo()
                clipped = np.minimum(hyp.data, mean[hyp.col])
                ref_total = ref_totals[row_group, n]
                stats[:, column + n, 0] = np.where(ref_total > 0, totals[rows, n], 0)
                stats[:, column + n, 1] = ref_total
                stats[:, column + n, 2] = np.bincount(hyp.row, weights=clipped, minlength=len(rows))
            column += len(matrices)
        scores = self.f_scores(stats.reshape(len(rows), -1))
        return np.split(scores, np.cumsum([len(h) for h in hyp_units])[:-1]) if hyp_units else []

    def _group_counts(self, groups: Sequence[tuple[Sequence[str], Sequence[str]]]
                      ) -> tuple[list[np.ndarray], list[np.ndarray], list[tuple[list, np.ndarray]]]:
        """Each group's distinct texts as units (``hyp_units[g][i]``, ``ref_units[g][j]``: the unit of each text)
        and, per kind (characters, then words), the units' n-gram count matrices and n-gram totals."""
        from nlgmetrics.text.ngrams import ngram_count_matrices

        units: dict[tuple[int, str], int] = {}
        hyp_units, ref_units = [], []
        for g, (hypotheses, references) in enumerate(groups):
            hyp_units.append(np.array([units.setdefault((g, t), len(units)) for t in hypotheses], dtype=np.int64))
            ref_units.append(np.array([units.setdefault((g, t), len(units)) for t in references], dtype=np.int64))
        unit_group = np.fromiter((g for g, _ in units), dtype=np.int64, count=len(units))
        texts = [_prepare(text, self.lowercase) for _, text in units]
        kinds = []
        if self.char_order:
            chars = [_characters(text, self.whitespace) for text in texts]
            _, ids = np.unique(_codepoints(chars), return_inverse=True)
            lens = _lengths(chars)
            kinds.append((ngram_count_matrices(ids.reshape(-1), lens, unit_group, self.char_order,
                                               int(ids.max(initial=0)) + 1), _ngram_totals(lens, self.char_order)))
        if self.word_order:
            tokens = [split_punctuation(text) for text in texts]
            vocabulary: dict[str, int] = {}
            ids = np.fromiter((vocabulary.setdefault(w, len(vocabulary)) for w in chain.from_iterable(tokens)),
                              dtype=np.int64)
            lens = _lengths(tokens)
            kinds.append((ngram_count_matrices(ids, lens, unit_group, self.word_order, max(len(vocabulary), 1)),
                          _ngram_totals(lens, self.word_order)))
        return hyp_units, ref_units, kinds

    # -- scores -----------------------------------------------------------------------------------------------
    def f_scores(self, stats: np.ndarray | Sequence) -> np.ndarray:
        """chrF (0-100) of each row of statistics."""
        return f_scores(stats, self.beta, self.eps_smoothing)

    def scores_from_statistics(self, rows: np.ndarray) -> np.ndarray:
        """chrF of each row of a (k, 3N) matrix of summed statistics at once (as score_from_statistics per row)."""
        return self.f_scores(rows)

    def score_from_statistics(self, stats: Sequence) -> CHRFScore:
        """chrF from summed (or one segment's) statistics (float32 statistics: a float32 score, see f_scores)."""
        score = self.f_scores(np.asarray(stats).reshape(1, -1))[0]
        score = score if score.dtype == np.float32 else float(score)
        return CHRFScore(score, self.char_order, self.word_order, self.beta)

    def corpus_score(self, predictions: Sequence[str], references: Sequence[Sequence[str]]) -> CHRFScore:
        return self.score_from_statistics(self.corpus_statistics(predictions, references).sum(axis=0))

    def sentence_score(self, prediction: str, references: Sequence[str]) -> CHRFScore:
        """Sentence chrF, as ``sacrebleu.sentence_chrf``."""
        return self.score_from_statistics(self.segment_statistics(prediction, references))

    def signature(self, nrefs: int | str, n_bootstrap: int | None = None, seed: int | None = None) -> str:
        """sacrebleu's signature (:mod:`nlgmetrics.signature`), e.g. ``nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|
        version:nlgmetrics-...``; ``beta:B`` when beta is not 2 (sacrebleu's format has no such part)."""
        from nlgmetrics.signature import bootstrap_parts, build, unless_default

        return build([
            ("nrefs", nrefs), *bootstrap_parts(n_bootstrap, seed), ("case", "lc" if self.lowercase else "mixed"),
            ("eff", not self.eps_smoothing), ("nc", self.char_order), ("nw", self.word_order),
            ("space", self.whitespace), ("beta", unless_default(self.beta, 2)),
        ])


@checked_options
def compute_chrf(
    predictions: Sequence[str],
    references: Sequence[str | Sequence[str]],
    *,
    char_order: int = 6,
    word_order: int = 0,
    beta: float = 2,
    lowercase: bool = False,
    whitespace: bool = False,
    eps_smoothing: bool = False,
    sentence_scores: bool = False,
    n_bootstrap: int = 0,
    seed: int | None = DEFAULT_SEED,
) -> dict:
    """Corpus chrF (chrF++ with ``word_order=2``) of ``predictions`` against ``references`` (a string or a list of
    strings per prediction, any count).

    Returns HF evaluate's ``chrf`` keys (``score`` 0-100, ``char_order``, ``word_order``, ``beta``) and
    ``signature``. With ``sentence_scores=True``, ``scores`` holds each example's sentence chrF (as
    ``sacrebleu.sentence_chrf`` with the same options). With ``n_bootstrap`` >= 2, ``score_mean``, ``score_ci``
    (half-width of the 95% interval), ``score_low`` and ``score_high`` come from a seeded bootstrap over segments
    (sacrebleu's resampling; same seed, same interval).
    """
    preds, refs = check_pairs(predictions, references)
    chrf = CHRF(char_order, word_order, beta, lowercase, whitespace, eps_smoothing)
    stats = chrf.corpus_statistics(preds, refs)
    result = chrf.score_from_statistics(stats.sum(axis=0))
    nrefs = count_references(refs)
    out: dict = {"score": result.score, "char_order": char_order, "word_order": word_order, "beta": beta}
    if sentence_scores:
        out["scores"] = chrf.f_scores(stats).tolist()
    if n_bootstrap:
        # the resampled corpus statistics (identity score), scored all at once; in float32, as sacrebleu's
        # corpus_score(n_bootstrap=...), so the interval is sacrebleu's exactly
        sums = np.array(bootstrap_corpus_scores(stats, lambda summed: summed, n_bootstrap, seed, float32=True))
        interval = sacrebleu_interval(chrf.f_scores(sums), single_system=True)
        out.update({f"score_{key}": value for key, value in interval.items()})
    out["signature"] = chrf.signature(nrefs, n_bootstrap or None, seed if n_bootstrap else None)
    return out
