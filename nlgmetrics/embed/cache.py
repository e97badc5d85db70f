"""``EmbeddingCache``: token embeddings keyed by (encoder namespace, text), in memory (LRU under a byte budget) and
optionally on disk.

The namespace is built by the encoder from everything that changes the numbers: model identity (hub id + revision,
or a content hash of a local folder), layer, tokenizer settings, long-text mode and compute dtype. A lookup matches the
full namespace and the full text, so the cache can never hand back another model's, layer's or text's embeddings.

Disk entries (``<dir>/<sha256(namespace)[:16]>/<h[:2]>/<h>.emb`` with ``h = sha256(namespace + text)``, texts
hashed as UTF-8 with lone surrogates passed through) hold a JSON header (namespace, text, shape, SHA-256 of the
payload) and the raw little-endian payload (int64 ids, float32 embeddings). A file is read only when it is a regular
file (a FIFO, device or directory at an entry's path is never opened for reading: ``O_NONBLOCK`` open, then
``fstat``), its header line is at most :func:`header_cap` bytes and parses as the expected header, and its size is
exactly what the header's shape implies. Given an :class:`EntrySpec` (the encoder passes one) the entry must also have
at least one token and at most ``max_tokens``, the expected row shape (hidden size, layers), finite values and token
ids inside the vocabulary. Anything else is a miss: a ``UserWarning`` is issued and the caller recomputes and
overwrites the file.

``NLGMETRICS_EMBED_CACHE_MB`` sets the default memory budget (MiB, a number >= 0; default 1024);
``NLGMETRICS_EMBED_CACHE_DIR`` turns the disk layer on for the shared cache.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import stat
import threading
import warnings
from collections import OrderedDict
from pathlib import Path
from typing import NamedTuple

import numpy as np
import torch

BUDGET_ENV = "NLGMETRICS_EMBED_CACHE_MB"
_MAGIC = b"NLGEMB1\n"


def _budget_from_env() -> float:
    """``$NLGMETRICS_EMBED_CACHE_MB`` as a number of MiB (default 1024); a ``ValueError`` naming the variable."""
    raw = os.environ.get(BUDGET_ENV, "1024")
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if not (math.isfinite(value) and value >= 0):
        raise ValueError(
            f"{BUDGET_ENV}={raw!r} is not a valid embedding cache budget: set it to a number of MiB >= 0 "
            f"(e.g. {BUDGET_ENV}=1024; 0 turns the memory cache off), or unset it."
        )
    return value


class EntrySpec(NamedTuple):
    """What a valid entry for one (namespace, text) looks like: ``row_shape`` (the embeddings' shape after the token
    axis, e.g. ``(hidden,)`` or ``(L + 1, hidden)``), ``vocab_size`` (ids must lie in ``0 .. vocab_size - 1``) and
    ``max_tokens`` (an upper bound on the text's token count)."""

    row_shape: tuple[int, ...]
    vocab_size: int
    max_tokens: int


def header_cap(namespace: str, text: str) -> int:
    """The longest header line an entry for (namespace, text) can have: JSON with ASCII escapes takes at most 12
    bytes per character (a non-BMP character as two ``\\uXXXX`` escapes), plus room for shape and checksum."""
    return 12 * (len(namespace) + len(text)) + 512


def check_entry(entry: TokenEmbeddings, spec: EntrySpec) -> None:
    """``ValueError`` naming the first way ``entry`` does not fit ``spec``."""
    n = len(entry.input_ids)
    if n == 0:
        raise ValueError("no tokens")
    if n > spec.max_tokens:
        raise ValueError(f"{n} tokens, more than the text can have ({spec.max_tokens})")
    if tuple(entry.embeddings.shape) != (n, *spec.row_shape):
        raise ValueError(f"embeddings of shape {tuple(entry.embeddings.shape)}, expected {(n, *spec.row_shape)}")
    ids = torch.as_tensor(entry.input_ids)
    if int(ids.min()) < 0 or int(ids.max()) >= spec.vocab_size:
        raise ValueError(f"token ids outside the vocabulary (0..{spec.vocab_size - 1})")
    if not bool(torch.isfinite(entry.embeddings).all()):
        raise ValueError("non-finite values in the embeddings")


class _Corrupt(ValueError):
    pass


class TokenEmbeddings(NamedTuple):
    """One text's contextual token embeddings.

    ``input_ids``: token ids including the special tokens (e.g. ``[CLS] ... [SEP]``); ``embeddings``: float32 tensor
    of shape ``(len(input_ids), hidden)`` on CPU.
    """

    input_ids: list[int]
    embeddings: torch.Tensor


def _entry_bytes(entry: TokenEmbeddings) -> int:
    return entry.embeddings.numel() * entry.embeddings.element_size() + 28 * len(entry.input_ids) + 200


class EmbeddingCache:
    """LRU map ``(namespace, text) -> TokenEmbeddings`` bounded by ``budget_mb``; optional write-through disk layer.

    Thread-safe. ``budget_mb=0`` disables the memory layer; ``disk_dir=None`` disables the disk layer.
    """

    def __init__(self, budget_mb: float | None = None, disk_dir: str | os.PathLike | None = None) -> None:
        """``budget_mb``: MiB for the memory layer (default ``$NLGMETRICS_EMBED_CACHE_MB``, else 1024)."""
        self._lock = threading.Lock()
        self._items: OrderedDict[tuple[str, str], TokenEmbeddings] = OrderedDict()
        self._bytes = 0
        self.budget_bytes = int(_check_budget(_budget_from_env() if budget_mb is None else budget_mb) * 2**20)
        self.disk_dir = Path(disk_dir) if disk_dir is not None else None
        self.hits = 0
        self.misses = 0
        self.disk_hits = 0

    # -- configuration --------------------------------------------------------------------------------------------
    def configure(self, budget_mb: float | None = None, disk_dir: str | os.PathLike | None | bool = False) -> None:
        """Change the byte budget (evicting as needed) and/or the disk folder (``None`` turns disk caching off)."""
        with self._lock:
            if budget_mb is not None:
                self.budget_bytes = int(_check_budget(budget_mb) * 2**20)
                self._evict()
            if disk_dir is not False:
                self.disk_dir = Path(disk_dir) if disk_dir is not None else None

    def clear(self) -> None:
        """Empty the memory layer (disk files stay) and reset the counters."""
        with self._lock:
            self._items.clear()
            self._bytes = 0
            self.hits = self.misses = self.disk_hits = 0

    @property
    def nbytes(self) -> int:
        return self._bytes

    def __len__(self) -> int:
        return len(self._items)

    # -- lookups --------------------------------------------------------------------------------------------------
    def get(self, namespace: str, text: str, spec: EntrySpec | None = None) -> TokenEmbeddings | None:
        """The entry for (namespace, text), or ``None``. ``spec``: what a disk entry must look like to be used (see
        the module docstring); memory entries were checked when they came in."""
        key = (namespace, text)
        with self._lock:
            entry = self._items.get(key)
            if entry is not None:
                self._items.move_to_end(key)
                self.hits += 1
                return entry
        if self.disk_dir is not None:
            entry = self._disk_read(namespace, text, spec)
            if entry is not None:
                with self._lock:
                    self.disk_hits += 1
                self._remember(key, entry)
                return entry
        with self._lock:
            self.misses += 1
        return None

    def put(self, namespace: str, text: str, entry: TokenEmbeddings) -> None:
        self._remember((namespace, text), entry)
        if self.disk_dir is not None:
            self._disk_write(namespace, text, entry)

    def _remember(self, key: tuple[str, str], entry: TokenEmbeddings) -> None:
        size = _entry_bytes(entry)
        with self._lock:
            if size > self.budget_bytes:
                return
            old = self._items.pop(key, None)
            if old is not None:
                self._bytes -= _entry_bytes(old)
            self._items[key] = entry
            self._bytes += size
            self._evict()

    def _evict(self) -> None:
        while self._bytes > self.budget_bytes and self._items:
            _, old = self._items.popitem(last=False)
            self._bytes -= _entry_bytes(old)

    # -- disk layer -----------------------------------------------------------------------------------------------
    def _disk_path(self, namespace: str, text: str) -> Path:
        folder = hashlib.sha256(namespace.encode("utf-8", "surrogatepass")).hexdigest()[:16]
        digest = hashlib.sha256((namespace + "\x00" + text).encode("utf-8", "surrogatepass")).hexdigest()
        return self.disk_dir / folder / digest[:2] / f"{digest}.emb"

    def _disk_read(self, namespace: str, text: str, spec: EntrySpec | None = None) -> TokenEmbeddings | None:
        path = self._disk_path(namespace, text)
        try:
            # O_NONBLOCK: opening a FIFO for reading must not wait for a writer; fstat then rejects anything but a
            # regular file (FIFO, character device such as /dev/zero, directory) before a byte is read
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
        except FileNotFoundError:
            return None
        except OSError as exc:
            warnings.warn(f"embedding cache file {path} unreadable ({exc}); recomputing.", UserWarning, stacklevel=4)
            return None
        try:
            with os.fdopen(fd, "rb") as handle:
                return self._parse(handle, os.fstat(handle.fileno()), namespace, text, spec)
        except (_Corrupt, OSError) as exc:
            warnings.warn(
                f"embedding cache file {path} is corrupt ({exc}); recomputing and overwriting it.",
                UserWarning,
                stacklevel=4,
            )
            return None

    @staticmethod
    def _parse(handle, info: os.stat_result, namespace: str, text: str, spec: EntrySpec | None) -> TokenEmbeddings:
        """Read and check one entry; ``_Corrupt`` naming the first problem."""
        if not stat.S_ISREG(info.st_mode):
            raise _Corrupt("not a regular file")
        cap = header_cap(namespace, text)
        head = handle.read(len(_MAGIC) + cap + 1)
        if not head.startswith(_MAGIC):
            raise _Corrupt("bad magic")
        end = head.find(b"\n", len(_MAGIC))
        if end < 0:
            raise _Corrupt(f"header line missing or longer than {cap} bytes")
        try:
            header = json.loads(head[len(_MAGIC) : end].decode("ascii"))
        except (ValueError, RecursionError) as exc:  # RecursionError: deeply nested JSON
            raise _Corrupt(f"header does not parse: {type(exc).__name__}") from None
        if not isinstance(header, dict):
            raise _Corrupt("header is not an object")
        shape, checksum = header.get("shape"), header.get("sha256")
        if header.get("namespace") != namespace or header.get("text") != text:
            raise _Corrupt("entry belongs to another key")
        if not (isinstance(shape, list) and shape and all(type(d) is int and d >= 0 for d in shape)
                and isinstance(checksum, str)):
            raise _Corrupt("header fields missing or malformed")
        n, row = shape[0], math.prod(shape[1:])
        if spec is not None:
            if n == 0:
                raise _Corrupt("no tokens")
            if n > spec.max_tokens or tuple(shape[1:]) != tuple(spec.row_shape):
                raise _Corrupt(f"shape {shape} does not fit the model (rows {list(spec.row_shape)}, "
                               f"at most {spec.max_tokens} tokens)")
        size = 8 * n + 4 * n * row
        if info.st_size != end + 1 + size:
            raise _Corrupt(f"file size {info.st_size} bytes, the header's shape implies {end + 1 + size}")
        payload = head[end + 1 :] + handle.read(size - (len(head) - end - 1))
        if len(payload) != size:
            raise _Corrupt("truncated payload")
        if hashlib.sha256(payload).hexdigest() != checksum:
            raise _Corrupt("checksum mismatch")
        ids = np.frombuffer(payload[: 8 * n], dtype="<i8")
        emb = np.frombuffer(payload[8 * n :], dtype="<f4").reshape(shape)
        entry = TokenEmbeddings(ids.tolist(), torch.from_numpy(emb.copy()))
        if spec is not None:
            try:
                check_entry(entry, spec)
            except ValueError as exc:
                raise _Corrupt(str(exc)) from None
        return entry

    def _disk_write(self, namespace: str, text: str, entry: TokenEmbeddings) -> None:
        path = self._disk_path(namespace, text)
        emb = entry.embeddings.detach().to("cpu", torch.float32).contiguous().numpy()
        payload = np.asarray(entry.input_ids, dtype="<i8").tobytes() + emb.astype("<f4", copy=False).tobytes()
        header = {"namespace": namespace, "text": text, "shape": list(emb.shape), "sha256": hashlib.sha256(payload).hexdigest()}
        data = _MAGIC + json.dumps(header, ensure_ascii=True).encode("ascii") + b"\n" + payload
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            _remove_orphans(path)
            tmp = path.with_name(f"{path.name}.tmp{os.getpid()}.{threading.get_ident()}")
            tmp.write_bytes(data)
            os.replace(tmp, path)  # atomic: readers see the old file or the complete new one
        except OSError as exc:
            warnings.warn(f"could not write embedding cache file {path} ({exc}).", UserWarning, stacklevel=4)


def _remove_orphans(path: Path) -> None:
    """Remove the temporary files of ``path`` left by writers that no longer run (a process killed mid-write leaves
    ``<entry>.tmp<pid>.<thread>``, possibly empty); a live process's file is left alone."""
    for orphan in path.parent.glob(f"{path.name}.tmp*"):
        pid = orphan.name[len(path.name) + 4 :].partition(".")[0]
        if pid.isdigit() and int(pid) != os.getpid() and not _process_alive(int(pid)):
            orphan.unlink(missing_ok=True)


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # e.g. another user's process
        return True
    return True


def _check_budget(budget_mb: float) -> float:
    if isinstance(budget_mb, bool) or not isinstance(budget_mb, (int, float)) or not (
        math.isfinite(budget_mb) and budget_mb >= 0
    ):
        raise ValueError(f"budget_mb must be a number of MiB >= 0 (0 turns the memory cache off), got {budget_mb!r}.")
    return float(budget_mb)


_DEFAULT_CACHE: EmbeddingCache | None = None
_DEFAULT_LOCK = threading.Lock()


def get_cache() -> EmbeddingCache:
    """The process-wide cache every encoder uses (disk folder from ``$NLGMETRICS_EMBED_CACHE_DIR`` if set)."""
    global _DEFAULT_CACHE
    with _DEFAULT_LOCK:
        if _DEFAULT_CACHE is None:
            _DEFAULT_CACHE = EmbeddingCache(disk_dir=os.environ.get("NLGMETRICS_EMBED_CACHE_DIR") or None)
        return _DEFAULT_CACHE


def configure_cache(budget_mb: float | None = None, disk_dir: str | os.PathLike | None | bool = False) -> EmbeddingCache:
    """Set the shared cache's memory budget (MiB) and/or disk folder (``None``: off); returns the cache."""
    cache = get_cache()
    cache.configure(budget_mb=budget_mb, disk_dir=disk_dir)
    return cache
