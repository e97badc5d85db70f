"""BLEURT (Sellam et al., 2020; BLEURT-20: Pu et al., 2021) on the published PyTorch checkpoints.

A BLEURT checkpoint is a BERT-style regression model over the pair (reference, candidate)::

    ids    = [CLS] r_1 .. r_m [SEP] c_1 .. c_n [SEP]        segment ids 0 .. 0 (m + 2), 1 .. 1 (n + 1)
    h      = Encoder(ids, segments)                         # embeddings (size E) -> Linear(E, H) if E != H -> BERT blocks
    score  = w . tanh(W_p h_[CLS] + b_p) + b                # pooler + linear head: one unbounded number per pair

Checkpoints are the folders bleurt-pytorch 0.0.1 reads (``BleurtForSequenceClassification``: ``config.json`` with
``model_type: bleurt``, ``pytorch_model.bin`` or ``model.safetensors``), as published under ``lucadiliello/``:
BLEURT-20 (RemBERT-based, 32 layers, embeddings of 256 projected to 1152) and its distillations BLEURT-20-D12/D6/D3,
tokenized with a SentencePiece model (``spm.model``, cased, as bleurt-pytorch's ``BleurtSPTokenizer``); and the
legacy BERT-based bleurt-tiny/base/large-128/512, tokenized with a WordPiece vocabulary (``vocab.txt`` /
``tokenizer.json``, lowercased, as ``BleurtTokenizerFast``). The model runs as a transformers ``ElectraModel`` (the
same embeddings, projection and BERT blocks) plus the pooler and head, padding-free on nlgmetrics' packed forward
(:mod:`nlgmetrics.embed.packed`). bleurt_pytorch is not imported.

Length: pairs longer than ``max_length`` tokens (default: the checkpoint's, 512 for all published ones; the legacy
"-128" checkpoints were trained at 128, pass ``max_length=128`` for TensorFlow BLEURT's truncation there) are
truncated as BLEURT's own encoder does: one token at a time from the end of the longer text (the candidate on a tie)
until ``m + n + 3 <= max_length``; one warning counts them. Empty texts are scored like any other (``[CLS] [SEP]``).

Every pair's encoding holds both texts, so nothing can be cached per text across systems (unlike BERTScore): each
(reference, candidate) pair runs the whole model once (identical pairs once per call).
"""

from __future__ import annotations

import json
import threading
import warnings
from collections.abc import Sequence
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import numpy as np
import torch

from nlgmetrics.inputs import check_pairs, replace_lone_surrogates_in_pairs
from nlgmetrics.options import checked_options
from nlgmetrics.learned.locate import (CheckpointError, check_weights_match, config_ints, find_weights, load_weights,
                                      resolve_checkpoint, weight_shapes, weights_file)
from nlgmetrics.stats import DEFAULT_SEED, bootstrap_mean_interval

#: HF evaluate's ``bleurt`` config names -> the PyTorch ports bleurt-pytorch reads. HF's "default" is bleurt-base-128.
CHECKPOINTS = {
    name.lower(): f"lucadiliello/{name}"
    for name in ("BLEURT-20", "BLEURT-20-D12", "BLEURT-20-D6", "BLEURT-20-D3", "bleurt-tiny-128", "bleurt-tiny-512",
                 "bleurt-base-128", "bleurt-base-512", "bleurt-large-128", "bleurt-large-512")
}
DEFAULT_CHECKPOINT = "bleurt-base-128"
_HINT = "Pass the folder of a BleurtForSequenceClassification checkpoint (e.g. lucadiliello/BLEURT-20)."
_OOM_FIX = ("use a smaller max_length (e.g. max_length=256: pairs are cut as BLEURT cuts them), a smaller checkpoint, or "
            "the CPU (device='cpu')")
_FILES = ["*.json", "*.bin", "*.safetensors", "spm.model", "vocab.txt"]
_DTYPES = {None: None, "float32": None, "fp32": None, "bfloat16": torch.bfloat16, "bf16": torch.bfloat16,
           "float16": torch.float16, "fp16": torch.float16}


class _SentencePiecePairs:
    """Token ids as bleurt-pytorch's ``BleurtSPTokenizer`` (transformers 4 ``DebertaV2Tokenizer``, slow) gives them:
    the text is split at the special-token strings (``[CLS]``, ``[SEP]``, ...; each becomes its own id), optionally
    lowercased, and every other piece is encoded by the SentencePiece model. Pairs are truncated by BLEURT's own rule,
    which the slow tokenizer's ``longest_first`` follows (``"bleurt"``)."""

    truncation = "bleurt"

    def __init__(self, folder: Path, settings: dict[str, Any]) -> None:
        import sentencepiece

        if settings.get("split_by_punct"):
            raise ValueError(f"bleurt: {folder} sets split_by_punct=true, which no published BLEURT checkpoint uses "
                             "and nlgmetrics does not implement.")
        self.spm = sentencepiece.SentencePieceProcessor(model_file=str(folder / "spm.model"))
        self.lowercase = bool(settings.get("do_lower_case", False))
        names = {key: _token_text(settings.get(key), default)
                 for key, default in (("cls_token", "[CLS]"), ("sep_token", "[SEP]"), ("pad_token", "[PAD]"),
                                      ("unk_token", "[UNK]"), ("mask_token", "[MASK]"))}
        self.specials = {text: self.spm.piece_to_id(text) for text in names.values()}
        self.cls_id, self.sep_id = self.specials[names["cls_token"]], self.specials[names["sep_token"]]
        self._order = sorted(self.specials, key=len, reverse=True)

    def encode(self, texts: Sequence[str]) -> list[list[int]]:
        chunks: list[list[str | int]] = [self._split(text) for text in texts]
        plain = [c for parts in chunks for c in parts if isinstance(c, str)]
        encoded = iter(self.spm.encode([c.lower() if self.lowercase else c for c in plain]))
        return [[t for c in parts for t in (next(encoded) if isinstance(c, str) else [c])] for parts in chunks]

    def _split(self, text: str) -> list[str | int]:
        """``text`` as plain chunks and special-token ids, leftmost-longest matches first (the tokenizer's trie)."""
        if not any(s in text for s in self._order):
            return [text] if text else []
        parts: list[str | int] = []
        start = i = 0
        while i < len(text):
            match = next((s for s in self._order if text.startswith(s, i)), None)
            if match is None:
                i += 1
                continue
            if i > start:
                parts.append(text[start:i])
            parts.append(self.specials[match])
            i = start = i + len(match)
        if start < len(text):
            parts.append(text[start:])
        return parts


class _WordPiecePairs:
    """Token ids as bleurt-pytorch's ``BleurtTokenizerFast`` (a ``BertTokenizerFast``) gives them for each text: its
    ``tokenizer.json``, or, without one, the BERT normalizer, pre-tokenizer and WordPiece model built from
    ``vocab.txt`` as transformers converts it. Pairs are truncated as the fast tokenizer does (``"fast"``)."""

    truncation = "fast"

    def __init__(self, folder: Path, settings: dict[str, Any]) -> None:
        from tokenizers import BertWordPieceTokenizer

        from nlgmetrics.embed.encoder import tokenizer_from_file

        if (folder / "tokenizer.json").exists():  # padding/truncation saved in the file are cleared (one rule)
            self.tokenizer = tokenizer_from_file(folder / "tokenizer.json")
        else:
            self.tokenizer = BertWordPieceTokenizer(
                str(folder / "vocab.txt"), unk_token=_token_text(settings.get("unk_token"), "[UNK]"),
                lowercase=bool(settings.get("do_lower_case", True)), strip_accents=settings.get("strip_accents"),
                handle_chinese_chars=bool(settings.get("tokenize_chinese_chars", True)),
            )
        self.cls_id = self.tokenizer.token_to_id(_token_text(settings.get("cls_token"), "[CLS]"))
        self.sep_id = self.tokenizer.token_to_id(_token_text(settings.get("sep_token"), "[SEP]"))
        if self.cls_id is None or self.sep_id is None:
            raise ValueError(f"bleurt: the vocabulary in {folder} has no [CLS] or [SEP] token.")

    def encode(self, texts: Sequence[str]) -> list[list[int]]:
        return [e.ids for e in self.tokenizer.encode_batch(list(texts), add_special_tokens=False)]


def _token_text(value: object, default: str) -> str:
    if isinstance(value, dict):  # AddedToken as saved by transformers
        return str(value.get("content", default))
    return value if isinstance(value, str) else default


def _read_json(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def bleurt_layout(folder: Path) -> str | None:
    """What keeps ``folder`` from being a checkpoint bleurt-pytorch reads, or None."""
    try:
        config = _read_json(folder / "config.json")
    except (ValueError, UnicodeDecodeError):
        return "is not a BLEURT checkpoint: its config.json is not valid JSON"
    if not isinstance(config, dict) or not config:
        return "is not a BLEURT checkpoint: it has no config.json"
    if config.get("model_type") != "bleurt" and "BleurtForSequenceClassification" not in config.get(
            "architectures", []):
        return (f"holds a {config.get('model_type')!r} model (config.json), not a BLEURT checkpoint (model_type "
                "'bleurt', BleurtForSequenceClassification)")
    if not any((folder / name).exists() for name in ("spm.model", "vocab.txt", "tokenizer.json")):
        return ("has no tokenizer (spm.model for BLEURT-20 and its distillations, vocab.txt or tokenizer.json for the "
                "BERT-based checkpoints)")
    if weights_file(folder) is None:
        return ("has no weights (model.safetensors or pytorch_model.bin, or their shards with "
                "model.safetensors.index.json / pytorch_model.bin.index.json)")
    return None


_POSITION_IDS = "bleurt.embeddings.position_ids"  # a buffer bleurt-pytorch saves with its weights


def _bleurt_pytorch_name(name: str) -> str:
    """The name bleurt-pytorch's ``BleurtForSequenceClassification`` gives our weight ``name`` (ELECTRA modules,
    pooler, head)."""
    for ours, theirs in (("embeddings_project.", "bleurt.encoder.embedding_projection."),
                         ("pooler.", "bleurt.pooler.dense."), ("head.", "classifier."),
                         ("embeddings.", "bleurt.embeddings."), ("encoder.", "bleurt.encoder.")):
        if name.startswith(ours):
            return theirs + name[len(ours):]
    raise AssertionError(name)


def truncate_pair(ref: list[int], cand: list[int], budget: int, rule: str = "bleurt"
                  ) -> tuple[list[int], list[int], bool]:
    """Cut a pair to ``len(ref) + len(cand) <= budget`` tokens, each side keeping its first tokens. ``rule``:

    - ``"bleurt"``: BLEURT's ``_truncate_seq_pair`` (and transformers' slow ``longest_first``, which bleurt-pytorch's
      SentencePiece tokenizer uses): drop the last token of the longer side, the candidate's on a tie; an odd budget
      leaves the reference one token longer when both sides are cut (255 / 254 of 509).
    - ``"fast"``: the tokenizers library's ``LongestFirst`` (bleurt-pytorch's WordPiece ``BleurtTokenizerFast``): with
      ``shorter <= budget / 2`` the longer side is cut to ``budget - shorter``; otherwise the shorter side (the
      reference on a tie) keeps ``budget // 2`` and the longer ``budget - budget // 2`` (254 / 255 of 509).

    Returns the two lists and whether anything was dropped."""
    n_ref, n_cand = len(ref), len(cand)
    if n_ref + n_cand <= budget:
        return ref, cand, False
    if rule == "fast":
        shorter = min(n_ref, n_cand)
        if shorter <= budget - shorter:
            keep_short, keep_long = shorter, budget - shorter
        else:
            keep_short, keep_long = budget // 2, budget - budget // 2
        n_ref, n_cand = (keep_short, keep_long) if n_ref <= n_cand else (keep_long, keep_short)
    elif rule == "bleurt":
        while n_ref + n_cand > budget:
            if n_ref > n_cand:
                n_ref -= 1
            else:
                n_cand -= 1
    else:
        raise ValueError(f"truncate_pair: rule must be 'bleurt' or 'fast', got {rule!r}.")
    return ref[:n_ref], cand[:n_cand], True


def checked_config(config: object, path: Path) -> dict[str, Any]:
    """config.json's architecture settings, each of the right type, else a :class:`CheckpointError` naming it."""
    c = config_ints(config, {"vocab_size": None, "hidden_size": None, "num_hidden_layers": None,
                             "num_attention_heads": None, "intermediate_size": None,
                             "max_position_embeddings": None, "type_vocab_size": 2, "num_labels": 1}, path, "bleurt")
    assert isinstance(config, dict)  # config_ints checked it
    c["embedding_size"] = (config_ints(config, {"embedding_size": None}, path, "bleurt")["embedding_size"]
                           if config.get("embedding_size") is not None else None)
    if c["hidden_size"] % c["num_attention_heads"]:
        raise CheckpointError(f"bleurt: hidden_size {c['hidden_size']} in {path} is not a multiple of "
                              f"num_attention_heads {c['num_attention_heads']}: download the checkpoint's config "
                              "again.")
    from transformers.activations import ACT2FN

    act, eps, pad = config.get("hidden_act", "gelu"), config.get("layer_norm_eps", 1e-12), config.get("pad_token_id", 0)
    if not isinstance(act, str) or act not in ACT2FN:
        raise CheckpointError(f"bleurt: hidden_act in {path} is {act!r:.40}, not an activation transformers knows "
                              "(e.g. 'gelu'): download the checkpoint's config again.")
    if isinstance(eps, bool) or not isinstance(eps, (int, float)) or not 0 < eps < 1:
        raise CheckpointError(f"bleurt: layer_norm_eps in {path} is {eps!r:.40}, not a number in (0, 1): download "
                              "the checkpoint's config again.")
    if isinstance(pad, bool) or not isinstance(pad, int) or not 0 <= pad < c["vocab_size"]:
        raise CheckpointError(f"bleurt: pad_token_id in {path} is {pad!r:.40}, not a token id: download the "
                              "checkpoint's config again.")
    c.update(hidden_act=act, layer_norm_eps=float(eps), pad_token_id=pad)
    return c


def build_on_meta(config: object, path: Path) -> tuple[Any, torch.nn.Linear, torch.nn.Linear,
                                                        dict[str, tuple[int, ...]]]:
    """The BLEURT model a config.json describes, on the meta device (no memory, whatever the sizes): the ELECTRA
    encoder (embeddings, projection, BERT blocks), pooler and head, and the weights it needs under bleurt-pytorch's
    names, with their shapes. ``embedding_projection`` exists whenever the config sets ``embedding_size`` (BLEURT-20:
    256 -> 1152; ``embedding_size == hidden_size`` keeps a square projection too, as bleurt-pytorch builds it)."""
    from transformers import ElectraConfig, ElectraModel

    c = checked_config(config, path)
    hidden = c["hidden_size"]
    electra = ElectraConfig(
        vocab_size=c["vocab_size"], embedding_size=c["embedding_size"] or hidden, hidden_size=hidden,
        num_hidden_layers=c["num_hidden_layers"], num_attention_heads=c["num_attention_heads"],
        intermediate_size=c["intermediate_size"], hidden_act=c["hidden_act"],
        max_position_embeddings=c["max_position_embeddings"], type_vocab_size=c["type_vocab_size"],
        layer_norm_eps=c["layer_norm_eps"], pad_token_id=c["pad_token_id"],
    )
    with torch.device("meta"):
        encoder = ElectraModel(electra)
        if c["embedding_size"] is not None and not hasattr(encoder, "embeddings_project"):
            encoder.embeddings_project = torch.nn.Linear(hidden, hidden)  # E == H: the forward uses it if present
        pooler, head = torch.nn.Linear(hidden, hidden), torch.nn.Linear(hidden, c["num_labels"])
    expected = {_bleurt_pytorch_name(name): tuple(shape) for name, shape in _our_names(encoder, pooler, head).items()}
    return encoder, pooler, head, expected


def _our_names(encoder: Any, pooler: torch.nn.Linear, head: torch.nn.Linear) -> dict[str, tuple[int, ...]]:
    """Our modules' weights (buffers excluded): ``embeddings.*``, ``embeddings_project.*``, ``encoder.layer.*``,
    ``pooler.*``, ``head.*`` -> shape."""
    ours = {name: tuple(value.shape) for name, value in encoder.state_dict().items()
            if not name.endswith(("position_ids", "token_type_ids"))}
    ours.update({f"pooler.{k}": tuple(v.shape) for k, v in pooler.state_dict().items()})
    ours.update({f"head.{k}": tuple(v.shape) for k, v in head.state_dict().items()})
    return ours


class BleurtScorer:
    """One loaded BLEURT checkpoint: ``scorer.score(references, candidates) -> list[float]``.

    ``checkpoint``: a name from :data:`CHECKPOINTS` (HF evaluate's config names, any case), a hub id, or a local
    folder. ``device``: None (CUDA when available) or a torch device. ``dtype``: None/"float32", or "bfloat16"/"float16"
    (autocast on CUDA only; float32 is what parity is measured in)."""

    def __init__(self, checkpoint: str = DEFAULT_CHECKPOINT, *, device: str | None = None,
                 dtype: str | None = None) -> None:
        from nlgmetrics.embed.encoder import pick_device

        if dtype not in _DTYPES:
            raise ValueError(f"bleurt: dtype must be None, 'float32', 'bfloat16' or 'float16', got {dtype!r}.")
        self.name = checkpoint
        self.folder = resolve_checkpoint(checkpoint, metric="bleurt", repo_id=CHECKPOINTS.get(str(checkpoint).lower()),
                                         allow_patterns=_FILES, layout=bleurt_layout, hint=_HINT)
        self.device = pick_device(device)
        self.autocast_dtype = _DTYPES[dtype] if self.device.type == "cuda" else None
        if _DTYPES[dtype] is not None and self.device.type != "cuda":
            warnings.warn(f"bleurt: dtype={dtype!r} applies on CUDA only; computing in float32 on {self.device}.",
                          UserWarning, stacklevel=2)
        self.config = _read_json(self.folder / "config.json")
        settings = _read_json(self.folder / "tokenizer_config.json")
        settings.update({k: v for k, v in _read_json(self.folder / "special_tokens_map.json").items()
                         if k not in settings})
        if (self.folder / "spm.model").exists():
            self.tokenizer: _SentencePiecePairs | _WordPiecePairs = _SentencePiecePairs(self.folder, settings)
        else:  # vocab.txt or tokenizer.json (bleurt_layout checked)
            self.tokenizer = _WordPiecePairs(self.folder, settings)
        self._build_model()
        positions = self.encoder.config.max_position_embeddings
        limit = settings.get("model_max_length")
        self.max_length = int(limit) if isinstance(limit, (int, float)) and 0 < limit <= positions else positions
        self._lock = threading.Lock()

    def _build_model(self) -> None:
        """The model config.json describes, built on the meta device (:func:`build_on_meta`: nothing allocated),
        checked against the weight file's names and shapes (read from its header), then given the file's tensors.

        Strict, as bleurt-pytorch builds it: the model's weights under bleurt-pytorch's names must be exactly the
        file's (its one buffer, ``bleurt.embeddings.position_ids``, is accepted when it holds positions 0..P-1)."""
        encoder, pooler, head, expected = build_on_meta(self.config, self.folder / "config.json")
        positions = encoder.config.max_position_embeddings
        self.weights = weights = find_weights(self.folder, "bleurt")  # bleurt_layout checked there are some
        path = weights.path
        found = weight_shapes(weights, "bleurt")
        has_positions = found.pop(_POSITION_IDS, None) is not None
        check_weights_match(expected, found, path, "bleurt")
        state = load_weights(weights, "bleurt")
        if has_positions and not torch.equal(state[_POSITION_IDS].reshape(-1), torch.arange(positions)):
            raise CheckpointError(f"bleurt: {_POSITION_IDS} in {path} is not the positions 0..{positions - 1} that "
                                  "bleurt-pytorch saves: pass a checkpoint saved by BleurtForSequenceClassification.")
        tensors = {name: state[_bleurt_pytorch_name(name)] for name in _our_names(encoder, pooler, head)}
        encoder.load_state_dict({k: v for k, v in tensors.items() if not k.startswith(("pooler.", "head."))},
                                strict=False, assign=True)
        pooler.load_state_dict({k[len("pooler."):]: v for k, v in tensors.items() if k.startswith("pooler.")},
                               assign=True)
        head.load_state_dict({k[len("head."):]: v for k, v in tensors.items() if k.startswith("head.")}, assign=True)
        embeddings = encoder.embeddings  # buffers were never materialized on the meta device: make them real
        for name in ("position_ids", "token_type_ids"):
            if hasattr(embeddings, name):
                buffer = getattr(embeddings, name)
                fresh = (torch.arange(buffer.shape[-1]).expand(buffer.shape) if name == "position_ids"
                         else torch.zeros(buffer.shape, dtype=buffer.dtype))
                setattr(embeddings, name, fresh.clone())
        self.encoder = encoder.float().eval().to(self.device)
        self.pooler, self.head = pooler.float().eval().to(self.device), head.float().eval().to(self.device)

    def encode(self, references: Sequence[str], candidates: Sequence[str], max_length: int | None = None
               ) -> tuple[list[list[int]], list[list[int]], int]:
        """Token ids and segment ids of each pair, and how many pairs were truncated."""
        limit = self.max_length if max_length is None else max_length
        if isinstance(limit, bool) or not isinstance(limit, int) or not 3 <= limit <= self.max_length:
            raise ValueError(f"bleurt: max_length must be an integer from 3 to {self.max_length} (this checkpoint's "
                             f"limit), got {max_length!r}.")
        refs, cands = self.tokenizer.encode(references), self.tokenizer.encode(candidates)
        cls, sep = self.tokenizer.cls_id, self.tokenizer.sep_id
        ids, segments, cut = [], [], 0
        for ref, cand in zip(refs, cands):
            ref, cand, truncated = truncate_pair(ref, cand, limit - 3, self.tokenizer.truncation)
            cut += truncated
            ids.append([cls, *ref, sep, *cand, sep])
            segments.append([0] * (len(ref) + 2) + [1] * (len(cand) + 1))
        return ids, segments, cut

    def score(self, references: Sequence[str], candidates: Sequence[str], *, batch_size: int = 32,
              max_length: int | None = None) -> list[float]:
        """BLEURT of each (reference, candidate) pair. Pairs are length-sorted into batches of ``batch_size`` and run
        padding-free; identical pairs run once."""
        from nlgmetrics.embed.encoder import check_batch_size
        from nlgmetrics.embed.oom import halving_batches
        from nlgmetrics.embed.packed import packed_hidden_states

        check_batch_size(batch_size)
        unique = list(dict.fromkeys(zip(references, candidates)))
        ids, segments, cut = self.encode([r for r, _ in unique], [c for _, c in unique], max_length)
        if cut:
            warnings.warn(f"bleurt: {cut} of {len(unique)} (reference, candidate) pair(s) exceed "
                          f"{max_length or self.max_length} tokens and were truncated as BLEURT does (from the end of "
                          "the longer text).", UserWarning, stacklevel=2)
        values = np.empty(len(unique), dtype=np.float64)
        autocast = (torch.autocast(device_type="cuda", dtype=self.autocast_dtype) if self.autocast_dtype is not None
                    else nullcontext())

        def forward(batch: list[int]) -> np.ndarray:
            hidden = packed_hidden_states(self.encoder, [ids[i] for i in batch], len(self.encoder.encoder.layer),
                                          self.device, token_type_ids=[segments[i] for i in batch])
            starts = np.cumsum([0] + [len(ids[i]) for i in batch[:-1]])
            cls = hidden[torch.as_tensor(starts, device=hidden.device)]
            return self.head(torch.tanh(self.pooler(cls)))[:, 0].float().cpu().numpy()

        with self._lock, torch.inference_mode(), autocast:
            for batch, out in halving_batches([len(x) for x in ids], batch_size, forward, device=self.device,
                                              what="BLEURT", fix=_OOM_FIX):
                values[batch] = out
        position = {pair: k for k, pair in enumerate(unique)}
        return [float(values[position[pair]]) for pair in zip(references, candidates)]


_SCORERS: dict[tuple, BleurtScorer] = {}
_SCORERS_LOCK = threading.Lock()


def get_scorer(checkpoint: str = DEFAULT_CHECKPOINT, *, device: str | None = None,
               dtype: str | None = None) -> BleurtScorer:
    """The process-wide :class:`BleurtScorer` of (checkpoint, device, dtype), loaded on first use."""
    from nlgmetrics.embed.encoder import pick_device

    key = (str(checkpoint), str(pick_device(device)), dtype)
    with _SCORERS_LOCK:
        if key not in _SCORERS:
            _SCORERS[key] = BleurtScorer(checkpoint, device=device, dtype=dtype)
        return _SCORERS[key]


def clear_scorers() -> None:
    """Forget the loaded checkpoints."""
    with _SCORERS_LOCK:
        _SCORERS.clear()


@checked_options
def compute_bleurt(
    predictions: Sequence[str],
    references: Sequence[str | Sequence[str]],
    checkpoint: str | None = None,
    *,
    batch_size: int = 32,
    max_length: int | None = None,
    device: str | None = None,
    dtype: str | None = None,
    multi_ref: str = "max",
    n_bootstrap: int = 0,
    seed: int | None = DEFAULT_SEED,
) -> dict[str, Any]:
    """BLEURT of each prediction against its reference(s).

    Returns ``bleurt`` (the mean of ``scores``), ``scores`` (one per example; with several references the ``max``
    or ``mean`` over them, ``multi_ref``), ``signature``, and with ``n_bootstrap`` >= 2 a seeded 95% interval of the
    mean (``bleurt_mean``, ``bleurt_ci``, ``bleurt_low``, ``bleurt_high``; sacrebleu's resampling).
    ``checkpoint`` (default ``bleurt-base-128``, HF evaluate's default): a name, hub id or local folder."""
    if multi_ref not in ("max", "mean"):
        raise ValueError(f"bleurt: multi_ref must be 'max' or 'mean', got {multi_ref!r}.")
    preds, refs = check_pairs(predictions, references)
    preds, refs = replace_lone_surrogates_in_pairs(preds, refs, "bleurt")
    scorer = get_scorer(checkpoint or DEFAULT_CHECKPOINT, device=device, dtype=dtype)
    flat_refs = [r for group in refs for r in group]
    flat_cands = [p for p, group in zip(preds, refs) for _ in group]
    flat = iter(scorer.score(flat_refs, flat_cands, batch_size=batch_size, max_length=max_length))
    pick = max if multi_ref == "max" else (lambda xs: float(np.mean(xs)))
    scores = [float(pick([next(flat) for _ in group])) for group in refs]
    result: dict[str, Any] = {"bleurt": float(np.mean(scores)), "scores": scores,
                              "signature": signature(scorer, max_length, multi_ref)}
    if n_bootstrap:
        interval = bootstrap_mean_interval(scores, n_bootstrap, seed)
        result.update({f"bleurt_{key}": value for key, value in interval.items()})
    return result


def signature(scorer: BleurtScorer, max_length: int | None, multi_ref: str) -> str:
    """How the scores were computed (:mod:`nlgmetrics.signature`), e.g. ``model:BLEURT-20|weights:...|dtype:float32|
    torch:...|transformers:...|max_len:512|multi_ref:max|version:nlgmetrics-0.1.0``."""
    from nlgmetrics.signature import build, model_parts

    return build([*model_parts(scorer.name, scorer.weights, scorer.autocast_dtype),
                  ("max_len", max_length or scorer.max_length), ("multi_ref", multi_ref)])
