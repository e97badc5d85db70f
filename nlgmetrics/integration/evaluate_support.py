"""What every ``metrics/<name>/<name>.py`` evaluate module shares: the input schema, input validation, option
checking, the call into the core, and a direct, thread-safe ``compute``.

Modules subclass :class:`NLGMetric` through this module (``evaluate_support.NLGMetric``, not a ``from`` import:
evaluate takes the first ``EvaluationModule`` subclass in the script's namespace as the metric class).
"""

from __future__ import annotations

import contextlib
import hashlib
import functools
import inspect
import os
import re
import threading
from collections.abc import Collection
from typing import Any

import datasets
import evaluate
from evaluate.module import temp_seed  # the context manager evaluate seeds numpy with

from nlgmetrics.inputs import check_pairs, check_predictions, replace_lone_surrogates_in_pairs
from nlgmetrics.registry import unknown_option_message

# numpy's global RNG is one per process: evaluate seeds it (``temp_seed(self.seed)``) around every ``_compute``, so
# two seeded computes running at once, on any module objects, would interleave their draws. One re-entrant lock
# makes each seeded ``_compute`` run alone (nlg_suite or a user's ``_compute`` may call another module inside).
_SEEDED_COMPUTE = threading.RLock()


def text_pair_features() -> list[datasets.Features]:
    """Predictions are strings; references are a list of strings per prediction (any count) or one string."""
    return [
        datasets.Features(
            {
                "predictions": datasets.Value("string", id="sequence"),
                "references": datasets.Sequence(datasets.Value("string", id="sequence"), id="references"),
            }
        ),
        datasets.Features(
            {
                "predictions": datasets.Value("string", id="sequence"),
                "references": datasets.Value("string", id="sequence"),
            }
        ),
    ]


# Keys of a bootstrap interval (``score_mean``, ``nist_ci``, ``rouge1_low``, ``rouge1_mid`` ...), asked by n_bootstrap.
_INTERVAL_SUFFIXES = ("_mean", "_ci", "_low", "_mid", "_high")


def compute_metric(
    name: str,
    predictions: Any,
    references: Any,
    *,
    hf_keys: Collection[str] | None = None,
    return_signature: bool = False,
    return_details: bool = False,
    **options: Any,
) -> dict:
    """Run the core metric ``name`` (see :mod:`nlgmetrics.registry`) on what evaluate gathered.

    ``hf_keys``: the module is named like one of HF evaluate's, whose result has exactly these keys. The result then
    keeps HF's keys plus what the caller asked for: ``signature`` (``return_signature=True``), per-example ``scores``
    (``sentence_scores=True``), the interval keys (``n_bootstrap``), or every key the core computes
    (``return_details=True``: e.g. sacrebleu's numbers beside ``bleu``, ROUGE's precision and recall). So HF users'
    post-processing (``{k: round(v * 100, 4) for k, v in result.items()}``) keeps working on our modules.
    """
    from nlgmetrics.registry import get_metric

    for option, value in (("return_signature", return_signature), ("return_details", return_details)):
        if not isinstance(value, bool):
            raise TypeError(f"{name}: {option} must be True or False, got {value!r:.40}.")
    result = get_metric(name)(predictions, references, **options)
    if hf_keys is None or return_details:
        return result
    asked = set(hf_keys)
    if return_signature:
        asked.add("signature")
    if options.get("sentence_scores"):
        asked.add("scores")
    interval = bool(options.get("n_bootstrap"))
    return {key: value for key, value in result.items()
            if key in asked or (interval and key.endswith(_INTERVAL_SUFFIXES))}


@functools.cache
def compute_options(module_class: type) -> tuple[str, ...]:
    """The keyword options ``module_class._compute`` accepts (not the inputs): every module spells them out, as HF's
    module test requires."""
    parameters = list(inspect.signature(module_class._compute).parameters.values())[1:]  # drop self
    return tuple(p.name for p in parameters if p.name not in ("predictions", "references"))


def cache_folder_name(config_name: str) -> str:
    """``config_name`` as one folder name inside evaluate's cache: unchanged when it is one already (HF's layout),
    else its last part made safe plus a digest of the whole (a path such as ``/models/comet`` or ``../x``)."""
    name = str(config_name)
    if name not in ("", ".", "..") and not any(sep in name for sep in ("/", "\\", os.sep)) and ":" not in name:
        return name
    last = re.sub(r"[^\w.-]+", "_", re.split(r"[/\\:]", name.rstrip("/\\"))[-1]).strip("._") or "config"
    return f"{last}-{hashlib.sha256(name.encode('utf-8', 'surrogatepass')).hexdigest()[:12]}"


class NLGMetric(evaluate.Metric):
    """Base of the nlgmetrics evaluate modules.

    Inputs are checked with nlgmetrics' rules (:mod:`nlgmetrics.inputs`) before evaluate stores them, so bad input
    gets the same named ``TypeError``/``ValueError`` as the core (not an error from inside evaluate or pyarrow), and
    references are always stored as a list per prediction, so string and list references can be mixed and evaluate's
    feature-format choice never depends on the first batch. An unknown keyword option is a ``ValueError`` naming the
    module, the accepted options and the closest one. ``metric_name`` is the registry name.

    ``compute(predictions=..., references=...)`` on a single-process module (``num_process == 1``) with nothing
    added before calls ``_compute`` directly on the checked inputs, as evaluate would after its Arrow round trip
    (write a cache file, read it back) but without it: same inputs, same numpy seeding (``temp_seed(self.seed)``,
    restored afterwards), same result. Everything else (``add``/``add_batch``, then ``compute``; ``num_process > 1``)
    goes through evaluate unchanged.

    Threads: one module object may be used from several threads. ``add``, ``add_batch`` and the Arrow-backed
    ``compute`` hold a lock per module object (added examples go to one shared stream, as in a single thread), and
    every ``_compute`` runs under one process-wide lock, because evaluate seeds numpy's global RNG around it: calls
    from several threads are correct, and run one at a time.
    """

    metric_name: str = ""
    #: reference-free scoring: ``compute(predictions=...)`` without references goes straight to ``_compute`` with
    #: ``references=None`` (``add``/``add_batch`` still store both columns).
    references_optional: bool = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._module_lock = threading.RLock()

    def _build_data_dir(self) -> str:
        """evaluate's cache folder ``cache_dir/name/config_name``, with ``config_name`` made a plain folder name
        (:func:`cache_folder_name`): a checkpoint path given as config name (``evaluate.load("comet", "/ckpt")``)
        would otherwise make ``os.path.join`` put the Arrow file and its lock into the user's checkpoint folder."""
        folder = os.path.join(self._data_dir_root, self.name, cache_folder_name(self.config_name))
        os.makedirs(folder, exist_ok=True)
        return folder

    def __getstate__(self) -> dict:  # a lock cannot be pickled (datasets/multiprocess pickle modules)
        state = self.__dict__.copy()
        state.pop("_module_lock", None)
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._module_lock = threading.RLock()

    def add_batch(self, *, predictions=None, references=None, **kwargs):
        """Add a batch of predictions and references (checked by nlgmetrics.inputs). Lone surrogates, which evaluate's
        Arrow cache cannot store, become U+FFFD with a warning (``compute(predictions=...)`` keeps them)."""
        predictions, references = check_pairs(predictions, references, allow_empty=True)
        if not predictions:  # nothing to add (evaluate infers its feature format from a batch's first example)
            return None
        predictions, references = replace_lone_surrogates_in_pairs(predictions, references, self.name)
        with self._module_lock:
            return super().add_batch(predictions=predictions, references=references, **kwargs)

    def add(self, *, prediction=None, reference=None, **kwargs):
        """Add one prediction and its reference(s) (checked by nlgmetrics.inputs; lone surrogates as add_batch)."""
        (prediction,), (reference,) = replace_lone_surrogates_in_pairs(*check_pairs([prediction], [reference]),
                                                                        self.name)
        with self._module_lock:
            return super().add(prediction=prediction, reference=reference, **kwargs)

    def compute(self, *, predictions=None, references=None, **kwargs):
        """Compute the metric on what was added and/or the given predictions and references (a
        :class:`~nlgmetrics.errors.MissingExtraError` first when the metric's extra is not installed)."""
        from nlgmetrics.registry import SPECS, missing_extra

        missing = missing_extra(self.metric_name) if self.metric_name in SPECS else None
        if missing is not None:
            raise missing
        self._check_options(kwargs)
        if self.references_optional and predictions is not None and references is None and self.writer is None:
            predictions = check_predictions(predictions)
            with _SEEDED_COMPUTE, temp_seed(self.seed):
                return self._compute(predictions=predictions, references=None, **kwargs)
        given = predictions is not None or references is not None
        if given:
            predictions, references = check_pairs(predictions, references)
        with self._module_lock:
            direct = given and self.num_process == 1 and self.writer is None
            if not direct:  # evaluate's own path: gather what was added (from every process), then compute
                # only process 0 computes; the others must not wait on a lock while process 0 waits for their files
                with _SEEDED_COMPUTE if self.process_id == 0 else contextlib.nullcontext():
                    return super().compute(predictions=predictions, references=references, **kwargs)
        with _SEEDED_COMPUTE, temp_seed(self.seed):
            return self._compute(predictions=predictions, references=references, **kwargs)

    def _check_options(self, options: dict) -> None:
        accepted = compute_options(type(self))
        unknown = [name for name in options if name not in accepted]
        if not unknown:
            return
        raise ValueError(unknown_option_message(self.metric_name or self.name, unknown, accepted))
