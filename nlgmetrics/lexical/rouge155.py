"""ROUGE as ROUGE-1.5.5.pl computes it (``flavor="rouge155"``): the figures summarization papers publish, without perl.

This module is the one place for perl's semantics. It reproduces, figure for figure at perl's 5-decimal printing, the
per-case R, P, F and the printed averages of ``ROUGE-1.5.5.pl -n 4 -2 4 -U -w 1.2 -a -d`` with ``-m``, ``-s``,
``-f A|B``, ``-l N``, ``-b N`` and ``-p alpha`` (checked on 29,784 per-case figures and 170 printed averages,
``tests/test_rouge155.py``). Peer = prediction, model = reference; each text's sentences are separated by newlines.

Flow: text -> lines (empty lines dropped) -> optional truncation -> tokens -> per model ``(hit, model_count,
peer_count)`` -> pooled (``-f A``) or best model (``-f B``) -> R, P, F rounded to 5 decimals -> perl's bootstrap.
Without stemming, stop words or limits, perl's ROUGE-N/L hits and counts are the rouge_score flavor's (its tokens
on the text with non-ASCII characters blanked, its rougeLsum; :func:`shared_ratios`), so those come from
:func:`~nlgmetrics.lexical.rouge.compute_rouge` and are only rounded here; everything else is computed below.

- Tokens: only ASCII A-Z is lowercased; every other byte outside ``[a-z0-9]`` separates tokens (a UTF-8 character is
  bytes to perl, so "günter" gives ``g nter``; "28-year-old" gives 3 tokens). ``remove_stopwords`` (``-s``) drops the
  words of the SMART list perl ships (598 lines, 596 words); ``use_stemmer`` (``-m``) stems tokens longer than 3
  bytes with perl's Porter variant (:func:`porter_stem`), after a look-up in WordNet 2.0's exception list when
  ``wordnet_exceptions``.
- ``rougeN`` (N = 1..9): hit = clipped n-gram matches; counts = n-grams of model and peer. The sentences are joined
  with a space, so n-grams cross sentence boundaries.
- ``rougeL``: for each model sentence, the union of the positions of one LCS with every peer sentence (perl's
  traceback: diagonal on a match, else up when ``c[i-1][j] >= c[i][j-1]``); a marked token is a hit while its count
  is still > 0 in both texts' unigrams, both then decremented (peer counts reset for each model); counts = tokens.
- ``rougeW`` (``rougeW-<w>``, w = ``weight_factor``, 1.2 by default): the weighted-LCS dynamic program with
  f(k) = k^w only marks positions as for ``rougeL``; hit = sum of f(run length) over the runs of consecutive marked
  model positions (with the clipping above); model count = (sum over sentences of len^w)^w, peer count = len^w;
  ``R = (hit / model count)^(1/w)``, ``P = (hit / peer count)^(1/w)``.
- ``rougeS<d>`` / ``rougeSU<d>`` (``rougeS*`` / ``rougeSU*``: no limit): skip-bigrams (t_i, t_j), i < j <= i+d+1;
  SU adds the unigrams of every token but the last; a one-token text has no unit.
- Several references: ``multi_ref="average"`` (``-f A``, default): R = sum hit / sum model count,
  P = sum hit / (models x peer count); ``"best"`` (``-f B``): the model with the highest recall (rounded to 5
  decimals for N/S, unrounded for L/W, the first one on ties), R, P and F all from it.
- ``R``, ``P`` = ``"%7.5f"`` of the ratios; ``F = P R / ((1 - alpha) P + alpha R)`` from the rounded R and P
  (0 when the denominator is 0), rounded again.
- Averages: perl prints the mean of 1,000 bootstrap resample means (resample i seeded with ``srand(i)``, indices
  ``int(rand(N))`` from perl's drand48 into the cases sorted as strings "1.1", "10.1", "100.1", ...) and the 2.5th /
  97.5th order statistics; :func:`perl_bootstrap` repeats that exactly. The plain mean is returned beside it.

Where perl itself fails, and what we do instead (documented, never NaN):

- ROUGE-W of a model with no token (e.g. "no-one knows yet ." with ``-s``): perl dies ("Illegal division by zero");
  here that model's weighted-LCS score is 0, so a lone such reference gives R = P = F = 0.
- ``-b N`` (``byte_limit``): perl's ``readText_LCS`` never advances its byte count, so ROUGE-L/W keep every sentence
  shorter than N bytes up to the first longer one (cut to N bytes), while ROUGE-N/S and the clipping counts use the
  correctly cut text. We cut all measures the same way unless ``byte_limit_bug=True`` reproduces perl.
- ``-l N`` counts whitespace-separated fields of the raw lines (punctuation counts, "28-year-old" is one field);
  whole sentences are kept while the running total plus the sentence stays < N, the next one is cut to the rest.
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import cache, lru_cache
from importlib import resources
from typing import Any

import numpy as np
from threadpoolctl import ThreadpoolController

from nlgmetrics.errors import OptionError, OptionTypeError
from nlgmetrics.inputs import check_pairs
from nlgmetrics.lexical.rouge_core import (
    DEFAULT_WEIGHT_FACTOR,
    SKIP_PAIR_LIMIT,
    RougeType,
    _check_weight,
    compute_rouge_score,
    lcs_length,
    lcs_positions,
    ngram_counter,
    overlap,
    parse_rouge_type,
    skip_bigram_counter,
    skip_bigram_hits,
    skip_bigram_total,
)
from nlgmetrics.options import check_flag, check_int, check_real
from nlgmetrics.stats import MAX_RESAMPLES

FLAVORS = ("rouge_score", "rouge155")
DEFAULT_ROUGE155_TYPES = ("rouge1", "rouge2", "rougeL")
PERL_ALPHA = 0.5  # -p
PERL_RESAMPLES = 1000  # -r
PERL_CONFIDENCE = 95  # -c
TEXT_CACHE_SIZE = 2**16

STOPWORDS_FILE = "data/rouge155_smart_common_words.txt"
EXCEPTIONS_FILE = "data/rouge155_wordnet2_exceptions.tsv"


# ---------------------------------------------------------------------------------------------------------------------
# Data: the SMART stop words (-s) and WordNet 2.0's exception list (-m with a populated WordNet-2.0.exc.db)
@cache
def smart_stopwords() -> frozenset[str]:
    """The 598 lines of ROUGE-1.5.5's ``smart_common_words.txt`` (package data)."""
    text = resources.files("nlgmetrics").joinpath(STOPWORDS_FILE).read_text("utf-8")
    return frozenset(text.split("\n")[:-1])


@cache
def wordnet_exceptions_map() -> dict[str, str]:
    """Inflected form -> base form, 5,930 WordNet 2.0 exceptions as ROUGE-1.5.5's exception DB holds them."""
    text = resources.files("nlgmetrics").joinpath(EXCEPTIONS_FILE).read_text("utf-8")
    return dict(line.split("\t") for line in text.split("\n") if line and not line.startswith("#"))


# ---------------------------------------------------------------------------------------------------------------------
# Porter stemmer: Martin Porter's "Release 1" perl version with Chin-Yew Lin's 2004 change to step 4
_c = "[^aeiou]"  # consonant
_v = "[aeiouy]"  # vowel
_C = f"{_c}[^aeiouy]*"  # consonant sequence
_V = f"{_v}[aeiou]*"  # vowel sequence
# matchers, called as m(word, 0, end) for the stem word[:end] ($ matches at end)
_MGR0 = re.compile(f"^({_C})?{_V}{_C}").match  # measure m > 0
_MEQ1 = re.compile(f"^({_C})?{_V}{_C}({_V})?$").match  # m = 1
_MGR1 = re.compile(f"^({_C})?{_V}{_C}{_V}{_C}").match  # m > 1
_HAS_V = re.compile(f"^({_C})?{_v}").match  # vowel in stem
_CVC = re.compile(f"^{_C}{_v}[^aeiouwxy]$").match
_STEP2_MAP = {
    "ational": "ate", "tional": "tion", "enci": "ence", "anci": "ance", "izer": "ize", "bli": "ble", "alli": "al",
    "entli": "ent", "eli": "e", "ousli": "ous", "ization": "ize", "ation": "ate", "ator": "ate", "alism": "al",
    "iveness": "ive", "fulness": "ful", "ousness": "ous", "aliti": "al", "iviti": "ive", "biliti": "ble",
    "logi": "log",
}  # fmt: skip
_STEP3_MAP = {"icate": "ic", "ative": "", "alize": "al", "iciti": "ic", "ical": "ic", "ful": "", "ness": ""}
_STEP4_MAP = dict.fromkeys(
    ("al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ou", "ism", "ate", "iti", "ous", "ive", "ize"), ""
)


def _suffix_step(rule: dict[str, str], measure: Callable) -> Callable[[str], str]:
    """One of steps 2-4: the longest suffix of the list (perl's regex finds the leftmost match) is replaced when
    the stem before it passes ``measure``; a failing stem ends the step (no shorter suffix is tried)."""
    suffixes = tuple(rule)
    lengths = sorted({len(s) for s in suffixes}, reverse=True)

    def step(w: str) -> str:
        if w.endswith(suffixes):
            for k in lengths:
                replacement = rule.get(w[-k:])
                if replacement is not None:
                    return w[:-k] + replacement if measure(w, 0, len(w) - k) else w
        return w

    return step


_STEP2 = _suffix_step(_STEP2_MAP, _MGR0)
_STEP3 = _suffix_step(_STEP3_MAP, _MGR0)
_STEP4 = _suffix_step(_STEP4_MAP, _MGR1)


def porter_stem(word: str) -> str:
    """ROUGE-1.5.5's Porter stem of a lowercase word.

    Porter (1980) as in Martin Porter's perl "Release 1" (with his departures ``bli -> ble`` and ``logi -> log``),
    changed in step 4 by ROUGE's author (2004): the suffix list has ``ement`` but not ``ment``/``ent``, which are then
    each tried on the result, so agreement -> agreem, statement -> statem (standard Porter leaves these whole).
    Perl's suffix regexes are string tests here (the same result on 1.6 million words, 4,341 of them against perl).
    """
    if len(word) < 3:
        return word
    initial_y = word[0] == "y"
    w = "Y" + word[1:] if initial_y else word  # an initial y is a consonant
    # step 1a: sses -> ss, ies -> i, else s after a letter other than s is dropped
    if w[-1] == "s":
        if w.endswith(("sses", "ies")):
            w = w[:-2]
        elif w[-2] != "s":
            w = w[:-1]
    # step 1b
    if w.endswith("eed"):
        if _MGR0(w, 0, len(w) - 3):
            w = w[:-1]
    elif w.endswith(("ed", "ing")):
        stem = w[:-2] if w[-1] == "d" else w[:-3]
        if _HAS_V(stem):
            w = stem
            if w.endswith(("at", "bl", "iz")):
                w += "e"
            elif len(w) > 1 and w[-1] == w[-2] and w[-1] not in "aeiouylsz":  # a double consonant
                w = w[:-1]
            elif _CVC(w):
                w += "e"
    # step 1c
    if w[-1] == "y" and _HAS_V(w, 0, len(w) - 1):
        w = w[:-1] + "i"
    w = _STEP4(_STEP3(_STEP2(w)))  # step 4: ROUGE-1.5.5's version, continued below
    if w.endswith("ment") and _MGR1(w, 0, len(w) - 4):
        w = w[:-4]
    if w.endswith("ent"):
        if _MGR1(w, 0, len(w) - 3):
            w = w[:-3]
    elif w.endswith(("sion", "tion")) and _MGR1(w, 0, len(w) - 3):
        w = w[:-3]
    # step 5
    if w[-1] == "e":
        end = len(w) - 1
        if _MGR1(w, 0, end) or (_MEQ1(w, 0, end) and not _CVC(w, 0, end)):
            w = w[:-1]
    if w.endswith("ll") and _MGR1(w):
        w = w[:-1]
    return "y" + w[1:] if initial_y else w


# ---------------------------------------------------------------------------------------------------------------------
# Reading a text: lines, truncation (-l / -b), tokens
_TOKEN = re.compile(r"[a-z0-9]+")
_NON_ASCII = re.compile(r"[^\x00-\x7f]+")
_PERL_WS = re.compile(rb"\s+")  # perl's \s on bytes: space, \t, \n, \v, \f, \r


def raw_tokens(text: str) -> list[str]:
    """Perl's tokens of a text: ASCII-lowercased, every character outside ``[a-z0-9]`` a separator."""
    if not text.isascii():
        text = _NON_ASCII.sub(" ", text)
    return _TOKEN.findall(text.lower())


def _fields(line: bytes) -> list[bytes]:
    """perl's ``split(/\\s+/, $line)``: a leading empty field is kept, trailing empty fields are dropped."""
    fields = _PERL_WS.split(line)
    while fields and not fields[-1]:
        fields.pop()
    return fields


def _cut_words(lines: list[bytes], limit: int) -> list[bytes]:
    """``-l``: whole lines while the running field count stays < limit, then the next line cut to the rest."""
    out, total = [], 0
    for line in lines:
        fields = _fields(line)
        if total + len(fields) < limit:
            out.append(line)
            total += len(fields)
        else:
            out.append(b" ".join(fields[: limit - total]))
            break
    return out


def _cut_bytes(lines: list[bytes], limit: int, advance: bool = True) -> list[bytes]:
    """``-b``: whole lines while the running byte count (joining spaces not counted) stays < limit, then the next
    line cut at the remaining byte. ``advance=False`` is perl's readText_LCS, whose running count stays 0."""
    out, total = [], 0
    for line in lines:
        if total + len(line) < limit:
            out.append(line)
            if advance:
                total += len(line)
        else:
            out.append(line[: limit - total])
            break
    return out


def read_units(
    text: str, length_limit: int | None = None, byte_limit: int | None = None, byte_limit_bug: bool = False
) -> tuple[list[str], list[str]]:
    """(text for ROUGE-N/S and the clipping counts, sentences for ROUGE-L/W) as perl reads them: the non-empty
    lines, truncated by ``length_limit`` words or ``byte_limit`` bytes (UTF-8) as ``-l`` / ``-b`` do."""
    lines = [line for line in text.split("\n") if line]
    if not length_limit and not byte_limit:
        return lines, lines
    raw = [line.encode("utf-8").lower() for line in lines]  # perl reads bytes; tr/A-Z/a-z/ is ASCII only
    if length_limit:
        kept = lcs = _cut_words(raw, length_limit)
    else:
        kept = _cut_bytes(raw, byte_limit)
        lcs = _cut_bytes(raw, byte_limit, advance=False) if byte_limit_bug else kept
    # latin-1 maps each byte to one character: non-ASCII bytes stay separators, a cut UTF-8 character is harmless
    kept_text = [line.decode("latin-1") for line in kept]
    return kept_text, kept_text if lcs is kept else [line.decode("latin-1") for line in lcs]


class _Text:
    """One text as perl sees it: ``tokens`` (ROUGE-N/S, clipping), ``sentences`` (ROUGE-L/W), cached counters."""

    __slots__ = ("_grams", "aligned", "sentences", "tokens")

    def __init__(self, tokens: tuple[str, ...], sentences: tuple[tuple[str, ...], ...], aligned: bool) -> None:
        self.tokens = tokens
        self.sentences = sentences
        self.aligned = aligned  # the sentences are the tokens, split (false only under byte_limit_bug)
        self._grams: dict[Any, Counter] = {}

    def ngrams(self, n: int) -> Counter:
        counts = self._grams.get(n)
        if counts is None:
            counts = self._grams[n] = ngram_counter(self.tokens, n)
        return counts

    def skips(self, skip: int | None, unigrams: bool) -> Counter:
        key = (skip, unigrams)
        counts = self._grams.get(key)
        if counts is None:
            counts = skip_bigram_counter(self.tokens, skip)
            if unigrams and len(self.tokens) > 1:  # perl's loop stops one token early: no unigram for the last
                counts.update(self.tokens[:-1])
            self._grams[key] = counts
        return counts


@dataclass(frozen=True)
class TextOptions:
    """How texts are read: perl's ``-m`` (+ exception DB), ``-s``, ``-l``, ``-b`` (and its LCS bug)."""

    use_stemmer: bool = False
    wordnet_exceptions: bool = False
    remove_stopwords: bool = False
    length_limit: int | None = None
    byte_limit: int | None = None
    byte_limit_bug: bool = False


def _stemmer(wordnet_exceptions: bool) -> Callable[[str], str]:
    """Perl's ``-m`` for one token longer than 3 letters: the WordNet exception's base form, else its Porter stem."""
    if not wordnet_exceptions:
        return porter_stem
    exceptions = wordnet_exceptions_map()
    return lambda token: exceptions.get(token) or porter_stem(token)


def _make_token_filter(options: TextOptions) -> Callable[[list[str]], tuple[str, ...]]:
    """Raw tokens -> perl's tokens: stop words dropped (-s), then tokens longer than 3 letters stemmed (-m)."""
    stopwords = smart_stopwords() if options.remove_stopwords else None
    if not options.use_stemmer:
        if stopwords is None:
            return tuple
        return lambda tokens: tuple(t for t in tokens if t not in stopwords)
    stem_word = _stemmer(options.wordnet_exceptions)
    stems: dict[str, str] = {}

    def stem(token: str) -> str:
        out = stems.get(token)
        if out is None:
            if len(stems) > 2**18:
                stems.clear()
            out = stems[token] = stem_word(token)
        return out

    def apply(tokens: list[str]) -> tuple[str, ...]:
        if stopwords is not None:
            tokens = [t for t in tokens if t not in stopwords]
        return tuple(stem(t) if len(t) > 3 else t for t in tokens)

    return apply


@lru_cache(maxsize=64)
def _reader(options: TextOptions) -> Callable[[str], _Text]:
    """text -> :class:`_Text` for one configuration, cached per text (references shared by systems are read once)."""
    finish = _make_token_filter(options)

    @lru_cache(maxsize=TEXT_CACHE_SIZE)
    def read(text: str) -> _Text:
        pieces, lines = read_units(text, options.length_limit, options.byte_limit, options.byte_limit_bug)
        sentences = tuple(finish(raw_tokens(line)) for line in lines)
        if pieces is lines:
            tokens = sentences[0] if len(sentences) == 1 else tuple(t for s in sentences for t in s)
            return _Text(tokens, sentences, True)
        return _Text(tuple(t for p in pieces for t in finish(raw_tokens(p))), sentences, False)

    return read


def clear_caches() -> None:
    """Forget cached texts and stems (benchmarks use this to time a cold start)."""
    _reader.cache_clear()


# ---------------------------------------------------------------------------------------------------------------------
# Statistics of one model (reference) against the peer (prediction)
def _r5(x: float) -> float:
    """perl's ``sprintf("%7.5f", x)``, read back as a number."""
    return float(f"{x:.5f}")


def _union_lcs_hits(model: _Text, peer: _Text) -> int:
    """ROUGE-L hits: union LCS per model sentence over all peer sentences, clipped by both texts' unigram counts."""
    if not model.tokens or not peer.tokens:
        return 0
    if len(model.sentences) == 1 and len(peer.sentences) == 1 and model.aligned and peer.aligned:
        return lcs_length(model.sentences[0], peer.sentences[0])  # one LCS never exceeds a unigram count
    left_model, left_peer = model.ngrams(1).copy(), peer.ngrams(1).copy()
    hits = 0
    for sentence in model.sentences:
        marked: set[int] = set()
        for other in peer.sentences:
            marked.update(lcs_positions(sentence, other))
        for position in marked:  # the count per token does not depend on the order
            token = sentence[position]
            if left_model[token] > 0 and left_peer[token] > 0:
                hits += 1
                left_model[token] -= 1
                left_peer[token] -= 1
    return hits


def _wlcs_row(x: str, peer: Sequence[str], prev_c: list[float], prev_k: list[int], f: list[float]):
    """One row of perl's ``wlcs_inner`` table for model token ``x``: (c, k) of every peer prefix."""
    n = len(peer)
    cur_c = [0.0] * (n + 1)
    cur_k = [0] * (n + 1)
    left = 0.0
    for j in range(n):
        if peer[j] == x:
            k = prev_k[j]
            left = prev_c[j] + f[k + 1] - f[k]  # perl: (c + f(k+1)) - f(k), in this order
            cur_k[j + 1] = k + 1
        else:
            up = prev_c[j + 1]
            if up >= left:  # noqa: PLR1730 (an if is faster than max() here)
                left = up
        cur_c[j + 1] = left
    return cur_c, cur_k


def _wlcs_marks(model: Sequence[str], peer: Sequence[str], f: list[float]) -> list[int]:
    """Model positions of the weighted LCS perl's ``wlcs_inner`` + ``markLCS`` mark (f[k] = k^w).

    The trace back needs the whole table; it is kept as checkpoint rows every ``B = sqrt(len(model))`` rows and
    recomputed one block at a time as the trace reaches it: O(sqrt(len(model)) * len(peer)) memory instead of the
    table's len(model) * len(peer) (a 20,000-word pair took 2.6 GB), the same values, so the same marks.
    """
    n, rows_total = len(peer), len(model)
    block = max(1, math.isqrt(rows_total))
    c, k = [0.0] * (n + 1), [0] * (n + 1)
    checkpoints = {0: (np.array(c), np.array(k, dtype=np.int64))}
    for i, x in enumerate(model, 1):
        c, k = _wlcs_row(x, peer, c, k, f)
        if i % block == 0 and i < rows_total:
            checkpoints[i] = (np.array(c), np.array(k, dtype=np.int64))
    marks = []
    i, j = rows_total, n
    while i and j:
        first = (i - 1) // block * block  # the block holding rows first .. i
        c, k = (part.tolist() for part in checkpoints[first])
        rows = [np.array(c)]
        for x in model[first:i]:
            c, k = _wlcs_row(x, peer, c, k, f)
            rows.append(np.array(c))
        while i > first and j:
            if model[i - 1] == peer[j - 1]:
                i -= 1
                j -= 1
                marks.append(i)
            elif rows[i - 1 - first][j] >= rows[i - first][j - 1]:
                i -= 1
            else:
                j -= 1
    return marks


def _wlcs_hits(model: _Text, peer: _Text, weight: float) -> tuple[float, float]:
    """perl's ``wlcs``: (hit = sum of run-length^w over clipped runs of marked model positions, sum of len^w)."""
    base = 0.0
    for sentence in model.sentences:
        base += len(sentence) ** weight
    if not model.tokens or not peer.tokens:
        return 0.0, base
    longest = max(map(len, model.sentences), default=0)
    f = [k**weight for k in range(longest + 2)]
    left_model, left_peer = model.ngrams(1).copy(), peer.ngrams(1).copy()
    peer_sets = [(other, set(other)) for other in peer.sentences if other]
    hit = 0.0
    for sentence in model.sentences:
        if not sentence:
            continue
        mask = [False] * len(sentence)
        vocabulary = set(sentence)
        for other, other_set in peer_sets:
            if vocabulary.isdisjoint(other_set):
                continue
            for position in _wlcs_marks(sentence, other, f):
                mask[position] = True
        run = 0
        last = len(sentence) - 1
        for j, token in enumerate(sentence):
            if mask[j] and left_model[token] > 0 and left_peer[token] > 0:
                run += 1
                if j == last or not mask[j + 1]:  # a run ends before an unmarked position or at the sentence end
                    hit += run**weight
                    run = 0
                left_model[token] -= 1
                left_peer[token] -= 1
    return hit, base


def type_statistics(rouge_type: RougeType, model: _Text, peer: _Text) -> tuple[float, float, float, float]:
    """``(hit, model_count, peer_count, selection score for -f B)`` of one ROUGE type, perl's way."""
    kind = rouge_type.kind
    if kind == "N":
        n = rouge_type.n
        model_count = max(len(model.tokens) - n + 1, 0)
        hit = overlap(model.ngrams(n), peer.ngrams(n)) if model_count else 0
        return hit, model_count, max(len(peer.tokens) - n + 1, 0), _r5(hit / model_count) if model_count else 0.0
    if kind == "S":
        skip, unigrams = rouge_type.skip, rouge_type.unigrams

        def total(tokens: tuple[str, ...]) -> int:  # perl's loop gives no unigram for the last token
            return skip_bigram_total(len(tokens), skip) + (len(tokens) - 1 if unigrams and len(tokens) > 1 else 0)

        model_count, peer_count = total(model.tokens), total(peer.tokens)
        if not model_count:
            hit = 0
        elif max(model_count, peer_count) <= SKIP_PAIR_LIMIT:
            hit = overlap(model.skips(skip, unigrams), peer.skips(skip, unigrams))
        else:  # long texts: the default flavor's prefix-sum count, linear memory, no pair listed
            hit = skip_bigram_hits(model.tokens, peer.tokens, skip)
            if unigrams and len(model.tokens) > 1 and len(peer.tokens) > 1:
                hit += overlap(Counter(model.tokens[:-1]), Counter(peer.tokens[:-1]))
        return hit, model_count, peer_count, _r5(hit / model_count) if model_count else 0.0
    if kind == "L":
        hit = _union_lcs_hits(model, peer)
        base = sum(map(len, model.sentences))
        return hit, base, len(peer.tokens), hit / base if base else 0.0
    w = rouge_type.weight
    hit, base = _wlcs_hits(model, peer, w)
    # perl divides by zero here when the model has no token; 0 is the defined score
    selection = (hit / base) ** (1 / w) if base else 0.0
    return hit, base**w, float(len(peer.tokens)) ** w, selection


def _scores(rouge_type: RougeType, hit: float, model_count: float, peer_count: float, alpha: float):
    """(R, P, F) as perl prints them."""
    inverse = 1 / rouge_type.weight if rouge_type.kind == "W" else 0.0
    if inverse:
        recall = _r5((hit / model_count) ** inverse) if model_count else 0.0
        precision = _r5((hit / peer_count) ** inverse) if peer_count else 0.0
    else:
        recall = _r5(hit / model_count) if model_count else 0.0
        precision = _r5(hit / peer_count) if peer_count else 0.0
    denominator = (1 - alpha) * precision + alpha * recall
    return recall, precision, _r5(precision * recall / denominator) if denominator > 0 else 0.0


def score_example(
    rouge_types: Sequence[RougeType], peer: _Text, models: Sequence[_Text], multi_ref: str, alpha: float
) -> list[tuple[float, float, float]]:
    """Perl's per-case (R, P, F) of each type for one peer and its models (-f A: pooled; -f B: best recall)."""
    out = []
    for rouge_type in rouge_types:
        if len(models) == 1:
            hit, model_count, peer_count, _ = type_statistics(rouge_type, models[0], peer)
        elif multi_ref == "average":
            hit = model_count = peer_count = 0
            for model in models:
                h, m, p, _ = type_statistics(rouge_type, model, peer)
                hit += h
                model_count += m
                peer_count += p
        else:
            best = -1.0
            for model in models:
                h, m, p, selection = type_statistics(rouge_type, model, peer)
                if selection > best:
                    best, hit, model_count, peer_count = selection, h, m, p
        out.append(_scores(rouge_type, hit, model_count, peer_count, alpha))
    return out


# ---------------------------------------------------------------------------------------------------------------------
# ROUGE-N and ROUGE-L without -m, -s, -l, -b: the rouge_score flavor counts the same hits, perl only rounds differently
def round5(values: np.ndarray) -> np.ndarray:
    """:func:`_r5` of every value: ``k / 1e5`` with k the nearest integer to ``1e5 x`` is the double nearest to the
    5-decimal string; values within 1e-6 of a tie are formatted one by one (the product may be off by one ulp)."""
    scaled = np.asarray(values, dtype=np.float64) * 1e5
    out = np.floor(scaled + 0.5) / 1e5
    near = np.abs(scaled - np.floor(scaled) - 0.5) < 1e-6
    if near.any():
        out[near] = [_r5(x) for x in np.asarray(values, dtype=np.float64)[near].tolist()]
    return out


def perl_figures(recall: np.ndarray, precision: np.ndarray, alpha: float = PERL_ALPHA) -> np.ndarray:
    """(examples, 3) R, P, F as perl prints them from the unrounded ratios: F from the rounded R and P."""
    r, p = round5(recall), round5(precision)
    denominator = (1 - alpha) * p + alpha * r
    f = np.zeros_like(r)
    np.divide(p * r, denominator, out=f, where=denominator > 0)
    return np.stack([r, p, round5(f)], axis=1)


def _ascii(text: str) -> str:
    """The text with every non-ASCII character a space: rouge_score's tokens of it are perl's tokens of the text."""
    return text if text.isascii() else _NON_ASCII.sub(" ", text)


# bytes: A-Z lowercased, a-z and 0-9 kept, a newline -> \x01, a NUL (between texts) -> \x02, all else a space
_TOKEN_BYTES = bytes(
    c + 32 if 65 <= c <= 90 else c if 97 <= c <= 122 or 48 <= c <= 57 else {10: 1, 0: 2}.get(c, 32) for c in range(256)
)


def _stemmed_texts(texts: list[str], stem: Callable[[str], str]) -> list[str]:
    """The texts as perl's ``-m`` reads them, rewritten for rouge_score's tokenizer: every token (stemmed when
    longer than 3 letters) followed by a space, newlines kept, so its tokens and lines are perl's. All texts are
    tokenized in one pass (ASCII bytes, joined by NUL; a non-ASCII character is a separator, "?") and each
    distinct word is stemmed once. A stem that is not one ``[a-z0-9]+`` token (the WordNet exception comics ->
    comic_strip) is renamed to a token no other word has: only token identity counts."""
    joined = "\x00".join(texts)
    if joined.count("\x00") != len(texts) - 1:  # a NUL inside a text separates tokens, as any other symbol
        joined = "\x00".join(text.replace("\x00", " ") for text in texts)
    data = joined.encode("ascii", "replace").translate(_TOKEN_BYTES)
    tokens = data.replace(b"\x01", b" \x01 ").replace(b"\x02", b" \x02 ").split()
    table = {word: word if len(word) <= 3 else stem(word.decode()).encode() for word in set(tokens)}
    if stem is not porter_stem:
        odd = sorted({out for out in table.values() if not _TOKEN.fullmatch(out.decode())} - {b"\x01", b"\x02"})
        if odd:
            taken = set(table.values())
            names = (name for k in itertools.count() if (name := f"{k}x0".encode()) not in taken)
            renamed = dict(zip(odd, names))
            table = {word: renamed.get(out, out) for word, out in table.items()}
    table[b"\x01"] = b"\n"
    return b" ".join(map(table.__getitem__, tokens)).decode().split("\x02")


def shared_texts(
    predictions: list[str], references: list[list[str]], options: TextOptions
) -> tuple[list[str], list[list[str]]] | None:
    """Texts whose rouge_score tokens and lines are perl's (:func:`shared_ratios`): non-ASCII characters blanked,
    tokens stemmed under ``use_stemmer``; None where the shared route does not apply (stop words, limits)."""
    if replace(options, use_stemmer=False, wordnet_exceptions=False) != TextOptions():
        return None
    if not options.use_stemmer:
        return [_ascii(text) for text in predictions], [[_ascii(text) for text in texts] for texts in references]
    texts = _stemmed_texts(predictions + [text for texts in references for text in texts],
                           _stemmer(options.wordnet_exceptions))  # fmt: skip
    preds, rest = texts[: len(predictions)], iter(texts[len(predictions) :])
    return preds, [[next(rest) for _ in texts] for texts in references]


def shared_ratios(
    predictions: list[str], references: list[list[str]], rouge_types: Sequence[RougeType], multi_ref: str
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Unrounded (R, P) per example of ROUGE-N / ROUGE-L types without stop words or limits, from
    :func:`~nlgmetrics.lexical.rouge_core.compute_rouge_score` (``tokenizer="rouge_score"`` on
    :func:`shared_texts`; perl's ROUGE-L is its rougeLsum, or rougeL where no text has two lines): the same hits and
    counts, so one implementation (and its speed) serves both flavors. ``multi_ref="average"`` is perl's -f A there;
    perl's -f B (best recall, not best F) scores each reference alone and keeps the first with the highest recall."""
    lines = any("\n" in text for text in predictions) or any("\n" in text for texts in references for text in texts)
    summary = "rougeLsum" if lines else "rougeL"  # one line each: one LCS, the same hits; rougeL is faster
    names = {t.name: summary if t.kind == "L" else t.name for t in rouge_types}

    def ratios(preds: list[str], refs: list) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        out = compute_rouge_score(
            preds, refs, rouge_types=list(names.values()), use_aggregator=False, tokenizer="rouge_score",
            multi_ref="average",
        )  # fmt: skip
        return {ours: (np.array(out[f"{theirs}_recall"]), np.array(out[f"{theirs}_precision"]))
                for ours, theirs in names.items()}  # fmt: skip

    preds, refs = predictions, references
    if all(len(texts) == 1 for texts in refs):
        return ratios(preds, [texts[0] for texts in refs])  # plain strings: no per-example reference lists
    if multi_ref == "average":
        return ratios(preds, refs)
    n = len(preds)
    best = {t.name: (np.full(n, -1.0), np.zeros(n), np.zeros(n)) for t in rouge_types}  # selection, R, P
    for k in range(max(map(len, refs))):
        rows = np.array([i for i, texts in enumerate(refs) if len(texts) > k])
        got = ratios([preds[i] for i in rows], [refs[i][k] for i in rows])
        for t in rouge_types:
            recall, precision = got[t.name]
            selection = round5(recall) if t.kind == "N" else recall  # perl compares rounded N, unrounded L recall
            kept, best_r, best_p = best[t.name]
            better = selection > kept[rows]
            kept[rows[better]] = selection[better]
            best_r[rows[better]] = recall[better]
            best_p[rows[better]] = precision[better]
    return {name: (r, p) for name, (_, r, p) in best.items()}


# ---------------------------------------------------------------------------------------------------------------------
# Perl's averages: bootstrap with srand(i) and perl's drand48
_MASK48 = (1 << 48) - 1
_DRAND48_A = 0x5DEECE66D
_DRAND48_C = 0xB


def drand48_stream(seed: int, count: int) -> np.ndarray:
    """The first ``count`` values of perl's ``rand()`` after ``srand(seed)`` (perl >= 5.20: its own drand48,
    x0 = seed * 2^16 + 0x330E, x <- (0x5DEECE66D x + 0xB) mod 2^48, rand = x / 2^48)."""
    return _drand48_states(np.array([seed]), count)[0].astype(np.float64) * 2.0**-48


def _lcg_powers(count: int) -> tuple[np.ndarray, np.ndarray]:
    """(A_t, C_t), t = 1..count, with x_t = A_t x_0 + C_t mod 2^48, by doubling: x_{k+j} = A_j x_k + C_j gives
    A_{k+j} = A_j A_k, C_{k+j} = A_j C_k + C_j (uint64 arithmetic wraps mod 2^64, so it is exact mod 2^48)."""
    mask = np.uint64(_MASK48)
    a = np.array([_DRAND48_A], dtype=np.uint64)
    c = np.array([_DRAND48_C], dtype=np.uint64)
    while len(a) < count:
        a_k, c_k = a[-1], c[-1]
        a = np.concatenate([a, (a * a_k) & mask])
        c = np.concatenate([c, (a[: len(c)] * c_k + c) & mask])
    return a[:count], c[:count]


def _drand48_states(seeds: np.ndarray, count: int) -> np.ndarray:
    """48-bit states x_1..x_count (columns) for each seed (rows); uint64 products wrap mod 2^64, fine mod 2^48."""
    a, c = _lcg_powers(count)
    x0 = (seeds.astype(np.uint64) << np.uint64(16)) + np.uint64(0x330E)
    return (x0[:, None] * a[None, :] + c[None, :]) & np.uint64(_MASK48)


def perl_sort_order(eval_ids: Sequence[str]) -> list[int]:
    """The order of perl's ``sort keys`` over test ids ``"<eval id>.<peer id>"``: string order of ``id + "."``
    (the peer id never changes the order)."""
    return sorted(range(len(eval_ids)), key=lambda i: eval_ids[i] + ".")


def _resample_means(ordered: np.ndarray, n_resamples: int) -> np.ndarray:
    """Perl's resample means, float for float: the values of N draws summed in draw order, divided by N."""
    n = len(ordered)
    means = np.empty((n_resamples, ordered.shape[1]))
    chunk = max(1, 2**22 // n)  # resamples drawn at once
    for start in range(0, n_resamples, chunk):
        seeds = np.arange(start, min(start + chunk, n_resamples))
        draws = (_drand48_states(seeds, n).astype(np.float64) * 2.0**-48) * float(n)
        picks = np.ascontiguousarray(draws.astype(np.int64).T)  # (n, resamples): the t-th draw of each resample
        total = ordered[picks[0]]
        for pick in picks[1:]:  # running sums in draw order, as perl adds (a pairwise sum could differ in the last bit)
            total += ordered[pick]
        means[start : start + len(seeds)] = total / n
    return means


@cache
def _threadpools() -> ThreadpoolController:
    """The loaded thread pools, found once (a search takes milliseconds)."""
    return ThreadpoolController()


def _resample_unit_sums(units: np.ndarray, n_resamples: int) -> np.ndarray:
    """Exact sums of ``units`` (integers as float64, cases x columns) over each resample's N draws, as
    draws-per-case @ units. Resample r's state t is ``r B_t + D_t mod 2^48`` (x_0 = r 2^16 + 0x330E); its draw is
    perl's ``int(N * (x / 2^48))`` = ``int(x * (N 2^-48))`` (scaling by a power of 2 is exact)."""
    n = len(units)
    mask = np.uint64(_MASK48)
    a, c = _lcg_powers(n)
    step = (a << np.uint64(16)) & mask
    base = (a * np.uint64(0x330E) + c) & mask
    scale = float(n) * 2.0**-48
    sums = np.empty((n_resamples, units.shape[1]))
    chunk = max(1, min(n_resamples, 2**16 // n))  # resamples per block; blocks reuse buffers that stay in cache
    first = (np.arange(chunk, dtype=np.uint64)[:, None] * step + base) & mask  # the states of resamples 0..chunk-1
    offsets = np.arange(0, chunk * n, n)[:, None]  # flat index of each resample's row in the counts block
    states = np.empty((chunk, n), dtype=np.uint64)
    floats = np.empty((chunk, n))
    counts = np.empty((chunk, n))
    with _threadpools().limit(limits=1, user_api="blas"):  # OpenBLAS's threads cost far more than they save here
        for start in range(0, n_resamples, chunk):
            rows = min(chunk, n_resamples - start)
            state, draw, count = states[:rows], floats[:rows], counts[:rows]
            np.add(first[:rows], np.uint64(start) * step, out=state)  # resample start + i: first[i] + start B
            state &= mask
            picks = state.view(np.int64)  # below 2^48: int64 -> float64 is exact
            np.multiply(picks, scale, out=draw)
            np.copyto(picks, draw, casting="unsafe")  # int(): truncation
            picks += offsets[:rows]
            count.fill(0.0)
            np.add.at(count.reshape(-1), picks.reshape(-1), 1.0)
            np.matmul(count, units, out=sums[start : start + rows])
    return sums


def _order_statistics(
    ranked: np.ndarray, average: np.ndarray, confidence: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(average, low, high) unrounded from the sorted resample means (perl's interpolation; undef is 0)."""
    n_resamples = len(ranked)
    delta = n_resamples * ((100 - confidence) / 2.0) / 100.0
    upper = int(n_resamples - delta - 1)
    lower = int(delta)
    ratio = n_resamples - delta - 1 - upper

    def interpolate(index: int) -> np.ndarray:
        above = ranked[index + 1] if index + 1 < n_resamples else np.zeros(ranked.shape[1])  # perl: undef is 0
        return ranked[index] + (above - ranked[index]) * ratio

    return average, interpolate(lower), interpolate(upper)


def _bootstrap_from_units(
    ordered: np.ndarray, n_resamples: int, confidence: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Perl's unrounded (average, low, high) from exact integer sums when every value is a 5-decimal figure
    (``k / 1e5``, as perl's printed R, P, F); None when a value is not, or an end lies too close to a rounding tie.

    Perl sums floats in draw order; here the sums are exact (integers), so each resample mean m_r = S_r / (1e5 N)
    differs from perl's by at most eps = (N + R + 16) 2^-52 max|v| (float summation bound, N and R terms); order
    statistics, their interpolation and the average of the means move by at most 3 eps. Where every end is more
    than 4 eps from a 5-decimal tie, ``"%7.5f"`` prints perl's figures exactly; otherwise the caller sums as perl.
    """
    n = len(ordered)
    if not n or not np.isfinite(ordered).all():
        return None
    units = np.rint(ordered * 1e5)
    largest = float(np.abs(units).max())
    if not np.array_equal(units / 1e5, ordered) or largest * n * n_resamples >= 2**53:
        return None
    sums = _resample_unit_sums(units, n_resamples)
    scale = 1e5 * n
    average = sums.sum(axis=0) / (scale * n_resamples)  # integers below 2^53: the sum is exact in any order
    result = _order_statistics(np.sort(sums, axis=0) / scale, average, confidence)
    eps = (n + n_resamples + 16) * 2.0**-52 * float(np.abs(ordered).max())
    margin = 1e5 * 4 * eps + 1e-9
    for end in result:
        scaled = end * 1e5
        if (np.abs(scaled - np.floor(scaled) - 0.5) < margin).any():
            return None
    return result


def perl_bootstrap(
    values: np.ndarray,
    eval_ids: Sequence[str] | None = None,
    n_resamples: int = PERL_RESAMPLES,
    confidence: float = PERL_CONFIDENCE,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """ROUGE-1.5.5's printed ``Average_X`` and its interval for each column of ``values`` (cases x columns).

    Resample i (i = 0..n_resamples-1) is drawn after ``srand(i)``: N indices ``int(N * rand())`` into the cases in
    perl's string order of their ids, summed in draw order and divided by N. Average = the mean of the sorted
    resample means; the interval ends are the order statistics ``delta = R (100 - c) / 200`` and
    ``R - delta - 1`` (interpolated as perl does). All three are ``"%7.5f"``-rounded.
    ``eval_ids`` default to "1".."N" (the order of the predictions).

    For 5-decimal values (perl's figures) the resample sums are exact integer sums from per-case draw counts,
    which print as perl's float sums unless an end is within rounding error of a tie; then (and for other values)
    the draws are summed in perl's order.
    """
    values = np.asarray(values, dtype=np.float64)
    n = len(values)
    ids = [str(i + 1) for i in range(n)] if eval_ids is None else [str(x) for x in eval_ids]
    ordered = values[perl_sort_order(ids)]
    result = _bootstrap_from_units(ordered, n_resamples, confidence)
    if result is None:
        ranked = np.sort(_resample_means(ordered, n_resamples), axis=0)
        result = _order_statistics(ranked, np.cumsum(ranked, axis=0)[-1] / n_resamples, confidence)
    rounded = np.vectorize(_r5, otypes=[np.float64])
    return tuple(rounded(end) for end in result)


# ---------------------------------------------------------------------------------------------------------------------
# Public API
def _check_limit(name: str, value: object) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise OptionError(
            f"{name} must be a positive integer (perl's {'-l' if name == 'length_limit' else '-b'}) "
            f"or None, got {value!r}."
        )
    return value


def parse_rouge155_types(
    rouge_types: Sequence[str] | str | None, weight_factor: float = DEFAULT_WEIGHT_FACTOR
) -> tuple[RougeType, ...]:
    """The ROUGE types of the perl flavor (duplicates dropped): rouge1..rouge9, rougeL, rougeW (rougeW-<w>),
    rougeS<d>, rougeSU<d>, rougeS*, rougeSU*."""
    if rouge_types is None:
        rouge_types = DEFAULT_ROUGE155_TYPES
    elif isinstance(rouge_types, str):
        rouge_types = [rouge_types]
    elif not isinstance(rouge_types, Sequence) or not rouge_types:
        raise OptionError(
            "rouge_types must be a non-empty list of ROUGE type names (rouge1..rouge9, rougeL, rougeW, "
            "rougeS4, rougeSU4, rougeS*, ...)."
        )
    _check_weight(weight_factor)
    types = []
    for name in rouge_types:
        rouge_type = parse_rouge_type(name, weight_factor)
        if rouge_type.kind == "Lsum":
            raise OptionError(
                "rougeLsum is a rouge_score type; in flavor='rouge155' rougeL is already ROUGE-1.5.5's summary-level "
                "ROUGE-L (sentences separated by newlines): use rougeL."
            )
        types.append(rouge_type)
    return tuple({t.name: t for t in types}.values())


def rouge155_scores(
    predictions: Sequence[str],
    references: Sequence[str | Sequence[str]],
    rouge_types: Sequence[str] | str | None = None,
    *,
    use_stemmer: bool = False,
    wordnet_exceptions: bool = False,
    remove_stopwords: bool = False,
    multi_ref: str = "average",
    length_limit: int | None = None,
    byte_limit: int | None = None,
    byte_limit_bug: bool = False,
    weight_factor: float = DEFAULT_WEIGHT_FACTOR,
    alpha: float = PERL_ALPHA,
) -> dict[str, np.ndarray]:
    """Per-example perl figures: ``{type name: array (examples, 3) of R, P, F}``; options as
    :func:`compute_rouge155`."""
    preds, refs = check_pairs(predictions, references)
    types = parse_rouge155_types(rouge_types, weight_factor)
    options = TextOptions(
        use_stemmer=check_flag("use_stemmer", use_stemmer),
        wordnet_exceptions=check_flag("wordnet_exceptions", wordnet_exceptions),
        remove_stopwords=check_flag("remove_stopwords", remove_stopwords),
        length_limit=_check_limit("length_limit", length_limit),
        byte_limit=_check_limit("byte_limit", byte_limit),
        byte_limit_bug=check_flag("byte_limit_bug", byte_limit_bug),
    )
    if options.wordnet_exceptions and not options.use_stemmer:
        raise OptionError("wordnet_exceptions=True is part of perl's stemming (-m): set use_stemmer=True as well.")
    if options.length_limit and options.byte_limit:
        raise OptionError("give length_limit (-l, words) or byte_limit (-b, bytes), not both (perl refuses both).")
    if options.byte_limit_bug and not options.byte_limit:
        raise OptionError("byte_limit_bug=True reproduces perl's -b handling of ROUGE-L/W: it needs byte_limit.")
    if multi_ref not in ("average", "best"):
        raise OptionError(
            f"multi_ref must be 'average' (ROUGE-1.5.5 -f A, pooled counts) or 'best' (-f B, the reference with the "
            f"highest recall), got {multi_ref!r}."
        )
    alpha = check_real("alpha", alpha, 0, 1, "perl's -p; 0.5 is F1")
    figures: dict[str, np.ndarray] = {}
    shared = [t for t in types if t.kind in ("N", "L")]
    texts = shared_texts(preds, refs, options) if shared else None
    if texts is None:
        shared = []
    else:
        for name, (recall, precision) in shared_ratios(*texts, shared, multi_ref).items():
            figures[name] = perl_figures(recall, precision, alpha)
    own = [t for t in types if t not in shared]
    if own:
        read = _reader(options)
        rows = np.empty((len(preds), len(own), 3))
        for i, (pred, ref_list) in enumerate(zip(preds, refs)):
            rows[i] = score_example(own, read(pred), [read(ref) for ref in ref_list], multi_ref, alpha)
        figures.update((t.name, rows[:, k, :]) for k, t in enumerate(own))
    return {t.name: figures[t.name] for t in types}


def compute_rouge155(
    predictions: Sequence[str],
    references: Sequence[str | Sequence[str]],
    *,
    rouge_types: Sequence[str] | str | None = None,
    use_aggregator: bool = True,
    use_stemmer: bool = False,
    wordnet_exceptions: bool = False,
    remove_stopwords: bool = False,
    multi_ref: str | None = None,
    length_limit: int | None = None,
    byte_limit: int | None = None,
    byte_limit_bug: bool = False,
    weight_factor: float = DEFAULT_WEIGHT_FACTOR,
    alpha: float | None = None,
    n_bootstrap: int = 0,
    confidence_interval: float = 0.95,
    eval_ids: Sequence[str] | None = None,
) -> dict[str, Any]:
    """ROUGE as ROUGE-1.5.5.pl prints it (see the module docstring for the rules and perl's quirks).

    Perl options: ``use_stemmer`` (-m), ``wordnet_exceptions`` (-m with the WordNet 2.0 exception DB populated;
    pyrouge/files2rouge ship it empty, hence off by default), ``remove_stopwords`` (-s), ``multi_ref`` "average"
    (-f A, default) or "best" (-f B), ``length_limit`` (-l), ``byte_limit`` (-b; ``byte_limit_bug`` reproduces perl's
    ROUGE-L/W truncation), ``weight_factor`` (-w, for rougeW), ``alpha`` (-p, default 0.5), ``n_bootstrap`` (-r;
    0 means perl's 1000), ``confidence_interval`` (-c / 100). Types: rouge1..rouge9, rougeL, rougeW, rougeS<d>,
    rougeSU<d>, rougeS*, rougeSU* (default rouge1, rouge2, rougeL).

    Keys per type T: ``T`` (F), ``T_precision``, ``T_recall``. With ``use_aggregator=True`` these are perl's printed
    ``Average_F/P/R`` (bootstrap means), with ``T_low``/``T_high`` (and ``T_precision_low`` ...) its interval and
    ``T_plain`` (``T_precision_plain``, ``T_recall_plain``) the plain mean of the per-case figures (unrounded);
    else lists of the per-case figures. ``eval_ids`` name the cases as perl's ``<EVAL ID>`` (default "1".."N"); only the
    resampling order depends on them.
    """
    figures = rouge155_scores(
        predictions, references, rouge_types, use_stemmer=use_stemmer, wordnet_exceptions=wordnet_exceptions,
        remove_stopwords=remove_stopwords, multi_ref="average" if multi_ref is None else multi_ref,
        length_limit=length_limit, byte_limit=byte_limit, byte_limit_bug=byte_limit_bug,
        weight_factor=weight_factor, alpha=PERL_ALPHA if alpha is None else alpha,
    )  # fmt: skip
    suffixes = ("_recall", "_precision", "")
    if not use_aggregator:
        return {name + suffixes[c]: column[:, c].tolist() for name, column in figures.items() for c in (2, 1, 0)}
    n_resamples = PERL_RESAMPLES if not n_bootstrap else n_bootstrap
    n_resamples = check_int("n_bootstrap", n_resamples, 1, MAX_RESAMPLES, "perl's -r; 0 for perl's 1000")
    if (
        isinstance(confidence_interval, bool)
        or not isinstance(confidence_interval, (int, float))
        or not (0 <= confidence_interval <= 1)
    ):
        raise OptionError(f"confidence_interval must be in [0, 1] (perl's -c / 100), got {confidence_interval!r}.")
    n = len(next(iter(figures.values())))
    if eval_ids is not None:
        eval_ids = [str(x) for x in eval_ids]
        if len(eval_ids) != n or len(set(eval_ids)) != n:
            raise OptionError(
                f"eval_ids must name each of the {n} examples once, got {len(eval_ids)} ids "
                f"({len(set(eval_ids))} distinct)."
            )
    names = list(figures)
    values = np.concatenate([figures[name] for name in names], axis=1)  # columns: R, P, F per type
    average, low, high = perl_bootstrap(values, eval_ids, n_resamples, round(100 * confidence_interval, 10))
    plain = [math.fsum(column) / n for column in values.T.tolist()]
    out: dict[str, Any] = {}
    for t, name in enumerate(names):
        for c in (2, 1, 0):
            key = name + suffixes[c]
            column = 3 * t + c
            out[key] = float(average[column])
            out[key + "_low"] = float(low[column])
            out[key + "_high"] = float(high[column])
            out[key + "_plain"] = float(plain[column])
    return out


_SHARED = ("rouge_types", "use_aggregator", "use_stemmer", "multi_ref", "weight_factor", "alpha", "n_bootstrap",
           "confidence_interval")  # fmt: skip


def compute_rouge_flavor(flavor: str, predictions: Any, references: Any, **options: Any) -> dict[str, Any]:
    """:func:`nlgmetrics.lexical.rouge.compute_rouge`'s dispatch for ``flavor != "rouge_score"`` or perl-only keywords.

    ``options`` are compute_rouge's keywords plus this flavor's own; rouge_score-only ones must be left at their
    defaults (``tokenizer=None``, ``beta=None``).
    """
    if flavor not in FLAVORS:
        raise OptionError(
            f"unknown ROUGE flavor={flavor!r}; choose 'rouge_score' (default: rouge_score / HF evaluate "
            "numbers) or 'rouge155' (ROUGE-1.5.5.pl's numbers, as summarization papers report)."
        )
    shared = {key: options.pop(key) for key in _SHARED if key in options}
    tokenizer, beta = options.pop("tokenizer", None), options.pop("beta", None)
    if flavor == "rouge_score":
        raise OptionTypeError(
            f"compute_rouge got keywords of flavor='rouge155' only: {sorted(options)}; pass "
            "flavor='rouge155' to use them."
        )
    if tokenizer is not None:
        raise OptionError(
            "flavor='rouge155' tokenizes as ROUGE-1.5.5.pl does (ASCII letters and digits); tokenizer= "
            "applies to the rouge_score flavor only."
        )
    if beta is not None:
        raise OptionError(
            "flavor='rouge155' weights F with alpha (perl's -p), not beta: F = PR / ((1-alpha)P + alpha R)."
        )
    options.pop("seed", None)  # perl seeds resample i with srand(i)
    return compute_rouge155(predictions, references, **shared, **options)


__all__: list[str] = [
    "compute_rouge155",
    "compute_rouge_flavor",
    "perl_bootstrap",
    "porter_stem",
    "raw_tokens",
    "read_units",
    "rouge155_scores",
    "smart_stopwords",
    "wordnet_exceptions_map",
]
