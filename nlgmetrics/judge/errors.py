"""The judge's error classes, in the project's tree (:mod:`nlgmetrics.errors`). Every message goes through the one
redaction (:func:`nlgmetrics._secrets.redact`), so no credential of a ``base_url`` or ``api_key`` can reach a log or
a terminal through an error."""

from __future__ import annotations

from nlgmetrics._secrets import redact
from nlgmetrics.errors import CacheError, NlgmetricsError, ServerError


class _Redacted:
    def __init__(self, message: str) -> None:
        super().__init__(redact(message))


class JudgeError(_Redacted, NlgmetricsError, ValueError):
    """A judge run that cannot go on (e.g. a backend returned an unusable answer); the message names what and the
    fix, with credentials masked."""


class JudgeServerError(_Redacted, ServerError):
    """The judge server could not be reached, refused the requests, or answered something that is not a chat
    completion (the message names the URL, credentials masked, and the fix)."""


class JudgeCacheError(_Redacted, CacheError):
    """The judgment cache file cannot be opened, read or written (read-only, locked, not SQLite, corrupted)."""
