"""The ``nlgmetrics`` command line.

    nlgmetrics score --metric bleu --predictions hyp.txt --references ref.txt [--references ref2.txt ...]
                     [--sources src.txt] [--format table|json|csv] [-o key=value ...] [--device cuda] [--batch-size 64]
                     [--progress auto|on|off] [--plot-alignment PNG [--plot-index I]]
    nlgmetrics compare -r ref.txt [-r ref2.txt] [-s src.txt] --baseline base.txt sys1.txt ... [-m bleu rouge ...]
                       [--paired-bs | --paired-ar] [--format table|markdown|json|csv] [--plot out.png]
    nlgmetrics mbr -c CANDIDATES [-n N] [-s SOURCES] [-m METRIC] [-o key=value ...] [--method exact|aggregate|centroid]
                   [--convention comet-mbr|mbrs] [--top-k K --qe-metric NAME [--qe-option key=value ...]]
                   [--samples FILE --num-samples M] [-f text|jsonl|json] [--output FILE [--overwrite]]
    nlgmetrics rerank -c CANDIDATES [-n N] (-s SOURCES | -r REFERENCES) -m METRIC [-o key=value ...] [-f ...]
    nlgmetrics list [METRIC ...] [--options]
    nlgmetrics --version
    nlgmetrics baseline --model MODEL (--lang LANG | --out FILE) --corpus FILE [--overwrite]
    nlgmetrics hub build NAME --out DIR [--overwrite] [--wheel FILE | --requirement SPEC]
    nlgmetrics hub publish NAME --repo ORG/NAME [--tag vX.Y.Z] [--dry-run]

Files hold one text per line (UTF-8; a byte-order mark at the start is dropped); ``-`` reads standard input. The i-th
line of every ``--references`` file is a reference of the i-th prediction, the i-th line of ``--sources`` its source
(metrics that read sources only: their spec's ``sources``); ``--references`` may be left out for reference-free
metrics (``references_optional``).

``-o key=value`` passes a metric option, read by the type the metric's compute function declares for it
(:func:`coerce_option`): booleans as true/false, yes/no or 1/0 (any case), integers and numbers checked, ``none``
or ``null`` where the option may be None, lists and objects as JSON (``-o rouge_types='["rouge1","rougeL"]'``), text
as given (``-o tokenize=zh``).

The embedding metrics show nlgmetrics' progress bar on long runs (``--progress auto``: at least
``PROGRESS_MIN_LINES`` predictions and a terminal on stderr). Third-party progress bars and load messages
(transformers' "Loading weights", datasets', evaluate's) are shown only with ``--progress on``.
``--plot-alignment PNG`` also writes the token alignment heatmap of pair ``--plot-index`` (its first reference):
MoverScore's transport flow or BERTScore's similarities.

Every error names the problem and the fix, exits with code 2 and prints no traceback (:mod:`._boundary`).

One module per subcommand (``score``, ``baseline``, ``compare``, ``agree``, ``mbr``, ``rerank``, ``listing``,
``hub``), each with ``add_parser`` and its command function; :mod:`._parser` assembles them.
"""

from __future__ import annotations

import sys  # noqa: F401  (tests patch cli.sys.stdin)

from nlgmetrics.cli._boundary import CLIError, cli_advice, core_error
from nlgmetrics.cli._main import main
from nlgmetrics.cli._common import (
    EMBEDDING_METRICS,
    PROGRESS_MIN_LINES,
    STDIN,
    check_inputs,
    load_pairs,
    read_text_file,
    show_progress,
)
from nlgmetrics.cli._format import format_result, scalar_items
from nlgmetrics.cli._options import _convert, coerce_option, option_types, parse_option
from nlgmetrics.cli._parser import build_parser

__all__ = [
    "CLIError", "EMBEDDING_METRICS", "PROGRESS_MIN_LINES", "STDIN", "build_parser", "check_inputs", "cli_advice",
    "coerce_option", "core_error", "format_result", "load_pairs", "main", "option_types",
    "parse_option", "read_text_file", "scalar_items", "show_progress",
]
