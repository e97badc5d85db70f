"""Every metric's entry point, by name: one place the CLI, the demo, the suite module and the adapters look up.

Each entry point is ``compute_<name>(predictions, references, **options) -> dict`` with JSON-friendly values
(floats, ints, strings, lists of them). Entries import lazily, so the lexical metrics never load torch.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import Callable

METRICS: dict[str, str] = {
    "bleu": "nlgmetrics.lexical.bleu:compute_bleu",
    "nist": "nlgmetrics.lexical.nist:compute_nist",
    "rouge": "nlgmetrics.lexical.rouge:compute_rouge",
    "meteor": "nlgmetrics.lexical.meteor:compute_meteor",
    "ter": "nlgmetrics.lexical.ter:compute_ter",
    "bertscore": "nlgmetrics.semantic.bertscore:compute_bertscore",
    "moverscore": "nlgmetrics.semantic.moverscore:compute_moverscore",
}


def get_metric(name: str) -> Callable[..., dict]:
    """The compute function of metric ``name``."""
    if name not in METRICS:
        raise ValueError(f"unknown metric {name!r}; choose one of {', '.join(available_metrics())}.")
    module_name, function_name = METRICS[name].split(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name == module_name:
            raise ValueError(f"metric {name!r} is not available in this version of nlgmetrics.") from None
        raise
    return getattr(module, function_name)


def available_metrics() -> list[str]:
    """Names of the metrics implemented in this installation, in ``METRICS`` order."""
    return [name for name, target in METRICS.items() if importlib.util.find_spec(target.split(":")[0]) is not None]
