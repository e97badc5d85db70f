"""What Python users see (issue #29, item 21): no transformers "Loading weights" bar on any Python path, and
nlgmetrics' warnings point at the user's line, not at a library line."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings

import evaluate
import pytest
from conftest import REPO

from nlgmetrics.registry import get_metric
from nlgmetrics.resources import bundled_encoder_path

needs_encoder = pytest.mark.skipif(bundled_encoder_path() is None, reason="bundled MiniLM encoder not installed")


@needs_encoder
def test_no_loading_weights_bar_from_python():
    script = (
        "import evaluate\n"
        "from nlgmetrics.resources import bundled_encoder_path\n"
        "from nlgmetrics.registry import get_metric\n"
        "m = 'sentence-transformers/all-MiniLM-L6-v2'\n"
        "evaluate.load('./metrics/bertscore').compute(predictions=['a cat'], references=['a dog'], model_type=m)\n"
        "get_metric('moverscore')(['a cat'], ['a dog'], model_type=m)\n"
        "print('scored')\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0 and done.stdout.strip() == "scored", done.stderr[-2000:]
    assert "Loading weights" not in done.stderr and "it/s]" not in done.stderr


def _warned_where(call) -> list[tuple[str, str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    return [(w.filename, str(w.message)[:10]) for w in caught]


def test_rouge_warning_points_at_the_callers_line():
    for call in (lambda: evaluate.load("./metrics/rouge").compute(predictions=["Grüße"], references=["Grüße aus"]),
                 lambda: get_metric("rouge")(["Grüße"], ["Grüße aus"])):
        assert _warned_where(call) == [(__file__, "ROUGE: 2 o")]


@needs_encoder
def test_moverscore_warning_points_at_the_callers_line():
    module = evaluate.load("./metrics/moverscore")
    where = _warned_where(lambda: module.compute(predictions=[". ,", "a cat"], references=["a dog", "a cat"],
                                                 model_type=bundled_encoder_path()))
    assert where == [(__file__, "MoverScore")]
