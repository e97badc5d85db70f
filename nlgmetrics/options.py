"""Checks of metric options shared by every metric: one rule for types, one for flags, one for numbers in a range,
one for bounded integers, so every module, the CLI, compare and the adapters refuse the same values with the same
message, as the project's error classes (:mod:`nlgmetrics.errors`).

- A type (:func:`check_type`): every option's value matches the annotation its compute function declares (an ``int``
  option takes an integer, not ``2.5`` or ``"4"``; a ``float`` option a finite number; ``str`` text; ``Sequence[str]``
  a list of text; a union any of its members); otherwise an :class:`~nlgmetrics.errors.OptionTypeError` (a
  ``TypeError``) naming the option, what it takes and what it got, before any work. :func:`checked_options` applies
  it to every option of a compute function, so a bad value never reaches a dependency.
- A flag (an option annotated ``bool`` or ``bool | None``) is ``True``/``False`` (numpy's too, and the integers 0
  and 1, as rouge_score's ``use_stemmer`` takes them). Anything else, a string such as ``"false"`` included, is a
  ``TypeError``: ``"false"`` is truthy in Python, so reading it as True would give a silently different number.
  :func:`checked_options` applies this rule to every flag of a compute function from its annotations.
- A number (:func:`check_real`) is a finite real in a closed range that keeps every score finite; the error names
  the range (:class:`~nlgmetrics.errors.OptionError`).
- A count or order (:func:`check_int`) is an integer in a closed range that bounds the work it causes, checked before
  anything is allocated (:class:`~nlgmetrics.errors.LimitError` above it); n-gram orders share
  :data:`MAX_NGRAM_ORDER`.
"""

from __future__ import annotations

import collections.abc
import functools
import inspect
import math
import numbers
import os
import types
import typing
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

import numpy as np

from nlgmetrics.errors import LimitError, OptionError, OptionTypeError

F = TypeVar("F", bound=Callable[..., Any])


def check_flag(name: str, value: object) -> bool:
    """``value`` as a ``bool``: True/False (numpy's too) or the integers 0/1; a ``TypeError`` otherwise."""
    if isinstance(value, (bool, np.bool_)) or (isinstance(value, numbers.Integral) and value in (0, 1)):
        return bool(value)
    hint = (" A string is not read as a flag (\"false\" would be true in Python): pass True or False (on the "
            "command line, -o name=true or false).") if isinstance(value, (str, bytes)) else ""
    raise OptionTypeError(f"{name} must be True or False, got {type(value).__name__} {value!r:.40}.{hint}")


#: the largest F-beta weight (ROUGE's ``beta``, chrF's ``beta``): beta**2 stays finite, in float32 too (compare scores
#: chrF resamples in float32), and beyond it F_beta equals recall to 12 digits anyway.
MAX_BETA = 1e6


#: the highest n-gram order any metric counts (BLEU's max_order, GLEU's max_len, NIST's n, chrF's orders): the n-grams
#: of a text of L tokens up to order N hold about L * N**2 / 2 tokens, so the order bounds the memory a long line takes.
MAX_NGRAM_ORDER = 32


def check_real(name: str, value: object, low: float, high: float, what: str = "") -> float:
    """``value`` as a float in ``[low, high]``: an :class:`OptionTypeError` for a non-number (a bool or a string
    included), an :class:`OptionError` naming the range for NaN, an infinity or a number outside it."""
    if not isinstance(value, numbers.Real) or isinstance(value, (bool, np.bool_)):
        raise OptionTypeError(f"{name} must be a number, got {type(value).__name__} {value!r:.40}.")
    if not (math.isfinite(value) and low <= float(value) <= high):
        meaning = f" ({what})" if what else ""
        raise OptionError(f"{name} must be a finite number in [{low:g}, {high:g}]{meaning}, got {value!r:.40}.")
    return float(value)


def check_int(name: str, value: object, low: int, high: int, what: str = "") -> int:
    """``value`` as an int in ``[low, high]`` (numpy integers too, not a bool), else an :class:`OptionError` (not an
    integer) or :class:`LimitError` (out of range), both ``ValueError``, naming the range."""
    integral = isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))
    if not integral or not low <= int(value) <= high:
        meaning = f" ({what})" if what else ""
        error = (LimitError if int(value) > high else OptionError) if integral else OptionTypeError
        raise error(f"{name} must be an integer in [{low}, {high}]{meaning}, got {value!r:.40}.")
    return int(value)


# -- types from annotations ----------------------------------------------------------------------------------------
_SEQUENCES = {list, tuple, set, frozenset, collections.abc.Sequence, collections.abc.Iterable,
              collections.abc.Collection, collections.abc.Set, collections.abc.MutableSequence}
_MAPPINGS = {dict, collections.abc.Mapping, collections.abc.MutableMapping}


def _members(annotation: Any) -> tuple[Any, ...]:
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        return typing.get_args(annotation)
    return (annotation,)


def _matches(value: Any, annotation: Any) -> bool:
    """Whether ``value`` is of the declared type ``annotation`` (unknown annotations match anything)."""
    if annotation is Any or annotation is object or isinstance(annotation, TypeVar):
        return True
    if annotation is type(None) or annotation is None:
        return value is None
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        return any(_matches(value, arg) for arg in typing.get_args(annotation))
    if origin is typing.Literal:
        return value in typing.get_args(annotation)
    if annotation is bool:
        return isinstance(value, (bool, np.bool_)) or (isinstance(value, numbers.Integral) and value in (0, 1))
    if annotation is int:
        return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))
    if annotation is float:
        return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_)) and math.isfinite(value)
    if annotation is str:
        return isinstance(value, str)
    if annotation is os.PathLike:
        return isinstance(value, os.PathLike)
    base = origin or annotation
    if base is collections.abc.Callable:
        return callable(value)
    if base in _MAPPINGS:
        return isinstance(value, Mapping)
    if base in _SEQUENCES:
        if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
            return False
        args = typing.get_args(annotation)
        if not args or not isinstance(value, collections.abc.Sized) or isinstance(value, collections.abc.Iterator):
            return True  # an iterator is not consumed here
        items = list(value)
        if base is tuple and not (len(args) == 2 and args[1] is Ellipsis):
            return len(items) == len(args) and all(_matches(v, a) for v, a in zip(items, args))
        return all(_matches(v, args[0]) for v in items)
    if isinstance(base, type):
        return isinstance(value, base)
    return True


def describe_type(annotation: Any) -> str:
    """What an option annotated ``annotation`` takes, in words (``an integer``, ``text or None``)."""
    names = []
    for member in _members(annotation):
        origin = typing.get_origin(member) or member
        args = typing.get_args(member)
        if member is type(None):
            names.append("None")
        elif member is bool:
            names.append("True or False")
        elif member is int:
            names.append("an integer")
        elif member is float:
            names.append("a finite number")
        elif member is str:
            names.append("text")
        elif member is os.PathLike:
            names.append("a path")
        elif origin is typing.Literal:
            names.append("one of " + ", ".join(map(repr, args)))
        elif origin is collections.abc.Callable:
            names.append("a function")
        elif origin in _MAPPINGS:
            names.append("a dict")
        elif origin is tuple and args and args[-1] is not Ellipsis:
            names.append(f"a pair ({', '.join(describe_type(a) for a in args)})" if len(args) == 2
                         else f"a tuple of {len(args)}")
        elif origin in _SEQUENCES:
            names.append(f"a list of {describe_type(args[0])}" if args else "a list")
        else:
            names.append(getattr(member, "__name__", str(member)))
    names = list(dict.fromkeys(names))
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


def check_type(name: str, value: object, annotation: Any) -> None:
    """An :class:`OptionTypeError` naming option ``name`` when ``value`` is not of the declared ``annotation``."""
    if not _matches(value, annotation):
        shown = f"{type(value).__name__} {value!r:.40}"
        raise OptionTypeError(f"{name} must be {describe_type(annotation)}, got {shown}.")


def _is_flag(annotation: Any) -> bool:
    if annotation is bool:
        return True
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        return set(typing.get_args(annotation)) == {bool, type(None)}
    return False


@functools.cache
def flag_options(function: Callable[..., Any]) -> dict[str, bool]:
    """The options of ``function`` annotated ``bool`` or ``bool | None`` (its flags) -> whether None is allowed."""
    hints = typing.get_type_hints(function)
    return {name: annotation is not bool for name, annotation in hints.items()
            if name != "return" and _is_flag(annotation)}


def check_flags(function: Callable[..., Any], options: Mapping[str, Any]) -> dict[str, Any]:
    """``options`` of ``function`` with every flag checked by :func:`check_flag` (None kept where allowed)."""
    flags = flag_options(inspect.unwrap(function))
    return {key: check_flag(key, value) if key in flags and not (value is None and flags[key]) else value
            for key, value in options.items()}


#: parameters of a compute function that are inputs, not options (their own checks: nlgmetrics.inputs)
_INPUTS = ("predictions", "references", "sources")


@functools.cache
def option_annotations(function: Callable[..., Any]) -> dict[str, Any]:
    """The options of ``function`` (keyword parameters other than the inputs) -> their annotations (``Any`` where
    none is declared or one does not resolve)."""
    try:
        hints = typing.get_type_hints(function)
    except (NameError, TypeError, AttributeError):
        hints = {}
    return {name: hints.get(name, Any) for name, parameter in inspect.signature(function).parameters.items()
            if name not in _INPUTS and parameter.kind in (parameter.KEYWORD_ONLY, parameter.POSITIONAL_OR_KEYWORD)}


def checked_options(function: F) -> F:
    """Decorate a compute function so that every option it declares is checked against its annotation
    (:func:`check_type`) and every flag read as a bool (:func:`check_flags`) before it runs."""
    signature = inspect.signature(function)

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        bound = signature.bind_partial(*args, **kwargs)
        declared, flags = option_annotations(function), flag_options(inspect.unwrap(function))
        for key, value in bound.arguments.items():
            if key in declared and key not in flags:  # flags: check_flag's own message below
                check_type(key, value, declared[key])
        for key, value in check_flags(function, bound.arguments).items():
            bound.arguments[key] = value
        return function(*bound.args, **bound.kwargs)

    return typing.cast(F, wrapper)


def pair_blocks(shapes: typing.Sequence[tuple[int, int]],
                max_pairs: int) -> typing.Iterator[list[tuple[int, int, int]]]:
    """Work over all pairs of two lists (MBR's utility matrices), in blocks, so memory stays bounded whatever the
    lists' lengths: blocks of at most ``max_pairs`` pairs over grids of ``shapes[g] = (rows, columns)`` pairs (more only for one
    row wider than that): each block a list of ``(g, first row, end row)`` pieces, every piece all columns of a row
    range. A grid larger than ``max_pairs`` is cut into row ranges; small grids share a block."""
    block, size = [], 0
    for g, (n_rows, n_cols) in enumerate(shapes):
        step = max(1, max_pairs // max(n_cols, 1))
        for a in range(0, n_rows, step):
            b = min(a + step, n_rows)
            if block and size + (b - a) * n_cols > max_pairs:
                yield block
                block, size = [], 0
            block.append((g, a, b))
            size += (b - a) * n_cols
    if block:
        yield block
