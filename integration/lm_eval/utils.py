"""Helpers of the nlgmetrics_demo task: its local dataset (no hub, no network)."""

from __future__ import annotations

import json
from pathlib import Path

import datasets

import nlgmetrics.integration.lm_eval  # noqa: F401  registers the nlgm_* metrics and aggregations

DATA = Path(__file__).resolve().parent / "demo_data.json"


def load_demo(**_: object) -> datasets.DatasetDict:
    """The demo documents and summaries (demo_data.json beside this file) as a one-split DatasetDict."""
    rows = json.loads(DATA.read_text(encoding="utf-8"))
    return datasets.DatasetDict({"test": datasets.Dataset.from_list(rows)})
