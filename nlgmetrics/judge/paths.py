"""Where the judge keeps its files by default (below both the cache and the backends, which keep model-file digests
beside it)."""

from __future__ import annotations

import os
from pathlib import Path


def default_cache_path() -> Path:
    """``$NLGMETRICS_JUDGE_CACHE``, else ``~/.cache/nlgmetrics/judge.sqlite`` (under ``$XDG_CACHE_HOME`` if set)."""
    if os.environ.get("NLGMETRICS_JUDGE_CACHE"):
        return Path(os.environ["NLGMETRICS_JUDGE_CACHE"])
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "nlgmetrics" / "judge.sqlite"
