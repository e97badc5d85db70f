"""nlgmetrics.learned.locate.resolve_checkpoint, the one locator of the learned metrics' checkpoints: local folders,
paths that do not exist, the layout check, the Hugging Face cache (a fake one under tmp_path) offline, and the
cache-first-then-download order (snapshot_download replaced: nothing is fetched)."""

from __future__ import annotations

from pathlib import Path

import huggingface_hub
import pytest
from huggingface_hub import constants

from nlgmetrics.learned.comet_checkpoint import CheckpointError as CometCheckpointError
from nlgmetrics.learned.comet_checkpoint import find_checkpoint
from nlgmetrics.learned.locate import CheckpointError, resolve_checkpoint

HINT = "Pass a folder with model.bin."
COMMIT = "0123456789abcdef0123456789abcdef01234567"


def needs_model_bin(folder: Path) -> str | None:
    return None if (folder / "model.bin").is_file() else "has no model.bin"


@pytest.fixture
def hub_cache(tmp_path, monkeypatch):
    """An empty Hugging Face cache under tmp_path, the hub offline. huggingface_hub reads HF_HUB_CACHE when imported,
    so its constant is set too."""
    cache = tmp_path / "hf" / "hub"
    cache.mkdir(parents=True)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(cache))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return cache


def cache_repo(cache: Path, repo: str, files: dict[str, bytes]) -> Path:
    """Put ``repo`` in the cache as huggingface_hub lays it out; returns its snapshot folder."""
    root = cache / ("models--" + repo.replace("/", "--"))
    snapshot = root / "snapshots" / COMMIT
    for name, data in files.items():
        (snapshot / name).parent.mkdir(parents=True, exist_ok=True)
        (snapshot / name).write_bytes(data)
    (root / "refs").mkdir(parents=True)
    (root / "refs" / "main").write_text(COMMIT)
    return snapshot


def test_an_existing_folder_is_returned_as_given(tmp_path):
    (tmp_path / "model.bin").write_bytes(b"w")
    assert resolve_checkpoint(str(tmp_path), metric="m") == tmp_path
    assert resolve_checkpoint(tmp_path, metric="m", layout=needs_model_bin, hint=HINT) == tmp_path  # a Path too


def test_a_file_is_not_a_folder(tmp_path):
    (tmp_path / "model.bin").write_bytes(b"w")
    with pytest.raises(CheckpointError) as caught:
        resolve_checkpoint(str(tmp_path / "model.bin"), metric="m", hint=HINT)
    assert str(caught.value) == (f"m: checkpoint {str(tmp_path / 'model.bin')!r} is a file, not a folder: pass the "
                                 f"folder that holds the model's files. {HINT}")


@pytest.mark.parametrize("name", ["./no-such-folder", "{tmp}/no/such/folder", "a/b/c", "~/no-such-nlgmetrics-folder"])
def test_a_missing_path_is_named_not_looked_up_on_the_hub(name, tmp_path, monkeypatch):
    """An absolute path (here inside the test's folder) and a home path (HOME: the test's folder) too."""
    name = name.format(tmp=tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setattr(huggingface_hub, "snapshot_download", lambda *a, **k: pytest.fail("the hub was asked"))
    with pytest.raises(CheckpointError) as caught:
        resolve_checkpoint(name, metric="m", option="model", hint=HINT)
    assert str(caught.value) == f"m: model folder {name!r} does not exist. {HINT}"
    assert isinstance(caught.value, ValueError)


def test_a_folder_failing_the_layout_check(tmp_path):
    with pytest.raises(CheckpointError) as caught:
        resolve_checkpoint(str(tmp_path), metric="m", layout=needs_model_bin, hint=HINT)
    assert str(caught.value) == f"m: checkpoint {tmp_path} has no model.bin. {HINT}"


@pytest.mark.parametrize("value", [None, "", "  ", 3])
def test_not_a_name(value):
    with pytest.raises(TypeError, match=r"^m: checkpoint must be a non-empty string"):
        resolve_checkpoint(value, metric="m")


def test_a_hub_id_offline_and_not_cached_says_how_to_download(hub_cache):
    with pytest.raises(CheckpointError) as caught:
        resolve_checkpoint("short", metric="m", repo_id="org/full-name", allow_patterns=["*.json", "spm.model"])
    assert str(caught.value) == (
        "m: checkpoint 'short' (hub repository 'org/full-name') is not a local folder, and it is not in the Hugging "
        "Face cache and the hub is offline (HF_HUB_OFFLINE/TRANSFORMERS_OFFLINE). Download it once where the hub is "
        "reachable (hf download org/full-name --local-dir DIR --include '*.json' spm.model) and pass "
        "checkpoint=DIR.")


def test_a_cached_hub_id_is_its_snapshot_offline(hub_cache):
    snapshot = cache_repo(hub_cache, "org/name", {"model.bin": b"w", "config.json": b"{}"})
    assert resolve_checkpoint("org/name", metric="m", layout=needs_model_bin) == snapshot
    assert resolve_checkpoint("name", metric="m", repo_id="org/name", allow_patterns=["*.bin"]) == snapshot
    assert (snapshot / "model.bin").read_bytes() == b"w"


def test_a_cached_snapshot_failing_the_layout_is_refused_offline(hub_cache):
    snapshot = cache_repo(hub_cache, "org/name", {"config.json": b"{}"})
    with pytest.raises(CheckpointError) as caught:
        resolve_checkpoint("org/name", metric="m", layout=needs_model_bin, hint=HINT)
    assert str(caught.value) == f"m: checkpoint {snapshot} has no model.bin. {HINT}"


class FakeHub:
    """snapshot_download as seen from the resolver: a cache miss or hit, then a download that succeeds or fails."""

    def __init__(self, cached: Path | None, downloaded: Path | Exception):
        self.cached, self.downloaded, self.calls = cached, downloaded, []

    def __call__(self, repo, *, allow_patterns=None, local_files_only=False):
        self.calls.append((repo, allow_patterns, local_files_only))
        if local_files_only:
            if self.cached is None:
                raise huggingface_hub.errors.LocalEntryNotFoundError("not cached")
            return str(self.cached)
        if isinstance(self.downloaded, Exception):
            raise self.downloaded
        return str(self.downloaded)


def online_hub(monkeypatch, hub: FakeHub) -> FakeHub:
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    monkeypatch.setattr(huggingface_hub, "snapshot_download", hub)
    return hub


def test_online_the_cache_comes_first_then_a_download(tmp_path, monkeypatch):
    cached, fresh = tmp_path / "cached", tmp_path / "fresh"
    for folder in (cached, fresh):
        folder.mkdir()
    (fresh / "model.bin").write_bytes(b"w")
    hub = online_hub(monkeypatch, FakeHub(cached=None, downloaded=fresh))
    assert resolve_checkpoint("org/name", metric="m", allow_patterns=["*.bin"]) == fresh
    assert hub.calls == [("org/name", ["*.bin"], True), ("org/name", ["*.bin"], False)]

    hub = online_hub(monkeypatch, FakeHub(cached=fresh, downloaded=OSError("must not download")))
    assert resolve_checkpoint("org/name", metric="m", layout=needs_model_bin) == fresh
    assert hub.calls == [("org/name", None, True)]

    # a cached snapshot missing files (another allow_patterns fetched it): downloaded again, then checked
    hub = online_hub(monkeypatch, FakeHub(cached=cached, downloaded=fresh))
    assert resolve_checkpoint("org/name", metric="m", layout=needs_model_bin) == fresh
    assert [call[2] for call in hub.calls] == [True, False]


def test_online_a_failed_download_gives_its_reason(monkeypatch):
    online_hub(monkeypatch, FakeHub(cached=None, downloaded=OSError("connection refused\nmore lines")))
    with pytest.raises(CheckpointError) as caught:
        resolve_checkpoint("org/name", metric="m", option="model")
    assert str(caught.value) == (
        "m: model 'org/name' (hub repository 'org/name') is not a local folder, and it could not be downloaded "
        "(OSError: connection refused). Download it once where the hub is reachable (hf download "
        "org/name --local-dir DIR) and pass model=DIR.")


def test_comet_finds_its_checkpoint_through_the_same_locator(tmp_path, hub_cache):
    assert CometCheckpointError is CheckpointError
    files = {"hparams.yaml": b"class_identifier: regression_metric\n", "checkpoints/model.ckpt": b"w"}
    snapshot = cache_repo(hub_cache, "Unbabel/wmt22-comet-da", files)
    assert find_checkpoint("wmt22-comet-da") == snapshot  # HF evaluate's short name: Unbabel/...
    assert find_checkpoint("Unbabel/wmt22-comet-da") == snapshot
    assert find_checkpoint(snapshot / "checkpoints" / "model.ckpt") == snapshot
    with pytest.raises(CheckpointError, match=r"^COMET: model 'wmt22-cometkiwi-da' \(hub repository "
                                              r"'Unbabel/wmt22-cometkiwi-da'\) is not a local folder, and it is not "
                                              r"in the Hugging Face cache and the hub is offline"):
        find_checkpoint("wmt22-cometkiwi-da")
    with pytest.raises(CheckpointError) as caught:
        find_checkpoint(tmp_path / "hf")
    assert str(caught.value).startswith(f"COMET: model {tmp_path / 'hf'} is not a COMET checkpoint folder: Unbabel's "
                                        "layout is hparams.yaml and checkpoints/model.ckpt inside one folder")
