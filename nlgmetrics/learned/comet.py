"""COMET (Rei et al., 2020; 2022): Unbabel's learned MT metrics, computed from their published checkpoints exactly as
unbabel-comet 2.2.7 computes them, without unbabel-comet, pytorch-lightning or their pins.

Every model encodes text with a multilingual encoder (XLM-R, InfoXLM, MiniLM, BERT, XLM-R XL) whose hidden states
``H_0 .. H_L`` (embeddings and every layer) are mixed by a learned *layerwise attention*::

    E = gamma * sum_l w_l * N(H_l),   w = sparsemax(a) or softmax(a)   (``layer_transformation``)

``N`` is the identity, or with ``layer_norm: true`` a per-sentence normalisation over all non-pad positions and
features (mean and variance of the masked sentence, ``(H - mean) / sqrt(var + 1e-12)``). With ``layer: k`` instead
of ``mix``, ``E = H_k``.

- **Estimator** (``regression_metric``: wmt20-comet-da, wmt22-comet-da, eamt22-cometinho-da). ``src``, ``mt`` and
  ``ref`` are encoded *separately* and pooled into sentence embeddings ``s, m, r`` (``pool``: ``avg`` = mean over
  non-pad tokens, ``max``, ``cls`` = first token), then::

      score = FFN([m; r; m*r; |m-r|; m*s; |m-s|])

  ``FFN``: Linear-activation-(dropout) blocks of ``hidden_sizes``, a final Linear to one value and an optional
  ``final_activation``. Referenceless regression (``referenceless_regression_metric``, wmt20/21 comet-qe):
  ``FFN([m; s; m*s; |m-s|])``.
- **Unified** (``unified_metric``: wmt22-cometkiwi-da, wmt23-cometkiwi-da-xl):
  the ``input_segments`` are encoded *jointly* as one sequence ``<s> mt </s></s> src </s>`` (BERT: ``[SEP]``
  once), ``score = FFN(E[:, 0])``. With both ``src`` and ``ref`` among the segments and given, the score is the mean
  over the three inputs (mt, src), (mt, ref) and (mt, src, ref).
- **XCOMET** (``xcomet_metric``: XCOMET-XL, XCOMET-XXL): the unified model on ``[mt, src, ref]`` plus a word-level
  head, tag probabilities ``p[t] = softmax(W H_word_layer[t] + b)`` over (O, minor, major, critical) at each mt
  token ``t`` (``<s>`` and ``</s>`` included). With ``s_k`` the regression score of input ``k``::

      score = sum_k w_k min(s_k, 1) + 0.22 * (1 - min(P, 25) / 25)

  ``w = (0.12, 0.33, 0.33)`` over (mt, src), (mt, ref), (mt, src, ref); with only ``src`` or only ``ref`` given,
  the one input with ``w = 0.78``. ``P`` is the MQM penalty of the error spans decoded from the tags ``argmax_c
  sum_k v_k p_k[t, c]`` (``v = (0.1667, 0.3333, 0.5)``; one input: ``v = 1``): a span is a run of error tags
  closed by an O tag, with its first tag's severity (minor 1, major 5, critical 10); a run still open at the last
  mt token is dropped, as unbabel-comet's decoder drops it. There is no normalisation by length. The spans are
  returned too (``error_spans``: text, confidence, severity, character offsets; :func:`decode_spans`), and
  ``decoding_threshold=t`` tags a token as an error when its error probabilities sum above ``t``, as unbabel-comet's.
- **Document context** (``enable_context``, unbabel-comet's; estimators with ``avg`` pooling): a text
  ``"previous. </s> current."`` is encoded whole and only ``<s>``, its last sentence and ``</s>`` are pooled.

A pad token written inside a text (``<pad>`` in XLM-R's vocabulary, ``[PAD]`` in BERT's: a generation decoded
without skipping special tokens) becomes the pad id, and is then handled as unbabel-comet handles it: to the encoder
it is a token (attended; XLM-R numbers it as padding, ``position = pad``, and the later tokens' positions do not
count it) and the layer norm counts it, but pooling skips it (``avg`` sums the other tokens and divides by all of
them, ``max`` ignores it), and joint sequences drop it before the segments are joined (XCOMET still reads the mt's
tags over as many joint positions as the mt had tokens, pad ids included).

Inputs are tokenized with truncation to ``max_position_embeddings - 4`` tokens (unbabel-comet's ``max_positions -
2``); a joint sequence longer than the encoder takes is cut to ``max_position_embeddings - 2`` tokens, as
unbabel-comet does. One warning counts the truncated texts.

Speed: the estimator's sentence embeddings are a function of one text, so each distinct text is encoded once and
kept in the shared embedding cache (:mod:`nlgmetrics.embed.cache`): scoring 16 systems against the same sources and
references costs one pass over the sources and references plus one per system output. Batches are length-sorted
(little padding). The unified models encode each (mt, src[, ref]) sequence jointly, so only repeated pairs are reused.
The encoder runs padding-free where it can (:mod:`nlgmetrics.embed.packed`: XLM-R
and BERT layouts, checked against the padded forward at load time), and only up to the last layer the score reads
(a sparsemax mix gives some layers exactly zero weight). On CUDA, ``dtype='bfloat16'``/``'float16'`` runs the
encoder under autocast. ``precision='half'`` is comet-score's ``model.half()`` instead: float16 weights and
arithmetic as unbabel-comet keeps them after it (the padded forward, its own), on any device; the default float32
equals unbabel-comet's Python ``predict()``. Under torch.distributed, ``distributed=True``/``"auto"`` shares the
encoding of the same inputs out across the ranks (:mod:`nlgmetrics.embed.distributed`).
"""

from __future__ import annotations

import json
import os
import threading
import warnings
from collections.abc import Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import torch
from torch import nn

from nlgmetrics.embed.cache import TokenEmbeddings, get_cache
from nlgmetrics.embed.distributed import active as sharding_active
from nlgmetrics.embed.distributed import check_mode, encode_sharded, score_sharded
from nlgmetrics.embed.encoder import (
    _DTYPES,
    _dtype_name,
    _folder_identity,
    check_batch_size,
    packing_matches,
    pad_batch,
    pick_device,
    without_stored_state,
)
from nlgmetrics.embed.packed import can_pack, packed_hidden_states
from nlgmetrics.inputs import check_predictions, check_references
from nlgmetrics.options import check_int, check_real, checked_options
from nlgmetrics.stats import DEFAULT_SEED
from nlgmetrics.learned.comet_checkpoint import (
    CKPT,
    DEFAULT_CHECKPOINT,
    HPARAMS,
    CheckpointError,
    find_checkpoint,
    read_hparams,
    read_state_dict,
    resolve_encoder_file,
)
from nlgmetrics.learned.locate import weights_digest

VERSION = "3"  # 2: a pad id inside a text is padding to pooling and joining; 3: the tokenizer's saved pipeline
PRECISIONS = ("float32", "half")
ESTIMATORS = ("regression_metric", "referenceless_regression_metric")
UNIFIED = ("unified_metric", "xcomet_metric")
XCOMET_WEIGHTS = (0.12, 0.33, 0.33)  # XCOMETMetric.score_weights of (mt, src), (mt, ref), (mt, src, ref); MQM: 0.22
XCOMET_MQM_WEIGHT = 0.22
XCOMET_SPAN_WEIGHTS = (0.1667, 0.3333, 0.5)  # input_weights_spans: the tag probabilities' mix over the three inputs
XCOMET_PENALTY = {"minor": 1, "major": 5, "critical": 10}  # an error span's severity -> its MQM penalty


@dataclass(frozen=True)
class EncoderFamily:
    """How unbabel-comet builds one ``encoder_model``: transformers classes, where the tokenizer comes from
    (None: ``pretrained_model``), separator tokens between joint segments, and whether token types are passed."""

    config_class: str
    model_class: str
    tokenizer_from: str | None
    size_separator: int
    token_types: bool


ENCODER_FAMILIES = {
    "XLM-RoBERTa": EncoderFamily("XLMRobertaConfig", "XLMRobertaModel", None, 2, False),
    "MiniLM": EncoderFamily("BertConfig", "BertModel", "xlm-roberta-base", 2, False),
    "BERT": EncoderFamily("BertConfig", "BertModel", None, 1, True),
    "XLM-RoBERTa-XL": EncoderFamily("XLMRobertaXLConfig", "XLMRobertaXLModel", None, 2, False),
}


# -- what a checkpoint reads ---------------------------------------------------------------------------------------
def input_segments(hparams: dict) -> list[str]:
    """The segments a model reads (``input_segments``; XCOMET always ``[mt, src, ref]``, as XCOMETMetric sets)."""
    if hparams.get("class_identifier") == "xcomet_metric":
        return ["mt", "src", "ref"]
    segments = hparams.get("input_segments") or ["mt", "src", "ref"]
    return list(segments) if isinstance(segments, (list, tuple)) else ["mt", "src", "ref"]


def reads_references(kind: str, segments: Sequence[str]) -> bool:
    return kind == "regression_metric" or (kind in UNIFIED and "ref" in segments)


def requires_sources(kind: str, segments: Sequence[str]) -> bool:
    """Whether scoring needs sources: all but the unified models with references among their inputs (XCOMET,
    unified [mt, src, ref] models score (mt, ref) alone)."""
    return kind in ESTIMATORS or "ref" not in segments


def requires_references(kind: str, segments: Sequence[str]) -> bool:
    return kind == "regression_metric" or (kind in UNIFIED and "src" not in segments)


def input_needs(options: dict) -> Any:
    """The registry's ``input_needs`` hook: what the checkpoint named by ``options["model"]`` needs, read from its
    hparams.yaml (no weights are loaded)."""
    from nlgmetrics.registry import InputNeeds

    folder = find_checkpoint(options.get("model", DEFAULT_CHECKPOINT))
    hparams = read_hparams(folder)
    kind, segments = hparams["class_identifier"], input_segments(hparams)
    return InputNeeds(checkpoint=folder.name, sources_required=requires_sources(kind, segments),
                      references_optional=not requires_references(kind, segments))


def as_saved(tokenizer: Any, source: str) -> Any:
    """``tokenizer`` (loaded from ``source``, a folder or hub id) running the text pipeline transformers 4 gives it,
    as unbabel-comet 2.2.7 runs it: with a ``tokenizer.json``, that file's normalizer, pre-tokenizer and decoder
    verbatim; a SentencePiece (Unigram) tokenizer without one as transformers 4 converts it (the model's character
    map, right strip, ``" {2,}" -> "▁"``; ``Metaspace``). transformers 5 rebuilds XLM-R's pipeline (the character map
    only, ``WhitespaceSplit`` + ``Metaspace``): the same token ids, but other character offsets (a piece's span
    without its leading space), which XCOMET's error spans report."""
    import tokenizers

    backend = getattr(tokenizer, "backend_tokenizer", None)
    if not isinstance(backend, tokenizers.Tokenizer):
        return tokenizer
    path: Any = Path(source).expanduser() / "tokenizer.json"
    if not path.is_file():
        try:
            from huggingface_hub import try_to_load_from_cache

            path = try_to_load_from_cache(str(source), "tokenizer.json")
        except Exception:  # noqa: BLE001 - not a hub id
            path = None
    if isinstance(path, (str, Path)) and Path(path).is_file():
        saved = tokenizers.Tokenizer.from_file(str(path))
        backend.normalizer, backend.pre_tokenizer = saved.normalizer, saved.pre_tokenizer
        backend.decoder = saved.decoder
        return tokenizer
    state = json.loads(backend.to_str())
    if (state.get("model") or {}).get("type") != "Unigram":
        return tokenizer
    normalizer = state.get("normalizer") or {}
    steps = normalizer.get("normalizers", []) if normalizer.get("type") == "Sequence" else [normalizer]
    state["normalizer"] = {"type": "Sequence", "normalizers": [
        *(step for step in steps if step.get("type") == "Precompiled"),
        {"type": "Strip", "strip_left": False, "strip_right": True},
        {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": "\u2581"}]}
    state["pre_tokenizer"] = {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": True}
    converted = tokenizers.Tokenizer.from_str(json.dumps(state))
    backend.normalizer, backend.pre_tokenizer = converted.normalizer, converted.pre_tokenizer
    return tokenizer


# -- the modules on top of the encoder ----------------------------------------------------------------------------
def sparsemax(z: torch.Tensor) -> torch.Tensor:
    """Sparsemax of a vector (Martins & Astudillo, 2016): the Euclidean projection onto the simplex,
    ``p_i = max(z_i - tau, 0)`` with ``tau = (sum_{j<=k} z_(j) - 1) / k`` over the ``k`` largest entries, ``k`` the
    largest with ``1 + k z_(k) > sum_{j<=k} z_(j)``."""
    z = z - z.max()
    ordered, _ = torch.sort(z, descending=True)
    cumulative = ordered.cumsum(0) - 1
    ks = torch.arange(1, len(z) + 1, dtype=z.dtype, device=z.device)
    support = ordered * ks > cumulative
    k = int(support.sum())
    tau = cumulative[k - 1] / k
    return torch.clamp(z - tau, min=0)


class LayerMix(nn.Module):
    """``E = gamma * sum_l w_l * N(H_l)`` (see the module docstring); parameter names as unbabel-comet's
    ``LayerwiseAttention`` so its state_dict loads."""

    def __init__(self, num_layers: int, layer_norm: bool, transformation: str) -> None:
        super().__init__()
        self.scalar_parameters = nn.ParameterList([nn.Parameter(torch.zeros(1)) for _ in range(num_layers)])
        self.gamma = nn.Parameter(torch.ones(1))
        self.layer_norm = bool(layer_norm)
        self.sparse = transformation == "sparsemax"  # "sparsemax_patch" and "softmax" are softmax in unbabel-comet

    def weights(self) -> torch.Tensor:
        raw = torch.cat(list(self.scalar_parameters))
        return sparsemax(raw) if self.sparse else torch.softmax(raw, dim=0)

    def normalised(self, state: torch.Tensor, sequence: torch.Tensor, counts: torch.Tensor) -> torch.Tensor:
        """``N(H_l)`` of one packed layer ``(T, hidden)``: each sequence's mean and variance over its tokens and
        features (the identity without ``layer_norm``)."""
        if not self.layer_norm:
            return state
        total = counts * state.shape[1]
        mean = state.new_zeros(len(counts)).index_add_(0, sequence, state.sum(-1)) / total
        centred = state - mean[sequence].unsqueeze(-1)
        variance = state.new_zeros(len(counts)).index_add_(0, sequence, centred.square().sum(-1)) / total
        return centred / torch.sqrt(variance + 1e-12)[sequence].unsqueeze(-1)


class FeedForward(nn.Module):
    """unbabel-comet's estimator: ``ff`` = [Linear, activation, Dropout] per hidden size, Linear to ``out_dim``,
    optional final activation (same module indices, so its state_dict loads)."""

    def __init__(self, in_dim: int, hidden_sizes: Sequence[int], activations: str, final_activation: str | None,
                 dropout: float, out_dim: int = 1) -> None:
        super().__init__()
        sizes = [in_dim, *hidden_sizes]
        modules: list[nn.Module] = []
        for a, b in zip(sizes, sizes[1:]):
            modules += [nn.Linear(a, b), _activation(activations), nn.Dropout(dropout)]
        modules.append(nn.Linear(sizes[-1], out_dim))
        if final_activation is not None:
            modules.append(_activation(final_activation))
        self.ff = nn.Sequential(*modules)

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        """``ff(features)``; with float16 weights (``precision="half"``) the features are cast to float16 first, as
        unbabel-comet's FeedForward does after ``model.half()``."""
        dtype = self.ff[0].weight.dtype
        return self.ff(features.to(dtype) if dtype == torch.float16 else features)


def _activation(name: str) -> nn.Module:
    module = getattr(nn, str(name).title(), None)
    try:
        built = module() if isinstance(module, type) and issubclass(module, nn.Module) else None
    except TypeError:  # a module that needs arguments (Linear): not an activation
        built = None
    if built is None or list(built.parameters()):
        raise CheckpointError(f"activation {name!r} of the checkpoint is not a torch.nn activation (Tanh, ReLU, "
                              "Sigmoid, GELU, ...).")
    return built


def _no_init_weights() -> Any:
    """transformers' context that skips random initialisation (its home moved in transformers 5); a no-op
    where neither exists."""
    try:
        from transformers.initialization import no_init_weights
    except ImportError:
        try:
            from transformers.modeling_utils import no_init_weights
        except ImportError:
            return nullcontext()
    return no_init_weights()


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def comet_modules(hparams: dict, config: Any, model_class: Any) -> dict[str, nn.Module]:
    """The modules of the COMET model that ``hparams`` and the encoder's ``config`` describe, by their state_dict
    prefix in unbabel-comet's checkpoints, built on the current device (``meta`` for :func:`check_weights`)."""
    kind = hparams["class_identifier"]
    modules: dict[str, nn.Module] = {"encoder.model.": model_class(config, add_pooling_layer=False)}
    if hparams.get("sent_layer" if kind in UNIFIED else "layer", "mix") == "mix":
        modules["layerwise_attention."] = LayerMix(config.num_hidden_layers + 1, hparams.get("layer_norm", True),
                                                   str(hparams.get("layer_transformation", "softmax")))
    hidden = config.hidden_size
    in_dim = {"regression_metric": 6 * hidden, "referenceless_regression_metric": 4 * hidden}.get(kind, hidden)
    modules["estimator."] = FeedForward(in_dim, hparams.get("hidden_sizes", [3072, 1024]),
                                        hparams.get("activations", "Tanh"), hparams.get("final_activation"),
                                        float(hparams.get("dropout", 0.1)))
    if kind == "xcomet_metric":
        modules["hidden2tag."] = nn.Linear(hidden, 1 + len(XCOMET_PENALTY))
    return modules


def unused_weights(kind: str) -> tuple[str, ...]:
    """Prefixes of checkpoint entries unbabel-comet holds but no score reads: the encoder's pooler (MiniLM's
    BertModel keeps one; ``pool: default`` is not supported), position/token-type id buffers, the layer mix's dropout
    buffers, the word-level loss's class weights (``wordloss``, training only), and a unified model's word-level
    tagger (``word_level_training``: error spans only, not scores)."""
    unused = ("encoder.model.pooler.", "encoder.model.embeddings.position_ids",
              "encoder.model.embeddings.token_type_ids", "layerwise_attention.dropout_mask",
              "layerwise_attention.dropout_fill")
    if kind in UNIFIED:
        unused += ("wordloss.",)
    return unused + (("hidden2tag.",) if kind == "unified_metric" else ())


def check_weights(path: Path, state: dict, modules: dict[str, nn.Module], unused: tuple[str, ...]) -> None:
    """Strict loading: the weights the model's ``modules`` (by state_dict prefix; meta tensors will do) use are
    exactly the checkpoint's ``state``, with the same shapes; ``unused``: prefixes of entries unbabel-comet keeps
    but no score reads (they may be there or not). A :class:`CheckpointError` naming the differences otherwise."""
    expected = {prefix + k: tuple(v.shape) for prefix, module in modules.items()
                for k, v in module.state_dict().items()}
    not_tensors = [k for k, v in state.items() if not isinstance(v, torch.Tensor)]
    provided = {k: tuple(v.shape) for k, v in state.items() if isinstance(v, torch.Tensor)}
    missing = [k for k in expected if k not in provided and not k.startswith(unused)]
    extra = [k for k in provided if k not in expected and not k.startswith(unused)] + not_tensors
    shapes = [f"{k} {list(provided[k])} (the model's {list(expected[k])})" for k in expected
              if k in provided and provided[k] != expected[k] and not k.startswith(unused)]
    problems = []
    for label, keys in (("missing from the checkpoint", missing), ("in the checkpoint but not used by the model",
                                                                      extra), ("with another shape", shapes)):
        if keys:
            problems.append(f"{len(keys)} weight(s) {label} (e.g. {', '.join(keys[:3])})")
    if problems:
        raise CheckpointError(
            f"{path}: the weights do not match the model that {HPARAMS} and the encoder's config.json describe: "
            f"{'; '.join(problems)}. Use the {HPARAMS} and encoder config.json published with these weights (the "
            "same hub revision), or weights saved from that model."
        )


# -- the model ------------------------------------------------------------------------------------------------------
class Comet:
    """One COMET checkpoint loaded for scoring (see the module docstring). Use :func:`load_comet` (cached)."""

    def __init__(self, folder: Path, *, encoder: str | os.PathLike | None = None, device: Any = None,
                 dtype: str | None = None, precision: str = "float32") -> None:
        import transformers

        if precision not in PRECISIONS:
            raise ValueError(f"COMET: precision must be one of {', '.join(map(repr, PRECISIONS))}, got "
                             f"{precision!r:.40}.")
        if precision == "half" and dtype not in (None, "float32", "fp32"):
            raise ValueError(f"COMET: precision='half' computes in float16 throughout (comet-score's model.half()); "
                             f"it cannot be combined with dtype={dtype!r} (autocast). Pass one of them.")
        self.precision = precision
        self.folder = folder
        self.hparams = hparams = read_hparams(folder)
        state = read_state_dict(folder)
        self.kind = hparams["class_identifier"]
        if self.kind not in ESTIMATORS + UNIFIED:
            raise CheckpointError(f"{folder}: COMET model class {self.kind!r} gives no segment score here (supported: "
                                  f"{', '.join(ESTIMATORS + UNIFIED)}); ranking models only rank.")
        family_name = hparams.get("encoder_model", "XLM-RoBERTa")
        if family_name not in ENCODER_FAMILIES:
            raise CheckpointError(f"{folder}: encoder_model {family_name!r} is not supported (supported: "
                                  f"{', '.join(ENCODER_FAMILIES)}).")
        self.family = family = ENCODER_FAMILIES[family_name]
        pretrained = str(hparams.get("pretrained_model", "xlm-roberta-large"))
        config_class = getattr(transformers, family.config_class)
        model_class = getattr(transformers, family.model_class)
        config = resolve_encoder_file(pretrained, "config", folder, encoder, config_class.from_pretrained)
        tokenizer_name = family.tokenizer_from or pretrained
        tokenizer_class = (transformers.AutoTokenizer if family.tokenizer_from is None
                           else transformers.XLMRobertaTokenizerFast)

        def tokenizer_loader(source: str, **kwargs: Any) -> Any:
            return as_saved(tokenizer_class.from_pretrained(source, **kwargs), source)

        self.tokenizer = without_stored_state(
            resolve_encoder_file(tokenizer_name, "tokenizer", folder, encoder, tokenizer_loader))
        self.max_positions = config.max_position_embeddings - 2  # unbabel-comet's Encoder.max_positions
        self.pad_id = self.tokenizer.pad_token_id

        self.device = pick_device(device)
        if dtype not in _DTYPES:
            raise ValueError(f"dtype must be one of None, 'float32', 'bfloat16', 'float16', got {dtype!r}.")
        self.autocast_dtype = _DTYPES[dtype]
        self.layer = hparams.get("sent_layer" if self.kind in UNIFIED else "layer", "mix")
        self.num_layers = config.num_hidden_layers + 1
        if self.layer != "mix" and not (_is_int(self.layer) and 0 <= self.layer < self.num_layers):
            raise CheckpointError(f"{folder / HPARAMS}: layer {self.layer!r} is not 'mix' or a layer index below "
                                  f"{self.num_layers} (the encoder's {config.num_hidden_layers} layers + embeddings).")
        self.pool = hparams.get("pool", "avg")
        if self.kind in ESTIMATORS and self.pool not in ("avg", "max", "cls"):
            raise CheckpointError(f"{folder / HPARAMS}: pool {self.pool!r} is not supported (avg, max, cls; "
                                  "unbabel-comet's 'default' pools the encoder's own sentence embedding, which no "
                                  "published checkpoint uses).")
        self.segments = input_segments(hparams)
        self.word_layer = None
        if self.kind == "xcomet_metric":
            if list(hparams.get("error_labels", ["minor", "major", "critical"])) != ["minor", "major", "critical"]:
                raise CheckpointError(f"{folder}: XCOMET's error_labels must be [minor, major, critical] (as "
                                      "unbabel-comet asserts).")
            self.word_layer = hparams.get("word_layer", 36)
            if not (_is_int(self.word_layer) and 0 <= self.word_layer < self.num_layers):
                raise CheckpointError(f"{folder / HPARAMS}: word_layer {self.word_layer!r} is not a layer index "
                                      f"below {self.num_layers}.")

        def build() -> dict[str, nn.Module]:
            return comet_modules(hparams, config, model_class)

        with torch.device("meta"):  # shapes only: nothing is allocated until they match the weights
            check_weights(folder / CKPT, state, build(), unused=unused_weights(self.kind))
        with _no_init_weights():  # every weight is overwritten by the checkpoint's (checked above)
            modules = build()
        for prefix, module in modules.items():
            module.load_state_dict({k[len(prefix):]: v for k, v in state.items() if k.startswith(prefix)},
                                   strict=False)  # strict=False: buffers the checkpoint may leave out
        self.encoder = modules["encoder.model."]
        self.mix = modules.get("layerwise_attention.")
        self.head = modules["estimator."]
        self.tagger = modules.get("hidden2tag.")
        self._drop_unused_layers()
        for module in (self.encoder, self.mix, self.head, self.tagger):
            if module is not None:
                module.to(self.device).eval()
                if precision == "half":
                    module.half()  # comet-score's model.half(): every weight in float16
        probe = self.token_ids(["A short probe.", "A somewhat longer probe sentence, with a comma."])[0]
        # precision="half" runs the padded forward: unbabel-comet's own, whose float16 roundings it then shares
        # (measured on CPU: its half-precision scores to the last bit or one float16 step; the padding-free
        # forward rounds inside attention in another order, a few steps off)
        self.packed = precision != "half" and can_pack(self.encoder) and packing_matches(
            self.encoder, probe, pad_id=self.pad_id, device=self.device)
        self.lock = threading.Lock()
        self.namespace = (f"comet:{VERSION}:{_folder_identity(str(folder))}:{_dtype_name(self.autocast_dtype)}:"
                          f"{precision}:{self.device.type}")
        self.weights_digest = weights_digest(folder / CKPT)

    def _drop_unused_layers(self) -> None:
        """Run the encoder only up to the last layer the score reads: ``layer: k``, or the last layer a sparsemax mix
        gives a non-zero weight (sparsemax sets weights exactly to 0, so the layers above add exactly nothing), and
        XCOMET's ``word_layer``."""
        if self.mix is None:
            last = self.layer
        elif self.mix.sparse:
            with torch.no_grad():
                last = int(torch.nonzero(self.mix.weights()).max())
            self.mix.scalar_parameters = self.mix.scalar_parameters[: last + 1]
        else:
            return
        last = max(last, self.word_layer or 0)
        blocks = self.encoder.encoder.layer
        if last < len(blocks):
            # at least one block: transformers 5 records hidden states with hooks on the blocks, so an encoder cut
            # to none returns no hidden states at all, not even the embeddings (a mix that weights only layer 0)
            self.encoder.encoder.layer = blocks[: max(last, 1)]

    # -- properties a caller needs --------------------------------------------------------------------------------
    @property
    def reads_references(self) -> bool:
        return reads_references(self.kind, self.segments)

    @property
    def requires_sources(self) -> bool:
        return requires_sources(self.kind, self.segments)

    @property
    def requires_references(self) -> bool:
        return requires_references(self.kind, self.segments)

    # -- the estimators on sentence embeddings (MBR's COMET utility: nlgmetrics.mbr.utilities) --------------------
    def sentence_embeddings(self, texts: Sequence[str], batch_size: int = 16,
                            progress: bool = False) -> tuple[torch.Tensor, int]:
        """Estimators: the pooled sentence embedding of each text, ``(len(texts), hidden)`` float32 on CPU (each
        distinct text encoded once, in length-sorted batches, through the shared embedding cache), and how many
        distinct texts were truncated."""
        if self.kind not in ESTIMATORS:
            raise ValueError(f"COMET model {self.folder.name} ({self.kind}) encodes its inputs jointly; only the "
                             f"estimators ({', '.join(ESTIMATORS)}) have sentence embeddings.")
        distinct = list(dict.fromkeys(texts))
        rows, cut = self.token_ids(distinct)
        vectors, _ = self._embed(distinct, rows, batch_size, False, None, progress, "sentences")
        index = {t: i for i, t in enumerate(distinct)}
        return vectors[[index[t] for t in texts]], cut

    def estimate(self, s: torch.Tensor, m: torch.Tensor, r: torch.Tensor) -> torch.Tensor:
        """A ``regression_metric``'s scores from sentence embeddings, one per row, as :meth:`score` computes them:
        ``FFN([m; r; m*r; |m-r|; m*s; |m-s|])``, float32 on CPU."""
        features = torch.cat((m, r, m * r, torch.abs(m - r), m * s, torch.abs(m - s)), dim=1)
        return torch.as_tensor(self._head(features)).float()

    # -- tokens ---------------------------------------------------------------------------------------------------
    def token_ids(self, texts: Sequence[str]) -> tuple[list[list[int]], int]:
        """Token ids with special tokens, truncated as unbabel-comet's tokenizer call (``max_length =
        max_positions - 2``: content cut, the end token kept), and how many texts were cut."""
        limit = self.max_positions - 2
        ids = self.tokenizer(list(texts), add_special_tokens=True, truncation=False, verbose=False)["input_ids"]
        cut = 0
        for i, row in enumerate(ids):
            if len(row) > limit:
                ids[i] = row[: limit - 1] + row[-1:]
                cut += 1
        return ids, cut

    def char_offsets(self, texts: Sequence[str]) -> list[list[tuple[int, int]]]:
        """Each token's ``(start, end)`` character span in its text (special tokens ``(0, 0)``), for the ids
        :meth:`token_ids` gives, truncated alike: unbabel-comet's ``mt_offsets``."""
        limit = self.max_positions - 2
        found = self.tokenizer(list(texts), add_special_tokens=True, truncation=False, verbose=False,
                               return_offsets_mapping=True)["offset_mapping"]
        return [[(int(a), int(b)) for a, b in (row[: limit - 1] + row[-1:] if len(row) > limit else row)]
                for row in found]

    def joint_ids(self, parts: Sequence[list[int]]) -> tuple[list[int], int]:
        """unbabel-comet's ``concat_sequences`` of one example: ``<s> a </s></s> b </s>`` (BERT: one ``[SEP]``),
        cut to ``max_positions`` tokens when the contents exceed ``max_positions - 1 - n * size_separator``; also the
        length of the first segment's token-type-0 span."""
        cls, sep = self.tokenizer.cls_token_id, self.tokenizer.sep_token_id
        sequence = parts[0]
        for other in parts[1:]:  # the tokenizer's pair layout (build_inputs_with_special_tokens in transformers 4)
            sequence = [cls, *sequence[1:-1], *[sep] * self.family.size_separator, *other[1:-1], sep]
        special = 1 + len(parts) * self.family.size_separator
        if sum(len(p) - 2 for p in parts) > self.max_positions - special:
            sequence = sequence[: self.max_positions]
        return sequence, len(parts[0])

    # -- forward --------------------------------------------------------------------------------------------------
    @property
    def half(self) -> bool:
        return self.precision == "half"

    def _hidden_states(self, rows: Sequence[list[int]], first: Sequence[int] | None
                       ) -> tuple[torch.Tensor, torch.Tensor | None]:
        """``E`` (the mix, or ``H_layer``) at every real token of ``rows``, packed ``(sum of lengths, hidden)``,
        and XCOMET's ``H_word_layer`` likewise (else None). The padding-free forward (:mod:`nlgmetrics.embed.packed`)
        where the encoder allows it, else a padded batch with the pad positions dropped; each layer is mixed as it
        comes out (no stack of all layers is kept). ``first``: joint sequences' first segment lengths (BERT's token
        types: 0 over the first segment, 1 after it, as unbabel-comet).

        Dtypes: float32 (autocast's outputs are cast up). With ``precision="half"`` as unbabel-comet after
        ``model.half()``: the states, the mix's weights, products and running sum in float16; with ``layer_norm``
        the normalisation in float32 (its mask is a float32 tensor there), so the mix is float32."""
        types = (None if first is None or not self.family.token_types
                 else [[0] * n + [1] * (len(row) - n) for row, n in zip(rows, first)])
        autocast = (torch.autocast(self.device.type, dtype=self.autocast_dtype)
                    if self.autocast_dtype is not None and self.device.type == "cuda" else nullcontext())
        counts = torch.tensor([len(row) for row in rows], device=self.device)
        sequence = torch.repeat_interleave(torch.arange(len(counts), device=self.device), counts)
        weights = self.mix.weights() if self.mix is not None else None
        used = (weights != 0).tolist() if weights is not None else []  # sparsemax zeros add exactly nothing
        found: dict[str, torch.Tensor] = {}

        def take(index: int, state: torch.Tensor) -> None:
            if not self.half:
                state = state.float()
            if index == self.word_layer:
                found["word"] = state
            if weights is None:
                if index == self.layer:
                    found["mixed"] = state
            elif index < len(used) and used[index]:
                if self.mix.layer_norm:
                    term = self.mix.normalised(state.float(), sequence, counts) * weights[index].float()
                else:
                    term = state * weights[index]
                found["mixed"] = term if "mixed" not in found else found["mixed"].add_(term)

        if self.packed:
            with autocast:
                packed_hidden_states(self.encoder, rows, None, self.device, token_type_ids=types, on_layer=take)
        else:
            ids, mask = pad_batch(rows, self.pad_id)
            kwargs = {}
            if types is not None:
                kwargs["token_type_ids"] = pad_batch(types, 0)[0].to(self.device)
            mask = mask.to(self.device)
            with autocast:
                out = self.encoder(input_ids=ids.to(self.device), attention_mask=mask, output_hidden_states=True,
                                   **kwargs)
            real = mask.bool()
            for index, state in enumerate(out.hidden_states):
                take(index, state[real])
        mixed = found["mixed"] * self.mix.gamma if self.mix is not None else found["mixed"]
        return mixed, found.get("word")

    def _pooled(self, mixed: torch.Tensor, rows: Sequence[list[int]], joint: bool,
                context: bool = False) -> torch.Tensor:
        """One vector per sequence from ``E`` packed over token rows ``rows`` (:meth:`_hidden_states`): ``E[0]``
        for joint sequences and ``pool: cls``, for ``avg`` the sum over the tokens that are not the pad id divided by
        the number of all tokens, for ``max`` the maximum over the tokens that are not the pad id.

        A pad id inside a text (``<pad>`` written in it) is a token to the encoder and the mix's layer norm (its
        attention mask is 1) but padding to the pooling, as in unbabel-comet's ``average_pooling`` (masked by token
        id, divided by the attention mask's sum) and ``max_pooling``.

        ``context`` (``avg`` only; unbabel-comet's ``enable_context``): a row with two or more separators (``ctx
        </s> text </s>``) leaves the positions ``1 .. s`` out of the sum and the count, ``s`` its second-to-last
        separator, so the vector pools ``<s>``, the last sentence and the end token. The ``avg`` sum is taken in the
        states' dtype (float16 under ``precision="half"``) and divided in float32, as unbabel-comet's."""
        counts = torch.tensor([len(row) for row in rows], device=mixed.device)
        sequence = torch.repeat_interleave(torch.arange(len(counts), device=mixed.device), counts)
        if joint or self.pool == "cls":
            return mixed[counts.cumsum(0) - counts]
        skip = [t == self.pad_id for row in rows for t in row]
        if context:
            sep, at = self.tokenizer.sep_token_id, 0
            for i, row in enumerate(rows):
                separators = [k for k, t in enumerate(row) if t == sep]
                if len(separators) > 1:
                    start = separators[-2]
                    skip[at + 1 : at + start + 1] = [True] * start
                    counts[i] -= start
                at += len(row)
        if any(skip):  # pad ids in a text, or context: leave those positions out
            keep = ~torch.tensor(skip, dtype=torch.bool, device=mixed.device)
            mixed, sequence = mixed[keep], sequence[keep]
        if self.pool == "avg":
            sums = torch.zeros((len(counts), mixed.shape[1]), device=mixed.device)
            sums.index_add_(0, sequence, mixed.float())
            return sums.to(mixed.dtype).float() / counts.unsqueeze(1)
        # scatter_reduce_, not index_reduce_: the same maximum without torch's "index_reduce() is in beta" warning
        return mixed.new_zeros((len(counts), mixed.shape[1])).scatter_reduce_(
            0, sequence.unsqueeze(1).expand_as(mixed), mixed, "amax", include_self=False)

    def _tag_probs(self, word: torch.Tensor, lengths: Sequence[int], first: Sequence[int]) -> list[torch.Tensor]:
        """XCOMET's word-level head on the first ``first`` positions (the mt) of each packed joint sequence:
        ``softmax(W H_word + b)`` per position, ``(first, 4)`` on CPU (float16 under ``precision="half"``)."""
        starts = np.cumsum([0, *lengths[:-1]])
        index = torch.from_numpy(np.concatenate([np.arange(a, a + n) for a, n in zip(starts, first)])).to(word.device)
        probs = torch.softmax(self.tagger(word[index]), dim=-1).cpu()
        return [p.clone() for p in probs.split(list(first))]  # clones: the cache keeps each alone

    def _embed(self, keys: Sequence[str], rows: Sequence[list[int]], batch_size: int, joint: bool,
               first: Sequence[tuple[int, int]] | None, progress: bool, what: str,
               context: bool = False) -> tuple[torch.Tensor, list[torch.Tensor]]:
        """One vector per key: the pooled sentence embedding (estimators) or ``E[:, 0]`` (unified), from the cache
        or encoded and cached; for XCOMET also each key's mt tag probabilities (:meth:`_tag_probs`; else an empty
        list). With sharding active (:mod:`nlgmetrics.embed.distributed`) the keys missing on any rank are split
        across the ranks by token count and every rank caches all of them (a collective call)."""
        cache = get_cache()
        namespace = f"{self.namespace}:{'joint' if joint else 'sent'}{':context' if context else ''}"
        tagged = joint and self.tagger is not None
        index: dict[str, int] = {}
        found: dict[str, tuple[torch.Tensor, torch.Tensor | None]] = {}
        for i, key in enumerate(keys):
            if key in index:
                continue
            index[key] = i
            entry = cache.get(namespace, key)
            tags = cache.get(f"{namespace}:tags", key) if tagged and entry is not None else None
            if entry is not None and (tags is not None or not tagged):
                found[key] = (entry.embeddings[0], None if tags is None else tags.embeddings)
        missing = [key for key in index if key not in found]

        def encode(todo: list[str]) -> list[tuple[torch.Tensor, torch.Tensor | None]]:
            from nlgmetrics.embed.oom import halving_call  # out of memory: the batch halves (the same scores)

            picked = [index[key] for key in todo]
            return halving_call(lambda size: self._encode(
                [rows[i] for i in picked], None if first is None else [first[i] for i in picked], size, joint,
                progress, what, context), batch_size, device=self.device, what="COMET encoder")

        if sharding_active():
            def costs(todo: list[str]) -> list[int]:
                return [len(rows[index[key]]) for key in todo]

            computed = encode_sharded(namespace, missing, costs, encode)
        else:
            computed = list(zip(missing, encode(missing))) if missing else []
        for key, (vector, tags) in computed:
            found[key] = (vector, tags)
            cache.put(namespace, key, TokenEmbeddings(rows[index[key]], vector.unsqueeze(0)))
            if tags is not None:
                cache.put(f"{namespace}:tags", key, TokenEmbeddings(rows[index[key]][: len(tags)], tags))
        return torch.stack([found[key][0] for key in keys]), [found[key][1] for key in keys if tagged]

    def _encode(self, rows: Sequence[list[int]], first: Sequence[tuple[int, int]] | None, batch_size: int, joint: bool,
                progress: bool, what: str, context: bool = False) -> list[tuple[torch.Tensor, torch.Tensor | None]]:
        """Per row, its CPU vector and XCOMET's mt tag probabilities (else None), encoded in length-sorted
        batches (longest first)."""
        order = sorted(range(len(rows)), key=lambda i: -len(rows[i]))
        batches = [order[b : b + batch_size] for b in range(0, len(order), batch_size)]
        if progress and batches:
            from tqdm.auto import tqdm

            batches = tqdm(batches, desc=f"COMET {what} ({self.device.type})", unit="batch")
        tagged = joint and self.tagger is not None
        out: list[Any] = [None] * len(rows)
        with self.lock, torch.inference_mode():
            for batch in batches:
                chosen = [rows[i] for i in batch]
                lengths = [len(row) for row in chosen]
                firsts = [first[i][0] for i in batch] if first is not None else None
                mixed, word = self._hidden_states(chosen, firsts)
                pooled = self._pooled(mixed, chosen, joint, context).cpu()
                tags = (self._tag_probs(word, lengths, [first[i][1] for i in batch]) if tagged
                        else [None] * len(batch))
                for i, vector, tag in zip(batch, pooled, tags):
                    out[i] = (vector.clone(), tag)  # its own storage: cached and gathered alone, not with its batch
        return out

    def _head(self, features: torch.Tensor) -> torch.Tensor:
        """The estimator's score of each row of ``features``: a CPU tensor in the head's dtype (float16 under
        ``precision="half"``, as unbabel-comet's scores are then)."""
        with self.lock, torch.inference_mode():
            return torch.cat([self.head(chunk.to(self.device)).view(-1).cpu() for chunk in features.split(4096)])

    # -- scoring --------------------------------------------------------------------------------------------------
    def score(self, sources: Sequence[str] | None, predictions: Sequence[str], references: Sequence[str] | None,
              batch_size: int = 16, progress: bool = False, distributed: bool | str | None = None, *,
              context: bool = False, decoding_threshold: float | None = None) -> Scored:
        """Segment scores, the number of texts that were truncated, and XCOMET's error spans (:class:`Scored`).

        ``context``: unbabel-comet's ``enable_context`` (estimators with ``avg`` pooling; :meth:`_pooled`).
        ``decoding_threshold``: XCOMET's (:func:`decode_spans`). ``distributed`` (:func:`compute_comet`): with
        sharding active every rank must pass the same inputs, each encodes a share of the texts, and all return rank
        0's result."""
        return score_sharded(distributed, lambda s, p, r: self._score(s, p, r, batch_size, progress, context,
                                                                      decoding_threshold),
                             sources, predictions, references)

    def _score(self, sources: Sequence[str] | None, predictions: Sequence[str], references: Sequence[str] | None,
               batch_size: int, progress: bool, context: bool, threshold: float | None) -> Scored:
        texts = {"mt": list(predictions), "src": None if sources is None else list(sources),
                 "ref": None if references is None else list(references)}
        given = {name: values for name, values in texts.items() if values is not None}
        distinct = list(dict.fromkeys(text for values in given.values() for text in values))
        token_rows, cut = self.token_ids(distinct)
        tokens = dict(zip(distinct, token_rows))
        if self.kind in ESTIMATORS:
            rows = [tokens[t] for t in distinct]
            vectors, _ = self._embed(distinct, rows, batch_size, False, None, progress, "sentences", context)
            index = {t: i for i, t in enumerate(distinct)}
            m, s = (vectors[[index[t] for t in texts[name]]] for name in ("mt", "src"))
            if self.kind == "regression_metric":
                r = vectors[[index[t] for t in texts["ref"]]]
                features = torch.cat((m, r, m * r, torch.abs(m - r), m * s, torch.abs(m - s)), dim=1)
            else:
                features = torch.cat((m, s, m * s, torch.abs(m - s)), dim=1)
            return Scored(self._head(features).tolist(), cut, None)
        used = [name for name in ("mt", "src", "ref") if name in self.segments and name in given]
        combos = [["mt", "src"], ["mt", "ref"], ["mt", "src", "ref"]] if used == ["mt", "src", "ref"] else [used]
        per_combo, tag_probs, mt_ids = [], [], []
        for combo in combos:
            keys, rows, first = [], [], []
            for i in range(len(predictions)):
                parts = [tokens[texts[name][i]] for name in combo]
                row, n_first = self.joint_ids([[t for t in part if t != self.pad_id] for part in parts])
                keys.append("\x00".join(combo) + "\x00" + "\x00".join(texts[name][i] for name in combo))
                rows.append(row)
                # XCOMET reads the mt's tags over as many joint positions as the mt had tokens, pad ids included
                # (unbabel-comet's label_ids are the mt's own, its joint input ids have the pad ids removed)
                first.append((n_first, min(len(parts[0]), len(row))))
            vectors, probs = self._embed(keys, rows, batch_size, True, first, progress, "+".join(combo))
            per_combo.append(self._head(vectors))
            tag_probs.append(probs)
            if not mt_ids:  # the ids the spans' text is decoded from: the first input's, at the mt's positions
                mt_ids = [row[:n] for row, (_, n) in zip(rows, first)]
        if self.kind == "xcomet_metric":
            spans = [decode_spans(probs, ids, offsets, threshold, self.tokenizer.decode) for probs, ids, offsets
                     in zip(mixed_tag_probs(tag_probs), mt_ids, self.char_offsets(texts["mt"]))]
            return Scored(xcomet_scores(per_combo, spans).tolist(), cut, spans)
        return Scored(torch.stack(per_combo).mean(0).tolist(), cut, None)


class Scored(NamedTuple):
    """:meth:`Comet.score`'s result: segment scores, how many texts were truncated, and for XCOMET each segment's
    error spans (:func:`decode_spans`; None for other models)."""

    scores: list[float]
    truncated: int
    error_spans: list[list[dict]] | None


SEVERITIES = ("minor", "major", "critical")  # tag ids 1, 2, 3 (unbabel-comet's LabelSet; 0 is O, no error)


def decode_spans(probs: torch.Tensor, ids: Sequence[int], offsets: Sequence[tuple[int, int]],
                 threshold: float | None, decode: Any) -> list[dict]:
    """XCOMET's error spans of one mt from its tokens' tag probabilities ``probs`` ``(tokens, 4)`` over (O, minor,
    major, critical), as unbabel-comet's ``decode``: a token's tag is ``argmax_c p[c]``, or with a
    ``decoding_threshold`` ``t`` (not 0 or None) an error (``argmax_{c>0} p[c]``) when ``p[1] + p[2] + p[3] > t``,
    else O. A span is a run of error tags closed by an O tag, with its first tag's severity; a run still open at the
    last token (``</s>``) is not a span. Each span: ``text`` (its token ids decoded), ``confidence`` (the mean of its
    tags' probabilities), ``severity``, ``start``/``end`` (character offsets in the mt: its first token's start,
    its last token's end)."""
    spans: list[dict] = []
    span: dict | None = None
    for token, p, (start, end) in zip(ids, probs, offsets):
        if threshold:
            if p[1:].sum() > threshold:
                value, label = torch.topk(p[1:], 1)
                label = label + 1
            else:
                value, label = p[:1], torch.zeros(1, dtype=torch.long)
        else:
            value, label = torch.topk(p, 1)
        tag = int(label[0])
        if tag and span is None:
            span = {"tokens": [token], "severity": SEVERITIES[tag - 1], "start": start, "end": end,
                    "confidence": [value]}
        elif tag:
            span["tokens"].append(token)
            span["confidence"].append(value)
            span["end"] = end
        elif span is not None:
            spans.append(span)
            span = None
    return [{"text": decode(s["tokens"]), "confidence": torch.cat(s["confidence"]).mean().item(),
             "severity": s["severity"], "start": s["start"], "end": s["end"]} for s in spans]


def mixed_tag_probs(tag_probs: Sequence[Sequence[torch.Tensor]]) -> list[torch.Tensor]:
    """Each mt's tag probabilities over XCOMET's inputs: ``sum_k v_k p_k`` over (mt, src), (mt, ref), (mt, src, ref)
    with ``v = (0.1667, 0.3333, 0.5)`` (float32, as unbabel-comet's ``input_weights_spans``), or the one input's."""
    if len(tag_probs) == 1:
        return list(tag_probs[0])
    weights = torch.tensor(XCOMET_SPAN_WEIGHTS)
    out = []
    for segment in zip(*tag_probs):
        n = min(len(p) for p in segment)
        out.append(torch.stack([p[:n] * w for p, w in zip(segment, weights)]).sum(0))
    return out


def mqm_scores(spans: Sequence[Sequence[dict]]) -> torch.Tensor:
    """XCOMET's MQM score of each mt's spans: ``(25 - min(P, 25)) / 25`` in float32, ``P`` the sum of the spans'
    penalties (minor 1, major 5, critical 10)."""
    penalties = [min(sum(XCOMET_PENALTY[s["severity"]] for s in segment), 25) for segment in spans]
    return (torch.tensor(penalties) * -1 + 25) / 25


def xcomet_scores(regression: Sequence[torch.Tensor], spans: Sequence[Sequence[dict]]) -> torch.Tensor:
    """XCOMET's segment scores from the regression scores ``s_k`` of each input ``k`` (three: (mt, src), (mt, ref),
    (mt, src, ref); or the one given) and the decoded error spans::

        score = sum_k w_k min(s_k, 1) + 0.22 * mqm_scores(spans)

    ``w = (0.12, 0.33, 0.33)``; one input: ``w = 0.78``. In the scores' dtype (float16 under ``precision="half"``)
    until the float32 MQM term is added, as unbabel-comet computes it."""
    if len(regression) == 3:
        combined = torch.stack([torch.where(s > 1.0, 1.0, s) * w for s, w in zip(regression, XCOMET_WEIGHTS)]).sum(0)
    else:
        combined = torch.where(regression[0] > 1.0, 1.0, regression[0]) * sum(XCOMET_WEIGHTS)
    return combined + mqm_scores(spans) * XCOMET_MQM_WEIGHT


_MODELS: dict[tuple, Comet] = {}
_MODELS_LOCK = threading.Lock()


def load_comet(model: str | os.PathLike = DEFAULT_CHECKPOINT, *, encoder: str | os.PathLike | None = None,
               device: Any = None, dtype: str | None = None, precision: str = "float32") -> Comet:
    """The :class:`Comet` of checkpoint ``model`` (folder or hub id), loaded once per process, device, dtype and
    precision."""
    folder = find_checkpoint(model)
    resolved = pick_device(device)
    key = (str(folder.resolve()), str(encoder), str(resolved), dtype, precision)
    with _MODELS_LOCK:
        if key not in _MODELS:
            _MODELS[key] = Comet(folder, encoder=encoder, device=resolved, dtype=dtype, precision=precision)
        return _MODELS[key]


def clear_models() -> None:
    """Forget the loaded COMET models (frees their memory once no caller holds them)."""
    with _MODELS_LOCK:
        _MODELS.clear()


def _single_references(references: Any, n: int) -> list[str]:
    groups = check_references(references, n)
    several = [i for i, group in enumerate(groups) if len(group) != 1]
    if several:
        raise ValueError(f"COMET scores against one reference per prediction; references[{several[0]}] has "
                         f"{len(groups[several[0]])}. Score each reference set separately (and average), as "
                         "unbabel-comet does.")
    return [group[0] for group in groups]


@checked_options
def compute_comet(
    predictions: Sequence[str],
    references: Sequence[str | Sequence[str]] | None = None,
    *,
    sources: Sequence[str] | None = None,
    model: str | os.PathLike = DEFAULT_CHECKPOINT,
    encoder: str | os.PathLike | None = None,
    batch_size: int = 16,
    device: str | None = None,
    gpus: int | None = None,
    dtype: str | None = None,
    progress_bar: bool = False,
    n_bootstrap: int | None = None,
    seed: int | None = None,
    distributed: bool | str | None = None,
    precision: str = "float32",
    enable_context: bool = False,
    decoding_threshold: float | None = None,
) -> dict:
    """COMET segment scores and their mean (see the module docstring).

    Args:
        predictions: the translations (``mt``). sources: their source sentences (``src``; required, except by
            XCOMET and unified [mt, src, ref] models given references).
        references: one reference per prediction (``ref``); optional (and unused, with a warning) for the
            reference-free models (wmt22-cometkiwi-da, comet-qe).
        model: a checkpoint folder (``hparams.yaml`` + ``checkpoints/model.ckpt``) or hub id (default
            ``Unbabel/wmt22-comet-da``). encoder: a folder with the encoder's config and tokenizer, when they are
            not in the Hugging Face cache (offline).
        batch_size: sequences per encoder forward. device: ``cpu``, ``cuda``, ...; default from ``gpus`` (HF's
            argument: 0 = CPU) or CUDA when available. dtype: ``bfloat16``/``float16`` autocast on CUDA.
        n_bootstrap: also a seeded 95% bootstrap interval of the mean (``mean_score_ci_low/high``).
        distributed: sharded encoding under torch.distributed (:mod:`nlgmetrics.embed.distributed`): ``True``,
            ``"auto"`` (when initialised with several ranks) or ``False``; default None: off unless inside
            ``sharded_encoding()``. Every rank must then call with the same inputs; each encodes a share of the
            distinct texts (joint sequences for the unified models), and all return rank 0's scores.
        precision: ``"float32"`` (default: unbabel-comet's Python ``predict()``) or ``"half"``: every weight and
            operation in float16 as after comet-score's, comet-compare's and comet-mbr's ``model.half()`` (2.2.5 and
            later), on any device (see README.md, "COMET's precision").
        enable_context: unbabel-comet's ``enable_context`` (``comet-score --enable-context``; estimators with
            ``avg`` pooling, e.g. wmt22-comet-da, wmt20-comet-qe-da): each text holds its preceding sentences
            before the tokenizer's separator (``"previous. </s> current."``, see :func:`with_context`) and only
            the last sentence is pooled.
        decoding_threshold: XCOMET's error-span decoding (:func:`decode_spans`): None (argmax, the default) or a
            number in [0, 1] (a token is an error when its error probabilities sum above it); it changes the MQM
            part of the score too.
    Returns:
        ``mean_score`` (the system score: the mean of ``scores``), ``scores`` (one per segment), ``signature``;
        for XCOMET ``error_spans``: per segment, its spans as unbabel-comet's ``metadata.error_spans`` (``text``,
        ``confidence``, ``severity``, ``start``, ``end``: character offsets in the prediction).
    """
    predictions = check_predictions(predictions)
    if sources is not None:
        sources = check_predictions(sources, "sources")
        if len(sources) != len(predictions):
            raise ValueError(f"got {len(predictions)} predictions but {len(sources)} sources: pass one source per "
                             "prediction.")
    if not predictions:
        raise ValueError("no examples to score: predictions is empty.")
    batch_size = check_batch_size(batch_size)
    if distributed is not None:
        check_mode(distributed)
    if device is None and gpus is not None:
        if isinstance(gpus, bool) or not isinstance(gpus, int) or gpus < 0:
            raise ValueError(f"gpus must be a number of GPUs (0 = CPU), got {gpus!r}.")
        device = "cuda" if gpus > 0 else "cpu"
    if decoding_threshold is not None:
        decoding_threshold = check_real("decoding_threshold", decoding_threshold, 0.0, 1.0,
                                        "XCOMET's error-probability threshold")
    comet = load_comet(model, encoder=encoder, device=device, dtype=dtype, precision=precision)
    if enable_context and not (comet.kind in ESTIMATORS and comet.pool == "avg"):
        raise ValueError(f"COMET: enable_context applies to estimator checkpoints with average pooling (e.g. "
                         f"wmt22-comet-da, wmt20-comet-qe-da); {comet.folder.name} is a {comet.kind} with pool "
                         f"{comet.pool!r}, which unbabel-comet scores without context. Leave enable_context out.")
    if decoding_threshold is not None and comet.kind != "xcomet_metric":
        raise ValueError(f"COMET: decoding_threshold applies to XCOMET's error spans; {comet.folder.name} is a "
                         f"{comet.kind}, which has none. Leave decoding_threshold out.")
    if sources is None and (comet.requires_sources or references is None):
        raise ValueError("COMET needs sources: the source sentences the predictions translate, one per prediction "
                         "(sources=[...]; --sources FILE on the command line). Only XCOMET and unified models with "
                         "references among their inputs score from references alone.")
    refs = None
    if references is not None:
        if comet.reads_references:
            refs = _single_references(references, len(predictions))
        else:
            check_references(references, len(predictions))
            warnings.warn(f"COMET model {comet.folder.name} is reference-free (quality estimation): the references "
                          "are not used. Leave them out.", UserWarning, stacklevel=2)
    elif comet.requires_references:
        raise ValueError(f"COMET model {comet.folder.name} needs references (one per prediction); only the "
                         "reference-free models (e.g. Unbabel/wmt22-cometkiwi-da) score without them.")
    scores, cut, spans = comet.score(sources, predictions, refs, batch_size=batch_size, progress=progress_bar,
                                     distributed=distributed, context=enable_context,
                                     decoding_threshold=decoding_threshold)
    if cut:
        warnings.warn(f"COMET: {cut} text(s) longer than the encoder takes ({comet.max_positions - 2} tokens) were "
                      "truncated, as unbabel-comet truncates them.", UserWarning, stacklevel=2)
    bad = [i for i, s in enumerate(scores) if not np.isfinite(s)]
    if bad:
        raise ValueError(f"COMET gave a non-finite score for segment {bad[0]} ({len(bad)} in all): the checkpoint's "
                         "weights are broken or the precision overflowed; use dtype=None and precision='float32'.")
    result: dict[str, Any] = {"mean_score": float(np.mean(scores)), "scores": scores}
    if spans is not None:
        result["error_spans"] = spans
    result["signature"] = signature(comet, str(model), refs is not None, sources is not None, enable_context,
                                    decoding_threshold, n_bootstrap, DEFAULT_SEED if seed is None else seed)
    if n_bootstrap:
        from nlgmetrics.stats import bootstrap_indices, sacrebleu_interval

        indices = bootstrap_indices(len(scores), n_bootstrap, DEFAULT_SEED if seed is None else seed)
        interval = sacrebleu_interval(np.asarray(scores)[indices].mean(axis=1))
        result.update(mean_score_mean=interval["mean"], mean_score_ci=interval["ci"],
                      mean_score_ci_low=interval["low"], mean_score_ci_high=interval["high"])
    return result


def signature(comet: Comet, name: str, with_references: bool, with_sources: bool, context: bool,
              threshold: float | None, n_bootstrap: int | None = None, seed: int | None = None) -> str:
    """How the scores were computed (:mod:`nlgmetrics.signature`), e.g. ``model:wmt22-comet-da|weights:3f2a9c01b7de|
    dtype:float32|torch:...|transformers:...|precision:float32|refs:yes|src:yes|nlgmetrics-comet:3|version:...``
    (``name``: the model as given; ``weights``: the digest of ``checkpoints/model.ckpt``; ``context:yes`` with
    ``enable_context``; XCOMET's ``threshold``; ``bs``/``seed`` of an interval)."""
    from nlgmetrics.signature import bootstrap_parts, build, model_parts

    parts = [*model_parts(name, comet.folder / CKPT, comet.autocast_dtype), ("precision", comet.precision),
             ("refs", with_references), ("src", with_sources)]
    if context:
        parts.append(("context", True))
    if comet.kind == "xcomet_metric":
        parts.append(("threshold", "argmax" if not threshold else float(threshold)))
    return build([*parts, ("nlgmetrics-comet", VERSION), *bootstrap_parts(n_bootstrap, seed)])


def with_context(texts: Sequence[str], documents: Sequence[Any], window: int = 2, separator: str = "</s>"
                 ) -> list[str]:
    """unbabel-comet's context input (DocCOMET, Vernikos et al., 2022): each text preceded by up to ``window``
    previous texts of the same document (``documents``: one id per text, texts of a document consecutive), joined
    by ``" " + separator + " "``, e.g. ``"Sie sind da. </s> Sie sehen gut aus."``. ``separator`` is the encoder
    tokenizer's separator token (XLM-R's ``</s>``). Score the result with ``enable_context=True``; apply it to
    sources, translations and references alike."""
    if len(texts) != len(documents):
        raise ValueError(f"with_context: got {len(texts)} texts but {len(documents)} document ids; pass one id per "
                         "text.")
    window = check_int("window", window, 0, 10_000, "previous sentences of context")
    out, start = [], 0
    for i, document in enumerate(documents):
        if i and document != documents[i - 1]:
            start = i
        out.append(f" {separator} ".join([*texts[max(start, i - window): i], texts[i]]))
    return out
