"""``nlgmetrics mbr``: minimum-Bayes-risk selection among N candidates per source (:mod:`nlgmetrics.mbr`).

Candidates come in comet-mbr's layout (a text file of N consecutive lines per source, ``-n N``) or as JSON Lines, one
record per source: ``{"candidates": [...], "source": "...", "samples": [...]}`` (``source`` and ``samples``
optional, in every record or in none; N may vary). The selected candidates are written one per line (``-f text``, as
comet-mbr's output file; a newline inside a candidate is written as a space there, ``-f jsonl`` keeps it), or as
JSON Lines / JSON with the index, the expected utility and the signature.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from nlgmetrics.cli._boundary import CLIError, core_error
from nlgmetrics.cli._common import _positive_int, read_text_file, resolve_metrics
from nlgmetrics.cli._options import coerce_option, option_types, parse_option
from nlgmetrics.cli._paths import InputPath, OutputPath

# Every line below that starts with "  nlgmetrics " runs as is in tests/test_examples.py (on sample files).
MBR_EXAMPLES = """examples:
  nlgmetrics mbr -c hyp.txt -n 4
  nlgmetrics mbr -c hyp.txt -n 4 -m sacrebleu --convention mbrs -f jsonl
  nlgmetrics mbr -c hyp.txt -n 5 -m chrf -o word_order=2 --method aggregate -f json
  nlgmetrics mbr -c hyp.txt -n 4 --samples sentences.txt --num-samples 20 --matrix -f jsonl
"""

#: Python keywords of nlgmetrics.mbr.mbr -> their flags here (error advice such as method='exact')
FLAGS = {"method": "--method", "convention": "--convention", "top_k": "--top-k", "qe_metric": "--qe-metric",
         "n_centroids": "--centroids", "kmeans_iterations": "--kmeans-iterations", "seed": "--seed"}

#: a minimal valid invocation, for the policy tests (tests/test_policy.py): {text} is a file of text lines.
POLICY_ARGS = [["mbr", "-c", "{text}", "-n", "3", "-m", "chrf"]]


def add_candidate_arguments(parser: argparse.ArgumentParser) -> None:
    """The candidate, source and output options ``mbr`` and ``rerank`` share."""
    parser.add_argument("--candidates", "-c", required=True, type=InputPath(),
                        help="N lines per source (with -n N), or JSON Lines (.jsonl): {\"candidates\": [...], "
                             "\"source\": \"...\", \"samples\": [...]} per source (- for stdin: lines)")
    parser.add_argument("--num-candidates", "-n", type=_positive_int, default=None,
                        help="candidates per source in a line file (comet-mbr's --num_samples); with JSON Lines, "
                             "checked for every record")
    parser.add_argument("--sources", "-s", default=None, type=InputPath(),
                        help="one source text per line, one line per source (COMET and other metrics that read them)")
    parser.add_argument("--format", "-f", choices=["text", "jsonl", "json"], default="text",
                        help="text: the selected candidate per line; jsonl: a record per source; json: one object")
    parser.add_argument("--output", type=OutputPath("file"), default=None,
                        help="write the selection to this file instead of standard output")
    parser.add_argument("--overwrite", action="store_true", help="replace an existing --output file")
    parser.add_argument("--device", default=None, help="model metrics: cpu, cuda, cuda:1 (default: auto)")
    parser.add_argument("--batch-size", type=_positive_int, default=None, help="model metrics: texts per batch")


def add_parser(sub, progress_help: str) -> argparse.ArgumentParser:
    mbr = sub.add_parser(
        "mbr", help="minimum-Bayes-risk selection among N candidates per source (exact, aggregate, centroid)",
        description="Select, per source, the candidate with the highest expected utility against the other "
                    "candidates (or --samples) as pseudo-references, the utility being any metric (-m).",
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=MBR_EXAMPLES)
    add_candidate_arguments(mbr)
    mbr.add_argument("--samples", type=InputPath(), default=None,
                     help="separate pseudo-references: --num-samples lines per source (default: the candidates)")
    mbr.add_argument("--num-samples", type=_positive_int, default=None, help="pseudo-references per source")
    mbr.add_argument("--metric", "-m", default="chrf", help="the utility: a metric name, or NAME:KEY (bertscore:f1)")
    mbr.add_argument("--option", "-o", action="append", default=[], metavar="KEY=VALUE",
                     help="an option of the utility metric, e.g. -m comet -o model=PATH (repeatable)")
    mbr.add_argument("--method", choices=["exact", "aggregate", "centroid"], default="exact",
                     help="exact (N x N), aggregate (reference aggregation), centroid (k-means, COMET)")
    mbr.add_argument("--convention", choices=["comet-mbr", "mbrs"], default="comet-mbr",
                     help="comet-mbr: mean over the other candidates, ties to the first; mbrs: mean over all "
                          "(itself included, float32), ties by torch.topk")
    mbr.add_argument("--top-k", type=_positive_int, default=None,
                     help="keep the K best candidates by --qe-metric first (comet-mbr's --rerank_top_k)")
    mbr.add_argument("--qe-metric", default=None, help="the reference-free metric for --top-k (comet with a Kiwi model)")
    mbr.add_argument("--qe-option", action="append", default=[], metavar="KEY=VALUE",
                     help="an option of --qe-metric, e.g. --qe-option model=PATH (repeatable)")
    mbr.add_argument("--centroids", type=_positive_int, default=8, help="centroid: k-means clusters (default 8)")
    mbr.add_argument("--kmeans-iterations", type=_positive_int, default=5, help="centroid: k-means rounds (default 5)")
    mbr.add_argument("--seed", type=int, default=0, help="centroid: k-means++ seed (default 0)")
    mbr.add_argument("--matrix", action="store_true",
                     help="jsonl/json: add every candidate's expected utility and (exact) the utility matrix")
    mbr.add_argument("--progress", choices=["auto", "on", "off"], default="auto", help=progress_help)
    mbr.set_defaults(func=cmd_mbr)
    return mbr


# -- reading --------------------------------------------------------------------------------------------------------
def _grouped(lines: list[str], n: int, path: str, flag: str) -> list[list[str]]:
    if not lines:
        raise CLIError(f"{path} has no lines: nothing to select from")
    if len(lines) % n:
        raise CLIError(f"{path} has {len(lines)} lines, not a multiple of {flag} {n}: its last source has only "
                       f"{len(lines) % n} (a source with fewer candidates than declared); give every source {n} "
                       "lines, or use JSON Lines for varying counts")
    return [lines[i : i + n] for i in range(0, len(lines), n)]


def _strings(value: Any, where: str, field: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise CLIError(f"{where}: {field!r} must be a list of strings")
    if not value:
        raise CLIError(f"{where}: {field!r} is empty; give at least one")
    return value


def load_candidates(args: argparse.Namespace, samples: bool = False
                    ) -> tuple[list[list[str]], list[str] | None, list[list[str]] | None]:
    """Candidates (one list per source), sources and samples from the command line's files; every count checked
    (JSON Lines through the records reader rule: :mod:`nlgmetrics.agreement.records`)."""
    path, n = args.candidates, args.num_candidates
    sources = samples_found = None
    if Path(path).suffix.lower() in (".jsonl", ".json") and path != "-":
        from nlgmetrics.agreement.records import _records

        try:
            records = _records(Path(path))
        except (ValueError, OSError) as exc:
            raise CLIError(str(exc)) from None
        candidates, found_sources, found_samples = [], [], []
        for where, record in records:
            if "candidates" not in record:
                raise CLIError(f"{where}: the record has no 'candidates' field (a list of texts per source)")
            group = _strings(record["candidates"], where, "candidates")
            if n is not None and len(group) != n:
                raise CLIError(f"{where}: {len(group)} candidates, but --num-candidates says {n}")
            candidates.append(group)
            source = record.get("source")
            if source is not None and not isinstance(source, str):
                raise CLIError(f"{where}: 'source' must be a string")
            found_sources.append(source)
            found_samples.append(None if record.get("samples") is None else
                                 _strings(record["samples"], where, "samples"))
        for name, values in (("source", found_sources), ("samples", found_samples)):
            given = [v is not None for v in values]
            if any(given) and not all(given):
                first = records[given.index(False)][0]
                raise CLIError(f"{first}: the record has no {name!r} while others have; give it in every record or "
                               "in none")
        sources = found_sources if found_sources[0] is not None else None
        samples_found = found_samples if found_samples[0] is not None else None
    else:
        if n is None:
            raise CLIError(f"{path} is a line file: give --num-candidates N (its lines are N candidates per source, "
                           "as comet-mbr reads them), or give a .jsonl file with a list per source")
        candidates = _grouped(read_text_file(path), n, path, "--num-candidates")
    if args.sources is not None:
        if sources is not None:
            raise CLIError(f"{path} has sources in its records and --sources is given too; give them once")
        sources = read_text_file(args.sources)
        if len(sources) != len(candidates):
            raise CLIError(f"{args.sources} has {len(sources)} lines but {path} holds {len(candidates)} sources: give "
                           "one source per line, one line per source")
    if samples and getattr(args, "samples", None) is not None:
        if samples_found is not None:
            raise CLIError(f"{path} has samples in its records and --samples is given too; give them once")
        if args.num_samples is None:
            raise CLIError("--samples needs --num-samples M (its lines are M pseudo-references per source)")
        samples_found = _grouped(read_text_file(args.samples), args.num_samples, args.samples, "--num-samples")
        if len(samples_found) != len(candidates):
            raise CLIError(f"{args.samples} holds {len(samples_found)} sources of {args.num_samples} samples but "
                           f"{path} holds {len(candidates)}: give --num-samples lines per source")
    elif getattr(args, "num_samples", None) is not None:
        raise CLIError("--num-samples applies to --samples FILE; give the file, or leave it out")
    return candidates, sources, samples_found


def metric_options(metric: str, items: list[str], args: argparse.Namespace) -> dict[str, Any]:
    """``-o KEY=VALUE`` options of ``metric`` (read by its declared types) with --device / --batch-size where the
    metric takes them."""
    options = {}
    for item in items:
        key, raw = parse_option(item)
        options[key] = coerce_option(metric, key, raw)
    declared = option_types(metric)
    for key, value in (("device", args.device), ("batch_size", args.batch_size)):
        if value is not None and (key in declared or "**" in declared):
            options.setdefault(key, value)
    return options


# -- writing --------------------------------------------------------------------------------------------------------
def write_selection(args: argparse.Namespace, result: dict, per_source: list[str]) -> None:
    """The selection as ``--format`` says, to ``--output`` (checked before the work: :func:`check_target`) or
    standard output; ``per_source``: the result keys with one value per source, for the JSON Lines records."""
    from nlgmetrics import _outputs

    if args.format == "text":
        text = "".join(line.replace("\n", " ") + "\n" for line in result["text"])
        if args.output is None:
            print(f"nlgmetrics: signature: {result['signature']}", file=sys.stderr)
    elif args.format == "jsonl":
        text = "".join(json.dumps({"source_index": i, **{k: result[k][i] for k in per_source if k in result},
                                   "signature": result["signature"]}, ensure_ascii=False) + "\n"
                       for i in range(len(result["index"])))
    else:
        text = json.dumps(result, ensure_ascii=False, indent=1) + "\n"
    if args.output is None:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    _outputs.write_atomic(args.output, text, what="output file")
    print(f"wrote {args.output}", file=sys.stderr)


def check_target(args: argparse.Namespace) -> None:
    """An existing ``--output`` file is replaced only with ``--overwrite`` (checked before any work)."""
    if args.output is not None and Path(args.output).exists() and not args.overwrite:
        raise CLIError(f"--output {args.output} exists; pass --overwrite to replace it, or choose another path")


def cmd_mbr(args: argparse.Namespace) -> int:
    from nlgmetrics.mbr import mbr

    check_target(args)
    (metric,) = resolve_metrics([args.metric])
    options = metric_options(metric.partition(":")[0], args.option, args)
    qe_metric, qe_options = None, {}
    if args.qe_metric is not None:
        (qe_metric,) = resolve_metrics([args.qe_metric])
        qe_options = metric_options(qe_metric.partition(":")[0], args.qe_option, args)
    elif args.qe_option:
        raise CLIError("--qe-option applies to --qe-metric; give --qe-metric and --top-k, or leave it out")
    if (args.top_k is None) != (args.qe_metric is None):
        raise CLIError("pruning needs both --top-k K (candidates kept per source) and --qe-metric NAME (the "
                       "reference-free metric that ranks them, e.g. comet with --qe-option model=A-KIWI-CHECKPOINT)")
    if args.matrix and args.format == "text":
        raise CLIError("--matrix adds to the jsonl/json output; give -f jsonl or -f json")
    if "progress_bar" in option_types(metric.partition(":")[0]) and args.progress == "on":
        options.setdefault("progress_bar", True)
    candidates, sources, samples = load_candidates(args, samples=True)
    try:
        result = mbr(candidates, metric, sources=sources, samples=samples, method=args.method,
                     convention=args.convention, top_k=args.top_k, qe_metric=qe_metric, qe_options=qe_options,
                     n_centroids=args.centroids, kmeans_iterations=args.kmeans_iterations, seed=args.seed,
                     return_matrix=args.matrix, **options)
    except (ValueError, TypeError, ImportError) as exc:
        raise core_error(exc, flags=FLAGS) from None
    write_selection(args, result, ["index", "text", "expected_utility", "expected_utilities", "matrix", "kept",
                                   "qe_scores"])
    return 0
