"""Finding a learned metric's checkpoint: a local folder, or a hub repository (read from the local Hugging Face cache
first, downloaded only when that fails and the hub is not offline). Nothing else is ever fetched; a checkpoint that
cannot be found, or a folder that is not one, is a :class:`CheckpointError` (a ``ValueError``) saying what was passed,
why it failed and how to get it."""

from __future__ import annotations

import json
import os
import re
import shlex
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
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


# -- reading a checkpoint's weights and config (BLEURT, MetricX; COMET's model.ckpt is one file) --------------------
#: the forms ``save_pretrained`` and the hub store weights in, in the order transformers prefers them (safetensors
#: first: no pickle): per format the single file, then the index of its shards
WEIGHT_FORMS = (("model.safetensors", "model.safetensors.index.json"),
                ("pytorch_model.bin", "pytorch_model.bin.index.json"))
WEIGHT_FILES = tuple(name for form in WEIGHT_FORMS for name in form)
_SHARD_NAME = re.compile(r"^(?P<stem>.+)-(?P<k>\d+)-of-(?P<n>\d+)(?P<suffix>\.safetensors|\.bin)$")


@dataclass(frozen=True)
class Weights:
    """A checkpoint's weights as ``save_pretrained`` writes them: one file (``model.safetensors``,
    ``pytorch_model.bin``), or shards listed by an index (``model.safetensors.index.json`` +
    ``model-0000k-of-0000n.safetensors``; ``pytorch_model.bin.index.json`` + ``pytorch_model-0000k-of-0000n.bin``).

    ``path``: the file, or the index (what errors name); ``files``: the files holding tensors; ``shards``: for a
    sharded checkpoint, each tensor's file as the index maps it (None for one file)."""

    path: Path
    files: tuple[Path, ...]
    shards: Mapping[str, Path] | None = None


def find_weights(folder: Path, metric: str) -> Weights | None:
    """The weights ``folder`` holds, in transformers' order of preference (:data:`WEIGHT_FORMS`), or None. An index
    is checked here: valid JSON mapping tensor names to shard file names in the folder, every shard it lists present,
    and no shard of its naming (``stem-k-of-n``) that it does not list holding tensors; otherwise a
    :class:`CheckpointError` naming the shard."""
    for single, index in WEIGHT_FORMS:
        if (folder / single).is_file():
            return Weights(folder / single, (folder / single,))
        if (folder / index).is_file():
            return _read_index(folder / index, metric)
    return None


def weights_file(folder: Path) -> Path | None:
    """The file (or shard index) ``find_weights`` would read in ``folder``, without reading it; None when there is
    none (a layout check)."""
    return next((folder / name for name in WEIGHT_FILES if (folder / name).is_file()), None)


def _read_index(path: Path, metric: str) -> Weights:
    folder = path.parent
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError, RecursionError) as exc:
        first = str(exc).splitlines()[0][:160] if str(exc) else type(exc).__name__
        raise CheckpointError(f"{metric}: the shard index {path} is not valid JSON ({first}): download the "
                              "checkpoint's files again.") from None
    mapping = data.get("weight_map") if isinstance(data, dict) else None
    if not isinstance(mapping, dict) or not mapping or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in mapping.items()):
        raise CheckpointError(f"{metric}: the shard index {path} has no weight_map (tensor name -> shard file): "
                              "download the checkpoint's files again.")
    listed = sorted(set(mapping.values()))
    outside = [name for name in listed if Path(name).name != name or name in (".", "..")]
    if outside:
        raise CheckpointError(f"{metric}: the shard index {path} names {outside[0]!r}, not a file beside it: shards "
                              "must lie in the checkpoint folder; download the checkpoint's files again.")
    missing = [name for name in listed if not (folder / name).is_file()]
    if missing:
        raise CheckpointError(
            f"{metric}: the shard {missing[0]} that {path.name} lists is missing from {folder}"
            f"{f' (and {len(missing) - 1} more)' if len(missing) > 1 else ''}: download the checkpoint's files again "
            "(an interrupted download?).")
    # a file named like the shards (stem-k-of-n) that the index does not list: another save's shard, unless it holds
    # no tensor (transformers 4 writes an empty first shard when the first tensor exceeds max_shard_size, unlisted)
    stems = {(m["stem"], m["suffix"]) for m in map(_SHARD_NAME.match, listed) if m}
    for other in sorted(folder.iterdir()):
        found = _SHARD_NAME.match(other.name)
        if other.name in listed or not found or (found["stem"], found["suffix"]) not in stems or not other.is_file():
            continue
        held = _file_shapes(other, metric)
        if held:
            raise CheckpointError(
                f"{metric}: {folder} holds the shard {other.name} ({len(held)} tensors, e.g. {next(iter(held))}), "
                f"which {path.name} does not list: the index and the shards come from different saves; download "
                "the checkpoint's files again into an empty folder.")
    return Weights(path, tuple(folder / name for name in listed), {k: folder / v for k, v in mapping.items()})


def _as_weights(weights: Weights | Path) -> Weights:
    return weights if isinstance(weights, Weights) else Weights(Path(weights), (Path(weights),))


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


def _file_shapes(path: Path, metric: str) -> dict[str, tuple[int, ...]]:
    """Each tensor's name and shape in one weights file, from its header (safetensors) or memory-mapped on the meta
    device (torch's zip format, ``weights_only=True``): nothing is read into memory."""
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


def weight_shapes(weights: Weights | Path, metric: str) -> dict[str, tuple[int, ...]]:
    """Each tensor's name and shape, without reading the tensors (:func:`_file_shapes` of every file). For shards,
    each shard must hold exactly the tensors the index maps to it, else a :class:`CheckpointError` naming the shard
    and the tensor. Errors are :class:`CheckpointError` naming the file."""
    weights = _as_weights(weights)
    shapes: dict[str, tuple[int, ...]] = {}
    for path in weights.files:
        found = _file_shapes(path, metric)
        if weights.shards is not None:
            listed = {name for name, shard in weights.shards.items() if shard == path}
            extra, absent = sorted(found.keys() - listed), sorted(listed - found.keys())
            if extra or absent:
                what = (f"holds {extra[0]}, which {weights.path.name} maps elsewhere or not at all" if extra else
                        f"lacks {absent[0]}, which {weights.path.name} maps to it")
                raise CheckpointError(f"{metric}: the shard {path} {what}: the index and the shards come from "
                                      "different saves; download the checkpoint's files again.")
        shapes.update(found)
    return shapes


def load_weights(weights: Weights | Path, metric: str, names: Collection[str] | None = None) -> dict:
    """The tensors on the CPU (only ``names`` when given): safetensors, or torch's format read with
    ``weights_only=True``, shard by shard. Errors (a refused pickle, a truncated or corrupted file, something other
    than a name -> tensor mapping) are :class:`CheckpointError` naming the file and the fix."""
    import torch

    out: dict = {}
    for path in _as_weights(weights).files:
        try:
            if path.suffix == ".safetensors":
                from safetensors import safe_open

                with safe_open(str(path), framework="pt") as handle:
                    state = {key: handle.get_tensor(key) for key in handle.keys() if names is None or key in names}
            else:
                state = torch.load(str(path), map_location="cpu", weights_only=True)
        except (Exception, RecursionError) as exc:  # noqa: BLE001
            raise _unreadable(path, metric, exc) from None
        state = _tensor_dict(state, path, metric)
        out.update(state if names is None else {k: v for k, v in state.items() if k in names})
    return out


def weights_digest(weights: Weights | Path | Sequence[Path]) -> str:
    """The content digest of a checkpoint's weights, for signatures: :func:`nlgmetrics._digest.files_digest` over
    its weight files (headers and tensors; shards and their index included), so two folders of one name with other
    weights differ, and replaced weights of the same size do too; an unchanged checkpoint is read once."""
    from nlgmetrics._digest import files_digest

    if isinstance(weights, Weights):
        return files_digest((*weights.files, *([weights.path] if weights.shards is not None else [])))
    return files_digest((weights,) if isinstance(weights, (str, os.PathLike)) else weights)


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
