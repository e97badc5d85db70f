"""MetricX-24 (Juraska et al., 2024) on the published checkpoints (google/metricx-24-hybrid-{large,xl,xxl}-v2p6 and
their bfloat16 variants), as google-research/metricx's ``metricx24`` code computes it.

An mT5 encoder-decoder regression model. Each example becomes one text::

    reference-based:  "source: " + s + " candidate: " + h + " reference: " + r
    QE (qe=True):     "source: " + s + " candidate: " + h

    ids    = mT5 SentencePiece tokens of the text, without the final </s>, at most 1535 (max_input_length 1536, EOS
             included, then dropped: what metricx24/predict.py feeds the model)
    e      = Encoder(ids)
    d      = Decoder(decoder input [0], cross-attending e)             # one decoding step
    score  = clamp(d . W_lm[250089], 0, 25)                            # the logit of <extra_id_10>, on 0-25

Scores are errors (MQM-like): 0 is perfect, 25 worst; lower is better. Without sources, the empty string stands for
the source (as metricx's README says to pass). The tokenizer is mT5's (``tokenizer``, default ``google/mt5-xl`` as in
metricx's README; a local folder works, or the checkpoint folder when it holds tokenizer files).

Speed: examples are length-sorted into batches that run padding-free (:mod:`nlgmetrics.embed.packed_t5`: the model's
own modules on real tokens only, checked against the padded forward at load time), and only the one output row of the
LM head is computed. Weights are used in float32 (bfloat16 checkpoints are upcast; metricx's ``torch_dtype="auto"``
computes those in bfloat16); ``dtype="bfloat16"`` autocasts on CUDA.
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

from nlgmetrics.embed.packed_t5 import t5_encoder_states, t5_first_decoder_state
from nlgmetrics.inputs import check_predictions, check_references, replace_lone_surrogates
from nlgmetrics.options import checked_options
from nlgmetrics.learned.locate import (CheckpointError, check_weights_match, config_ints, find_weights, load_weights,
                                      resolve_checkpoint, weight_shapes)
from nlgmetrics.stats import DEFAULT_SEED, bootstrap_mean_interval

CHECKPOINTS = {name: f"google/{name}" for size in ("large", "xl", "xxl")
               for name in (f"metricx-24-hybrid-{size}-v2p6", f"metricx-24-hybrid-{size}-v2p6-bfloat16")}
DEFAULT_CHECKPOINT = "metricx-24-hybrid-large-v2p6"
DEFAULT_TOKENIZER = "google/mt5-xl"
MAX_INPUT_LENGTH = 1536
SCORE_TOKEN = 250089  # <extra_id_10>
_DTYPES = {None: None, "float32": None, "fp32": None, "bfloat16": torch.bfloat16, "bf16": torch.bfloat16,
           "float16": torch.float16, "fp16": torch.float16}


_HINT = ("Pass the folder of a MetricX-24 checkpoint (e.g. google/metricx-24-hybrid-large-v2p6, as downloaded from the "
         "hub).")
_OOM_FIX = ("use bfloat16 (dtype='bfloat16'), a smaller checkpoint (metricx-24-hybrid-large), or the CPU "
            "(device='cpu')")
_TOKENIZER_FILES = ("tokenizer.json", "spiece.model")
#: what is downloaded for a tokenizer given as a hub id (not the model's weights)
_TOKENIZER_PATTERNS = [*_TOKENIZER_FILES, "tokenizer_config.json", "special_tokens_map.json", "config.json"]


#: a key T5 checkpoints may carry and transformers' T5 ignores on load (its _keys_to_ignore_on_load_unexpected)
_IGNORED = frozenset({"decoder.block.0.layer.1.EncDecAttention.relative_attention_bias.weight"})


def expected_weights(model: Any, tied: bool) -> tuple[dict[str, tuple[int, ...]], set[str]]:
    """Strict loading's rule: the weights (name -> shape) an mT5 model built from config.json must find in the file,
    and the names the file may carry besides, as transformers reads a checkpoint: the embedding tables of encoder
    and decoder (and the LM head when ``tie_word_embeddings``) are ``shared.weight`` itself, and the one key T5
    ignores on load."""
    aliases = {"encoder.embed_tokens.weight", "decoder.embed_tokens.weight"} | ({"lm_head.weight"} if tied else set())
    shapes = {name: tuple(value.shape) for name, value in model.state_dict().items() if name not in aliases}
    return shapes, aliases | _IGNORED


def as_metricx_tokenizes(tokenizer: Any, folder: Path) -> Any:
    """mT5's tokenizer as metricx's pinned environment (transformers 4.30.2) runs it, whatever files it came from.

    There ``AutoTokenizer`` on google/mt5-xl (``spiece.model``, no ``tokenizer.json``) converts the SentencePiece
    model to a fast tokenizer whose normalizer is the model's character map followed by ``" {2,}" -> " "`` and whose
    pre-tokenizer is one ``Metaspace`` (spaces become ``▁``, one prepended; no ``WhitespaceSplit``). So a text that
    ends in whitespace, or whitespace before a special-token string (``</s>``, ``<pad>``, ``<unk>``, split out as
    their own ids), gets a ``▁`` token there (e.g. ``"... reference: "``, an empty last field); later transformers
    versions drop it. The published MetricX-24 checkpoints were trained and are run by metricx with the former, so
    that is what this returns (the backend's normalizer and pre-tokenizer set as 4.30.2 writes them)."""
    from tokenizers import Tokenizer

    backend = getattr(tokenizer, "backend_tokenizer", None)
    state = json.loads(backend.to_str()) if isinstance(backend, Tokenizer) else {}
    if (state.get("model") or {}).get("type") != "Unigram":
        raise CheckpointError(f"metricx: the tokenizer in {folder} is not mT5's SentencePiece (Unigram) tokenizer: "
                              "pass tokenizer=DIR, a folder holding mT5's spiece.model or tokenizer.json.")
    normalizer = state.get("normalizer") or {}
    steps = normalizer.get("normalizers", []) if normalizer.get("type") == "Sequence" else [normalizer]
    charmap = [step for step in steps if step.get("type") == "Precompiled"]
    state["normalizer"] = {"type": "Sequence", "normalizers": charmap + [
        {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "}]}
    state["pre_tokenizer"] = {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": True}
    converted = Tokenizer.from_str(json.dumps(state))
    backend.normalizer, backend.pre_tokenizer = converted.normalizer, converted.pre_tokenizer
    return tokenizer


def build_on_meta(raw: object, path: Path) -> tuple[Any, bool]:
    """The mT5 encoder-decoder a config.json (parsed: ``raw``) describes, on the meta device (no memory, whatever the
    sizes), with eager attention as metricx's transformers 4 computes it (SDPA's kernel differs by ~1e-5 over 8
    layers); and whether its LM head is tied to the embeddings. Settings of the wrong type are a
    :class:`CheckpointError` naming the file."""
    from transformers import MT5Config, MT5ForConditionalGeneration
    from transformers.activations import ACT2FN

    sizes = config_ints(raw, {"vocab_size": 250112, "d_model": 512, "d_kv": 64, "d_ff": 1024, "num_layers": 8,
                              "num_heads": 6, "relative_attention_num_buckets": 32,
                              "relative_attention_max_distance": 128}, path, "metricx")  # MT5Config's defaults
    assert isinstance(raw, dict)  # config_ints checked it
    sizes.update(config_ints(raw, {"num_decoder_layers": sizes["num_layers"]}, path, "metricx"))
    projection = raw.get("feed_forward_proj", "gated-gelu")
    parts = projection.split("-") if isinstance(projection, str) else []
    if not (len(parts) == 1 or (len(parts) == 2 and parts[0] == "gated")) or parts[-1] not in ACT2FN:
        raise CheckpointError(f"metricx: feed_forward_proj in {path} is {projection!r:.40}, not an mT5 feed-forward "
                              "('gated-gelu' as mT5, or 'relu', 'gated-relu', ...): download the checkpoint's config "
                              "again.")
    tied = raw.get("tie_word_embeddings", True)
    if not isinstance(tied, bool):
        raise CheckpointError(f"metricx: tie_word_embeddings in {path} is {tied!r:.40}, not true or false: download "
                              "the checkpoint's config again.")
    try:
        config = MT5Config.from_dict({**raw, **sizes, "use_cache": False})
    except Exception as exc:  # noqa: BLE001 - a setting transformers' strict config dataclass refuses
        raise CheckpointError(f"metricx: {path} does not describe an mT5 model ({type(exc).__name__}: "
                              f"{' '.join(str(exc).split())[:200]}): download the checkpoint's config again.") from None
    config._attn_implementation = "eager"
    with torch.device("meta"):
        model = MT5ForConditionalGeneration(config)
    return model, tied


def metricx_layout(folder: Path) -> str | None:
    """What keeps ``folder`` from being a MetricX-24 checkpoint (mT5 config.json, 250,112-row vocabulary), or None."""
    try:
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    except FileNotFoundError:
        return "is not a MetricX checkpoint: it has no config.json"
    except (ValueError, UnicodeDecodeError):
        return "is not a MetricX checkpoint: its config.json is not valid JSON"
    config = config if isinstance(config, dict) else {}
    model_type, rows = config.get("model_type"), config.get("vocab_size", 250112)  # MT5Config's default
    if model_type not in ("mt5", "t5") or not isinstance(rows, int) or rows <= SCORE_TOKEN:
        return (f"holds a {model_type!r} model with {rows} output rows, not a MetricX (mT5, 250,112-row vocabulary) "
                "checkpoint")
    return None


def tokenizer_layout(folder: Path) -> str | None:
    """What keeps ``folder`` from holding mT5's tokenizer, or None."""
    if any((folder / name).is_file() for name in _TOKENIZER_FILES):
        return None
    return f"has no tokenizer ({' or '.join(_TOKENIZER_FILES)})"


def make_input(hypothesis: str, reference: str | None, source: str, qe: bool) -> str:
    """metricx24's input text for one example."""
    text = "source: " + source + " candidate: " + hypothesis
    return text if qe else text + " reference: " + (reference or "")


class MetricXScorer:
    """One loaded MetricX-24 checkpoint: ``scorer.score(hypotheses, references, sources, qe) -> list[float]``."""

    def __init__(self, checkpoint: str = DEFAULT_CHECKPOINT, *, tokenizer: str | None = None,
                 device: str | None = None, dtype: str | None = None) -> None:
        from transformers import AutoTokenizer

        from nlgmetrics.embed.encoder import pick_device, without_stored_state

        if dtype not in _DTYPES:
            raise ValueError(f"metricx: dtype must be None, 'float32', 'bfloat16' or 'float16', got {dtype!r}.")
        self.name = checkpoint
        self.folder = resolve_checkpoint(checkpoint, metric="metricx", repo_id=CHECKPOINTS.get(checkpoint),
                                         layout=metricx_layout, hint=_HINT)
        self.device = pick_device(device)
        self.autocast_dtype = _DTYPES[dtype] if self.device.type == "cuda" else None
        if _DTYPES[dtype] is not None and self.device.type != "cuda":
            warnings.warn(f"metricx: dtype={dtype!r} applies on CUDA only; computing in float32 on {self.device}.",
                          UserWarning, stacklevel=2)
        config_path = self.folder / "config.json"  # checked first: the tokenizer's loader reads it too
        meta_model, tied = build_on_meta(json.loads(config_path.read_text(encoding="utf-8")), config_path)
        self.tokenizer_name = tokenizer or (DEFAULT_TOKENIZER if tokenizer_layout(self.folder) else str(self.folder))
        tokenizer_folder = resolve_checkpoint(
            self.tokenizer_name, metric="metricx", option="tokenizer", allow_patterns=_TOKENIZER_PATTERNS,
            layout=tokenizer_layout, hint="Pass tokenizer=DIR, a folder holding mT5's tokenizer files.")
        try:
            tokenizer_object = AutoTokenizer.from_pretrained(str(tokenizer_folder))
        except (OSError, ValueError, TypeError) as exc:
            first = str(exc).splitlines()[0][:200] if str(exc) else ""
            raise CheckpointError(f"metricx: the tokenizer in {tokenizer_folder} cannot be loaded "
                                  f"({type(exc).__name__}: {first}). Pass tokenizer=DIR, a folder holding mT5's "
                                  "tokenizer files.") from None
        self.tokenizer = as_metricx_tokenizes(without_stored_state(tokenizer_object), tokenizer_folder)
        model = self._load_weights(meta_model, tied)
        # metricx rescales by d_model^-0.5 when the config ties the LM head to the embeddings (T5's default; mT5 and
        # MetricX set it false)
        scale = model.config.d_model**-0.5 if tied else 1.0
        self.score_row = (model.lm_head.weight[SCORE_TOKEN].detach().clone() * scale).to(self.device)
        model.lm_head = None  # only one row of the LM head is read
        self.model = model.eval().to(self.device)
        self._lock = threading.Lock()
        self.packed = self._packing_matches()

    def _load_weights(self, model: Any, tied: bool) -> Any:
        """``model`` (config.json's mT5 encoder-decoder, built on the meta device by :func:`build_on_meta`: nothing
        allocated) checked against the weight file's names and shapes (read from its header: strict, see
        :func:`expected_weights`), then given the file's tensors, in float32."""
        expected, aliases = expected_weights(model, tied)
        self.weights = weights = find_weights(self.folder, "metricx")
        if weights is None:
            raise CheckpointError(f"metricx: {self.folder} has no weights (model.safetensors or pytorch_model.bin, "
                                  "or their shards with model.safetensors.index.json / pytorch_model.bin.index.json). "
                                  f"{_HINT}")
        found = weight_shapes(weights, "metricx")
        for name in aliases & found.keys():  # tied copies of shared.weight, or a key T5 never reads
            if name in _IGNORED or found[name] == expected["shared.weight"]:
                found.pop(name)
        check_weights_match(expected, found, weights.path, "metricx")
        state = load_weights(weights, "metricx", names=expected.keys())
        for name in aliases - _IGNORED:
            state[name] = state["shared.weight"]
        model.load_state_dict(state, strict=True, assign=True)
        return model.float()

    def _decoded(self, rows: Sequence[list[int]], packed: bool) -> torch.Tensor:
        """The decoder's final state after one step, one row per token-id sequence: the padding-free forward
        (:mod:`nlgmetrics.embed.packed_t5`), or the model's own padded forward."""
        if packed:
            encoded, grid = t5_encoder_states(self.model.encoder, rows, self.device)
            return t5_first_decoder_state(self.model.decoder, encoded, grid)
        from nlgmetrics.embed.encoder import pad_batch

        input_ids, mask = pad_batch(rows, self.model.config.pad_token_id)
        input_ids, mask = input_ids.to(self.device), mask.to(self.device)
        encoded = self.model.encoder(input_ids=input_ids, attention_mask=mask).last_hidden_state
        start = torch.zeros((len(rows), 1), dtype=torch.long, device=self.device)
        return self.model.decoder(input_ids=start, encoder_hidden_states=encoded, encoder_attention_mask=mask,
                                  use_cache=False).last_hidden_state[:, 0]

    def _packing_matches(self) -> bool:
        """Whether the padding-free forward gives the padded forward's states on two probe texts (a model whose
        modules differ from T5's layout fails here, or raises, and keeps the padded forward)."""
        probe = self.token_ids(["source: A probe. candidate: Eine Probe.", "source: Yes candidate: Ja"])[0]
        try:
            with torch.inference_mode():
                return torch.allclose(self._decoded(probe, True), self._decoded(probe, False), rtol=1e-4, atol=1e-5)
        except (AttributeError, RuntimeError, TypeError, IndexError):
            return False

    def token_ids(self, texts: Sequence[str]) -> tuple[list[list[int]], int]:
        """Each text's ids as metricx feeds them (no EOS, at most 1535), and how many were cut."""
        ids = self.tokenizer(list(texts), add_special_tokens=False)["input_ids"] if texts else []
        limit = MAX_INPUT_LENGTH - 1
        return [row[:limit] for row in ids], sum(len(row) > limit for row in ids)

    def score(self, hypotheses: Sequence[str], references: Sequence[str] | None, sources: Sequence[str],
              *, qe: bool = False, batch_size: int = 8) -> list[float]:
        """MetricX-24 of each example (0 best, 25 worst). Identical inputs run once."""
        from nlgmetrics.embed.encoder import check_batch_size
        from nlgmetrics.embed.oom import halving_batches

        check_batch_size(batch_size)
        refs = references if references is not None else [""] * len(hypotheses)
        texts = [make_input(h, r, s, qe) for h, r, s in zip(hypotheses, refs, sources)]
        unique = list(dict.fromkeys(texts))
        ids, cut = self.token_ids(unique)
        if cut:
            warnings.warn(f"metricx: {cut} of {len(unique)} input(s) exceed {MAX_INPUT_LENGTH - 1} tokens (+ EOS) and "
                          "were truncated at the end, as metricx's predict.py does.", UserWarning, stacklevel=2)
        values = np.empty(len(unique), dtype=np.float64)
        autocast = (torch.autocast(device_type="cuda", dtype=self.autocast_dtype) if self.autocast_dtype is not None
                    else nullcontext())

        def forward(batch: list[int]) -> np.ndarray:
            decoded = self._decoded([ids[i] for i in batch], self.packed)
            return torch.clamp(decoded.float() @ self.score_row, 0, 25).cpu().numpy()

        with self._lock, torch.inference_mode(), autocast:
            for batch, out in halving_batches([len(x) for x in ids], batch_size, forward, device=self.device,
                                              what="MetricX", fix=_OOM_FIX):
                values[batch] = out
        position = {text: k for k, text in enumerate(unique)}
        return [float(values[position[text]]) for text in texts]


_SCORERS: dict[tuple, MetricXScorer] = {}
_SCORERS_LOCK = threading.Lock()


def get_scorer(checkpoint: str = DEFAULT_CHECKPOINT, *, tokenizer: str | None = None, device: str | None = None,
               dtype: str | None = None) -> MetricXScorer:
    """The process-wide :class:`MetricXScorer` of (checkpoint, tokenizer, device, dtype), loaded on first use."""
    from nlgmetrics.embed.encoder import pick_device

    key = (str(checkpoint), tokenizer, str(pick_device(device)), dtype)
    with _SCORERS_LOCK:
        if key not in _SCORERS:
            _SCORERS[key] = MetricXScorer(checkpoint, tokenizer=tokenizer, device=device, dtype=dtype)
        return _SCORERS[key]


@checked_options
def compute_metricx(
    predictions: Sequence[str],
    references: Sequence[str | Sequence[str]] | None = None,
    checkpoint: str | None = None,
    *,
    sources: Sequence[str] | None = None,
    qe: bool = False,
    tokenizer: str | None = None,
    batch_size: int = 8,
    device: str | None = None,
    dtype: str | None = None,
    multi_ref: str = "min",
    n_bootstrap: int = 0,
    seed: int | None = DEFAULT_SEED,
) -> dict[str, Any]:
    """MetricX-24 of each prediction (0-25, lower is better).

    ``qe=True``: quality estimation from ``sources`` alone (references ignored, may be None). Otherwise against the
    reference(s), with ``sources`` when given (else the empty string, as metricx's README says); several references
    per example combine by ``multi_ref``: ``"min"`` (the best, default) or ``"mean"``. Returns ``metricx`` (the mean
    of ``scores``), ``scores``, ``signature``, and with ``n_bootstrap`` >= 2 a seeded 95% interval (``metricx_mean``,
    ``metricx_ci``, ``metricx_low``, ``metricx_high``)."""
    if multi_ref not in ("min", "mean"):
        raise ValueError(f"metricx: multi_ref must be 'min' (the best reference: lower is better) or 'mean', got "
                         f"{multi_ref!r}.")
    preds = check_predictions(predictions)
    if not preds:
        raise ValueError("no examples to score: predictions is an empty list.")
    if sources is None:
        if qe:
            raise ValueError("metricx: qe=True scores a translation from its source: pass sources=[...], one per "
                             "prediction.")
        srcs = [""] * len(preds)
    else:
        srcs = check_predictions(sources, name="sources")
        if len(srcs) != len(preds):
            raise ValueError(f"metricx: got {len(preds)} predictions but {len(srcs)} sources: pass one source per "
                             "prediction.")
    if qe:
        refs: list[list[str]] = [[""] for _ in preds]
    elif references is None:
        raise ValueError("metricx: pass references=[...] (one per prediction), or qe=True with sources=[...].")
    else:
        refs = check_references(references, len(preds))
    flat = replace_lone_surrogates(
        preds + srcs + [r for group in refs for r in group], "metricx")
    preds, srcs, rest = flat[: len(preds)], flat[len(preds): 2 * len(preds)], iter(flat[2 * len(preds):])
    refs = [[next(rest) for _ in group] for group in refs]
    scorer = get_scorer(checkpoint or DEFAULT_CHECKPOINT, tokenizer=tokenizer, device=device, dtype=dtype)
    hyps = [p for p, group in zip(preds, refs) for _ in group]
    flat_scores = iter(scorer.score(hyps, [r for group in refs for r in group],
                                    [s for s, group in zip(srcs, refs) for _ in group], qe=qe, batch_size=batch_size))
    pick = min if multi_ref == "min" else (lambda xs: float(np.mean(xs)))
    scores = [float(pick([next(flat_scores) for _ in group])) for group in refs]
    result: dict[str, Any] = {"metricx": float(np.mean(scores)), "scores": scores,
                              "signature": signature(scorer, qe, sources is not None, multi_ref)}
    if n_bootstrap:
        interval = bootstrap_mean_interval(scores, n_bootstrap, seed)
        result.update({f"metricx_{key}": value for key, value in interval.items()})
    return result


def signature(scorer: MetricXScorer, qe: bool, with_sources: bool, multi_ref: str) -> str:
    """How the scores were computed (:mod:`nlgmetrics.signature`), e.g. ``model:metricx-24-hybrid-large-v2p6|
    weights:...|dtype:float32|torch:...|transformers:...|mode:ref|src:yes|max_len:1536|multi_ref:min|version:...``."""
    from nlgmetrics.signature import build, model_parts

    return build([*model_parts(scorer.name, scorer.weights, scorer.autocast_dtype), ("mode", "qe" if qe else "ref"),
                  ("src", with_sources), ("max_len", MAX_INPUT_LENGTH), ("multi_ref", multi_ref)])
