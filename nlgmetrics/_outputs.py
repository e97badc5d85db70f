"""Where a figure may be written: the one rule every plot (compare's figure, the alignment heatmap) follows.

A figure never replaces an input file, a file that is not an image of its own format, a folder or a symbolic link.
A path without a suffix gets ``.png`` (as matplotlib would add it), and the real path is what the caller reports.
Missing parent folders are created when the figure is written.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

#: figure formats by suffix -> a test on the first bytes of an existing file (only such a file may be replaced).
IMAGE_SIGNATURES: dict[str, Callable[[bytes], bool]] = {
    "png": lambda head: head.startswith(b"\x89PNG\r\n\x1a\n"),
    "pdf": lambda head: head.startswith(b"%PDF"),
    "svg": lambda head: b"<svg" in head,
    "jpg": lambda head: head.startswith(b"\xff\xd8\xff"),
    "jpeg": lambda head: head.startswith(b"\xff\xd8\xff"),
}


def figure_target(
    path: str | os.PathLike, *, inputs: Iterable[str | os.PathLike] = (), formats: Iterable[str] = tuple(IMAGE_SIGNATURES)
) -> tuple[Path, str]:
    """``(path to write, format)`` for a figure asked for at ``path``, or a ``ValueError`` naming the problem.

    ``inputs``: files the command reads (a figure never replaces one). ``formats``: accepted suffixes (lower case).
    """
    if not isinstance(path, (str, os.PathLike)) or not str(path):
        raise TypeError(f"the figure path must be a file name such as 'figure.png', got {path!r:.60}.")
    formats = tuple(formats)
    target = Path(path)
    if target.is_dir():
        raise ValueError(f"{target} is a folder; pass a file name in it, e.g. {target / ('figure.' + formats[0])}.")
    suffix = target.suffix.lower().lstrip(".")
    if not suffix:
        target, suffix = target.with_name(target.name + ".png"), "png"
    for name in inputs:
        if name != "-" and _same_file(target, Path(name)):
            raise ValueError(f"{target} is an input file of this command; choose another path for the figure.")
    if suffix not in formats:
        raise ValueError(f"{path}: a figure is written as {', '.join('.' + f for f in formats)}; "
                         f"name the file e.g. {target.with_suffix('.' + formats[0])}.")
    if target.is_symlink():
        raise ValueError(f"{target} is a symbolic link; figures are never written through links: choose another path.")
    if target.is_dir():
        raise ValueError(f"{target} is a folder; pass a file name in it, e.g. {target / ('figure.' + suffix)}.")
    if target.exists():
        try:
            with open(target, "rb") as file:
                head = file.read(1024)
        except OSError as exc:
            raise ValueError(f"{target} cannot be read ({exc.strerror or exc}); choose another path.") from None
        if not IMAGE_SIGNATURES[suffix](head):
            raise ValueError(f"{target} exists and is not a {suffix.upper()} image; a figure replaces only an image "
                             "of its own format: choose another path.")
    return target, suffix


def save_figure(figure: Any, path: str | os.PathLike, *, formats: Iterable[str] = tuple(IMAGE_SIGNATURES),
                **savefig: Any) -> Path:
    """Check ``path`` (:func:`figure_target`), create its missing folders and save the matplotlib ``figure`` there;
    returns the path written. A failure to write is a ``ValueError`` naming the path."""
    target, fmt = figure_target(path, formats=formats)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        figure.savefig(target, format=fmt, **savefig)
    except OSError as exc:
        raise ValueError(f"cannot write the figure {target} ({exc.strerror or exc}); choose another path.") from None
    return target


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return False
