"""``agree``: how well metrics agree with human judgments, with intervals and significance clusters.

Human scores come from :mod:`nlgmetrics.agreement.records` (a :class:`Judgments`); metric scores are given with them
(columns, mt-metrics-eval score files) or computed here by metric name through the registry on the judged texts
(each text scored once; embedding metrics share the engine's cache). The statistics, intervals and tests are
:mod:`nlgmetrics.agreement.statistics`'s. At system level a system's human score is the mean of its judged segments
and its metric score the mean of the metric over the same segments.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from nlgmetrics.agreement import statistics as A
from nlgmetrics.agreement.records import Judgments
from nlgmetrics._quiet import warn
from nlgmetrics.stats import MAX_RESAMPLES

LEVELS = ("segment", "system")
REPORT_FORMATS = ("table", "markdown", "csv", "json")
PLOT_SUFFIXES = (".png", ".pdf", ".svg")


def metric_scores(judgments: Judgments, metric: str,
                  options: Mapping[str, Any] | None = None) -> tuple[str, np.ndarray]:
    """Score every judged cell with a registry metric: ``NAME`` (its headline per-segment score, named after it:
    ``sentence_bleu`` for BLEU, whose corpus score is another statistic; ``rouge1``; ``bertscore_precision``) or
    ``NAME:KEY`` (e.g. ``bertscore:bertscore_f1``, ``rouge:rougeL``; NAME in any case or an alias). Error rates (TER)
    are negated, so that higher is better for every metric; the returned name says so (``-sentence_ter``)."""
    label, matrix, _ = _scored(judgments, metric, options)
    return label, matrix


def _scored(judgments: Judgments, metric: str,
            options: Mapping[str, Any] | None = None) -> tuple[str, np.ndarray, str | None]:
    """:func:`metric_scores` and the signature of the scores (:mod:`nlgmetrics.signature`)."""
    from nlgmetrics.registry import get_spec, metric_name, per_example_key, score
    from nlgmetrics.signature import of as signature_of

    name, _, wanted = metric.partition(":")
    name = metric_name(name)
    metric = name + (":" + wanted if wanted else "")
    spec = get_spec(name)
    _, key = per_example_key(metric)
    missing = [what for what, texts in (("hypothesis", judgments.hypotheses), ("reference", judgments.references))
               if texts is None]
    if missing:
        flags = " and ".join(f"--{what}-column NAME" for what in missing)
        raise ValueError(f"scoring {name} needs the texts; the judgments have no {' and no '.join(missing)} texts. "
                         f"wmt-da: give --texts DIR; table: give {flags} (columns named "
                         f"{' and '.join(repr(m) for m in missing)} are used by default); Python: read_table("
                         f"{', '.join(f'{m}=...' for m in missing)}).")
    cells = np.argwhere(~np.isnan(judgments.human))
    hyps = [judgments.hypotheses[s][i] for s, i in cells]
    refs = [judgments.references[i] for _, i in cells]
    if any(not isinstance(h, str) for h in hyps) or any(not r or not all(isinstance(x, str) for x in r) for r in refs):
        raise ValueError(f"scoring {name}: a judged segment has no hypothesis or no reference text.")
    result = score(name, hyps, refs, **{**dict(options or {}), **spec.per_example_options})
    values = np.asarray(result[key], dtype=float)
    # named after what it holds: NAME alone is its per-segment column (a corpus metric's is another statistic,
    # sentence_bleu; ROUGE's first type, rouge1), as Ray's columns and the suite's keys name them
    label = metric if wanted else spec.per_example.get(key, key)
    if not spec.higher_is_better:
        values, label = -values, f"-{label}"
    matrix = np.full(judgments.human.shape, np.nan)
    matrix[tuple(cells.T)] = values
    return label, matrix, signature_of(result)


def _check_choice(values: Sequence[str], allowed: Sequence[str], what: str) -> list[str]:
    values = [values] if isinstance(values, str) else list(values)
    for value in values:
        if value not in allowed:
            raise ValueError(f"unknown {what} {value!r}; choose from {', '.join(allowed)}.")
    if not values:
        raise ValueError(f"give at least one {what} ({', '.join(allowed)}).")
    return list(dict.fromkeys(values))


def agree(
    judgments: Judgments,
    metrics: Sequence[str] = (),
    metric_options: Mapping[str, Mapping[str, Any]] | None = None,
    levels: Sequence[str] = ("segment",),
    statistics: Sequence[str] = ("pearson",),
    average_by: str = "none",
    n_resamples: int = 1000,
    k: int = 1000,
    seed: int | None = 12345,
    alpha: float = 0.05,
    threshold: float = A.DARR_THRESHOLD,
    keep_scores: bool = False,
) -> dict[str, Any]:
    """Agreement of every metric with the human scores of ``judgments``.

    Args:
        judgments: human scores (and optionally metric scores and texts), see :mod:`nlgmetrics.agreement.records`.
        metrics: registry metric names (``NAME`` or ``NAME:KEY``; any case or alias) to score on the judged texts,
            besides the metric scores ``judgments`` carries.
        metric_options: ``{NAME: {option: value}}`` for the metrics scored here (names and option aliases as the
            registry reads them; options under a metric that is not scored are an error).
        levels: ``"segment"`` and/or ``"system"``.
        statistics: any of :data:`nlgmetrics.agreement.statistics.STATISTICS`. ``spa`` (soft pairwise accuracy) is
            a system-level statistic computed from the segment scores: it is reported at system level only (an
            error when ``levels`` has no ``"system"``).
        average_by: segment level: ``"none"``, ``"item"`` or ``"sys"`` (system level always uses all systems).
        n_resamples: bootstrap resamples of the items for 95% intervals (0: none; at most 100,000). Drawn in
            chunks: memory does not grow with it. Fewer than two judged items: no interval (a warning).
        k: permutation draws per pair of metrics for the significance clusters (0: no test; at most 100,000).
        seed: seed of both (None: OS entropy).
        threshold: DARR's minimum human score difference (``kendall_like``; 25 for raw 0-100 DA).
        keep_scores: also return every metric's ``(n_systems, n_items)`` score matrix under ``"scores"``.
    Returns:
        ``{"rows": [...], "pvalues": {"LEVEL/STATISTIC": {"order": [...], "matrix": [[...]]}}, "systems",
        "items", "judged", "dropped", "signatures", "n_resamples", "k", "seed", "alpha", "threshold",
        "test_signature"}`` (``signatures``: each metric scored here -> its signature; ``test_signature``: the
        resampling and permutation settings, :func:`nlgmetrics.signature.significance_signature`;
        ``matrix[i][j]``: permutation p-value that metric i beats metric j; Pearson
        without grouping adds Williams' ``"williams"`` matrix); a row per level, statistic and metric (sorted by
        agreement) holds ``value`` (None when undefined, with ``reason``), ``ci_low``/``ci_high``, ``rank``
        (significance cluster, 1 = best; None without a test), ``groups``, ``cells`` and ``epsilon`` (acc_eq).
    """
    if not isinstance(judgments, Judgments):
        raise TypeError("judgments must be a nlgmetrics.agreement.records.Judgments (use one of its readers or "
                        "Judgments.from_records).")
    levels = _check_choice(levels, LEVELS, "level")
    statistics = _check_choice(statistics, A.STATISTICS, "statistic")
    _check_choice([average_by], A.AVERAGES, "average_by")
    for label, value, top in (("n_resamples", n_resamples, MAX_RESAMPLES), ("k", k, A.MAX_DRAWS)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0 or value == 1 or value > top:
            raise ValueError(f"{label} must be 0 (none) or an integer from 2 to {top:,}, got {value!r}.")
    for label, value, low in (("alpha", alpha, 0.0), ("threshold", threshold, 0.0)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < low:
            raise ValueError(f"{label} must be a number of at least {low:g}, got {value!r}.")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be between 0 and 1 (e.g. 0.05), got {alpha!r}.")
    if isinstance(metrics, str):
        metrics = [metrics]
    metrics, metric_options = _resolved(metrics, metric_options)
    scores = dict(judgments.metrics)
    signatures: dict[str, str | None] = {}
    for name in dict.fromkeys(metrics):
        label, matrix, signatures[label] = _scored(judgments, name, metric_options.get(name.partition(":")[0]))
        if label in scores:
            raise ValueError(f"metric {label!r} is both given as scores and named to be scored; rename the column.")
        scores[label] = matrix
    if not scores:
        raise ValueError("no metric to correlate: name metrics to score or give metric score columns/files.")
    human = judgments.human
    if np.isnan(human).all():
        raise ValueError("no human score: every judgment is missing.")
    rows, pvalues = [], {}
    if n_resamples and (~np.isnan(human)).any(axis=0).sum() < 2:
        warn("agree: one judged item: no bootstrap interval (resampling the items would give the same data every "
             "time, a zero-width interval); judge at least two items for intervals.")
    if "spa" in statistics and "system" not in levels:
        raise ValueError("spa (soft pairwise accuracy) is a system-level statistic (from the segment scores): "
                         "add the level 'system' (--level system).")
    for level in levels:
        if level == "system":
            level_human = A.system_scores(human, human)[:, None]
            level_scores = {m: A.system_scores(matrix, human)[:, None] for m, matrix in scores.items()}
            average = "none"
        else:
            level_human, level_scores, average = human, scores, average_by
        for statistic in statistics:
            if statistic == "spa" and level == "segment":
                continue
            stat_human, stat_scores = (human, scores) if statistic == "spa" else (level_human, level_scores)
            names, results, matrix, ranks = A.significance_clusters(
                stat_human, stat_scores, statistic, average, k=k, seed=seed, alpha=alpha,
                threshold=threshold) if k else _unranked(stat_human, stat_scores, statistic, average, threshold)
            pvalues[f"{level}/{statistic}"] = {"order": names[: len(matrix)], "matrix": matrix.tolist()}
            if statistic == "pearson" and average == "none" and len(matrix) > 1:
                order = names[: len(matrix)]
                pvalues[f"{level}/{statistic}"]["williams"] = _williams(level_human, level_scores, order)
            for name, result, rank in zip(names, results, ranks):
                low = high = None
                if n_resamples and result.value is not None:
                    low, high = A.bootstrap_interval(human, scores[name], statistic, average, n_resamples, seed,
                                                     threshold=threshold, level=level)
                rows.append({"level": level, "statistic": statistic, "average_by": average, "metric": name,
                             "value": result.value, "ci_low": low, "ci_high": high, "rank": rank,
                             "reason": result.reason, "groups": result.groups, "cells": result.cells,
                             "epsilon": result.epsilon})
    from nlgmetrics.signature import significance_signature

    result = {"rows": rows, "pvalues": pvalues, "systems": len(judgments.systems), "items": len(judgments.items),
              "judged": int((~np.isnan(human)).sum()), "dropped": judgments.dropped, "signatures": signatures,
              "n_resamples": n_resamples, "k": k, "seed": seed, "alpha": alpha, "threshold": threshold,
              "test_signature": significance_signature("agree", resamples=n_resamples, trials=k, seed=seed,
                                                       alpha=alpha, threshold=threshold)}
    if keep_scores:
        result["scores"] = scores
    return result


def _resolved(metrics: Sequence[str], metric_options: Mapping[str, Mapping[str, Any]] | None
              ) -> tuple[list[str], dict[str, dict[str, Any]]]:
    """``metrics`` with each NAME resolved by the registry (``CHRF`` -> ``chrf``, ``NAME:KEY`` kept), and the options
    of each metric scored, as the suite reads them (:func:`nlgmetrics.integration.suite.metric_options_for`: names
    through the registry, options under a metric that is not scored are an error)."""
    from nlgmetrics.integration.suite import metric_options_for
    from nlgmetrics.registry import metric_name

    resolved = []
    for metric in metrics:
        name, colon, key = str(metric).partition(":")
        resolved.append(metric_name(name) + colon + key)
    bases = list(dict.fromkeys(metric.partition(":")[0] for metric in resolved))
    return resolved, metric_options_for(bases, metric_options)


def _williams(human: np.ndarray, scores: Mapping[str, np.ndarray], order: list[str]) -> list[list[float]] | None:
    """Williams' test p-values between the metrics in ``order`` (``[i][j]``, i < j; 0 elsewhere), None when the
    test is undefined (fewer than 4 judged cells)."""
    try:
        return [[A.williams_test(human, scores[a], scores[b]) if j > i else 0.0 for j, b in enumerate(order)]
                for i, a in enumerate(order)]
    except ValueError:
        return None


def _unranked(human, scores, statistic, average, threshold):
    results = {m: A.correlation(human, s, statistic, average, threshold) for m, s in scores.items()}
    names = sorted(results, key=lambda m: (results[m].value is None, -(results[m].value or 0), m))
    return names, [results[n] for n in names], np.zeros((0, 0)), [None] * len(names)


# -- reports ------------------------------------------------------------------------------------------------------
def _fmt(value: float | None) -> str:
    return "undefined" if value is None else f"{value:.3f}"


def merge(results: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """Several :func:`agree` results (e.g. one per language pair) as one: every row gets its ``dataset``, and the
    counts are kept per dataset."""
    rows, pvalues, counts = [], {}, {}
    for name, result in results.items():
        rows += [{"dataset": name, **row} for row in result["rows"]]
        pvalues.update({f"{name}/{key}": value for key, value in result["pvalues"].items()})
        counts[name] = {key: result[key] for key in ("systems", "items", "judged", "dropped", "signatures")
                        if key in result}
    settings = ("n_resamples", "k", "seed", "alpha", "threshold", "test_signature")
    first = next(iter(results.values()), {})
    return {"rows": rows, "pvalues": pvalues, "datasets": counts, **{key: first[key] for key in settings
                                                                     if key in first}}


def _panel(row: Mapping[str, Any]) -> tuple:
    return row.get("dataset"), row["level"], row["statistic"], row["average_by"]


def _panel_names(panels: list[tuple]) -> list[str]:
    """Column titles: only the parts that differ between panels (a WMT table: just the language pairs)."""
    varying = [len({p[k] for p in panels}) > 1 for k in range(4)] if len(panels) > 1 else [False, True, True, True]
    names = []
    for panel in panels:
        parts = [str(v) if k != 3 else f"by {v}" for k, v in enumerate(panel) if varying[k] and v is not None]
        names.append(" ".join(parts) or panel[2])
    return names


def _counts(result: Mapping[str, Any]) -> str:
    datasets = result.get("datasets") or {"": result}
    return "; ".join(f"{name + ': ' if name else ''}{c['judged']} judged segments ({c['systems']} systems x "
                     f"{c['items']} items), {c['dropped']} without a human score dropped"
                     for name, c in datasets.items())


def report(result: Mapping[str, Any], fmt: str = "table") -> str:
    """:func:`agree`'s (or :func:`merge`'s) result as text: ``table`` / ``markdown`` (a row per metric, a column per
    dataset, level and statistic: value [95% interval] (significance cluster)), ``csv`` (one line per row) or
    ``json`` (the whole result)."""
    import csv
    import io
    import json

    if fmt not in REPORT_FORMATS:
        raise ValueError(f"format must be one of {', '.join(REPORT_FORMATS)}, got {fmt!r}.")
    rows = result["rows"]
    if fmt == "json":
        return json.dumps({k: v for k, v in result.items() if k != "scores"}, indent=1, ensure_ascii=False,
                          allow_nan=False)
    if fmt == "csv":
        buffer = io.StringIO()
        keys = ["level", "statistic", "average_by", "metric", "value", "ci_low", "ci_high", "rank", "reason",
                "groups", "cells", "epsilon"]
        if rows and "dataset" in rows[0]:
            keys.insert(0, "dataset")
        writer = csv.DictWriter(buffer, keys, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
        return buffer.getvalue().rstrip("\n")
    panels = list(dict.fromkeys(_panel(r) for r in rows))
    metrics = list(dict.fromkeys(r["metric"] for r in rows))
    cells = {}
    for r in rows:
        text = _fmt(r["value"])
        if r["ci_low"] is not None:
            text += f" [{r['ci_low']:.3f}, {r['ci_high']:.3f}]"
        if r["rank"] is not None:
            text += f" ({r['rank']})"
        cells[(r["metric"], _panel(r))] = text
    header = ["metric", *_panel_names(panels)]
    body = [[m, *(cells.get((m, p), "") for p in panels)] for m in metrics]
    notes = ["", _counts(result) + ". Cells: value [95% bootstrap interval over items] (significance cluster: "
             "1 = best; a metric falls to the next cluster when one of the current cluster agrees significantly "
             "better, permutation test p <= alpha)."]
    notes += [f"{r['metric']} {' '.join(str(x) for x in _panel(r)[:3] if x)}: undefined ({r['reason']})"
              for r in rows if r["value"] is None]
    notes += _signature_notes(result)
    if fmt == "markdown":
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        return "\n".join(lines + ["| " + " | ".join(line) + " |" for line in body] + notes)
    widths = [max(len(line[i]) for line in [header, *body]) for i in range(len(header))]
    lines = ["  ".join(t.ljust(w) for t, w in zip(line, widths)).rstrip() for line in [header, *body]]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines + notes)


def _signature_notes(result: Mapping[str, Any]) -> list[str]:
    """``metric: signature`` of every metric scored here (per dataset of a merged result, each once) and the
    test's settings."""
    signatures = dict(result.get("signatures") or {})
    for counts in (result.get("datasets") or {}).values():
        for metric, signature in (counts.get("signatures") or {}).items():
            signatures.setdefault(metric, signature)
    notes = [f"{metric}: {signature}" for metric, signature in signatures.items() if signature]
    return notes + ([f"significance: {result['test_signature']}"] if result.get("test_signature") else [])


def check_plot_path(path: str | Path, inputs: Sequence[str | Path] = ()) -> Path:
    """An output figure path (:func:`nlgmetrics._outputs.figure_target`'s rule, suffixes ``PLOT_SUFFIXES``): not a
    link, not an input file, its folder existing, an existing file only an image of its format."""
    from nlgmetrics._outputs import figure_target

    return figure_target(path, inputs=inputs, formats=tuple(s.lstrip(".") for s in PLOT_SUFFIXES))[0]


def plot(result: Mapping[str, Any], path: str | Path, scatter: Mapping[str, Any] | None = None) -> Path:
    """Write a figure of :func:`agree`'s result: per level and statistic, each metric's value with its bootstrap
    interval, coloured by significance cluster. ``scatter={"human": matrix, "metrics": {name: matrix}}`` adds a
    scatter of the metric against the human scores per metric. Needs matplotlib (the ``plot`` extra)."""
    path = check_plot_path(path)  # the output rule, matplotlib (the [plot] extra) included: before any work
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = result["rows"]
    panels = list(dict.fromkeys(_panel(r) for r in rows))
    titles = _panel_names(panels)
    n_scatter = len(scatter["metrics"]) if scatter else 0
    total = len(panels) + n_scatter
    columns = min(3, total)
    grid = math.ceil(total / columns)
    metrics = list(dict.fromkeys(r["metric"] for r in rows))
    figure, axes = plt.subplots(grid, columns, squeeze=False,
                                figsize=(4.2 * columns + 1.5, grid * (0.35 * len(metrics) + 1.6)))
    palette = plt.get_cmap("tab10")
    for axis, panel, title in zip(axes.flat, panels, titles):
        selected = [r for r in rows if _panel(r) == panel]
        for y, r in enumerate(reversed(selected)):
            if r["value"] is None:
                axis.text(0.02, y, "undefined", transform=axis.get_yaxis_transform(), fontsize=7, va="center")
                continue
            color = palette((r["rank"] - 1) % 10) if r["rank"] else "tab:gray"
            if r["ci_low"] is not None:
                axis.plot([r["ci_low"], r["ci_high"]], [y, y], color=color, linewidth=2.5, solid_capstyle="butt")
            axis.plot([r["value"]], [y], "o", color=color, markersize=5)
        axis.set_yticks(range(len(selected)), [r["metric"] for r in reversed(selected)], fontsize=8)
        axis.set_ylim(-0.6, len(selected) - 0.4)
        axis.set_title(title, fontsize=10)
        axis.set_xlabel(f"{panel[1]}-level {panel[2]}" + (f" (by {panel[3]})" if panel[3] != "none" else ""),
                        fontsize=8)
        axis.grid(axis="x", alpha=0.3)
    flat_axes = list(axes.flat)
    if scatter:
        human = np.asarray(scatter["human"], dtype=float)
        judged = ~np.isnan(human)
        for axis, (name, matrix) in zip(flat_axes[len(panels):], scatter["metrics"].items()):
            axis.scatter(np.asarray(matrix)[judged], human[judged], s=4, alpha=0.4)
            axis.set_xlabel(name, fontsize=8)
            axis.set_ylabel("human", fontsize=8)
            axis.set_title(f"{name} vs human", fontsize=10)
    for axis in flat_axes[total:]:
        axis.set_visible(False)
    figure.text(0.01, 0.01, "dot: value; bar: 95% bootstrap interval over items; colour: significance cluster "
                            "(blue = 1, best)", fontsize=7)
    figure.tight_layout(rect=(0, 0.04, 1, 1))
    from nlgmetrics._outputs import save_figure

    try:
        return save_figure(figure, path, formats=tuple(s.lstrip(".") for s in PLOT_SUFFIXES), dpi=130)
    finally:
        plt.close(figure)
