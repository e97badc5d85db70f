"""Finding and reading COMET checkpoints as Unbabel publishes them (hparams.yaml + checkpoints/model.ckpt).

A COMET checkpoint is a folder ``<name>/hparams.yaml`` + ``<name>/checkpoints/model.ckpt`` (a PyTorch Lightning
checkpoint whose ``state_dict`` holds the encoder, the layerwise attention and the estimator). It is found from:

- a local folder with that layout, or the path of its ``checkpoints/model.ckpt``;
- a hub id (``Unbabel/wmt22-comet-da``; HF evaluate's short names such as ``wmt22-comet-da`` mean ``Unbabel/...``):
  the Hugging Face cache first, then a download when online (:func:`nlgmetrics.learned.locate.resolve_checkpoint`).

The encoder's *config and tokenizer* (not its weights: those are in the checkpoint) come from the model named in
hparams (``pretrained_model``, e.g. ``xlm-roberta-large``; MiniLM models take XLM-R's tokenizer, ``xlm-roberta-base``,
as unbabel-comet does), looked up in order: the ``encoder=`` folder given by the caller, ``pretrained_model`` itself
when it is a local folder, the checkpoint folder (drop ``config.json`` and the tokenizer files there), the Hugging
Face cache, and the hub when online. Offline and not found: a :class:`CheckpointError` saying how to point at a
folder.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from nlgmetrics.learned.locate import CheckpointError, hub_offline, resolve_checkpoint

#: HF evaluate's ``comet`` module: ``default`` is this checkpoint.
DEFAULT_CHECKPOINT = "Unbabel/wmt22-comet-da"
HPARAMS = "hparams.yaml"
CKPT = Path("checkpoints") / "model.ckpt"
_TOKENIZER_FILES = ("tokenizer.json", "sentencepiece.bpe.model", "vocab.txt")
_HINT = (f"Pass a COMET checkpoint folder ({HPARAMS} and {CKPT.as_posix()}; e.g. hf download "
         f"{DEFAULT_CHECKPOINT} --local-dir DIR) or a hub id such as {DEFAULT_CHECKPOINT}.")


def comet_layout(folder: Path) -> str | None:
    """What keeps ``folder`` from being a COMET checkpoint (Unbabel's layout), or None."""
    if (folder / HPARAMS).is_file() and (folder / CKPT).is_file():
        return None
    return (f"is not a COMET checkpoint folder: Unbabel's layout is {HPARAMS} and {CKPT.as_posix()} inside one "
            "folder, as downloaded from the hub")


def find_checkpoint(model: str | os.PathLike) -> Path:
    """The checkpoint folder of ``model``: a local folder, its ``.../checkpoints/model.ckpt``, or a hub id (short
    names such as ``wmt22-comet-da`` mean ``Unbabel/...``)."""
    text = str(model) if isinstance(model, (str, os.PathLike)) else ""
    path = Path(text).expanduser()
    if text and path.is_file() and path.suffix == ".ckpt":
        model = path.parents[1]
    return resolve_checkpoint(model, metric="COMET", option="model", repo_id=text if "/" in text else f"Unbabel/{text}",
                              layout=comet_layout, hint=_HINT)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


#: the hparams a scoring model reads -> (what they must be, the check). Shapes are checked against the weights later.
_HPARAM_TYPES: dict[str, tuple[str, Any]] = {
    "class_identifier": ("a string", lambda v: isinstance(v, str)),
    "encoder_model": ("a string", lambda v: isinstance(v, str)),
    "pretrained_model": ("a string (hub id or folder)", lambda v: isinstance(v, str) and bool(v.strip())),
    "layer": ("'mix' or a layer index", lambda v: v == "mix" or _is_int(v)),
    "sent_layer": ("'mix' or a layer index", lambda v: v == "mix" or _is_int(v)),
    "word_layer": ("a layer index", _is_int),
    "layer_norm": ("true or false", lambda v: isinstance(v, bool)),
    "layer_transformation": ("softmax, sparsemax or sparsemax_patch",
                             lambda v: v in ("softmax", "sparsemax", "sparsemax_patch")),
    "pool": ("a string (avg, max, cls)", lambda v: isinstance(v, str)),
    "hidden_sizes": ("a list of positive integers", lambda v: isinstance(v, list) and all(
        _is_int(x) and x > 0 for x in v)),
    "activations": ("the name of a torch.nn activation", lambda v: isinstance(v, str)),
    "final_activation": ("null or the name of a torch.nn activation", lambda v: v is None or isinstance(v, str)),
    "dropout": ("a number", lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)),
    "input_segments": ("a list of mt, src, ref starting with mt", lambda v: v is None or (
        isinstance(v, list) and v[:1] == ["mt"] and set(v) <= {"mt", "src", "ref"} and len(set(v)) == len(v))),
    "error_labels": ("a list of strings", lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v)),
}


def read_hparams(folder: Path) -> dict[str, Any]:
    """``hparams.yaml``, safely parsed, with the types of the values a scoring model reads checked (a
    :class:`CheckpointError` naming the file, the key and what it must be otherwise)."""
    import yaml

    path = folder / HPARAMS
    try:
        hparams = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError, RecursionError) as exc:
        reason = "nested too deeply" if isinstance(exc, RecursionError) else str(exc).splitlines()[0][:200]
        raise CheckpointError(f"{path} is not valid YAML ({reason}): use the {HPARAMS} published with the "
                              "checkpoint.") from None
    if not isinstance(hparams, dict) or "class_identifier" not in hparams:
        raise CheckpointError(f"{path} has no class_identifier: not a COMET hparams file.")
    for key, (what, valid) in _HPARAM_TYPES.items():
        if key in hparams and not valid(hparams[key]):
            raise CheckpointError(f"{path}: {key} must be {what}, got {hparams[key]!r:.80}; use the {HPARAMS} "
                                  "published with the checkpoint.")
    return hparams


def read_state_dict(folder: Path) -> dict[str, Any]:
    """The ``state_dict`` of ``checkpoints/model.ckpt``, read with ``weights_only=True`` (no code runs)."""
    import torch

    import pickle

    path = folder / CKPT
    try:
        checkpoint = torch.load(path, map_location="cpu", weights_only=True, mmap=True)
    except pickle.UnpicklingError:  # weights_only refused an object: loading it would run code from the file
        raise CheckpointError(f"{path} holds pickled Python objects besides tensors, which are not loaded (loading "
                              "them could run code from the file). Use the checkpoint as published, or re-save "
                              "its state_dict of tensors (torch.save({'state_dict': state_dict}, path)).") from None
    except Exception as exc:  # noqa: BLE001 - truncated, not a torch file
        first = str(exc).splitlines()[0][:200] if str(exc) else ""
        detail = f"{type(exc).__name__}: {first}" if "weights_only" not in first else type(exc).__name__
        raise CheckpointError(f"{path} cannot be read as a PyTorch checkpoint ({detail}): the file is truncated or "
                              "not a checkpoint; download it again.") from None
    state = checkpoint.get("state_dict", checkpoint) if isinstance(checkpoint, dict) else None
    if not isinstance(state, dict) or not any(str(k).startswith("encoder.") for k in state):
        raise CheckpointError(f"{path} holds no COMET state_dict (encoder.*, estimator.* weights).")
    return state


def _has(folder: Path, names: tuple[str, ...]) -> bool:
    return any((folder / name).is_file() for name in names)


def _local_candidates(name: str, checkpoint: Path, encoder: str | os.PathLike | None) -> list[Path]:
    found = [Path(encoder).expanduser()] if encoder is not None else []
    if Path(name).expanduser().is_dir():
        found.append(Path(name).expanduser())
    found.append(checkpoint)
    return found


def resolve_encoder_file(
    name: str, what: str, checkpoint: Path, encoder: str | os.PathLike | None, loader: Any
) -> Any:
    """``loader(folder_or_id, local_files_only=...)`` on the first place holding ``what`` ("config" or
    "tokenizer") of encoder ``name`` (see the module docstring for the order)."""
    names = ("config.json",) if what == "config" else _TOKENIZER_FILES
    for folder in _local_candidates(name, checkpoint, encoder):
        if folder.is_dir() and _has(folder, names):
            try:
                return loader(str(folder))
            except Exception as exc:  # noqa: BLE001 - a broken config.json or tokenizer file: one clear error
                first = str(exc).splitlines()[0][:200] if str(exc) else ""
                raise CheckpointError(f"{folder}: the {what} of the COMET encoder {name!r} cannot be read "
                                      f"({type(exc).__name__}: {first}); use the files published with the encoder "
                                      f"(hf download {name}).") from None
    if encoder is not None and not Path(encoder).expanduser().is_dir():
        raise CheckpointError(f"encoder={encoder!r} is not a folder; pass the folder holding {name}'s config.json "
                                "and tokenizer files.")
    try:
        return loader(name, local_files_only=True)
    except Exception:  # noqa: BLE001 - not in the cache
        pass
    if not hub_offline():
        try:
            return loader(name)
        except Exception as exc:  # noqa: BLE001
            reason = f"{type(exc).__name__}: {str(exc)[:200]}"
    else:
        reason = "the hub is offline and it is not in the Hugging Face cache"
    raise CheckpointError(
        f"the COMET checkpoint {checkpoint} needs the {what} of its encoder {name!r} ({reason}). Pass "
        f"encoder='/path/to/{Path(name).name}' (a folder with its config.json and tokenizer files, e.g. from "
        f"hf download {name} config.json tokenizer.json sentencepiece.bpe.model), or copy those files "
        "into the checkpoint folder; the encoder's weights are not needed (the checkpoint has them)."
    )
