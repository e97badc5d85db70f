"""``nlgmetrics rerank``: per source, the candidate with the best score of a metric (:func:`nlgmetrics.mbr.rerank`):
quality estimation from the sources (COMET-Kiwi, MetricX-QE, the judge), or any metric against references (the
oracle selection). Candidates in the layouts of ``nlgmetrics mbr``."""

from __future__ import annotations

import argparse

from nlgmetrics.cli._boundary import CLIError, core_error
from nlgmetrics.cli._common import read_text_file, resolve_metrics
from nlgmetrics.cli._paths import InputPath
from nlgmetrics.cli.mbr import add_candidate_arguments, check_target, load_candidates, metric_options, write_selection

# Every line below that starts with "  nlgmetrics " runs as is in tests/test_examples.py (on sample files).
RERANK_EXAMPLES = """examples:
  nlgmetrics rerank -c sentences.txt -n 5 -r ref.txt -m chrf -f jsonl --scores
"""

#: a minimal valid invocation, for the policy tests (tests/test_policy.py): {text}, {text2}: files of 3 text lines.
POLICY_ARGS = [["rerank", "-c", "{text}", "-n", "1", "-r", "{text2}", "-m", "chrf"]]


def add_parser(sub, progress_help: str) -> argparse.ArgumentParser:
    reranking = sub.add_parser(
        "rerank", help="pick the candidate with the best quality-estimation score per source (COMET-Kiwi, "
                       "MetricX-QE, the judge), or the best against references",
        description="Score every candidate with a reference-free metric given --sources (quality estimation), or "
                    "with any metric against --references, and select the best per source.",
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=RERANK_EXAMPLES)
    add_candidate_arguments(reranking)
    reranking.add_argument("--references", "-r", default=None, type=InputPath(),
                           help="one reference per line, one line per source (reference-based reranking)")
    reranking.add_argument("--metric", "-m", required=True,
                           help="-m comet -o model=KIWI_CHECKPOINT (COMET-Kiwi), -m metricx -o qe=true (MetricX-QE), "
                                "llm_judge, or any metric with --references")
    reranking.add_argument("--option", "-o", action="append", default=[], metavar="KEY=VALUE",
                           help="an option of the metric (repeatable)")
    reranking.add_argument("--scores", action="store_true", help="jsonl/json: add every candidate's score")
    reranking.add_argument("--progress", choices=["auto", "on", "off"], default="auto", help=progress_help)
    reranking.set_defaults(func=cmd_rerank)
    return reranking


def cmd_rerank(args: argparse.Namespace) -> int:
    from nlgmetrics.mbr import rerank

    check_target(args)
    (metric,) = resolve_metrics([args.metric])
    options = metric_options(metric.partition(":")[0], args.option, args)
    if args.scores and args.format == "text":
        raise CLIError("--scores adds to the jsonl/json output; give -f jsonl or -f json")
    candidates, sources, _ = load_candidates(args)
    references = None
    if args.references is not None:
        references = read_text_file(args.references)
        if len(references) != len(candidates):
            raise CLIError(f"{args.references} has {len(references)} lines but {args.candidates} holds "
                           f"{len(candidates)} sources: give one reference per source")
    try:
        result = rerank(candidates, metric, sources=sources, references=references, return_scores=args.scores,
                        **options)
    except (ValueError, TypeError, ImportError) as exc:
        raise core_error(exc) from None
    write_selection(args, result, ["index", "text", "score", "scores"])
    return 0
