"""Default models and layers, kept as data (``nlgmetrics/data/bertscore_layers.json``).

``model2layers`` is bert_score 0.3.13's table: for each model the hidden layer whose BERTScore correlated best with
WMT16 to-English segment-level human judgments (``num_layers`` = index into ``hidden_states``; 0 is the embedding
output). ``lang2model`` picks bert_score's default model per language (``en``: roberta-large, layer 17; any other
language: bert-base-multilingual-cased, layer 9).

The bundled offline encoder, sentence-transformers/all-MiniLM-L6-v2 (6 layers), is not in bert_score's table; its
default here is its last layer, 6 (see the README's BERTScore section for the per-layer WMT17 correlations).
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources

from nlgmetrics.errors import OptionTypeError
from nlgmetrics.resources import BUNDLED_ENCODER_ALIASES, BUNDLED_ENCODER_ID


@lru_cache(maxsize=1)
def _table() -> dict:
    return json.loads(resources.files("nlgmetrics").joinpath("data/bertscore_layers.json").read_text("utf-8"))


def lang_to_model(lang: str) -> str:
    """bert_score's default model for a language code (case-insensitive)."""
    if not isinstance(lang, str) or not lang:
        raise OptionTypeError(f"lang must be a language code such as 'en', got {lang!r}.")
    table = _table()
    return table["lang2model"].get(lang.lower(), table["lang2model_default"])


def default_layer(model_type: str) -> int | None:
    """bert_score's tuned layer for ``model_type`` (the bundled MiniLM: 6), or None when the table has no entry."""
    if model_type in BUNDLED_ENCODER_ALIASES:
        model_type = BUNDLED_ENCODER_ID
    return _table()["model2layers"].get(model_type)


def known_models() -> dict[str, int]:
    """Every model with a default layer."""
    return dict(_table()["model2layers"])
