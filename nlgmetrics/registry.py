"""Every metric, declared once: its entry point and what the adapters need to know about it.

Each entry point is ``compute_<name>(predictions, references, **options) -> dict`` with JSON-friendly values
(floats, ints, strings, lists of them). Entries import lazily, so the lexical metrics never load torch.

``pip install nlgmetrics`` brings what the lexical metrics need; the others need a pip extra (:data:`METRIC_EXTRAS`:
``[embed]``, ``[learned]``, ``[judge]``, or ``[all]``). Looking a metric up (:func:`get_metric`, and so every entry
point) checks its spec's ``extras`` first and raises one :class:`MissingExtraError` naming the extra to install (the
rule of :mod:`nlgmetrics.extras`).

The CLI, the demo, the suite (``nlg_suite``, Trainer), lm-eval, Ray, the Hub builder and the test tables all read
:data:`SPECS`; none keeps its own per-metric table. Adding a metric: write its core file, add one :class:`MetricSpec`
here, a thin module ``metrics/<name>/<name>.py``, a card ``hub_cards/<name>/README.md`` and its tests (README.md,
"Adding a metric").
"""

from __future__ import annotations

import difflib
import importlib
import importlib.util
import inspect
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from nlgmetrics.errors import InputError, MissingExtraError, OptionError
from nlgmetrics.extras import EXTRAS, missing_extra_error  # noqa: F401  (registry.EXTRAS: the earlier name)

LEXICAL = "lexical"
EMBEDDING = "embedding"
LEARNED = "learned"

#: how a metric reads ``sources`` (the texts the predictions were generated from: MT source sentences, prompts).
SOURCES_NONE, SOURCES_OPTIONAL, SOURCES_REQUIRED = "none", "optional", "required"
#: keyword arguments of a compute function that are inputs, not options (``-o`` cannot set them).
INPUT_KEYWORDS = ("sources",)


#: the metrics' extras (a spec's ``extras`` names some of them): their home and rule is :mod:`nlgmetrics.extras`.
METRIC_EXTRAS = ("embed", "learned", "judge")


def _frozen(mapping: Mapping | None = None) -> Mapping:
    return MappingProxyType(dict(mapping or {}))


@dataclass(frozen=True)
class MetricSpec:
    """What nlgmetrics knows about one metric besides its algorithm.

    - ``entry``: ``"module:function"`` of the compute function.
    - ``kind``: ``"lexical"`` (text statistics, no torch) or ``"embedding"`` (the shared encoder engine).
    - ``headline``: the flat result keys a report leads with (lm-eval metrics, demo columns, a Space's example).
    - ``per_example``: result key holding one value per example -> its column name (Ray columns; suite means of
      lists). Empty with ``per_example_lists``: every list-valued key, under its own name (ROUGE).
    - ``per_example_options``: options that make the compute function return those per-example values.
    - ``corpus_level``: the headline is a corpus statistic, not the mean of per-example scores (BLEU, NIST, chrF,
      TER): a per-example column is then another number (sentence BLEU), and lm-eval must aggregate the whole corpus.
    - ``aliases``: other accepted option names -> the compute function's own (e.g. HF evaluate's names).
    - ``extras``: the pip extras (``nlgmetrics[...]``, of :data:`METRIC_EXTRAS`) the metric needs; looking the metric
      up without them raises :class:`MissingExtraError`. Empty for the lexical metrics (the base install).
    - ``demo_options``: options ``make demo`` scores the bundled sample with.
    - ``sentence_lines``: the metric reads newlines as sentence boundaries (rougeLsum), so the suite's
      ``sentence_split`` applies to it.
    - ``flat_renames`` / ``flat_skip``: scalar result keys renamed in, or left out of, the flat ``{name: float}``
      summaries (the suite, Trainer and lm-eval) because another key carries the same number.
    - ``refused_per_example``: options that have no per-example meaning -> why (Ray refuses them).
    - ``statistics``: for a corpus-level metric whose per-segment statistics add up (BLEU, chrF, TER),
      ``"module:Class"`` of its configuration class: built from the metric's options, with
      ``corpus_statistics(predictions, references) -> (n_segments, k) array`` and ``score_from_statistics(row)``
      (a score on the metric's reporting scale, or an object with ``.score``), and optionally
      ``scores_from_statistics(matrix)`` (those scores for every row at once). Paired tests resample these rows.
      ``statistics_options``: the compute function's option names that the class spells otherwise.
    - ``higher_is_better``: False for error rates (TER), so lm-eval and reports rank systems the right way.
    - ``sources``: whether the compute function reads ``sources=`` (a keyword, one text per prediction):
      ``"none"`` (it takes no such keyword), ``"optional"`` or ``"required"`` (COMET). See :func:`score`.
    - ``references_optional``: the metric can score without references (quality estimation, e.g. COMET-Kiwi): its
      compute function then gets ``references=None``.
    - ``input_needs``: ``"module:function"`` for a metric whose inputs depend on the checkpoint the options name
      (COMET: XCOMET scores from references alone, wmt22-comet-da needs sources, COMET-Kiwi reads no references):
      ``function(options) -> InputNeeds`` reads the checkpoint's configuration (not its weights) and says what it
      needs; ``sources``/``references_optional`` then say what *some* checkpoint takes (see :meth:`input_arguments`).
    - ``per_example_details``: result keys holding one structured value per example besides its score (XCOMET's
      ``error_spans``): the frameworks' per-sample metadata carries them
      (:func:`nlgmetrics.integration.samplewise.details`).
    - ``needs_checkpoint``: the metric scores only with a model the user supplies (COMET, BLEURT: no checkpoint is
      bundled), so ``make demo``, a suite without a metric list and the per-metric test tables, which run every
      metric on bundled data, leave it out (:func:`self_contained_metrics`).
    """

    name: str
    entry: str
    kind: str
    headline: tuple[str, ...]
    per_example: Mapping[str, str] = field(default_factory=_frozen)
    per_example_lists: bool = False
    per_example_options: Mapping[str, Any] = field(default_factory=_frozen)
    corpus_level: bool = False
    aliases: Mapping[str, str] = field(default_factory=_frozen)
    extras: tuple[str, ...] = ()
    demo_options: Mapping[str, Any] = field(default_factory=_frozen)
    sentence_lines: bool = False
    flat_renames: Mapping[str, str] = field(default_factory=_frozen)
    flat_skip: frozenset[str] = frozenset()
    refused_per_example: Mapping[str, str] = field(default_factory=_frozen)
    statistics: str | None = None
    statistics_options: Mapping[str, str] = field(default_factory=_frozen)
    higher_is_better: bool = True
    sources: str = SOURCES_NONE
    references_optional: bool = False
    input_needs: str | None = None
    needs_checkpoint: bool = False
    per_example_details: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.kind not in (LEXICAL, EMBEDDING, LEARNED):
            raise ValueError(f"{self.name}: kind must be {LEXICAL!r}, {EMBEDDING!r} or {LEARNED!r}, got {self.kind!r}.")
        unknown = [extra for extra in self.extras if extra not in METRIC_EXTRAS]
        if unknown:
            raise ValueError(f"{self.name}: unknown extras {unknown}; choose from {', '.join(METRIC_EXTRAS)}.")
        if self.sources not in (SOURCES_NONE, SOURCES_OPTIONAL, SOURCES_REQUIRED):
            raise ValueError(f"{self.name}: sources must be {SOURCES_NONE!r}, {SOURCES_OPTIONAL!r} or "
                             f"{SOURCES_REQUIRED!r}, got {self.sources!r}.")
        for name in ("per_example", "per_example_options", "aliases", "demo_options", "flat_renames",
                     "refused_per_example", "statistics_options"):
            object.__setattr__(self, name, _frozen(getattr(self, name)))

    @property
    def function(self) -> Callable[..., dict]:
        """The compute function (imported on first use)."""
        return get_metric(self.name)

    def option_names(self) -> list[str]:
        """The compute function's keyword options, in signature order (``**options`` not included)."""
        return [name for name in self.option_types() if name != "**"]

    def option_types(self) -> dict[str, Any]:
        """``{option: annotation}`` from the compute function's type hints (``bool``, ``int | None``, ...; ``Any``
        where none resolves), aliases included; key ``"**"`` when the function also takes ``**options``."""
        function = self.function
        parameters = inspect.signature(function).parameters
        try:
            hints = typing.get_type_hints(function)
        except (NameError, TypeError, AttributeError, SyntaxError):  # one does not resolve: the others one by one
            hints = {}
            for name, parameter in parameters.items():
                annotation = parameter.annotation
                try:
                    hints[name] = eval(annotation, function.__globals__) if isinstance(annotation, str) else annotation
                except (NameError, TypeError, AttributeError, SyntaxError):
                    hints[name] = Any
        found: dict[str, Any] = {}
        for name, parameter in list(parameters.items())[2:]:  # after predictions, references
            if name in INPUT_KEYWORDS:
                continue
            if parameter.kind == parameter.VAR_KEYWORD:
                found["**"] = Any
            elif parameter.kind != parameter.VAR_POSITIONAL:
                found[name] = hints.get(name, Any)
        for alias, name in self.aliases.items():
            found.setdefault(alias, found.get(name, Any))
        return found

    def input_arguments(self, sources: Any = None, references_given: bool = True,
                        options: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The input keywords for the compute function besides predictions and references: ``{"sources": ...}``
        for a metric that reads sources, ``{}`` otherwise. A ``ValueError`` naming the fix when sources are given to
        a metric that does not read them, missing where required, or references are missing where needed.

        For a metric with ``input_needs``, "required" is per checkpoint: with ``options`` given, the checkpoint they
        name is read (its configuration only) and its own needs are checked; without them (or when it cannot be
        read here) the compute function checks them once it has read the checkpoint."""
        needs = self.needs(options)
        if not references_given and not (needs.references_optional if needs else self.references_optional):
            where = f" (checkpoint {needs.checkpoint})" if needs else ""
            raise InputError(f"{self.name}{where} needs references, one or more per prediction (references=[...]; "
                             "--references FILE on the command line); only reference-free metrics score without them.")
        if self.sources == SOURCES_NONE:
            if sources is not None:
                raise InputError(f"{self.name} does not read sources; leave them out (--sources on the command line; "
                                 "metrics that read sources: "
                                 f"{', '.join(n for n, s in SPECS.items() if s.sources != SOURCES_NONE) or 'none'}).")
            return {}
        required = needs.sources_required if needs else self.sources == SOURCES_REQUIRED
        if sources is None and required:
            where = f" (checkpoint {needs.checkpoint})" if needs else ""
            raise InputError(f"{self.name}{where} needs sources: the source texts the predictions were generated from, "
                             "one per prediction (sources=[...] in Python, --sources FILE on the command line).")
        return {"sources": sources}

    def needs(self, options: Mapping[str, Any] | None) -> InputNeeds | None:
        """What the checkpoint named by ``options`` needs (``input_needs``), or None: no such hook, no options, or a
        checkpoint that cannot be read here (the compute function then reports that, with its own context)."""
        if self.input_needs is None or options is None:
            return None
        try:
            return load_object(self.input_needs)(self.canonical_options(options))
        except (ValueError, OSError):
            return None

    def canonical_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """``options`` with aliases replaced by the compute function's own names; an unknown name raises a
        ``ValueError`` naming the metric, the accepted names and the closest match."""
        types = self.option_types()
        known = [name for name in types if name != "**"]
        out: dict[str, Any] = {}
        for key, value in options.items():
            name = self.aliases.get(key, key)
            if name not in known and "**" not in types:
                raise OptionError(unknown_option_message(self.name, [key], known))
            if name in out:
                raise OptionError(f"{self.name}: option {name!r} is given twice (once as an alias); give it once.")
            out[name] = value
        return out


def unknown_option_message(metric: str, unknown: Sequence[str], accepted: Sequence[str]) -> str:
    """``metric`` does not take the options ``unknown``: the closest accepted name and every accepted one (shared by
    :meth:`MetricSpec.canonical_options` and the evaluate modules)."""
    close = difflib.get_close_matches(unknown[0], list(accepted), n=1)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    return (
        f"{metric}: unknown option{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))}.{hint} "
        f"Accepted options: {', '.join(accepted)}."
    )


@dataclass(frozen=True)
class InputNeeds:
    """What one checkpoint needs besides predictions (a spec's ``input_needs`` returns it)."""

    checkpoint: str
    sources_required: bool
    references_optional: bool


_BERTSCORE_KEYS = {"precision": "bertscore_precision", "recall": "bertscore_recall", "f1": "bertscore_f1"}
_EMBEDDING_REFUSED = {
    "diversity": "self-BERTScore compares each prediction with all the others",
    "ref_weights": "per-example weights are not read from a column",
    "all_layers": "per-layer scores do not fit one column",
    "distributed": "the actor pool already shares the work out; actors form no torch.distributed group",
}
_BOOTSTRAP_REFUSED = {"n_bootstrap": "a bootstrap interval is over the whole corpus"}
_BUNDLED = "sentence-transformers/all-MiniLM-L6-v2"  # nlgmetrics.resources.BUNDLED_ENCODER_ID, without importing it

#: every metric, in the order reports list them.
SPECS: dict[str, MetricSpec] = {
    spec.name: spec
    for spec in (
        MetricSpec(
            "bleu", "nlgmetrics.lexical.bleu:compute_bleu", LEXICAL, headline=("bleu",),
            per_example={"scores": "sentence_bleu"}, per_example_options={"sentence_scores": True},
            corpus_level=True, flat_skip=frozenset({"sys_len", "ref_len"}), refused_per_example=_BOOTSTRAP_REFUSED,
            statistics="nlgmetrics.lexical.bleu:HFBLEU",  # HF's BLEU, the number `bleu` is everywhere
        ),
        MetricSpec(
            "sacrebleu", "nlgmetrics.lexical.bleu:compute_sacrebleu", LEXICAL, headline=("sacrebleu",),
            per_example={"scores": "sentence_sacrebleu"}, per_example_options={"sentence_scores": True},
            corpus_level=True, flat_renames={"score": "sacrebleu"}, flat_skip=frozenset({"sys_len", "ref_len"}),
            refused_per_example=_BOOTSTRAP_REFUSED, statistics="nlgmetrics.lexical.bleu:BLEU",
            statistics_options={"use_effective_order": "effective_order"},
        ),
        MetricSpec(
            "google_bleu", "nlgmetrics.lexical.gleu:compute_google_bleu", LEXICAL, headline=("google_bleu",),
            per_example={"scores": "sentence_google_bleu"}, per_example_options={"sentence_scores": True},
            corpus_level=True, refused_per_example=_BOOTSTRAP_REFUSED,
        ),
        MetricSpec(
            "nist_mt", "nlgmetrics.lexical.nist:compute_nist", LEXICAL, headline=("nist_mt",), corpus_level=True,
            flat_skip=frozenset({"nist"}), refused_per_example=_BOOTSTRAP_REFUSED,
        ),
        MetricSpec(
            "chrf", "nlgmetrics.lexical.chrf:compute_chrf", LEXICAL, headline=("chrf",),
            per_example={"scores": "sentence_chrf"}, per_example_options={"sentence_scores": True},
            corpus_level=True, flat_renames={"score": "chrf"}, flat_skip=frozenset({"char_order", "word_order", "beta"}),
            refused_per_example=_BOOTSTRAP_REFUSED, statistics="nlgmetrics.lexical.chrf:CHRF",
        ),
        MetricSpec(
            "ter", "nlgmetrics.lexical.ter:compute_ter", LEXICAL, headline=("ter",),
            per_example={"scores": "sentence_ter"}, per_example_options={"sentence_scores": True},
            corpus_level=True, flat_renames={"score": "ter"}, flat_skip=frozenset({"num_edits", "ref_length"}),
            refused_per_example=_BOOTSTRAP_REFUSED, statistics="nlgmetrics.lexical.ter:TER", higher_is_better=False,
            aliases={"ignore_punct": "no_punct", "support_zh_ja_chars": "asian_support"},  # HF evaluate's names
        ),
        MetricSpec(
            "rouge", "nlgmetrics.lexical.rouge:compute_rouge", LEXICAL,
            headline=("rouge1", "rouge2", "rougeL", "rougeLsum"), per_example_lists=True,
            per_example_options={"use_aggregator": False}, sentence_lines=True, refused_per_example=_BOOTSTRAP_REFUSED,
        ),
        MetricSpec(
            "meteor", "nlgmetrics.lexical.meteor:compute_meteor", LEXICAL, headline=("meteor",),
            per_example={"scores": "meteor"},
        ),
        MetricSpec(
            "bertscore", "nlgmetrics.semantic.bertscore:compute_bertscore", EMBEDDING,
            headline=tuple(_BERTSCORE_KEYS.values()), per_example=_BERTSCORE_KEYS, extras=("embed",),
            demo_options={"model_type": _BUNDLED}, refused_per_example=_EMBEDDING_REFUSED,
        ),
        MetricSpec(
            "moverscore", "nlgmetrics.semantic.moverscore:compute_moverscore", EMBEDDING, headline=("moverscore",),
            per_example={"scores": "moverscore"}, extras=("embed",), demo_options={"model_type": _BUNDLED},
            refused_per_example=_EMBEDDING_REFUSED,
        ),
        MetricSpec(
            "comet", "nlgmetrics.learned.comet:compute_comet", LEARNED, headline=("comet",),
            per_example={"scores": "comet"}, flat_renames={"mean_score": "comet"}, extras=("learned",),
            flat_skip=frozenset({"mean_score_mean", "mean_score_ci"}),
            refused_per_example={**_BOOTSTRAP_REFUSED, "distributed": _EMBEDDING_REFUSED["distributed"]},
            # sources and references per checkpoint: XCOMET and unified [mt, src, ref] models score from references
            # alone, estimators need sources and references, COMET-Kiwi / comet-qe need sources only
            sources=SOURCES_OPTIONAL, references_optional=True, input_needs="nlgmetrics.learned.comet:input_needs",
            needs_checkpoint=True, per_example_details=("error_spans",),
        ),
        MetricSpec(
            "llm_judge", "nlgmetrics.judge.core:compute_llm_judge", LEARNED, headline=("llm_judge",),
            per_example={"scores": "llm_judge"}, extras=("judge",), sources=SOURCES_OPTIONAL, references_optional=True,
            needs_checkpoint=True,
            refused_per_example={"baseline": "pairwise baselines are a list over the whole corpus, not a column",
                                 "contexts": "contexts are a list over the whole corpus, not a column"},
        ),
        MetricSpec(
            "bleurt", "nlgmetrics.learned.bleurt:compute_bleurt", LEARNED, headline=("bleurt",),
            per_example={"scores": "bleurt"}, extras=("learned",), refused_per_example=_BOOTSTRAP_REFUSED,
            needs_checkpoint=True,
        ),
        MetricSpec(
            "metricx", "nlgmetrics.learned.metricx:compute_metricx", LEARNED, headline=("metricx",),
            per_example={"scores": "metricx"}, extras=("learned",), refused_per_example=_BOOTSTRAP_REFUSED,
            higher_is_better=False, sources=SOURCES_OPTIONAL, references_optional=True, needs_checkpoint=True,
        ),
    )
}

#: ``{name: "module:function"}`` of every metric (kept for callers of the earlier registry).
METRICS: dict[str, str] = {name: spec.entry for name, spec in SPECS.items()}


def load_object(target: str) -> Any:
    """The object named by ``"module:attribute"``."""
    module_name, attribute = target.split(":")
    return getattr(importlib.import_module(module_name), attribute)


#: other names users type for a metric (compared in lower case, ``-`` read as ``_``): HF evaluate's module names and
#: the score keys a metric computes (``rougeL`` -> rouge).
METRIC_ALIASES: dict[str, str] = {
    "bert_score": "bertscore", "mover_score": "moverscore", "sacre_bleu": "sacrebleu", "gleu": "google_bleu",
    "nist": "nist_mt", "judge": "llm_judge", "rouge1": "rouge", "rouge2": "rouge", "rougel": "rouge",
    "rougelsum": "rouge", "rouge_l": "rouge", "rouge_lsum": "rouge", "unbabel_comet": "comet", "bleurt_pytorch": "bleurt",
}


def metric_name(name: str) -> str:
    """The registry name of metric ``name``: any case, ``-`` or ``_``, or an alias (:data:`METRIC_ALIASES`:
    ``bert_score``, ``rougeL``, ``BLEU``). An :class:`~nlgmetrics.errors.OptionError` (a ``ValueError``) of one
    line with the closest name otherwise; for ``NAME:KEY`` (a result key, which ``agree -m`` takes) it names the
    metric to give instead."""
    if name in SPECS:
        return name
    key = str(name).strip().lower().replace("-", "_")
    if key in SPECS:
        return key
    if key in METRIC_ALIASES:
        return METRIC_ALIASES[key]
    base, colon, result_key = str(name).partition(":")
    if colon and base and ":" not in result_key:
        metric = metric_name(base)
        raise OptionError(f"{name!r} names the result key {result_key!r} of the metric {metric}; here give the metric "
                          f"itself: {metric}.")
    close = difflib.get_close_matches(key, [*SPECS, *METRIC_ALIASES], n=1, cutoff=0.6)
    hint = f" Did you mean {METRIC_ALIASES.get(close[0], close[0])!r}?" if close else ""
    raise OptionError(f"unknown metric {name!r}.{hint} Choose one of {', '.join(SPECS)}.")


def get_spec(name: str) -> MetricSpec:
    """The :class:`MetricSpec` of metric ``name`` (any case or alias: :func:`metric_name`; a ``ValueError`` naming
    the closest and the known metrics otherwise)."""
    return SPECS[metric_name(name)]


def score(
    name: str, predictions: Any, references: Any = None, *, sources: Any = None, **options: Any
) -> dict:
    """Metric ``name`` on the inputs it reads: ``sources`` go to metrics that read them (a ``ValueError`` for one
    that does not, or when a metric that needs them or references lacks them; see
    :meth:`MetricSpec.input_arguments`), ``options`` by their names or aliases (an unknown one is a ``ValueError``
    naming the closest accepted option, :meth:`MetricSpec.canonical_options`). The one call the CLI, compare, the
    suite and the adapters make."""
    spec = get_spec(name)
    options = spec.canonical_options(options)
    inputs = spec.input_arguments(sources, references is not None, options)
    return get_metric(name)(predictions, references, **inputs, **options)


def missing_extra(name: str) -> MissingExtraError | None:
    """The :class:`MissingExtraError` metric ``name`` would raise here (an extra of its spec that is not installed:
    :func:`nlgmetrics.extras.missing_extra_error`), or None when it can be used. Nothing is imported."""
    for extra in get_spec(name).extras:
        error = missing_extra_error(extra, name)
        if error is not None:
            return error
    return None


def get_metric(name: str) -> Callable[..., dict]:
    """The compute function of metric ``name``; a :class:`MissingExtraError` naming the pip extra when the metric's
    extra is not installed (the one place that check is made: every entry point looks metrics up here)."""
    entry = get_spec(name).entry
    missing = missing_extra(name)
    if missing is not None:
        raise missing
    try:
        return load_object(entry)
    except ModuleNotFoundError as exc:
        if exc.name == entry.split(":")[0]:
            raise OptionError(f"metric {name!r} is not available in this version of nlgmetrics.") from None
        raise


def available_metrics(kind: str | None = None) -> list[str]:
    """Names of the metrics usable in this installation (implemented, and their extras installed: see
    :func:`missing_extra`) of one ``kind``, if given, in :data:`SPECS` order."""
    return [
        name for name, spec in SPECS.items()
        if (kind is None or spec.kind == kind) and missing_extra(name) is None  # first: find_spec imports the package
        and importlib.util.find_spec(spec.entry.split(":")[0]) is not None
    ]


def self_contained_metrics(kind: str | None = None) -> list[str]:
    """The :func:`available_metrics` that run without a user-supplied checkpoint (``needs_checkpoint`` false): what
    ``make demo``, a suite given no metric list and the per-metric test tables run."""
    return [name for name in available_metrics(kind) if not SPECS[name].needs_checkpoint]


def metrics_of_kind(kind: str) -> tuple[str, ...]:
    """Every declared metric of ``kind`` (``"lexical"`` or ``"embedding"``), installed or not."""
    return tuple(name for name, spec in SPECS.items() if spec.kind == kind)


def per_example_key(metric: str) -> tuple[str, str]:
    """``(registry name, result key)`` of the per-example score that ``NAME`` or ``NAME:KEY`` names: a key of the
    spec's ``per_example`` (or its column name, e.g. ``bertscore:bertscore_f1``), or of its ``headline`` for a metric
    with ``per_example_lists`` (``rouge:rougeL``); without ``:KEY``, the first headline key that has one (BERTScore:
    precision) or the only per-example key. A ``ValueError`` naming the choices otherwise."""
    name, _, wanted = str(metric).partition(":")
    spec = get_spec(name)
    keys = {k: k for k in spec.headline} if spec.per_example_lists else {c: k for k, c in spec.per_example.items()}
    keys.update({k: k for k in spec.per_example})
    if not keys:
        raise ValueError(f"{spec.name} gives no per-example score (it is a corpus statistic).")
    if wanted and wanted not in keys:
        raise ValueError(f"{spec.name} has no per-example score {wanted!r}; choose from {', '.join(sorted(keys))}.")
    default = next((keys[h] for h in spec.headline if h in keys), next(iter(spec.per_example or keys)))
    return spec.name, keys[wanted] if wanted else default
