"""The ``nlgmetrics`` command line.

    nlgmetrics score --metric bleu --predictions hyp.txt --references ref.txt [--references ref2.txt ...]
                     [--sources src.txt] [--format table|json|csv] [-o key=value ...] [--device cuda] [--batch-size 64]
                     [--progress auto|on|off] [--plot-alignment PNG [--plot-index I]]
    nlgmetrics compare -r ref.txt [-r ref2.txt] [-s src.txt] --baseline base.txt sys1.txt ... [-m bleu rouge ...]
                       [--paired-bs | --paired-ar] [--format table|markdown|json|csv] [--plot out.png]
    nlgmetrics list
    nlgmetrics baseline --model MODEL (--lang LANG | --out FILE) --corpus FILE [--overwrite]
    nlgmetrics hub build NAME --out DIR [--overwrite] [--wheel FILE | --requirement SPEC]
    nlgmetrics hub publish NAME --repo ORG/NAME [--tag vX.Y.Z] [--dry-run]

Files hold one text per line (UTF-8; a byte-order mark at the start is dropped); ``-`` reads standard input. The i-th
line of every ``--references`` file is a reference of the i-th prediction, the i-th line of ``--sources`` its source
(metrics that read sources only: their spec's ``sources``); ``--references`` may be left out for reference-free
metrics (``references_optional``).

``-o key=value`` passes a metric option, read by the type the metric's compute function declares for it
(:func:`coerce_option`): booleans as true/false, yes/no or 1/0 (any case), integers and numbers checked, ``none``
or ``null`` where the option may be None, lists and objects as JSON (``-o rouge_types='["rouge1","rougeL"]'``), text
as given (``-o tokenize=zh``).

The embedding metrics show nlgmetrics' progress bar on long runs (``--progress auto``: at least
``PROGRESS_MIN_LINES`` predictions and a terminal on stderr). Third-party progress bars and load messages
(transformers' "Loading weights", datasets', evaluate's) are shown only with ``--progress on``.
``--plot-alignment PNG`` also writes the token alignment heatmap of pair ``--plot-index`` (its first reference):
MoverScore's transport flow or BERTScore's similarities.

Every error names the problem and the fix, exits with code 2 and prints no traceback.
"""

from __future__ import annotations

import argparse
import collections.abc
import csv
import io
import json
import math
import re
import sys
import types
import typing
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from nlgmetrics._quiet import quiet_third_party
from nlgmetrics.registry import (
    EMBEDDING,
    METRICS,
    available_metrics,
    get_spec,
    metrics_of_kind,
    unknown_option_message,
)
from nlgmetrics.registry import score as score_metric

EMBEDDING_METRICS = metrics_of_kind(EMBEDDING)
PROGRESS_MIN_LINES = 2000
STDIN = "-"


class CLIError(Exception):
    """A problem with the command line or its files; printed without a traceback, exit code 2."""


# Python keyword advice in the core's messages: model_type='X', device=None, lang='en', idf=True ...
_KEYWORD_ADVICE = re.compile(r"(?<![\w.-])([a-z][a-z0-9_]*)=(None|True|False|'[^']*'|-?\d[\d.]*)(?![\w'])")
_FLAGS = {"device": "--device", "batch_size": "--batch-size"}


def cli_advice(message: str, prefix: str = "", flags: dict[str, str] | None = None) -> str:
    """``message`` (a core error) with its Python advice in command-line form: ``device=None`` -> ``--device auto``,
    ``model_type='X'`` -> ``-o model_type=X`` (``-o PREFIXmodel_type=X``; ``flags``: option -> its own flag)."""
    flags = {**_FLAGS, **(flags or {})}

    def rewrite(match: re.Match) -> str:
        name, value = match.group(1), match.group(2).strip("'")
        if name in flags:
            return f"{flags[name]} {'auto' if value == 'None' and name == 'device' else value}"
        return f"-o {prefix}{name}={value.lower() if value in ('None', 'True', 'False') else value}"

    return _KEYWORD_ADVICE.sub(rewrite, message)


def core_error(exc: BaseException, prefix: str = "", flags: dict[str, str] | None = None) -> CLIError:
    """The one-line CLI error for an error the core raised, its advice in command-line form."""
    return CLIError(cli_advice(str(exc), prefix, flags))


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


def check_inputs(metric: str, references: Any, sources: Any) -> None:
    """The metric's spec accepts these inputs (sources where read, references unless optional); a CLIError with
    the flag to add or drop otherwise."""
    try:
        get_spec(metric).input_arguments(sources, references is not None)
    except ValueError as exc:
        raise CLIError(str(exc)) from None


# -- metric options -----------------------------------------------------------------------------------------------
_TRUE, _FALSE, _NONE = {"true", "yes", "1"}, {"false", "no", "0"}, {"none", "null"}
_INT = re.compile(r"^[+-]?\d+$")
_SEQUENCES = (list, tuple, set, frozenset, collections.abc.Sequence, collections.abc.Iterable,
              collections.abc.Collection, collections.abc.Set)
_MAPPINGS = (dict, collections.abc.Mapping)


class _Mismatch(ValueError):
    """``raw`` cannot be read as the declared type; the argument says what is expected."""


def option_types(metric: str) -> dict[str, Any]:
    """Each option of ``metric`` with its declared type (its spec's :meth:`~nlgmetrics.registry.MetricSpec.option_types`:
    the compute function's annotations, aliases included; key ``"**"`` when it takes ``**options``)."""
    return get_spec(metric).option_types()


def _describe(tp: Any) -> str:
    origin = typing.get_origin(tp) or tp
    if origin in (typing.Union, types.UnionType):
        return " or ".join(dict.fromkeys(_describe(arg) for arg in typing.get_args(tp)))
    if tp is type(None):
        return "none"
    if tp is bool:
        return "true or false (also yes/no, 1/0)"
    if tp is int:
        return "an integer"
    if tp is float:
        return "a number"
    if tp is str:
        return "text"
    if origin in _MAPPINGS:
        return "a JSON object such as '{\"a\": 1}'"
    if origin in _SEQUENCES:
        return "a JSON list such as '[\"a\", \"b\"]'"
    if origin is collections.abc.Callable:
        return "a Python function (not settable from the command line; use the Python API)"
    return "a JSON value or text"


def _json_or_text(raw: str) -> Any:
    try:
        return json.loads(raw)
    except json.JSONDecodeError:
        return raw


def _convert(tp: Any, raw: str) -> Any:
    """``raw`` read as type ``tp``; :class:`_Mismatch` when it is not one."""
    origin = typing.get_origin(tp) or tp
    word = raw.strip().lower()
    if tp is Any or tp is object:
        return _json_or_text(raw)
    if origin in (typing.Union, types.UnionType):
        args = typing.get_args(tp)
        if type(None) in args and word in _NONE:
            return None
        rank = {bool: 0, int: 1, float: 2, str: 9}  # specific readings first, text last
        for arg in sorted((a for a in args if a is not type(None)), key=lambda a: rank.get(a, 5)):
            try:
                return _convert(arg, raw)
            except _Mismatch:
                continue
        raise _Mismatch(_describe(tp))
    if tp is type(None):
        if word in _NONE:
            return None
    elif tp is bool:
        if word in _TRUE or word in _FALSE:
            return word in _TRUE
    elif tp is int:
        if _INT.match(raw.strip()):
            return int(raw)
    elif tp is float:
        try:
            return float(raw)
        except ValueError:
            pass
    elif tp is str:
        return raw
    elif origin in _MAPPINGS or origin in _SEQUENCES:
        try:
            value = json.loads(raw)
        except json.JSONDecodeError:
            value = None
        if origin in _MAPPINGS and isinstance(value, dict):
            return value
        if origin in _SEQUENCES and isinstance(value, list):
            return tuple(value) if origin is tuple else value
    elif origin is collections.abc.Callable:
        pass
    else:
        return _json_or_text(raw)
    raise _Mismatch(_describe(tp))


def coerce_option(metric: str, key: str, raw: str) -> Any:
    """The value of ``-o key=raw`` for ``metric``, read as the type the metric declares for ``key``.

    bool: true/false, yes/no, 1/0 (any case); int and float: checked; ``X | None``: also none/null; lists and
    mappings: JSON; str: as given; undeclared (``Any``): JSON when it parses, else text. :class:`CLIError` naming
    the option and the expected type otherwise, or the closest option name for an unknown one.
    """
    declared = option_types(metric)
    if key not in declared:
        if "**" in declared:
            return _json_or_text(raw)
        raise CLIError(f"-o {key}=...: {unknown_option_message(metric, [key], sorted(declared))}")
    try:
        return _convert(declared[key], raw)
    except _Mismatch as exc:
        raise CLIError(f"-o {key}={raw}: option {key!r} of {metric} takes {exc}, not {raw!r}") from None


def parse_option(item: str) -> tuple[str, str]:
    """``key=value`` split (dashes in the key become underscores); the value stays text."""
    key, sep, raw = item.partition("=")
    if not sep or not key:
        raise CLIError(f"-o {item!r}: write options as key=value, e.g. -o lowercase=true")
    return key.strip().replace("-", "_"), raw


# -- output -------------------------------------------------------------------------------------------------------
def _json_ready(value: Any, where: str, non_finite: list[str]) -> Any:
    """``value`` with numpy scalars/arrays as Python numbers and non-finite floats as None (their keys noted)."""
    if hasattr(value, "tolist") and not isinstance(value, (str, bytes)):
        value = value.tolist()
    if isinstance(value, float) and not math.isfinite(value):
        non_finite.append(where)
        return None
    if isinstance(value, dict):
        return {k: _json_ready(v, f"{where}.{k}" if where else str(k), non_finite) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_ready(v, f"{where}[{i}]", non_finite) for i, v in enumerate(value)]
    return value


def scalar_items(result: dict) -> list[tuple[str, Any]]:
    """The result's entries that fit a table cell: numbers and strings, short number lists joined."""
    items = []
    for key, value in result.items():
        if isinstance(value, (int, float, str)) and not isinstance(value, bool):
            items.append((key, value))
        elif isinstance(value, list) and 0 < len(value) <= 9 and all(isinstance(v, (int, float)) for v in value):
            items.append((key, "/".join(f"{v:.4f}" if isinstance(v, float) else str(v) for v in value)))
    return items


def format_result(metric: str, result: dict, fmt: str) -> str:
    if fmt == "json":
        non_finite: list[str] = []
        ready = _json_ready({"metric": metric, **result}, "", non_finite)
        if non_finite:
            shown = ", ".join(non_finite[:5]) + (f" and {len(non_finite) - 5} more" if len(non_finite) > 5 else "")
            print(f"nlgmetrics: warning: {shown} not a finite number; written as null (JSON has no NaN or "
                  "Infinity)", file=sys.stderr)
        return json.dumps(ready, indent=1, ensure_ascii=False, allow_nan=False)
    if fmt == "csv":
        rows = [["metric", "key", "value"]]
        for key, value in result.items():
            if isinstance(value, list):
                rows += [[metric, f"{key}[{i}]", v] for i, v in enumerate(value)]
            else:
                rows.append([metric, key, value])
        buffer = io.StringIO()
        csv.writer(buffer, lineterminator="\n").writerows(rows)
        return buffer.getvalue().rstrip("\n")
    items = scalar_items(result)
    width = max((len(key) for key, _ in items), default=0)
    lines = [f"{metric}"]
    for key, value in items:
        shown = f"{value:.4f}" if isinstance(value, float) else str(value)
        lines.append(f"  {key:<{width}}  {shown}")
    return "\n".join(lines)


# -- commands -----------------------------------------------------------------------------------------------------
def cmd_score(args: argparse.Namespace) -> int:
    try:
        declared = option_types(args.metric)
    except ValueError as exc:  # a metric this installation lacks
        raise CLIError(str(exc)) from None
    options = {}
    for item in args.option:
        key, raw = parse_option(item)
        options[key] = coerce_option(args.metric, key, raw)
    for flag, key, value in (("--device", "device", args.device), ("--batch-size", "batch_size", args.batch_size)):
        if value is not None:
            if key not in declared and "**" not in declared:
                raise CLIError(f"{flag} applies to the embedding metrics ({', '.join(EMBEDDING_METRICS)}), "
                               f"not {args.metric}; leave it out")
            options[key] = value
    if args.plot_alignment and args.metric not in EMBEDDING_METRICS:
        raise CLIError(f"--plot-alignment works with {' and '.join(EMBEDDING_METRICS)}, not {args.metric}")
    sources_file = [args.sources] if args.sources else []
    if args.plot_alignment:
        args.plot_alignment = figure_path("--plot-alignment", args.plot_alignment,
                                          [args.predictions, *args.references, *sources_file], ("png",))
    try:
        options = get_spec(args.metric).canonical_options(options)  # aliases (HF evaluate's names) -> ours
    except ValueError as exc:
        raise CLIError(str(exc)) from None
    predictions, references, sources = load_pairs(args.predictions, args.references, args.sources)
    check_inputs(args.metric, references, sources)
    if "verbose" in declared and "verbose" not in options and show_progress(args.progress, len(predictions)):
        options["verbose"] = True
    try:
        result = score_metric(args.metric, predictions, references, sources=sources, **options)
    except TypeError as exc:
        if "unexpected keyword argument" in str(exc):
            raise CLIError(f"metric {args.metric!r} does not take that option: {exc}") from None
        raise core_error(exc) from None
    except (ValueError, ImportError) as exc:  # the core's checks (bad option values, devices, missing extras)
        raise core_error(exc) from None
    print(format_result(args.metric, result, args.format), flush=True)  # shown even if the plot then fails
    if args.plot_alignment:
        try:
            print(f"wrote {plot_pair(args, predictions, references, options, result)}", file=sys.stderr)
        except (ValueError, TypeError, ImportError) as exc:
            raise CLIError(str(exc)) from None
    return 0


def figure_path(flag: str, path: str, inputs: Sequence[str], formats: Sequence[str] | None = None) -> Path:
    """The file a figure option really writes (``.png`` added to a name without a suffix), checked before any work:
    never an input file, a folder, a link or an existing file that is not an image (:mod:`nlgmetrics._outputs`)."""
    from nlgmetrics._outputs import IMAGE_SIGNATURES, figure_target

    try:
        return figure_target(path, inputs=inputs, formats=formats or tuple(IMAGE_SIGNATURES))[0]
    except (ValueError, TypeError) as exc:
        raise CLIError(f"{flag} {exc}") from None


def show_progress(mode: str, n_lines: int) -> bool:
    if mode == "auto":
        return n_lines >= PROGRESS_MIN_LINES and sys.stderr.isatty()
    return mode == "on"


def plot_pair(
    args: argparse.Namespace, predictions: list[str], references: list[list[str]], options: dict, result: dict
) -> Path:
    """The alignment heatmap of pair ``--plot-index`` with the metric's model options, titled with that pair's score
    as the run computed it (``result``)."""
    from nlgmetrics.semantic.alignment_plot import plot_alignment

    index = args.plot_index
    if not 0 <= index < len(predictions):
        raise CLIError(f"--plot-index {index} is out of range: there are {len(predictions)} predictions")
    keep = {"model_type", "num_layers", "device"}
    if args.metric == "moverscore":
        keep |= {"distance", "stop_words", "remove_subwords", "solver", "reg", "relaxed", "n_gram"}
    plot_options = {k: v for k, v in options.items() if k in keep}
    pair_score = result["scores" if args.metric == "moverscore" else "f1"][index]
    return plot_alignment(predictions[index], references[index][0], args.plot_alignment, metric=args.metric,
                          score=pair_score, **plot_options)


def baseline_target(args: argparse.Namespace) -> Path:
    """Where ``nlgmetrics baseline`` writes, checked before any work: never a folder, never an existing file unless
    ``--overwrite`` and it is a baseline file, never outside the baselines folder for ``--lang``/``--model``."""
    from nlgmetrics.semantic import baselines

    if args.out is None and args.lang is None:
        raise CLIError("pass --lang (the file goes where lookups find it) or --out FILE")
    try:
        if args.lang is not None:
            baselines.check_lang(args.lang)
        target = Path(args.out) if args.out is not None else baselines.default_baseline_path(args.lang, args.model)
    except ValueError as exc:
        raise CLIError(str(exc)) from None
    if target.is_dir():
        raise CLIError(f"--out {target} is a directory; pass a file path, e.g. {target / 'baseline.tsv'}")
    if target.exists():
        if not args.overwrite:
            raise CLIError(f"{target} exists; pass --overwrite to replace it, or choose another --out")
        try:
            baselines.read_baseline(target)
        except ValueError:
            raise CLIError(f"{target} is not a baseline file (LAYER,P,R,F); nlgmetrics replaces only baseline files: "
                           "choose another --out") from None
    return target


def cmd_baseline(args: argparse.Namespace) -> int:
    from nlgmetrics.semantic import baselines

    target = baseline_target(args)
    sentences: list[str] = []
    for name in args.corpus:
        try:
            sentences += read_text_file(name)
        except CLIError as exc:
            raise CLIError(f"cannot read corpus {exc}") from None
    verbose = args.progress == "on" or (args.progress == "auto" and sys.stderr.isatty())
    try:
        baselines.compute_baseline(
            sentences, args.model, lang=args.lang, pairs=args.pairs, seed=args.seed, out=target,
            batch_size=args.batch_size, device=args.device, verbose=verbose,
        )
    except (ValueError, ImportError) as exc:
        raise core_error(exc, flags={"model_type": "--model", "lang": "--lang", "out": "--out"}) from None
    except OSError as exc:
        raise CLIError(f"cannot write {target} ({exc.strerror or exc}); choose another --out") from None
    print(f"wrote {target}")
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    for name in available_metrics():
        print(name)
    return 0


def _size(n: int) -> str:
    return f"{n} B" if n < 1000 else f"{n / 1000:.1f} kB" if n < 10**6 else f"{n / 10**6:.1f} MB"


def cmd_hub(args: argparse.Namespace) -> int:
    from nlgmetrics import hub

    try:
        if args.hub_command == "build":
            folder = hub.build_space(args.name, args.out, source=args.source, overwrite=args.overwrite,
                                     wheel=args.wheel, requirement=args.requirement)
            print(f"built the Space folder of {args.name} in {folder}: "
                  f"{', '.join(sorted(p.name for p in folder.iterdir() if p.name != hub.MARKER))}")
            return 0
        result = hub.publish_space(
            args.name, args.repo, tag=args.tag, dry_run=args.dry_run, private=args.private, token=args.token,
            source=args.source, wheel=args.wheel, requirement=args.requirement,
        )
    except hub.HubError as exc:
        raise CLIError(str(exc)) from None
    except OSError as exc:
        raise CLIError(f"cannot write the Space folder ({exc.strerror or exc}: {exc.filename}); choose another "
                       "--out") from None
    action = "would publish" if result.dry_run else "published"
    total = sum(result.sizes.values())
    print(f"{action} {args.name} to https://huggingface.co/spaces/{result.repo_id}: {len(result.files)} files, "
          f"{_size(total)}")
    for name in result.files:
        print(f"  {name}  ({_size(result.sizes[name])})")
    for step in result.steps:
        print(f"  {step}")
    return 0


def cmd_compare(args: argparse.Namespace) -> int:
    """Paired significance tests of the system files against the baseline file (nlgmetrics.comparison)."""
    from nlgmetrics.comparison import compare, plot, report, segment_scores

    metrics = list(dict.fromkeys(args.metrics))
    for metric in metrics:
        if metric not in METRICS:
            raise CLIError(f"unknown metric {metric!r}; choose from {', '.join(available_metrics())}")
    metric_options: dict[str, dict[str, Any]] = {}
    for item in args.option:
        key, raw = parse_option(item)
        metric, dot, name = key.partition(".")
        if not dot and len(metrics) == 1:
            metric, name = metrics[0], key
        if not name or metric not in metrics:
            raise CLIError(f"-o {item!r}: write compare options as METRIC.KEY=VALUE with a metric given to -m, e.g. "
                           f"-o {metrics[0]}.{key.partition('.')[2] or key}=...")
        metric_options.setdefault(metric, {})[name] = coerce_option(metric, name, raw)
    for flag, key, value in (("--device", "device", args.device), ("--batch-size", "batch_size", args.batch_size)):
        if value is not None:
            for metric in metrics:
                if key in option_types(metric):
                    metric_options.setdefault(metric, {})[key] = value
    paths = [args.baseline, *args.systems]
    names = [Path(path).name for path in paths]
    if len(set(names)) != len(names):
        names = [str(path) for path in paths]
        if len(set(names)) != len(names):
            raise CLIError("a system file is given twice; compare each system once")
    if STDIN in paths or STDIN in args.references or args.sources == STDIN:
        raise CLIError("compare reads every system, reference and source from files; '-' (standard input) is not "
                       "supported")
    if args.plot:
        inputs = [*paths, *args.references, *([args.sources] if args.sources else [])]
        args.plot = figure_path("--plot", args.plot, inputs)
    baseline, references, sources = load_pairs(args.baseline, args.references, args.sources)  # one line per segment
    for metric in metrics:
        check_inputs(metric, references, sources)
    systems = {names[0]: baseline}
    for name, path in zip(names[1:], args.systems):
        systems[name] = read_text_file(path)
        if len(systems[name]) != len(baseline):
            raise CLIError(f"{path} has {len(systems[name])} lines but {args.baseline} has {len(baseline)}: every "
                           "system needs one line per segment")
    for metric in metrics:  # each metric's options, model and device, on one segment, before any long run
        try:
            segment_scores(metric, {names[0]: baseline[:1]}, references[:1] if references is not None else None,
                           metric_options.get(metric), sources=sources[:1] if sources is not None else None)
        except (ValueError, TypeError, ImportError) as exc:
            raise core_error(exc, "" if len(metrics) == 1 else f"{metric}.") from None
    try:
        rows = compare(
            systems, references, metrics, baseline=names[0],
            paired="ar" if args.paired_ar else "bs", n_resamples=args.n_resamples, n_trials=args.n_trials,
            seed=None if args.seed.lower() == "none" else _seed(args.seed), metric_options=metric_options,
            sources=sources,
        )
        print(report(rows, args.format), flush=True)  # the computed table is shown even if the plot then fails
        if args.plot:
            print(f"wrote {plot(rows, args.plot)}", file=sys.stderr)
    except (ValueError, TypeError, ImportError) as exc:
        raise CLIError(str(exc)) from None
    return 0


def cmd_agree(args: argparse.Namespace) -> int:
    """Agreement of metrics with human judgments (nlgmetrics.agreement)."""
    from nlgmetrics.agreement import records as io_
    from nlgmetrics.agreement import agree, check_plot_path, merge, plot, report

    metrics = list(dict.fromkeys(args.metrics))
    for metric in metrics:
        if metric.partition(":")[0] not in METRICS:
            raise CLIError(f"unknown metric {metric!r}; choose from {', '.join(available_metrics())}")
    metric_options: dict[str, dict[str, Any]] = {}
    for item in args.option:
        key, raw = parse_option(item)
        metric, dot, name = key.partition(".")
        names = [m.partition(":")[0] for m in metrics]
        if not dot and len(names) == 1:
            metric, name = names[0], key
        if not name or metric not in names:
            raise CLIError(f"-o {item!r}: write agree options as METRIC.KEY=VALUE with a metric given to -m")
        metric_options.setdefault(metric, {})[name] = coerce_option(metric, name, raw)
    if args.device is not None:
        for metric in {m.partition(":")[0] for m in metrics}:
            if "device" in option_types(metric):
                metric_options.setdefault(metric, {})["device"] = args.device
    inputs = [args.human, *(spec.partition("=")[2] for spec in args.scores)]
    try:
        for path in (args.plot, args.scatter):
            if path:
                check_plot_path(path, inputs)
        if args.scores and args.input != "mtme":
            raise CLIError("--scores NAME=FILE reads mt-metrics-eval score files: use it with --input mtme")
        if args.pair and args.input != "wmt-da":
            raise CLIError("--pair selects language pairs of a WMT DA file: use it with --input wmt-da")
        if args.dimension and args.input != "annotations":
            raise CLIError("--dimension selects a quality dimension of annotations: use it with --input annotations")
        if args.input == "wmt-da":
            if not args.pair:
                raise CLIError("--input wmt-da needs --pair (e.g. de-en; several for a table per pair)")
            datasets = {pair: io_.read_wmt_da(args.human, pair, args.texts) for pair in dict.fromkeys(args.pair)}
        elif args.input == "mtme":
            files = {}
            for spec in args.scores:
                name, eq, file = spec.partition("=")
                if not eq or not name or not file:
                    raise CLIError(f"--scores {spec!r}: write NAME=FILE (an mt-metrics-eval .seg.score file)")
                files[name] = file
            datasets = {None: io_.read_mtme(args.human, files) if not Path(args.human).is_dir() else
                        io_.read_mtme_folder(args.human, args.mtme_pair, args.rater, files or None)}
        elif args.input == "table":
            system = "system" if args.system_column is None else args.system_column or None  # "": no column
            item = "item" if args.item_column is None else args.item_column or None
            datasets = {None: io_.read_table(args.human, args.human_column, system, item, args.columns,
                                             args.hypothesis_column, args.reference_column)}
        else:
            if not args.dimension:
                raise CLIError("--input annotations needs --dimension (e.g. relevance; several: a column each)")
            datasets = {dimension: io_.read_annotations(args.human, dimension, args.annotations_key,
                                                        args.system_column or "model_id", args.item_column or "id",
                                                        args.columns)
                        for dimension in dict.fromkeys(args.dimension)}
        results = {
            name: agree(judgments, metrics, metric_options, levels=args.level, statistics=args.statistic,
                        average_by=args.average, n_resamples=args.n_resamples, k=args.k,
                        seed=None if args.seed.lower() == "none" else _seed(args.seed), alpha=args.alpha,
                        threshold=args.threshold, keep_scores=bool(args.scatter))
            for name, judgments in datasets.items()
        }
        result = results[None] if None in results else merge(results)
        if args.plot:
            print(f"wrote {plot(result, args.plot)}", file=sys.stderr)
        if args.scatter:
            first, judgments = next(iter(datasets.items()))
            scatter = {"human": judgments.human, "metrics": results[first].pop("scores")}
            print(f"wrote {plot(result, args.scatter, scatter=scatter)}", file=sys.stderr)
    except (ValueError, TypeError, ImportError, OSError) as exc:
        raise CLIError(str(exc)) from None
    print(report(result, args.format))
    return 0


def _seed(text: str) -> int:
    if not _INT.match(text.strip()) or int(text) < 0:
        raise CLIError(f"--seed takes a whole number of at least 0 or 'none', got {text!r}")
    return int(text)


def _positive_int(text: str) -> int:
    if not _INT.match(text.strip()) or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text!r}")
    return int(text)


# Every line below that starts with "  nlgmetrics " runs as is in tests/test_examples.py (on sample files).
SCORE_EXAMPLES = """examples:
  nlgmetrics score -m bleu -p hyp.txt -r ref.txt
  nlgmetrics score -m sacrebleu -p hyp.txt -r ref.txt -r ref2.txt -o tokenize=intl -o lowercase=true -f json
  nlgmetrics score -m rouge -p hyp.txt -r ref.txt -o rouge_types='["rouge1","rougeL"]' -o use_stemmer=true
  nlgmetrics score -m bertscore -p hyp.txt -r ref.txt -o model_type=sentence-transformers/all-MiniLM-L6-v2
"""
COMPARE_EXAMPLES = """examples:
  nlgmetrics compare -r ref.txt --baseline base.txt sys1.txt sys2.txt -m bleu chrf ter -f markdown
  nlgmetrics compare -r ref.txt --baseline base.txt sys1.txt -m bleu -o bleu.tokenizer=intl --paired-ar
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="nlgmetrics", description="Text-generation evaluation metrics.")
    sub = parser.add_subparsers(dest="command", required=True)
    progress_help = "progress bars: nlgmetrics' own on long runs on a terminal (auto); on also shows third-party ones"

    score = sub.add_parser("score", help="score a file of predictions against reference files",
                           formatter_class=argparse.RawDescriptionHelpFormatter, epilog=SCORE_EXAMPLES)
    score.add_argument("--metric", "-m", required=True, choices=list(METRICS))
    score.add_argument("--predictions", "-p", required=True, help="file with one prediction per line (- for stdin)")
    score.add_argument("--references", "-r", action="append", default=[],
                       help="file with one reference per line (- for stdin); repeat for several references "
                            "(required unless the metric is reference-free)")
    score.add_argument("--sources", "-s", default=None,
                       help="file with one source text per line, for metrics that read sources (COMET)")
    score.add_argument("--format", "-f", choices=["table", "json", "csv"], default="table")
    score.add_argument("--option", "-o", action="append", default=[], metavar="KEY=VALUE",
                       help="a metric option, e.g. -m sacrebleu -o tokenize=zh -o lowercase=true (repeatable; "
                            "`nlgmetrics list` and the examples below)")
    score.add_argument("--device", default=None, help="embedding metrics: cpu, cuda, cuda:1 (default: auto)")
    score.add_argument("--batch-size", type=_positive_int, default=None, help="embedding metrics: texts per batch")
    score.add_argument("--progress", choices=["auto", "on", "off"], default="auto",
                       help=f"{progress_help} (auto: {PROGRESS_MIN_LINES}+ lines)")
    score.add_argument("--plot-alignment", metavar="PNG", default=None,
                       help="bertscore/moverscore: also write the token alignment heatmap of one pair (needs matplotlib)")
    score.add_argument("--plot-index", type=int, default=0, help="which pair --plot-alignment shows (default: 0)")
    score.set_defaults(func=cmd_score)

    baseline = sub.add_parser("baseline", help="compute a BERTScore rescaling baseline (bert_score's method) from a corpus")
    baseline.add_argument("--model", required=True, help="hub id or local folder (the bundled: minilm)")
    baseline.add_argument("--lang", help="language code (en, zh, en-sci); without --out the file goes where lookups "
                                         "find it")
    baseline.add_argument("--corpus", required=True, nargs="+", help="text file(s), one sentence a line")
    baseline.add_argument("--pairs", type=_positive_int, default=100_000,
                          help="random sentence pairs (bert_score used 1M)")
    baseline.add_argument("--seed", type=int, default=0)
    baseline.add_argument("--out", help="output file (default: $NLGMETRICS_HOME/baselines/<lang>/<model>.tsv)")
    baseline.add_argument("--overwrite", action="store_true", help="replace an existing baseline file")
    baseline.add_argument("--batch-size", type=_positive_int, default=64)
    baseline.add_argument("--device", default=None)
    baseline.add_argument("--progress", choices=["auto", "on", "off"], default="auto", help=progress_help)
    baseline.set_defaults(func=cmd_baseline)

    comparing = sub.add_parser(
        "compare", help="paired significance tests of systems against a baseline (bootstrap or randomization)",
        description="Score the baseline and every system with every metric and test each system against the "
                    "baseline: paired bootstrap resampling (--paired-bs, default) or approximate randomization "
                    "(--paired-ar), as sacrebleu's paired tests (same numbers for BLEU).",
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=COMPARE_EXAMPLES)
    comparing.add_argument("systems", nargs="+", help="system output files, one segment per line")
    comparing.add_argument("--baseline", "-b", required=True, help="the baseline system's output file")
    comparing.add_argument("--references", "-r", action="append", default=[],
                           help="reference file, one segment per line; repeat for several references (required "
                                "unless every metric is reference-free)")
    comparing.add_argument("--sources", "-s", default=None,
                           help="source file, one segment per line, for metrics that read sources (COMET)")
    comparing.add_argument("--metrics", "-m", nargs="+", default=["bleu"], help="metrics to compare (default: bleu)")
    test = comparing.add_mutually_exclusive_group()
    test.add_argument("--paired-bs", action="store_true", help="paired bootstrap resampling (the default)")
    test.add_argument("--paired-ar", action="store_true", help="paired approximate randomization")
    comparing.add_argument("--n-resamples", type=_positive_int, default=1000,
                           help="bootstrap resamples (test and intervals; default 1000)")
    comparing.add_argument("--n-trials", type=_positive_int, default=10000,
                           help="approximate randomization trials (default 10000)")
    comparing.add_argument("--seed", default="12345", help="random seed (default 12345, as sacrebleu; 'none': OS)")
    comparing.add_argument("--option", "-o", action="append", default=[], metavar="METRIC.KEY=VALUE",
                           help="a metric option, e.g. -o bleu.tokenizer=intl (KEY=VALUE with one metric)")
    comparing.add_argument("--format", "-f", choices=["table", "markdown", "json", "csv"], default="table")
    comparing.add_argument("--plot", metavar="PNG", default=None,
                           help="also write a figure of the intervals and significant differences (needs matplotlib)")
    comparing.add_argument("--device", default=None, help="embedding metrics: cpu, cuda, cuda:1 (default: auto)")
    comparing.add_argument("--batch-size", type=_positive_int, default=None, help="embedding metrics: texts per batch")
    comparing.add_argument("--progress", choices=["auto", "on", "off"], default="auto", help=progress_help)
    comparing.set_defaults(func=cmd_compare)

    agreeing = sub.add_parser(
        "agree", help="agreement of metrics with human judgments (WMT's statistics, intervals, significance clusters)",
        description="Correlate metric scores (given, or computed by metric name on the judged texts) with human "
                    "scores: Pearson, Spearman, Kendall tau-b/c, WMT DARR, pairwise accuracy and acc*_eq, at "
                    "segment and system level, with bootstrap intervals and permutation-test significance clusters "
                    "(mt-metrics-eval's statistics).")
    agreeing.add_argument("human", help="the human judgments file")
    agreeing.add_argument("--input", "-i", choices=["wmt-da", "mtme", "table", "annotations"], default="table",
                          help="its format (default: table = CSV/TSV/JSONL with named columns)")
    agreeing.add_argument("--pair", nargs="+", help="wmt-da: the language pair(s), e.g. de-en (several: a column each)")
    agreeing.add_argument("--texts", help="wmt-da: folder with the reference and system outputs (to score -m)")
    agreeing.add_argument("--scores", action="append", default=[], metavar="NAME=FILE",
                          help="mtme: a metric's .seg.score file (repeatable)")
    agreeing.add_argument("--mtme-pair", help="mtme with a test-set folder (human-scores/, metric-scores/): the pair")
    agreeing.add_argument("--rater", default="mqm", help="mtme with a folder: human-scores/{pair}.{rater}.seg.score")
    agreeing.add_argument("--columns", nargs="+", default=[], help="table/annotations: metric score columns")
    agreeing.add_argument("--human-column", default="human", help="table: the human score column")
    agreeing.add_argument("--system-column", help="the system column (table: system, '' for one system; "
                                                   "annotations: model_id)")
    agreeing.add_argument("--item-column", help="the segment/document column (table: item, '' for the row number; "
                                                 "annotations: id)")
    agreeing.add_argument("--hypothesis-column", default=None, help="table: the output text column (to score -m)")
    agreeing.add_argument("--reference-column", default=None, help="table: the reference text column (to score -m)")
    agreeing.add_argument("--dimension", nargs="+",
                          help="annotations: the quality dimension(s), e.g. coherence relevance (a column each)")
    agreeing.add_argument("--annotations-key", default="expert_annotations",
                          help="annotations: the key of the list of annotator dicts")
    agreeing.add_argument("--metrics", "-m", nargs="+", default=[], help="metrics to score (NAME or NAME:KEY)")
    agreeing.add_argument("--option", "-o", action="append", default=[], metavar="METRIC.KEY=VALUE")
    agreeing.add_argument("--level", nargs="+", default=["segment"], choices=["segment", "system"])
    agreeing.add_argument("--statistic", "-s", nargs="+", default=["pearson"],
                          help="pearson spearman kendall_b kendall_c kendall_like accuracy acc_eq (default: pearson); "
                               "kendall_like and acc_eq cost O(n^2) per group, and acc_eq's test recalibrates on every "
                               "draw (on long vectors, lower --k or use --average item)")
    agreeing.add_argument("--average", choices=["none", "item", "sys"], default="none",
                          help="segment level: one vector (none), per item or per system, averaged")
    agreeing.add_argument("--n-resamples", type=int, default=1000, help="bootstrap resamples (0: no intervals)")
    agreeing.add_argument("--k", type=int, default=1000, help="permutation draws per metric pair (0: no clusters)")
    agreeing.add_argument("--seed", default="12345", help="random seed (default 12345; 'none': OS)")
    agreeing.add_argument("--alpha", type=float, default=0.05, help="significance level of the clusters")
    agreeing.add_argument("--threshold", type=float, default=25.0, help="kendall_like: DARR's minimum human difference")
    agreeing.add_argument("--format", "-f", choices=["table", "markdown", "json", "csv"], default="table")
    agreeing.add_argument("--plot", metavar="PNG", help="write the correlations with intervals and clusters")
    agreeing.add_argument("--scatter", metavar="PNG",
                          help="write the figure with a scatter per metric (of the first pair)")
    agreeing.add_argument("--device", default=None, help="embedding metrics: cpu, cuda, cuda:1 (default: auto)")
    agreeing.add_argument("--progress", choices=["auto", "on", "off"], default="auto", help=progress_help)
    agreeing.set_defaults(func=cmd_agree)

    listing = sub.add_parser("list", help="list the metrics available in this installation")
    listing.set_defaults(func=cmd_list)

    hub_parser = sub.add_parser("hub", help="build or publish a metric's Hugging Face Space")
    hub_sub = hub_parser.add_subparsers(dest="hub_command", required=True)
    build = hub_sub.add_parser("build", help="assemble a Space folder (module script, card, app.py, requirements.txt, "
                                             "the nlgmetrics wheel)")
    build.add_argument("name", help="metric name (a folder of metrics/ with a card in hub_cards/)")
    build.add_argument("--out", required=True, help="the Space folder to create (evaluate.load(OUT) loads it)")
    build.add_argument("--overwrite", action="store_true",
                       help="replace a previous build in OUT (only folders made by hub build; nothing else is touched)")
    publish = hub_sub.add_parser("publish", help="build the Space and upload it with huggingface_hub")
    publish.add_argument("name", help="metric name")
    publish.add_argument("--repo", required=True, help="the Space id, ORG/NAME")
    publish.add_argument("--tag", default=None, help="tag the uploaded commit, e.g. v0.1.0")
    publish.add_argument("--dry-run", action="store_true", help="build and list exactly what would be uploaded")
    publish.add_argument("--private", action="store_true", help="create the Space private")
    publish.add_argument("--token", default=None, help="Hub token (default: the logged-in one, HF_TOKEN)")
    for command in (build, publish):
        command.add_argument("--source", default=None,
                             help="folder with metrics/ and hub_cards/ (default: this installation's)")
        how = command.add_mutually_exclusive_group()
        how.add_argument("--wheel", default=None,
                         help="the nlgmetrics wheel the Space carries (default: built from the checkout, or repacked "
                              "from the installed package)")
        how.add_argument("--requirement", default=None, metavar="SPEC",
                         help="install nlgmetrics from SPEC instead of carrying the wheel, e.g. "
                              "'nlgmetrics[encoder] @ git+https://github.com/ORG/nlgmetrics@v0.1.0'")
    hub_parser.set_defaults(func=cmd_hub)
    return parser


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """Warnings on the command line: one ``nlgmetrics: warning:`` line, not Python's file/line/source format."""
    print(f"nlgmetrics: warning: {message}", file=sys.stderr if file is None else file)


def main(argv: Sequence[str] | None = None) -> int:
    import warnings

    parser = build_parser()
    args = parser.parse_args(argv)
    shown = warnings.showwarning
    warnings.showwarning = _show_warning
    try:
        with quiet_third_party(enabled=getattr(args, "progress", "auto") != "on"):
            return args.func(args)
    except CLIError as exc:
        print(f"nlgmetrics: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("nlgmetrics: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into e.g. `head`
        sys.stderr.close()
        return 0
    finally:
        warnings.showwarning = shown


if __name__ == "__main__":
    sys.exit(main())
