"""The judgment cache: one SQLite file (stdlib ``sqlite3``, WAL journal), one row per judgment.

The key is the SHA-256 of everything that decides an answer: the backend's identity (backend, model, revision or
server address), the template digest, scale, mode, weighting rule, library version, the rendered messages and the
sampling parameters. Each answer is committed the moment it arrives, so an interrupted run loses nothing and a rerun
pays only for rows it lacks. A ``seen`` table records the model name and fingerprint each (backend, model) last
answered with, so a drift is reported even across runs.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
from pathlib import Path
from typing import Any

from nlgmetrics.judge.backends import Answer

_SCHEMA = """
CREATE TABLE IF NOT EXISTS judgments (key TEXT PRIMARY KEY, answer TEXT NOT NULL, created REAL NOT NULL);
CREATE TABLE IF NOT EXISTS seen (endpoint TEXT PRIMARY KEY, model TEXT NOT NULL, fingerprint TEXT NOT NULL);
"""


def default_cache_path() -> Path:
    """``$NLGMETRICS_JUDGE_CACHE``, else ``~/.cache/nlgmetrics/judge.sqlite`` (under ``$XDG_CACHE_HOME`` if set)."""
    if os.environ.get("NLGMETRICS_JUDGE_CACHE"):
        return Path(os.environ["NLGMETRICS_JUDGE_CACHE"])
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "nlgmetrics" / "judge.sqlite"


def judgment_key(parts: dict[str, Any]) -> str:
    """SHA-256 of ``parts`` as canonical JSON."""
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()  # ASCII: any str encodes


class JudgmentCache:
    """Judgments by key in one SQLite file; safe to share between threads of one process and between processes
    (WAL, a busy timeout)."""

    def __init__(self, path: str | os.PathLike | None = None) -> None:
        self.path = Path(path) if path is not None else default_cache_path()
        if self.path.is_dir():
            raise ValueError(f"judge cache path {self.path} is a directory; pass a file path such as "
                             f"{self.path / 'judge.sqlite'}.")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        try:
            self._db = sqlite3.connect(self.path, timeout=30.0, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(_SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise ValueError(f"judge cache {self.path} cannot be used as an SQLite file ({exc}); pass another path "
                             f"with cache='...' or cache=False.") from None

    def get_many(self, keys: list[str]) -> dict[str, Answer]:
        """The cached answers among ``keys``."""
        found: dict[str, Answer] = {}
        with self._lock:
            for start in range(0, len(keys), 500):
                chunk = keys[start:start + 500]
                rows = self._db.execute(
                    f"SELECT key, answer FROM judgments WHERE key IN ({','.join('?' * len(chunk))})", chunk
                ).fetchall()
                found.update((key, Answer.from_json(answer)) for key, answer in rows)
        return found

    def put(self, key: str, answer: Answer) -> None:
        """Store one answer and commit it."""
        import time

        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO judgments VALUES (?, ?, ?)", (key, answer.to_json(), time.time()))

    def seen(self, endpoint: str, model: str, fingerprint: str) -> tuple[str, str] | None:
        """Record that ``endpoint`` answered as ``(model, fingerprint)``; return what it answered as before when that
        differs (``None`` the first time or when equal)."""
        with self._lock:
            row = self._db.execute("SELECT model, fingerprint FROM seen WHERE endpoint = ?", (endpoint,)).fetchone()
            self._db.execute("INSERT OR REPLACE INTO seen VALUES (?, ?, ?)", (endpoint, model, fingerprint))
        return tuple(row) if row is not None and tuple(row) != (model, fingerprint) else None

    def __len__(self) -> int:
        with self._lock:
            return self._db.execute("SELECT COUNT(*) FROM judgments").fetchone()[0]

    def close(self) -> None:
        with self._lock:
            self._db.close()
