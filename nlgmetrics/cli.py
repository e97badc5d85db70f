"""The ``nlgmetrics`` command line.

    nlgmetrics score --metric bleu --predictions hyp.txt --references ref.txt [--references ref2.txt ...]
                     [--format table|json|csv] [-o key=value ...] [--device cuda] [--batch-size 64]
                     [--progress auto|on|off] [--plot-alignment PNG [--plot-index I]]
    nlgmetrics list
    nlgmetrics baseline --model MODEL --lang LANG --corpus FILE      (a BERTScore rescaling baseline)
    nlgmetrics hub build|publish NAME ...

The embedding metrics (bertscore, moverscore) show a progress bar on long runs (``--progress auto``: at least
``PROGRESS_MIN_LINES`` predictions and a terminal on stderr). ``--plot-alignment PNG`` also writes the token alignment
heatmap of pair ``--plot-index`` (its first reference): MoverScore's transport flow or BERTScore's similarities.

Files hold one text per line (UTF-8); the i-th line of every ``--references`` file is a reference of the i-th
prediction. ``-o key=value`` passes a metric option (values are read as JSON when they parse: ``-o lowercase=true``,
``-o max_ngram_order=2``, ``-o rouge_types='["rouge1","rougeL"]'``; otherwise as strings: ``-o tokenize=zh``).
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path
from typing import Any, Sequence

from nlgmetrics.registry import METRICS, available_metrics, get_metric


EMBEDDING_METRICS = ("bertscore", "moverscore")
PROGRESS_MIN_LINES = 2000


class CLIError(Exception):
    """A problem with the command line or its files; printed without a traceback, exit code 2."""


def read_text_file(path: str) -> list[str]:
    """Lines of a UTF-8 file without their line endings."""
    file = Path(path)
    if not file.is_file():
        raise CLIError(f"{path}: no such file")
    data = file.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise CLIError(f"{path}: line {line} is not valid UTF-8 (byte {exc.start}); re-encode the file as UTF-8") from None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def parse_option(item: str) -> tuple[str, Any]:
    key, sep, raw = item.partition("=")
    if not sep or not key:
        raise CLIError(f"-o {item!r}: write options as key=value, e.g. -o tokenize=zh")
    try:
        value = json.loads(raw)
    except json.JSONDecodeError:
        value = raw
    return key.replace("-", "_"), value


def load_pairs(predictions_path: str, reference_paths: Sequence[str]) -> tuple[list[str], list[list[str]]]:
    predictions = read_text_file(predictions_path)
    reference_files = [read_text_file(path) for path in reference_paths]
    for path, lines in zip(reference_paths, reference_files):
        if len(lines) != len(predictions):
            raise CLIError(
                f"{path} has {len(lines)} lines but {predictions_path} has {len(predictions)}: "
                "every references file needs one line per prediction"
            )
    return predictions, [list(refs) for refs in zip(*reference_files)]


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
        return json.dumps({"metric": metric, **result}, indent=1, ensure_ascii=False)
    if fmt == "csv":
        rows = [["metric", "key", "value"]]
        for key, value in result.items():
            if isinstance(value, list):
                rows += [[metric, f"{key}[{i}]", v] for i, v in enumerate(value)]
            else:
                rows.append([metric, key, value])
        from io import StringIO

        buffer = StringIO()
        csv.writer(buffer, lineterminator="\n").writerows(rows)
        return buffer.getvalue().rstrip("\n")
    items = scalar_items(result)
    width = max((len(key) for key, _ in items), default=0)
    lines = [f"{metric}"]
    for key, value in items:
        shown = f"{value:.4f}" if isinstance(value, float) else str(value)
        lines.append(f"  {key:<{width}}  {shown}")
    return "\n".join(lines)


def cmd_score(args: argparse.Namespace) -> int:
    options = dict(parse_option(item) for item in args.option)
    if args.device is not None:
        options["device"] = args.device
    if args.batch_size is not None:
        options["batch_size"] = args.batch_size
    predictions, references = load_pairs(args.predictions, args.references)
    if args.plot_alignment and args.metric not in EMBEDDING_METRICS:
        raise CLIError(f"--plot-alignment works with {' and '.join(EMBEDDING_METRICS)}, not {args.metric}")
    if args.metric in EMBEDDING_METRICS and "verbose" not in options and show_progress(args.progress, len(predictions)):
        options["verbose"] = True
    try:
        compute = get_metric(args.metric)
        result = compute(predictions, references, **options)
        if args.plot_alignment:
            print(f"wrote {plot_pair(args, predictions, references, options)}", file=sys.stderr)
    except TypeError as exc:
        if "unexpected keyword argument" in str(exc):
            raise CLIError(f"metric {args.metric!r} does not take that option: {exc}") from None
        raise CLIError(str(exc)) from None
    except (ValueError, ImportError) as exc:
        raise CLIError(str(exc)) from None
    print(format_result(args.metric, result, args.format))
    return 0


def show_progress(mode: str, n_lines: int) -> bool:
    if mode == "auto":
        return n_lines >= PROGRESS_MIN_LINES and sys.stderr.isatty()
    return mode == "on"


def plot_pair(args: argparse.Namespace, predictions: list[str], references: list[list[str]], options: dict) -> Path:
    """The alignment heatmap of pair ``--plot-index`` with the metric's model options."""
    from nlgmetrics.semantic.alignment_plot import plot_alignment

    index = args.plot_index
    if not 0 <= index < len(predictions):
        raise CLIError(f"--plot-index {index} is out of range: there are {len(predictions)} predictions")
    keep = {"model_type", "num_layers", "device"}
    if args.metric == "moverscore":
        keep |= {"distance", "stop_words", "remove_subwords", "solver", "reg", "relaxed", "n_gram"}
    plot_options = {k: v for k, v in options.items() if k in keep}
    return plot_alignment(predictions[index], references[index][0], args.plot_alignment, metric=args.metric,
                          **plot_options)


def cmd_baseline(args: argparse.Namespace) -> int:
    from nlgmetrics.semantic import baselines

    try:
        target = baselines.run(args)
    except ValueError as exc:
        raise CLIError(str(exc)) from None
    print(f"wrote {target}")
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    for name in available_metrics():
        print(name)
    return 0


def cmd_hub(args: argparse.Namespace) -> int:
    from nlgmetrics import hub

    try:
        if args.hub_command == "build":
            folder = hub.build_space(args.name, args.out, source=args.source, overwrite=args.overwrite)
            print(f"built the Space folder of {args.name} in {folder}: {', '.join(sorted(p.name for p in folder.iterdir()))}")
            return 0
        result = hub.publish_space(
            args.name, args.repo, tag=args.tag, dry_run=args.dry_run, private=args.private, token=args.token,
            source=args.source,
        )
    except hub.HubError as exc:
        raise CLIError(str(exc)) from None
    action = "would publish" if result.dry_run else "published"
    print(f"{action} {args.name} to https://huggingface.co/spaces/{result.repo_id} ({', '.join(result.files)})")
    for step in result.steps:
        print(f"  {step}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="nlgmetrics", description="Text-generation evaluation metrics.")
    sub = parser.add_subparsers(dest="command", required=True)

    score = sub.add_parser("score", help="score a file of predictions against reference files")
    score.add_argument("--metric", "-m", required=True, choices=list(METRICS))
    score.add_argument("--predictions", "-p", required=True, help="file with one prediction per line")
    score.add_argument("--references", "-r", required=True, action="append",
                       help="file with one reference per line; repeat for several references")
    score.add_argument("--format", "-f", choices=["table", "json", "csv"], default="table")
    score.add_argument("--option", "-o", action="append", default=[], metavar="KEY=VALUE",
                       help="a metric option, e.g. -o tokenize=zh (repeatable)")
    score.add_argument("--device", default=None, help="embedding metrics: cpu, cuda, cuda:1 (default: auto)")
    score.add_argument("--batch-size", type=int, default=None, help="embedding metrics: texts per batch")
    score.add_argument("--progress", choices=["auto", "on", "off"], default="auto",
                       help=f"embedding metrics: progress bar (auto: {PROGRESS_MIN_LINES}+ lines on a terminal)")
    score.add_argument("--plot-alignment", metavar="PNG", default=None,
                       help="bertscore/moverscore: also write the token alignment heatmap of one pair (needs matplotlib)")
    score.add_argument("--plot-index", type=int, default=0, help="which pair --plot-alignment shows (default: 0)")
    score.set_defaults(func=cmd_score)

    baseline = sub.add_parser("baseline", help="compute a BERTScore rescaling baseline (bert_score's method) from a corpus")
    baseline.add_argument("--model", required=True, help="hub id or local folder (the bundled: minilm)")
    baseline.add_argument("--lang", help="language code; without --out the file goes where lookups find it")
    baseline.add_argument("--corpus", required=True, nargs="+", help="text file(s), one sentence a line")
    baseline.add_argument("--pairs", type=int, default=100_000, help="random sentence pairs (bert_score used 1M)")
    baseline.add_argument("--seed", type=int, default=0)
    baseline.add_argument("--out", help="output file (default: $NLGMETRICS_HOME/baselines/<lang>/<model>.tsv)")
    baseline.add_argument("--batch-size", type=int, default=64)
    baseline.add_argument("--device", default=None)
    baseline.set_defaults(func=cmd_baseline)

    listing = sub.add_parser("list", help="list the metrics available in this installation")
    listing.set_defaults(func=cmd_list)

    hub_parser = sub.add_parser("hub", help="build or publish a metric's Hugging Face Space")
    hub_sub = hub_parser.add_subparsers(dest="hub_command", required=True)
    build = hub_sub.add_parser("build", help="assemble a Space folder (module script, card, app.py, requirements.txt)")
    build.add_argument("name", help="metric name (a folder of metrics/ with a card in hub_cards/)")
    build.add_argument("--out", required=True, help="the Space folder to create (evaluate.load(OUT) loads it)")
    build.add_argument("--overwrite", action="store_true", help="replace OUT if it is not empty")
    publish = hub_sub.add_parser("publish", help="build the Space and upload it with huggingface_hub")
    publish.add_argument("name", help="metric name")
    publish.add_argument("--repo", required=True, help="the Space id, ORG/NAME")
    publish.add_argument("--tag", default=None, help="tag the uploaded commit, e.g. v0.1.0")
    publish.add_argument("--dry-run", action="store_true", help="build and show what would be done; no upload")
    publish.add_argument("--private", action="store_true", help="create the Space private")
    publish.add_argument("--token", default=None, help="Hub token (default: the logged-in one, HF_TOKEN)")
    for command in (build, publish):
        command.add_argument("--source", default=None, help="folder with metrics/ and hub_cards/ (default: the checkout)")
    hub_parser.set_defaults(func=cmd_hub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except CLIError as exc:
        print(f"nlgmetrics: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # output piped into e.g. `head`
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    sys.exit(main())
