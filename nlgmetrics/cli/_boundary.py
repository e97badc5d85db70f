"""The one error boundary of the command line: every command runs inside :func:`nlgmetrics.cli._main.main`, which turns
any error into one ``nlgmetrics: error: ...`` line on stderr (:func:`describe`) naming the problem and the fix, exit
code 2, never a traceback. This module holds the rules and :class:`CLIError`; it imports no command, so every command
can import it (``_main`` runs the parser, which imports the commands).

The project's own errors (:mod:`nlgmetrics.errors`, :class:`CLIError`) carry their message; those of the libraries
underneath (torch, safetensors, yaml, sqlite3, json, openai/httpx, pickle, the OS) and resource exhaustion
(RecursionError, MemoryError) are described by :func:`describe`, by kind, with the fix; anything else is reported as an
internal error to report. ``NLGMETRICS_TRACEBACK=1`` prints the traceback too (for bug reports). Usage errors
(argparse's) are one line as well, pointing to ``--help``."""

from __future__ import annotations

import argparse
import re
import sys

from nlgmetrics.errors import NlgmetricsError


class CLIError(NlgmetricsError):
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



#: third-party errors by (module prefix, class name) of any class in the error's MRO -> (what failed, the fix).
_KNOWN: list[tuple[str, str, str, str]] = [
    ("_pickle", "UnpicklingError", "the file holds pickled Python objects, which nlgmetrics does not load (unpickling "
     "can run code)", "use a checkpoint saved as safetensors or as plain tensors"),
    ("pickle", "UnpicklingError", "the file holds pickled Python objects, which nlgmetrics does not load (unpickling "
     "can run code)", "use a checkpoint saved as safetensors or as plain tensors"),
    ("safetensors", "SafetensorError", "a safetensors weights file is damaged or truncated",
     "download or copy the checkpoint again"),
    ("builtins", "SafetensorError", "a safetensors weights file is damaged or truncated",
     "download or copy the checkpoint again"),
    ("yaml", "YAMLError", "a YAML file cannot be read", "fix the file (its line is given above) or use another one"),
    ("sqlite3", "Error", "a cache database failed", "check that the cache file is writable, not used by another "
     "run and not damaged, or pass another cache path"),
    ("json", "JSONDecodeError", "a JSON file or answer is not valid JSON", "fix or replace the file"),
    ("openai", "APIError", "the server request failed", "check the server URL, that the server is running and the "
     "API key"),
    ("httpx", "HTTPError", "the server request failed", "check the server URL and that the server is running"),
    ("requests", "RequestException", "a network request failed", "check the URL and the network"),
    ("huggingface_hub", "HfHubHTTPError", "a Hugging Face Hub request failed", "check the model id and the network, "
     "or pass a local folder"),
    ("torch", "OutOfMemoryError", "the device ran out of memory", "lower --batch-size, or use --device cpu"),
    ("zipfile", "BadZipFile", "an archive (a .bin/.pt checkpoint or a wheel) is damaged or truncated",
     "copy it again"),
]


def _one_line(text: str, limit: int = 400) -> str:
    """``text`` on one line, credentials masked (:func:`nlgmetrics._secrets.redact`: every error and warning line)."""
    from nlgmetrics._secrets import redact

    text = " ".join(redact(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def describe(exc: BaseException) -> str:
    """One line for ``exc``: what went wrong (its message) and what to do."""
    if isinstance(exc, (CLIError, NlgmetricsError)):
        return _one_line(cli_advice(str(exc)), 1000)
    message = _one_line(str(exc)) or type(exc).__name__
    if isinstance(exc, RecursionError):
        return ("an input is nested too deeply to read (a YAML/JSON file with thousands of levels?): flatten or "
                "replace the file")
    if isinstance(exc, MemoryError):
        return ("out of memory: lower --batch-size, --n-resamples or --k, or score fewer lines per run "
                f"({type(exc).__name__}{': ' + message if str(exc) else ''})")
    for klass in type(exc).__mro__:
        for module, name, what, fix in _KNOWN:
            if klass.__name__ == name and klass.__module__.split(".")[0] == module:
                if name == "UnpicklingError":  # torch's text advises the unsafe weights_only=False: never shown
                    return f"{what}; {fix}"
                return f"{what} ({message}); {fix}"
    if isinstance(exc, OSError):
        where = f"{exc.filename}: " if getattr(exc, "filename", None) else ""
        return f"{where}{exc.strerror or message}; check the path, its permissions and the free disk space"
    module = type(exc).__module__.split(".")[0]
    if module == "torch" or (isinstance(exc, RuntimeError) and "state_dict" in message):
        return (f"the model failed in torch ({message}); check that the checkpoint's config/hparams match its "
                "weights and that the device has room")
    if isinstance(exc, (ValueError, TypeError, ImportError, LookupError, ArithmeticError)) and module == "builtins":
        return _one_line(cli_advice(str(exc)), 1000) or type(exc).__name__
    return (f"internal error ({type(exc).__name__}: {message}); please report it with the command line "
            "(NLGMETRICS_TRACEBACK=1 shows where it happened)")


class OneLineParser(argparse.ArgumentParser):
    """argparse, with a usage error as one line pointing to --help instead of the usage block."""

    def error(self, message: str):  # type: ignore[override]
        self.exit(2, f"nlgmetrics: error: {_one_line(message, 1000)} (see `{self.prog} --help`)\n")


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """Warnings on the command line: one ``nlgmetrics: warning:`` line, not Python's file/line/source format."""
    print(f"nlgmetrics: warning: {_one_line(message, 1000)}", file=sys.stderr if file is None else file)
