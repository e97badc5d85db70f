"""Validation and normalisation of (predictions, references) shared by every metric.

One place decides what input is acceptable, so every metric, the evaluate modules and the CLI fail the same way:
an :class:`~nlgmetrics.errors.InputTypeError` (a ``TypeError``) or :class:`~nlgmetrics.errors.InputError` (a
``ValueError``) that names the problem and the fix.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Union

from nlgmetrics._quiet import warn
from nlgmetrics.errors import InputError, InputTypeError

References = Sequence[Union[str, Sequence[str]]]

_SURROGATE = re.compile("[\ud800-\udfff]")


def _describe(value: object) -> str:
    return f"{type(value).__name__} {value!r:.60}"


def _as_list(value: object, max_ndim: int = 1) -> list | None:
    """``value`` as a list when it is a sequence of items: a list/tuple/other ``Sequence``, or an array-like with
    ``tolist()`` (a numpy array of at most ``max_ndim`` dimensions, a pandas Series; duck-typed, neither library
    imported). ``None`` otherwise."""
    if isinstance(value, (str, bytes)):
        return None
    if isinstance(value, Sequence):
        return list(value)
    tolist = getattr(value, "tolist", None)
    if callable(tolist) and 1 <= getattr(value, "ndim", 1) <= max_ndim:
        items = tolist()
        return items if isinstance(items, list) else None
    return None


def _as_str(text: object) -> str | None:
    """A plain ``str`` (subclasses such as ``numpy.str_`` converted), or ``None`` for anything else."""
    if isinstance(text, str):
        return text if type(text) is str else str.__str__(text)
    return None


def check_predictions(predictions: object, name: str = "predictions") -> list[str]:
    """Return ``predictions`` as a list of str, or raise ``TypeError`` naming the first bad item.

    Accepts a list or tuple of strings, a 1-d numpy array of strings (``str`` or ``object`` dtype) or a pandas Series.
    """
    out = _as_list(predictions)
    if out is None:
        fix = (
            "Wrap a single text in a list: [text]."
            if isinstance(predictions, (str, bytes))
            else "Pass a list (e.g. list(...)), a tuple, a 1-d numpy array or a pandas Series of strings."
        )
        raise InputTypeError(f"{name} must be a list of strings, one per example; got {_describe(predictions)}. {fix}")
    for i, text in enumerate(out):
        plain = _as_str(text)
        if plain is None:
            raise InputTypeError(
                f"{name}[{i}] must be a string, got {_describe(text)}. "
                f"Replace missing outputs with an empty string '' (it gets the metric's defined empty-text score)."
            )
        out[i] = plain
    return out


def check_references(references: object, n_predictions: int | None = None) -> list[list[str]]:
    """Return references as one list of strings per example.

    Each item may be a string (one reference) or a non-empty list of strings (any count, varying per example). The
    outer sequence and each item may also be a 1-d numpy array or a pandas Series (as for predictions).
    """
    items = _as_list(references, max_ndim=2)  # a 2-d array: k references per example
    if items is None:
        raise InputTypeError(
            "references must be a list with one item per prediction (a string, or a list of strings); "
            f"got {_describe(references)}."
        )
    out: list[list[str]] = []
    for i, item in enumerate(items):
        plain = _as_str(item)
        if plain is not None:
            out.append([plain])
            continue
        refs = _as_list(item)
        if refs is None:
            raise InputTypeError(
                f"references[{i}] must be a string or a list of strings, got {_describe(item)}."
            )
        if not refs:
            raise InputError(
                f"references[{i}] is an empty list: every prediction needs at least one reference. "
                "Drop the example, or pass [''] to score it against an empty reference."
            )
        for j, ref in enumerate(refs):
            plain = _as_str(ref)
            if plain is None:
                raise InputTypeError(f"references[{i}][{j}] must be a string, got {_describe(ref)}.")
            refs[j] = plain
        out.append(refs)
    if n_predictions is not None and len(out) != n_predictions:
        raise InputError(
            f"got {n_predictions} predictions but {len(out)} references: pass exactly one reference item "
            "(a string or a list of strings) per prediction."
        )
    return out


def check_pairs(
    predictions: object, references: object, allow_empty: bool = False
) -> tuple[list[str], list[list[str]]]:
    """Validate a prediction/reference pairing; references come back as a list of lists.

    Raises ``ValueError`` for zero examples unless ``allow_empty`` (a metric then returns its documented empty
    result).
    """
    preds = check_predictions(predictions)
    refs = check_references(references, len(preds))
    if not preds and not allow_empty:
        raise InputError("no examples to score: predictions and references are empty lists.")
    return preds, refs


def replace_lone_surrogates(texts: Sequence[str], metric: str) -> list[str]:
    """``texts`` with every lone surrogate code point (U+D800..U+DFFF, e.g. from ``errors="surrogateescape"``)
    replaced by U+FFFD, and one ``UserWarning`` naming how many texts changed.

    Used where text goes to a tokenizer or an encoder that needs valid Unicode (BERTScore, MoverScore, the embedding
    engine). The lexical metrics do not call it: they treat a surrogate as one more character, as sacrebleu,
    rouge_score and nltk do, and keep their numbers.
    """
    out = list(texts)
    changed = 0
    for i, text in enumerate(out):
        if _SURROGATE.search(text):
            out[i] = _SURROGATE.sub("\ufffd", text)
            changed += 1
    if changed:
        warn(
            f"{metric}: {changed} text(s) hold lone surrogates (invalid Unicode, e.g. undecodable bytes read with "
            "errors='surrogateescape'); each was replaced by U+FFFD before tokenization. Decode the input as UTF-8 "
            "with errors='replace' to silence this."
        )
    return out


def replace_lone_surrogates_in_pairs(
    predictions: list[str], references: list[list[str]], metric: str
) -> tuple[list[str], list[list[str]]]:
    """:func:`replace_lone_surrogates` over a checked pairing (one warning for all its texts)."""
    flat = replace_lone_surrogates(predictions + [r for group in references for r in group], metric)
    preds, rest = flat[: len(predictions)], iter(flat[len(predictions) :])
    return preds, [[next(rest) for _ in group] for group in references]
