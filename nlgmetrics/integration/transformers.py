"""nlgmetrics as a transformers ``Trainer`` / ``Seq2SeqTrainer`` ``compute_metrics``.

    from nlgmetrics.integration.transformers import make_compute_metrics

    compute_metrics = make_compute_metrics(
        tokenizer, metrics=["bleu", "rouge", "bertscore"],
        metric_options={"bertscore": {"model_type": "sentence-transformers/all-MiniLM-L6-v2"}},
    )
    trainer = Seq2SeqTrainer(..., args=Seq2SeqTrainingArguments(..., predict_with_generate=True),
                             processing_class=tokenizer, compute_metrics=compute_metrics)

Predictions and labels are token ids (``predict_with_generate=True``; logits are reduced by argmax); ``-100`` is
replaced by the pad id, both are decoded without special tokens and stripped, and the metrics run through
:func:`nlgmetrics.integration.suite.compute_suite`. The result is a flat dict of floats (``bleu``, ``rouge1``,
``bertscore_f1``, ``moverscore``, ... and ``gen_len``, the mean number of generated tokens); Trainer prefixes them
with ``eval_``. With ``batch_eval_metrics=True`` each batch is decoded and kept, and the metrics run once over all of
them when Trainer passes ``compute_result=True``. Trainer's logs take floats only, so each metric's signature (the
settings behind its numbers, ``sentence_split`` for rougeLsum included) is kept in ``compute_metrics.signatures``
after every evaluation.

Models load once: the embedding metrics share one process-wide encoder per model and device, and an embedding cache
(the references, unchanged between evaluations, are embedded once). ``warmup=True`` (default) scores one dummy pair
when the callable is made, so a missing model or a bad option fails before training starts, not at the first eval.

Under DDP (torchrun, accelerate) Trainer calls ``compute_metrics`` on every rank with the gathered predictions.
``distributed="auto"`` (default) then shards the embedding metrics' (and COMET's) encoding across the ranks (each
encodes a share of the texts, the embeddings are gathered; see :mod:`nlgmetrics.embed.distributed`), and every rank
returns the same numbers. Without an initialised process group it changes nothing.

Error metrics (MetricX, TER) are better when lower: for ``load_best_model_at_end`` pass
``TrainingArguments(metric_for_best_model="metricx", greater_is_better=compute_metrics.greater_is_better("metricx"))``
(Trainer assumes higher is better for any key but a loss).

Metrics that read sources (COMET, MetricX): ``sources="inputs"`` decodes Trainer's ``EvalPrediction.inputs`` (set
``TrainingArguments(include_for_metrics=["inputs"])``; -100 and padding are dropped as for labels), or pass the
evaluation set's source texts as a list, in the evaluation order (Trainer does not shuffle it). A metric that needs
sources is refused when the callable is made without them.
"""

from __future__ import annotations

import warnings
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from nlgmetrics.extras import require_extra

require_extra("transformers", "nlgmetrics.integration.transformers", ("torch", "transformers"))  # not ModuleNotFound

from nlgmetrics.integration.suite import (  # noqa: E402
    accepts, check_metrics, compute_suite, flatten_suite, metric_options_for, suite_signatures,
)
from nlgmetrics.registry import SOURCES_NONE, get_metric, get_spec

DEFAULT_METRICS = ("bleu", "rouge")


def _to_numpy(array: Any) -> np.ndarray:
    if isinstance(array, tuple):
        array = array[0]  # (generated ids or logits, extra outputs...)
    if hasattr(array, "detach"):  # torch tensors with batch_eval_metrics=True
        array = array.detach().cpu().numpy()
    return np.asarray(array)


class ComputeMetrics:
    """The ``compute_metrics`` callable made by :func:`make_compute_metrics`."""

    def __init__(
        self,
        tokenizer: Any,
        metrics: Sequence[str] = DEFAULT_METRICS,
        metric_options: Mapping[str, Mapping[str, Any]] | None = None,
        *,
        shared_options: Mapping[str, Any] | None = None,
        sentence_split: str | Callable[[str], Sequence[str]] | None = "regex",
        keys: Sequence[str] | None = None,
        skip_special_tokens: bool = True,
        warmup: bool = True,
        distributed: bool | str = "auto",
        sources: str | Sequence[str] | None = None,
    ) -> None:
        from nlgmetrics.embed.distributed import check_mode, sharded_encoding

        pad_id = getattr(tokenizer, "pad_token_id", None)
        if pad_id is None:
            pad_id = getattr(tokenizer, "eos_token_id", None)
        if pad_id is None:
            raise ValueError("the tokenizer has neither a pad nor an eos token id to put in place of -100.")
        self.tokenizer = tokenizer
        self.pad_id = int(pad_id)
        self.metrics = check_metrics(metrics)
        if sources is not None and not (sources == "inputs" or (not isinstance(sources, str)
                                                               and isinstance(sources, Sequence))):
            raise TypeError(f"sources must be 'inputs' (decode EvalPrediction.inputs) or a list of source texts, "
                            f"got {sources!r:.60}.")
        self.sources = list(sources) if sources is not None and sources != "inputs" else sources
        self.metric_options = metric_options_for(self.metrics, metric_options, shared_options)
        for name in self.metrics:  # a metric (or checkpoint) that needs sources fails now, not at the first evaluation
            spec = get_spec(name)
            spec.input_arguments(sources if spec.sources != SOURCES_NONE else None, options=self.metric_options[name])
        check_mode(distributed)
        for name in self.metrics:  # the embedding metrics and COMET; a metric's own "distributed" option wins
            if accepts(get_metric(name), "distributed"):
                self.metric_options[name].setdefault("distributed", distributed)
        self.sentence_split = sentence_split
        self.keys = list(keys) if keys is not None else None
        self.skip_special_tokens = skip_special_tokens
        self._predictions: list[str] = []
        self._references: list[str] = []
        self._sources: list[str] = []
        self._generated_tokens = 0
        #: each metric's signature from the last :meth:`compute` (:mod:`nlgmetrics.signature`; Trainer's logs hold
        #: floats only)
        self.signatures: dict[str, str | None] = {}
        if warmup:
            local = {name: {k: v for k, v in options.items() if k != "distributed"}  # this rank alone
                     for name, options in self.metric_options.items()}
            with warnings.catch_warnings(), sharded_encoding(False):  # one dummy pair: MoverScore's idf warns
                warnings.simplefilter("ignore")
                compute_suite(["a warm-up text."], ["a warm-up text."], self.metrics, local,
                              sources=None if sources is None else ["a warm-up text."])

    def decode(self, ids: Any) -> tuple[list[str], int]:
        """Texts of a batch of token ids (or logits) and the number of non-pad tokens in it."""
        array = _to_numpy(ids)
        if array.ndim == 3:  # logits (predict_with_generate=False)
            array = array.argmax(-1)
        array = np.where(array == -100, self.pad_id, array).astype(np.int64)
        texts = self.tokenizer.batch_decode(array, skip_special_tokens=self.skip_special_tokens)
        return [text.strip() for text in texts], int((array != self.pad_id).sum())

    def add(self, eval_pred: Any) -> None:
        """Decode and keep one batch (or a whole evaluation set)."""
        predictions, labels = eval_pred[0], eval_pred[1]
        texts, generated = self.decode(predictions)
        references, _ = self.decode(labels)
        if len(texts) != len(references):
            raise ValueError(f"{len(texts)} predictions but {len(references)} labels.")
        if self.sources == "inputs":
            inputs = getattr(eval_pred, "inputs", None)
            if inputs is None:
                raise ValueError("sources='inputs' needs EvalPrediction.inputs: set "
                                 "TrainingArguments(include_for_metrics=['inputs']).")
            self._sources += self.decode(inputs)[0]
        self._predictions += texts
        self._references += references
        self._generated_tokens += generated

    def compute(self) -> dict[str, float]:
        """The metrics over everything added so far; then start afresh."""
        predictions, references, generated = self._predictions, self._references, self._generated_tokens
        sources = self._sources if self.sources == "inputs" else self.sources
        self.reset()
        if not predictions:
            return {}
        if sources is not None and len(sources) != len(predictions):
            raise ValueError(f"{len(sources)} sources for {len(predictions)} predictions: pass one source per "
                             "evaluation example, in the evaluation order.")
        results = compute_suite(
            predictions, references, self.metrics, self.metric_options, sentence_split=self.sentence_split,
            sources=sources,
        )
        self.signatures = suite_signatures(results)  # Trainer logs floats only: the settings are kept here
        flat = flatten_suite(results)
        if self.keys is not None:
            missing = [key for key in self.keys if key not in flat]
            if missing:
                raise KeyError(f"keys {missing} are not in the results; available: {', '.join(flat)}.")
            flat = {key: flat[key] for key in self.keys}
        flat["gen_len"] = generated / len(predictions)
        return flat

    def greater_is_better(self, key: str) -> bool:
        """Trainer's ``greater_is_better`` for ``metric_for_best_model=key`` (a flat key, ``eval_`` prefix allowed):
        False for error metrics (MetricX, TER), which Trainer would otherwise rank highest-first."""
        name = key.removeprefix("eval_")
        for metric in sorted(self.metrics, key=len, reverse=True):  # "bleurt" before "bleu"
            if name.startswith(metric):  # every flat key starts with its metric's name
                return get_spec(metric).higher_is_better
        raise ValueError(f"{key!r} is not a key of the metrics {', '.join(self.metrics)}.")

    def reset(self) -> None:
        self._predictions, self._references, self._sources, self._generated_tokens = [], [], [], 0

    def __call__(self, eval_pred: Any, compute_result: bool | None = None) -> dict[str, float]:
        """Trainer's entry point: ``compute_result=None`` (whole set at once) or per batch with
        ``batch_eval_metrics=True`` (``{}`` until ``compute_result`` is true)."""
        self.add(eval_pred)
        if compute_result is False:
            return {}
        return self.compute()


def make_compute_metrics(
    tokenizer: Any,
    metrics: Sequence[str] = DEFAULT_METRICS,
    metric_options: Mapping[str, Mapping[str, Any]] | None = None,
    *,
    shared_options: Mapping[str, Any] | None = None,
    sentence_split: str | Callable[[str], Sequence[str]] | None = "regex",
    keys: Sequence[str] | None = None,
    skip_special_tokens: bool = True,
    warmup: bool = True,
    distributed: bool | str = "auto",
    sources: str | Sequence[str] | None = None,
) -> ComputeMetrics:
    """A ``compute_metrics`` for ``Trainer``/``Seq2SeqTrainer`` computing ``metrics`` (registry names).

    Args:
        tokenizer: decodes predictions and labels (its pad id replaces -100).
        metrics: e.g. ``["bleu", "rouge", "meteor", "bertscore", "moverscore"]``.
        metric_options: ``{metric: {option: value}}``, e.g. ``{"bertscore": {"model_type": ..., "batch_size": 32}}``.
        shared_options: options for every metric that takes them (``model_type``, ``device``, ``batch_size``...).
        sentence_split: how texts are split into lines for rougeLsum: ``"regex"`` (default, no data needed),
            ``"punkt"`` (nltk's tables, provisioned offline), a callable, or ``None``.
        keys: report only these flat keys (plus ``gen_len``); default: all of them.
        warmup: score one dummy pair now, so models load and options are checked before training.
        distributed: under DDP, shard the embedding metrics' and COMET's encoding across the ranks (``"auto"``: when
            torch.distributed is initialised with several ranks; ``True``; ``False``: every rank encodes everything).
        sources: for metrics that read sources (COMET): ``"inputs"`` (decode ``EvalPrediction.inputs``; needs
            ``include_for_metrics=["inputs"]``) or the evaluation set's source texts in order.
    """
    return ComputeMetrics(
        tokenizer, metrics, metric_options, shared_options=shared_options, sentence_split=sentence_split, keys=keys,
        skip_special_tokens=skip_special_tokens, warmup=warmup, distributed=distributed, sources=sources,
    )
