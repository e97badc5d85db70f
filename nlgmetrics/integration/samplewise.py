"""What an adapter for a framework that scores sample by sample (Inspect, lighteval) needs: a metric's headline on
one sample and over the whole corpus, by the same rule for every metric. No algorithm lives here; every number
comes from :func:`nlgmetrics.registry.score`.

- **One sample**: the metric's headline scores (its spec's ``headline`` keys, flat as in the suite) computed on a
  corpus of that one sample. BLEU's value is then the BLEU of that one sentence pair on the corpus metric's own scale
  (not sacrebleu's smoothed sentence BLEU); COMET's is the segment score. Where the metric's weights come from the
  corpus (MoverScore's default idf, BERTScore with ``idf=True``), one text is no corpus (every idf weight is 0), so
  the sample's value is computed with ``idf=False``; :func:`sample_options` says so.
- **Corpus** (:func:`corpus_headline`): for lexical and embedding metrics the metric recomputed over all samples'
  texts in one call (BLEU/chrF/TER/NIST are corpus statistics, not means of sentence scores; MoverScore's idf is
  that of the whole corpus), so the numbers are the core's, exactly. For learned metrics and the judge, whose
  headline is the mean of independent segment scores, the mean of the per-sample values (unscored samples, e.g.
  unparseable judge answers, left out as the core leaves them out): no second model pass.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from nlgmetrics._secrets import KEY_ENV_OPTION, KEY_OPTION, check_shipped_options, key_from_environment
from nlgmetrics.integration.suite import flatten_result
from nlgmetrics.registry import LEARNED, SOURCES_NONE, get_spec, score

_CARRIER = "the framework writes scorer options into its logs (Inspect its eval log, lighteval its task config)"
_READER = "the process that runs the evaluation"


@dataclass(frozen=True)
class SampleText:
    """One sample's texts: the model's output, its reference(s) (None for reference-free scoring) and its source."""

    prediction: str
    references: str | list[str] | None
    source: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"prediction": self.prediction, "references": self.references, "source": self.source}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SampleText:
        return cls(data["prediction"], data["references"], data.get("source"))


def check_options(metric: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """``options`` of ``metric`` with aliases resolved (unknown names raise), refusing those that have no per-sample
    meaning (the spec's ``refused_per_example``) or that carry a credential (the rule of every adapter that ships
    options, :func:`nlgmetrics._secrets.check_shipped_options`: ``api_key_env: NAME`` instead, read when scoring),
    and values that are not JSON (frameworks write the options into their logs, and the corpus is recomputed from
    them)."""
    spec = get_spec(metric)
    check_shipped_options(metric, options, takes_key=KEY_OPTION in spec.option_names(), carrier=_CARRIER,
                          reader=_READER)
    key_env = {KEY_ENV_OPTION: options[KEY_ENV_OPTION]} if KEY_ENV_OPTION in options else {}
    options = spec.canonical_options({k: v for k, v in options.items() if k != KEY_ENV_OPTION}) | key_env
    for name, why in spec.refused_per_example.items():
        if name in options:
            raise ValueError(f"{metric}: option {name!r} is not available in a framework scorer: {why}.")
    try:
        json.dumps(options, sort_keys=True)
    except TypeError as exc:
        raise TypeError(f"{metric}: scorer options must be JSON values (strings, numbers, lists, maps), because the "
                        f"framework logs them: {exc}. Name a tokenizer instead of passing a function.") from None
    return options


def _run_options(metric: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """The options the metric is called with here: ``api_key_env`` read from this process's environment."""
    return key_from_environment(metric, options, reader=_READER)


def recomputes_corpus(metric: str) -> bool:
    """Whether the corpus headline is recomputed from the texts (lexical and embedding metrics) rather than averaged
    from the per-sample values (learned metrics, the judge)."""
    return get_spec(metric).kind != LEARNED


def reads_sources(metric: str) -> bool:
    return get_spec(metric).sources != SOURCES_NONE


def needs_corpus_idf(metric: str, options: Mapping[str, Any]) -> bool:
    """Whether ``metric`` with ``options`` weights tokens by an idf counted over the corpus (MoverScore by default,
    BERTScore with ``idf=True``): the one rule for the adapters that score samples apart (this module, Ray)."""
    if metric == "moverscore":
        return options.get("idf", True) is True
    return metric == "bertscore" and options.get("idf", False) is True


def sample_options(metric: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """The options one sample is scored with: ``options``, with ``idf=False`` where the metric's idf would come from
    the corpus (a corpus of one text gives every token idf 0)."""
    out = dict(options)
    if get_spec(metric).kind != LEARNED and needs_corpus_idf(metric, out):
        out["idf"] = False
    return out


def headline(metric: str, result: Mapping[str, Any]) -> dict[str, float]:
    """The headline scores of a result of ``metric`` (its spec's ``headline`` keys, as flat floats); a key the
    result has no number for (a judge answer that could not be read) is left out."""
    flat = flatten_result(metric, result)
    return {key: flat[key] for key in get_spec(metric).headline if key in flat and math.isfinite(flat[key])}


def _inputs(metric: str, samples: Sequence[SampleText]) -> tuple[list[str], list | None, list | None]:
    predictions = [s.prediction for s in samples]
    references = [s.references for s in samples]
    missing = [i for i, r in enumerate(references) if r is None]
    if len(missing) == len(samples):
        references = None  # reference-free: the metric scores without them, or says that it needs them
    elif missing:
        raise ValueError(f"{metric}: sample {missing[0]} has no reference (an empty target) while others have; "
                         f"give every sample a reference, or none for reference-free scoring ({len(missing)} "
                         "without).")
    sources = [s.source for s in samples] if reads_sources(metric) else None
    if sources is not None and all(s is None for s in sources):
        sources = None
    return predictions, references, sources


def score_sample(metric: str, options: Mapping[str, Any], sample: SampleText) -> tuple[dict[str, float], dict]:
    """(headline scores of ``sample`` alone, the full result) for checked ``options``."""
    predictions, references, sources = _inputs(metric, [sample])
    options = _run_options(metric, sample_options(metric, options))
    result = score(metric, predictions, references, sources=sources, **options)
    return headline(metric, result), result


def details(metric: str, result: Mapping[str, Any], index: int = 0) -> dict[str, Any]:
    """Example ``index``'s per-example details in a result of ``metric`` (its spec's ``per_example_details``, e.g.
    XCOMET's ``error_spans``), for the frameworks' per-sample metadata; empty when the result has none."""
    return {key: result[key][index] for key in get_spec(metric).per_example_details
            if isinstance(result.get(key), list) and index < len(result[key])}


def score_batch(metric: str, options: Mapping[str, Any], samples: Sequence[SampleText]) -> list[dict[str, float]]:
    """The headline scores of each sample alone, for a metric whose segments are scored independently (learned
    metrics, the judge): one call on the whole batch, each segment's score split out."""
    return score_batch_details(metric, options, samples)[0]


def score_batch_details(metric: str, options: Mapping[str, Any], samples: Sequence[SampleText]
                        ) -> tuple[list[dict[str, float]], list[dict[str, Any]]]:
    """:func:`score_batch`, and each sample's :func:`details` from the same call."""
    if recomputes_corpus(metric):
        scored = [score_sample(metric, options, sample) for sample in samples]
        return [values for values, _ in scored], [details(metric, result) for _, result in scored]
    predictions, references, sources = _inputs(metric, samples)
    result = score(metric, predictions, references, sources=sources, **_run_options(metric, options))
    (key,) = get_spec(metric).per_example  # learned metrics: one score per segment, under one key
    (name,) = get_spec(metric).headline
    values = result[key]
    return ([{} if v is None or not math.isfinite(v) else {name: float(v)} for v in values],
            [details(metric, result, i) for i in range(len(values))])


def signature(result: Mapping[str, Any]) -> str | None:
    """The result's signature (:func:`nlgmetrics.signature.of`), if it has one."""
    from nlgmetrics.signature import of

    return of(result)


#: options that say how a number is computed (where, in what batches, with what progress, cache or retries), not
#: which number: they do not make another configuration (:func:`result_key`)
RUN_OPTIONS = frozenset({"device", "batch_size", "verbose", "progress_bar", "distributed", "nthreads", "num_threads",
                         "gpus", "cache", "max_concurrency", "max_retries", "timeout", "api_key", KEY_ENV_OPTION})


def result_key(metric: str, key: str, options: Mapping[str, Any]) -> str:
    """The name a framework reports headline ``key`` of ``metric`` under: ``key`` with the metric's defaults, else
    ``key[option=value,...]`` naming each option that differs from the compute function's default (a path or hub id
    by its last part; :data:`RUN_OPTIONS` left out), so two configurations never share a key (``chrf`` is chrF,
    ``chrf[word_order=2]`` chrF++)."""
    import inspect

    from nlgmetrics.signature import value as shown

    defaults = {name: p.default for name, p in inspect.signature(get_spec(metric).function).parameters.items()}
    changed = []
    for name in sorted(options):
        item = options[name]
        if name in RUN_OPTIONS or (name in defaults and defaults[name] is not inspect.Parameter.empty
                                   and _same(defaults[name], item)):
            continue
        text = shown(item)
        changed.append(f"{name}={text.rstrip('/').rsplit('/', 1)[-1] if '/' in text else text}")
    return f"{key}[{','.join(changed)}]" if changed else key


def _same(default: Any, given: Any) -> bool:
    if isinstance(default, bool) != isinstance(given, bool):  # True == 1, but smooth=1 is not a default
        return False
    try:
        return bool(default == given)
    except Exception:  # noqa: BLE001 - values that do not compare (arrays)
        return False


def corpus_headline(metric: str, options: Mapping[str, Any], samples: Sequence[SampleText],
                    values: Sequence[Mapping[str, float]] | None = None) -> dict[str, float]:
    """``metric``'s headline over all ``samples``: recomputed over their texts for lexical and embedding metrics;
    for the others the mean of ``values`` (each sample's headline scores; a sample missing a key is left out of
    that key's mean)."""
    if not samples:
        raise ValueError(f"{metric}: no samples to score.")
    if recomputes_corpus(metric):
        predictions, references, sources = _inputs(metric, samples)
        return headline(metric, score(metric, predictions, references, sources=sources,
                                      **_run_options(metric, options)))
    if values is None:
        raise ValueError(f"{metric}: the corpus score is the mean of the per-sample values; pass them.")
    out = {}
    for key in get_spec(metric).headline:
        scored = [float(v[key]) for v in values if key in v and v[key] is not None and math.isfinite(v[key])]
        if scored:
            out[key] = math.fsum(scored) / len(scored)
    return out
