"""MBR selection on Ray Data (``pip install "nlgmetrics[ray]"``): one row per source, its candidates a list in one
column, selected by a pool of actors as :func:`nlgmetrics.mbr.mbr` selects them in one process.

    import ray
    from nlgmetrics.integration.ray_mbr import select_dataset

    ds = ray.data.read_parquet("s3://bucket/samples/")               # columns: id, source, candidates (a list)
    selected = select_dataset(ds, "comet", source_column="source", metric_options={"model": "/models/comet"})
    selected.write_parquet("s3://bucket/selected/")                  # + mbr_index, mbr_text, mbr_expected_utility,
                                                                     #   mbr_signature

Glue only, beside :mod:`nlgmetrics.integration.ray_data` (whose actor pools, column checks and credential rule it
uses): :class:`MBRSelector` runs :func:`~nlgmetrics.mbr.mbr` on each batch of rows (a source's candidates are never
split across calls), each actor loading the utility's model once; the selection, expected utility and signature of
each row are the single-process ones. A credential in the options is refused (they travel to the actors), as in
:func:`~nlgmetrics.integration.ray_data.score_dataset`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from nlgmetrics._secrets import KEY_ENV_OPTION, KEY_OPTION, check_shipped_options, key_from_environment
from nlgmetrics.errors import OptionError
from nlgmetrics.integration.ray_data import (
    _CARRIER,
    _READER,
    MODEL_METRICS,
    _check_dataset_columns,
    _column,
    _pool,
)
from nlgmetrics.mbr import CONVENTIONS, METHODS, mbr
from nlgmetrics.registry import get_spec, per_example_key

if TYPE_CHECKING:  # ray is an optional extra
    import ray.data

MBR_COLUMNS = ("mbr_index", "mbr_text", "mbr_expected_utility", "mbr_signature")



def _check_shipped(metric: str, metric_options: Mapping[str, Any] | None, mbr_options: Mapping[str, Any]) -> None:
    """The utility's and the QE metric's options travel to the actors: a credential among them is refused (the one
    rule of :func:`nlgmetrics._secrets.check_shipped_options`), as are an unknown method or convention."""
    for metric_name, options in ((metric, metric_options), (mbr_options.get("qe_metric"), mbr_options.get("qe_options"))):
        if metric_name is None:
            continue
        name, options = per_example_key(metric_name)[0], dict(options or {})
        check_shipped_options(name, options, takes_key=KEY_OPTION in get_spec(name).option_names(), carrier=_CARRIER,
                              reader=_READER)
        get_spec(name).canonical_options({k: v for k, v in options.items() if k != KEY_ENV_OPTION})
    if mbr_options.get("method", "exact") not in METHODS or mbr_options.get("convention", "comet-mbr") not in CONVENTIONS:
        raise OptionError(f"method must be one of {', '.join(METHODS)} and convention one of {', '.join(CONVENTIONS)}.")

class MBRSelector:
    """A ``Dataset.map_batches`` callable class: :func:`nlgmetrics.mbr.mbr` on each batch of rows, one source per row
    (its candidates in ``candidates_column``, optionally its source text and its pseudo-references), adding
    :data:`MBR_COLUMNS`. ``options``: the utility metric's options; ``mbr_options``: :func:`~nlgmetrics.mbr.mbr`'s own
    (method, convention, top_k, qe_metric, qe_options, n_centroids, ...)."""

    def __init__(self, metric: str = "chrf", *, candidates_column: str = "candidates", source_column: str | None = None,
                 samples_column: str | None = None, options: Mapping[str, Any] | None = None,
                 mbr_options: Mapping[str, Any] | None = None, num_threads: int | None = None) -> None:
        self.metric, self.columns = metric, (candidates_column, source_column, samples_column)
        self.options, self.mbr_options = dict(options or {}), dict(mbr_options or {})
        _check_shipped(metric, self.options, self.mbr_options)
        # api_key_env: the key is read here, in the actor, from the worker's environment
        self.options = key_from_environment(metric, self.options, reader=_READER)
        if self.mbr_options.get("qe_options"):
            self.mbr_options["qe_options"] = key_from_environment(self.mbr_options["qe_metric"],
                                                                  self.mbr_options["qe_options"], reader=_READER)
        if num_threads is not None:
            import torch

            torch.set_num_threads(int(num_threads))

    def __call__(self, batch: Any) -> Any:
        candidates_column, source_column, samples_column = self.columns
        lists = lambda name: [list(cell) for cell in _column(batch, name)]  # noqa: E731
        result = mbr(lists(candidates_column), self.metric,
                     sources=None if source_column is None else _column(batch, source_column),
                     samples=None if samples_column is None else lists(samples_column),
                     **self.mbr_options, **self.options)
        expected = result["expected_utility"]
        batch["mbr_index"] = np.asarray(result["index"], dtype=np.int64)
        batch["mbr_text"] = np.array(result["text"], dtype=object)
        batch["mbr_expected_utility"] = (np.array(expected, dtype=object) if None in expected
                                         else np.asarray(expected, dtype=np.float64))
        batch["mbr_signature"] = np.array([result["signature"]] * len(expected), dtype=object)
        return batch


def select_dataset(
    ds: ray.data.Dataset,
    metric: str = "chrf",
    *,
    candidates_column: str = "candidates",
    source_column: str | None = None,
    samples_column: str | None = None,
    metric_options: Mapping[str, Any] | None = None,
    concurrency: int | tuple[int, int] | None = None,
    num_gpus: float | None = None,
    num_cpus: float = 1,
    batch_size: int = 16,
    num_threads: int | None = None,
    **mbr_options: Any,
) -> ray.data.Dataset:
    """``ds`` (one row per source) with its MBR selection (:data:`MBR_COLUMNS`), by a pool of :class:`MBRSelector`
    actors: each loads the utility's model once and selects ``batch_size`` sources per call, as
    :func:`nlgmetrics.mbr.mbr` selects them in one process. ``metric_options``: the utility metric's options (a
    credential is refused: they travel to the actors); ``mbr_options``: method, convention, top_k, qe_metric, ...
    GPU actors (one GPU each) when the cluster has GPUs and the utility or QE metric runs a model."""
    import ray

    _check_shipped(metric, metric_options, mbr_options)
    name, qe, options = per_example_key(metric)[0], mbr_options.get("qe_metric"), dict(metric_options or {})
    _check_dataset_columns(ds, candidates_column, [c for c in (source_column, samples_column) if c])
    resources = ray.cluster_resources()
    if num_gpus is None:
        models = name in MODEL_METRICS or (qe is not None and per_example_key(qe)[0] in MODEL_METRICS)
        num_gpus = 1 if resources.get("GPU", 0) > 0 and models else 0
    per_actor, available = (num_gpus, resources.get("GPU", 0)) if num_gpus else (num_cpus, resources.get("CPU", 1))
    return ds.map_batches(
        MBRSelector,
        fn_constructor_kwargs={"metric": metric, "candidates_column": candidates_column, "source_column": source_column,
                               "samples_column": samples_column, "options": options, "mbr_options": mbr_options,
                               "num_threads": max(1, int(num_cpus)) if num_threads is None else num_threads},
        batch_size=batch_size, batch_format="numpy", compute=_pool(concurrency, per_actor, available),
        num_cpus=num_cpus, num_gpus=num_gpus,
    )
