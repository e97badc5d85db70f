"""BLEU (Papineni et al., 2002) in its two common flavours, on one set of per-segment statistics.

Flow: text -> tokens -> per-segment statistics ``[hyp_len, closest_ref_len, correct_1..N, total_1..N,
shortest_ref_len]`` -> summed -> score. ``correct_n`` are the clipped n-gram matches (each n-gram counted at most as
often as in the reference that has most of it), ``total_n = max(hyp_len - n + 1, 0)``.

sacrebleu 2.6 (:func:`compute_sacrebleu`, and the ``score`` keys of :func:`compute_bleu`), score for score::

    p_n  = correct_n / total_n                (smoothed as below when correct_n = 0)
    BP   = 1 if c >= r else exp(1 - r / c)     c: hypothesis length, r: closest reference length (ties: shorter)
    BLEU = 100 * BP * exp(mean_n log p_n)

Smoothing (Chen & Cherry 2014): ``exp`` (mteval-v13a, corpus default): the k-th zero precision becomes
1 / (2^k total_n); ``floor``: zero precisions become smooth_value / total_n (0.1); ``add-k``: k is added to correct
and total for n > 1 (1); ``none``; ours, not sacrebleu's: ``add-one``, smooth_value (1) added to correct and total
for every order, unigrams included: BLEU+1 (Lin & Och 2004), the SentBLEU of the WMT metrics tasks (WMT17's
published SentBLEU correlations are BLEU+1's; a segment without any match still scores above 0).
``effective_order`` stops at the highest order with any n-gram (use it for sentence BLEU). If no n-gram matches at
all the score is 0 (except with ``add-one``).

tensorflow-nmt (Hugging Face evaluate's ``bleu`` module; the HF keys of :func:`compute_bleu`), in 0-1::

    p_n  = correct_n / total_n  (0 if total_n = 0), or (correct_n + 1) / (total_n + 1) for every n with smooth=True
    BP   = 1 if c > r else exp(1 - 1 / (c / r))   r: each segment's shortest reference, summed; 0 if c or r is 0
    BLEU = BP * exp(sum_n log(p_n) / N), and 0 if any p_n is 0

Tokens come from a tokenizer name (``"13a"``, ``"intl"``, ... applied as sacrebleu applies them) or a callable
(HF's ``tokenizer=``), see :func:`nlgmetrics.text.tokenizers.text_tokens`.

Corpus statistics are computed for all segments at once on integer n-gram codes (``nlgmetrics.text.ngrams``): each
segment's clipped matches come from one sort of reference and hypothesis keys, the reference side holding each
n-gram as often as the reference that has most of it. The encoded references are cached per reference set (and,
for single segments, per reference tuple), so scoring several systems against the same references tokenizes and
counts them once.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import chain, repeat

import numpy as np

from nlgmetrics.errors import OptionError
from nlgmetrics._cache import REFERENCE_CORPUS_BYTES, byte_lru_cache
from nlgmetrics.inputs import check_pairs
from nlgmetrics.options import check_int, check_real, checked_options
from nlgmetrics.signature import nrefs as count_references
from nlgmetrics.stats import DEFAULT_SEED, bootstrap_corpus_scores, sacrebleu_interval
from nlgmetrics.text.ngrams import (
    clipped_matches,
    ngram_codes,
    ngram_counts,
    segment_clipped_matches,
)
from nlgmetrics.text.tokenizers import (
    BLEU_TOKENIZERS,
    TokenizerSpec,
    call_cached,
    check_tokenizer,
    text_tokens,
    tokenize_13a,
    tokenize_13a_batch,
    tokenizer_name,
)

SMOOTH_DEFAULTS: dict[str, float | None] = {"none": None, "floor": 0.1, "add-k": 1, "exp": None, "add-one": 1}
REFERENCE_CACHE_SIZE = 2**17
MAX_SMOOTH_VALUE = 1e6  # keeps every score finite, float32 resampling (compare) included


@dataclass(frozen=True)
class BLEUScore:
    """One BLEU result; ``score`` and ``precisions`` are on sacrebleu's 0-100 scale."""

    score: float
    counts: list
    totals: list
    precisions: list[float]
    bp: float
    sys_len: int
    ref_len: int

    @property
    def ratio(self) -> float:
        return self.sys_len / self.ref_len if self.ref_len else 0.0


@lru_cache(maxsize=REFERENCE_CACHE_SIZE)
def _reference_info(
    references: tuple[str, ...], tokenize: TokenizerSpec, lowercase: bool, max_order: int
) -> tuple[tuple[int, ...], tuple[dict, ...]]:
    """Lengths of the references and, per n-gram order, the maximum count of each n-gram over them."""
    lengths = []
    maxima: list[dict] = [{} for _ in range(max_order)]
    for ref in references:
        tokens = text_tokens(ref, tokenize, lowercase)
        lengths.append(len(tokens))
        for order_max, counts in zip(maxima, ngram_counts(tokens, max_order)):
            if not order_max:
                order_max.update(counts)
                continue
            for gram, count in counts.items():
                if count > order_max.get(gram, 0):
                    order_max[gram] = count
    return tuple(lengths), tuple(maxima)


@dataclass(frozen=True)
class _EncodedReferences:
    """A reference corpus as integers, for :meth:`BLEU.corpus_statistics` (see ``nlgmetrics.text.ngrams``)."""

    vocabulary: dict  # token -> id
    tables: list[np.ndarray]  # per order, the sorted n-gram keys of ngram_codes
    sizes: list[int]  # per order, the number of distinct reference n-grams (codes are below it)
    maxima: list[np.ndarray]  # per order, 2 * (segment * size + code) once per clipping count, sorted
    lengths: np.ndarray  # (n_segments, most references) token counts; -1 where a segment has fewer references


def _tokens_of(texts: Sequence[str], tokenize: TokenizerSpec, lowercase: bool) -> list[tuple]:
    """``text_tokens`` of every text (13a: all texts at once, see ``tokenize_13a_batch``)."""
    if isinstance(tokenize, str) and tokenize == "13a":
        return tokenize_13a_batch([text.lower() for text in texts] if lowercase else texts)
    return [text_tokens(text, tokenize, lowercase) for text in texts]


@byte_lru_cache(REFERENCE_CORPUS_BYTES)
def _encode_references(
    references: Sequence[Sequence[str]], tokenize: TokenizerSpec, lowercase: bool, max_order: int
) -> _EncodedReferences:
    """Every reference's n-grams coded once; per segment and n-gram, the most times any one reference has it."""
    counts = np.fromiter(map(len, references), dtype=np.int64, count=len(references))
    row_segment = np.repeat(np.arange(len(references), dtype=np.int64), counts)  # each reference's segment
    tokens = _tokens_of(list(chain.from_iterable(references)), tokenize, lowercase)
    vocabulary = {token: i for i, token in enumerate(dict.fromkeys(chain.from_iterable(tokens)))}
    ids = np.fromiter(map(vocabulary.__getitem__, chain.from_iterable(tokens)), dtype=np.int64)
    row_lens = np.fromiter(map(len, tokens), dtype=np.int64, count=len(tokens))
    tables, found = ngram_codes(ids, row_lens, max_order, len(vocabulary))
    sizes = [len(vocabulary)] + [len(table) for table in tables[1:]]
    maxima = []
    for (rows, codes), size in zip(found, sizes):
        keys, times = np.unique(rows * size + codes, return_counts=True)  # each reference's n-gram counts
        segment_keys = row_segment[keys // size] * size + keys % size
        if len(row_segment) > len(references) and len(keys):  # several references: the most of any one, per segment
            order = np.argsort(segment_keys, kind="stable")
            segment_keys, times = segment_keys[order], times[order]
            first = np.flatnonzero(np.concatenate(([True], segment_keys[1:] != segment_keys[:-1])))
            segment_keys, times = segment_keys[first], np.maximum.reduceat(times, first)
        maxima.append(np.repeat(segment_keys * 2, times))
    lengths = np.full((len(references), int(counts.max(initial=1))), -1, dtype=np.int64)
    lengths[row_segment, np.arange(len(row_segment)) - np.repeat(np.cumsum(counts) - counts, counts)] = row_lens
    return _EncodedReferences(vocabulary, tables, sizes, maxima, lengths)


def _count(value: object) -> int | np.float32:
    return value if isinstance(value, np.float32) else int(value)


def closest_reference_length(hyp_len: int, ref_lens: Sequence[int]) -> int:
    """The reference length closest to the hypothesis length; ties go to the shorter reference."""
    return min(ref_lens, key=lambda ref_len: (abs(hyp_len - ref_len), ref_len))


def check_max_order(value: object, name: str) -> int:
    return check_int(name, value, 1, 9, "the highest n-gram order")


@dataclass(frozen=True)
class BLEU:
    """A BLEU configuration: tokenization, casing, smoothing and n-gram order (sacrebleu's ``BLEU`` arguments).

    ``tokenize`` is a name of ``BLEU_TOKENIZERS`` or a callable text -> list of tokens (see the module docstring).
    """

    tokenize: TokenizerSpec = "13a"
    lowercase: bool = False
    smooth_method: str = "exp"
    smooth_value: float | None = None
    max_ngram_order: int = 4
    effective_order: bool = False
    _smooth: float | None = field(init=False, repr=False, compare=False, default=None)

    def __post_init__(self) -> None:
        check_tokenizer(self.tokenize)
        if self.smooth_method not in SMOOTH_DEFAULTS:
            raise OptionError(
                f"unknown smooth_method={self.smooth_method!r}; choose one of {sorted(SMOOTH_DEFAULTS)} "
                "('exp' is sacrebleu's corpus default)."
            )
        check_max_order(self.max_ngram_order, "max_ngram_order")
        value = SMOOTH_DEFAULTS[self.smooth_method] if self.smooth_value is None else self.smooth_value
        if value is not None:
            check_real("smooth_value", value, 0, MAX_SMOOTH_VALUE,
                       "floor: the precision of an order without matches; add-k: k; larger ones overflow")
        object.__setattr__(self, "_smooth", value)

    @property
    def tokenizer_name(self) -> str:
        """The tokenizer as the signature shows it (:func:`~nlgmetrics.text.tokenizers.tokenizer_name`)."""
        return tokenizer_name(self.tokenize)

    # -- statistics -------------------------------------------------------------------------------------------
    def _references(self, references: Sequence[str]) -> tuple[tuple[int, ...], tuple[dict, ...]]:
        key = (tuple(references), self.tokenize, self.lowercase, self.max_ngram_order)
        return call_cached(_reference_info, *key)

    def segment_statistics(self, prediction: str, references: Sequence[str]) -> list[int]:
        """``[hyp_len, closest_ref_len, correct_1..N, total_1..N, shortest_ref_len]`` for one prediction."""
        order = self.max_ngram_order
        ref_lens, ref_maxima = self._references(references)
        tokens = text_tokens(prediction, self.tokenize, self.lowercase)
        hyp_len = len(tokens)
        correct = [clipped_matches(counts, ref_max) for counts, ref_max in zip(ngram_counts(tokens, order), ref_maxima)]
        totals = [max(hyp_len - n, 0) for n in range(order)]
        return [hyp_len, closest_reference_length(hyp_len, ref_lens), *correct, *totals, min(ref_lens)]

    def corpus_statistics(self, predictions: Sequence[str], references: Sequence[Sequence[str]]) -> np.ndarray:
        """Per-segment statistics, shape (n_segments, 3 + 2 * max_ngram_order), int64: :meth:`segment_statistics`
        of every segment, computed for all of them at once on integer n-gram codes. The encoded references are
        cached, so scoring several systems against the same references tokenizes and counts them once."""
        order = self.max_ngram_order
        key = (tuple(map(tuple, references)), self.tokenize, self.lowercase, order)
        encoded = call_cached(_encode_references, *key)
        tokens = _tokens_of(predictions, self.tokenize, self.lowercase)
        get = encoded.vocabulary.get
        ids = np.fromiter(map(get, chain.from_iterable(tokens), repeat(-1)), dtype=np.int64)
        hyp_lens = np.fromiter(map(len, tokens), dtype=np.int64, count=len(tokens))
        n_segments = len(tokens)
        _, found = ngram_codes(ids, hyp_lens, order, len(encoded.vocabulary), encoded.tables)
        stats = np.empty((n_segments, 3 + 2 * order), dtype=np.int64)
        stats[:, 0] = hyp_lens
        for n, ((segments, codes), size, maxima) in enumerate(zip(found, encoded.sizes, encoded.maxima)):
            stats[:, 2 + n] = segment_clipped_matches(maxima, segments * size + codes, size, n_segments)
            stats[:, 2 + order + n] = np.maximum(hyp_lens - n, 0)
        lengths = encoded.lengths
        present = lengths >= 0
        closeness = np.abs(hyp_lens[:, None] - lengths) * (lengths.max(initial=0) + 1) + lengths  # ties: shorter
        closest = np.where(present, closeness, np.iinfo(np.int64).max).argmin(axis=1)
        stats[:, 1] = lengths[np.arange(n_segments), closest]
        stats[:, -1] = np.where(present, lengths, np.iinfo(np.int64).max).min(axis=1)
        return stats

    # -- scores -----------------------------------------------------------------------------------------------
    def score_from_statistics(self, stats: Sequence, effective_order: bool | None = None) -> BLEUScore:
        """sacrebleu's BLEU from summed (or one segment's) statistics.

        float32 statistics (sacrebleu's bootstrap resamples, see nlgmetrics.comparison) are scored in float32
        arithmetic, as sacrebleu scores them; other counts as Python integers.
        """
        order = self.max_ngram_order
        sys_len, ref_len = int(stats[0]), int(stats[1])
        correct = [_count(x) for x in stats[2 : 2 + order]]
        totals = [_count(x) for x in stats[2 + order : 2 + 2 * order]]
        effective = self.effective_order if effective_order is None else effective_order
        bp = 1.0
        if sys_len < ref_len:
            bp = math.exp(1 - ref_len / sys_len) if sys_len > 0 else 0.0
        precisions = [0.0] * order
        add_one = self.smooth_method == "add-one"
        if add_one and (sys_len == 0 or int(stats[-1]) == 0):  # BLEU+1 as HF's bleu: no words on a side, BLEU 0
            return BLEUScore(0.0, correct, totals, precisions, 0.0, sys_len, ref_len)
        if not any(correct) and not add_one:
            return BLEUScore(0.0, correct, totals, precisions, bp, sys_len, ref_len)

        used_orders, zero_precisions = order, 0
        for n in range(order):
            if (self.smooth_method == "add-k" and n > 0) or add_one:
                correct[n] += self._smooth
                totals[n] += self._smooth
            if totals[n] == 0:
                break
            if effective:
                used_orders = n + 1
            if correct[n] == 0:
                if self.smooth_method == "exp":
                    zero_precisions += 1
                    precisions[n] = 100.0 / (2**zero_precisions * totals[n])
                elif self.smooth_method == "floor":
                    precisions[n] = 100.0 * self._smooth / totals[n]
            else:
                precisions[n] = 100.0 * correct[n] / totals[n]
        log_mean = sum(math.log(p) if p > 0 else -9999999999 for p in precisions[:used_orders]) / used_orders
        return BLEUScore(bp * math.exp(log_mean), correct, totals, precisions, bp, sys_len, ref_len)

    def nmt_score_from_statistics(self, stats: Sequence, smooth: bool = False) -> dict:
        """tensorflow-nmt's BLEU (HF evaluate's ``bleu``) from summed statistics, with HF's keys (0-1 scale)."""
        order = self.max_ngram_order
        translation_length, reference_length = int(stats[0]), int(stats[-1])
        correct = stats[2 : 2 + order]
        totals = stats[2 + order : 2 + 2 * order]
        if smooth:
            precisions = [(int(m) + 1.0) / (int(t) + 1.0) for m, t in zip(correct, totals)]
        else:
            precisions = [int(m) / int(t) if t > 0 else 0.0 for m, t in zip(correct, totals)]
        geo_mean = math.exp(sum(1.0 / order * math.log(p) for p in precisions)) if min(precisions) > 0 else 0.0
        if translation_length == 0 or reference_length == 0:
            ratio = bp = 0.0
        else:
            ratio = translation_length / reference_length
            bp = 1.0 if ratio > 1.0 else math.exp(1 - 1.0 / ratio)
        return {"bleu": geo_mean * bp, "precisions": precisions, "brevity_penalty": bp, "length_ratio": ratio,
                "translation_length": translation_length, "reference_length": reference_length}

    def corpus_score(self, predictions: Sequence[str], references: Sequence[Sequence[str]]) -> BLEUScore:
        return self.score_from_statistics(self.corpus_statistics(predictions, references).sum(axis=0))

    def sentence_score(self, prediction: str, references: Sequence[str], effective_order: bool = True) -> BLEUScore:
        """Sentence BLEU as ``sacrebleu.sentence_bleu`` (effective order on by default)."""
        return self.score_from_statistics(self.segment_statistics(prediction, references), effective_order)

    def signature(self, nrefs: int | str, n_bootstrap: int | None = None, seed: int | None = None,
                  hf_smooth: bool = False) -> str:
        """sacrebleu's signature (:mod:`nlgmetrics.signature`), e.g. ``nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|
        version:nlgmetrics-0.1.0``; ``order:N`` when the n-gram order is not 4 (sacrebleu's format has no such part)
        and ``hf-smooth:yes`` for HF's add-one smoothing of ``bleu`` (:func:`compute_bleu`'s ``smooth``)."""
        from nlgmetrics.signature import bootstrap_parts, build, unless_default

        smooth = self.smooth_method
        if SMOOTH_DEFAULTS[smooth] is not None:
            smooth += f"[{self._smooth:.2f}]"
        return build([
            ("nrefs", nrefs), *bootstrap_parts(n_bootstrap, seed),
            ("case", "lc" if self.lowercase else "mixed"), ("eff", self.effective_order), ("tok", self.tokenizer_name),
            ("smooth", smooth), ("order", unless_default(self.max_ngram_order, 4)),
            ("hf-smooth", unless_default(bool(hf_smooth), False)),
        ])


@dataclass(frozen=True)
class HFBLEU:
    """HF evaluate's ``bleu`` (tensorflow-nmt BLEU, 0-1) as a statistics configuration for paired tests
    (:mod:`nlgmetrics.comparison`): :class:`BLEU`'s per-segment statistics, summed, scored by
    :meth:`BLEU.nmt_score_from_statistics` (shortest reference lengths; ``smooth``: add-one on every order). Its
    arguments are :func:`compute_bleu`'s that change ``bleu``; the others change sacrebleu's ``score`` only."""

    tokenizer: TokenizerSpec = tokenize_13a
    max_order: int = 4
    smooth: bool = False
    lowercase: bool = False

    @property
    def bleu(self) -> BLEU:
        return BLEU(self.tokenizer, self.lowercase, max_ngram_order=check_max_order(self.max_order, "max_order"))

    def corpus_statistics(self, predictions: Sequence[str], references: Sequence[Sequence[str]]) -> np.ndarray:
        return self.bleu.corpus_statistics(predictions, references)

    def score_from_statistics(self, stats: Sequence) -> float:
        return self.bleu.nmt_score_from_statistics(stats, bool(self.smooth))["bleu"]

    def signature(self, nrefs: int | str) -> str:
        """:func:`compute_bleu`'s signature for these options."""
        return self.bleu.signature(nrefs, hf_smooth=bool(self.smooth))


def _sacrebleu_keys(
    bleu: BLEU,
    stats: np.ndarray,
    references: Sequence[Sequence[str]],
    sentence_scores: bool,
    sentence_effective_order: bool,
    n_bootstrap: int,
    seed: int | None,
    sentence_bleu: BLEU | None = None,
    hf_smooth: bool = False,
) -> dict:
    """sacrebleu's result keys (``precisions`` 0-100) for per-segment ``stats``, with signature and extras."""
    result = bleu.score_from_statistics(stats.sum(axis=0))
    nrefs = count_references(references)
    out = {"score": result.score, "counts": result.counts, "totals": result.totals, "precisions": result.precisions,
           "bp": result.bp, "sys_len": result.sys_len, "ref_len": result.ref_len}
    if sentence_scores:
        sentence = sentence_bleu or bleu
        out["scores"] = [sentence.score_from_statistics(row, sentence_effective_order).score for row in stats]
    if n_bootstrap:
        samples = bootstrap_corpus_scores(stats, lambda s: bleu.score_from_statistics(s).score, n_bootstrap, seed,
                                          float32=True)  # sacrebleu's corpus_score(n_bootstrap=...), exactly
        out.update({f"score_{key}": value for key, value in sacrebleu_interval(samples, single_system=True).items()})
    out["signature"] = bleu.signature(nrefs, n_bootstrap or None, seed if n_bootstrap else None, hf_smooth)
    return out


@checked_options
def compute_bleu(
    predictions: Sequence[str],
    references: Sequence[str | Sequence[str]],
    *,
    tokenizer: TokenizerSpec = tokenize_13a,
    max_order: int = 4,
    smooth: bool = False,
    lowercase: bool = False,
    smooth_method: str = "exp",
    smooth_value: float | None = None,
    effective_order: bool = False,
    sentence_scores: bool = False,
    sentence_effective_order: bool = True,
    n_bootstrap: int = 0,
    seed: int | None = DEFAULT_SEED,
) -> dict:
    """Corpus BLEU as Hugging Face evaluate's ``bleu`` module, plus sacrebleu's numbers for the same tokens.

    HF's arguments and keys, HF's numbers (tensorflow-nmt semantics, 0-1): ``tokenizer`` (a callable text -> tokens,
    default mteval-v13a as HF's ``Tokenizer13a``, or a name of ``BLEU_TOKENIZERS``), ``max_order``, ``smooth``
    (add-one on every order) -> ``bleu``, ``precisions``, ``brevity_penalty``, ``length_ratio``,
    ``translation_length``, ``reference_length`` (the shortest reference of each example, summed).

    sacrebleu's keys for the same tokens and ``max_order`` (closest reference length, ``smooth_method`` /
    ``smooth_value`` / ``effective_order``): ``score`` (0-100), ``counts``, ``totals``, ``sys_len``, ``ref_len``,
    ``signature``. With ``sentence_scores=True``, ``scores`` holds each example's sentence BLEU (0-100, as
    ``sacrebleu.sentence_bleu`` with ``sentence_effective_order``; with ``smooth=True``, BLEU+1: add-one on every
    order, as ``smooth`` does for ``bleu`` and as WMT's SentBLEU). With ``n_bootstrap`` >= 2, ``score_mean``,
    ``score_ci`` (half-width of the 95% interval), ``score_low`` and ``score_high`` come from a seeded bootstrap over
    segments (sacrebleu's resampling). On one reference per example the two ``bleu`` values agree to 1e-15 on
    corpora where every order has a match; :func:`compute_sacrebleu` gives sacrebleu's numbers under its own names.
    """
    preds, refs = check_pairs(predictions, references)
    bleu = BLEU(tokenizer, lowercase, smooth_method, smooth_value, check_max_order(max_order, "max_order"),
                effective_order)
    sentence = None
    if smooth and sentence_scores:  # HF's smooth (add-one on every order) applies to the segment scores too: BLEU+1
        if smooth_method not in ("exp", "add-one"):
            raise OptionError(f"smooth=True (add-one on every order, BLEU+1) and smooth_method={smooth_method!r} "
                             "disagree for the sentence scores: give one of them.")
        sentence = BLEU(tokenizer, lowercase, "add-one", None, bleu.max_ngram_order, effective_order)
    stats = bleu.corpus_statistics(preds, refs)
    out = bleu.nmt_score_from_statistics(stats.sum(axis=0), bool(smooth))
    sacre = _sacrebleu_keys(bleu, stats, refs, sentence_scores, sentence_effective_order, n_bootstrap, seed,
                            sentence, bool(smooth))
    del sacre["precisions"], sacre["bp"]  # HF's precisions and brevity_penalty are the ones above
    return {**out, **sacre}


@checked_options
def compute_sacrebleu(
    predictions: Sequence[str],
    references: Sequence[str | Sequence[str]],
    *,
    smooth_method: str = "exp",
    smooth_value: float | None = None,
    force: bool = False,
    lowercase: bool = False,
    tokenize: str | None = None,
    use_effective_order: bool = False,
    max_ngram_order: int = 4,
    sentence_scores: bool = False,
    sentence_effective_order: bool = True,
    n_bootstrap: int = 0,
    seed: int | None = DEFAULT_SEED,
) -> dict:
    """Corpus BLEU exactly as ``sacrebleu.corpus_bleu`` 2.6, with HF evaluate ``sacrebleu``'s arguments and keys.

    HF's: ``smooth_method``, ``smooth_value``, ``force``, ``lowercase``, ``tokenize`` (None or '' -> '13a'),
    ``use_effective_order`` -> ``score`` (0-100), ``counts``, ``totals``, ``precisions`` (0-100), ``bp``,
    ``sys_len``, ``ref_len``. Ours: ``max_ngram_order``; ``signature``; ``sentence_scores`` -> ``scores``;
    ``n_bootstrap``/``seed`` -> ``score_mean``, ``score_ci``, ``score_low``, ``score_high``. References may vary in
    number per example (sacrebleu's None-padded streams; HF's module requires the same number). As sacrebleu, unless
    ``force=True`` a warning says when 100 or more predictions end in " ." (tokenized text); the score is unchanged.
    """
    preds, refs = check_pairs(predictions, references)
    bleu = BLEU(tokenize or "13a", lowercase, smooth_method, smooth_value, max_ngram_order, use_effective_order)
    stats = bleu.corpus_statistics(preds, refs)
    if not force and sum(pred.endswith(" .") for pred in preds) >= 100:
        warnings.warn(
            "100 or more predictions end in a tokenized period (' .'): it looks like the text was not detokenized, "
            "which may hurt the score. Pass force=True if it is detokenized or you don't care.",
            stacklevel=2,
        )
    return _sacrebleu_keys(bleu, stats, refs, sentence_scores, sentence_effective_order, n_bootstrap, seed)
