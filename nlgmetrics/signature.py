"""Signatures: the one rule every result's ``signature`` is built by (every metric, and compare/agree for their tests).

A signature is ``key:value|key:value|...|version:nlgmetrics-X.Y.Z``: the settings that change a number, so the
number can be reproduced from the signature and the metric's name (the name says which statistic: ``bleu`` is HF
evaluate's BLEU, ``sacrebleu`` sacreBLEU's). Values are written one way (:func:`value`: ``yes``/``no``, ``none``,
numbers with ``%g``, lists joined by ``,``), ``|`` cannot occur inside a value, and the whole string goes through
the one redaction of :mod:`nlgmetrics._secrets`, so no credential ever lands in a signature.

- sacreBLEU, chrF and TER keep sacrebleu's own signature (``nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:...``;
  users compare it with sacrebleu's): the settings sacrebleu's format names, in its order; a setting it does not
  name but that changes the number (BLEU's n-gram order, chrF's beta) is added before ``version`` only when it is not
  sacrebleu's default, so default signatures are sacrebleu's strings.
- Model metrics (BERTScore, MoverScore, COMET, BLEURT, MetricX, the judge's local model) add :func:`model_parts`:
  the model's name as given, a digest of its weight files' content (two checkpoints in folders of one name differ;
  one checkpoint under two names has one digest), the precision, and the torch and transformers versions.
- compare and agree name their test: :func:`significance_signature` (test, resamples/trials, seed).

:func:`of` reads a result's signature; every entry point (CLI, compare, agree, the framework adapters) uses it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from nlgmetrics._version import __version__

#: the library that computed the number: the last part of every signature
VERSION = f"nlgmetrics-{__version__}"
#: file names (and suffixes) that hold a model's weights: what :func:`weights_digest` reads
WEIGHT_SUFFIXES = (".safetensors", ".bin", ".ckpt", ".pt", ".pth", ".msgpack", ".h5")

Part = tuple[str, Any]


class Nested(str):
    """A value that is itself a signature (an MBR utility's, a reranking metric's): written whole, in braces."""


def nested(name: str, signature: str | None) -> Nested:
    """``NAME{signature}``: the signature of a metric another computation uses, kept whole inside its own."""
    return Nested(f"{name}{{{signature or 'none'}}}")


def value(item: Any) -> str:
    """One value as a signature writes it: True/False -> ``yes``/``no``, None -> ``none``, a float with ``%g``, a
    sequence joined by ``,``, a callable by its ``__name__``; ``|`` (the separator) becomes ``/`` except inside a
    :func:`nested` signature."""
    if isinstance(item, Nested):
        return str(item)
    if isinstance(item, bool):
        text = "yes" if item else "no"
    elif item is None:
        text = "none"
    elif isinstance(item, float):
        text = f"{item:g}"
    elif isinstance(item, (list, tuple)):
        text = ",".join(value(x) for x in item)
    elif callable(item) and hasattr(item, "__name__"):
        text = item.__name__
    else:
        text = str(item)
    return text.replace("|", "/")


def build(parts: Iterable[Part], *, version: str = VERSION) -> str:
    """``key:value|...|version:<version>`` from ``(key, value)`` parts (a part whose value is ``...`` is left out:
    the way to name a setting only when it is not the default), redacted (:func:`nlgmetrics._secrets.redact`)."""
    from nlgmetrics._secrets import redact

    text = "|".join(f"{key}:{value(item)}" for key, item in parts if item is not ...)
    return redact(f"{text}|version:{version}" if text else f"version:{version}")


def unless_default(item: Any, default: Any) -> Any:
    """``item``, or ``...`` (left out by :func:`build`) when it equals ``default``."""
    return ... if item == default else item


def nrefs(references: Sequence[Sequence[str]]) -> int | str:
    """sacrebleu's ``nrefs``: the number of references per example, or ``var`` when it varies."""
    counts = {len(group) for group in references}
    return counts.pop() if len(counts) == 1 else "var"


def bootstrap_parts(n_bootstrap: int | None, seed: int | None) -> list[Part]:
    """sacrebleu's ``bs:N|seed:S`` for a result with a bootstrap interval; nothing without one."""
    if not n_bootstrap:
        return []
    return [("bs", n_bootstrap), ("seed", str(seed).lower())]


# -- model metrics ----------------------------------------------------------------------------------------------------
def weight_files(folder: str | os.PathLike) -> list[Path]:
    """The files of ``folder`` (and its sub-folders, e.g. COMET's ``checkpoints/``) that hold weights
    (:data:`WEIGHT_SUFFIXES`), sorted by relative path."""
    root = Path(folder)
    if root.is_file():
        return [root]
    return sorted((path for path in root.rglob("*") if path.is_file() and path.suffix in WEIGHT_SUFFIXES),
                  key=lambda path: path.relative_to(root).as_posix())


def weights_digest(weights: Any) -> str:
    """The content digest of a model's weights (:func:`nlgmetrics.learned.locate.weights_digest`, the one rule:
    SHA-256 over each weight file's name and bytes, 12 hex digits; file digests remembered by path, size, mtime and
    inode): ``weights`` is a checkpoint's ``Weights``, a weight file, files, or a folder (its :func:`weight_files`:
    an encoder's snapshot, COMET's ``checkpoints/``). The folder's own name does not enter it: two checkpoints in
    folders of one name differ, one checkpoint in two folders does not. ``none`` when there is no weight file."""
    from nlgmetrics.learned.locate import Weights
    from nlgmetrics.learned.locate import weights_digest as digest

    if isinstance(weights, Weights):
        return digest(weights)
    paths = [Path(weights)] if isinstance(weights, (str, os.PathLike)) else [Path(f) for f in weights]
    found = [f for path in paths for f in (weight_files(path) if path.is_dir() else [path] if path.is_file() else [])]
    return digest(found) if found else "none"


def model_folder(name_or_path: str | os.PathLike) -> str:
    """The local folder of a model: ``name_or_path`` itself when it is a folder, else its snapshot in the local
    Hugging Face cache (a hub id loaded before); the name as given when neither (its digest is then ``none``)."""
    if os.path.isdir(name_or_path):
        return str(name_or_path)
    try:
        from huggingface_hub import snapshot_download

        return snapshot_download(str(name_or_path), local_files_only=True)
    except Exception:  # noqa: BLE001 - not a hub id, or not in the cache
        return str(name_or_path)


def model_parts(name: str, weights: Any, dtype: Any = None, *, key: str = "model") -> list[Part]:
    """``model:NAME|weights:DIGEST|dtype:...|torch:...|transformers:...`` for a model metric: its name as given (a
    folder: its last part, never the full path), the weights' content digest (:func:`weights_digest`), the
    precision it computes in (None: float32) and the libraries that compute it."""
    shown = Path(str(name)).name if Path(str(name)).expanduser().exists() else str(name)
    return [(key, shown), ("weights", weights_digest(weights)), ("dtype", dtype_name(dtype)), *library_parts()]


def library_parts() -> list[Part]:
    """``torch:X|transformers:Y``: the libraries a model metric computes with (their kernels change the last
    digits)."""
    import torch
    import transformers

    return [("torch", torch.__version__.split("+")[0]), ("transformers", transformers.__version__)]


def dtype_name(dtype: Any) -> str:
    """``float32`` for None, else the dtype's short name (``torch.bfloat16`` -> ``bfloat16``)."""
    return "float32" if dtype is None else str(dtype).removeprefix("torch.")


# -- compare and agree ------------------------------------------------------------------------------------------------
def significance_signature(test: str, *, resamples: int | None = None, trials: int | None = None,
                   seed: int | None = None, **settings: Any) -> str:
    """The signature of a statistical test over metric scores: ``test:paired-bs|resamples:1000|seed:12345|...``
    (``seed:none``: drawn from the OS, not reproducible)."""
    return build([("test", test), ("resamples", resamples if resamples is not None else ...),
                  ("trials", trials if trials is not None else ...), ("seed", seed),
                  *((key, item) for key, item in settings.items())])


# -- reading ----------------------------------------------------------------------------------------------------------
def of(result: Mapping[str, Any]) -> str | None:
    """The signature of a metric's result (its ``signature`` key), if it has one."""
    found = result.get("signature")
    return found if isinstance(found, str) else None


def extend(signature: str, parts: Iterable[Part]) -> str:
    """``signature`` with ``parts`` added before its ``version`` (a setting applied around the metric, e.g. the
    suite's sentence split for rougeLsum)."""
    head, sep, version = signature.rpartition("|version:")
    if not sep:
        return signature
    extra = build(parts, version=version)
    return f"{head}|{extra}" if head else extra
