"""``nlgmetrics score``: score a file of predictions against reference files with one or more metrics (one table,
JSON or CSV for all of them)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from nlgmetrics.cli._boundary import CLIError, core_error
from nlgmetrics.cli._common import (
    EMBEDDING_METRICS,
    PROGRESS_MIN_LINES,
    _positive_int,
    check_inputs,
    load_pairs,
    resolve_metric,
    show_progress,
)
from nlgmetrics.cli._format import format_results
from nlgmetrics.cli._paths import InputPath, OutputPath
from nlgmetrics.cli._options import option_types, per_metric_options
from nlgmetrics.registry import SOURCES_NONE, SPECS, get_spec
from nlgmetrics.registry import score as score_metric

# Every line below that starts with "  nlgmetrics " runs as is in tests/test_examples.py (on sample files).
SCORE_EXAMPLES = """examples:
  nlgmetrics score -m bleu -p hyp.txt -r ref.txt
  nlgmetrics score -m sacrebleu chrf ter -p hyp.txt -r ref.txt -f json
  nlgmetrics score -m sacrebleu -p hyp.txt -r ref.txt -r ref2.txt -o tokenize=intl -o lowercase=true -f json
  nlgmetrics score -m sacrebleu -m chrf -p hyp.txt -r ref.txt -o sacrebleu.tokenize=intl -o chrf.word_order=2
  nlgmetrics score -m rouge -p hyp.txt -r ref.txt -o rouge_types='["rouge1","rougeL"]' -o use_stemmer=true
  nlgmetrics score -m bertscore -p hyp.txt -r ref.txt -o model_type=sentence-transformers/all-MiniLM-L6-v2
"""


#: a minimal valid invocation, for the policy tests (tests/test_policy.py): {text} is a file of text lines.
POLICY_ARGS = [["score", "-m", "bleu", "-p", "{text}", "-r", "{text}"]]


def add_parser(sub, progress_help: str) -> argparse.ArgumentParser:
    score = sub.add_parser("score", help="score a file of predictions against reference files with one or more metrics",
                           formatter_class=argparse.RawDescriptionHelpFormatter, epilog=SCORE_EXAMPLES)
    score.add_argument("--metric", "--metrics", "-m", required=True, nargs="+", action="extend", dest="metric",
                       help=f"the metrics, any case: {', '.join(SPECS)} (also bert_score, rougeL, ...); several in "
                            "one -m (-m bleu chrf ter) or repeated (-m bleu -m chrf), each scored once")
    score.add_argument("--predictions", "-p", required=True, type=InputPath(), help="file with one prediction per line (- for stdin)")
    score.add_argument("--references", "-r", action="append", default=[], type=InputPath(),
                       help="file with one reference per line (- for stdin); repeat for several references "
                            "(required unless every metric is reference-free)")
    score.add_argument("--sources", "-s", default=None, type=InputPath(),
                       help="file with one source text per line, for the metrics that read sources (COMET)")
    score.add_argument("--format", "-f", choices=["table", "json", "csv"], default="table",
                       help="table; json (one metric: its result object; several: a list of them); csv")
    score.add_argument("--option", "-o", action="append", default=[], metavar="[METRIC.]KEY=VALUE",
                       help="a metric option, e.g. -m sacrebleu -o tokenize=zh -o lowercase=true; with several metrics "
                            "METRIC.KEY=VALUE (repeatable; `nlgmetrics list METRIC` lists them; examples below)")
    score.add_argument("--device", default=None, help="embedding metrics: cpu, cuda, cuda:1 (default: auto)")
    score.add_argument("--batch-size", type=_positive_int, default=None, help="embedding metrics: texts per batch")
    score.add_argument("--progress", choices=["auto", "on", "off"], default="auto",
                       help=f"{progress_help} (auto: {PROGRESS_MIN_LINES}+ lines)")
    score.add_argument("--plot-alignment", metavar="PNG", default=None, type=OutputPath("figure", ("png",)),
                       help="bertscore/moverscore: also write the token alignment heatmap of one pair (needs matplotlib)")
    score.add_argument("--plot-index", type=int, default=0, help="which pair --plot-alignment shows (default: 0)")
    score.set_defaults(func=cmd_score)
    return score


def _metrics(names: list[str]) -> list[str]:
    """``-m`` resolved (any case, aliases); a metric named twice is an error, not silently scored once."""
    resolved = [resolve_metric(name) for name in names]
    for metric in dict.fromkeys(resolved):
        given = [name for name, found in zip(names, resolved) if found == metric]
        if len(given) > 1:
            raise CLIError(f"{metric} is given {len(given)} times (-m {' -m '.join(given)}); give each metric once")
    return resolved


def cmd_score(args: argparse.Namespace) -> int:
    metrics = _metrics(args.metric)
    for metric in metrics:
        try:
            option_types(metric)
        except ValueError as exc:  # a metric this installation lacks
            raise CLIError(str(exc)) from None
    options = per_metric_options(args.option, metrics, "score")
    for flag, key, value in (("--device", "device", args.device), ("--batch-size", "batch_size", args.batch_size)):
        if value is None:
            continue
        takers = [m for m in metrics if key in option_types(m) or "**" in option_types(m)]
        if not takers:
            raise CLIError(f"{flag} applies to the embedding metrics ({', '.join(EMBEDDING_METRICS)}), "
                           f"not {', '.join(metrics)}; leave it out")
        for metric in takers:
            options.setdefault(metric, {})[key] = value
    plotted = [m for m in metrics if m in EMBEDDING_METRICS]
    if args.plot_alignment and not plotted:
        raise CLIError(f"--plot-alignment works with {' and '.join(EMBEDDING_METRICS)}, not {', '.join(metrics)}")
    if args.plot_alignment and len(plotted) > 1:
        raise CLIError(f"--plot-alignment draws one metric's alignment: score {' and '.join(plotted)} in separate "
                       "commands to plot each")
    for metric in metrics:
        try:
            options[metric] = get_spec(metric).canonical_options(options.get(metric, {}))  # HF evaluate's names
        except ValueError as exc:
            raise CLIError(str(exc)) from None
    predictions, references, sources = load_pairs(args.predictions, args.references, args.sources)
    check_inputs(metrics, references, sources)
    results = {}
    for metric in metrics:
        own = options[metric]
        if "verbose" in option_types(metric) and "verbose" not in own and show_progress(args.progress,
                                                                                         len(predictions)):
            own["verbose"] = True
        prefix = "" if len(metrics) == 1 else f"{metric}: "
        reads = get_spec(metric).sources != SOURCES_NONE
        try:
            results[metric] = score_metric(metric, predictions, references, sources=sources if reads else None, **own)
        except TypeError as exc:
            if "unexpected keyword argument" in str(exc):
                raise CLIError(f"metric {metric!r} does not take that option: {exc}") from None
            raise core_error(exc, prefix) from None
        except (ValueError, ImportError) as exc:  # the core's checks (bad option values, devices, missing extras)
            raise core_error(exc, prefix) from None
    print(format_results(results, args.format), flush=True)  # shown even if the plot then fails
    if args.plot_alignment:
        metric = plotted[0]
        try:
            print(f"wrote {plot_pair(args, metric, predictions, references, options[metric], results[metric])}",
                  file=sys.stderr)
        except (ValueError, TypeError, ImportError) as exc:
            raise CLIError(str(exc)) from None
    return 0


def plot_pair(
    args: argparse.Namespace, metric: str, predictions: list[str], references: list[list[str]], options: dict,
    result: dict,
) -> Path:
    """The alignment heatmap of pair ``--plot-index`` with the metric's model options, titled with that pair's score
    as the run computed it (``result``)."""
    from nlgmetrics.semantic.alignment_plot import plot_alignment

    index = args.plot_index
    if not 0 <= index < len(predictions):
        raise CLIError(f"--plot-index {index} is out of range: there are {len(predictions)} predictions")
    keep = {"model_type", "num_layers", "device"}
    if metric == "moverscore":
        keep |= {"distance", "stop_words", "remove_subwords", "solver", "reg", "relaxed", "n_gram"}
    plot_options = {k: v for k, v in options.items() if k in keep}
    pair_score = result["scores" if metric == "moverscore" else "f1"][index]
    return plot_alignment(predictions[index], references[index][0], args.plot_alignment, metric=metric,
                          score=pair_score, **plot_options)
