"""``nlgmetrics compare``: paired significance tests of systems against a baseline."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from nlgmetrics.cli._boundary import CLIError, core_error
from nlgmetrics.cli._common import (
    STDIN,
    _positive_int,
    _seed,
    check_inputs,
    load_pairs,
    read_text_file,
    resolve_metrics,
)
from nlgmetrics.cli._paths import InputPath, OutputPath
from nlgmetrics.cli._options import option_types, per_metric_options

COMPARE_EXAMPLES = """examples:
  nlgmetrics compare -r ref.txt --baseline base.txt sys1.txt sys2.txt -m bleu chrf ter -f markdown
  nlgmetrics compare -r ref.txt --baseline base.txt sys1.txt -m bleu -o bleu.tokenizer=intl --paired-ar
"""


#: a minimal valid invocation, for the policy tests (tests/test_policy.py): {text} is a file of text lines.
POLICY_ARGS = [["compare", "-r", "{text}", "-b", "{text}", "{text2}", "--n-resamples", "10"]]


def add_parser(sub, progress_help: str) -> argparse.ArgumentParser:
    comparing = sub.add_parser(
        "compare", help="paired significance tests of systems against a baseline (bootstrap or randomization)",
        description="Score the baseline and every system with every metric and test each system against the "
                    "baseline: paired bootstrap resampling (--paired-bs, default) or approximate randomization "
                    "(--paired-ar), as sacrebleu's paired tests (same numbers for sacrebleu, chrf and ter; bleu is HF's "
                    "BLEU, as everywhere).",
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=COMPARE_EXAMPLES)
    comparing.add_argument("systems", nargs="+", type=InputPath(), help="system output files, one segment per line")
    comparing.add_argument("--baseline", "-b", required=True, type=InputPath(), help="the baseline system's output file")
    comparing.add_argument("--references", "-r", action="append", default=[], type=InputPath(),
                           help="reference file, one segment per line; repeat for several references (required "
                                "unless every metric is reference-free)")
    comparing.add_argument("--sources", "-s", default=None, type=InputPath(),
                           help="source file, one segment per line, for metrics that read sources (COMET)")
    comparing.add_argument("--metrics", "-m", nargs="+", default=["bleu"], help="metrics to compare (default: bleu)")
    test = comparing.add_mutually_exclusive_group()
    test.add_argument("--paired-bs", action="store_true", help="paired bootstrap resampling (the default)")
    test.add_argument("--paired-ar", action="store_true", help="paired approximate randomization")
    comparing.add_argument("--n-resamples", type=_positive_int, default=1000,
                           help="bootstrap resamples (test and intervals; default 1000)")
    comparing.add_argument("--n-trials", type=_positive_int, default=10000,
                           help="approximate randomization trials (default 10000)")
    comparing.add_argument("--seed", default="12345", help="random seed (default 12345, as sacrebleu; 'none': OS)")
    comparing.add_argument("--option", "-o", action="append", default=[], metavar="METRIC.KEY=VALUE",
                           help="a metric option, e.g. -o bleu.tokenizer=intl (KEY=VALUE with one metric; "
                                "`nlgmetrics list METRIC` lists them)")
    comparing.add_argument("--format", "-f", choices=["table", "markdown", "json", "csv"], default="table")
    comparing.add_argument("--plot", metavar="PNG", default=None, type=OutputPath("figure"),
                           help="also write a figure of the intervals and significant differences (needs matplotlib)")
    comparing.add_argument("--device", default=None, help="embedding metrics: cpu, cuda, cuda:1 (default: auto)")
    comparing.add_argument("--batch-size", type=_positive_int, default=None, help="embedding metrics: texts per batch")
    comparing.add_argument("--progress", choices=["auto", "on", "off"], default="auto", help=progress_help)
    comparing.set_defaults(func=cmd_compare)
    return comparing


def cmd_compare(args: argparse.Namespace) -> int:
    """Paired significance tests of the system files against the baseline file (nlgmetrics.comparison)."""
    from nlgmetrics.comparison import compare, plot, report, segment_scores

    metrics = resolve_metrics(args.metrics)
    metric_options = per_metric_options(args.option, metrics, "compare")
    for flag, key, value in (("--device", "device", args.device), ("--batch-size", "batch_size", args.batch_size)):
        if value is not None:
            for metric in metrics:
                if key in option_types(metric):
                    metric_options.setdefault(metric, {})[key] = value
    paths = [args.baseline, *args.systems]
    names = [Path(path).name for path in paths]
    if len(set(names)) != len(names):
        names = [str(path) for path in paths]
        if len(set(names)) != len(names):
            raise CLIError("a system file is given twice; compare each system once")
    if STDIN in paths or STDIN in args.references or args.sources == STDIN:
        raise CLIError("compare reads every system, reference and source from files; '-' (standard input) is not "
                       "supported")
    baseline, references, sources = load_pairs(args.baseline, args.references, args.sources)  # one line per segment
    check_inputs(metrics, references, sources)
    systems = {names[0]: baseline}
    for name, path in zip(names[1:], args.systems):
        systems[name] = read_text_file(path)
        if len(systems[name]) != len(baseline):
            raise CLIError(f"{path} has {len(systems[name])} lines but {args.baseline} has {len(baseline)}: every "
                           "system needs one line per segment")
    for metric in metrics:  # each metric's options, model and device, on one segment, before any long run
        try:
            segment_scores(metric, {names[0]: baseline[:1]}, references[:1] if references is not None else None,
                           metric_options.get(metric), sources=sources[:1] if sources is not None else None)
        except (ValueError, TypeError, ImportError) as exc:
            raise core_error(exc, "" if len(metrics) == 1 else f"{metric}.") from None
    try:
        rows = compare(
            systems, references, metrics, baseline=names[0],
            paired="ar" if args.paired_ar else "bs", n_resamples=args.n_resamples, n_trials=args.n_trials,
            seed=None if args.seed.lower() == "none" else _seed(args.seed), metric_options=metric_options,
            sources=sources,
        )
        print(report(rows, args.format), flush=True)  # the computed table is shown even if the plot then fails
        if args.plot:
            print(f"wrote {plot(rows, args.plot)}", file=sys.stderr)
    except (ValueError, TypeError, ImportError) as exc:
        raise CLIError(str(exc)) from None
    return 0
