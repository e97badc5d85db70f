"""The embedding disk cache on hostile files: what sits at an entry's path is read only when it is a regular file with
a well-formed, size-consistent header and an entry that fits the model; anything else is a miss with a warning."""

from __future__ import annotations

import hashlib
import json
import os
import threading
import warnings

import numpy as np
import pytest
import torch

from nlgmetrics.embed import EmbeddingCache, TokenEmbeddings
from nlgmetrics.embed.cache import EntrySpec, check_entry, header_cap

NS = "engine=1|model=test|layer=6"
TEXT = "a cached text"
SPEC = EntrySpec((4,), vocab_size=100, max_tokens=50)


def _entry(n: int = 3, hidden: int = 4) -> TokenEmbeddings:
    return TokenEmbeddings(list(range(1, n + 1)), torch.arange(n * hidden, dtype=torch.float32).reshape(n, hidden))


def _write_raw(path, ids, emb: np.ndarray, text: str = TEXT, shape=None) -> None:
    """An entry with a valid checksum, whatever its contents."""
    payload = np.asarray(ids, dtype="<i8").tobytes() + np.asarray(emb, dtype="<f4").tobytes()
    header = {"namespace": NS, "text": text, "shape": list(emb.shape) if shape is None else shape,
              "sha256": hashlib.sha256(payload).hexdigest()}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"NLGEMB1\n" + json.dumps(header).encode("ascii") + b"\n" + payload)


@pytest.fixture
def cache(tmp_path):
    return EmbeddingCache(budget_mb=0, disk_dir=tmp_path)


def _get_within(cache: EmbeddingCache, seconds: float = 20.0, **kw):
    """cache.get in a thread: a read that blocks (a FIFO) fails the test instead of hanging it."""
    result: dict = {}

    def run():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result["entry"] = cache.get(NS, kw.get("text", TEXT), kw.get("spec", SPEC))
        result["warnings"] = [str(w.message) for w in caught]

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), "cache.get blocked"
    return result["entry"], result["warnings"]


def test_roundtrip_with_spec_and_all_layer_entries(cache):
    cache.put(NS, TEXT, _entry())
    entry, caught = _get_within(cache)
    assert caught == [] and entry.input_ids == [1, 2, 3] and torch.equal(entry.embeddings, _entry().embeddings)
    layers = TokenEmbeddings([5, 6], torch.rand(2, 3, 4))  # (tokens, L + 1, hidden): layer=None entries
    cache.put(NS, "all layers", layers)
    got = EmbeddingCache(budget_mb=0, disk_dir=cache.disk_dir).get(NS, "all layers", EntrySpec((3, 4), 100, 50))
    assert got is not None and torch.equal(got.embeddings, layers.embeddings)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_fifo_at_entry_path_is_a_miss_not_a_hang(cache):
    path = cache._disk_path(NS, TEXT)
    path.parent.mkdir(parents=True)
    os.mkfifo(path)
    entry, caught = _get_within(cache)
    assert entry is None and any("not a regular file" in w for w in caught)
    cache.put(NS, TEXT, _entry())  # the writer replaces the FIFO by a regular file
    assert _get_within(cache)[0] is not None


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
def test_symlink_to_a_device_is_not_read(cache):
    path = cache._disk_path(NS, TEXT)
    path.parent.mkdir(parents=True)
    os.symlink("/dev/zero", path)
    entry, caught = _get_within(cache)
    assert entry is None and any("not a regular file" in w for w in caught)


def test_directory_at_entry_path_is_a_miss(cache):
    cache._disk_path(NS, TEXT).mkdir(parents=True)
    entry, caught = _get_within(cache)
    assert entry is None and caught


def test_deeply_nested_header_is_a_miss(cache):
    text = "x" * 30_000  # a header cap above the nesting depth below
    path = cache._disk_path(NS, text)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"NLGEMB1\n" + b"[" * 200_000 + b"\n")
    entry, caught = _get_within(cache, text=text, spec=None)
    assert entry is None and any("does not parse" in w for w in caught)


def test_header_longer_than_its_cap_is_not_read_whole(cache):
    path = cache._disk_path(NS, TEXT)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"NLGEMB1\n" + b" " * (header_cap(NS, TEXT) + 10) + b"{}\n")
    entry, caught = _get_within(cache)
    assert entry is None and any("longer than" in w for w in caught)


@pytest.mark.parametrize(
    ("ids", "emb", "reason"),
    [
        ([], np.zeros((0, 4)), "no tokens"),
        ([1, 2], np.zeros((2, 7)), "does not fit the model"),
        ([1, 2], np.full((2, 4), np.nan), "non-finite"),
        ([1, 2], np.full((2, 4), np.inf), "non-finite"),
        ([1, 100], np.zeros((2, 4)), "outside the vocabulary"),
        ([-1, 2], np.zeros((2, 4)), "outside the vocabulary"),
        (list(range(60)), np.zeros((60, 4)), "does not fit the model"),  # more tokens than max_tokens
    ],
)
def test_entries_with_a_valid_checksum_are_still_validated(cache, ids, emb, reason):
    _write_raw(cache._disk_path(NS, TEXT), ids, emb)
    entry, caught = _get_within(cache)
    assert entry is None and any(reason in w for w in caught), caught


def test_size_must_match_the_header_shape(cache):
    path = cache._disk_path(NS, TEXT)
    _write_raw(path, [1, 2], np.zeros((2, 4)))
    path.write_bytes(path.read_bytes() + b"\0" * 8)
    entry, caught = _get_within(cache)
    assert entry is None and any("file size" in w for w in caught)
    _write_raw(path, [1, 2], np.zeros((2, 4)), shape=[2, 4, "x"])
    entry, caught = _get_within(cache)
    assert entry is None and any("malformed" in w for w in caught)


def test_check_entry_names_the_problem():
    check_entry(_entry(), SPEC)
    with pytest.raises(ValueError, match="shape"):
        check_entry(_entry(hidden=5), SPEC)
    with pytest.raises(ValueError, match="no tokens"):
        check_entry(TokenEmbeddings([], torch.zeros(0, 4)), SPEC)


def test_lone_surrogate_keys_are_stored_and_found(cache):
    text = "\ud800 cat"
    cache.put(NS, text, _entry())
    fresh = EmbeddingCache(budget_mb=0, disk_dir=cache.disk_dir)
    assert fresh.get(NS, text, SPEC) is not None
    assert fresh.get(NS, "\ufffd cat", SPEC) is None  # another key


@pytest.mark.parametrize("value", ["abc", "-1", "nan", "inf", ""])
def test_bad_budget_variable_is_named(monkeypatch, value):
    monkeypatch.setenv("NLGMETRICS_EMBED_CACHE_MB", value)
    with pytest.raises(ValueError, match="NLGMETRICS_EMBED_CACHE_MB"):
        EmbeddingCache()
    monkeypatch.setenv("NLGMETRICS_EMBED_CACHE_MB", "0.5")
    assert EmbeddingCache().budget_bytes == 2**19


def test_bad_budget_argument():
    for bad in (-1, float("nan"), float("inf"), "10", True):
        with pytest.raises(ValueError, match="budget_mb"):
            EmbeddingCache(budget_mb=bad)


def test_a_writer_killed_mid_write_leaves_no_temp_file_behind(cache):
    """Issue 29.11: a kill -9 while writing the disk cache left a 0-byte temp file, forever. The next write of that
    entry removes temp files of writers that no longer run (not those of a live process)."""
    import subprocess
    import sys

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True,
                          check=True)
    path = cache._disk_path(NS, TEXT)
    path.parent.mkdir(parents=True, exist_ok=True)
    orphan = path.with_name(f"{path.name}.tmp{int(dead.stdout)}.1")
    orphan.write_bytes(b"")
    alive = path.with_name(f"{path.name}.tmp1.1")  # pid 1 runs: its write may be in progress
    alive.write_bytes(b"")
    cache.put(NS, TEXT, _entry())
    assert not orphan.exists() and alive.exists()
    assert sorted(p.name for p in path.parent.iterdir()) == sorted([path.name, alive.name])
