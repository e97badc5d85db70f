"""``nlgmetrics baseline``: a BERTScore rescaling baseline (bert_score's method) computed from a corpus."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from nlgmetrics.cli._boundary import CLIError, core_error
from nlgmetrics.cli._paths import InputPath, OutputPath
from nlgmetrics.cli._common import _positive_int, read_text_file


#: the pip extras this command needs (checked before it runs: nlgmetrics.extras' rule, one error line naming them).
EXTRAS = ("embed",)

#: a minimal valid invocation, for the policy tests (tests/test_policy.py): {text} is a file of text lines.
POLICY_ARGS = [["baseline", "--model", "minilm", "--corpus", "{text}", "--out", "{out}"]]


def add_parser(sub, progress_help: str) -> argparse.ArgumentParser:
    baseline = sub.add_parser("baseline", help="compute a BERTScore rescaling baseline (bert_score's method) from a corpus")
    baseline.add_argument("--model", required=True, help="hub id or local folder (the bundled: minilm)")
    baseline.add_argument("--lang", help="language code (en, zh, en-sci); without --out the file goes where lookups "
                                         "find it")
    baseline.add_argument("--corpus", required=True, nargs="+", type=InputPath(), help="text file(s), one sentence a line")
    baseline.add_argument("--pairs", type=_positive_int, default=100_000,
                          help="random sentence pairs (bert_score used 1M)")
    baseline.add_argument("--seed", type=int, default=0)
    baseline.add_argument("--out", type=OutputPath("file"), help="output file (default: $NLGMETRICS_HOME/baselines/<lang>/<model>.tsv)")
    baseline.add_argument("--overwrite", action="store_true", help="replace an existing baseline file")
    baseline.add_argument("--batch-size", type=_positive_int, default=64)
    baseline.add_argument("--device", default=None)
    baseline.add_argument("--progress", choices=["auto", "on", "off"], default="auto", help=progress_help)
    baseline.set_defaults(func=cmd_baseline)
    return baseline


def baseline_target(args: argparse.Namespace) -> Path:
    """Where ``nlgmetrics baseline`` writes, checked before any work: never a folder, never an existing file unless
    ``--overwrite`` and it is a baseline file, never outside the baselines folder for ``--lang``/``--model``."""
    from nlgmetrics.semantic import baselines

    if args.out is None and args.lang is None:
        raise CLIError("pass --lang (the file goes where lookups find it) or --out FILE")
    try:
        if args.lang is not None:
            baselines.check_lang(args.lang)
        target = Path(args.out) if args.out is not None else baselines.default_baseline_path(args.lang, args.model)
    except ValueError as exc:
        raise CLIError(str(exc)) from None
    if target.is_dir():
        raise CLIError(f"--out {target} is a directory; pass a file path, e.g. {target / 'baseline.tsv'}")
    if target.exists():
        if not args.overwrite:
            raise CLIError(f"{target} exists; pass --overwrite to replace it, or choose another --out")
        try:
            baselines.read_baseline(target)
        except ValueError:
            raise CLIError(f"{target} is not a baseline file (LAYER,P,R,F); nlgmetrics replaces only baseline files: "
                           "choose another --out") from None
    return target


def cmd_baseline(args: argparse.Namespace) -> int:
    from nlgmetrics.semantic import baselines

    target = baseline_target(args)
    sentences: list[str] = []
    for name in args.corpus:
        try:
            sentences += read_text_file(name)
        except CLIError as exc:
            raise CLIError(f"cannot read corpus {exc}") from None
    verbose = args.progress == "on" or (args.progress == "auto" and sys.stderr.isatty())
    try:
        baselines.compute_baseline(
            sentences, args.model, lang=args.lang, pairs=args.pairs, seed=args.seed,
            out=target if args.out is not None else None,  # the default location: its folders are created
            batch_size=args.batch_size, device=args.device, verbose=verbose,
        )
    except (ValueError, ImportError) as exc:
        raise core_error(exc, flags={"model_type": "--model", "lang": "--lang", "out": "--out"}) from None
    except OSError as exc:
        raise CLIError(f"cannot write {target} ({exc.strerror or exc}); choose another --out") from None
    print(f"wrote {target}")
    return 0
