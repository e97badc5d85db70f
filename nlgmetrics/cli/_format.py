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


def per_example_means(metric: str, result: dict) -> dict[str, float]:
    """The mean of each per-example list of ``result`` (the keys the metric's spec declares per example, or every
    numeric list for a metric whose per-example results are lists, e.g. ROUGE without aggregation)."""
    from nlgmetrics.registry import SPECS

    spec = SPECS.get(metric)
    if spec is None:
        return {}
    means = {}
    for key, value in result.items():
        if hasattr(value, "tolist") and not isinstance(value, (str, bytes)):
            value = value.tolist()
        if not (key in spec.per_example or spec.per_example_lists) or not isinstance(value, list) or not value:
            continue
        if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
            means[key] = math.fsum(value) / len(value)
    return means


def format_result(metric: str, result: dict, fmt: str) -> str:
    """One metric's result (:func:`format_results` of one)."""
    return format_results({metric: result}, fmt)


def format_results(results: dict[str, dict], fmt: str) -> str:
    """Every metric's result in one output: a table (per metric its scalars, short number lists, and the mean of
    every per-example list; one column width), JSON (one metric: its result object with ``metric``; several: a list
    of them, in the order given) or CSV (``metric,key,value`` rows of every metric under one header). JSON and CSV
    hold the whole result (signature included), plus ``mean``: the per-example means (:func:`per_example_means`)."""
    shown = {}
    for metric, result in results.items():
        means = per_example_means(metric, result)
        shown[metric] = (result, means)
    if fmt == "json":
        non_finite: list[str] = []
        objects = []
        for metric, (result, means) in shown.items():
            extra = {("mean" if "mean" not in result else "means"): means} if means else {}
            where = "" if len(shown) == 1 else f"{metric}."
            objects.append(_json_ready({"metric": metric, **result, **extra}, where.rstrip("."), non_finite))
        if non_finite:
            listed = ", ".join(non_finite[:5]) + (f" and {len(non_finite) - 5} more" if len(non_finite) > 5 else "")
            print(f"nlgmetrics: warning: {listed} not a finite number; written as null (JSON has no NaN or "
                  "Infinity)", file=sys.stderr)
        return json.dumps(objects[0] if len(objects) == 1 else objects, indent=1, ensure_ascii=False,
                          allow_nan=False)
    if fmt == "csv":
        rows = [["metric", "key", "value"]]
        for metric, (result, means) in shown.items():
            extra = {("mean" if "mean" not in result else "means"): means} if means else {}
            for key, value in {**result, **extra}.items():
                if isinstance(value, list):
                    rows += [[metric, f"{key}[{i}]", v] for i, v in enumerate(value)]
                elif isinstance(value, dict):
                    rows += [[metric, f"{key}.{k}", v] for k, v in value.items()]
                else:
                    rows.append([metric, key, value])
        # a cell holding a structure (XCOMET's error spans of one segment) is written as JSON, not as Python's repr
        rows = [[json.dumps(v, ensure_ascii=False) if isinstance(v, (list, dict)) else v for v in row] for row in rows]
        buffer = io.StringIO()
        csv.writer(buffer, lineterminator="\n").writerows(rows)
        return buffer.getvalue().rstrip("\n")
    tables = {}
    for metric, (result, means) in shown.items():
        tables[metric] = [(f"{key} (mean of {len(result[key])})" if key in means else key, value)
                          for key, value in scalar_items({k: (means[k] if k in means else v) for k, v in result.items()})]
    width = max((len(key) for items in tables.values() for key, _ in items), default=0)
    lines = []
    for metric, items in tables.items():
        lines.append(f"{metric}")
        for key, value in items:
            text = f"{value:.4f}" if isinstance(value, float) else str(value)
            lines.append(f"  {key:<{width}}  {text}")
    return "\n".join(lines)

