"""nlgmetrics on Ray Data: per-example scores for corpora that outgrow one machine (``pip install "nlgmetrics[ray]"``).

    import ray
    from nlgmetrics.integration.ray_data import score_dataset

    ds = ray.data.read_parquet("s3://bucket/generations/")          # columns: id, prediction, reference
    scored = score_dataset(ds, ["bertscore", "moverscore"],
                           shared_options={"model_type": "roberta-large"})
    scored.write_parquet("s3://bucket/scored/")                     # + bertscore_precision/recall/f1, moverscore

Glue only: :class:`MetricScorer` is a callable class for ``Dataset.map_batches`` run by an actor pool. Its
``__init__`` loads the scorers once per actor (the encoder on the actor's GPU when it has one, else CPU); its
``__call__`` scores one batch and adds one column per score. :func:`score_dataset` makes that call with defaults
taken from the cluster: GPU actors, one per GPU, when ``ray.cluster_resources()`` lists GPUs and an embedding metric
is asked; else CPU actors, one per ``num_cpus`` CPUs. The numbers are those of the single-process functions
(``compute_bertscore``, ``compute_moverscore``, ...) on the whole corpus, example for example.

Columns added per metric (each metric's spec, :func:`columns`): ``bertscore_precision``, ``bertscore_recall``, ``bertscore_f1``;
``moverscore``; ``sentence_bleu`` (0-100, sentence BLEU); ``meteor``; for ROUGE each type's F, precision and recall
(``rouge1``, ``rouge1_precision``, ``rouge1_recall``, ...). NIST has no per-example score and is refused.

Corpus-level idf. MoverScore's default idf is computed over each side's whole corpus, and BERTScore's ``idf=True``
over all references; one batch is not the corpus, so :class:`MetricScorer` refuses ``idf=True`` (ValueError).
:func:`score_dataset` instead makes a first pass (:func:`corpus_idfs`): CPU actors tokenize every text and count
document frequencies per batch, the driver adds them up (counts are additive), and the scoring actors weigh tokens
by ``idf(t) = log((N + 1) / (df(t) + 1))`` over the whole corpus, as the single-process code does. The dataset is
read twice then (``materialize()`` it first if reading it is costly). A :class:`CorpusIdf` can also be computed once
with :func:`corpus_idf` and passed in (``metric_options={"moverscore": {"idf": saved}}``) to skip the first pass.

Sources: metrics that read them (COMET) take ``source_column=`` (one source text per row); each actor loads its
model once (the process-wide model cache). ``reference_columns=()`` scores without references, for reference-free
metrics only.

Row order is not kept unless ``ray.data.DataContext.get_current().execution_options.preserve_order = True``; keep
an id column to join the scores back on.

Credentials: the options travel to the actors inside Ray's task specs and object store (spilled to disk under
memory pressure, visible to any process of the cluster), so an option that carries a credential (``api_key``, a
``base_url`` with userinfo or a query string) is refused before any Ray work, as in the lm-eval adapter
(:func:`nlgmetrics._secrets.check_shipped_options`). Give the judge its key through the workers' environment instead:
``$OPENAI_API_KEY``, or ``metric_options={"llm_judge": {"api_key_env": "NAME"}}`` to read ``$NAME`` in each actor.
The variable must be set where the workers start (exported on every node before ``ray start``; for a local
``ray.init()``, in the driver's environment before it); not through ``runtime_env``, which Ray also stores.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from nlgmetrics.extras import require_extra

require_extra("ray", "nlgmetrics.integration.ray_data")  # a MissingExtraError, not ModuleNotFoundError

from nlgmetrics._secrets import KEY_OPTION, check_shipped_options, key_from_environment
from nlgmetrics.inputs import check_pairs, check_predictions
from nlgmetrics.integration.samplewise import needs_corpus_idf
from nlgmetrics.integration.suite import check_metrics, metric_options_for
from nlgmetrics.registry import EMBEDDING, LEARNED, SOURCES_NONE, get_spec, metrics_of_kind
from nlgmetrics.registry import score as score_metric

if TYPE_CHECKING:
    import ray.data

    from nlgmetrics.semantic.idf import DocumentFrequencies  # embedding metrics only (the [embed] extra)

EMBEDDING_METRICS = metrics_of_kind(EMBEDDING)
MODEL_METRICS = EMBEDDING_METRICS + metrics_of_kind(LEARNED)  # these run an encoder: GPU actors where there are GPUs
_CARRIER = ("Ray ships actor arguments in its task specs and object store (spilled to disk under memory pressure, "
            "readable by the cluster's processes)")
_READER = "each Ray worker (export it on every node before `ray start`, or before a local ray.init())"


def columns(metric: str, result: Mapping[str, Any] | None = None) -> dict[str, str]:
    """Result key -> column name of ``metric``'s per-example scores (its spec's ``per_example``; for a metric with
    ``per_example_lists``, every list-valued key of ``result`` under its own name)."""
    spec = get_spec(metric)
    if spec.per_example_lists:
        return {key: key for key, value in (result or {}).items() if isinstance(value, list)}
    return dict(spec.per_example)


# -- corpus-level idf -----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class CorpusIdf:
    """What one embedding metric's corpus-level idf needs, from a pass over the whole dataset (:func:`corpus_idf`).

    ``tokenization`` names the model, tokenizer settings and truncation the ids were counted with; a scorer that
    tokenizes otherwise refuses it. ``predictions`` is None for BERTScore (its idf comes from the references only).
    """

    metric: str
    tokenization: str
    references: DocumentFrequencies
    predictions: DocumentFrequencies | None = None


def _tokenization(metric: str, scorer: Any) -> str:
    encoder = scorer.encoder
    cut = f"long={scorer.long_text}" if metric == "moverscore" else "untruncated"
    return f"{metric}|{encoder.model_id}|{encoder.tokenizer_settings}|{cut}"


def _idf_token_ids(metric: str, scorer: Any, texts: Sequence[str]) -> list[list[int]]:
    """The ids the metric's idf counts, one list per text: BERTScore's untruncated ids; MoverScore's embedded ids
    (cut to the model maximum with ``long_text="truncate"``)."""
    if metric == "bertscore":
        return scorer.encoder.token_ids(texts)
    table = scorer.token_ids(texts)
    return [table[t] for t in texts]


# -- building the scorers -------------------------------------------------------------------------------------------
def _make_scorer(metric: str, options: Mapping[str, Any]) -> Any:
    """The BERTScorer or MoverScorer for ``options``; a :class:`CorpusIdf` given as ``idf`` becomes its idf."""
    from nlgmetrics.semantic.bertscore import BERTScorer, _scorer_options
    from nlgmetrics.semantic.moverscore import MoverScorer

    options = dict(options)
    idf = options.get("idf")
    if isinstance(idf, CorpusIdf):
        if idf.metric != metric:
            raise ValueError(f"{metric}: idf is a CorpusIdf counted for {idf.metric}; compute one for {metric} with "
                             f"corpus_idf(ds, {metric!r}, ...).")
        # the whole corpus's idf instead of that of each call's texts
        references = idf.references.idf_dict()
        options["idf"] = references if metric == "bertscore" else (idf.predictions.idf_dict(), references)
    scorer = BERTScorer(**_scorer_options(options)) if metric == "bertscore" else MoverScorer(**options)
    if isinstance(idf, CorpusIdf) and idf.tokenization != _tokenization(metric, scorer):
        raise ValueError(f"{metric}: the CorpusIdf was counted for {idf.tokenization!r}, this scorer tokenizes "
                         f"as {_tokenization(metric, scorer)!r}; recompute it with corpus_idf() and the same "
                         "model options.")
    return scorer


def _check_columns(prediction_column: str, reference_columns: str | Sequence[str]) -> tuple[str, tuple[str, ...]]:
    if not isinstance(prediction_column, str):
        raise TypeError(f"prediction_column must be a column name (str), got {prediction_column!r}.")
    columns = (reference_columns,) if isinstance(reference_columns, str) else tuple(reference_columns)
    if not all(isinstance(c, str) for c in columns):
        raise TypeError(f"reference_columns must be a column name or a list of them, got {reference_columns!r}.")
    return prediction_column, columns


def _check_metric_options(metric: str, options: Mapping[str, Any]) -> None:
    """Refuse what cannot run per batch, and a credential in the options (they travel to the actors)."""
    spec = get_spec(metric)
    check_shipped_options(metric, options, takes_key=KEY_OPTION in spec.option_names(), carrier=_CARRIER,
                          reader=_READER)
    if not spec.per_example and not spec.per_example_lists:
        raise ValueError(f"{metric} has no per-example score (it is a corpus statistic): collect the columns and call "
                         f"nlgmetrics.registry.get_metric({metric!r}) once.")
    for option, why in spec.refused_per_example.items():
        if options.get(option):
            raise ValueError(f"{metric}: {option}={options[option]!r} is not supported per batch ({why}); "
                             "compute it in one process on the collected columns.")


def _column(batch: Any, name: str) -> list:
    try:
        return list(batch[name])
    except KeyError:
        raise ValueError(f"the batch has no column {name!r} (columns: {', '.join(map(str, batch.keys()))}); "
                         "set prediction_column / reference_columns / source_column.") from None


def batch_sources(batch: Any, source_column: str | None) -> list[str] | None:
    """The source texts of a batch (None without a source column), validated."""
    return None if source_column is None else check_predictions(_column(batch, source_column), "sources")


def batch_texts(
    batch: Any, prediction_column: str = "prediction", reference_columns: str | Sequence[str] = "reference"
) -> tuple[list[str], list[list[str]] | None]:
    """(predictions, references) of a batch (dict of columns or pandas DataFrame), validated. A reference cell holds
    one string, a list of them, or None (no reference in that column for that row). No reference columns:
    references None (reference-free metrics)."""
    prediction_column, reference_columns = _check_columns(prediction_column, reference_columns)
    column = lambda name: _column(batch, name)  # noqa: E731
    predictions = column(prediction_column)
    if not reference_columns:
        return check_predictions(predictions), None
    references: list[list[str]] = [[] for _ in predictions]
    for name in reference_columns:
        for group, cell in zip(references, column(name)):
            if isinstance(cell, str):
                group.append(cell)
            elif cell is not None:
                group.extend(cell)
    return check_pairs(predictions, references)


# -- the actors -----------------------------------------------------------------------------------------------------
class MetricScorer:
    """A ``Dataset.map_batches`` callable class: scores each batch and adds the per-example score columns.

    ``ds.map_batches(MetricScorer, fn_constructor_kwargs={"metrics": ["bertscore"]},
    compute=ray.data.ActorPoolStrategy(size=4), num_gpus=1, batch_size=256, batch_format="numpy")``.

    Args:
        metrics: per-example metrics of :mod:`nlgmetrics.registry`: bertscore, moverscore, bleu, rouge, meteor,
            llm_judge (the actor builds the judge's model or client once; its unreadable answers are null cells).
        prediction_column: the column of predictions.
        reference_columns: one column or several (see :func:`batch_texts`; the count may vary per row); ``()`` for
            reference-free metrics.
        source_column: the column of source texts, for metrics that read sources (COMET).
        metric_options / shared_options: as :func:`nlgmetrics.integration.suite.compute_suite`. ``idf=True`` is
            refused for the embedding metrics (it is corpus-level): pass a :class:`CorpusIdf` from
            :func:`corpus_idf`, or ``idf=False``, or use :func:`score_dataset`. A credential (``api_key``, a
            ``base_url`` with userinfo or a query string) is refused: ``api_key_env: NAME`` reads ``$NAME`` here, in
            the actor (see the module's "Credentials").
        num_threads: torch and MoverScore's exact-solver threads in this actor; None keeps their defaults.
    The encoder runs on CUDA when the actor has a GPU (``num_gpus=1``), else on CPU, unless ``device`` is given.
    """

    def __init__(
        self,
        metrics: Sequence[str] | str = ("bertscore",),
        *,
        prediction_column: str = "prediction",
        reference_columns: str | Sequence[str] = "reference",
        source_column: str | None = None,
        metric_options: Mapping[str, Mapping[str, Any]] | None = None,
        shared_options: Mapping[str, Any] | None = None,
        num_threads: int | None = None,
    ) -> None:
        self.prediction_column, self.reference_columns = _check_columns(prediction_column, reference_columns)
        self.source_column = source_column
        self.metrics = check_metrics(metrics)
        self.options = metric_options_for(self.metrics, metric_options, shared_options)
        for name in self.metrics:
            _check_metric_options(name, self.options[name])
        for name in self.metrics:  # sources where needed, references where needed: refused now, not per batch
            spec = get_spec(name)
            spec.input_arguments("" if source_column and spec.sources != SOURCES_NONE else None,
                                 bool(self.reference_columns), self.options[name])
        for name in self.metrics:
            if needs_corpus_idf(name, self.options[name]):
                raise ValueError(
                    f"{name}: idf=True{' (its default)' if name == 'moverscore' else ''} is computed over the whole "
                    "corpus, which one batch is not. Use score_dataset(), which computes it in a first pass, or pass "
                    f"idf=corpus_idf(ds, {name!r}, ...) (a CorpusIdf), or idf=False."
                )
        if num_threads is not None:
            import torch

            torch.set_num_threads(int(num_threads))
            if "moverscore" in self.options:
                self.options["moverscore"].setdefault("num_threads", int(num_threads))
        self._scorers = {name: _make_scorer(name, self.options[name]) for name in self.metrics
                         if name in EMBEDDING_METRICS}
        # api_key_env: the key is read here, in the actor, from the worker's environment
        self.options = {name: key_from_environment(name, options, reader=_READER)
                        for name, options in self.options.items()}
        if "llm_judge" in self.options:  # the actor owns the judge: its local model or its client, built once
            from nlgmetrics.judge.core import with_backend

            self.options["llm_judge"] = with_backend(self.options["llm_judge"])

    def scores(
        self, predictions: list[str], references: list[list[str]] | None, sources: list[str] | None = None
    ) -> dict[str, np.ndarray]:
        """Column name -> per-example scores (float64), for every metric."""
        out: dict[str, np.ndarray] = {}
        for name in self.metrics:
            if name == "bertscore":
                values = self._scorers[name].score(predictions, references)
                result = {"precision": values[:, 0], "recall": values[:, 1], "f1": values[:, 2]}
            elif name == "moverscore":
                result = {"scores": self._scorers[name].score(predictions, references)[0]}
            else:
                spec = get_spec(name)
                options = self.options[name] | dict(spec.per_example_options)
                own_sources = sources if spec.sources != SOURCES_NONE else None
                result = score_metric(name, predictions, references, sources=own_sources, **options)
            for key, column in columns(name, result).items():
                values = result[key]  # None where a metric left an example unscored (llm_judge): a null cell
                unscored = isinstance(values, list) and any(value is None for value in values)
                out[column] = np.array(values, dtype=object) if unscored else np.asarray(values, dtype=np.float64)
        return out

    def __call__(self, batch: Any) -> Any:
        """The batch with the score columns added (a dict of numpy arrays or a pandas DataFrame, as given)."""
        predictions, references = batch_texts(batch, self.prediction_column, self.reference_columns)
        sources = batch_sources(batch, self.source_column)
        for column, values in self.scores(predictions, references, sources).items():
            batch[column] = values
        return batch


class _IdfCounter:
    """First-pass actor: each batch's document frequencies for the corpus-level idfs, as long-format rows
    (metric, side, token_id, df, tokenization); the row with token_id -1 carries the number of texts and the
    tokenization name, the others an empty name."""

    def __init__(self, options: Mapping[str, Mapping[str, Any]], prediction_column: str,
                 reference_columns: tuple[str, ...]) -> None:
        self.prediction_column, self.reference_columns = prediction_column, reference_columns
        # tokenizing only: the encoder stays on CPU, idf off
        self._scorers = {name: _make_scorer(name, dict(opts) | {"device": "cpu", "dtype": None, "idf": False})
                         for name, opts in options.items()}

    def __call__(self, batch: Any) -> dict[str, np.ndarray]:
        from nlgmetrics.semantic.idf import DocumentFrequencies

        predictions, references = batch_texts(batch, self.prediction_column, self.reference_columns)
        rows: dict[str, list] = {"metric": [], "side": [], "token_id": [], "df": [], "tokenization": []}
        for name, scorer in self._scorers.items():
            sides = {"references": [r for group in references for r in group]}
            if name == "moverscore":  # BERTScore's idf comes from the references only
                sides["predictions"] = predictions
            for side, texts in sides.items():
                counted = DocumentFrequencies.count(_idf_token_ids(name, scorer, texts))
                ids = np.flatnonzero(counted.df)
                rows["metric"] += [name] * (len(ids) + 1)
                rows["side"] += [side] * (len(ids) + 1)
                rows["token_id"] += [-1, *ids.tolist()]
                rows["df"] += [counted.n, *counted.df[ids].tolist()]
                rows["tokenization"] += [_tokenization(name, scorer)] + [""] * len(ids)
        return {key: np.array(values, dtype=np.int64 if key in ("token_id", "df") else object)
                for key, values in rows.items()}


# -- the driver side ------------------------------------------------------------------------------------------------
def _pool(concurrency: int | tuple[int, int] | None, per_actor: float, available: float) -> Any:
    """An actor pool: ``concurrency`` actors, or (min, max), or by default 1 up to what the cluster holds."""
    import ray.data

    if concurrency is None:
        top = max(1, int(available // per_actor)) if per_actor > 0 else 1
        return ray.data.ActorPoolStrategy(min_size=1, max_size=top)
    if (isinstance(concurrency, tuple) and len(concurrency) == 2
            and all(isinstance(c, int) and not isinstance(c, bool) for c in concurrency)
            and 1 <= concurrency[0] <= concurrency[1]):
        return ray.data.ActorPoolStrategy(min_size=concurrency[0], max_size=concurrency[1])
    if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
        raise ValueError(f"concurrency must be a positive int (actor pool size) or a (min, max) pair of them, got "
                         f"{concurrency!r}.")
    return ray.data.ActorPoolStrategy(size=concurrency)


def _check_dataset_columns(ds: ray.data.Dataset, prediction_column: str, reference_columns: Sequence[str]) -> None:
    """Fail before any actor starts when the dataset's schema is known and lacks a column."""
    known = ds.columns(fetch_if_missing=False)
    missing = [c for c in (prediction_column, *reference_columns) if known is not None and c not in known]
    if missing:
        raise ValueError(f"the dataset has no column {', '.join(map(repr, missing))} (columns: {', '.join(known)}); "
                         "set prediction_column / reference_columns.")


def corpus_idfs(
    ds: ray.data.Dataset,
    metrics: Sequence[str] | str,
    *,
    prediction_column: str = "prediction",
    reference_columns: str | Sequence[str] = "reference",
    source_column: str | None = None,
    metric_options: Mapping[str, Mapping[str, Any]] | None = None,
    shared_options: Mapping[str, Any] | None = None,
    concurrency: int | tuple[int, int] | None = None,
    num_cpus: float = 1,
    batch_size: int = 1024,
) -> dict[str, CorpusIdf]:
    """One pass over ``ds`` on CPU actors: ``{metric: CorpusIdf}`` for each embedding metric of ``metrics``
    (options as :func:`score_dataset`; only those that set the tokenization matter)."""
    import ray

    prediction_column, reference_columns = _check_columns(prediction_column, reference_columns)
    names = [name for name in check_metrics(metrics) if name in EMBEDDING_METRICS]
    if not names:
        raise ValueError(f"corpus idf is for the embedding metrics {EMBEDDING_METRICS}, got {metrics!r}.")
    given = {name: opts for name, opts in (metric_options or {}).items() if name in names}
    options = metric_options_for(names, given, shared_options)
    for name in names:
        _check_metric_options(name, options[name])
    _check_dataset_columns(ds, prediction_column, reference_columns)
    counted = ds.map_batches(
        _IdfCounter, fn_constructor_args=(options, prediction_column, reference_columns), batch_size=batch_size,
        batch_format="numpy", compute=_pool(concurrency, num_cpus, ray.cluster_resources().get("CPU", 1)),
        num_cpus=num_cpus, num_gpus=0,
    )
    n: dict[tuple[str, str], int] = defaultdict(int)
    df: dict[tuple[str, str], np.ndarray] = defaultdict(lambda: np.zeros(0, dtype=np.int64))
    tokenization: dict[str, set[str]] = defaultdict(set)
    for rows in counted.iter_batches(batch_format="numpy", batch_size=65536):
        for key in set(zip(rows["metric"], rows["side"])):
            mask = (rows["metric"] == key[0]) & (rows["side"] == key[1])
            ids, counts, count_row = rows["token_id"][mask], rows["df"][mask], rows["token_id"][mask] < 0
            n[key] += int(counts[count_row].sum())
            tokenization[key[0]].update(rows["tokenization"][mask][count_row])
            ids, counts = ids[~count_row], counts[~count_row]
            total = np.zeros(max(len(df[key]), int(ids.max(initial=-1)) + 1), dtype=np.int64)
            total[: len(df[key])] = df[key]
            np.add.at(total, ids, counts)
            df[key] = total
    from nlgmetrics.semantic.idf import DocumentFrequencies

    out = {}
    for name in names:
        if not n[(name, "references")]:
            raise ValueError("the dataset has no rows: nothing to count an idf over.")
        if len(tokenization[name]) != 1:
            raise ValueError(f"{name}: the actors tokenized differently ({sorted(tokenization[name])}); install the "
                             "same model and tokenizer versions on every node.")
        sides = {side: DocumentFrequencies(n[(name, side)], df[(name, side)]) for side in ("references", "predictions")}
        out[name] = CorpusIdf(name, tokenization[name].pop(), sides["references"],
                              sides["predictions"] if name == "moverscore" else None)
    return out


def corpus_idf(ds: ray.data.Dataset, metric: str = "moverscore", **options: Any) -> CorpusIdf:
    """The :class:`CorpusIdf` of one embedding metric over ``ds`` (options as :func:`corpus_idfs`); pass it as
    ``metric_options={metric: {"idf": result}}`` to score this corpus, now or later, without another pass."""
    return corpus_idfs(ds, [metric], **options)[metric]


def score_dataset(
    ds: ray.data.Dataset,
    metrics: Sequence[str] | str = ("bertscore",),
    *,
    prediction_column: str = "prediction",
    reference_columns: str | Sequence[str] = "reference",
    source_column: str | None = None,
    metric_options: Mapping[str, Mapping[str, Any]] | None = None,
    shared_options: Mapping[str, Any] | None = None,
    concurrency: int | tuple[int, int] | None = None,
    num_gpus: float | None = None,
    num_cpus: float = 1,
    batch_size: int = 256,
    num_threads: int | None = None,
) -> ray.data.Dataset:
    """``ds`` with per-example score columns (:func:`columns`), scored by a pool of :class:`MetricScorer` actors.

    Args:
        metrics, prediction_column, reference_columns, source_column, metric_options, shared_options: as
            :class:`MetricScorer`.
            Corpus-level idf (MoverScore's default, BERTScore's ``idf=True``) is counted in a first pass over ``ds``
            (:func:`corpus_idfs`, CPU actors) unless a :class:`CorpusIdf` is given.
        concurrency: actor pool size, or (min, max) to autoscale; default: from 1 up to one actor per GPU (GPU
            actors) or per ``num_cpus`` CPUs of the cluster.
        num_gpus: GPUs per actor; default 1 when the cluster has GPUs and an embedding metric is asked, else 0.
        num_cpus: CPUs per actor. batch_size: rows per call (the encoder batches within it).
        num_threads: torch and exact-solver threads per actor; default ``num_cpus`` (at least 1).
    Returns the lazy transformed Dataset (write it or iterate it); rows may come back in any order.
    """
    import ray

    prediction_column, reference_columns = _check_columns(prediction_column, reference_columns)
    names = check_metrics(metrics)
    options = metric_options_for(names, metric_options, shared_options)
    for name in names:  # a credential in the options: refused before any Ray call
        _check_metric_options(name, options[name])
        spec = get_spec(name)
        spec.input_arguments("" if source_column and spec.sources != SOURCES_NONE else None, bool(reference_columns),
                             options[name])
    _check_dataset_columns(ds, prediction_column, (*reference_columns, *([source_column] if source_column else [])))
    resources = ray.cluster_resources()
    if num_gpus is None:
        num_gpus = 1 if resources.get("GPU", 0) > 0 and any(m in MODEL_METRICS for m in names) else 0
    todo = [name for name in names if needs_corpus_idf(name, options[name])]
    if todo:
        found = corpus_idfs(ds, todo, prediction_column=prediction_column, reference_columns=reference_columns,
                            metric_options={name: options[name] for name in todo},
                            concurrency=None if num_gpus else concurrency, num_cpus=num_cpus, batch_size=batch_size)
        for name, idf in found.items():
            options[name]["idf"] = idf
    per_actor, available = (num_gpus, resources.get("GPU", 0)) if num_gpus else (num_cpus, resources.get("CPU", 1))
    return ds.map_batches(
        MetricScorer,
        fn_constructor_kwargs={
            "metrics": names, "prediction_column": prediction_column, "reference_columns": reference_columns,
            "source_column": source_column,
            "metric_options": options, "num_threads": max(1, int(num_cpus)) if num_threads is None else num_threads,
        },
        batch_size=batch_size, batch_format="numpy", compute=_pool(concurrency, per_actor, available),
        num_cpus=num_cpus, num_gpus=num_gpus,
    )
