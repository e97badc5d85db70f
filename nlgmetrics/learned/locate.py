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


# -- reading a checkpoint's weights and config (BLEURT, MetricX; offered to COMET) ---------------------------------
#: the weight files a transformers-style folder may hold, in the order they are preferred (safetensors: no pickle)
WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")


def weights_file(folder: Path) -> Path | None:
    """The folder's weights: ``model.safetensors`` when present, else ``pytorch_model.bin``, else None."""
    return next((folder / name for name in WEIGHT_FILES if (folder / name).is_file()), None)


def _unreadable(path: Path, metric: str, exc: BaseException) -> CheckpointError:
    """The one message for weights that cannot be read, by what went wrong (never torch's advice to unpickle)."""
    import pickle

    if isinstance(exc, pickle.UnpicklingError) or "weights_only" in str(exc).lower():
        return CheckpointError(
            f"{metric}: {path} holds pickled Python objects besides tensors; nlgmetrics refuses to unpickle them "
            "(unpickling can run arbitrary code). Use the checkpoint's weights as model.safetensors instead (the "
            "hub's safetensors copy, or one converted where the file is trusted).")
    first = str(exc).splitlines()[0].split(". ")[0][:160] if str(exc) else type(exc).__name__
    return CheckpointError(
        f"{metric}: the weights file {path} cannot be read ({type(exc).__name__}: {first}); it is truncated or "
        "corrupted (an interrupted download?): download the checkpoint's files again.")


def weight_shapes(path: Path, metric: str) -> dict[str, tuple[int, ...]]:
    """Each tensor's name and shape in a weights file, without reading the tensors: the safetensors header, or a
    torch zip file memory-mapped (``weights_only=True``). Errors are :class:`CheckpointError` naming the file."""
    import torch

    try:
        if path.suffix == ".safetensors":
            from safetensors import safe_open

            with safe_open(str(path), framework="pt") as handle:
                return {key: tuple(handle.get_slice(key).get_shape()) for key in handle.keys()}
        try:
            state = torch.load(str(path), map_location="meta", weights_only=True, mmap=True)
        except RuntimeError:  # not memory-mappable (torch's legacy, pre-zip format) or truncated: read it all
            state = torch.load(str(path), map_location="cpu", weights_only=True)
    except (Exception, RecursionError) as exc:  # noqa: BLE001 - SafetensorError, UnpicklingError, RuntimeError, ...
        raise _unreadable(path, metric, exc) from None
    return _tensor_dict(state, path, metric, shapes=True)


def load_weights(path: Path, metric: str) -> dict:
    """The tensors of a weights file on the CPU: safetensors, or torch's format read with ``weights_only=True``.
    Errors (a refused pickle, a truncated or corrupted file, something other than a name -> tensor mapping) are
    :class:`CheckpointError` naming the file and the fix."""
    import torch

    try:
        if path.suffix == ".safetensors":
            from safetensors.torch import load_file

            return load_file(str(path))
        state = torch.load(str(path), map_location="cpu", weights_only=True)
    except (Exception, RecursionError) as exc:  # noqa: BLE001
        raise _unreadable(path, metric, exc) from None
    return _tensor_dict(state, path, metric)


def _tensor_dict(state: object, path: Path, metric: str, shapes: bool = False) -> dict:
    import torch

    if not isinstance(state, dict) or not all(isinstance(k, str) and isinstance(v, torch.Tensor)
                                              for k, v in state.items()):
        raise CheckpointError(f"{metric}: {path} is not a state dict (a mapping of parameter names to tensors): "
                              "pass the folder of a checkpoint saved with save_pretrained.")
    return {k: tuple(v.shape) for k, v in state.items()} if shapes else state


def config_ints(config: object, keys: dict[str, int | None], path: Path, metric: str) -> dict[str, int]:
    """The integer settings ``keys`` (name -> default, None: required) of a parsed config file, each checked to be a
    positive integer, else a :class:`CheckpointError` naming the file, the setting and the value."""
    if not isinstance(config, dict):
        raise CheckpointError(f"{metric}: {path} must hold a JSON object of settings, got {type(config).__name__}.")
    out = {}
    for key, default in keys.items():
        value = config.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            found = "is missing" if key not in config else f"is {value!r:.40}"
            raise CheckpointError(f"{metric}: {key} in {path} {found}; it must be a positive integer (the value the "
                                  "checkpoint was saved with): download the checkpoint's config again.")
        out[key] = value
    return out


def check_weights_match(expected: dict[str, tuple[int, ...]], found: dict[str, tuple[int, ...]], path: Path,
                        metric: str, config: str = "config.json") -> None:
    """Strict loading: the weights the model uses (``expected``: name -> shape, built from ``config`` on the meta
    device) must be exactly the weights ``path`` provides (``found``, after the reference's renames), with the same
    shapes; otherwise a :class:`CheckpointError` names the difference."""
    missing, unused = sorted(expected.keys() - found.keys()), sorted(found.keys() - expected.keys())
    wrong = [f"{k} {found[k]} (config says {expected[k]})" for k in sorted(expected.keys() & found.keys())
             if tuple(found[k]) != tuple(expected[k])]

    def listed(names: list[str]) -> str:
        return ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")

    problems = ([f"missing {listed(missing)}"] if missing else []) + (
        [f"not used by the model: {listed(unused)}"] if unused else []) + (
        [f"shapes differ: {listed(wrong)}"] if wrong else [])
    if problems:
        raise CheckpointError(
            f"{metric}: the weights in {path} do not match the model its {config} describes ({'; '.join(problems)}). "
            f"Pass a folder whose {config} and weights come from the same checkpoint.")
