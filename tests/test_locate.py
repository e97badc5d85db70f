"""nlgmetrics.learned.locate.resolve_checkpoint, the one locator of the learned metrics' checkpoints: local folders,
paths that do not exist, the layout check, the Hugging Face cache (a fake one under tmp_path) offline, and the
cache-first-then-download order (snapshot_download replaced: nothing is fetched)."""

from __future__ import annotations

import json
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


# -- weights: one file or save_pretrained's shards -----------------------------------------------------------------
def _save_shards(folder: Path, shards: dict[str, dict], index_name: str = "model.safetensors.index.json") -> Path:
    """Shards ``{file name: {tensor name: tensor}}`` and their index, as save_pretrained lays them out."""
    import torch
    from safetensors.torch import save_file

    folder.mkdir(parents=True, exist_ok=True)
    for name, tensors in shards.items():
        if name.endswith(".bin"):
            torch.save(tensors, folder / name)
        else:
            save_file(tensors, str(folder / name))
    weight_map = {key: name for name, tensors in shards.items() for key in tensors}
    (folder / index_name).write_text(json.dumps({"metadata": {}, "weight_map": weight_map}))
    return folder


def _two_shards():
    import torch

    return {"model-00001-of-00002.safetensors": {"a.weight": torch.ones(2, 3), "a.bias": torch.zeros(2)},
            "model-00002-of-00002.safetensors": {"b.weight": torch.full((4,), 2.0)}}


def test_sharded_weights_are_read_shard_by_shard(tmp_path):
    import torch

    from nlgmetrics.learned.locate import find_weights, load_weights, weight_shapes

    folder = _save_shards(tmp_path / "ckpt", _two_shards())
    weights = find_weights(folder, "m")
    assert weights.path == folder / "model.safetensors.index.json" and len(weights.files) == 2
    assert weight_shapes(weights, "m") == {"a.weight": (2, 3), "a.bias": (2,), "b.weight": (4,)}
    state = load_weights(weights, "m", names={"a.bias", "b.weight"})
    assert set(state) == {"a.bias", "b.weight"} and torch.equal(state["b.weight"], torch.full((4,), 2.0))
    # a single file is preferred over shards of the same format, safetensors over .bin (transformers' order)
    from safetensors.torch import save_file

    save_file({"x": torch.zeros(1)}, str(folder / "model.safetensors"))
    assert find_weights(folder, "m").files == (folder / "model.safetensors",)
    assert find_weights(tmp_path, "m") is None


def test_an_empty_unlisted_shard_is_what_transformers_4_writes(tmp_path):
    """transformers 4.30's save_pretrained writes an empty, unlisted first shard when the first tensor exceeds
    max_shard_size; it holds nothing and is not an extra shard."""
    import torch

    from nlgmetrics.learned.locate import find_weights

    shards = {"pytorch_model-00002-of-00003.bin": {"a": torch.ones(3)}, "pytorch_model-00003-of-00003.bin": {
        "b": torch.ones(2)}}
    folder = _save_shards(tmp_path / "ckpt", shards, "pytorch_model.bin.index.json")
    torch.save({}, folder / "pytorch_model-00001-of-00003.bin")
    assert len(find_weights(folder, "m").files) == 2


@pytest.mark.parametrize("damage,message", [
    (lambda f: (f / "model-00002-of-00002.safetensors").unlink(),
     r"m: the shard model-00002-of-00002.safetensors that model.safetensors.index.json lists is missing from "),
    (lambda f: (f / "model-00003-of-00003.safetensors").write_bytes(
        (f / "model-00002-of-00002.safetensors").read_bytes()),
     r"holds the shard model-00003-of-00003.safetensors \(1 tensors, e.g. b.weight\), which "
     r"model.safetensors.index.json does not list"),
    (lambda f: (f / "model.safetensors.index.json").write_text('{"weight_map": {"a.weight": "../x.safetensors"}}'),
     r"names '../x.safetensors', not a file beside it"),
    (lambda f: (f / "model.safetensors.index.json").write_text('{"weight_map": '),
     r"the shard index .*model.safetensors.index.json is not valid JSON"),
    (lambda f: (f / "model.safetensors.index.json").write_text('{"metadata": {}}'), r"has no weight_map"),
])
def test_a_broken_sharded_checkpoint_names_the_shard(tmp_path, damage, message):
    from nlgmetrics.learned.locate import find_weights

    folder = _save_shards(tmp_path / "ckpt", _two_shards())
    damage(folder)
    with pytest.raises(CheckpointError, match=message):
        find_weights(folder, "m")


def test_a_shard_holding_other_tensors_than_the_index_says(tmp_path):
    from nlgmetrics.learned.locate import find_weights, weight_shapes

    folder = _save_shards(tmp_path / "ckpt", _two_shards())
    index = json.loads((folder / "model.safetensors.index.json").read_text())
    index["weight_map"]["a.bias"] = "model-00002-of-00002.safetensors"
    (folder / "model.safetensors.index.json").write_text(json.dumps(index))
    with pytest.raises(CheckpointError, match=r"the shard .*model-00001-of-00002.safetensors holds a.bias, which "
                                              r"model.safetensors.index.json maps elsewhere or not at all"):
        weight_shapes(find_weights(folder, "m"), "m")


def test_weights_digest_covers_every_shard_and_follows_the_bytes(tmp_path):
    """A content digest: shards and index included, another digest when one shard's bytes change at the same size;
    an unchanged file is hashed once (remembered by path, size, mtime and inode)."""
    import hashlib

    from nlgmetrics.learned.locate import find_weights, weights_digest

    folder = _save_shards(tmp_path / "ckpt", _two_shards())
    weights = find_weights(folder, "m")
    outer = hashlib.sha256()
    for path in sorted([*weights.files, weights.path], key=lambda p: p.name):
        outer.update(path.name.encode() + b"\0" + hashlib.sha256(path.read_bytes()).hexdigest().encode() + b"\n")
    first = weights_digest(weights)
    assert first == outer.hexdigest()[:12]
    shard = folder / "model-00002-of-00002.safetensors"
    data = bytearray(shard.read_bytes())
    data[-1] ^= 1  # one bit of a tensor: same size
    shard.unlink()
    shard.write_bytes(bytes(data))
    assert weights_digest(find_weights(folder, "m")) != first
    assert weights_digest(folder / "model-00001-of-00002.safetensors") != first  # one file alone
