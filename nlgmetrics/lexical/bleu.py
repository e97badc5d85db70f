"""BLEU (Papineni et al., 2002) with sacrebleu 2.6 semantics, score for score.

Flow: text -> tokens (``nlgmetrics.text.tokenizers``) -> per-segment statistics
``[hyp_len, ref_len, correct_1..N, total_1..N]`` -> summed -> score::

    p_n  = correct_n / total_n                (smoothed as below when correct_n = 0)
    BP   = 1 if c >= r else exp(1 - r / c)     c: hypothesis length, r: closest reference length (ties: shorter)
    BLEU = 100 * BP * exp(mean_n log p_n)

Smoothing (Chen & Cherry 2014): ``exp`` (mteval-v13a, corpus default): the k-th zero precision becomes
1 / (2^k total_n); ``floor``: zero precisions become smooth_value / total_n (0.1); ``add-k``: k is added to correct
and total for n > 1 (1); ``none``. ``effective_order`` stops at the highest order with any n-gram (use it for
sentence BLEU). If no n-gram matches at all the score is 0.

Reference statistics (tokens, n-gram maxima, lengths) are cached per reference tuple, so scoring several systems
against the same references tokenizes them once.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from nlgmetrics import __version__
from nlgmetrics.inputs import check_pairs
from nlgmetrics.stats import DEFAULT_SEED, bootstrap_corpus_scores, sacrebleu_interval
from nlgmetrics.text.ngrams import clipped_matches, ngram_counts
from nlgmetrics.text.tokenizers import BLEU_TOKENIZERS, get_tokenizer

SMOOTH_DEFAULTS: dict[str, float | None] = {"none": None, "floor": 0.1, "add-k": 1, "exp": None}
REFERENCE_CACHE_SIZE = 2**17


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
    references: tuple[str, ...], tokenize: str, lowercase: bool, max_order: int
) -> tuple[tuple[int, ...], tuple[dict, ...]]:
    """Lengths of the references and, per n-gram order, the maximum count of each n-gram over them."""
    tokenizer = get_tokenizer(tokenize)
    lengths = []
    maxima: list[dict] = [{} for _ in range(max_order)]
    for ref in references:
        tokens = tokenizer((ref.lower() if lowercase else ref).rstrip())
        lengths.append(len(tokens))
        for order_max, counts in zip(maxima, ngram_counts(tokens, max_order)):
            if not order_max:
                order_max.update(counts)
                continue
            for gram, count in counts.items():
                if count > order_max.get(gram, 0):
                    order_max[gram] = count
    return tuple(lengths), tuple(maxima)


def _count(value: object) -> int | np.float32:
    return value if isinstance(value, np.float32) else int(value)


def closest_reference_length(hyp_len: int, ref_lens: Sequence[int]) -> int:
    """The reference length closest to the hypothesis length; ties go to the shorter reference."""
    return min(ref_lens, key=lambda ref_len: (abs(hyp_len - ref_len), ref_len))


@dataclass(frozen=True)
class BLEU:
    """A BLEU configuration: tokenization, casing, smoothing and n-gram order (sacrebleu's ``BLEU`` arguments)."""

    tokenize: str = "13a"
    lowercase: bool = False
    smooth_method: str = "exp"
    smooth_value: float | None = None
    max_ngram_order: int = 4
    effective_order: bool = False
    _smooth: float | None = field(init=False, repr=False, compare=False, default=None)

    def __post_init__(self) -> None:
        get_tokenizer(self.tokenize)
        if self.smooth_method not in SMOOTH_DEFAULTS:
            raise ValueError(
                f"unknown smooth_method={self.smooth_method!r}; choose one of {sorted(SMOOTH_DEFAULTS)} "
                "('exp' is sacrebleu's corpus default)."
            )
        if isinstance(self.max_ngram_order, bool) or not isinstance(self.max_ngram_order, int) or not (
            1 <= self.max_ngram_order <= 9
        ):
            raise ValueError(f"max_ngram_order must be an integer from 1 to 9, got {self.max_ngram_order!r}.")
        value = SMOOTH_DEFAULTS[self.smooth_method] if self.smooth_value is None else self.smooth_value
        if value is not None and (not isinstance(value, (int, float)) or isinstance(value, bool) or value < 0):
            raise ValueError(f"smooth_value must be a non-negative number, got {self.smooth_value!r}.")
        object.__setattr__(self, "_smooth", value)

    # -- statistics -------------------------------------------------------------------------------------------
    def segment_statistics(self, prediction: str, references: Sequence[str]) -> list[int]:
        """``[hyp_len, ref_len, correct_1..N, total_1..N]`` for one prediction against its references."""
        order = self.max_ngram_order
        ref_lens, ref_maxima = _reference_info(tuple(references), self.tokenize, self.lowercase, order)
        text = prediction.lower() if self.lowercase else prediction
        tokens = BLEU_TOKENIZERS[self.tokenize](text.rstrip())
        hyp_len = len(tokens)
        correct = [clipped_matches(counts, ref_max) for counts, ref_max in zip(ngram_counts(tokens, order), ref_maxima)]
        totals = [max(hyp_len - n, 0) for n in range(order)]
        return [hyp_len, closest_reference_length(hyp_len, ref_lens), *correct, *totals]

    def corpus_statistics(self, predictions: Sequence[str], references: Sequence[Sequence[str]]) -> np.ndarray:
        """Per-segment statistics, shape (n_segments, 2 + 2 * max_ngram_order), int64."""
        rows = [self.segment_statistics(pred, refs) for pred, refs in zip(predictions, references)]
        return np.array(rows, dtype=np.int64).reshape(len(rows), 2 + 2 * self.max_ngram_order)

    # -- scores -----------------------------------------------------------------------------------------------
    def score_from_statistics(self, stats: Sequence, effective_order: bool | None = None) -> BLEUScore:
        """BLEU from summed (or one segment's) statistics.

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
        if not any(correct):
            return BLEUScore(0.0, correct, totals, precisions, bp, sys_len, ref_len)

        used_orders, zero_precisions = order, 0
        for n in range(order):
            if self.smooth_method == "add-k" and n > 0:
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

    def corpus_score(self, predictions: Sequence[str], references: Sequence[Sequence[str]]) -> BLEUScore:
        return self.score_from_statistics(self.corpus_statistics(predictions, references).sum(axis=0))

    def sentence_score(self, prediction: str, references: Sequence[str], effective_order: bool = True) -> BLEUScore:
        """Sentence BLEU as ``sacrebleu.sentence_bleu`` (effective order on by default)."""
        return self.score_from_statistics(self.segment_statistics(prediction, references), effective_order)

    def signature(self, nrefs: int | str, n_bootstrap: int | None = None, seed: int | None = None) -> str:
        """sacrebleu-style signature, e.g. ``nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:nlgmetrics-0.1.0``."""
        smooth = self.smooth_method
        if self._smooth is not None:
            smooth += f"[{self._smooth:.2f}]"
        parts = [f"nrefs:{nrefs}"]
        if n_bootstrap:
            parts += [f"bs:{n_bootstrap}", f"seed:{str(seed).lower()}"]
        parts += [
            f"case:{'lc' if self.lowercase else 'mixed'}",
            f"eff:{'yes' if self.effective_order else 'no'}",
            f"tok:{self.tokenize}",
            f"smooth:{smooth}",
            f"version:nlgmetrics-{__version__}",
        ]
        return "|".join(parts)


def compute_bleu(
    predictions: Sequence[str],
    references: Sequence[str | Sequence[str]],
    *,
    tokenize: str = "13a",
    lowercase: bool = False,
    smooth_method: str = "exp",
    smooth_value: float | None = None,
    max_ngram_order: int = 4,
    effective_order: bool = False,
    sentence_scores: bool = False,
    sentence_effective_order: bool = True,
    n_bootstrap: int = 0,
    seed: int | None = DEFAULT_SEED,
) -> dict:
    """Corpus BLEU of ``predictions`` against ``references`` (one string or a list of strings per prediction).

    Returns HF evaluate's ``bleu`` keys (``bleu`` and ``precisions`` in 0-1, ``brevity_penalty``, ``length_ratio``,
    ``translation_length``, ``reference_length``), sacrebleu's (``score`` 0-100, ``counts``, ``totals``,
    ``sys_len``, ``ref_len``) and ``signature``. With ``sentence_scores=True``, ``scores`` holds each example's
    sentence BLEU (0-100, as ``sacrebleu.sentence_bleu`` with the same options and ``sentence_effective_order``).
    With ``n_bootstrap`` >= 2, ``score_mean``, ``score_ci`` (half-width of the 95% interval), ``score_low`` and
    ``score_high`` come from a seeded bootstrap over segments (sacrebleu's resampling; same seed, same interval).
    """
    preds, refs = check_pairs(predictions, references)
    bleu = BLEU(tokenize, lowercase, smooth_method, smooth_value, max_ngram_order, effective_order)
    stats = bleu.corpus_statistics(preds, refs)
    result = bleu.score_from_statistics(stats.sum(axis=0))
    ref_counts = {len(r) for r in refs}
    nrefs = ref_counts.pop() if len(ref_counts) == 1 else "var"
    out = {
        "bleu": result.score / 100.0,
        "precisions": [p / 100.0 for p in result.precisions],
        "brevity_penalty": result.bp,
        "length_ratio": result.ratio,
        "translation_length": result.sys_len,
        "reference_length": result.ref_len,
        "score": result.score,
        "counts": result.counts,
        "totals": result.totals,
        "sys_len": result.sys_len,
        "ref_len": result.ref_len,
    }
    if sentence_scores:
        out["scores"] = [bleu.score_from_statistics(row, sentence_effective_order).score for row in stats]
    if n_bootstrap:
        samples = bootstrap_corpus_scores(stats, lambda s: bleu.score_from_statistics(s).score, n_bootstrap, seed)
        interval = sacrebleu_interval(samples)
        out.update({f"score_{key}": value for key, value in interval.items()})
    out["signature"] = bleu.signature(nrefs, n_bootstrap or None, seed if n_bootstrap else None)
    return out
