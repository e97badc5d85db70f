"""BERTScore baseline files: the bert_score format, where they are looked for, reading and writing them.

Split out of :mod:`nlgmetrics.semantic.baselines` so that :mod:`nlgmetrics.semantic.bertscore` reads baselines
without importing the module that computes them with BERTScore (no import circle); every name here is also
importable from :mod:`nlgmetrics.semantic.baselines`.

A baseline file is CSV (bert_score names it ``.tsv``) with header ``LAYER,P,R,F`` and one row per hidden layer
``0..L``: the mean P, R and F of BERTScore over random pairs of unrelated sentences of one language, with that layer.
Rescaling maps a score ``s`` to ``(s - b) / (1 - b)``, so unrelated text lands near 0 (Zhang et al., 2020, sec. 6).

Lookup for ``(lang, model_type)`` when no ``baseline_path`` is given, first hit wins:

1. ``$NLGMETRICS_HOME/baselines/<lang>/<model_type>.tsv`` (where :func:`compute_baseline` writes by default: a
   baseline the user made wins over the one shipped);
2. ``nlgmetrics/data/rescale_baseline.<lang>.<model_type with / as -->.tsv`` (ships: ``en`` for the bundled MiniLM);
3. bert_score's own ``rescale_baseline/<lang>/<model_type>.tsv`` when the bert-score package is installed.

Computing one, by bert_score's method (random sentence pairs, ``all_layers``, mean per layer): :func:`compute_baseline`,
or on the command line (:mod:`nlgmetrics.cli`)::

    nlgmetrics baseline --model sentence-transformers/all-MiniLM-L6-v2 --lang en \\
        --corpus sentences.txt [--pairs 100000] [--seed 0] [--out FILE] [--batch-size 64] [--device cuda]

The default location (1.) is built from ``lang`` (a language code: ``en``, ``zh``, ``en-sci``) and the model's hub id
(``NAME`` or ``ORG/NAME``), both checked so it never leaves the baselines folder; a local model folder has no default
location (pass ``out``/``baseline_path``).
"""

from __future__ import annotations

import csv
import importlib.util
import re
from pathlib import Path

import torch

from nlgmetrics.errors import OptionError
from nlgmetrics.resources import BUNDLED_ENCODER_ALIASES, BUNDLED_ENCODER_ID, cache_dir

DATA_DIR = Path(__file__).resolve().parent.parent / "data"
_LANG = re.compile(r"^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$")
_HUB_ID_PART = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


def _model_key(model_type: str) -> str:
    return BUNDLED_ENCODER_ID if model_type in BUNDLED_ENCODER_ALIASES else model_type


def baseline_candidates(lang: str, model_type: str) -> list[Path]:
    """Where a baseline for (lang, model) is looked for, in order (only inside the baseline folders: a lang that is
    not a language code or a model that is not a hub id has no candidates there)."""
    model = _model_key(model_type)
    try:
        check_lang(lang)
        cached = default_baseline_path(lang, model)
    except ValueError:
        return []
    lang = lang.lower()
    paths = [cached, DATA_DIR / f"rescale_baseline.{lang}.{model.replace('/', '--')}.tsv"]  # the user's first
    spec = importlib.util.find_spec("bert_score")
    if spec is not None and spec.origin:
        paths.append(Path(spec.origin).parent / "rescale_baseline" / lang / f"{model}.tsv")
    return paths


def find_baseline(lang: str | None, model_type: str, baseline_path: str | None = None) -> Path:
    """The baseline file to use; ``ValueError`` naming the fix when there is none."""
    if baseline_path is not None:
        path = Path(baseline_path)
        if not path.is_file():
            raise OptionError(f"baseline_path {str(path)!r} is not a file.")
        return path
    if lang is None:
        raise OptionError(
            "rescale_with_baseline needs lang (baselines are per language and model), e.g. lang='en', or a "
            "baseline_path."
        )
    check_lang(lang)
    candidates = baseline_candidates(lang, model_type)
    if not candidates:
        default_baseline_path(lang, model_type)  # raises: the model is not a hub id, so it has no default location
    for path in candidates:
        if path.is_file():
            return path
    raise OptionError(
        f"no rescaling baseline for model {model_type!r} and lang {lang!r} (looked in: "
        + ", ".join(str(p) for p in candidates)
        + "). Compute one from a corpus of sentences in that language: nlgmetrics baseline "
        f"--model {model_type} --lang {lang} --corpus FILE, or pass baseline_path."
    )


def read_baseline(path: str | Path) -> torch.Tensor:
    """A baseline file as a float32 tensor ``(n_layers, 3)`` (P, R, F), row k = layer k."""
    try:
        with open(path, encoding="utf-8", newline="") as handle:
            rows = list(csv.reader(handle))
        header = [h.strip() for h in rows[0]]
        if header[1:4] != ["P", "R", "F"]:
            raise OptionError(f"header {header!r}, expected LAYER,P,R,F")
        values = [[float(x) for x in row[1:4]] for row in rows[1:] if row]
    except (OSError, IndexError, ValueError) as exc:
        raise OptionError(f"{path} is not a bert_score baseline file (LAYER,P,R,F per layer): {exc}") from None
    return torch.tensor(values, dtype=torch.float32)


def _is_baseline(path: Path) -> bool:
    try:
        read_baseline(path)
    except ValueError:
        return False
    return True


def baseline_target(path: str | Path, *, make_parents: bool = False) -> Path:
    """Where a baseline may be written (:mod:`nlgmetrics._outputs`' rule): never a link or a folder, its folder
    existing (created for the default location, ``make_parents``), an existing file only a baseline file."""
    from nlgmetrics._outputs import output_target

    return output_target(path, replaceable=_is_baseline, make_parents=make_parents, what="baseline file",
                         refusal=f"{path} exists and is not a baseline file (LAYER,P,R,F); nlgmetrics replaces only "
                                 "baseline files: choose another path.")


def write_baseline(path: str | Path, table: torch.Tensor) -> Path:
    """Write ``table`` as a baseline file (LAYER,P,R,F), atomically, by :func:`baseline_target`'s rule."""
    from nlgmetrics._outputs import write_atomic

    lines = ["LAYER,P,R,F"] + [f"{layer},{p:.8g},{r:.8g},{f:.8g}" for layer, (p, r, f) in enumerate(table.tolist())]
    return write_atomic(baseline_target(path), "\n".join(lines) + "\n", what="baseline file")


def check_lang(lang: str) -> str:
    """``lang`` if it is a language code (``en``, ``zh``, ``en-sci``), else ``ValueError``."""
    if not isinstance(lang, str) or not _LANG.match(lang):
        raise OptionError(f"lang {lang!r} is not a language code; use one like 'en', 'zh' or 'en-sci'.")
    return lang


def default_baseline_path(lang: str, model_type: str) -> Path:
    """Where a computed baseline for (lang, model) is written and where :func:`find_baseline` looks for it:
    ``<cache>/baselines/<lang>/<hub id>.tsv``. ``ValueError`` for a lang that is not a language code or a model that
    is not a hub id (``NAME`` or ``ORG/NAME``: a local folder has no default location), so the path never leaves the
    baselines folder."""
    check_lang(lang)
    model = _model_key(model_type)
    parts = model.split("/") if isinstance(model, str) else []
    if not 1 <= len(parts) <= 2 or not all(_HUB_ID_PART.match(part) for part in parts):
        raise OptionError(
            f"model {model_type!r} is not a hub id (NAME or ORG/NAME), so its baseline has no default location: "
            "pass out=FILE (nlgmetrics baseline --out FILE) to compute one, and baseline_path=FILE when scoring."
        )
    return cache_dir() / "baselines" / lang.lower() / f"{model}.tsv"
