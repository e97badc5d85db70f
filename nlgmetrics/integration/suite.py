"""Several metrics in one pass, each with its own options, and flat float summaries of their results.

Shared by the ``nlg_suite`` evaluate module, the transformers adapter and the lm-eval adapter. Every metric is looked
up in :mod:`nlgmetrics.registry`; nothing here knows an algorithm, and what it knows per metric (which list-valued
keys are averaged into one float, which keys are renamed or skipped, which metrics read sentence boundaries from
newlines) comes from the metric's :class:`~nlgmetrics.registry.MetricSpec`.

The embedding metrics (BERTScore, MoverScore) run on one process-wide engine (:mod:`nlgmetrics.embed`): the encoder
is loaded once and each text is embedded once per (model, layer, ...) and cached, so computing both in one suite call
embeds each text once when they use the same model and layer (the bundled MiniLM's defaults do).
"""

from __future__ import annotations

import inspect
import math
import numbers
import re
from typing import Any, Callable, Mapping, Sequence

from nlgmetrics.registry import SOURCES_NONE, SPECS, get_metric, get_spec, metric_name, score, self_contained_metrics
from nlgmetrics.signature import extend, of

#: options given once to a suite and passed to every metric whose compute function takes them.
SHARED_OPTIONS = ("model_type", "num_layers", "device", "dtype", "batch_size")

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=\S)|(?<=[。！？])(?=\S)")


def list_means(metric: str) -> dict[str, str]:
    """The list-valued (per-example) result keys of ``metric`` that a flat summary reports as their mean, with their
    flat names; none for corpus-level metrics, whose per-example values (sentence BLEU) average to another number."""
    spec = SPECS.get(metric)
    return {} if spec is None or spec.corpus_level else dict(spec.per_example)


def flat_name(metric: str, key: str) -> str:
    """The flat name of result key ``key`` of ``metric``: the key itself when it starts with the metric's name
    (``bleu``, ``rouge1``, ``meteor``), else ``<metric>_<key>`` (``bleu_brevity_penalty``)."""
    spec = SPECS.get(metric)
    if spec is not None:
        renamed = spec.flat_renames.get(key) or list_means(metric).get(key)
        if renamed:
            return renamed
    return key if key.startswith(metric) else f"{metric}_{key}"


def flatten_result(metric: str, result: Mapping[str, Any]) -> dict[str, float]:
    """A flat ``{name: float}`` summary of one metric's result: every numeric scalar, plus the per-example lists
    named in :func:`list_means` as means. Strings (signatures, hashcodes) and other lists are left out."""
    out: dict[str, float] = {}
    lists = list_means(metric)
    skip = get_spec(metric).flat_skip if metric in SPECS else frozenset()
    for key, value in result.items():
        if key in skip or isinstance(value, bool):
            continue
        if isinstance(value, numbers.Real):
            out[flat_name(metric, key)] = float(value)
    for key, name in lists.items():
        value = result.get(key)
        if name not in out and isinstance(value, (list, tuple)) and value and not isinstance(value[0], list):
            out[name] = math.fsum(float(v) for v in value) / len(value)
    return out


def split_sentences(text: str, how: str | Callable[[str], Sequence[str]] | None = "regex") -> str:
    """``text`` with one sentence per line, for rougeLsum; no downloads.

    ``how``: ``"regex"`` (split after ``.``, ``!``, ``?`` followed by space, and after ``。！？``), ``"punkt"`` (nltk's
    ``sent_tokenize`` on the Punkt tables nlgmetrics provisions offline), a callable text -> sentences, or ``None``
    (leave the text as it is). Existing newlines are kept as sentence boundaries.
    """
    if how is None:
        return text
    lines = [line.strip() for line in text.split("\n") if line.strip()]
    if callable(how):
        sentences = [s for line in lines for s in how(line)]
    elif how == "regex":
        sentences = [s for line in lines for s in _SENTENCE_END.split(line)]
    elif how == "punkt":
        import nltk

        from nlgmetrics.resources import ensure_punkt

        ensure_punkt()
        sentences = [s for line in lines for s in nltk.sent_tokenize(line)]
    else:
        raise ValueError(f"sentence_split must be 'regex', 'punkt', None or a callable, got {how!r}.")
    return "\n".join(s.strip() for s in sentences if s.strip())


def accepts(function: Callable, option: str) -> bool:
    """Whether ``function`` takes keyword ``option`` (explicitly or through ``**kwargs``)."""
    parameters = inspect.signature(function).parameters
    if option in parameters:
        return parameters[option].kind in (inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())


def check_metrics(metrics: Sequence[str] | str | None) -> list[str]:
    """The metric names, checked against the registry (``None``: every available metric that needs no user-supplied
    checkpoint, :func:`~nlgmetrics.registry.self_contained_metrics`)."""
    if metrics is None:
        return self_contained_metrics()
    if isinstance(metrics, str):
        metrics = [metrics]
    names = list(dict.fromkeys(metric_name(name) for name in metrics))  # aliases, any case; "did you mean"
    if not names:
        raise ValueError("metrics must name at least one metric.")
    for name in names:
        get_metric(name)  # raises a clear ValueError for unknown or unavailable metrics
    return names


def metric_options_for(
    metrics: Sequence[str],
    metric_options: Mapping[str, Mapping[str, Any]] | None = None,
    shared_options: Mapping[str, Any] | None = None,
) -> dict[str, dict[str, Any]]:
    """Each metric's keyword options: the shared ones it accepts (see :data:`SHARED_OPTIONS`), then its own (which
    win; a metric given its own ``lang`` does not get the shared ``model_type``, so ``lang`` picks its model)."""
    metric_options = {metric_name(name): options for name, options in (metric_options or {}).items()}
    unknown = set(metric_options) - set(metrics)
    if unknown:
        raise ValueError(f"metric_options names metrics that are not computed: {', '.join(sorted(unknown))}.")
    for name, options in metric_options.items():
        if not isinstance(options, Mapping):
            raise TypeError(f"metric_options[{name!r}] must be a dict of keyword options, got {type(options).__name__}.")
    shared = dict(shared_options or {})
    out = {}
    for name in metrics:
        function = get_metric(name)
        given = metric_options.get(name, {})
        own = {
            k: v for k, v in shared.items()
            if v is not None and accepts(function, k) and not (k == "model_type" and "lang" in given)
        }
        own.update(given)
        out[name] = own
    return out


def compute_suite(
    predictions: Sequence[str],
    references: Sequence[str | Sequence[str]] | None,
    metrics: Sequence[str] | str | None = None,
    metric_options: Mapping[str, Mapping[str, Any]] | None = None,
    *,
    shared_options: Mapping[str, Any] | None = None,
    sentence_split: str | Callable[[str], Sequence[str]] | None = None,
    sources: Sequence[str] | None = None,
) -> dict[str, dict]:
    """Every metric of ``metrics`` on the same predictions and references: ``{metric: its full result}``.

    ``metric_options``: ``{metric: {option: value}}``, each metric's own options (what ``evaluate.combine`` cannot
    do). ``shared_options``: options such as ``model_type``, ``device`` or ``batch_size``, passed to every metric that
    takes them. ``sentence_split``: how the texts of the metrics that read newlines (``sentence_lines`` in their
    spec) are split into lines (see :func:`split_sentences`; default ``None``: as given). ``sources``: one source
    text per prediction, given to the metrics that read them (COMET; their spec's ``sources``), ignored by the others;
    a metric that needs them raises a ``ValueError`` without them. ``references`` may be None when every metric is
    reference-free. A metric whose texts were split names the split in its signature (``sentence_split:regex``).
    """
    names = check_metrics(metrics)
    options = metric_options_for(names, metric_options, shared_options)
    split_predictions = split_references = None
    results = {}
    for name in names:
        preds, refs = predictions, references
        if sentence_split is not None and get_spec(name).sentence_lines:
            if split_predictions is None:
                split_predictions = [split_sentences(p, sentence_split) if isinstance(p, str) else p for p in predictions]
                split_references = None if references is None else [
                    split_sentences(r, sentence_split) if isinstance(r, str)
                    else [split_sentences(x, sentence_split) if isinstance(x, str) else x for x in r]
                    if isinstance(r, (list, tuple)) else r
                    for r in references
                ]
            preds, refs = split_predictions, split_references
        own_sources = sources if get_spec(name).sources != SOURCES_NONE else None
        results[name] = score(name, preds, refs, sources=own_sources, **options[name])
        if preds is not predictions and isinstance(results[name].get("signature"), str):  # the split is a setting
            results[name]["signature"] = extend(results[name]["signature"], [("sentence_split", sentence_split)])
    return results


def suite_signatures(results: Mapping[str, Mapping[str, Any]]) -> dict[str, str | None]:
    """Each metric's signature in :func:`compute_suite`'s results (:func:`nlgmetrics.signature.of`)."""
    return {name: of(result) for name, result in results.items()}


def flatten_suite(results: Mapping[str, Mapping[str, Any]]) -> dict[str, float]:
    """One flat ``{name: float}`` dict from :func:`compute_suite`'s results (see :func:`flatten_result`)."""
    out: dict[str, float] = {}
    for name, result in results.items():
        for key, value in flatten_result(name, result).items():
            if key in out:  # two metrics with the same flat key: keep both, prefixed
                key = f"{name}_{key}"
            out[key] = value
    return out
