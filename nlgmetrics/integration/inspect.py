"""nlgmetrics metrics as Inspect scorers (``pip install "nlgmetrics[inspect]"``; inspect-ai 0.3.x).

Every metric of the registry is an Inspect ``@scorer`` named after it, taking the metric's own options::

    from inspect_ai import Task, eval
    from inspect_ai.dataset import Sample
    from inspect_ai.solver import generate
    from nlgmetrics.integration.inspect import chrf, comet, bleu

    task = Task(dataset=[Sample(input="Übersetze: Der Hund bellt.", target="The dog barks.")],
                solver=generate(), scorer=[bleu(), chrf(), comet(model="/ckpt/wmt22-comet-da")])
    eval(task, model="openai/gpt-4o-mini")

``nlgmetrics_scorer("ter", normalized=True)`` builds any of them by name. What a scorer reads and writes:

- the prediction is the model's completion (``state.output.completion``); the references are ``target`` (a
  sample with several targets has several references; an empty target scores reference-free where the metric can);
  the source (COMET, MetricX, the judge) is the sample's input text, or ``source_field="name"`` reads it from the
  sample's metadata (e.g. the sentence to translate without the instruction around it), ``source_field=None``
  passes none;
- ``Score.value``: the metric's headline on that sample alone (one float, or a dict for several headline scores:
  ROUGE's ``rouge1/rouge2/rougeL/rougeLsum``, BERTScore's precision/recall/F1); see
  :mod:`nlgmetrics.integration.samplewise` for the exact rule. A judge answer that cannot be read is unscored;
- ``Score.metadata``: the texts, the options, the signature, ``higher_is_better``, the epoch, and the metric's
  per-sample details (XCOMET's ``error_spans``: text, severity, confidence, character offsets in the completion);
- the scorer's metric (:func:`headline`) reports the metric's own corpus headline: BLEU, chrF, TER, NIST, ROUGE,
  METEOR, BERTScore and MoverScore are recomputed over all samples' texts in one call (corpus BLEU, not a mean of
  sentence BLEU; MoverScore's idf over the whole corpus); COMET, BLEURT, MetricX and the judge report the mean of
  the segment scores. The numbers equal ``nlgmetrics.registry.score`` on the same texts. With several epochs it is
  computed per epoch and averaged over epochs.

Models are loaded once per process by the core (COMET, BLEURT, MetricX, the encoders, the judge's backend) and reused
by every sample; the judge's answers go through its SQLite cache as in the core. Each sample is scored when it
completes (a batch of one); for large corpora of learned-metric scores, ``nlgmetrics score`` on the log's outputs
batches them. Scoring runs in the event loop's thread (the core's models are not shared across threads here).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from nlgmetrics.extras import require_extra

require_extra("inspect", "nlgmetrics.integration.inspect")  # a MissingExtraError, not ModuleNotFoundError

from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, metric, scorer  # noqa: E402
from inspect_ai.solver import TaskState  # noqa: E402

from nlgmetrics.integration.samplewise import (
    SampleText, check_options, corpus_headline, details, reads_sources, result_key, score_sample, signature,
)
from nlgmetrics.registry import SPECS, get_spec

INPUT = "input"


@metric(scores="unreduced")
def headline(metric: str) -> Metric:
    """The headline of nlgmetrics metric ``metric`` over the whole corpus (one value per headline key, named with the
    options that differ from the defaults: ``chrf[word_order=2]``, :func:`~nlgmetrics.integration.samplewise.result_key`),
    from the texts and options each sample's score carries in its metadata; per epoch, then the mean over epochs."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        if not scores:  # Inspect asks for the shape of an empty sample set (its display, before the first sample):
            return {}   # none to report; Inspect shows n/a, where a raised error warned on every clean run
        epochs: dict[int, list[Score]] = defaultdict(list)
        for sample_score in scores:
            data = sample_score.score.metadata or {}
            if data.get("nlgmetrics_metric") != metric:
                raise ValueError(f"nlgmetrics headline({metric!r}) got a score without nlgmetrics {metric} metadata; "
                                 "use it with nlgmetrics' own scorers.")
            epochs[int(data.get("epoch", 1))].append(sample_score.score)
        per_epoch = []
        for epoch_scores in epochs.values():
            options = {json.dumps(s.metadata["options"], sort_keys=True) for s in epoch_scores}
            if len(options) != 1:
                raise ValueError(f"{metric}: the samples were scored with different options: {sorted(options)}.")
            samples = [SampleText.from_dict(s.metadata) for s in epoch_scores]
            values = [s.value if isinstance(s.value, dict) else {get_spec(metric).headline[0]: s.value}
                      for s in epoch_scores]
            options_used = options.pop()
            per_epoch.append(corpus_headline(metric, json.loads(options_used), samples, values))
        keys = [key for key in get_spec(metric).headline if all(key in e for e in per_epoch)]
        return {result_key(metric, key, json.loads(options_used)): sum(e[key] for e in per_epoch) / len(per_epoch)
                for key in keys}

    return compute


def _source(state: TaskState, source_field: str | None) -> str | None:
    if source_field is None:
        return None
    if source_field == INPUT:
        return state.input_text
    metadata = state.metadata or {}
    if source_field not in metadata:
        raise KeyError(f"source_field={source_field!r}: the sample's metadata has no such key "
                       f"(keys: {', '.join(metadata) or 'none'}); use source_field='input' for the sample's input.")
    return str(metadata[source_field])


def _references(target: Target) -> str | list[str] | None:
    references = list(target.target)
    if not any(references):
        return None  # reference-free (COMET-Kiwi, MetricX QE, the judge): the metric says whether it can
    return references[0] if len(references) == 1 else references


def _make_scorer(name: str, options: dict[str, Any], source_field: str | None) -> Scorer:
    spec = get_spec(name)
    options = check_options(name, options)
    if source_field is not None and not reads_sources(name):
        source_field = None  # the metric reads no source: nothing to take from the input

    async def score(state: TaskState, target: Target) -> Score:
        sample = SampleText(state.output.completion, _references(target), _source(state, source_field))
        values, result = score_sample(name, options, sample)
        metadata = {"nlgmetrics_metric": name, **sample.as_dict(), "options": options,
                    "signature": signature(result), "higher_is_better": spec.higher_is_better,
                    "epoch": state.epoch, **details(name, result)}
        if len(spec.headline) == 1:
            if not values:
                return Score.unscored(reason="scoring_failed", answer=sample.prediction, metadata=metadata,
                                      explanation=f"{name} gave no score for this sample (e.g. an unreadable judge "
                                                  "answer)")
            return Score(value=values[spec.headline[0]], answer=sample.prediction, metadata=metadata)
        return Score(value=values, answer=sample.prediction, metadata=metadata)

    return score


def _define(name: str):
    spec = SPECS[name]
    default_source = INPUT if spec.sources != "none" else None

    def factory(source_field: str | None = default_source, **options: Any) -> Scorer:
        return _make_scorer(name, options, source_field)

    factory.__name__ = factory.__qualname__ = name
    factory.__module__ = __name__
    factory.__doc__ = (f"nlgmetrics {name} as an Inspect scorer; ``options`` are ``nlgmetrics.registry.get_metric("
                       f"{name!r})``'s keyword options. Metric: its corpus headline "
                       f"({', '.join(spec.headline)}; {'higher' if spec.higher_is_better else 'lower'} is better).")
    return scorer(metrics=[headline(name)], name=name, higher_is_better=spec.higher_is_better)(factory)


for _name in SPECS:  # bleu, sacrebleu, ..., metricx: one scorer per metric, named after it
    globals()[_name] = _define(_name)



def nlgmetrics_scorer(metric: str, source_field: str | None = "default", **options: Any) -> Scorer:
    """The Inspect scorer of nlgmetrics metric ``metric`` with ``options`` (e.g. ``nlgmetrics_scorer("ter",
    normalized=True)``); ``source_field`` as for the named scorers (default: the sample's input for metrics that
    read sources)."""
    factory = globals()[get_spec(metric).name]
    return factory(**options) if source_field == "default" else factory(source_field=source_field, **options)


__all__: Sequence[str] = ["headline", "nlgmetrics_scorer", *SPECS]
