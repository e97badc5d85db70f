"""METEOR (Banerjee & Lavie, 2005; Lavie & Agarwal, 2007) as nltk 3.10's ``meteor_score``, score for score.

Flow: text -> tokens (nltk ``word_tokenize``, as HF evaluate's ``meteor``; :mod:`nlgmetrics.text.word_tokenize`)
-> lowercase -> one-to-one word alignment in three stages -> per-segment score; several references: the best one.

Alignment (each stage only sees the words the earlier stages left unmatched; ``i``: hypothesis, ``j``: reference)::

    1. exact:    words equal
    2. stem:     Porter stems equal                         (from here on the unmatched words are their stems)
    3. synonym:  the reference stem is the hypothesis stem or one of the single-word lemma names of its WordNet
                 synsets

Within a stage, hypothesis words are taken from last to first and each is paired with the matching reference word
of highest position still free (nltk's order, which decides the chunk count). Then, with ``m`` matches, hypothesis
length ``|h|`` and reference length ``|r|``::

    P = m / |h|      R = m / |r|      Fmean = P R / (alpha P + (1 - alpha) R)
    chunks = number of runs of matches adjacent in both hypothesis and reference (matches sorted by i)
    Pen   = gamma (chunks / m) ^ beta
    METEOR = (1 - Pen) Fmean                              (0 when m = 0 or either side has no tokens)

Defaults alpha = 0.9, beta = 3, gamma = 0.5 (nltk's and HF's). The reported corpus ``meteor`` is the mean of the
per-example scores, as HF evaluate reports it.

Speed: stems and synonym sets are cached per distinct word (:mod:`nlgmetrics.text.lexicon`), the synonym stage looks
only at the reference words still unmatched, and token lists are cached per text, so a run costs a fraction of
nltk's. WordNet 3.0 and the Punkt tables are provisioned offline on import (:mod:`nlgmetrics.resources`); nothing
here calls ``nltk.download``.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from nlgmetrics.errors import OptionError
from nlgmetrics.inputs import check_pairs
from nlgmetrics.options import check_real, checked_options
from nlgmetrics.resources import ensure_punkt, ensure_wordnet
from nlgmetrics.text.lexicon import porter_stem, wordnet_reader, wordnet_synonyms

DEFAULT_ALPHA = 0.9
DEFAULT_BETA = 3.0
DEFAULT_GAMMA = 0.5
TOKENIZERS = ("nltk", "whitespace")
LOWERCASE_CACHE_SIZE = 2**17

# Importing the module makes nltk find WordNet and Punkt. A missing resource is reported when scoring needs it,
# with the message that names the fix (importing must not fail, e.g. for the registry listing).
try:
    ensure_wordnet()
    ensure_punkt()
except RuntimeError:
    pass


# -- alignment ------------------------------------------------------------------------------------------------
Alignment = list  # [(hypothesis index, reference index)], sorted by hypothesis index


def _pair_by_word(hyp: list[tuple[int, str]], ref: list[tuple[int, str]], matches: list) -> tuple[list, list]:
    """One exact-equality stage: last hypothesis word first, each to the highest free reference position."""
    free: dict[str, list[int]] = {}
    for k, (_, word) in enumerate(ref):
        free.setdefault(word, []).append(k)
    used_h: set[int] = set()
    used_r: set[int] = set()
    for k in range(len(hyp) - 1, -1, -1):
        positions = free.get(hyp[k][1])
        if positions:
            r = positions.pop()
            used_h.add(k)
            used_r.add(r)
            matches.append((hyp[k][0], ref[r][0]))
    if not used_h:
        return hyp, ref
    return (
        [item for k, item in enumerate(hyp) if k not in used_h],
        [item for k, item in enumerate(ref) if k not in used_r],
    )


def _pair_by_synonym(hyp: list[tuple[int, str]], ref: list[tuple[int, str]], matches: list) -> None:
    """The WordNet stage: each hypothesis stem (last first) takes the highest free reference stem in its synonyms."""
    free: dict[str, list[int]] = {}
    for k, (_, word) in enumerate(ref):
        free.setdefault(word, []).append(k)
    remaining = len(ref)
    for k in range(len(hyp) - 1, -1, -1):
        synonyms = wordnet_synonyms(hyp[k][1])
        best, best_word = -1, None
        for word, positions in free.items():
            if positions and positions[-1] > best and word in synonyms:
                best, best_word = positions[-1], word
        if best_word is not None:
            free[best_word].pop()
            matches.append((hyp[k][0], ref[best][0]))
            remaining -= 1
            if not remaining:
                return


def align(hypothesis: Sequence[str], reference: Sequence[str]) -> Alignment:
    """nltk's METEOR alignment of two (already lowercased) token lists: exact, then stem, then WordNet synonyms."""
    matches: list[tuple[int, int]] = []
    hyp, ref = _pair_by_word(list(enumerate(hypothesis)), list(enumerate(reference)), matches)
    if hyp and ref:
        hyp, ref = _pair_by_word(
            [(i, porter_stem(w)) for i, w in hyp], [(j, porter_stem(w)) for j, w in ref], matches
        )
        if hyp and ref:
            _pair_by_synonym(hyp, ref, matches)
    matches.sort()
    return matches


def count_chunks(matches: Alignment) -> int:
    """Runs of matches contiguous in both sentences (matches sorted by hypothesis index; at least 1)."""
    chunks = 1
    for (i0, j0), (i1, j1) in zip(matches, matches[1:]):
        if i1 != i0 + 1 or j1 != j0 + 1:
            chunks += 1
    return chunks


def segment_score(
    hypothesis: Sequence[str],
    reference: Sequence[str],
    alpha: float = DEFAULT_ALPHA,
    beta: float = DEFAULT_BETA,
    gamma: float = DEFAULT_GAMMA,
) -> float:
    """METEOR of one lowercased token list against one reference (formula in the module docstring)."""
    if not hypothesis or not reference:
        return 0.0
    matches = align(hypothesis, reference)
    m = len(matches)
    if not m:
        return 0.0
    precision = float(m) / len(hypothesis)
    recall = float(m) / len(reference)
    denominator = alpha * precision + (1 - alpha) * recall
    if denominator == 0:
        return 0.0
    fmean = (precision * recall) / denominator
    fragmentation = float(count_chunks(matches)) / m
    return (1 - gamma * fragmentation**beta) * fmean


# -- tokens ---------------------------------------------------------------------------------------------------
@lru_cache(maxsize=LOWERCASE_CACHE_SIZE)
def _nltk_tokens(text: str) -> tuple[str, ...]:
    from nlgmetrics.text.word_tokenize import word_tokenize

    return tuple(token.lower() for token in word_tokenize(text))


def tokens(text: str, tokenize: str = "nltk") -> tuple[str, ...]:
    """Lowercased METEOR tokens of ``text``: nltk ``word_tokenize`` (default) or a whitespace split."""
    if tokenize == "nltk":
        return _nltk_tokens(text)
    return tuple(token.lower() for token in text.split())


def clear_caches() -> None:
    """Forget every per-text and per-word cache (tokens, stems, synonym sets)."""
    from nlgmetrics.text import lexicon, word_tokenize

    _nltk_tokens.cache_clear()
    word_tokenize.clear_cache()
    lexicon.clear_caches()


# -- entry point ----------------------------------------------------------------------------------------------
@checked_options
def compute_meteor(
    predictions: Sequence[str],
    references: Sequence[str | Sequence[str]],
    *,
    alpha: float = DEFAULT_ALPHA,
    beta: float = DEFAULT_BETA,
    gamma: float = DEFAULT_GAMMA,
    tokenize: str = "nltk",
    sentence_scores: bool = True,
) -> dict:
    """METEOR of each prediction against its references (one string or a list per prediction; the best counts).

    Returns ``meteor`` (the mean over examples, HF evaluate's key), ``signature`` and (unless
    ``sentence_scores=False``; the evaluate module leaves them out unless asked, as HF's) ``scores``: one per example,
    each equal to ``nltk.translate.meteor_score.meteor_score([word_tokenize(r) for r in refs], word_tokenize(pred),
    alpha=alpha, beta=beta, gamma=gamma)``. ``alpha`` in [0, 1] weighs precision against recall, ``beta`` >= 0 shapes and ``gamma`` in
    [0, 1] scales the fragmentation penalty. ``tokenize="whitespace"`` splits on whitespace instead of nltk's
    ``word_tokenize`` (for pre-tokenized text). Empty or whitespace-only text has no tokens and scores 0.
    """
    preds, refs = check_pairs(predictions, references)
    alpha = check_real("alpha", alpha, 0.0, 1.0, "weight of precision against recall")
    beta = check_real("beta", beta, 0.0, sys.float_info.max, "the fragmentation penalty's exponent")
    gamma = check_real("gamma", gamma, 0.0, 1.0, "the fragmentation penalty's weight")
    if tokenize not in TOKENIZERS:
        raise OptionError(f"unknown tokenize={tokenize!r}; choose one of {', '.join(TOKENIZERS)} ('nltk' is HF's).")
    if tokenize == "nltk":
        ensure_punkt()
    wordnet_reader()  # provisions WordNet or raises the error that names the fix, before any work

    scores = []
    for pred, pred_refs in zip(preds, refs):
        hyp = tokens(pred, tokenize)
        scores.append(max(segment_score(hyp, tokens(ref, tokenize), alpha, beta, gamma) for ref in pred_refs))
    result = {"meteor": float(np.mean(scores)), "signature": signature(alpha, beta, gamma, tokenize)}
    return result | {"scores": scores} if sentence_scores else result


def signature(alpha: float, beta: float, gamma: float, tokenize: str) -> str:
    """How a score was computed (:mod:`nlgmetrics.signature`), e.g.
    ``alpha:0.9|beta:3|gamma:0.5|tok:nltk|wordnet:3.0|version:nlgmetrics-0.1.0``."""
    from nlgmetrics.signature import build

    return build([("alpha", float(alpha)), ("beta", float(beta)), ("gamma", float(gamma)), ("tok", tokenize),
                  ("wordnet", "3.0")])
