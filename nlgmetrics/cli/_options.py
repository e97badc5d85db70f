"""``-o key=value``: a metric option read by the type the metric's compute function declares for it."""

from __future__ import annotations

import collections.abc
import json
import types
import typing
from typing import Any

from nlgmetrics.cli._boundary import CLIError
from nlgmetrics.cli._common import _INT
from nlgmetrics.registry import get_spec, unknown_option_message

_TRUE, _FALSE, _NONE = {"true", "yes", "1"}, {"false", "no", "0"}, {"none", "null"}
_SEQUENCES = (list, tuple, set, frozenset, collections.abc.Sequence, collections.abc.Iterable,
              collections.abc.Collection, collections.abc.Set)
_MAPPINGS = (dict, collections.abc.Mapping)


class _Mismatch(ValueError):
    """``raw`` cannot be read as the declared type; the argument says what is expected."""


def option_types(metric: str) -> dict[str, Any]:
    """Each option of ``metric`` with its declared type (its spec's :meth:`~nlgmetrics.registry.MetricSpec.option_types`:
    the compute function's annotations, aliases included; key ``"**"`` when it takes ``**options``)."""
    return get_spec(metric).option_types()


_FUNCTION = "a Python function (not settable from the command line; use the Python API)"


def _describe(tp: Any) -> str:
    """What ``-o KEY=VALUE`` takes for an option of type ``tp``; a union with a function member says the function is
    for the Python API only, since the command line sets the others (``tokenizer``: text, ``-o tokenizer=intl``)."""
    origin = typing.get_origin(tp) or tp
    if origin in (typing.Union, types.UnionType):
        args = typing.get_args(tp)
        callables = [arg for arg in args if (typing.get_origin(arg) or arg) is collections.abc.Callable]
        names = ["null" if arg is type(None) and str in args else _describe(arg) for arg in args
                 if arg not in callables]
        if "a JSON value or text" in names:  # typing.Any among them: it reads any text already
            names = [name for name in names if name != "text"]
        shown = " or ".join(dict.fromkeys(names))
        if callables and names:
            return f"{shown} (a Python function too, from the Python API only)"
        return shown or _FUNCTION
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
        return _FUNCTION
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
        # "null" is None; "none" too, unless the option also takes text: then it is the text "none", a choice of
        # its own for some (sacrebleu's tokenize='none'), never silently the default that None selects.
        if type(None) in args and (word == "null" or (word in _NONE and str not in args)):
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



def per_metric_options(items: list[str], metrics: list[str], command: str) -> dict[str, dict[str, Any]]:
    """``-o METRIC.KEY=VALUE`` options of a command that scores several metrics (compare, agree), each read by
    :func:`coerce_option`; a bare ``KEY=VALUE`` when one metric is given. ``metrics`` may carry a ``:variant``."""
    names = [m.partition(":")[0] for m in metrics]
    options: dict[str, dict[str, Any]] = {}
    for item in items:
        key, raw = parse_option(item)
        metric, dot, name = key.partition(".")
        if not dot and len(names) == 1:
            metric, name = names[0], key
        if not name or metric not in names:
            raise CLIError(f"-o {item!r}: write {command} options as METRIC.KEY=VALUE with a metric given to -m, e.g. "
                           f"-o {names[0]}.{key.partition('.')[2] or key}=...")
        options.setdefault(metric, {})[name] = coerce_option(metric, name, raw)
    return options
