"""The project's error classes: what library code raises when the user can fix something.

Rule: the message is one sentence (no newline) naming the problem, the file, URL or option concerned, and the fix.
The base class holds the rule for every message: its whitespace is folded onto one line and its credentials are
masked (:func:`nlgmetrics._secrets.redact`, from its leaf module :mod:`nlgmetrics._redact`), so no error of the project, printed or logged, carries a key or a URL's
userinfo. Each class also subclasses the built-in error callers caught before it existed (``ValueError``, ``OSError``,
``ImportError``), so ``except ValueError`` keeps working. The command line prints any of them as one line, exit 2
(:mod:`nlgmetrics.cli._boundary`); the Python API lets them propagate.

    NlgmetricsError
    ├── InputError (ValueError)          an input file, record or argument
    │   ├── InputTypeError (TypeError)   an argument of the wrong type (a None prediction, a number as a reference)
    │   ├── OptionError                  a metric or command-line option: unknown, or a value it does not take
    │   │   └── OptionTypeError (TypeError)  an option value of the wrong type (``lowercase="yes"``)
    │   └── LimitError                   a user-set size above its bound (resamples, k, retries, shapes, orders)
    ├── CheckpointError (ValueError)     a model checkpoint: missing, truncated, a pickle, hparams not matching weights
    ├── ServerError (ValueError)         a remote server (LLM judge, Hub) unreachable or answering something unusable
    ├── OutputError (ValueError)         an output path refused (a link, an input, a missing folder) or not writable
    ├── CacheError (OSError)             a cache file read-only, locked or corrupted
    └── MissingExtraError (ImportError, ValueError)  an optional extra not installed (the message names the pip line)
"""

from __future__ import annotations


class NlgmetricsError(Exception):
    """Base class: something the user can fix; the message says what and how (one line, credentials masked)."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        if args and isinstance(args[0], str):
            from nlgmetrics._redact import redact  # _secrets' redaction (a leaf module: _secrets imports this one)

            args = (" ".join(redact(args[0]).split()), *args[1:])
        super().__init__(*args, **kwargs)


class InputError(NlgmetricsError, ValueError):
    """An input file, record or argument is invalid (the message names it, with a line number for records)."""


class InputTypeError(InputError, TypeError):
    """An argument of the wrong type (a None prediction, a number where text is needed); also a ``TypeError``, as
    such an argument raised before."""


class OptionError(InputError):
    """A metric or command-line option has an unknown name or a value it does not take."""


class OptionTypeError(OptionError, TypeError):
    """An option value of the wrong type (``lowercase="yes"``, ``max_order=2.5``); also a ``TypeError``."""


class LimitError(InputError):
    """A user-set size (resamples x segments, ``k``, retries, tokens, hparams shapes) is above its bound."""


class CheckpointError(NlgmetricsError, ValueError):
    """A checkpoint that cannot be found or used: not a folder, missing files, truncated or pickled weights,
    hparams/config that do not match the weights."""


class ServerError(NlgmetricsError, ValueError):
    """A server (an OpenAI-compatible judge, the Hugging Face Hub) cannot be reached or answered something unusable."""


class OutputError(NlgmetricsError, ValueError):
    """An output path is refused (a link, an input file, a folder, a missing folder) or cannot be written."""


class CacheError(NlgmetricsError, OSError):
    """A cache file (the judge cache, the embedding cache) is read-only, locked or corrupted."""


class MissingExtraError(NlgmetricsError, ImportError, ValueError):
    """An optional dependency is missing; the message names the extra to install. Also a ``ValueError`` (like an
    unknown metric name: the metric cannot be used in this installation), so existing ``except ValueError`` callers
    report it as one line."""


__all__ = ["CacheError", "CheckpointError", "InputError", "InputTypeError", "LimitError", "MissingExtraError",
           "NlgmetricsError", "OptionError", "OptionTypeError", "OutputError", "ServerError"]
