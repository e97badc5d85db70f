"""Finding a learned metric's checkpoint: a local folder, or a hub repository (read from the local Hugging Face cache
first, downloaded only when that fails and the hub is not offline). Nothing else is ever fetched; a checkpoint that
cannot be found, or a folder that is not one, is a :class:`CheckpointError` (a ``ValueError``) saying what was passed,
why it failed and how to get it."""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable
from pathlib import Path

from nlgmetrics.errors import CheckpointError

#: ``layout(folder)``: None when ``folder`` holds what the metric reads, else what is wrong, worded to follow the
#: folder's name ("has no config.json", "is not a COMET checkpoint folder: ...").
Layout = Callable[[Path], "str | None"]


def hub_offline() -> bool:
    """Whether the environment forbids hub access (``HF_HUB_OFFLINE`` / ``TRANSFORMERS_OFFLINE``)."""
    return any(os.environ.get(name, "").lower() in ("1", "true", "yes", "on")
               for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"))


def resolve_checkpoint(name_or_path: str | os.PathLike, *, metric: str, repo_id: str | None = None,
                       allow_patterns: list[str] | None = None, option: str = "checkpoint",
                       layout: Layout | None = None, hint: str = "") -> Path:
    """The local folder of checkpoint ``name_or_path``.

    A path that exists must be a folder; one that does not exist but looks like a path (``./x``, ``/x``, ``~/x``,
    ``a/b/c``) is an error. Anything else names a hub repository (``repo_id`` when the caller mapped a short name to
    one): its snapshot in the local Hugging Face cache, else (hub not offline) downloaded, ``allow_patterns`` only.
    The folder found must pass ``layout``. ``metric`` prefixes errors, ``option`` names the keyword taking the folder,
    ``hint`` (what to pass) ends the errors about local folders."""
    if not isinstance(name_or_path, (str, os.PathLike)) or not str(name_or_path).strip():
        raise TypeError(f"{metric}: {option} must be a non-empty string (a checkpoint name, a hub id or a local "
                        f"folder), got {name_or_path!r:.60}.")
    name = str(name_or_path)
    local = Path(name).expanduser()
    if local.exists():
        if not local.is_dir():
            raise CheckpointError(_join(f"{metric}: {option} {name!r} is a file, not a folder: pass the folder that "
                                        "holds the model's files.", hint))
        return _checked(local, metric, option, layout, hint)
    if name.startswith((".", "/", "~")) or name.count("/") > 1:
        raise CheckpointError(_join(f"{metric}: {option} folder {name!r} does not exist.", hint))
    repo = repo_id or name
    folder = _from_cache(repo, allow_patterns)
    if folder is None or (layout is not None and layout(folder) and not hub_offline()):  # missing or incomplete
        folder = _download(name, repo, metric, option, allow_patterns)
    return _checked(folder, metric, option, layout, hint)


def _from_cache(repo: str, allow_patterns: list[str] | None) -> Path | None:
    from huggingface_hub import snapshot_download

    try:
        return Path(snapshot_download(repo, allow_patterns=allow_patterns, local_files_only=True))
    except Exception:  # noqa: BLE001 - not in the cache
        return None


def _download(name: str, repo: str, metric: str, option: str, allow_patterns: list[str] | None) -> Path:
    from huggingface_hub import snapshot_download

    if hub_offline():
        reason = "it is not in the Hugging Face cache and the hub is offline (HF_HUB_OFFLINE/TRANSFORMERS_OFFLINE)"
    else:
        try:
            return Path(snapshot_download(repo, allow_patterns=allow_patterns))
        except Exception as exc:  # noqa: BLE001 - gated, unknown repo, network: one clear message
            reason = _download_failure(exc)
    include = " --include " + " ".join(map(shlex.quote, allow_patterns)) if allow_patterns else ""
    raise CheckpointError(
        f"{metric}: {option} {name!r} (hub repository {repo!r}) is not a local folder, and {reason}. Download it once "
        f"where the hub is reachable (hf download {repo} --local-dir DIR{include}) and pass {option}=DIR."
    )


def _checked(folder: Path, metric: str, option: str, layout: Layout | None, hint: str) -> Path:
    problem = layout(folder) if layout is not None else None
    if problem:
        raise CheckpointError(_join(f"{metric}: {option} {folder} {problem}.", hint))
    return folder


def _join(message: str, hint: str) -> str:
    return f"{message} {hint}" if hint else message


def _download_failure(exc: Exception) -> str:
    first_line = str(exc).splitlines()[0][:200] if str(exc) else ""
    reason = f"it could not be downloaded ({type(exc).__name__}: {first_line})"
    if type(exc).__name__ == "GatedRepoError":
        reason += "; a gated repository needs its licence accepted on the hub, then `hf auth login`"
    return reason
