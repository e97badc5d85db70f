"""The argument parser: one subcommand per module of this package, in the order ``--help`` lists them."""

from __future__ import annotations

import argparse

from nlgmetrics import __version__
from nlgmetrics.cli import agree, baseline, compare, hub, listing, mbr, rerank, score
from nlgmetrics.cli._boundary import OneLineParser

#: every subcommand's module: ``add_parser(subparsers, progress_help)`` adds it and sets ``func`` to its command;
#: ``EXTRAS``, where a module has it, names the pip extras the command needs (checked before it runs).
COMMANDS = (score, baseline, compare, agree, mbr, rerank, listing, hub)


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog="nlgmetrics", description="Text-generation evaluation metrics.")
    parser.add_argument("--version", action="version", version=f"nlgmetrics {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    progress_help = "progress bars: nlgmetrics' own on long runs on a terminal (auto); on also shows third-party ones"
    for command in COMMANDS:
        command.add_parser(sub, progress_help)
    return parser
