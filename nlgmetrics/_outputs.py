"""Where nlgmetrics may write a file: the one rule every output follows (figures, tables, baselines, Space folders,
caches, checkpoints built by commands), from the command line and the Python API alike.

An output path is checked before any work (:func:`output_target`, :func:`figure_target`, :func:`output_folder`):

- never a symbolic link (not even a dangling one): no file is written through a link (a folder given as a link to
  an existing folder is that folder: its files are created new, one by one);
- never an input file of the same call, never the file another output of the same call writes (``others``: e.g.
  ``agree --plot p.png --scatter p.png``, where the second figure would replace the first), and never a folder (for a
  file) or a file (for a folder);
- a figure needs matplotlib (the ``[plot]`` extra): checked with the path, so a missing extra fails before the work,
  not after it (:func:`figure_target`);
- its folder must exist (a typo in a folder name fails at once, not after an hour of scoring), except where
  nlgmetrics itself chose the path (``make_parents=True``: its own cache and baseline folders);
- an existing file is replaced only when the caller says it may be (``replaceable``: e.g. an image of the figure's
  own format, a baseline file with ``--overwrite``).

Then it is written atomically (:func:`write_atomic`, :func:`save_figure`): into a temporary file beside it, moved over
the target with ``os.replace``, which replaces a link itself rather than what it points to; readers see the old file
or the complete new one. Every refusal is an :class:`~nlgmetrics.errors.OutputError` (a ``ValueError``) naming the
path and the fix. A path without a suffix gets ``.png`` for a figure (as matplotlib would add it), and the real path
is what the caller reports.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from nlgmetrics.errors import OutputError

#: figure formats by suffix -> a test on the first bytes of an existing file (only such a file may be replaced).
IMAGE_SIGNATURES: dict[str, Callable[[bytes], bool]] = {
    "png": lambda head: head.startswith(b"\x89PNG\r\n\x1a\n"),
    "pdf": lambda head: head.startswith(b"%PDF"),
    "svg": lambda head: b"<svg" in head,
    "jpg": lambda head: head.startswith(b"\xff\xd8\xff"),
    "jpeg": lambda head: head.startswith(b"\xff\xd8\xff"),
}


def output_target(
    path: str | os.PathLike, *, inputs: Iterable[str | os.PathLike] = (),
    replaceable: Callable[[Path], bool] | None = None, what: str = "output file", make_parents: bool = False,
    refusal: str = "", others: Mapping[str, str | os.PathLike] | None = None,
) -> Path:
    """The file to write for ``path``, checked by the module's rule; an :class:`OutputError` naming the problem.

    ``inputs``: files the call reads. ``others``: the call's other outputs, ``{name: path}`` (``name`` says which in
    the error, e.g. ``--plot``). ``replaceable(path)``: whether an existing file may be replaced (default: no);
    ``refusal``: what the error says then (default: it exists). ``what`` names the output in messages."""
    if not isinstance(path, (str, os.PathLike)) or not str(path):
        raise OutputError(f"the {what} must be a file name, got {path!r:.60}.")
    target = Path(path)
    if target.is_symlink():
        raise OutputError(f"{target} is a symbolic link; nlgmetrics never writes through links: choose another path.")
    if target.is_dir():
        raise OutputError(f"{target} is a folder; pass a file name in it, e.g. {target / 'out'}.")
    for name in inputs:
        if name is not None and str(name) != "-" and _same_file(target, Path(name)):
            raise OutputError(f"{target} is an input file of this command; choose another path for the {what}.")
    _check_others(target, others, what)
    _check_folder(target.parent, make_parents)
    if target.exists() and not (replaceable is not None and replaceable(target)):
        raise OutputError(refusal or f"{target} exists; nlgmetrics does not replace it: choose another path "
                                     "(or move the file away).")
    return target


def output_folder(path: str | os.PathLike, *, inputs: Iterable[str | os.PathLike] = (), what: str = "output folder",
                  make_parents: bool = False, others: Mapping[str, str | os.PathLike] | None = None) -> Path:
    """A folder to create or write into: never a file or a dangling link, never an input, its parent existing. A link
    to an existing folder is that folder (the files written in it are still checked one by one)."""
    if not isinstance(path, (str, os.PathLike)) or not str(path):
        raise OutputError(f"the {what} must be a folder path, got {path!r:.60}.")
    target = Path(path)
    if target.is_symlink() and not target.is_dir():
        raise OutputError(f"{target} is a symbolic link that does not lead to a folder; nlgmetrics never writes "
                          "through links: choose another path.")
    if target.exists() and not target.is_dir():
        raise OutputError(f"{target} is a file; pass the path of a folder (it is created if missing).")
    for name in inputs:
        if name is not None and str(name) != "-" and _same_file(target, Path(name)):
            raise OutputError(f"{target} is an input of this command; choose another {what}.")
    _check_others(target, others, what)
    _check_folder(target.parent, make_parents)
    return target


def figure_target(
    path: str | os.PathLike, *, inputs: Iterable[str | os.PathLike] = (), formats: Iterable[str] = tuple(IMAGE_SIGNATURES),
    others: Mapping[str, str | os.PathLike] | None = None,
) -> tuple[Path, str]:
    """``(path to write, format)`` for a figure asked for at ``path`` (:func:`output_target`'s rule; an existing file
    is replaced only if it is an image of the figure's format). ``formats``: accepted suffixes (lower case). A
    :class:`~nlgmetrics.errors.MissingExtraError` when matplotlib (the ``[plot]`` extra) is not installed."""
    from nlgmetrics.extras import require_extra

    require_extra("plot", f"the figure {path}")
    if not isinstance(path, (str, os.PathLike)) or not str(path):
        raise OutputError(f"the figure path must be a file name such as 'figure.png', got {path!r:.60}.")
    formats = tuple(formats)
    target = Path(path)
    if target.is_dir() and not target.is_symlink():
        raise OutputError(f"{target} is a folder; pass a file name in it, e.g. {target / ('figure.' + formats[0])}.")
    suffix = target.suffix.lower().lstrip(".")
    if not suffix:
        target, suffix = target.with_name(target.name + ".png"), "png"
    if suffix not in formats:
        for name in inputs:  # an input named like a figure is named as an input first
            if name is not None and str(name) != "-" and _same_file(target, Path(name)):
                raise OutputError(f"{target} is an input file of this command; choose another path for the figure.")
        raise OutputError(f"{path}: a figure is written as {', '.join('.' + f for f in formats)}; "
                          f"name the file e.g. {target.with_suffix('.' + formats[0])}.")

    def own_image(existing: Path) -> bool:
        try:
            with open(existing, "rb") as file:
                return IMAGE_SIGNATURES[suffix](file.read(1024))
        except OSError:
            return False

    target = output_target(
        target, inputs=inputs, replaceable=own_image, what="figure", others=others,
        refusal=f"{target} exists and is not a {suffix.upper()} image; a figure replaces only an image of its own "
                "format: choose another path.",
    )
    return target, suffix


def write_atomic(path: str | os.PathLike, data: bytes | str | Callable[[Path], Any], *, what: str = "file") -> Path:
    """Write ``data`` (bytes, text as UTF-8, or ``writer(temporary_path)``) to a temporary file beside ``path`` and
    move it over ``path`` (``os.replace``: a link there is replaced, never followed). ``path`` must have passed
    :func:`output_target` (or :func:`figure_target`); a failure is an :class:`OutputError` and leaves ``path`` as it
    was. Returns ``path``."""
    target = Path(path)
    try:
        handle, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise OutputError(f"cannot write the {what} {target} ({exc.strerror or exc}); choose another path.") from None
    temporary = Path(name)
    try:
        with os.fdopen(handle, "wb") as file:
            if isinstance(data, (bytes, str)):
                file.write(data.encode("utf-8") if isinstance(data, str) else data)
        if callable(data):
            data(temporary)
        os.chmod(temporary, 0o666 & ~_umask())
        os.replace(temporary, target)
    except OSError as exc:
        raise OutputError(f"cannot write the {what} {target} ({exc.strerror or exc}); choose another path.") from None
    finally:
        if temporary.exists():
            temporary.unlink()
    return target


def save_figure(figure: Any, path: str | os.PathLike, *, inputs: Iterable[str | os.PathLike] = (),
                formats: Iterable[str] = tuple(IMAGE_SIGNATURES), **savefig: Any) -> Path:
    """Check ``path`` (:func:`figure_target`) and save the matplotlib ``figure`` there atomically; returns the path
    written. A failure to write is an :class:`OutputError` naming the path."""
    target, fmt = figure_target(path, inputs=inputs, formats=formats)
    return write_atomic(target, lambda temporary: figure.savefig(temporary, format=fmt, **savefig), what="figure")


def _check_others(target: Path, others: Mapping[str, str | os.PathLike] | None, what: str) -> None:
    """The ``others`` outputs of the same call never name ``target``: the second write would replace the first."""
    for name, other in (others or {}).items():
        if other is not None and (_same_file(target, Path(other)) or target.absolute() == Path(other).absolute()):
            raise OutputError(f"{target} is also the {name} of this command; one command writes each file once: "
                              f"choose another path for the {what}.")


def _check_folder(folder: Path, make_parents: bool) -> None:
    folder = folder if str(folder) else Path(".")
    if folder.is_dir():
        return
    existing = next((p for p in folder.parents if p.exists()), None)
    if folder.exists() or (existing is not None and not existing.is_dir()):
        blocker = folder if folder.exists() else next(p for p in [folder, *folder.parents] if p.exists())
        raise OutputError(f"cannot write into {folder}: {blocker} is a file, not a folder; choose another path.")
    if not make_parents:
        raise OutputError(f"the folder {folder} does not exist; create it first (mkdir -p {folder}) or choose "
                          "another path.")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"cannot create the folder {folder} ({exc.strerror or exc}); choose another path.") from None


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _same_file(a: Path, b: Path) -> bool:
    """Whether ``a`` and ``b`` name one file (the same inode, or the same resolved path when one is missing)."""
    try:
        if a.exists() and b.exists():
            return os.path.samefile(a, b)
        return a.resolve() == b.resolve()
    except (OSError, RuntimeError):
        return False
