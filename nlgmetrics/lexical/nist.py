"""NIST (Doddington, 2002) with the semantics of nltk 3.10's ``corpus_nist`` (HF evaluate's ``nist_mt``).

Tokens: by default nltk's NIST mteval-v14 tokenizer with HF's ``lowercase`` and ``western_lang``, as HF's module;
``tokenize=`` one of the BLEU core's tokenizer names instead (``13a``, ``intl``, ``zh``, ``char``, ``none``).

Information weight of an n-gram, from the n-gram counts C over all references of the corpus::

    info(w_1..w_n) = log2( C(w_1..w_{n-1}) / C(w_1..w_n) )      (for unigrams the numerator is the number of
                                                                 reference words)

Per segment and order n, each reference r gives (precision, matched info, hypothesis n-grams, |r|) with
matched info = sum over clipped common n-grams of info x count; the lexicographically largest tuple is kept, as nltk
does. Then::

    NIST = sum_n (sum_seg matched_n / sum_seg hyp_ngrams_n) * LP,   LP = exp(beta * log(min(c / r, 1))^2)

with beta = log(0.5) / log(1.5)^2 (LP = 0.5 when c = 2/3 r), c the hypothesis words and r the chosen reference
words (nltk sums both once per order, which leaves the ratio unchanged).

Where nltk raises ``ZeroDivisionError`` (an order with no hypothesis n-grams in the whole corpus, or no reference
words), an order contributes 0 and LP is 0: the score is defined, never an exception.

The information weights depend on the whole reference set; they are computed once per reference set (tokenizer and
casing) and cached, so scoring several systems against the same references reuses them.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

import numpy as np

from nlgmetrics.errors import OptionError
from nlgmetrics._cache import REFERENCE_CORPUS_BYTES, byte_lru_cache
from nlgmetrics.inputs import check_pairs
from nlgmetrics.options import check_int, checked_options
from nlgmetrics.signature import bootstrap_parts, build, nrefs
from nlgmetrics.stats import DEFAULT_SEED, bootstrap_corpus_scores, sacrebleu_interval
from nlgmetrics.text.ngrams import ngram_counts
from nlgmetrics.text.tokenizers import get_tokenizer, tokenize_nist

_BETA = math.log(0.5) / math.log(1.5) ** 2


def length_penalty(hyp_len: float, ref_len: float) -> float:
    """exp(beta * log(min(c/r, 1))^2); 0 when there are no reference or no hypothesis words."""
    if ref_len <= 0:
        return 0.0
    ratio = hyp_len / ref_len
    if 0 < ratio < 1:
        return math.exp(_BETA * math.log(ratio) ** 2)
    return max(min(ratio, 1.0), 0.0)


def _tokens(text: str, tokenize: str | None, lowercase: bool, western_lang: bool) -> tuple[str, ...]:
    if tokenize is None:
        return tokenize_nist(text, lowercase, western_lang)
    return get_tokenizer(tokenize)(text.lower() if lowercase else text)


@byte_lru_cache(REFERENCE_CORPUS_BYTES)
def _reference_set(
    references: tuple[tuple[str, ...], ...], tokenize: str | None, lowercase: bool, western_lang: bool, max_order: int
) -> tuple[list[list[tuple[int, list[Counter]]]], dict]:
    """Tokenized references with their n-gram counts, and the information weight of every reference n-gram."""
    counted = []
    corpus_counts: Counter = Counter()
    total_words = 0
    for refs in references:
        per_segment = []
        for ref in refs:
            tokens = _tokens(ref, tokenize, lowercase, western_lang)
            counts = ngram_counts(tokens, max_order)
            per_segment.append((len(tokens), counts))
            total_words += len(tokens)
            for order_counts in counts:
                corpus_counts.update(order_counts)
        counted.append(per_segment)
    weights = {}
    for gram, count in corpus_counts.items():
        # unigrams are keyed by the token (a str), higher orders by tuples
        prefix = gram[:-1] if isinstance(gram, tuple) else None
        if isinstance(prefix, tuple) and len(prefix) == 1:
            prefix = prefix[0]
        numerator = corpus_counts[prefix] if prefix is not None else total_words
        # math.log(x, 2) as nltk: math.log2 rounds some weights differently in the last bit, and that bit can decide
        # which reference wins a tie in nltk's max (seen on WMT17: a 1.6e-5 difference in the score)
        weights[gram] = math.log(numerator / count, 2)
    return counted, weights


def segment_statistics(
    hypothesis: Sequence[str], references: list[tuple[int, list[Counter]]], weights: dict, max_order: int
) -> list[float]:
    """``[hyp_len, matched_1..N, hyp_ngrams_1..N, ref_len_1..N]`` for one segment (nltk's per-reference max)."""
    hyp_counts = ngram_counts(hypothesis, max_order)
    matched, totals, ref_lens = [], [], []
    for order in range(max_order):
        hyp = hyp_counts[order]
        total = max(len(hypothesis) - order, 0)
        best = None
        for ref_len, ref_counts in references:
            ref = ref_counts[order]
            info = sum(weights[gram] * min(count, ref[gram]) for gram, count in hyp.items() if gram in ref)
            candidate = (0 if total == 0 else info / total, info, total, ref_len)
            if best is None or candidate > best:
                best = candidate
        matched.append(best[1])
        totals.append(best[2])
        ref_lens.append(best[3])
    return [len(hypothesis), *matched, *totals, *ref_lens]


def score_from_statistics(stats: Sequence[float], max_order: int) -> dict:
    """NIST, its per-order information precisions and the length penalty from summed segment statistics."""
    hyp_len = stats[0]
    matched = stats[1 : 1 + max_order]
    totals = stats[1 + max_order : 1 + 2 * max_order]
    ref_len = sum(stats[1 + 2 * max_order : 1 + 3 * max_order])
    precisions = [float(m / t) if t else 0.0 for m, t in zip(matched, totals)]
    penalty = length_penalty(float(max_order * hyp_len), float(ref_len))  # plain floats out, not numpy scalars
    return {"nist": sum(precisions) * penalty, "precisions": precisions, "length_penalty": penalty,
            "translation_length": int(hyp_len), "reference_length": int(round(ref_len / max_order))}


@checked_options
def compute_nist(
    predictions: Sequence[str],
    references: Sequence[str | Sequence[str]],
    *,
    n: int = 5,
    lowercase: bool = False,
    western_lang: bool = True,
    tokenize: str | None = None,
    n_bootstrap: int = 0,
    seed: int | None = DEFAULT_SEED,
) -> dict:
    """Corpus NIST of ``predictions`` against ``references`` (one string or a list of strings per prediction).

    HF evaluate ``nist_mt``'s arguments: ``n`` (highest order), ``lowercase`` and ``western_lang`` (of the NIST
    tokenizer; ``western_lang=False`` splits on whitespace only and ignores ``lowercase``, as nltk). Ours:
    ``tokenize`` (a BLEU tokenizer name instead of the NIST tokenizer; ``lowercase`` then lowercases first),
    ``n_bootstrap``, ``seed``. Returns ``nist_mt`` (HF evaluate's key) and ``nist`` (the same value), per-order
    information ``precisions``, ``length_penalty``, ``translation_length``, ``reference_length`` (the references
    nltk's rule picks). With ``n_bootstrap`` >= 2: ``nist_mean``, ``nist_ci``, ``nist_low``, ``nist_high`` from a
    seeded bootstrap over segments (the information weights stay those of the full reference set).
    """
    n = check_int("n", n, 1, 9, "the highest n-gram order")
    preds, refs = check_pairs(predictions, references)
    if tokenize is not None:
        get_tokenizer(tokenize)
        if not western_lang:
            raise OptionError("western_lang=False applies to the NIST tokenizer (tokenize=None); with tokenize="
                             f"{tokenize!r} leave it True, or use tokenize='none' for a whitespace split.")
    lowercase, western_lang = bool(lowercase), bool(western_lang)
    counted, weights = _reference_set(tuple(map(tuple, refs)), tokenize, lowercase, western_lang, n)
    stats = np.array(
        [segment_statistics(_tokens(pred, tokenize, lowercase, western_lang), seg, weights, n)
         for pred, seg in zip(preds, counted)],
        dtype=np.float64,
    )
    out = score_from_statistics(list(stats.sum(axis=0)), n)
    out = {"nist_mt": out["nist"], **out}
    if n_bootstrap:
        samples = bootstrap_corpus_scores(stats, lambda s: score_from_statistics(s, n)["nist"], n_bootstrap, seed)
        out.update({f"nist_{key}": value for key, value in sacrebleu_interval(samples).items()})
    out["signature"] = build([("nrefs", nrefs(refs)), *bootstrap_parts(n_bootstrap, seed if n_bootstrap else None),
                              ("case", "lc" if lowercase else "mixed"), ("tok", tokenize or "nist"),
                              ("western", western_lang if tokenize is None else ...), ("n", n)])
    return out
