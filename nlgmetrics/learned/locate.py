"""Finding a learned metric's checkpoint: a local folder, or a hub repository (downloaded once when online, read from
the local hub cache offline). Nothing else is ever fetched; a checkpoint that cannot be found is a ``ValueError``
that says how to get it."""

from __future__ import annotations

import os
from pathlib import Path


def hub_offline() -> bool:
    """Whether the environment forbids hub access (``HF_HUB_OFFLINE`` / ``TRANSFORMERS_OFFLINE``)."""
    return any(os.environ.get(name, "").lower() in ("1", "true", "yes", "on")
               for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"))


def resolve_checkpoint(name_or_path: str, *, metric: str, repo_id: str | None = None,
                       allow_patterns: list[str] | None = None, option: str = "checkpoint") -> Path:
    """The local folder of checkpoint ``name_or_path``.

    A path that exists must be a folder. Anything else is a hub repository (``repo_id`` when the caller mapped a
    short name to one): its snapshot in the local hub cache, or downloaded when online. ``metric`` names the metric
    in errors, ``option`` the keyword that takes the folder."""
    if not isinstance(name_or_path, str) or not name_or_path.strip():
        raise TypeError(f"{metric}: {option} must be a non-empty string (a checkpoint name, a hub id or a local "
                        f"folder), got {name_or_path!r}.")
    local = Path(name_or_path).expanduser()
    if local.exists():
        if not local.is_dir():
            raise ValueError(f"{metric}: {option} {name_or_path!r} is a file, not a folder: pass the folder that "
                             "holds the model's files.")
        return local
    if name_or_path.startswith((".", "/", "~")) or name_or_path.count("/") > 1:
        raise ValueError(f"{metric}: {option} folder {name_or_path!r} does not exist.")
    repo = repo_id or name_or_path
    try:
        from huggingface_hub import snapshot_download

        return Path(snapshot_download(repo, allow_patterns=allow_patterns))
    except Exception as exc:  # noqa: BLE001 - offline, unknown repo, network: one clear message
        where = ("the Hugging Face hub is offline (HF_HUB_OFFLINE=1) with no copy in the local hub cache"
                 if hub_offline() else f"it could not be downloaded ({type(exc).__name__}: "
                 f"{str(exc).splitlines()[0][:200] if str(exc) else ''})")
        raise ValueError(
            f"{metric}: {option} {name_or_path!r} (hub repository {repo!r}) is not a local folder, and {where}. "
            f"Download it once where the hub is reachable (huggingface-cli download {repo} --local-dir DIR) and pass "
            f"{option}=DIR."
        ) from None
