"""nlgmetrics metrics for lm-evaluation-harness (0.4.8+) task configs.

Importing this module registers, for every available metric, one lm-eval metric and aggregation per headline score
under a name that lm-eval does not use (its own ``bleu``, ``rouge1``... are taken): ``nlgm_bleu``, ``nlgm_sacrebleu``,
``nlgm_google_bleu``, ``nlgm_nist_mt``, ``nlgm_chrf``, ``nlgm_ter``, ``nlgm_rouge1``, ``nlgm_rouge2``, ``nlgm_rougeL``, ``nlgm_rougeLsum``,
``nlgm_meteor``, ``nlgm_bertscore_precision``, ``nlgm_bertscore_recall``, ``nlgm_bertscore_f1``, ``nlgm_moverscore``
(see :func:`lm_eval_names`). Registration is
idempotent (importing twice, or calling :func:`register` again, is a no-op).

lm-eval has no plugin discovery: a task YAML reaches these by ``!function``, which imports this module::

    metric_list:
      - metric: !function nlgmetrics.integration.lm_eval.nlgm_bleu
        aggregation: nlgm_bleu
        higher_is_better: true
      - metric: !function nlgmetrics.integration.lm_eval.nlgm_bertscore_f1
        aggregation: nlgm_bertscore_f1
        higher_is_better: true
        model_type: sentence-transformers/all-MiniLM-L6-v2      # metric options, as keys of the entry

or, from Python, ``import nlgmetrics.integration.lm_eval`` before ``lm_eval.simple_evaluate`` and ``metric: nlgm_bleu``.

Every metric is corpus-level here (lm-eval's passthrough-then-aggregate pattern): the per-sample function only
returns ``(reference, prediction, options)``, and the aggregation, run once over all samples (on rank 0), computes the
metric on the whole corpus in one call. So BLEU is corpus BLEU, not a mean of sentence scores, and the embedding
metrics embed the whole corpus in batches in one pass. The scores sharing one computation (ROUGE's four, BERTScore's
three) are computed once: the last results are memoised by (metric, options, corpus).

Options: every key of a ``metric_list`` entry other than ``metric``, ``aggregation``, ``higher_is_better`` goes to
the metric (e.g. ``tokenize: zh``, ``use_stemmer: true``, ``model_type: ...``); ``reference_separator: "|||"`` splits
each target into several references. Metrics that read sources (COMET) get them through the target too: lm-eval hands a
metric only the target and the output, so write ``doc_to_target: "{{source}}\t{{reference}}"`` and the option
``source_separator: "\t"``: the source before it, the reference(s) after (left empty for a reference-free metric:
``"{{source}}\t"``). Every target must contain the separator exactly once: a target where it occurs twice (a tab
inside a source or a reference) cannot be split without guessing, so it is refused naming the document; choose a
separator that no text contains (e.g. ``"\u241e"``). Targets must be one string per document (lm-eval treats a list
target as "any of these is correct", which a corpus score cannot use; join them with ``reference_separator`` instead).

Credentials: lm-eval writes every metric option into its results file (``configs``) and, with ``--log_samples``,
each sample's metric value, so an option that carries a credential (``api_key``, a ``base_url`` with userinfo or a
query string) is refused. Give the key through the environment instead: ``$OPENAI_API_KEY`` (read by the judge), or
``api_key_env: NAME`` to read it from the variable ``NAME`` when the corpus is scored. The rule and the lookup are
those of every adapter that ships options (:func:`nlgmetrics._secrets.check_shipped_options`,
:func:`~nlgmetrics._secrets.key_from_environment`).
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any, Callable

from nlgmetrics.extras import require_extra

require_extra("lmeval", "nlgmetrics.integration.lm_eval")  # a MissingExtraError, not ModuleNotFoundError

from nlgmetrics._secrets import KEY_ENV_OPTION, KEY_OPTION, check_shipped_options, key_from_environment
from nlgmetrics.integration.suite import compute_suite, flatten_result
from nlgmetrics.registry import SPECS, available_metrics, get_spec, metric_name

PREFIX = "nlgm_"
_SEPARATOR_OPTION = "reference_separator"
_SOURCE_OPTION = "source_separator"
#: options read by this adapter itself (the rest go to the metric)
ADAPTER_OPTIONS = (_SEPARATOR_OPTION, _SOURCE_OPTION, KEY_ENV_OPTION)
_CARRIER = "lm-eval writes every metric option into its results file and logged samples"
_READER = "the process that scores the corpus (lm_eval)"

_MEMO: OrderedDict[tuple, dict[str, float]] = OrderedDict()
_MEMO_SIZE = 8
_LOCK = threading.Lock()


def lm_eval_names(metrics: list[str] | None = None) -> dict[str, tuple[str, str]]:
    """``{lm-eval name: (nlgmetrics metric, flat result key)}`` for ``metrics`` (default: every metric known): one per
    headline key of the metric's spec (flat keys, see nlgmetrics.integration.suite)."""
    names = {}
    for metric in metrics if metrics is not None else list(SPECS):
        metric = metric_name(metric)  # aliases, any case; "did you mean" for a typo
        for key in get_spec(metric).headline:
            names[PREFIX + key] = (metric, key)
    return names


def _options_key(name: str, metric: str, options: dict[str, Any]) -> str:
    """The options as canonical JSON (the per-sample value lm-eval logs); an option carrying a credential is refused,
    naming the option only, never its value (:func:`nlgmetrics._secrets.check_shipped_options`)."""
    check_shipped_options(name, options, takes_key=KEY_OPTION in get_spec(metric).option_names(), carrier=_CARRIER,
                          reader=_READER)
    try:
        return json.dumps(options, sort_keys=True)
    except TypeError as exc:
        raise TypeError(f"nlgmetrics lm-eval metric options must be JSON values (YAML scalars, lists, maps): {exc}")


def _make_passthrough(name: str, metric: str) -> Callable:
    def passthrough(items: Any = None, *, references: Any = None, predictions: Any = None, **options: Any) -> tuple:
        if references is None and predictions is None:  # lm-eval's positional fallback: [gold, prediction]
            gold, prediction = items
        else:
            (gold,), (prediction,) = references, predictions
        if isinstance(gold, (list, tuple)):
            raise TypeError(
                f"{name}: the target must be one string per document, got a list; join several references with "
                f"the metric option {_SEPARATOR_OPTION} instead."
            )
        return (str(gold), str(prediction), _options_key(name, metric, options))

    passthrough.__name__ = passthrough.__qualname__ = name
    passthrough.__module__ = __name__
    passthrough.__doc__ = f"lm-eval metric {name}: passes (reference, prediction, options) to its aggregation."
    return passthrough


def score_corpus(metric: str, items: list[tuple[str, str, str]]) -> dict[str, float]:
    """The flat scores of ``metric`` over all ``(reference, prediction, options)`` items, memoised."""
    if not items:
        raise ValueError(f"no samples to score with {metric}.")
    option_keys = {item[2] for item in items}
    if len(option_keys) != 1:
        raise ValueError(f"{metric}: the samples of one task carry different options: {sorted(option_keys)}.")
    options_key = option_keys.pop()
    golds = tuple(item[0] for item in items)
    predictions = tuple(item[1] for item in items)
    memo_key = (metric, options_key, hash(golds), hash(predictions), len(items))
    with _LOCK:
        if memo_key in _MEMO:
            _MEMO.move_to_end(memo_key)
            return _MEMO[memo_key]
    options = json.loads(options_key)
    if options.get("distributed") not in (None, False):  # see nlgmetrics.embed.distributed
        raise ValueError(
            f"{metric}: lm-eval aggregates once, on rank 0 only, so distributed={options['distributed']!r} would wait "
            "for the other ranks forever; remove the option (nothing is repeated across ranks to shard)."
        )
    separator = options.pop(_SEPARATOR_OPTION, None)
    source_separator = options.pop(_SOURCE_OPTION, None)
    options = key_from_environment(metric, options, reader=_READER)
    sources = None
    if source_separator:
        sources, golds = split_sources(metric, golds, source_separator)
    references = [gold.split(separator) if separator else gold for gold in golds]
    if sources is not None and get_spec(metric).references_optional and not any(golds):
        references = None  # reference-free: "{{source}}<separator>" targets
    result = compute_suite(list(predictions), references, [metric], {metric: options}, sources=sources)[metric]
    flat = flatten_result(metric, result)
    with _LOCK:
        _MEMO[memo_key] = flat
        while len(_MEMO) > _MEMO_SIZE:
            _MEMO.popitem(last=False)
    return flat


def split_sources(metric: str, golds: Sequence[str], separator: str) -> tuple[list[str], list[str]]:
    """``(sources, references)`` from targets written ``SOURCE<separator>REFERENCE``: each target must contain
    ``separator`` exactly once (twice cannot be split without guessing which one is the boundary)."""
    counts = [gold.count(separator) for gold in golds]
    for i, count in enumerate(counts):
        if count != 1:
            what = "does not contain it" if count == 0 else \
                f"contains it {count} times (a source or reference holds it)"
            raise ValueError(
                f"{metric}: {_SOURCE_OPTION}={separator!r} but the target of document {i} {what}: "
                f"{golds[i][:60]!r}; {sum(c != 1 for c in counts)} of {len(golds)} targets are not "
                f"SOURCE<separator>REFERENCE with one separator. Choose a separator no text contains (e.g. "
                f"'\\u241e') in doc_to_target and {_SOURCE_OPTION}."
            )
    split = [gold.split(separator) for gold in golds]
    return [parts[0] for parts in split], [parts[1] for parts in split]


def _make_aggregation(name: str, metric: str, key: str) -> Callable:
    def aggregation(items: list) -> float:
        flat = score_corpus(metric, [tuple(item) for item in items])
        if key not in flat:
            raise KeyError(f"{name}: {metric} returned no {key!r} (got {', '.join(flat)}); check its options.")
        return flat[key]

    aggregation.__name__ = aggregation.__qualname__ = f"{name}_aggregation"
    aggregation.__module__ = __name__
    aggregation.__doc__ = f"lm-eval aggregation {name}: {metric} over the whole corpus, key {key!r}."
    return aggregation


def register(metrics: list[str] | None = None) -> list[str]:
    """Register the lm-eval metrics and aggregations of ``metrics`` (default: the available ones); idempotent.

    Returns the lm-eval names. A name already registered by something else raises ``ValueError``.
    """
    import lm_eval.api.metrics  # noqa: F401  lm-eval's own metrics first (its registry fills itself only when empty)
    from lm_eval.api import registry

    names = []
    for name, (metric, key) in lm_eval_names(metrics if metrics is not None else available_metrics()).items():
        passthrough = globals().get(name)
        if passthrough is None:
            passthrough = globals()[name] = _make_passthrough(name, metric)
        for table in (registry.metric_registry, registry.aggregation_registry):
            if name in table:
                existing = table.get(name)
                if getattr(existing, "__module__", None) != __name__:
                    raise ValueError(f"lm-eval {table._name} {name!r} is already registered by {existing!r}.")
        if name not in registry.aggregation_registry:
            registry.register_aggregation(name)(_make_aggregation(name, metric, key))
        if name not in registry.metric_registry:
            registry.register_metric(
                metric=name, higher_is_better=get_spec(metric).higher_is_better, output_type="generate_until",
                aggregation=name,
            )(passthrough)
        names.append(name)
    return names


def __getattr__(attribute: str) -> Callable:
    """``nlgm_<key>`` of a metric that is not installed: a clear error (YAML ``!function`` lands here)."""
    if attribute.startswith(PREFIX) and attribute in lm_eval_names():
        metric = lm_eval_names()[attribute][0]
        raise AttributeError(
            f"{attribute}: metric {metric!r} is not available in this installation of nlgmetrics "
            f"(available: {', '.join(available_metrics())})."
        )
    raise AttributeError(f"module {__name__!r} has no attribute {attribute!r}")


REGISTERED = register()
