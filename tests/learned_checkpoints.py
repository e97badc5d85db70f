"""Checkpoints of the learned metrics' real architectures, built offline for the parity tests: small seeded random
weights and tokenizers trained here on WMT17 text, saved in the layouts the published checkpoints use.

- :func:`build_bleurt`: a ``BleurtForSequenceClassification`` folder as bleurt-pytorch 0.0.1 writes and reads it
  (``config.json`` with ``model_type: bleurt``, ``pytorch_model.bin``); ``kind="rembert"`` is the BLEURT-20 layout
  (embedding size below the hidden size, an embedding projection, a cased SentencePiece ``spm.model``), ``kind="bert"``
  the legacy bleurt-tiny/base/large layout (a lowercased WordPiece ``vocab.txt`` + ``tokenizer.json``).
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import torch

DATA = Path(__file__).resolve().parent / "data"
WMT17 = DATA / "wmt17_ende"


def wmt17_lines(name: str = "newstest2017-ende-ref.de") -> list[str]:
    """One file of tests/data/wmt17_ende (3,004 lines)."""
    with gzip.open(WMT17 / f"{name}.gz", "rt", encoding="utf-8") as handle:
        return handle.read().splitlines()


def training_text() -> list[str]:
    """German WMT17 text the BLEURT test tokenizers are trained on (the reference and one system, 2,000 lines each)."""
    return wmt17_lines()[:2000] + wmt17_lines("newstest2017.online-F.0.en-de")[:2000]


def _seeded(shape: tuple[int, ...], generator: torch.Generator, std: float) -> torch.Tensor:
    return (torch.randn(shape, generator=generator) * std).contiguous()


def bleurt_state_dict(config: dict, seed: int = 0) -> dict[str, torch.Tensor]:
    """Seeded random weights under bleurt-pytorch's parameter names for ``config``."""
    g = torch.Generator().manual_seed(seed)
    hidden, inter = config["hidden_size"], config["intermediate_size"]
    emb = config.get("embedding_size") or hidden
    state: dict[str, torch.Tensor] = {}

    def linear(name: str, n_out: int, n_in: int) -> None:
        state[f"{name}.weight"] = _seeded((n_out, n_in), g, n_in**-0.5)
        state[f"{name}.bias"] = _seeded((n_out,), g, 0.1)

    def norm(name: str, size: int) -> None:
        state[f"{name}.weight"] = 1 + _seeded((size,), g, 0.1)
        state[f"{name}.bias"] = _seeded((size,), g, 0.1)

    p = "bleurt.embeddings"
    state[f"{p}.word_embeddings.weight"] = _seeded((config["vocab_size"], emb), g, 1.0)
    state[f"{p}.position_embeddings.weight"] = _seeded((config["max_position_embeddings"], emb), g, 0.5)
    state[f"{p}.token_type_embeddings.weight"] = _seeded((config["type_vocab_size"], emb), g, 0.5)
    norm(f"{p}.LayerNorm", emb)
    if emb != hidden:
        linear("bleurt.encoder.embedding_projection", hidden, emb)
    for i in range(config["num_hidden_layers"]):
        p = f"bleurt.encoder.layer.{i}"
        for part in ("query", "key", "value"):
            linear(f"{p}.attention.self.{part}", hidden, hidden)
        linear(f"{p}.attention.output.dense", hidden, hidden)
        norm(f"{p}.attention.output.LayerNorm", hidden)
        linear(f"{p}.intermediate.dense", inter, hidden)
        linear(f"{p}.output.dense", hidden, inter)
        norm(f"{p}.output.LayerNorm", hidden)
    linear("bleurt.pooler.dense", hidden, hidden)
    linear("classifier", 1, hidden)
    return state


SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def _train_sentencepiece(folder: Path, vocab_size: int) -> None:
    import sentencepiece

    with open(folder / "spm.model", "wb") as model:
        sentencepiece.SentencePieceTrainer.train(
            sentence_iterator=iter(training_text()), model_writer=model, vocab_size=vocab_size, model_type="unigram",
            pad_id=0, unk_id=1, bos_id=2, eos_id=3, pad_piece="[PAD]", unk_piece="[UNK]", bos_piece="[CLS]",
            eos_piece="[SEP]", user_defined_symbols=["[MASK]"], num_threads=1, character_coverage=0.9995,
            minloglevel=2,
        )


def _train_wordpiece(folder: Path, vocab_size: int) -> None:
    from tokenizers import BertWordPieceTokenizer
    from tokenizers.processors import TemplateProcessing

    tokenizer = BertWordPieceTokenizer(lowercase=True)
    tokenizer.train_from_iterator(training_text(), vocab_size=vocab_size, special_tokens=SPECIALS,
                                  show_progress=False)
    tokenizer.save_model(str(folder))  # vocab.txt
    cls, sep = tokenizer.token_to_id("[CLS]"), tokenizer.token_to_id("[SEP]")
    tokenizer.post_processor = TemplateProcessing(  # the pair template transformers' BERT converter writes
        single="[CLS]:0 $A:0 [SEP]:0", pair="[CLS]:0 $A:0 [SEP]:0 $B:1 [SEP]:1",
        special_tokens=[("[CLS]", cls), ("[SEP]", sep)])
    tokenizer.save(str(folder / "tokenizer.json"))
    settings = {"do_lower_case": True, "strip_accents": None, "tokenize_chinese_chars": True, "unk_token": "[UNK]",
                "sep_token": "[SEP]", "pad_token": "[PAD]", "cls_token": "[CLS]", "mask_token": "[MASK]",
                "tokenizer_class": "BleurtTokenizer"}  # as BleurtTokenizerFast.save_pretrained writes it
    (folder / "tokenizer_config.json").write_text(json.dumps(settings, indent=2))


#: bleurt-tiny-128/512's published architecture (Google's BERT-Tiny, uncased WordPiece vocabulary of 30,522)
BLEURT_TINY = {"num_hidden_layers": 2, "hidden_size": 128, "num_attention_heads": 2, "intermediate_size": 512,
               "vocab_size": 30522}
#: bleurt-base-128/512's (BERT-Base)
BLEURT_BASE = {"num_hidden_layers": 12, "hidden_size": 768, "num_attention_heads": 12, "intermediate_size": 3072,
               "vocab_size": 30522}


def build_bleurt(folder: Path, kind: str = "rembert", *, seed: int = 0, layers: int = 2,
                 sizes: dict | None = None) -> Path:
    """Write a BLEURT checkpoint of ``kind`` ("rembert": BLEURT-20 layout, "bert": legacy layout) into ``folder``;
    ``sizes`` overrides the (small) architecture, e.g. :data:`BLEURT_TINY` (the vocabulary size may exceed the
    trained tokenizer's)."""
    folder.mkdir(parents=True, exist_ok=True)
    vocab = 1200 if sizes is None else min(sizes.get("vocab_size", 1200), 8000)
    if kind == "rembert":
        _train_sentencepiece(folder, vocab)
        tokenizer_config = {"do_lower_case": False, "split_by_punct": False, "bos_token": "[CLS]", "eos_token": "[SEP]",
                            "unk_token": "[UNK]", "sep_token": "[SEP]", "pad_token": "[PAD]", "cls_token": "[CLS]",
                            "mask_token": "[MASK]", "tokenizer_class": "BleurtSPTokenizer"}
        (folder / "tokenizer_config.json").write_text(json.dumps(tokenizer_config, indent=2))
        arch = {"embedding_size": 16, "hidden_size": 48, "num_attention_heads": 4, "intermediate_size": 96}
    elif kind == "bert":
        _train_wordpiece(folder, vocab)
        vocab = sum(1 for _ in open(folder / "vocab.txt", encoding="utf-8"))
        arch = {"embedding_size": None, "hidden_size": 32, "num_attention_heads": 2, "intermediate_size": 64}
    else:
        raise ValueError(kind)
    config = {"architectures": ["BleurtForSequenceClassification"], "model_type": "bleurt", "vocab_size": vocab,
              "num_hidden_layers": layers, "hidden_act": "gelu", "hidden_dropout_prob": 0.1,
              "attention_probs_dropout_prob": 0.1, "max_position_embeddings": 512, "type_vocab_size": 2,
              "initializer_range": 0.02, "layer_norm_eps": 1e-12, "pad_token_id": 0, "num_labels": 1, **arch,
              **(sizes or {})}
    (folder / "config.json").write_text(json.dumps(config, indent=2))
    torch.save(bleurt_state_dict(config, seed), folder / "pytorch_model.bin")
    return folder


# -- MetricX-24 -----------------------------------------------------------------------------------------------------
#: a small mT5 with metricx-24's layout: the real 250,112-row vocabulary (its score is the logit of row 250,089),
#: gated-GELU feed-forward, untied LM head, relative position buckets as mT5's
METRICX_TINY = {"vocab_size": 250112, "d_model": 16, "d_kv": 4, "d_ff": 32, "num_layers": 2, "num_decoder_layers": 1,
                "num_heads": 4, "relative_attention_num_buckets": 32, "relative_attention_max_distance": 128,
                "feed_forward_proj": "gated-gelu", "tie_word_embeddings": False, "decoder_start_token_id": 0,
                "pad_token_id": 0, "eos_token_id": 1, "layer_norm_epsilon": 1e-6, "dropout_rate": 0.1,
                "model_type": "mt5", "architectures": ["MT5ForRegression"],
                # metricx's models.py (written for transformers 4.30) crashes in 4.57's decoder cache; one step
                # needs no cache, so this changes no number
                "use_cache": False}


def metricx_state_dict(config: dict, seed: int = 0) -> dict[str, torch.Tensor]:
    """Seeded weights under mT5's parameter names. The decoder's start token (id 0) has a long embedding and the
    score row points along it, so scores land inside 0-25 (not all clamped) and still vary with the input."""
    from transformers import MT5Config, MT5ForConditionalGeneration

    with torch.device("meta"):
        shapes = {k: tuple(v.shape) for k, v in
                  MT5ForConditionalGeneration(MT5Config(**config)).state_dict().items()
                  if not k.endswith("embed_tokens.weight")}
    g = torch.Generator().manual_seed(seed)
    state = {}
    for name in sorted(shapes):
        shape = shapes[name]
        if "layer_norm" in name:
            state[name] = 1 + _seeded(shape, g, 0.1)
        elif name.endswith("relative_attention_bias.weight"):
            state[name] = _seeded(shape, g, 0.5)
        elif name in ("shared.weight", "lm_head.weight"):
            state[name] = torch.zeros(shape)
            state[name][:1000] = _seeded((1000, shape[1]), g, 1.0)  # the rows the test tokenizer can reach
        else:
            state[name] = _seeded(shape, g, shape[1] ** -0.5)
    start = _seeded((config["d_model"],), g, 1.0)
    state["shared.weight"][0] = start
    state["lm_head.weight"][250089] = 3.0 * start / start.norm() + _seeded((config["d_model"],), g, 1.0)
    return state


#: google/mt5-small's architecture (the smallest published mT5; MetricX-24 ships large, xl and xxl)
MT5_SMALL = {"d_model": 512, "d_kv": 64, "d_ff": 1024, "num_layers": 8, "num_decoder_layers": 8, "num_heads": 6}


def build_metricx(folder: Path, seed: int = 0, sizes: dict | None = None) -> Path:
    """A MetricX-24-layout checkpoint (config.json, model.safetensors) with an mT5-layout tokenizer (spiece.model
    trained here: <pad> 0, </s> 1, <unk> 2; tokenizer.json converted by transformers) in
    ``folder``, built deterministically from ``seed``."""
    import sentencepiece
    from safetensors.torch import save_file
    from transformers import T5Tokenizer

    folder.mkdir(parents=True, exist_ok=True)
    english = json.loads((DATA / "wmt17_deen_150.json").read_text(encoding="utf-8"))["references"]
    with open(folder / "spiece.model", "wb") as model:
        sentencepiece.SentencePieceTrainer.train(
            sentence_iterator=iter(wmt17_lines()[:2000] + english), model_writer=model, vocab_size=1000,
            model_type="unigram", pad_id=0, eos_id=1, unk_id=2, bos_id=-1, num_threads=1, minloglevel=2,
            character_coverage=0.9995)
    T5Tokenizer.from_pretrained(str(folder), extra_ids=0).save_pretrained(str(folder))  # tokenizer.json
    settings = {"tokenizer_class": "T5Tokenizer", "eos_token": "</s>", "unk_token": "<unk>", "pad_token": "<pad>",
                "extra_ids": 0}  # as google/mt5-*'s, readable by transformers 4 and 5
    (folder / "tokenizer_config.json").write_text(json.dumps(settings, indent=2))
    config = dict(METRICX_TINY, **(sizes or {}))
    (folder / "config.json").write_text(json.dumps(config, indent=2))
    save_file(metricx_state_dict(config, seed), str(folder / "model.safetensors"), metadata={"format": "pt"})
    return folder


def folder_hash(folder: Path, names: tuple[str, ...] = ("config.json", "model.safetensors", "spiece.model",
                                                         "tokenizer.json")) -> str:
    """sha256 over the named files of a built checkpoint (is it the same checkpoint as the recorded one?)."""
    import hashlib

    digest = hashlib.sha256()
    for name in names:
        digest.update(name.encode() + b"\0" + (folder / name).read_bytes())
    return digest.hexdigest()


def documented_weights_digest(*files: Path) -> str:
    """The weights digest as documented (nlgmetrics.learned.locate.weights_digest), computed independently for the
    tests: SHA-256 over each file's name and the SHA-256 of its bytes, in name order, 12 hex digits."""
    import hashlib

    outer = hashlib.sha256()
    for path in sorted(files, key=lambda p: p.name):
        outer.update(path.name.encode() + b"\0" + hashlib.sha256(path.read_bytes()).hexdigest().encode() + b"\n")
    return outer.hexdigest()[:12]


def save_sharded(state: dict[str, torch.Tensor], folder: Path, fmt: str = "safetensors",
                 max_shard_size: int | str = "5GB") -> dict:
    """Write ``state`` into ``folder`` as save_pretrained shards it in transformers 5 (huggingface_hub's
    ``split_torch_state_dict_into_shards``): ``model-0000k-of-0000n.safetensors`` + ``model.safetensors.index.json``
    (``fmt="safetensors"``) or ``pytorch_model-0000k-of-0000n.bin`` + ``pytorch_model.bin.index.json`` (``"bin"``).
    Returns the index."""
    from huggingface_hub import split_torch_state_dict_into_shards

    pattern, index_name = {"safetensors": ("model{suffix}.safetensors", "model.safetensors.index.json"),
                           "bin": ("pytorch_model{suffix}.bin", "pytorch_model.bin.index.json")}[fmt]
    split = split_torch_state_dict_into_shards(state, filename_pattern=pattern, max_shard_size=max_shard_size)
    for name, keys in split.filename_to_tensors.items():
        part = {key: state[key].contiguous() for key in keys}
        if fmt == "bin":
            torch.save(part, folder / name)
        else:
            from safetensors.torch import save_file

            save_file(part, str(folder / name), metadata={"format": "pt"})
    index = {"metadata": {"total_size": sum(t.numel() * t.element_size() for t in state.values())},
             "weight_map": split.tensor_to_filename}
    (folder / index_name).write_text(json.dumps(index))
    return index
