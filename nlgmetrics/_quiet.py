"""What users see of third-party libraries and of nlgmetrics' own warnings.

transformers draws a "Loading weights" bar and logs load reports when a model loads; datasets, evaluate and
huggingface_hub have bars and info logs of their own. The embedding engine wraps model loading in
:func:`model_loading`, which silences it on every path (evaluate modules, compare, Trainer, lm-eval, Ray, the CLI)
unless inside ``quiet_third_party(enabled=False)`` (the CLI's ``--progress on``). Programs built on nlgmetrics (the
CLI, the demo) wrap their work in :func:`quiet_third_party` to silence the other libraries' bars and logs too (they
are imported lazily, often after the block began, and transformers resets its log level when first imported).
nlgmetrics' own progress bar (``verbose=True``) is plain tqdm and is not affected. Everything is restored when a block
ends. :func:`warn` attributes nlgmetrics' warnings to the user's line, whatever path led to them.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import os
import sys
import warnings
from collections.abc import Iterator

LIBRARIES = ("transformers", "datasets", "evaluate", "huggingface_hub")
_active = 0  # depth of quiet_third_party() blocks
_shown = 0  # depth of quiet_third_party(enabled=False) blocks: model loading shows the libraries' output
_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


@contextlib.contextmanager
def quiet_third_party(enabled: bool = True) -> Iterator[None]:
    """Within the block, no progress bars or log lines below ERROR from transformers, datasets, evaluate and
    huggingface_hub (those imported now, and models loaded by nlgmetrics' encoder later). ``enabled=False``: their
    output is shown, model loading's included."""
    global _active, _shown
    if not enabled:
        _shown += 1
        try:
            yield
        finally:
            _shown -= 1
        return
    _active += 1
    try:
        with _silenced():
            yield
    finally:
        _active -= 1


@contextlib.contextmanager
def model_loading() -> Iterator[None]:
    """Wrap third-party model and tokenizer loading: silenced, except inside ``quiet_third_party(enabled=False)``."""
    if _shown:
        yield
        return
    with _silenced():
        yield


def _internal(filename: str) -> bool:
    """A frame of nlgmetrics, of evaluate, or of an evaluate module script (copied into evaluate's modules cache)."""
    if filename.startswith(_PACKAGE) or f"{os.sep}evaluate_modules{os.sep}" in filename:
        return True
    evaluate = sys.modules.get("evaluate")
    root = os.path.dirname(getattr(evaluate, "__file__", None) or "") if evaluate else ""
    return bool(root) and filename.startswith(root + os.sep)


def warn(message: str, category: type[Warning] = UserWarning) -> None:
    """``warnings.warn`` attributed to the first frame outside nlgmetrics and evaluate: the user's line, whether it
    called the core, an evaluate module, the suite or compare."""
    frame, level = sys._getframe(1), 2
    while frame.f_back is not None and _internal(frame.f_code.co_filename):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)


@contextlib.contextmanager
def _silenced() -> Iterator[None]:
    """Progress bars off and log levels at ERROR for the libraries imported now; each restored on exit."""
    with contextlib.ExitStack() as stack:
        for name in LIBRARIES:
            if name in sys.modules:
                logger = logging.getLogger(name)
                stack.callback(logger.setLevel, logger.level)
                logger.setLevel(logging.ERROR)
        if "huggingface_hub" in sys.modules:
            from huggingface_hub import utils as hub_utils

            # registered first, so it runs last: transformers' restore below re-enables hub bars globally
            was_disabled = hub_utils.are_progress_bars_disabled()
            stack.callback(hub_utils.disable_progress_bars if was_disabled else hub_utils.enable_progress_bars)
            hub_utils.disable_progress_bars()
        for name, module in (("transformers", "transformers.utils.logging"), ("evaluate", "evaluate.utils.logging")):
            if name in sys.modules:
                bars = importlib.import_module(module)
                if bars.is_progress_bar_enabled():
                    stack.callback(bars.enable_progress_bar)
                    bars.disable_progress_bar()
        if "datasets" in sys.modules:
            from datasets import utils as datasets_utils

            if not datasets_utils.are_progress_bars_disabled():
                stack.callback(datasets_utils.enable_progress_bars)
                datasets_utils.disable_progress_bars()
        yield
