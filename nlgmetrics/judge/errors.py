"""The judge's error classes, in the project's tree (:mod:`nlgmetrics.errors`). Every message goes through the one
redaction (:func:`nlgmetrics._secrets.redact`, applied by :class:`~nlgmetrics.errors.NlgmetricsError` itself), so no
credential of a ``base_url`` or ``api_key`` can reach a log or a terminal through an error."""

from __future__ import annotations

from nlgmetrics.errors import CacheError, NlgmetricsError, ServerError


class JudgeError(NlgmetricsError, ValueError):
    """A judge run that cannot go on (e.g. a backend returned an unusable answer); the message names what and the
    fix, with credentials masked."""


class JudgeServerError(ServerError):
    """The judge server could not be reached, refused the requests, or answered something that is not a chat
    completion (the message names the URL, credentials masked, and the fix)."""


class JudgeCacheError(CacheError):
    """The judgment cache file cannot be opened, read or written (locked, not SQLite, corrupted), or a judgment it
    lacks would have to be paid for while it is read-only."""
