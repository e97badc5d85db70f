"""The one error boundary of the command line: every command runs inside :func:`main`, which turns an error into one
``nlgmetrics: error: ...`` line on stderr and exit code 2, never a traceback."""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence

from nlgmetrics._quiet import quiet_third_party


class CLIError(Exception):
    """A problem with the command line or its files; printed without a traceback, exit code 2."""


# Python keyword advice in the core's messages: model_type='X', device=None, lang='en', idf=True ...
_KEYWORD_ADVICE = re.compile(r"(?<![\w.-])([a-z][a-z0-9_]*)=(None|True|False|'[^']*'|-?\d[\d.]*)(?![\w'])")
_FLAGS = {"device": "--device", "batch_size": "--batch-size"}


def cli_advice(message: str, prefix: str = "", flags: dict[str, str] | None = None) -> str:
    """``message`` (a core error) with its Python advice in command-line form: ``device=None`` -> ``--device auto``,
    ``model_type='X'`` -> ``-o model_type=X`` (``-o PREFIXmodel_type=X``; ``flags``: option -> its own flag)."""
    flags = {**_FLAGS, **(flags or {})}

    def rewrite(match: re.Match) -> str:
        name, value = match.group(1), match.group(2).strip("'")
        if name in flags:
            return f"{flags[name]} {'auto' if value == 'None' and name == 'device' else value}"
        return f"-o {prefix}{name}={value.lower() if value in ('None', 'True', 'False') else value}"

    return _KEYWORD_ADVICE.sub(rewrite, message)


def core_error(exc: BaseException, prefix: str = "", flags: dict[str, str] | None = None) -> CLIError:
    """The one-line CLI error for an error the core raised, its advice in command-line form."""
    return CLIError(cli_advice(str(exc), prefix, flags))



def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """Warnings on the command line: one ``nlgmetrics: warning:`` line, not Python's file/line/source format."""
    print(f"nlgmetrics: warning: {message}", file=sys.stderr if file is None else file)


def main(argv: Sequence[str] | None = None) -> int:
    import warnings

    from nlgmetrics.cli._parser import build_parser

    parser = build_parser()
    args = parser.parse_args(argv)
    shown = warnings.showwarning
    warnings.showwarning = _show_warning
    try:
        with quiet_third_party(enabled=getattr(args, "progress", "auto") != "on"):
            return args.func(args)
    except CLIError as exc:
        print(f"nlgmetrics: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("nlgmetrics: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into e.g. `head`
        sys.stderr.close()
        return 0
    finally:
        warnings.showwarning = shown

