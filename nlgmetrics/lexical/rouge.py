"""ROUGE's public entry: :func:`compute_rouge` picks the flavor.

- ``flavor="rouge_score"`` (default; HF evaluate's and rouge_score 0.1.2's numbers): :mod:`nlgmetrics.lexical.rouge_core`,
  which also holds the counting (n-grams, LCS, WLCS, skip-bigrams) and the aggregation; its docstring has the formulas.
- ``flavor="rouge155"`` (ROUGE-1.5.5.pl's figures, as summarization papers report): :mod:`nlgmetrics.lexical.rouge155`,
  built on rouge_core.

The layers import downwards only: rouge -> rouge155 -> rouge_core. The names below are re-exported from rouge_core for
callers that import them from here; its long-text limits (``WLCS_MAX_CELLS``, ``SKIP_MAX_WORK``, ``SKIP_PAIR_LIMIT``)
live there alone, so setting them here is an error rather than a silent no-op.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from nlgmetrics.errors import OptionError
from nlgmetrics.lexical.rouge155 import compute_rouge_flavor
from nlgmetrics.lexical.rouge_core import (
    DEFAULT_ROUGE_TYPES,
    DEFAULT_WEIGHT_FACTOR,
    RougeScorer,
    RougeType,
    aggregate,
    compute_rouge_score,
    fmeasure,
    lcs_length,
    lcs_positions,
    make_scorer,
    native_refusal,
    numpy_global_seed,
    ngram_counter,
    overlap,
    parse_rouge_type,
    rouge_score_bootstrap,
    rouge_scores,
    skip_bigram_counter,
    skip_bigram_hits,
    skip_bigram_total,
    summary_sentences,
    wlcs,
)
from nlgmetrics.options import checked_options
from nlgmetrics.stats import DEFAULT_SEED
from nlgmetrics.text.rouge_tokenize import TokenizerSpec


@checked_options
def compute_rouge(
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
    flavor: str = "rouge_score",
    wordnet_exceptions: bool = False,
    remove_stopwords: bool = False,
    length_limit: int | None = None,
    byte_limit: int | None = None,
    byte_limit_bug: bool = False,
    eval_ids: Sequence[str] | None = None,
    backend: str | None = None,
) -> dict[str, Any]:
    """ROUGE of ``predictions`` against ``references`` (one string or a list of strings per prediction).

    Keys, for each type T of ``rouge_types`` (default rouge1, rouge2, rougeL, rougeLsum, as HF evaluate): ``T`` is the
    F-measure, ``T_precision`` and ``T_recall`` the precision and recall; aggregated over the examples with
    ``use_aggregator=True``, else a list with one value per example. ``aggregator``: ``"mean"`` (default here: the
    exact mean) or ``"bootstrap"`` (HF evaluate's ``rouge``, whose module defaults to it: the median of 1000 bootstrap
    resample means, rouge_score's ``BootstrapAggregator`` mid, drawn from numpy's global RNG call for call; with
    ``numpy_seed`` it is seeded for the draw and restored after, as evaluate does with a module's ``seed``, so the same
    seed gives HF's exact number; ``None`` draws from the global RNG as it stands, as rouge_score).
    With ``n_bootstrap`` >= 2 (aggregated only), ``T_low``, ``T_mid``, ``T_high`` (and ``T_precision_low`` ...
    ``T_recall_high``) are the percentiles (1 - confidence_interval) / 2, 50, (1 + confidence_interval) / 2 of the
    means of ``n_bootstrap`` resamples of the examples, seeded by ``seed`` (``numpy.random.default_rng``, as the
    BLEU/NIST intervals; same input and seed, same numbers; independent of ``aggregator`` and of numpy's global RNG).

    ``tokenizer``: ``'rouge_score'`` (default, as HF evaluate: lowercase ASCII ``[a-z0-9]+`` words; other letters are
    dropped, with one warning per call naming how many texts lost letters), ``'unicode'`` (letters of every script,
    one token per Chinese/Japanese character), ``'whitespace'``, or a callable text -> list of str (used as is).
    ``lang``: the texts' language code; any language but English (``'de'``, ``'zh'``, ``'ja'``...) selects
    ``'unicode'``. ``use_stemmer``: Porter stemming of tokens longer than 3 characters, as rouge_score.
    ``split_summaries``: rougeLsum's sentences from nltk's ``sent_tokenize`` (Punkt, offline) instead of newlines,
    as rouge_score's ``RougeScorer(split_summaries=True)``. ``multi_ref``: 'best' (rouge_score's score_multi) or
    'average' (ROUGE-1.5.5 -f A). ``weight_factor``: w of ROUGE-W. ``alpha`` (perl's -p) or ``beta`` weight the
    F-measure; default: balanced F1.

    ``backend``: ``"auto"`` (default, or the environment variable ``NLGMETRICS_ROUGE_BACKEND``): rouge-score-rs (Rust,
    :mod:`nlgmetrics.lexical.rouge_native`) scores rouge1..9, rougeL and rougeLsum with rouge_score's tokenizer, F1
    and one reference or ``multi_ref="best"``, where its numbers are rouge_score's bit for bit; the Python path
    everything else. ``"python"``: our reference implementation for everything (same numbers). ``"native"``: as
    ``"auto"``, but a ValueError when the options need the Python path.

    ``flavor="rouge155"``: ROUGE-1.5.5.pl's figures (:mod:`nlgmetrics.lexical.rouge155`), with perl's options
    ``wordnet_exceptions``, ``remove_stopwords`` (-s), ``length_limit`` (-l), ``byte_limit`` (-b),
    ``byte_limit_bug`` and ``eval_ids`` (these apply to that flavor only; ``multi_ref`` defaults to its -f A there).
    """
    perl_options = {
        key: value
        for key, value, default in (
            ("wordnet_exceptions", wordnet_exceptions, False), ("remove_stopwords", remove_stopwords, False),
            ("length_limit", length_limit, None), ("byte_limit", byte_limit, None),
            ("byte_limit_bug", byte_limit_bug, False), ("eval_ids", eval_ids, None),
        )
        if value is not default
    }
    if flavor != "rouge_score" or perl_options:  # ROUGE-1.5.5.pl's numbers: nlgmetrics.lexical.rouge155
        own = {"lang": lang, "split_summaries": split_summaries, "aggregator": aggregator, "numpy_seed": numpy_seed,
               "backend": backend}  # fmt: skip
        changed = [key for key, value in own.items() if value != {"split_summaries": False, "aggregator": "mean"}.get(key)]
        if flavor != "rouge_score" and changed:
            raise OptionError(f"{', '.join(changed)} apply to flavor='rouge_score' only, not flavor={flavor!r}.")
        result = compute_rouge_flavor(
            flavor, predictions, references, rouge_types=rouge_types, use_aggregator=use_aggregator,
            use_stemmer=use_stemmer, tokenizer=tokenizer, multi_ref=multi_ref, weight_factor=weight_factor,
            alpha=alpha, beta=beta, n_bootstrap=n_bootstrap, confidence_interval=confidence_interval, **perl_options,
        )  # fmt: skip
    else:
        result = compute_rouge_score(
            predictions, references, rouge_types=rouge_types, use_aggregator=use_aggregator, use_stemmer=use_stemmer,
            tokenizer=tokenizer, lang=lang, split_summaries=split_summaries, aggregator=aggregator,
            numpy_seed=numpy_seed, multi_ref=multi_ref, weight_factor=weight_factor, alpha=alpha, beta=beta,
            n_bootstrap=n_bootstrap, confidence_interval=confidence_interval, seed=seed, backend=backend,
        )
    result["signature"] = signature(
        rouge_types, use_aggregator, aggregator, numpy_seed, use_stemmer, tokenizer, lang, split_summaries, multi_ref,
        weight_factor, alpha, beta, n_bootstrap, confidence_interval, seed, flavor, perl_options)
    return result


def signature(rouge_types: Any, use_aggregator: bool, aggregator: str, numpy_seed: int | None, use_stemmer: bool,
              tokenizer: Any, lang: str | None, split_summaries: bool, multi_ref: str | None, weight_factor: float,
              alpha: float | None, beta: float | None, n_bootstrap: int, confidence_interval: float,
              seed: int | None, flavor: str, perl_options: dict[str, Any]) -> str:
    """How the numbers were computed (:mod:`nlgmetrics.signature`), e.g.
    ``types:rouge1,rouge2,rougeL,rougeLsum|agg:mean|stem:no|tok:rouge_score|multi_ref:best|version:...``: the
    aggregator (``mean``; ``bootstrap`` with its numpy seed, HF evaluate's; named also for per-example results, whose
    mean or bootstrap it is) and every option that changes a score; options at their default that only some types
    read are left out."""
    from nlgmetrics.signature import build, unless_default
    from nlgmetrics.text.rouge_tokenize import tokenizer_for_lang
    from nlgmetrics.text.tokenizers import tokenizer_name

    types = [rouge_types] if isinstance(rouge_types, str) else list(rouge_types or DEFAULT_ROUGE_TYPES)
    if flavor != "rouge_score":
        agg = "perl-bootstrap"
    else:  # the aggregator that makes a corpus score of the per-example ones (use_aggregator=False: those alone)
        agg = aggregator if aggregator == "mean" else f"{aggregator}[numpy_seed={numpy_seed}]"
    interval = [("bs", n_bootstrap), ("ci", float(confidence_interval)), ("seed", seed)] if n_bootstrap else []
    if tokenizer is None and lang is not None:  # lang only picks the tokenizer: the one it picks is the setting
        tokenizer = tokenizer_for_lang(lang)
    return build([
        ("types", types), ("agg", agg), *interval, ("stem", bool(use_stemmer)),
        ("tok", "rouge_score" if tokenizer is None else tokenizer_name(tokenizer)),
        ("split", unless_default(bool(split_summaries), False)),
        ("multi_ref", multi_ref or ("best" if flavor == "rouge_score" else "average")),
        ("w", unless_default(float(weight_factor), DEFAULT_WEIGHT_FACTOR)), ("alpha", unless_default(alpha, None)),
        ("beta", unless_default(beta, None)), ("flavor", unless_default(flavor, "rouge_score")),
        *sorted(perl_options.items()),
    ])


__all__: list[str] = [
    "DEFAULT_ROUGE_TYPES",
    "compute_rouge",
    "rouge_scores",
    "make_scorer",
    "native_refusal",
    "aggregate",
    "rouge_score_bootstrap",
    "numpy_global_seed",
    "RougeScorer",
    "RougeType",
    "parse_rouge_type",
    "ngram_counter",
    "overlap",
    "lcs_length",
    "lcs_positions",
    "wlcs",
    "skip_bigram_counter",
    "skip_bigram_hits",
    "skip_bigram_total",
    "summary_sentences",
    "fmeasure",
]
