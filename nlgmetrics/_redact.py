"""Text redaction, the part of :mod:`nlgmetrics._secrets` that imports nothing of nlgmetrics, so that the error
classes (:mod:`nlgmetrics.errors`) apply it to every message they carry; ``_secrets`` re-exports it and holds the rule
(see its docstring): URL userinfo and query values, ``Authorization``-like headers, ``Bearer``/``Basic`` tokens and
every credential :func:`remember`-ed become ``***``."""

from __future__ import annotations

import re
import threading
from typing import Any
from urllib.parse import parse_qsl, urlsplit, urlunsplit

MASK = "***"

_URL = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s'\"<>`]+")
_HEADER = re.compile(r"(?i)\b((?:proxy-)?authorization|x-api-key|api[-_]key)(['\"]?\s*[:=]\s*)(['\"]?)"
                     r"((?:(?:bearer|basic|token)\s+)?[^\s'\",}&]{4,})")
_TOKEN = re.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{6,}")
_KNOWN: set[str] = set()
_KNOWN_LOCK = threading.Lock()


def remember(value: str | None) -> None:
    """Scrub ``value`` (a credential of this process, at least 4 characters) from every later :func:`redact`."""
    if isinstance(value, str) and len(value) >= 4 and value != MASK:
        with _KNOWN_LOCK:
            _KNOWN.add(value)


def remember_url(url: str | None) -> None:
    """:func:`remember` the userinfo and the query values of ``url``."""
    if not isinstance(url, str):
        return
    try:
        parts = urlsplit(url)
    except ValueError:
        return
    for value in (parts.username, parts.password, *(v for _, v in parse_qsl(parts.query, keep_blank_values=True))):
        remember(value)


def redact_url(url: str) -> str:
    """``url`` without its credentials: userinfo -> ``***@``, every query value -> ``***`` (names kept)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return MASK
    netloc = parts.netloc
    if "@" in netloc:
        netloc = MASK + "@" + netloc.rsplit("@", 1)[1]
    query = parts.query
    if query:
        query = "&".join((pair.split("=", 1)[0] + "=" + MASK) if "=" in pair else MASK
                         for pair in query.split("&"))
    fragment = MASK if parts.fragment else ""
    return urlunsplit((parts.scheme, netloc, parts.path, query, fragment))


def redact(text: Any) -> str:
    """``str(text)`` with every URL's credentials, header/token credential and remembered credential masked."""
    text = str(text)
    with _KNOWN_LOCK:
        known = sorted(_KNOWN, key=len, reverse=True)
    for value in known:
        if value in text:
            text = text.replace(value, MASK)
    text = _URL.sub(lambda m: redact_url(m.group()), text)
    text = _HEADER.sub(lambda m: m.group(1) + m.group(2) + m.group(3) + MASK, text)
    return _TOKEN.sub(lambda m: m.group(1) + " " + MASK, text)
