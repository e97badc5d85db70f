"""Checks of metric options shared by every metric: one rule for flags, one for numbers in a range, one for bounded
integers, so every module, the CLI, compare and the adapters refuse the same values with the same message.

- A flag (an option annotated ``bool`` or ``bool | None``) is ``True``/``False`` (numpy's too, and the integers 0
  and 1, as rouge_score's ``use_stemmer`` takes them). Anything else, a string such as ``"false"`` included, is a
  ``TypeError``: ``"false"`` is truthy in Python, so reading it as True would give a silently different number.
  :func:`checked_options` applies this rule to every flag of a compute function from its annotations.
- A number (:func:`check_real`) is a finite real in a closed range that keeps every score finite; the error names
  the range.
- A count or order (:func:`check_int`) is an integer in a closed range that bounds the work it causes.
"""

from __future__ import annotations

import functools
import inspect
import math
import numbers
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import numpy as np

from nlgmetrics.errors import LimitError, OptionError

F = TypeVar("F", bound=Callable[..., Any])


def check_flag(name: str, value: object) -> bool:
    """``value`` as a ``bool``: True/False (numpy's too) or the integers 0/1; a ``TypeError`` otherwise."""
    if isinstance(value, (bool, np.bool_)) or (isinstance(value, numbers.Integral) and value in (0, 1)):
        return bool(value)
    hint = (" A string is not read as a flag (\"false\" would be true in Python): pass True or False (on the "
            "command line, -o name=true or false).") if isinstance(value, (str, bytes)) else ""
    raise TypeError(f"{name} must be True or False, got {type(value).__name__} {value!r:.40}.{hint}")


#: the largest F-beta weight (ROUGE's ``beta``, chrF's ``beta``): beta**2 stays finite, in float32 too (compare scores
#: chrF resamples in float32), and beyond it F_beta equals recall to 12 digits anyway.
MAX_BETA = 1e6


def check_real(name: str, value: object, low: float, high: float, what: str = "") -> float:
    """``value`` as a float in ``[low, high]``: a ``TypeError`` for a non-number (a bool or a string included), a
    ``ValueError`` naming the range for NaN, an infinity or a number outside it."""
    if not isinstance(value, numbers.Real) or isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be a number, got {type(value).__name__} {value!r:.40}.")
    if not (math.isfinite(value) and low <= float(value) <= high):
        meaning = f" ({what})" if what else ""
        raise ValueError(f"{name} must be a finite number in [{low:g}, {high:g}]{meaning}, got {value!r:.40}.")
    return float(value)


def check_int(name: str, value: object, low: int, high: int, what: str = "") -> int:
    """``value`` as an int in ``[low, high]`` (numpy integers too, not a bool), else an :class:`OptionError` (not an
    integer) or :class:`LimitError` (out of range), both ``ValueError``, naming the range."""
    integral = isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))
    if not integral or not low <= int(value) <= high:
        meaning = f" ({what})" if what else ""
        error = LimitError if integral else OptionError
        raise error(f"{name} must be an integer in [{low}, {high}]{meaning}, got {value!r:.40}.")
    return int(value)


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


def checked_options(function: F) -> F:
    """Decorate a compute function so that every flag it declares is checked (:func:`check_flags`) before it runs."""
    signature = inspect.signature(function)

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        bound = signature.bind_partial(*args, **kwargs)
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
