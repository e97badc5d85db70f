"""The judge's error classes. Every message goes through the one redaction (:func:`nlgmetrics._secrets.redact`), so
no credential of a ``base_url`` or ``api_key`` can reach a log or a terminal through an error.

(Minimal on purpose: once the project's error module exists these derive from its base class; they stay
``ValueError`` subclasses so existing ``except ValueError`` callers keep working.)
"""

from __future__ import annotations

from nlgmetrics._secrets import redact


class JudgeError(ValueError):
    """A judge run that cannot go on; the message names what (file, URL, option) and the fix, with credentials
    masked."""

    def __init__(self, message: str) -> None:
        super().__init__(redact(message))


class JudgeServerError(JudgeError):
    """The judge server could not be reached, refused the requests, or answered something that is not a chat
    completion (the message names the URL and the fix)."""


class JudgeCacheError(JudgeError):
    """The judgment cache file cannot be opened, read or written (read-only, locked, not SQLite, corrupted)."""
