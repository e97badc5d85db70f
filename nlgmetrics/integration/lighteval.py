"""nlgmetrics metrics for lighteval 0.13 custom tasks (``pip install "nlgmetrics[lighteval]"``).

:func:`nlgmetrics_metric` turns any metric of the registry into a lighteval ``Metric`` for a task's ``metrics=[...]``::

    from lighteval.tasks.lighteval_task import LightevalTaskConfig
    from nlgmetrics.integration.lighteval import nlgmetrics_metric

    TASKS_TABLE = [LightevalTaskConfig(
        name="my_mt", prompt_function=prompt, hf_repo="path/or/hub/id", hf_subset="default",
        evaluation_splits=["test"], generation_size=64, stop_sequence=["\\n"],
        metrics=[nlgmetrics_metric("bleu"), nlgmetrics_metric("chrf", word_order=2),
                 nlgmetrics_metric("comet", model="/ckpt/wmt22-comet-da", source_field="source")],
    )]

then ``lighteval accelerate "model_name=..." "my_mt|0" --custom-tasks my_tasks.py``.

- Lexical and embedding metrics (BLEU, sacreBLEU, GLEU, NIST, chrF, TER, ROUGE, METEOR, BERTScore, MoverScore) are
  corpus-level metrics (``CorpusLevelMetric``, or ``CorpusLevelMetricGrouping`` for ROUGE's four scores and
  BERTScore's three): each sample contributes its texts, and the aggregation computes the metric once over all of them,
  so BLEU/chrF/TER/NIST are corpus statistics, not means of sentence scores, and MoverScore's idf is that of the
  corpus. lighteval reports no stderr for them (it would bootstrap by recomputing the corpus metric 1000 times).
- Learned metrics and the judge (COMET, BLEURT, MetricX, LLM judge) are sample-level metrics computed in one batched
  call per task (``batched_compute=True``): each sample's value is its segment score, the aggregate their mean
  (unscored samples, e.g. unreadable judge answers, left out), with lighteval's bootstrap stderr. A sample's details
  (XCOMET's ``error_spans``) are written into its ``doc.specific["nlgmetrics_details"][metric]``, which lighteval's
  details files save with the sample (its metric values must be numbers).

The numbers equal ``nlgmetrics.registry.score`` on the same texts (see :mod:`nlgmetrics.integration.samplewise`).
Inputs: the prediction is the model's final text; the references are the doc's gold choices (``Doc.get_golds()``:
several golds are several references; an empty gold scores reference-free where the metric can); the source (COMET,
MetricX, the judge) is ``doc.query`` by default (the full prompt), or ``source_field="name"`` reads
``doc.specific[name]`` (put the bare source sentence there in the prompt function), ``source_field=None`` none.
Models are loaded once per process by the core and reused.
"""

from __future__ import annotations

import math
from typing import Any

from nlgmetrics.extras import require_extra

require_extra("lighteval", "nlgmetrics.integration.lighteval")  # a MissingExtraError, not ModuleNotFoundError

from lighteval.metrics.metrics_sample import SampleLevelComputation  # noqa: E402
from lighteval.metrics.sample_preparator import Preparator  # noqa: E402
from lighteval.metrics.utils.metric_utils import (  # noqa: E402
    CorpusLevelMetric, CorpusLevelMetricGrouping, Metric, SampleLevelMetric,
)
from lighteval.tasks.requests import Doc, SamplingMethod  # noqa: E402

from nlgmetrics.integration.samplewise import (
    SampleText, check_options, corpus_headline, reads_sources, recomputes_corpus, result_key, score_batch_details,
)
from nlgmetrics.registry import get_spec

QUERY = "query"
DETAILS = "nlgmetrics_details"  # the key of Doc.specific holding each metric's per-sample details


def _sample(doc: Doc, model_response: Any, metric: str, source_field: str | None) -> SampleText:
    """The sample's texts; the references always a list (one gold or several), so the values lighteval stores in its
    details have one type per column whatever the task's documents hold (pyarrow refuses a column that mixes a string
    and a list, and lighteval then saves no results or details)."""
    golds = [str(g) for g in doc.get_golds()]
    references: list[str] | None = None
    if any(golds):
        references = golds
    source = None
    if source_field == QUERY:
        source = doc.query
    elif source_field is not None:
        specific = doc.specific or {}
        if source_field not in specific:
            raise KeyError(f"{metric}: source_field={source_field!r} but doc.specific has no such key (keys: "
                           f"{', '.join(specific) or 'none'}); set it in the prompt function's Doc(specific=...).")
        source = str(specific[source_field])
    texts = model_response.final_text
    return SampleText(texts[0] if texts else "", references, source)


class SampleTexts(Preparator):
    """Per sample: its texts (prediction, references, source) as a dict, for the corpus aggregation; under each
    reported name for a grouping."""

    def __init__(self, metric: str, source_field: str | None, names: list[str]):
        self.metric, self.source_field, self.names = metric, source_field, names

    def prepare(self, doc: Doc, model_response: Any, **kwargs: Any) -> dict:
        texts = _sample(doc, model_response, self.metric, self.source_field).as_dict()
        return {name: texts for name in self.names} if len(self.names) > 1 else texts


class CorpusHeadline:
    """The aggregation: the metric's headline over all samples' texts, as ``{reported name: value}`` (lighteval then
    takes every headline score from this one call)."""

    def __init__(self, metric: str, options: dict[str, Any]):
        self.metric, self.options = metric, options
        self.__name__ = f"nlgmetrics_{metric}_corpus"

    def __call__(self, items: list[dict]) -> dict[str, float]:
        values = corpus_headline(self.metric, self.options, [SampleText.from_dict(item) for item in items])
        return {result_key(self.metric, key, self.options): value for key, value in values.items()}


class SegmentScores(SampleLevelComputation):
    """Batched: every sample of the task scored in one call; one value per sample (None when unscored)."""

    def __init__(self, metric: str, options: dict[str, Any], source_field: str | None):
        self.metric, self.options, self.source_field = metric, options, source_field

    def compute(self, responses: list, docs: list[Doc], **kwargs: Any) -> list[float | None]:
        samples = [_sample(doc, response, self.metric, self.source_field) for doc, response in zip(docs, responses)]
        (name,) = get_spec(self.metric).headline
        values, extra = score_batch_details(self.metric, self.options, samples)
        for doc, found in zip(docs, extra):
            if found:  # the sample's details (XCOMET's error spans) go where lighteval saves them with the sample
                doc.specific = {**(doc.specific or {}), DETAILS: {**(doc.specific or {}).get(DETAILS, {}),
                                                                  self.metric: found}}
        return [v.get(name) for v in values]


def average_of_scored(values: list[float | None]) -> float:
    """The mean of the values that are numbers (an unscored sample is left out, as the core leaves it out)."""
    scored = [float(v) for v in values if v is not None and math.isfinite(v)]
    return math.fsum(scored) / len(scored) if scored else float("nan")


def nlgmetrics_metric(metric: str, *, source_field: str | None = QUERY, **options: Any) -> Metric:
    """The lighteval metric of nlgmetrics metric ``metric`` with its keyword ``options`` (see the module docstring);
    its result keys are the metric's headline names (``bleu``; ``rouge1`` ... ``rougeLsum``; ``bertscore_f1`` ...),
    each with the options that differ from the metric's defaults (``chrf[word_order=2]``: chrF++, never under
    ``chrf``; :func:`nlgmetrics.integration.samplewise.result_key`), so each configuration has its own keys."""
    spec = get_spec(metric)
    options = check_options(spec.name, options)
    if not reads_sources(spec.name):
        source_field = None
    names = [result_key(spec.name, key, options) for key in spec.headline]
    if recomputes_corpus(spec.name):
        preparator, aggregation = SampleTexts(spec.name, source_field, names), CorpusHeadline(spec.name, options)
        if len(names) == 1:
            return CorpusLevelMetric(metric_name=names[0], higher_is_better=spec.higher_is_better,
                                     category=SamplingMethod.GENERATIVE, sample_level_fn=preparator,
                                     corpus_level_fn=aggregation)
        return CorpusLevelMetricGrouping(
            metric_name=names, higher_is_better=dict.fromkeys(names, spec.higher_is_better),
            category=SamplingMethod.GENERATIVE, sample_level_fn=preparator,
            corpus_level_fn=dict.fromkeys(names, aggregation),
        )
    return SampleLevelMetric(metric_name=names[0], higher_is_better=spec.higher_is_better,
                             category=SamplingMethod.GENERATIVE,
                             sample_level_fn=SegmentScores(spec.name, options, source_field),
                             corpus_level_fn=average_of_scored, batched_compute=True)
