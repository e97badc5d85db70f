"""What every command shares: reading the text files, checking inputs against a metric's spec, figure paths,
progress and the small argument types."""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from nlgmetrics.cli._boundary import CLIError
from nlgmetrics.registry import EMBEDDING, SOURCES_NONE, get_spec, metric_name, metrics_of_kind

EMBEDDING_METRICS = metrics_of_kind(EMBEDDING)
PROGRESS_MIN_LINES = 2000
STDIN = "-"
_INT = re.compile(r"^[+-]?\d+$")


# -- input files --------------------------------------------------------------------------------------------------
def read_text_file(path: str) -> list[str]:
    """Lines of a UTF-8 file (``-``: standard input) without line endings or a leading byte-order mark."""
    if path == STDIN:
        data = sys.stdin.buffer.read()
    else:
        file = Path(path)
        if file.is_dir():
            raise CLIError(f"{path} is a directory; pass a file with one text per line")
        if not file.is_file():
            raise CLIError(f"{path}: no such file")
        try:
            data = file.read_bytes()
        except OSError as exc:
            raise CLIError(f"{path} cannot be read ({exc.strerror or exc}); check its permissions") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        name = "standard input" if path == STDIN else path
        raise CLIError(f"{name}: line {line} is not valid UTF-8 (byte {exc.start}); re-encode it as UTF-8") from None
    lines = text.removeprefix("\ufeff").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line.removesuffix("\r") for line in lines]


def load_pairs(
    predictions_path: str, reference_paths: Sequence[str], sources_path: str | None = None
) -> tuple[list[str], list[list[str]] | None, list[str] | None]:
    """Predictions, references (one list per prediction; None without reference files) and sources (None without
    a sources file), every file checked to have one line per prediction."""
    if [predictions_path, *reference_paths, sources_path].count(STDIN) > 1:
        raise CLIError("only one of --predictions and --references can be '-' (standard input); --sources counts too")
    predictions = read_text_file(predictions_path)
    reference_files = [read_text_file(path) for path in reference_paths]
    sources = read_text_file(sources_path) if sources_path is not None else None
    for flag, path, lines in [*(("references", p, l) for p, l in zip(reference_paths, reference_files)),
                              *((("sources", sources_path, sources),) if sources is not None else ())]:
        if len(lines) != len(predictions):
            raise CLIError(
                f"{path} has {len(lines)} lines but {predictions_path} has {len(predictions)}: "
                f"every {flag} file needs one line per prediction"
            )
    references = [list(refs) for refs in zip(*reference_files)] if reference_files else None
    return predictions, references, sources


def check_inputs(metric: str | Sequence[str], references: Any, sources: Any) -> None:
    """The metrics' specs accept these inputs (references unless optional; sources where read: with several metrics
    they go to those that read them, and at least one must); a CLIError with the flag to add or drop otherwise."""
    metrics = [metric] if isinstance(metric, str) else list(metric)
    readers = [name for name in metrics if get_spec(name).sources != SOURCES_NONE]
    try:
        for name in metrics:
            given = sources if (name in readers or not readers) else None
            get_spec(name).input_arguments(given, references is not None)
    except ValueError as exc:
        raise CLIError(str(exc)) from None



def resolve_metric(name: str) -> str:
    """The registry name of ``-m NAME`` (any case, an alias such as bert_score or rougeL: the registry's
    :func:`~nlgmetrics.registry.metric_name`); a one-line CLIError with the closest name otherwise."""
    try:
        return metric_name(name)
    except ValueError as exc:
        raise CLIError(str(exc)) from None


def resolve_metrics(names: list[str]) -> list[str]:
    """``-m NAME[:KEY] ...`` with each NAME resolved (:func:`resolve_metric`), duplicates dropped."""
    resolved = []
    for name in names:
        base, colon, key = name.partition(":")
        resolved.append(resolve_metric(base) + colon + key)
    return list(dict.fromkeys(resolved))


def show_progress(mode: str, n_lines: int) -> bool:
    if mode == "auto":
        return n_lines >= PROGRESS_MIN_LINES and sys.stderr.isatty()
    return mode == "on"



def _seed(text: str) -> int:
    if not _INT.match(text.strip()) or int(text) < 0:
        raise CLIError(f"--seed takes a whole number of at least 0 or 'none', got {text!r}")
    return int(text)


def _positive_int(text: str) -> int:
    if not _INT.match(text.strip()) or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text!r}")
    return int(text)

