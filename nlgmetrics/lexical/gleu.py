"""Google BLEU (GLEU; Wu et al., 2016) with the semantics of nltk 3.10's ``corpus_gleu`` (HF evaluate's
``google_bleu``).

Per example and reference r, over all n-grams of orders ``min_len``..``max_len`` together::

    tp    = sum over n-grams of min(count in the prediction, count in r)        (clipped matches)
    n_all = max(n-grams in the prediction, n-grams in r)                        (tp / n_all = min(precision, recall))

The reference with the highest tp / n_all is kept (the first on ties; a reference with n_all = 0 is skipped), and::

    GLEU = sum over examples of tp / sum over examples of n_all      (0 when the sum of n_all is 0)

Sentence GLEU (``sentence_scores``) is the same ratio on one example (nltk's ``sentence_gleu``). Reference n-gram
counts are cached per reference tuple, so scoring several systems against the same references counts them once.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from nlgmetrics.errors import OptionError
from nlgmetrics.inputs import check_pairs
from nlgmetrics.options import MAX_NGRAM_ORDER, check_int, checked_options
from nlgmetrics.signature import bootstrap_parts, build, nrefs
from nlgmetrics.stats import DEFAULT_SEED, bootstrap_corpus_scores, sacrebleu_interval
from nlgmetrics.text.ngrams import clipped_matches, ngram_counts
from nlgmetrics.text.tokenizers import (
    TokenizerSpec,
    call_cached,
    check_tokenizer,
    text_tokens,
    tokenize_13a,
    tokenizer_name,
)

REFERENCE_CACHE_SIZE = 2**16


def _counts(tokens: Sequence, min_len: int, max_len: int) -> tuple[list[Counter], int]:
    """The n-gram counts of orders min_len..max_len, and how many n-grams that is. Orders longer than the text have
    no n-grams and are not visited, so the cost does not depend on ``max_len`` (nltk's numbers: they add nothing)."""
    top = min(max_len, len(tokens))
    if top < min_len:
        return [], 0
    total = sum(len(tokens) - n + 1 for n in range(min_len, top + 1))
    return ngram_counts(tokens, top)[min_len - 1 :], total


@lru_cache(maxsize=REFERENCE_CACHE_SIZE)
def _reference_counts(
    references: tuple[str, ...], tokenizer: TokenizerSpec, lowercase: bool, min_len: int, max_len: int
) -> tuple[tuple[list[Counter], int], ...]:
    return tuple(_counts(text_tokens(ref, tokenizer, lowercase), min_len, max_len) for ref in references)


def segment_statistics(
    prediction: tuple[list[Counter], int], references: Sequence[tuple[list[Counter], int]]
) -> tuple[int, int]:
    """``(tp, n_all)`` of the reference nltk's rule keeps; ``(0, 0)`` when every reference has n_all = 0."""
    hyp_counts, hyp_total = prediction
    best, best_ratio = (0, 0), -1.0
    for ref_counts, ref_total in references:
        n_all = max(hyp_total, ref_total)
        if n_all == 0:
            continue
        tp = sum(clipped_matches(hyp, ref) for hyp, ref in zip(hyp_counts, ref_counts))
        if tp / n_all > best_ratio:
            best, best_ratio = (tp, n_all), tp / n_all
    return best


def _ratio(stats: Sequence) -> float:
    return float(stats[0] / stats[1]) if stats[1] else 0.0


def _check_orders(min_len: object, max_len: object) -> tuple[int, int]:
    """Both orders in [1, MAX_NGRAM_ORDER] (bounded before anything is counted: the n-grams of orders up to N of an
    L-token text hold about L * N**2 / 2 tokens), ``min_len <= max_len``."""
    for name, value in (("min_len", min_len), ("max_len", max_len)):
        check_int(name, value, 1, MAX_NGRAM_ORDER, "an n-gram order")
    if min_len > max_len:
        raise OptionError(f"min_len={min_len} is above max_len={max_len}: no n-gram order is left to count.")
    return int(min_len), int(max_len)


@checked_options
def compute_google_bleu(
    predictions: Sequence[str],
    references: Sequence[str | Sequence[str]],
    *,
    tokenizer: TokenizerSpec = tokenize_13a,
    min_len: int = 1,
    max_len: int = 4,
    lowercase: bool = False,
    sentence_scores: bool = False,
    n_bootstrap: int = 0,
    seed: int | None = DEFAULT_SEED,
) -> dict:
    """Corpus GLEU as HF evaluate's ``google_bleu`` (nltk ``corpus_gleu`` on ``tokenizer``'s tokens), 0-1.

    HF's arguments: ``tokenizer`` (a callable text -> tokens, default mteval-v13a as HF's ``Tokenizer13a``, or a name
    of ``BLEU_TOKENIZERS``), ``min_len``, ``max_len`` -> ``google_bleu``. Ours: ``lowercase``; ``sentence_scores``
    -> ``scores`` (each example's sentence GLEU); ``n_bootstrap`` >= 2 -> ``google_bleu_mean``, ``google_bleu_ci``,
    ``google_bleu_low``, ``google_bleu_high`` (seeded bootstrap over examples, sacrebleu's resampling).
    """
    min_len, max_len = _check_orders(min_len, max_len)
    check_tokenizer(tokenizer)
    preds, refs = check_pairs(predictions, references)
    rows = []
    for pred, example_refs in zip(preds, refs):
        key = (tuple(example_refs), tokenizer, bool(lowercase), min_len, max_len)
        ref_counts = call_cached(_reference_counts, *key)
        rows.append(segment_statistics(_counts(text_tokens(pred, tokenizer, lowercase), min_len, max_len), ref_counts))
    stats = np.array(rows, dtype=np.int64).reshape(len(rows), 2)
    out: dict = {"google_bleu": _ratio(stats.sum(axis=0))}
    if sentence_scores:
        out["scores"] = [_ratio(row) for row in stats]
    if n_bootstrap:
        samples = bootstrap_corpus_scores(stats, _ratio, n_bootstrap, seed)
        out.update({f"google_bleu_{key}": value for key, value in sacrebleu_interval(samples).items()})
    out["signature"] = build([("nrefs", nrefs(refs)), *bootstrap_parts(n_bootstrap, seed if n_bootstrap else None),
                              ("case", "lc" if lowercase else "mixed"), ("tok", tokenizer_name(tokenizer)),
                              ("orders", f"{min_len}-{max_len}")])
    return out
