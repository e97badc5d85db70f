"""The judgment cache: one SQLite file (stdlib ``sqlite3``, WAL journal), one row per judgment.

The key is the SHA-256 of the request actually sent (the backend's ``payload``: messages, model and every
sampling/decoding parameter, ``top_logprobs`` included), the backend's key identity (model and revision, the in-process
dtype, the server address without credentials plus a digest of its query string), the answer labels, the template
digest, scale, mode and library version. No credential is stored: URLs are redacted (:mod:`nlgmetrics._secrets`).
A row is the answer to its request, reused as it is: a G-Eval request that a server answered without token
probabilities is not asked again (the payload records that probabilities were asked for; asking again gets the same).

Each answer is committed the moment it arrives (SQLite's write-ahead log), so an interrupted run loses nothing and
a rerun pays only for rows it lacks. The path follows the output rule (:mod:`nlgmetrics._outputs`: never a link or
a folder; a folder you name must exist). A read-only file (no write permission bit, or on a read-only file system: a
published cache) is opened read-only: it serves the rows it has, and a run that needs a judgment it lacks is refused
before that judgment is asked for (:meth:`JudgmentCache.refuse_new`). A file locked by another writer, or not SQLite,
is refused before anything is asked (:class:`~nlgmetrics.judge.errors.JudgeCacheError`); a write that fails later in a
run (disk full, file removed) warns and the run goes on with the answers it has paid for. A row whose answer cannot be
read is a miss (asked again, replaced). A ``seen`` table records the model name and fingerprint each endpoint last
answered with, so a drift is reported even across runs.

``cache`` option values (:func:`cache_path`): ``True`` = the default file, ``False``/``None`` = no cache, a path; the
strings ``"true"``/``"yes"``/``"on"``/``"1"`` and ``"false"``/``"no"``/``"off"``/``"0"``/``"none"``/``""`` (any case)
mean ``True`` and ``False`` (as on the command line), so they never name a file: write ``./false`` for a file called
that.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
import time
import warnings
from pathlib import Path
from typing import Any

from nlgmetrics._outputs import output_target
from nlgmetrics.errors import OptionTypeError
from nlgmetrics.judge.backends import Answer
from nlgmetrics.judge.errors import JudgeCacheError
from nlgmetrics.judge.paths import default_cache_path

_TRUE, _FALSE = ("true", "yes", "on", "1"), ("false", "no", "off", "0", "none", "")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS judgments (key TEXT PRIMARY KEY, answer TEXT NOT NULL, created REAL NOT NULL);
CREATE TABLE IF NOT EXISTS seen (endpoint TEXT PRIMARY KEY, model TEXT NOT NULL, fingerprint TEXT NOT NULL);
"""


def cache_path(cache: Any) -> Path | None:
    """The file a ``cache=`` option value names (``None``: no cache); see the module docstring for the rule."""
    if cache is True:
        return default_cache_path()
    if cache is False or cache is None:
        return None
    if isinstance(cache, str) and cache.strip().lower() in _TRUE + _FALSE:
        return default_cache_path() if cache.strip().lower() in _TRUE else None
    if isinstance(cache, (str, os.PathLike)):
        return Path(cache)
    raise OptionTypeError(f"cache must be True (the default file), a path or False, got {cache!r}.")


def judgment_key(parts: dict[str, Any]) -> str:
    """SHA-256 of ``parts`` as canonical JSON."""
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()  # ASCII: any str encodes


class JudgmentCache:
    """Judgments by key in one SQLite file; safe to share between threads of one process and between processes
    (WAL, a busy timeout of ``busy_timeout`` seconds)."""

    busy_timeout = 30.0

    def __init__(self, path: str | os.PathLike | None = None, *, make_parents: bool | None = None) -> None:
        # the output rule (nlgmetrics._outputs): never through a link, never a folder; a folder the user named must
        # exist, the default one (make_parents) is created. SQLite updates the file in place, never replaces it.
        if make_parents is None:
            make_parents = path is None
        self.path = output_target(path if path is not None else default_cache_path(), what="judge cache",
                                  replaceable=lambda _: True, make_parents=make_parents)
        self._lock = threading.Lock()
        self.failed_writes = 0
        self._db = None
        self.read_only = self.path.exists() and not os.stat(self.path).st_mode & 0o222  # no write bit: published
        try:
            if not self.read_only:
                try:
                    self._open_for_writing()
                except sqlite3.OperationalError as exc:
                    if "readonly" not in str(exc).lower() or not self.path.exists():
                        raise
                    if self._db is not None:
                        self._db.close()
                    self.read_only = True  # a read-only file system
            if self.read_only:
                self._open_read_only()
            self._db.execute("SELECT key, answer FROM judgments LIMIT 1").fetchall()
        except (sqlite3.Error, OSError) as exc:
            if self._db is not None:
                self._db.close()
            fix = "pass another file with cache='...', or cache=False"
            raise JudgeCacheError(f"judge cache {self.path} cannot be used ({_why(exc)}); {_fix(exc, fix)}.") \
                from None

    def _open_for_writing(self) -> None:
        self._db = sqlite3.connect(self.path, timeout=self.busy_timeout, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)
        # prove now, before anything is paid for, that rows can be written (another writer holding the lock)
        self._db.execute("BEGIN IMMEDIATE")
        try:
            self._db.execute("INSERT OR REPLACE INTO seen VALUES ('', '', '')")
        finally:
            self._db.execute("ROLLBACK")

    def _open_read_only(self) -> None:
        """Read-only, never writing (not even the WAL's index): ``immutable`` when no write-ahead log lies beside it,
        so a file in a read-only folder opens too."""
        uri = self.path.resolve().as_uri() + "?mode=ro"
        if not Path(f"{self.path}-wal").exists():
            uri += "&immutable=1"
        self._db = sqlite3.connect(uri, uri=True, timeout=self.busy_timeout, check_same_thread=False,
                                   isolation_level=None)

    def refuse_new(self, new: int, total: int) -> None:
        """Raise, before anything is asked: this read-only cache lacks ``new`` of the ``total`` judgments a run needs."""
        raise JudgeCacheError(
            f"judge cache {self.path} is read-only and lacks {new} of the {total} judgments this run needs (it serves "
            f"the other {total - new}); nothing was asked. Make the file writable to add them, copy it to a writable "
            "path (cache='...'), or pass cache=False.")

    def get_many(self, keys: list[str]) -> dict[str, Answer]:
        """The cached answers among ``keys`` (a row whose answer cannot be read is left out: asked again)."""
        found: dict[str, Answer] = {}
        unreadable = 0
        with self._lock:
            for start in range(0, len(keys), 500):
                chunk = keys[start:start + 500]
                try:
                    rows = self._db.execute(
                        f"SELECT key, answer FROM judgments WHERE key IN ({','.join('?' * len(chunk))})", chunk
                    ).fetchall()
                except sqlite3.Error as exc:
                    raise JudgeCacheError(f"judge cache {self.path} cannot be read ({_why(exc)}); "
                                          f"{_fix(exc, 'pass another file with cache=...')}.") from None
                for key, answer in rows:
                    try:
                        found[key] = Answer.from_json(answer)
                    except (TypeError, ValueError):
                        unreadable += 1
        if unreadable:
            warnings.warn(f"llm_judge: {unreadable} row(s) of the judge cache {self.path} cannot be read; they are "
                          f"judged again and replaced.", stacklevel=3)
        return found

    def put(self, key: str, answer: Answer) -> None:
        """Store one answer and commit it. A failed write warns once and counts in ``failed_writes`` (the run keeps
        the answer; a paid judgment is not thrown away because the cache broke)."""
        if self.read_only:
            raise JudgeCacheError(f"judge cache {self.path} is read-only; a new answer cannot be stored.")
        try:
            with self._lock:
                self._db.execute("INSERT OR REPLACE INTO judgments VALUES (?, ?, ?)",
                                 (key, answer.to_json(), time.time()))
        except sqlite3.Error as exc:
            self.failed_writes += 1
            if self.failed_writes == 1:
                warnings.warn(f"llm_judge: cannot write to the judge cache {self.path} ({_why(exc)}); this run keeps "
                              f"its answers, but they are not cached.", stacklevel=3)

    def seen(self, endpoint: str, model: str, fingerprint: str) -> tuple[str, str] | None:
        """Record that ``endpoint`` answered as ``(model, fingerprint)``; return what it answered as before when that
        differs (``None`` the first time or when equal). A read-only cache records nothing."""
        try:
            with self._lock:
                row = self._db.execute("SELECT model, fingerprint FROM seen WHERE endpoint = ?",
                                       (endpoint,)).fetchone()
                self._db.execute("INSERT OR REPLACE INTO seen VALUES (?, ?, ?)", (endpoint, model, fingerprint))
        except sqlite3.Error:
            return None  # a drift check is advice; put() reports a cache that cannot be written
        return tuple(row) if row is not None and tuple(row) != (model, fingerprint) else None

    def __len__(self) -> int:
        with self._lock:
            return self._db.execute("SELECT COUNT(*) FROM judgments").fetchone()[0]

    def close(self) -> None:
        with self._lock:
            self._db.close()


def _why(exc: BaseException) -> str:
    return str(getattr(exc, "strerror", None) or exc) or type(exc).__name__


def _fix(exc: BaseException, default: str) -> str:
    text = str(exc).lower()
    if "readonly" in text or "read-only" in text or "permission" in text:
        return f"make the file (and its folder) writable, or {default}"
    if "locked" in text or "busy" in text:
        return f"another process holds a write lock on it: wait for it to finish, or {default}"
    if "not a database" in text or "malformed" in text or "corrupt" in text:
        return f"the file is not an intact SQLite database: move it away (a new cache starts empty), or {default}"
    return default
