"""``nlgmetrics score``: score a file of predictions against reference files."""

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
from nlgmetrics.cli._format import format_result
from nlgmetrics.cli._paths import InputPath, OutputPath
from nlgmetrics.cli._options import coerce_option, option_types, parse_option
from nlgmetrics.registry import SPECS, get_spec
from nlgmetrics.registry import score as score_metric

# Every line below that starts with "  nlgmetrics " runs as is in tests/test_examples.py (on sample files).
SCORE_EXAMPLES = """examples:
  nlgmetrics score -m bleu -p hyp.txt -r ref.txt
  nlgmetrics score -m sacrebleu -p hyp.txt -r ref.txt -r ref2.txt -o tokenize=intl -o lowercase=true -f json
  nlgmetrics score -m rouge -p hyp.txt -r ref.txt -o rouge_types='["rouge1","rougeL"]' -o use_stemmer=true
  nlgmetrics score -m bertscore -p hyp.txt -r ref.txt -o model_type=sentence-transformers/all-MiniLM-L6-v2
"""


#: a minimal valid invocation, for the policy tests (tests/test_policy.py): {text} is a file of text lines.
POLICY_ARGS = [["score", "-m", "bleu", "-p", "{text}", "-r", "{text}"]]


def add_parser(sub, progress_help: str) -> argparse.ArgumentParser:
    score = sub.add_parser("score", help="score a file of predictions against reference files",
                           formatter_class=argparse.RawDescriptionHelpFormatter, epilog=SCORE_EXAMPLES)
    score.add_argument("--metric", "-m", required=True,
                       help=f"the metric, any case: {', '.join(SPECS)} (also bert_score, rougeL, ...)")
    score.add_argument("--predictions", "-p", required=True, type=InputPath(), help="file with one prediction per line (- for stdin)")
    score.add_argument("--references", "-r", action="append", default=[], type=InputPath(),
                       help="file with one reference per line (- for stdin); repeat for several references "
                            "(required unless the metric is reference-free)")
    score.add_argument("--sources", "-s", default=None, type=InputPath(),
                       help="file with one source text per line, for metrics that read sources (COMET)")
    score.add_argument("--format", "-f", choices=["table", "json", "csv"], default="table")
    score.add_argument("--option", "-o", action="append", default=[], metavar="KEY=VALUE",
                       help="a metric option, e.g. -m sacrebleu -o tokenize=zh -o lowercase=true (repeatable; "
                            "`nlgmetrics list METRIC` lists them; examples below)")
    score.add_argument("--device", default=None, help="embedding metrics: cpu, cuda, cuda:1 (default: auto)")
    score.add_argument("--batch-size", type=_positive_int, default=None, help="embedding metrics: texts per batch")
    score.add_argument("--progress", choices=["auto", "on", "off"], default="auto",
                       help=f"{progress_help} (auto: {PROGRESS_MIN_LINES}+ lines)")
    score.add_argument("--plot-alignment", metavar="PNG", default=None, type=OutputPath("figure", ("png",)),
                       help="bertscore/moverscore: also write the token alignment heatmap of one pair (needs matplotlib)")
    score.add_argument("--plot-index", type=int, default=0, help="which pair --plot-alignment shows (default: 0)")
    score.set_defaults(func=cmd_score)
    return score


def cmd_score(args: argparse.Namespace) -> int:
    args.metric = resolve_metric(args.metric)
    try:
        declared = option_types(args.metric)
    except ValueError as exc:  # a metric this installation lacks
        raise CLIError(str(exc)) from None
    options = {}
    for item in args.option:
        key, raw = parse_option(item)
        options[key] = coerce_option(args.metric, key, raw)
    for flag, key, value in (("--device", "device", args.device), ("--batch-size", "batch_size", args.batch_size)):
        if value is not None:
            if key not in declared and "**" not in declared:
                raise CLIError(f"{flag} applies to the embedding metrics ({', '.join(EMBEDDING_METRICS)}), "
                               f"not {args.metric}; leave it out")
            options[key] = value
    if args.plot_alignment and args.metric not in EMBEDDING_METRICS:
        raise CLIError(f"--plot-alignment works with {' and '.join(EMBEDDING_METRICS)}, not {args.metric}")
    try:
        options = get_spec(args.metric).canonical_options(options)  # aliases (HF evaluate's names) -> ours
    except ValueError as exc:
        raise CLIError(str(exc)) from None
    predictions, references, sources = load_pairs(args.predictions, args.references, args.sources)
    check_inputs(args.metric, references, sources)
    if "verbose" in declared and "verbose" not in options and show_progress(args.progress, len(predictions)):
        options["verbose"] = True
    try:
        result = score_metric(args.metric, predictions, references, sources=sources, **options)
    except TypeError as exc:
        if "unexpected keyword argument" in str(exc):
            raise CLIError(f"metric {args.metric!r} does not take that option: {exc}") from None
        raise core_error(exc) from None
    except (ValueError, ImportError) as exc:  # the core's checks (bad option values, devices, missing extras)
        raise core_error(exc) from None
    print(format_result(args.metric, result, args.format), flush=True)  # shown even if the plot then fails
    if args.plot_alignment:
        try:
            print(f"wrote {plot_pair(args, predictions, references, options, result)}", file=sys.stderr)
        except (ValueError, TypeError, ImportError) as exc:
            raise CLIError(str(exc)) from None
    return 0



def plot_pair(
    args: argparse.Namespace, predictions: list[str], references: list[list[str]], options: dict, result: dict
) -> Path:
    """The alignment heatmap of pair ``--plot-index`` with the metric's model options, titled with that pair's score
    as the run computed it (``result``)."""
    from nlgmetrics.semantic.alignment_plot import plot_alignment

    index = args.plot_index
    if not 0 <= index < len(predictions):
        raise CLIError(f"--plot-index {index} is out of range: there are {len(predictions)} predictions")
    keep = {"model_type", "num_layers", "device"}
    if args.metric == "moverscore":
        keep |= {"distance", "stop_words", "remove_subwords", "solver", "reg", "relaxed", "n_gram"}
    plot_options = {k: v for k, v in options.items() if k in keep}
    pair_score = result["scores" if args.metric == "moverscore" else "f1"][index]
    return plot_alignment(predictions[index], references[index][0], args.plot_alignment, metric=args.metric,
                          score=pair_score, **plot_options)
