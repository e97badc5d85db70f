"""A score result as a table, JSON or CSV."""

from __future__ import annotations

import csv
import io
import json
import math
import sys
from typing import Any


def _json_ready(value: Any, where: str, non_finite: list[str]) -> Any:
    """``value`` with numpy scalars/arrays as Python numbers and non-finite floats as None (their keys noted)."""
    if hasattr(value, "tolist") and not isinstance(value, (str, bytes)):
        value = value.tolist()
    if isinstance(value, float) and not math.isfinite(value):
        non_finite.append(where)
        return None
    if isinstance(value, dict):
        return {k: _json_ready(v, f"{where}.{k}" if where else str(k), non_finite) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_ready(v, f"{where}[{i}]", non_finite) for i, v in enumerate(value)]
    return value


def scalar_items(result: dict) -> list[tuple[str, Any]]:
    """The result's entries that fit a table cell: numbers and strings, short number lists joined."""
    items = []
    for key, value in result.items():
        if isinstance(value, (int, float, str)) and not isinstance(value, bool):
            items.append((key, value))
        elif isinstance(value, list) and 0 < len(value) <= 9 and all(isinstance(v, (int, float)) for v in value):
            items.append((key, "/".join(f"{v:.4f}" if isinstance(v, float) else str(v) for v in value)))
    return items


def format_result(metric: str, result: dict, fmt: str) -> str:
    if fmt == "json":
        non_finite: list[str] = []
        ready = _json_ready({"metric": metric, **result}, "", non_finite)
        if non_finite:
            shown = ", ".join(non_finite[:5]) + (f" and {len(non_finite) - 5} more" if len(non_finite) > 5 else "")
            print(f"nlgmetrics: warning: {shown} not a finite number; written as null (JSON has no NaN or "
                  "Infinity)", file=sys.stderr)
        return json.dumps(ready, indent=1, ensure_ascii=False, allow_nan=False)
    if fmt == "csv":
        rows = [["metric", "key", "value"]]
        for key, value in result.items():
            if isinstance(value, list):
                rows += [[metric, f"{key}[{i}]", v] for i, v in enumerate(value)]
            else:
                rows.append([metric, key, value])
        buffer = io.StringIO()
        csv.writer(buffer, lineterminator="\n").writerows(rows)
        return buffer.getvalue().rstrip("\n")
    items = scalar_items(result)
    width = max((len(key) for key, _ in items), default=0)
    lines = [f"{metric}"]
    for key, value in items:
        shown = f"{value:.4f}" if isinstance(value, float) else str(value)
        lines.append(f"  {key:<{width}}  {shown}")
    return "\n".join(lines)

