"""Content digests of model files, for signatures and cache keys (one home): SHA-256 of each file's bytes,
remembered by (path, size, mtime, inode) in the process and, for large files, across processes in
``file-digests.json`` beside the default judge cache, so gigabytes of unchanged weights are read once per version."""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Iterable
from pathlib import Path

#: file content digests by (resolved path, size, mtime_ns, inode): a folder's revision is hashed once per process,
#: and once per file version across processes (:func:`digest_store_path`)
_FILE_DIGESTS: dict[tuple, str] = {}
_FILE_DIGESTS_MAX = 4096
_DIGESTS_LOCK = threading.Lock()


def digest_store_path() -> Path:
    """``file-digests.json`` beside the default judge cache: content digests of model files, so a new process does not
    read gigabytes of unchanged weights again (an entry is valid only for the same path, size, mtime and inode)."""
    from nlgmetrics.judge.paths import default_cache_path

    return default_cache_path().parent / "file-digests.json"


def _stored_digests() -> dict[str, str]:
    try:
        data = json.loads(digest_store_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _store_digests(new: dict[str, str]) -> None:
    """Add ``new`` to the store (best effort: a store that cannot be written only costs a re-hash next time)."""
    from nlgmetrics._outputs import output_target, write_atomic
    from nlgmetrics.errors import OutputError

    with _DIGESTS_LOCK:
        data = {**_stored_digests(), **new}
        data = dict(list(data.items())[-_FILE_DIGESTS_MAX:])
        try:
            target = output_target(digest_store_path(), what="digest store", replaceable=lambda _: True,
                                   make_parents=True)
            write_atomic(target, json.dumps(data, sort_keys=False), what="digest store")
        except (OutputError, OSError):
            pass


def file_digest(path: str | os.PathLike, *, persist: bool = False) -> str:
    """SHA-256 of a file's bytes, remembered by (path, size, mtime, inode) so an unchanged file is read once per
    process (with ``persist``, once per version across processes); a replaced or rewritten file has another mtime or
    inode, so it is read again."""
    path = Path(path).resolve()
    stat = path.stat()
    key = (str(path), stat.st_size, stat.st_mtime_ns, stat.st_ino)
    if key not in _FILE_DIGESTS:
        text_key = json.dumps(key)
        stored = _stored_digests().get(text_key) if persist else None
        if stored is None:
            digest = hashlib.sha256()
            with open(path, "rb") as file:
                for block in iter(lambda: file.read(1 << 22), b""):
                    digest.update(block)
            stored = digest.hexdigest()
            if persist:
                _store_digests({text_key: stored})
        if len(_FILE_DIGESTS) >= _FILE_DIGESTS_MAX:
            _FILE_DIGESTS.pop(next(iter(_FILE_DIGESTS)))
        _FILE_DIGESTS[key] = stored
    return _FILE_DIGESTS[key]


def folder_revision(folder: str | os.PathLike) -> str:
    """A revision for a local model folder: :func:`files_digest` of the files in it (weights included)."""
    return files_digest(path for path in Path(folder).iterdir() if path.is_file())


def files_digest(paths: Iterable[str | os.PathLike]) -> str:
    """SHA-256 (12 hex digits) over each file's name and :func:`file_digest`, in name order: two folders of one name
    with other files differ, and replaced files of the same size do too. Files over 1 MB (weights) have their
    digests kept across processes (:func:`digest_store_path`)."""
    digest = hashlib.sha256()
    for path in sorted(map(Path, paths), key=lambda p: p.name):
        content = file_digest(path, persist=path.stat().st_size > 1 << 20)
        digest.update(path.name.encode("utf-8", "surrogateescape") + b"\x00" + content.encode() + b"\n")
    return digest.hexdigest()[:12]
