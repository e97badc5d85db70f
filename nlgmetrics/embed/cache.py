"""``EmbeddingCache``: token embeddings keyed by (encoder namespace, text), in memory (LRU under a byte budget) and
optionally on disk.

The namespace is built by the encoder from everything that changes the numbers: model identity (hub id + revision,
or a content hash of a local folder), layer, tokenizer settings, long-text mode and compute dtype. A lookup matches the
full namespace and the full text, so the cache can never hand back another model's, layer's or text's embeddings.

Disk entries (``<dir>/<sha256(namespace)[:16]>/<h[:2]>/<h>.emb`` with ``h = sha256(namespace + text)``) hold a JSON
header (namespace, text, shape, SHA-256 of the payload) and the raw little-endian payload (int64 ids, float32
embeddings). A file that does not parse, whose checksum fails or whose header names another key is treated as a miss:
a ``UserWarning`` is issued and the caller recomputes and overwrites it.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import warnings
from collections import OrderedDict
from pathlib import Path
from typing import NamedTuple

import numpy as np
import torch

DEFAULT_BUDGET_MB = float(os.environ.get("NLGMETRICS_EMBED_CACHE_MB", "1024"))
_MAGIC = b"NLGEMB1\n"


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

    def __init__(self, budget_mb: float = DEFAULT_BUDGET_MB, disk_dir: str | os.PathLike | None = None) -> None:
        self._lock = threading.Lock()
        self._items: OrderedDict[tuple[str, str], TokenEmbeddings] = OrderedDict()
        self._bytes = 0
        self.budget_bytes = int(budget_mb * 2**20)
        self.disk_dir = Path(disk_dir) if disk_dir is not None else None
        self.hits = 0
        self.misses = 0
        self.disk_hits = 0

    # -- configuration --------------------------------------------------------------------------------------------
    def configure(self, budget_mb: float | None = None, disk_dir: str | os.PathLike | None | bool = False) -> None:
        """Change the byte budget (evicting as needed) and/or the disk folder (``None`` turns disk caching off)."""
        with self._lock:
            if budget_mb is not None:
                if budget_mb < 0:
                    raise ValueError(f"budget_mb must be >= 0, got {budget_mb!r}.")
                self.budget_bytes = int(budget_mb * 2**20)
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
    def get(self, namespace: str, text: str) -> TokenEmbeddings | None:
        key = (namespace, text)
        with self._lock:
            entry = self._items.get(key)
            if entry is not None:
                self._items.move_to_end(key)
                self.hits += 1
                return entry
        if self.disk_dir is not None:
            entry = self._disk_read(namespace, text)
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
        folder = hashlib.sha256(namespace.encode("utf-8")).hexdigest()[:16]
        digest = hashlib.sha256((namespace + "\x00" + text).encode("utf-8")).hexdigest()
        return self.disk_dir / folder / digest[:2] / f"{digest}.emb"

    def _disk_read(self, namespace: str, text: str) -> TokenEmbeddings | None:
        path = self._disk_path(namespace, text)
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            warnings.warn(f"embedding cache file {path} unreadable ({exc}); recomputing.", UserWarning, stacklevel=4)
            return None
        try:
            if not raw.startswith(_MAGIC):
                raise ValueError("bad magic")
            end = raw.index(b"\n", len(_MAGIC))
            header = json.loads(raw[len(_MAGIC) : end].decode("utf-8"))
            payload = raw[end + 1 :]
            if hashlib.sha256(payload).hexdigest() != header["sha256"]:
                raise ValueError("checksum mismatch")
            if header["namespace"] != namespace or header["text"] != text:
                raise ValueError("entry belongs to another key")
            n, hidden = header["shape"]
            ids = np.frombuffer(payload[: 8 * n], dtype="<i8")
            emb = np.frombuffer(payload[8 * n :], dtype="<f4")
            if emb.size != n * hidden:
                raise ValueError("truncated payload")
            return TokenEmbeddings(ids.tolist(), torch.from_numpy(emb.reshape(n, hidden).copy()))
        except (ValueError, KeyError, TypeError, UnicodeDecodeError) as exc:
            warnings.warn(
                f"embedding cache file {path} is corrupt ({exc}); recomputing and overwriting it.",
                UserWarning,
                stacklevel=4,
            )
            return None

    def _disk_write(self, namespace: str, text: str, entry: TokenEmbeddings) -> None:
        path = self._disk_path(namespace, text)
        emb = entry.embeddings.detach().to("cpu", torch.float32).contiguous().numpy()
        payload = np.asarray(entry.input_ids, dtype="<i8").tobytes() + emb.astype("<f4", copy=False).tobytes()
        header = {"namespace": namespace, "text": text, "shape": list(emb.shape), "sha256": hashlib.sha256(payload).hexdigest()}
        data = _MAGIC + json.dumps(header, ensure_ascii=True).encode("ascii") + b"\n" + payload
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f"{path.name}.tmp{os.getpid()}.{threading.get_ident()}")
            tmp.write_bytes(data)
            os.replace(tmp, path)  # atomic: readers see the old file or the complete new one
        except OSError as exc:
            warnings.warn(f"could not write embedding cache file {path} ({exc}).", UserWarning, stacklevel=4)


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
