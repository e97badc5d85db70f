"""Third-party progress bars and load messages off in the CLI and the demo (``--progress on`` keeps them).

transformers draws a "Loading weights" bar and logs load reports when a model loads; datasets, evaluate and
huggingface_hub have bars and info logs of their own. Programs built on nlgmetrics wrap their work in
:func:`quiet_third_party`; the embedding engine wraps model loading in :func:`model_loading`, which silences the loading
only inside such a block (the libraries are imported lazily, often after the block began, and transformers resets its
log level when first imported). Library callers outside a block see the libraries' own defaults. nlgmetrics' own
progress bar (``verbose=True``) is plain tqdm and is not affected. Everything is restored when the block ends.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import sys
from collections.abc import Iterator

LIBRARIES = ("transformers", "datasets", "evaluate", "huggingface_hub")
_active = 0  # depth of quiet_third_party() blocks


@contextlib.contextmanager
def quiet_third_party(enabled: bool = True) -> Iterator[None]:
    """Within the block, no progress bars or log lines below ERROR from transformers, datasets, evaluate and
    huggingface_hub (those imported now, and models loaded by nlgmetrics' encoder later). ``enabled=False``: no-op."""
    global _active
    if not enabled:
        yield
        return
    _active += 1
    try:
        with _silenced():
            yield
    finally:
        _active -= 1


@contextlib.contextmanager
def model_loading() -> Iterator[None]:
    """Wrap third-party model and tokenizer loading: silenced inside :func:`quiet_third_party`, untouched outside."""
    if not _active:
        yield
        return
    with _silenced():
        yield


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
