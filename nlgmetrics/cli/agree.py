"""``nlgmetrics agree``: agreement of metrics with human judgments."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from nlgmetrics.cli._boundary import CLIError
from nlgmetrics.cli._common import _seed, resolve_metrics
from nlgmetrics.cli._paths import InputPath, OutputPath
from nlgmetrics.cli._options import option_types, per_metric_options


#: a minimal valid invocation, for the policy tests (tests/test_policy.py): {table} is a CSV with system,item,
#: human,m columns.
POLICY_ARGS = [["agree", "{table}", "--columns", "m", "--n-resamples", "0", "--k", "0"]]


def add_parser(sub, progress_help: str) -> argparse.ArgumentParser:
    agreeing = sub.add_parser(
        "agree", help="agreement of metrics with human judgments (WMT's statistics, intervals, significance clusters)",
        description="Correlate metric scores (given, or computed by metric name on the judged texts) with human "
                    "scores: Pearson, Spearman, Kendall tau-b/c, WMT DARR, pairwise accuracy and acc*_eq, at "
                    "segment and system level, with bootstrap intervals and permutation-test significance clusters "
                    "(mt-metrics-eval's statistics).")
    agreeing.add_argument("human", type=InputPath(), help="the human judgments file")
    agreeing.add_argument("--input", "-i", choices=["wmt-da", "mtme", "table", "annotations"], default="table",
                          help="its format (default: table = CSV/TSV/JSONL with named columns)")
    agreeing.add_argument("--pair", nargs="+", help="wmt-da: the language pair(s), e.g. de-en (several: a column each)")
    agreeing.add_argument("--texts", type=InputPath(), help="wmt-da: folder with the reference and system outputs (to score -m)")
    agreeing.add_argument("--scores", action="append", default=[], metavar="NAME=FILE", type=InputPath(split="="),
                          help="mtme: a metric's .seg.score file (repeatable)")
    agreeing.add_argument("--mtme-pair", help="mtme with a test-set folder (human-scores/, metric-scores/): the pair")
    agreeing.add_argument("--rater", default="mqm", help="mtme with a folder: the human scores "
                                                         "human-scores/{pair}.{rater}.{level}.score (mqm, esa, ...)")
    agreeing.add_argument("--mtme-level", default="seg", choices=["seg", "doc", "domain", "sys"],
                          help="mtme with a folder: the level whose score files are read (default seg)")
    agreeing.add_argument("--domain", help="mtme with a folder: only this domain (documents/{pair}.docs)")
    agreeing.add_argument("--mtme-ref", help="mtme with a folder: the standard reference (default: the only one)")
    agreeing.add_argument("--include-human", action="store_true",
                          help="mtme with a folder: score the other human translations as systems")
    agreeing.add_argument("--columns", nargs="+", default=[], help="table/annotations: metric score columns")
    agreeing.add_argument("--human-column", default="human", help="table: the human score column")
    agreeing.add_argument("--system-column", help="the system column (table: system, '' for one system; "
                                                   "annotations: model_id)")
    agreeing.add_argument("--item-column", help="the segment/document column (table: item, '' for the row number; "
                                                 "annotations: id)")
    agreeing.add_argument("--hypothesis-column", default=None, help="table: the output text column (to score -m)")
    agreeing.add_argument("--reference-column", default=None, help="table: the reference text column (to score -m)")
    agreeing.add_argument("--dimension", nargs="+",
                          help="annotations: the quality dimension(s), e.g. coherence relevance (a column each)")
    agreeing.add_argument("--annotations-key", default="expert_annotations",
                          help="annotations: the key of the list of annotator dicts")
    agreeing.add_argument("--metrics", "-m", nargs="+", default=[], help="metrics to score (NAME or NAME:KEY)")
    agreeing.add_argument("--option", "-o", action="append", default=[], metavar="METRIC.KEY=VALUE",
                          help="a metric option of a metric given to -m (`nlgmetrics list METRIC` lists them)")
    agreeing.add_argument("--level", nargs="+", default=["segment"], choices=["segment", "system"])
    agreeing.add_argument("--statistic", "-s", nargs="+", default=["pearson"],
                          help="pearson spearman kendall_b kendall_c kendall_like accuracy acc_eq pdp spa (default: "
                               "pearson); pdp: pairwise-difference Pearson; spa: soft pairwise accuracy, system level "
                               "only (from segment scores); kendall_like and acc_eq cost O(n^2) per group, and acc_eq's "
                               "test recalibrates on every draw (on long vectors, lower --k or use --average item)")
    agreeing.add_argument("--average", choices=["none", "item", "sys"], default="none",
                          help="segment level: one vector (none), per item or per system, averaged")
    agreeing.add_argument("--n-resamples", type=int, default=1000,
                          help="bootstrap resamples (0: no intervals; at most 100,000; drawn in chunks)")
    agreeing.add_argument("--k", type=int, default=1000,
                          help="permutation draws per metric pair (0: no clusters; at most 100,000; drawn in chunks)")
    agreeing.add_argument("--seed", default="12345", help="random seed (default 12345; 'none': OS)")
    agreeing.add_argument("--alpha", type=float, default=0.05, help="significance level of the clusters")
    agreeing.add_argument("--threshold", type=float, default=25.0, help="kendall_like: DARR's minimum human difference")
    agreeing.add_argument("--format", "-f", choices=["table", "markdown", "json", "csv"], default="table")
    agreeing.add_argument("--plot", metavar="PNG", type=OutputPath("figure", ("png", "pdf", "svg")), help="write the correlations with intervals and clusters")
    agreeing.add_argument("--scatter", metavar="PNG", type=OutputPath("figure", ("png", "pdf", "svg")),
                          help="write the figure with a scatter per metric (of the first pair)")
    agreeing.add_argument("--device", default=None, help="embedding metrics: cpu, cuda, cuda:1 (default: auto)")
    agreeing.add_argument("--progress", choices=["auto", "on", "off"], default="auto", help=progress_help)
    agreeing.set_defaults(func=cmd_agree)
    return agreeing


def cmd_agree(args: argparse.Namespace) -> int:
    """Agreement of metrics with human judgments (nlgmetrics.agreement)."""
    from nlgmetrics.agreement import records as io_
    from nlgmetrics.agreement import agree, merge, plot, report
    from nlgmetrics.agreement.mtme_data import read_mtme_data

    metrics = resolve_metrics(args.metrics)
    metric_options = per_metric_options(args.option, metrics, "agree")
    if args.device is not None:
        for metric in {m.partition(":")[0] for m in metrics}:
            if "device" in option_types(metric):
                metric_options.setdefault(metric, {})["device"] = args.device
    try:
        if args.scores and args.input != "mtme":
            raise CLIError("--scores NAME=FILE reads mt-metrics-eval score files: use it with --input mtme")
        if args.pair and args.input != "wmt-da":
            raise CLIError("--pair selects language pairs of a WMT DA file: use it with --input wmt-da")
        if args.dimension and args.input != "annotations":
            raise CLIError("--dimension selects a quality dimension of annotations: use it with --input annotations")
        if args.input == "wmt-da":
            if not args.pair:
                raise CLIError("--input wmt-da needs --pair (e.g. de-en; several for a table per pair)")
            datasets = {pair: io_.read_wmt_da(args.human, pair, args.texts) for pair in dict.fromkeys(args.pair)}
        elif args.input == "mtme":
            files = {}
            for spec in args.scores:
                name, eq, file = spec.partition("=")
                if not eq or not name or not file:
                    raise CLIError(f"--scores {spec!r}: write NAME=FILE (an mt-metrics-eval .seg.score file)")
                files[name] = file
            if not Path(args.human).is_dir():
                if args.mtme_level != "seg" or args.domain or args.mtme_ref or args.include_human:
                    raise CLIError("--mtme-level, --domain, --mtme-ref and --include-human read an mt-metrics-eval "
                                   "test-set folder: give the folder, not a score file")
                datasets = {None: io_.read_mtme(args.human, files)}
            else:
                datasets = {None: read_mtme_data(args.human, args.mtme_pair, args.rater, args.mtme_level,
                                                 args.domain, args.mtme_ref, args.include_human, files or None)}
        elif args.input == "table":
            system = "system" if args.system_column is None else args.system_column or None  # "": no column
            item = "item" if args.item_column is None else args.item_column or None
            datasets = {None: io_.read_table(args.human, args.human_column, system, item, args.columns,
                                             args.hypothesis_column, args.reference_column)}
        else:
            if not args.dimension:
                raise CLIError("--input annotations needs --dimension (e.g. relevance; several: a column each)")
            datasets = {dimension: io_.read_annotations(args.human, dimension, args.annotations_key,
                                                        args.system_column or "model_id", args.item_column or "id",
                                                        args.columns)
                        for dimension in dict.fromkeys(args.dimension)}
        results = {
            name: agree(judgments, metrics, metric_options, levels=args.level, statistics=args.statistic,
                        average_by=args.average, n_resamples=args.n_resamples, k=args.k,
                        seed=None if args.seed.lower() == "none" else _seed(args.seed), alpha=args.alpha,
                        threshold=args.threshold, keep_scores=bool(args.scatter))
            for name, judgments in datasets.items()
        }
        result = results[None] if None in results else merge(results)
        if args.plot:
            print(f"wrote {plot(result, args.plot)}", file=sys.stderr)
        if args.scatter:
            first, judgments = next(iter(datasets.items()))
            scatter = {"human": judgments.human, "metrics": results[first].pop("scores")}
            print(f"wrote {plot(result, args.scatter, scatter=scatter)}", file=sys.stderr)
    except (ValueError, TypeError, ImportError, OSError) as exc:
        raise CLIError(str(exc)) from None
    print(report(result, args.format))
    return 0
