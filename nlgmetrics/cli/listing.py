"""``nlgmetrics list``: the metrics available in this installation."""

from __future__ import annotations

import argparse

from nlgmetrics.registry import available_metrics


def add_parser(sub, progress_help: str) -> argparse.ArgumentParser:
    listing = sub.add_parser("list", help="list the metrics available in this installation")
    listing.set_defaults(func=cmd_list)
    return listing


def cmd_list(args: argparse.Namespace) -> int:
    for name in available_metrics():
        print(name)
    return 0
