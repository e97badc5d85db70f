"""``nlgmetrics list [METRIC ...] [--options]``: the metrics available in this installation, and each one's ``-o``
options with the value each takes and its default."""

from __future__ import annotations

import argparse
import inspect
import json

from nlgmetrics.cli._common import resolve_metrics
from nlgmetrics.cli._options import _describe, option_types
from nlgmetrics.registry import available_metrics, get_spec


#: a minimal valid invocation, for the policy tests (tests/test_policy.py).
POLICY_ARGS = [["list"], ["list", "bleu"]]


def add_parser(sub, progress_help: str) -> argparse.ArgumentParser:
    listing = sub.add_parser("list", help="list the metrics available in this installation, or a metric's options",
                             description="Without arguments: the metric names. With metric names (or --options: "
                                         "every metric): each metric's -o KEY=VALUE options, the value each takes "
                                         "and its default.")
    listing.add_argument("metrics", nargs="*", metavar="METRIC", help="show these metrics' options (any case)")
    listing.add_argument("--options", action="store_true", help="show the options of every available metric")
    listing.set_defaults(func=cmd_list)
    return listing


def metric_options(metric: str) -> list[tuple[str, str, str]]:
    """``(option, what it takes, default)`` for each ``-o`` option of ``metric`` (HF aliases named as such)."""
    spec = get_spec(metric)
    parameters = inspect.signature(spec.function).parameters
    rows = []
    for name, tp in option_types(metric).items():
        if name == "**":
            rows.append(("KEY", "any further option of the metric", ""))
            continue
        if name in spec.aliases:
            rows.append((name, f"alias of {spec.aliases[name]} (HF evaluate's name)", ""))
            continue
        parameter = parameters.get(name)
        default = "" if parameter is None or parameter.default is inspect.Parameter.empty else _shown(parameter.default)
        rows.append((name, _describe(tp), default))
    return rows


def _shown(value) -> str:
    """A default as the command line would write it (``none``, ``true``, ``4``, ``exp``); an object: its kind."""
    if value is None or isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (int, float, str)):
        return str(value) if value != "" else "''"
    if isinstance(value, (list, tuple)) and all(isinstance(v, (int, float, str)) for v in value):
        return json.dumps(list(value))
    return "built in"


def cmd_list(args: argparse.Namespace) -> int:
    names = resolve_metrics(args.metrics) if args.metrics else available_metrics() if args.options else []
    if not names:
        for name in available_metrics():
            print(name)
        return 0
    for index, metric in enumerate(names):
        rows = metric_options(metric)
        print(("\n" if index else "") + f"{metric}: -o KEY=VALUE options" + ("" if rows else " (none)"))
        width = max((len(name) for name, _, _ in rows), default=0)
        for name, takes, default in rows:
            print(f"  {name:<{width}}  {takes}" + (f" (default {default})" if default else ""))
    return 0
