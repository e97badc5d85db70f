"""Compare systems: paired significance tests against a baseline, for every metric, in one pass over the systems.

Two tests, both paired (every resample or trial treats all systems' segment ``i`` together) and seeded:

- **Paired bootstrap resampling** (``paired="bs"``; Koehn 2004, as sacrebleu's ``--paired-bs`` and Moses'
  ``bootstrap-hypothesis-difference-significance.pl``). ``R`` resamples of the segment indices, drawn with
  replacement by ``numpy.random.default_rng(seed).choice(n, size=(R, n))`` and shared by every system. With
  ``s_r`` and ``b_r`` the system's and the baseline's score on resample ``r`` and ``d = |S - B|`` the difference of the
  full-corpus scores::

      delta_r = |s_r - b_r|,    p = (#{r : delta_r - mean(delta) > d} + 1) / (R + 1)

  ``mean`` and ``ci`` are the mean of the ``s_r`` and half the distance between their 2.5th and 97.5th percentile
  order statistics (indices ``R//40`` and ``R - R//40 - 1`` of the sorted scores), as sacrebleu prints
  ``mu ± ci``; ``ci_low``/``ci_high`` are those two order statistics.
- **Approximate randomization** (``paired="ar"``; Riezler & Maxwell 2005, as sacrebleu's ``--paired-ar``). ``T``
  trials, each swapping the two systems' outputs on a random half of the segments
  (``rng.integers(2, size=(T, n), dtype=bool)``): with ``a_t``, ``b_t`` the scores of the two shuffled
  pseudo-systems, ``p = (#{t : |a_t - b_t| > d} + 1) / (T + 1)``. The interval comes from ``n_resamples``
  bootstrap resamples drawn after the trials from the same generator (sacrebleu's ``n_ar_confidence``).

What is resampled:

- Corpus-level metrics whose segment statistics add up (BLEU, sacreBLEU, chrF, TER: a ``statistics`` class in their
  :class:`~nlgmetrics.registry.MetricSpec`): the per-segment statistics, summed per resample, then scored as the
  metric scores a corpus, on its own scale (``bleu`` is HF's BLEU, 0-1, as at every entry point; ``sacrebleu``
  0-100). As sacrebleu, the statistics are rounded to float32 before bootstrap sums; the sums are then exact wherever
  the statistics are integers (edit and n-gram counts, and TER's reference lengths with one or two references), so
  sacreBLEU's, chrF's and TER's numbers are sacrebleu's.
- Every other metric (ROUGE, METEOR, BERTScore, MoverScore, COMET): the per-example scores; a resample's score is
  their mean (``s_r = (1/n) sum_i w_ri x_i`` with ``w_ri`` how often segment ``i`` was drawn). Each of the metric's
  headline scores (ROUGE-1/2/L/Lsum F, BERTScore P/R/F) is tested. These rows also carry comet-compare's paired
  t-test on the segment scores (``t_statistic``, ``t_p_value``: ``scipy.stats.ttest_rel(baseline, system)``).

The embedding metrics embed through the shared engine cache: the references are embedded once for all systems,
each system's outputs once. Results do not depend on the order of the systems (each system is tested with the same
indices). ``p_value`` is 1.0 (not significant) where nothing can differ: a system's per-segment statistics equal
the baseline's, every resampled (or trial) difference is 0 (e.g. BLEU 0 against 0), or there is one segment (with a
warning). sacrebleu gives ``1 / (R + 1)`` there: its strict ``>`` never counts a zero difference.
"""

from __future__ import annotations

import copy
import inspect
import math
import numbers
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from nlgmetrics.inputs import check_predictions, check_references
from nlgmetrics.integration.suite import metric_options_for
from nlgmetrics.options import check_flags
from nlgmetrics.registry import SOURCES_NONE, SPECS, get_spec, load_object, metric_name, score
from nlgmetrics.signature import nrefs as count_references
from nlgmetrics.signature import of as signature_of
from nlgmetrics.signature import significance_signature
from nlgmetrics.stats import DEFAULT_SEED, check_resamples, draw_chunks, sacrebleu_interval

PAIRED_TESTS = ("bs", "ar")
SIGNIFICANCE_LEVEL = 0.05


class _Draws:
    """A seeded stream of resample indices (or, with ``swaps``, randomization flags), replayed chunk by chunk for each
    metric (:func:`nlgmetrics.stats.draw_chunks`): memory is one chunk, never ``rows x n_segments``."""

    def __init__(self, rng: np.random.Generator, n_items: int, rows: int, swaps: bool = False) -> None:
        self.state = copy.deepcopy(rng.bit_generator.state)
        self.n_items, self.rows, self.swaps = n_items, rows, swaps

    def chunks(self, rng: np.random.Generator | None = None) -> Iterator[tuple[int, np.ndarray]]:
        """``(first row, chunk)`` pairs; ``rng`` (at this stream's start) is advanced past it, else a copy is used."""
        if rng is None:
            rng = np.random.Generator(np.random.PCG64())
            rng.bit_generator.state = copy.deepcopy(self.state)
        start = 0
        for chunk in draw_chunks(rng, self.n_items, self.rows, self.swaps):
            yield start, chunk
            start += len(chunk)


@dataclass(frozen=True)
class SegmentScores:
    """One reported score of one metric over one set of systems: per system, per-segment rows whose sum (over any
    multiset of segments) ``score`` turns into that selection's score."""

    metric: str
    rows: dict[str, np.ndarray]  # system -> (n_segments, k)
    score: Callable[[np.ndarray, int], float]  # (summed row, number of segments) -> score
    float32_sums: bool  # round the rows to float32 before bootstrap sums (sacrebleu's corpus statistics)
    signature: str | None = None
    scores: Callable[[np.ndarray, int], np.ndarray] | None = None  # ``score`` of every row of a matrix at once


def _result_score(value: Any) -> Any:
    return getattr(value, "score", value)  # a float32 score stays float32 (sacrebleu's resample scores)


def _corpus_statistics(
    name: str, options: Mapping[str, Any], systems: Mapping[str, list[str]], references: list[list[str]]
) -> list[SegmentScores]:
    spec = get_spec(name)
    config_class = load_object(spec.statistics)
    options = {spec.statistics_options.get(key, key): value for key, value in options.items()}
    accepted = set(inspect.signature(config_class).parameters)
    unused = sorted(set(options) - accepted)
    if unused:
        others = [other for other, spec_ in SPECS.items() if other != name and spec_.statistics
                  and set(unused) <= set(spec_.option_names())]
        hint = f" (they change {others[0]}'s: -m {others[0]})" if others else ""
        raise ValueError(
            f"compare: {name} option(s) {', '.join(unused)} do not change {name}'s corpus score{hint}; compare takes "
            f"{', '.join(sorted(accepted))} for {name}."
        )
    config = config_class(**options)
    rows = {system: np.asarray(config.corpus_statistics(preds, references)) for system, preds in systems.items()}

    def score(summed: np.ndarray, n_segments: int) -> float:
        return _result_score(config.score_from_statistics(summed))

    scores = None
    if hasattr(config, "scores_from_statistics"):
        def scores(summed: np.ndarray, n_segments: int) -> np.ndarray:
            return config.scores_from_statistics(summed)

    signature = config.signature(count_references(references)) if hasattr(config, "signature") else None
    return [SegmentScores(name, rows, score, True, signature, scores)]


def _mean_of_examples(summed: np.ndarray, n_segments: int) -> float:
    return float(summed[0]) / n_segments


def _example_scores(
    name: str, options: Mapping[str, Any], systems: Mapping[str, list[str]], references: list[list[str]] | None,
    sources: list[str] | None = None,
) -> list[SegmentScores]:
    spec = get_spec(name)
    if spec.corpus_level or not (spec.per_example or spec.per_example_lists):
        raise ValueError(
            f"compare: {name} is a corpus statistic without additive per-segment statistics here, so it cannot be "
            f"resampled; leave it out of metrics (the corpus statistics that can be: "
            f"{', '.join(n for n, s in SPECS.items() if s.statistics)}; and every metric with per-segment scores)."
        )
    per_system = {}
    for system, preds in systems.items():
        per_system[system] = score(name, preds, references, sources=sources, **{**options, **spec.per_example_options})
    first = next(iter(per_system.values()))
    if spec.per_example_lists:
        keys = {key: key for key in spec.headline}
    else:
        keys = {column: key for key, column in spec.per_example.items()}
    out = []
    for reported in spec.headline:
        key = keys.get(reported)
        if key is None or not isinstance(first.get(key), list):
            continue
        for system, result in per_system.items():
            unscored = [i for i, value in enumerate(result[key]) if value is None]
            if unscored:
                raise ValueError(
                    f"compare: {name} left segment {unscored[0]} of system {system!r} without a score ({len(unscored)}"
                    f" in all; e.g. an unreadable judge answer); a paired test needs every segment scored: see the "
                    f"metric's options (llm_judge: on_unparseable='retry' or 'error')."
                )
        rows = {system: np.asarray(result[key], dtype=np.float64)[:, None] for system, result in per_system.items()}
        out.append(SegmentScores(reported, rows, _mean_of_examples, False, signature_of(first)))
    if not out:
        raise ValueError(f"compare: {name} returned no per-example headline score ({', '.join(spec.headline)}).")
    return out


def segment_scores(
    metric: str, systems: Mapping[str, list[str]], references: list[list[str]] | None,
    options: Mapping[str, Any] | None = None, sources: list[str] | None = None,
) -> list[SegmentScores]:
    """The resampling rows of ``metric`` for every system (see the module docstring for what is resampled).
    ``sources`` go to the metrics that read them (their spec's ``sources``); other metrics ignore them."""
    spec = get_spec(metric)
    options = check_flags(spec.function, spec.canonical_options(options or {}))
    spec.input_arguments(sources if spec.sources != SOURCES_NONE else None, references is not None, options)
    if spec.statistics:
        return _corpus_statistics(metric, options, systems, references)
    return _example_scores(metric, options, systems, references, sources if spec.sources != SOURCES_NONE else None)


def _bootstrap_sums(rows: Sequence[np.ndarray], draws: _Draws, float32: bool) -> list[np.ndarray]:
    """For each ``(n, k)`` array of ``rows``, the row sums of each resample, ``(R, k)``: ``rows[indices].sum(1)``
    without materialising ``(R, n, k)`` or the ``(R, n)`` indices. The resample counts are built once per chunk for
    all the arrays; each array gets its own product, so its sums do not depend on the other arrays (the order of the
    systems)."""
    values = [part.astype(np.float32).astype(np.float64) if float32 else part.astype(np.float64) for part in rows]
    n = len(values[0])
    out = [np.empty((draws.rows, part.shape[1])) for part in values]
    for start, chunk in draws.chunks():
        flat = (np.arange(len(chunk))[:, None] * n + chunk).ravel()
        counts = np.bincount(flat, minlength=len(chunk) * n).reshape(len(chunk), n).astype(np.float64)
        for sums, part in zip(out, values):
            sums[start : start + len(chunk)] = counts @ part  # exact: integer counts times (float32-rounded) stats
    return out


def _scores(sums: np.ndarray, stat: SegmentScores, n: int, float32: bool = False) -> np.ndarray:
    """Each row's score; ``float32``: the sums are float32, as sacrebleu's bootstrap resamples (exact integer sums),
    and scored as sacrebleu scores them (BLEU's precisions and chrF in float32 arithmetic)."""
    if float32:
        sums = sums.astype(np.float32)
    if stat.scores is not None:
        return np.asarray(stat.scores(sums, n))
    return np.array([stat.score(row, n) for row in sums])


def _interval(scores: np.ndarray) -> dict[str, float]:
    interval = sacrebleu_interval(scores)
    return {"mean": float(interval["mean"]), "ci": float(interval["ci"]), "ci_low": float(interval["low"]),
            "ci_high": float(interval["high"])}


def _p_value(exceed: int, trials: int) -> float:
    return (exceed + 1) / (trials + 1)


def compare(
    systems: Mapping[str, Sequence[str]],
    references: Sequence[str | Sequence[str]],
    metrics: Sequence[str] | str = ("bleu",),
    baseline: str | None = None,
    paired: str = "bs",
    n_resamples: int = 1000,
    n_trials: int = 10000,
    seed: int | None = DEFAULT_SEED,
    metric_options: Mapping[str, Mapping[str, Any]] | None = None,
    sources: Sequence[str] | None = None,
) -> list[dict[str, Any]]:
    """Score every system with every metric and test each against ``baseline`` (see the module docstring).

    Args:
        systems: ``{name: predictions}``, one prediction per segment, all the same length (at least two systems).
        references: one string per segment, or a list of strings per segment (any count).
        metrics: metric names, any case or alias (:func:`nlgmetrics.registry.metric_name`: ``CHRF``, ``bert_score``).
        baseline: the system the others are tested against (default: the first of ``systems``).
        paired: ``"bs"`` (paired bootstrap resampling, ``n_resamples``) or ``"ar"`` (approximate randomization,
            ``n_trials``, with a bootstrap interval of ``n_resamples``).
        seed: the generator's seed (sacrebleu's default 12345); None draws from the OS.
        metric_options: ``{metric: {option: value}}`` (names and option aliases as the registry reads them; options
            under a metric that is not compared are an error).
        sources: one source text per segment, for the metrics that read sources (COMET); the others ignore them.
            ``references`` may be None when every metric is reference-free (its spec's ``references_optional``).
    Returns:
        One dict per metric score and system (baseline first, then the others in the given order): ``system``,
        ``metric``, ``score`` (full corpus), ``mean``, ``ci`` (bootstrap mean and half-width of the 95% interval),
        ``ci_low``, ``ci_high``, ``p_value`` (None for the baseline), ``significant`` (p < 0.05; None for the
        baseline), ``baseline`` (bool), ``higher_is_better`` (the metric's direction: False for TER), ``better``
        (whether the system's score is better than the baseline's in that direction; None for the baseline),
        ``signature`` (the metric's, :mod:`nlgmetrics.signature`), and the test that gave the p-values and
        intervals: ``test`` (``paired-bs`` or ``paired-ar``), ``n_resamples``, ``n_trials`` (None for the
        bootstrap), ``seed`` and ``test_signature``.
    """
    if isinstance(metrics, str):
        metrics = [metrics]
    if isinstance(metrics, Sequence):
        metrics = [metric_name(metric) for metric in metrics]  # any case or alias, as the CLI and the suite
    names, refs, srcs, baseline = _check_inputs(
        systems, references, sources, metrics, baseline, paired, n_resamples, n_trials, seed
    )
    system_texts = {name: check_predictions(systems[name], f"systems[{name!r}]") for name in names}
    n = len(refs) if refs is not None else len(srcs)
    metric_options = metric_options_for(metrics, metric_options)  # the suite's check: only compared metrics, dicts
    order = [baseline] + [name for name in names if name != baseline]

    rng = np.random.default_rng(seed)  # the draws as sacrebleu's, replayed in chunks (bounded memory)
    if paired == "bs":
        bs_indices = sys_indices = _Draws(rng, n, n_resamples)
    else:
        bs_indices = _Draws(np.random.default_rng(seed), n, n_resamples)
        swaps = _Draws(rng, n, n_trials, swaps=True)
        for _ in swaps.chunks(rng):  # advance rng past the trials: the systems' resamples come after them
            pass
        sys_indices = _Draws(rng, n, n_resamples)

    test = {"test": f"paired-{paired}", "n_resamples": n_resamples, "n_trials": n_trials if paired == "ar" else None,
            "seed": seed}
    test["test_signature"] = significance_signature(test["test"], resamples=n_resamples, trials=test["n_trials"],
                                                    seed=seed)
    results: list[dict[str, Any]] = []
    for metric in metrics:
        higher_is_better = get_spec(metric).higher_is_better
        for stat in segment_scores(metric, system_texts, refs, metric_options.get(metric), srcs):
            base_rows = stat.rows[baseline]
            base_score = float(stat.score(base_rows.sum(0), n))
            other_rows = [stat.rows[system] for system in order[1:]]
            if paired == "bs":
                sums = _bootstrap_sums([base_rows, *other_rows], bs_indices, stat.float32_sums)
            else:  # the systems' intervals come from the draws after the trials
                sums = _bootstrap_sums([base_rows], bs_indices, stat.float32_sums)
                sums += _bootstrap_sums(other_rows, sys_indices, stat.float32_sums)
            samples_of = dict(zip(order, (_scores(part, stat, n, stat.float32_sums) for part in sums)))
            base_samples = samples_of[baseline]
            for system in order:
                rows = stat.rows[system]
                score = float(stat.score(rows.sum(0), n))
                row: dict[str, Any] = {"system": system, "metric": stat.metric, "score": score}
                if system == baseline:
                    row.update(_interval(base_samples), p_value=None, significant=None)
                else:
                    samples = samples_of[system]
                    row.update(_interval(samples))
                    difference = abs(base_score - score)
                    deltas = np.abs(samples - base_samples)
                    if n == 1 or np.array_equal(rows, base_rows) or (paired == "bs" and not deltas.any()):
                        p = 1.0  # nothing can differ (see the module docstring)
                    elif paired == "bs":
                        p = _p_value(int(np.sum(deltas - deltas.mean() > difference)), n_resamples)
                    else:
                        p = _ar_p_value(base_rows, rows, swaps, stat, n, difference)
                    row.update(p_value=p, significant=p < SIGNIFICANCE_LEVEL)
                if not stat.float32_sums:  # per-example scores: comet-compare's paired t-test as well
                    row.update(_paired_t_test(base_rows[:, 0], rows[:, 0]) if system != baseline
                               else {"t_statistic": None, "t_p_value": None})
                row["baseline"] = system == baseline
                row["higher_is_better"] = higher_is_better
                row["better"] = None if system == baseline or score == base_score else (
                    score > base_score if higher_is_better else score < base_score)
                if stat.signature:
                    row["signature"] = stat.signature
                row.update(test)
                _check_finite(row)
                results.append(row)
    if n == 1:
        warnings.warn("compare: one segment: every resample is that segment, so no difference can be tested; "
                      "p_value is 1.0 and the intervals have zero width. Compare on a test set.", UserWarning,
                      stacklevel=2)
    return results


def _paired_t_test(baseline: np.ndarray, system: np.ndarray) -> dict[str, float | None]:
    """comet-compare's paired t-test of the segment scores: ``scipy.stats.ttest_rel(baseline, system)``, two-sided
    (``t = mean(d) / (std(d, ddof=1) / sqrt(n))``, ``d = baseline - system``; comet-compare lists the pair in the
    order given, so with the baseline first its numbers are these). Defined where scipy gives NaN or infinity:
    identical scores give t = 0, p = 1; a constant non-zero difference gives t = None (infinite), p = 0."""
    from scipy import stats

    difference = baseline - system
    if not difference.any():
        return {"t_statistic": 0.0, "t_p_value": 1.0}
    if np.ptp(difference) == 0 or len(difference) < 2:
        return {"t_statistic": None, "t_p_value": 0.0 if len(difference) > 1 else 1.0}
    result = stats.ttest_rel(baseline, system)
    return {"t_statistic": float(result.statistic), "t_p_value": float(result.pvalue)}


def _ar_p_value(
    base_rows: np.ndarray, rows: np.ndarray, swaps: _Draws, stat: SegmentScores, n: int, difference: float
) -> float:
    """Approximate randomization: trials whose shuffled pseudo-systems differ by more than ``difference``."""
    base, other = base_rows.astype(np.float64), rows.astype(np.float64)
    total = base + other
    exceed, differ = 0, False
    for _, chunk in swaps.chunks():
        keep = chunk.astype(np.float64)
        a = keep @ base + (1.0 - keep) @ other  # pseudo-system A: the baseline where kept, else the system
        b = total.sum(0) - a  # pseudo-system B: the rest
        a_scores, b_scores = _scores(a, stat, n), _scores(b, stat, n)
        trial_differences = np.abs(a_scores - b_scores)
        exceed += int(np.sum(trial_differences > difference))
        differ = differ or bool(trial_differences.any())
    return _p_value(exceed, swaps.rows) if differ else 1.0  # every trial difference 0: nothing differs


def _check_finite(row: dict[str, Any]) -> None:
    for key in ("score", "mean", "ci", "ci_low", "ci_high"):
        if not math.isfinite(row[key]):
            raise ValueError(f"compare: {row['metric']} of {row['system']!r} gave a non-finite {key} ({row[key]}).")


def _check_inputs(
    systems: Any, references: Any, sources: Any, metrics: Any, baseline: Any, paired: Any, n_resamples: Any,
    n_trials: Any, seed: Any,
) -> tuple[list[str], list[list[str]] | None, list[str] | None, str]:
    if not isinstance(systems, Mapping):
        raise TypeError(f"systems must be a dict {{name: predictions}}, got {type(systems).__name__}.")
    names = list(systems)
    if len(names) < 2:
        raise ValueError(
            f"compare needs at least two systems (a baseline and one to test), got {len(names)}; to score one system "
            "use nlgmetrics.registry.get_metric(name) (with n_bootstrap for an interval)."
        )
    for name in names:
        if not isinstance(name, str) or not name:
            raise TypeError(f"system names must be non-empty strings, got {name!r}.")
    if not metrics:
        raise ValueError("metrics must name at least one metric.")
    for metric in metrics:
        get_spec(metric)
    if len(set(metrics)) != len(metrics):
        raise ValueError(f"metrics names a metric twice: {list(metrics)}.")
    if baseline is None:
        baseline = names[0]
    if baseline not in systems:
        raise ValueError(f"baseline {baseline!r} is not one of the systems ({', '.join(names)}).")
    if paired not in PAIRED_TESTS:
        raise ValueError(f"paired must be 'bs' (paired bootstrap) or 'ar' (approximate randomization), got {paired!r}.")
    for label, value in (("n_resamples", n_resamples), ("n_trials", n_trials)):
        check_resamples(label, value)
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0):
        raise ValueError(f"seed must be a non-negative integer or None (OS entropy), got {seed!r}.")
    refs = check_references(references) if references is not None else None
    srcs = check_predictions(sources, "sources") if sources is not None else None
    if refs is None and srcs is None:
        raise ValueError("compare needs references (or, for reference-free metrics only, sources).")
    if refs is not None and srcs is not None and len(srcs) != len(refs):
        raise ValueError(f"got {len(srcs)} sources but {len(refs)} references: pass one source per segment.")
    n = len(refs) if refs is not None else len(srcs)
    if not n:
        raise ValueError("no segments to compare: references is empty.")
    for name in names:
        predictions = check_predictions(systems[name], f"systems[{name!r}]")  # lists, tuples, numpy, pandas
        if len(predictions) != n:
            raise ValueError(
                f"system {name!r} has {len(predictions)} segments but there are {n} "
                f"{'references' if refs is not None else 'sources'}: every system must translate the same segments, "
                "in the same order."
            )
    return names, refs, srcs, baseline


# -- reports ------------------------------------------------------------------------------------------------------
REPORT_FORMATS = ("table", "markdown", "csv", "json")


def _cell(row: dict[str, Any]) -> str:
    text = f"{row['score']:.4f} ({row['mean']:.4f} ± {row['ci']:.4f})" if row["score"] < 1.5 else (
        f"{row['score']:.1f} ({row['mean']:.1f} ± {row['ci']:.1f})"
    )
    if row["p_value"] is not None:
        text += f" (p = {row['p_value']:.4f})"
        if row["significant"]:  # which way: a significantly worse TER is no improvement
            text += "* better" if row.get("better", True) else "* worse"
    return text


def _arrow(row: Mapping[str, Any]) -> str:
    return "↑" if row.get("higher_is_better", True) else "↓"


def report(rows: Sequence[Mapping[str, Any]], fmt: str = "table") -> str:
    """:func:`compare`'s rows as text: ``table`` (aligned columns, one per metric, as sacrebleu's paired table),
    ``markdown`` (the same as a Markdown table), ``csv`` (one line per row) or ``json`` (the list itself)."""
    import csv
    import io
    import json

    if fmt not in REPORT_FORMATS:
        raise ValueError(f"format must be one of {', '.join(REPORT_FORMATS)}, got {fmt!r}.")
    if not rows:
        raise ValueError("report: no rows to show; pass the list compare() returned.")
    rows = [dict(row) for row in rows]
    if fmt == "json":
        return json.dumps(rows, indent=1, ensure_ascii=False, allow_nan=False)
    if fmt == "csv":
        keys = ["system", "metric", "score", "mean", "ci", "ci_low", "ci_high", "p_value", "significant", "baseline",
                "higher_is_better", "better", "test", "n_resamples", "n_trials", "seed", "signature"]
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, keys, extrasaction="ignore", lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
        return buffer.getvalue().rstrip("\n")
    metrics = list(dict.fromkeys(row["metric"] for row in rows))
    systems = list(dict.fromkeys(row["system"] for row in rows))
    cells = {(row["system"], row["metric"]): _cell(row) for row in rows}
    baseline = next(row["system"] for row in rows if row["baseline"])
    arrows = {row["metric"]: _arrow(row) for row in rows}
    header = ["System", *(f"{metric} {arrows[metric]} (μ ± 95% CI)" for metric in metrics)]
    body = [[f"Baseline: {system}" if system == baseline else system,
             *(cells.get((system, metric), "") for metric in metrics)] for system in systems]
    notes = [
        "",
        "μ ± CI: bootstrap mean and half-width of the 95% interval. p: paired test against the baseline; "
        f"* p < {SIGNIFICANCE_LEVEL}, better or worse than the baseline in the metric's direction (↑ higher is "
        "better, ↓ lower is better).",
    ]
    tests = list(dict.fromkeys(row["test_signature"] for row in rows if row.get("test_signature")))
    notes += [f"significance: {test}" for test in tests]
    signatures = {row["metric"]: row["signature"] for row in rows if row.get("signature")}
    notes += [f"{metric}: {signature}" for metric, signature in signatures.items()]
    if fmt == "markdown":
        lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
        lines += ["| " + " | ".join(line) + " |" for line in body]
        return "\n".join(lines + notes)
    widths = [max(len(line[i]) for line in [header, *body]) for i in range(len(header))]
    lines = ["  ".join(text.ljust(width) for text, width in zip(line, widths)).rstrip() for line in [header, *body]]
    lines.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(lines + notes)


def plot(rows: Sequence[Mapping[str, Any]], path: str | Any) -> Any:
    """Write a figure of :func:`compare`'s rows to ``path`` (PNG, PDF, SVG: by its suffix; needs matplotlib, the
    ``plot`` extra): per metric, each system's bootstrap interval with its score, the baseline in blue,
    significantly different systems in orange, the others in grey. Returns the path written (``.png`` added to a
    name without a suffix; an existing file is replaced only if it is an image of that format:
    :mod:`nlgmetrics._outputs`)."""
    from nlgmetrics._outputs import figure_target, save_figure

    if not rows:
        raise ValueError("plot: no rows to draw; pass the list compare() returned.")
    figure_target(path)  # checked before any work, matplotlib (the [plot] extra) included
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    metrics = list(dict.fromkeys(row["metric"] for row in rows))
    systems = list(dict.fromkeys(row["system"] for row in rows))
    columns = min(3, len(metrics))
    grid_rows = math.ceil(len(metrics) / columns)
    figure, axes = plt.subplots(grid_rows, columns, squeeze=False,
                                figsize=(3.8 * columns + 1.5, grid_rows * (0.4 * len(systems) + 1.0) + 0.4))
    for index, axis in enumerate(axes.flat):
        if index >= len(metrics):
            axis.set_visible(False)
            continue
        metric = metrics[index]
        for row in rows:
            if row["metric"] != metric:
                continue
            y = len(systems) - 1 - systems.index(row["system"])
            color = "tab:blue" if row["baseline"] else "tab:orange" if row["significant"] else "tab:gray"
            axis.plot([row["ci_low"], row["ci_high"]], [y, y], color=color, linewidth=2.5, solid_capstyle="butt")
            axis.plot([row["score"]], [y], "o", color=color, markersize=5)
        axis.set_title(metric, fontsize=10)
        axis.grid(axis="x", alpha=0.3)
        axis.set_ylim(-0.6, len(systems) - 0.4)
        axis.set_yticks(range(len(systems)), list(reversed(systems)) if index % columns == 0 else [], fontsize=8)
    figure.text(0.01, 0.01, f"blue: baseline; orange: p < {SIGNIFICANCE_LEVEL}; grey: not significant; "
                "bar: 95% bootstrap interval, dot: score", fontsize=7)
    figure.tight_layout(rect=(0, 0.05, 1, 1))
    try:
        return save_figure(figure, path, dpi=130)
    finally:
        plt.close(figure)
