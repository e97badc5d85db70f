"""File arguments, declared by kind so one check covers every command: an option that names a file the command
reads has ``type=InputPath()``, one that names a file or folder it writes has ``type=OutputPath(...)``.

:func:`check_outputs` runs in the error boundary after parsing and before the command: every output option's value
is checked by :mod:`nlgmetrics._outputs` against every input and every other output of the same command line (never a
link, never an input, never the file another output option names, its folder existing, an existing file replaced only
as the kind allows; a figure needs matplotlib) and replaced by the path to write.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from nlgmetrics import _outputs
from nlgmetrics.cli._boundary import CLIError


class InputPath:
    """argparse type of an option naming a file or folder the command reads (``split="="``: ``NAME=FILE``)."""

    def __init__(self, split: str | None = None) -> None:
        self.split = split

    def __call__(self, text: str) -> str:
        return text

    def files(self, value: str) -> str:
        return value.partition(self.split)[2] if self.split else value

    def __repr__(self) -> str:
        return "InputPath()"


class OutputPath:
    """argparse type of an option naming what the command writes.

    ``kind``: ``"figure"`` (an image; an existing image of its format may be replaced; ``formats``: suffixes),
    ``"file"`` (an existing file is left to the command's own rule, checked before its work, e.g. ``--overwrite``)
    or ``"folder"`` (created if missing, never a link or a file)."""

    def __init__(self, kind: str, formats: tuple[str, ...] | None = None) -> None:
        if kind not in ("figure", "file", "folder"):
            raise ValueError(f"unknown output kind {kind!r}")
        self.kind, self.formats = kind, formats

    def __call__(self, text: str) -> str:
        return text

    def check(self, flag: str, value: str, inputs: list[str], others: dict[str, Path] | None = None) -> Path:
        """``value`` checked by :mod:`nlgmetrics._outputs` (``others``: the command's outputs checked so far)."""
        try:
            if self.kind == "figure":
                return _outputs.figure_target(value, inputs=inputs, others=others,
                                              formats=self.formats or tuple(_outputs.IMAGE_SIGNATURES))[0]
            if self.kind == "folder":
                return _outputs.output_folder(value, inputs=inputs, others=others)
            return _outputs.output_target(value, inputs=inputs, replaceable=lambda _: True, others=others)
        except ValueError as exc:  # OutputError; MissingExtraError (a figure without matplotlib)
            raise CLIError(f"{flag} {exc}") from None

    def __repr__(self) -> str:
        return f"OutputPath({self.kind!r})"


def chosen_actions(parser: argparse.ArgumentParser, args: argparse.Namespace) -> Iterator[argparse.Action]:
    """The actions of ``parser`` and of the subcommands ``args`` chose (nested: ``hub build``)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            chosen = action.choices.get(getattr(args, action.dest, None) or "")
            if chosen is not None:
                yield from chosen_actions(chosen, args)
        else:
            yield action


def _values(value: Any) -> list[str]:
    if value is None:
        return []
    return [str(v) for v in value] if isinstance(value, (list, tuple)) else [str(value)]


def check_outputs(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Check every output option of the chosen command against its inputs (before any work); each value becomes
    the path to write. A :class:`CLIError` naming the flag otherwise."""
    actions = list(chosen_actions(parser, args))
    inputs = [action.type.files(v) for action in actions if isinstance(action.type, InputPath)
              for v in _values(getattr(args, action.dest, None))]
    checked: dict[str, Path] = {}
    for action in actions:
        if isinstance(action.type, OutputPath) and getattr(args, action.dest, None) is not None:
            flag = max(action.option_strings, key=len) if action.option_strings else action.dest
            checked[flag] = action.type.check(flag, str(getattr(args, action.dest)), inputs, others=dict(checked))
            setattr(args, action.dest, checked[flag])
