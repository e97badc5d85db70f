"""ROUGE (Lin, 2004): N, L, Lsum (rouge_score 0.1.2-exact), W, S and SU.

Flow: text -> tokens (:mod:`nlgmetrics.text.rouge_tokenize`) -> per reference, one statistic triple
``(hit, ref_total, pred_total)`` per ROUGE type -> precision, recall, F per example -> mean (or per-example lists)::

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
  sentence, which equals rougeL.
- ``rougeW`` (weighted LCS, Lin 2004 section 3.3), ``f(k) = k^w`` (``weight_factor`` w, default 1.2): the dynamic
  program ``c(i,j) = c(i-1,j-1) + f(k+1) - f(k)`` on a match (k = length of the run of consecutive matches ending at
  (i-1, j-1)), else ``max(c(i-1,j), c(i,j-1))`` with the run reset; hit = c(m,n), totals f(m) and f(n), g = f^-1,
  i.e. ``R = (WLCS / m^w)^(1/w)``. ``rougeW-1.5`` sets w for that type.
- ``rougeS<d>`` / ``rougeS*`` (skip-bigrams, section 5): every ordered pair of tokens (x_i, x_j), i < j, with at most
  d tokens between them (j - i <= d + 1, ROUGE-1.5.5's ``-2 d``), or any distance for ``*``; hit = clipped pair
  matches; totals the pair counts (C(m,2) for ``*``).
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
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import repeat
from typing import Any

import numpy as np

from nlgmetrics.inputs import check_pairs
from nlgmetrics.stats import DEFAULT_SEED, bootstrap_indices
from nlgmetrics.text.rouge_tokenize import RougeTokenizer, TokenizerSpec, get_rouge_tokenizer

DEFAULT_ROUGE_TYPES = ("rouge1", "rouge2", "rougeL", "rougeLsum")
DEFAULT_WEIGHT_FACTOR = 1.2

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
        raise TypeError(f"a ROUGE type must be a string such as 'rouge1', got {type(name).__name__} {name!r:.40}.")
    match = _TYPE_PATTERN.fullmatch(name)
    if match is None:
        raise ValueError(f"invalid ROUGE type {name!r}; valid types are {_TYPE_HELP}.")
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
    if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not math.isfinite(weight) or weight < 1:
        raise ValueError(
            "weight_factor must be a number >= 1 (f(k) = k^w; 1 gives plain LCS, ROUGE-1.5.5 uses 1.2), "
            f"got {weight!r}."
        )


# ---------------------------------------------------------------------------------------------------------------------
# Statistics: each returns (hit, ref_total, pred_total)
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
    """Weighted LCS of Lin (2004), f(k) = k^weight: the value c(m, n) of the paper's dynamic program."""
    m, n = len(ref), len(can)
    if not m or not n:
        return 0.0
    gain = [(k + 1) ** weight - k**weight for k in range(min(m, n) + 1)]
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


def skip_bigram_counter(tokens: Sequence[str], skip: int | None, unigrams: bool = False) -> Counter:
    """Skip-bigrams (x_i, x_j), i < j, j - i <= skip + 1 (any j for ``skip=None``), plus unigrams for ROUGE-SU."""
    counts: Counter = Counter()
    last = len(tokens) - 1 if skip is None else min(skip + 1, len(tokens) - 1)
    for gap in range(1, last + 1):
        counts.update(zip(tokens, tokens[gap:]))
    if unigrams:
        counts.update(tokens)
    return counts


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


class _Example:
    """Lazily computed token views of one text (n-gram counters, sentences, skip-bigrams), shared across types."""

    __slots__ = ("text", "tokens", "tokenize", "_ngrams", "_sents", "_skips")

    def __init__(self, text: str, tokenize: RougeTokenizer) -> None:
        self.text = text
        self.tokenize = tokenize
        self.tokens = tokenize(text)
        self._ngrams: dict[int, Counter] = {}
        self._sents: list[tuple[str, ...]] | None = None
        self._skips: dict[tuple, Counter] = {}

    def ngrams(self, n: int) -> Counter:
        counts = self._ngrams.get(n)
        if counts is None:
            counts = self._ngrams[n] = ngram_counter(self.tokens, n)
        return counts

    def sentences(self) -> list[tuple[str, ...]]:
        if self._sents is None:
            self._sents = [self.tokenize(line) for line in self.text.split("\n") if line]
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
    if kind == "L" or (kind == "Lsum" and "\n" not in ref.text and "\n" not in pred.text):
        # a one-line text is one sentence (or none, when empty): rougeLsum's statistics are rougeL's
        if memo is not None and "L" in memo:
            return memo["L"]
        stats = (lcs_length(ref.tokens, pred.tokens), len(ref.tokens), len(pred.tokens))
        if memo is not None:
            memo["L"] = stats
        return stats
    if kind == "Lsum":
        return summary_lcs_hits(ref.sentences(), pred.sentences())
    if kind == "W":
        w = rouge_type.weight
        m, n = len(ref.tokens), len(pred.tokens)
        return wlcs(ref.tokens, pred.tokens, w), float(m) ** w, float(n) ** w
    ref_counts = ref.skips(rouge_type.skip, rouge_type.unigrams)
    pred_counts = pred.skips(rouge_type.skip, rouge_type.unigrams)
    return overlap(ref_counts, pred_counts), sum(ref_counts.values()), sum(pred_counts.values())


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

    def score(self, prediction: str, references: Sequence[str]) -> dict[str, tuple[float, float, float]]:
        """Scores of one prediction against its references (best reference per type, or pooled averaging)."""
        pred = _Example(prediction, self.tokenize)
        refs = [_Example(ref, self.tokenize) for ref in references]
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


def _bootstrap(values: np.ndarray, n_samples: int, seed: int | None, confidence: float) -> np.ndarray:
    """(3, k) low/mid/high percentiles of the column means over seeded bootstrap resamples of the rows."""
    indices = bootstrap_indices(len(values), n_samples, seed)
    means = np.empty((n_samples, values.shape[1]))
    chunk = max(1, 2**22 // max(1, values.size))
    for start in range(0, n_samples, chunk):
        means[start : start + chunk] = values[indices[start : start + chunk]].mean(axis=1)
    delta = (1 - confidence) / 2
    return np.percentile(means, [100 * delta, 50, 100 * (1 - delta)], axis=0)


def compute_rouge(
    predictions: Sequence[str],
    references: Sequence[str | Sequence[str]],
    *,
    rouge_types: Sequence[str] | str | None = None,
    use_aggregator: bool = True,
    use_stemmer: bool = False,
    tokenizer: TokenizerSpec = None,
    multi_ref: str | None = None,
    weight_factor: float = DEFAULT_WEIGHT_FACTOR,
    alpha: float | None = None,
    beta: float | None = None,
    n_bootstrap: int = 0,
    confidence_interval: float = 0.95,
    seed: int | None = DEFAULT_SEED,
    flavor: str = "rouge_score",
    **flavor_options: Any,
) -> dict[str, Any]:
    """ROUGE of ``predictions`` against ``references`` (one string or a list of strings per prediction).

    Keys, for each type T of ``rouge_types`` (default rouge1, rouge2, rougeL, rougeLsum, as HF evaluate): ``T`` is the
    F-measure, ``T_precision`` and ``T_recall`` the precision and recall; the mean over examples with
    ``use_aggregator=True``, else a list with one value per example. With ``n_bootstrap`` >= 2 (aggregated only),
    ``T_low``, ``T_mid``, ``T_high`` (and ``T_precision_low`` ... ``T_recall_high``) are the percentiles
    (1 - confidence_interval) / 2, 50, (1 + confidence_interval) / 2 of the means of ``n_bootstrap`` resamples of the
    examples, seeded (same input and seed, same numbers).

    ``tokenizer``: 'unicode' (default; rouge_score's tokens on ASCII text), 'rouge_score', 'whitespace', or a callable
    text -> list of str (used as is). ``use_stemmer``: Porter stemming of tokens longer than 3 characters, as
    rouge_score. ``multi_ref``: 'best' (rouge_score's score_multi) or 'average' (ROUGE-1.5.5 -f A).
    ``weight_factor``: w of ROUGE-W. ``alpha`` (perl's -p) or ``beta`` weight the F-measure; default: balanced F1.
    ``flavor="rouge155"``: ROUGE-1.5.5.pl's figures, with its options as keywords (see ``rouge155.compute_rouge155``).
    """
    if flavor != "rouge_score" or flavor_options:  # ROUGE-1.5.5.pl's numbers: nlgmetrics.lexical.rouge155
        from nlgmetrics.lexical.rouge155 import compute_rouge_flavor

        return compute_rouge_flavor(
            flavor, predictions, references, rouge_types=rouge_types, use_aggregator=use_aggregator,
            use_stemmer=use_stemmer, tokenizer=tokenizer, multi_ref=multi_ref, weight_factor=weight_factor,
            alpha=alpha, beta=beta, n_bootstrap=n_bootstrap, confidence_interval=confidence_interval, **flavor_options,
        )  # fmt: skip
    multi_ref = "best" if multi_ref is None else multi_ref
    preds, refs = check_pairs(predictions, references)
    if rouge_types is None:
        rouge_types = DEFAULT_ROUGE_TYPES
    elif isinstance(rouge_types, str):
        rouge_types = [rouge_types]
    elif not isinstance(rouge_types, Sequence) or not rouge_types:
        raise ValueError(f"rouge_types must be a non-empty list of ROUGE type names ({_TYPE_HELP}).")
    _check_weight(weight_factor)
    types = tuple(dict((t.name, t) for t in (parse_rouge_type(name, weight_factor) for name in rouge_types)).values())
    if multi_ref not in ("best", "average"):
        raise ValueError(
            f"multi_ref must be 'best' (rouge_score's score_multi) or 'average' (ROUGE-1.5.5 -f A), got {multi_ref!r}."
        )
    if alpha is not None and beta is not None:
        raise ValueError("give alpha (ROUGE-1.5.5's -p) or beta (F_beta), not both.")
    if alpha is not None and (isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0 <= alpha <= 1):
        raise ValueError(f"alpha must be a number in [0, 1] (1: precision only, 0: recall only), got {alpha!r}.")
    if beta is not None and (isinstance(beta, bool) or not isinstance(beta, (int, float)) or not beta >= 0):
        raise ValueError(f"beta must be a non-negative number (beta > 1 favours recall), got {beta!r}.")
    if n_bootstrap:
        if not use_aggregator:
            raise ValueError("n_bootstrap needs use_aggregator=True: intervals are over the mean of the examples.")
        if not 0 < confidence_interval < 1:
            raise ValueError(f"confidence_interval must be in (0, 1), got {confidence_interval!r}.")

    scorer = RougeScorer(types, get_rouge_tokenizer(tokenizer, use_stemmer), multi_ref, alpha, beta)
    rows = [scorer.score(pred, ref) for pred, ref in zip(preds, refs)]
    names = [t.name for t in types]
    # values[i, 3 * t + c]: example i, type t, c = precision, recall, F
    values = np.array([[x for name in names for x in row[name]] for row in rows], dtype=np.float64)
    values = values.reshape(len(rows), 3 * len(names))

    out: dict[str, Any] = {}
    suffixes = ("_precision", "_recall", "")
    for t, name in enumerate(names):
        for c in (2, 0, 1):
            column = values[:, 3 * t + c]
            key = name + suffixes[c]
            out[key] = math.fsum(column.tolist()) / len(column) if use_aggregator else column.tolist()
    if n_bootstrap:
        bounds = _bootstrap(values, n_bootstrap, seed, confidence_interval)
        for t, name in enumerate(names):
            for c in (2, 0, 1):
                for b, label in enumerate(("low", "mid", "high")):
                    out[f"{name}{suffixes[c]}_{label}"] = float(bounds[b, 3 * t + c])
    return out


def rouge_scores(
    predictions: Sequence[str],
    references: Sequence[str | Sequence[str]],
    rouge_types: Sequence[str] = DEFAULT_ROUGE_TYPES,
    **options: Any,
) -> list[dict[str, tuple[float, float, float]]]:
    """Per-example ``{type: (precision, recall, F)}``, the shape of rouge_score's ``score`` output (for tests and
    tools); options as :func:`compute_rouge` (tokenizer, use_stemmer, multi_ref, weight_factor, alpha, beta)."""
    preds, refs = check_pairs(predictions, references)
    weight = options.pop("weight_factor", DEFAULT_WEIGHT_FACTOR)
    types = tuple(parse_rouge_type(name, weight) for name in rouge_types)
    tokenize = get_rouge_tokenizer(options.pop("tokenizer", None), options.pop("use_stemmer", False))
    scorer = RougeScorer(types, tokenize, **options)
    return [scorer.score(pred, ref) for pred, ref in zip(preds, refs)]


__all__: list[str] = [
    "compute_rouge",
    "rouge_scores",
    "RougeScorer",
    "RougeType",
    "parse_rouge_type",
    "lcs_length",
    "lcs_positions",
    "wlcs",
    "skip_bigram_counter",
    "fmeasure",
]
