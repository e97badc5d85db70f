"""The embedding engine: one loaded encoder per (model, device, dtype, tokenizer kind) per process.

``Encoder.embed(texts, layer)`` returns each text's contextual token embeddings at hidden layer ``layer``::

    ids(t)  = tokenizer(t.strip(), add_special_tokens=True)      # bert_score's sent_encode, no truncation
    E(t, k) = hidden_states[k] over ids(t)                        # k = 0: embedding output; k = L: last layer

Layer ``k`` is computed as bert_score does: the model's layer stack is cut to its first ``k`` blocks and the output
read from ``last_hidden_state`` (no wasted blocks above ``k``).

Steps: cache lookup -> deduplicate the misses -> tokenize -> split long texts into windows -> sort by token length ->
batches of ``batch_size`` (:func:`plan_batches`) -> :func:`forward_batch` (a pure function of ids, model and layer, so
it can be sharded across processes) -> reassemble -> cache. A batch that runs the device out of memory is retried at
half the size, for the rest of the call (:mod:`nlgmetrics.embed.oom`: one warning per halving; the same scores).

Forward: BERT-family models (BERT, RoBERTa, XLM-R, CamemBERT, ELECTRA; MiniLM is a BERT) run padding-free
(:mod:`nlgmetrics.embed.packed`: no compute on pad tokens, ~1.2x faster on CPU) once a probe batch at load time shows it
gives the padded forward's hidden states; ``Encoder.packed`` says which path a model takes (set it to ``False`` to
force the padded forward). Other models run the standard padded forward.

Long texts (more than ``max_len`` tokens, 512 for BERT): with ``long_text="window"`` (default) the content tokens are
covered by windows of ``W = max_len - n_special`` tokens overlapping by half (stride ``W // 2``, the last window
aligned to the end), each wrapped in the model's special tokens; every token takes its embedding from the window
where it has the most context on its poorer side, ``max_w min(j - start_w, end_w - 1 - j)`` (text edges count as
unlimited context). Every token of the text is embedded; nothing is dropped. ``long_text="truncate"`` keeps the first
``max_len`` tokens (special tokens kept), as bert_score does.

Text: lone surrogate code points (invalid Unicode no tokenizer accepts) are replaced by U+FFFD before tokenization,
with a warning (:func:`nlgmetrics.inputs.replace_lone_surrogates`); the cache keys the text as given.

Device: ``device=None`` picks CUDA when available, else CPU; ``"cuda"`` (or ``"mps"``) where it is not available is a
``ValueError`` saying so. ``dtype``: ``None``/``"float32"`` (default, needed for
bert_score parity), or ``"bfloat16"``/``"float16"``: autocast on CUDA (the weights stay fp32; results are returned as
float32). Half precision on CPU is not used (a warning says so) because CPU autocast is slower than fp32 there.
"""

from __future__ import annotations

import hashlib
import os
import threading
import warnings
from collections.abc import Callable, Iterable, Sequence
from contextlib import contextmanager, nullcontext
from contextvars import ContextVar
from pathlib import Path
from typing import Any

import torch

from nlgmetrics._quiet import model_loading
from nlgmetrics.embed.cache import EmbeddingCache, EntrySpec, TokenEmbeddings, get_cache
from nlgmetrics.embed.oom import halving_batches
from nlgmetrics.embed.packed import can_pack, packed_hidden_states
from nlgmetrics.errors import OptionError, OptionTypeError
from nlgmetrics.inputs import replace_lone_surrogates
from nlgmetrics.resources import missing_model_error, resolve_model

ENGINE_VERSION = "1"
LONG_TEXT_MODES = ("window", "truncate")
_DTYPES = {
    None: None, "float32": None, "fp32": None, "32": None,
    "bfloat16": torch.bfloat16, "bf16": torch.bfloat16,
    "float16": torch.float16, "fp16": torch.float16, "half": torch.float16, "16": torch.float16,
}
#: what to do when one sequence per forward does not fit the device (see :mod:`nlgmetrics.embed.oom`)
_OOM_FIX = ("free the GPU memory other processes hold, use half precision (dtype='bfloat16'), a smaller model, or the "
            "CPU (device='cpu')")
_ROBERTA_LIKE_POSITIONS = ("roberta", "xlm-roberta", "camembert", "longformer", "bertweet", "data2vec-text")


def pick_device(device: str | torch.device | None) -> torch.device:
    """``None``/``"auto"``: CUDA when available, else CPU; anything else as given, once it is checked to exist here
    (``ValueError`` naming the fix otherwise)."""
    if device is None or device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        chosen = torch.device(device)
    except (RuntimeError, TypeError) as exc:
        raise OptionError(f"device {device!r} is not a torch device ({exc}); pass 'cpu', 'cuda', 'cuda:1', ... or "
                         "None (CUDA when available, else CPU).") from None
    if chosen.type == "cuda":
        if not torch.cuda.is_available():
            why = "this torch was built without CUDA" if torch.version.cuda is None else "no CUDA GPU is visible"
            raise OptionError(f"device={device!r} but CUDA is not available ({why}): pass device='cpu', or "
                             "device=None to use CUDA only when there is a GPU.")
        if chosen.index is not None and chosen.index >= torch.cuda.device_count():
            raise OptionError(f"device={device!r} but only {torch.cuda.device_count()} CUDA device(s) are visible: "
                             f"pass an index from 0 to {torch.cuda.device_count() - 1}.")
    elif chosen.type == "mps" and not (getattr(torch.backends, "mps", None) and torch.backends.mps.is_available()):
        raise OptionError(f"device={device!r} but MPS is not available here: pass device='cpu' or device=None.")
    return chosen


def check_batch_size(batch_size: object) -> int:
    """``batch_size`` if it is a positive integer, else a ``ValueError``."""
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise OptionError(f"batch_size must be a positive integer (sequences per forward pass), got {batch_size!r}.")
    return batch_size


def _dtype_name(dtype: torch.dtype | None) -> str:
    return "float32" if dtype is None else str(dtype).replace("torch.", "")


def _folder_identity(folder: str) -> str:
    """A content hash of a local model folder: names and sizes of all files, small files whole, large ones by their
    first and last MiB (weights differ there when they differ at all in practice; fast for GB-size checkpoints)."""
    digest = hashlib.sha256()
    root = Path(folder)
    for path in sorted(p for p in root.rglob("*") if p.is_file() and ".git" not in p.parts):
        size = path.stat().st_size
        digest.update(f"{path.relative_to(root).as_posix()}\0{size}\0".encode())
        with open(path, "rb") as handle:
            if size <= 4 * 2**20:
                digest.update(handle.read())
            else:
                digest.update(handle.read(2**20))
                handle.seek(size - 2**20)
                digest.update(handle.read(2**20))
    return digest.hexdigest()[:20]


def _find_layer_stack(model: torch.nn.Module) -> tuple[object, str] | None:
    """The (owner, attribute) of the model's ModuleList of blocks, where cutting it gives bert_score's layer k."""
    candidates = [
        (getattr(model, "encoder", None), "layer"),  # bert, roberta, electra, deberta, ...
        (getattr(model, "encoder", None), "block"),  # t5 encoder
        (getattr(model, "transformer", None), "layer"),  # distilbert
        (model, "layers"),  # bart / mbart / pegasus encoders
        (model, "layer"),  # xlnet
    ]
    if hasattr(getattr(model, "encoder", None), "albert_layer_groups"):
        return None  # shared layers: read hidden_states instead
    for owner, attr in candidates:
        if owner is not None and isinstance(getattr(owner, attr, None), torch.nn.ModuleList):
            return owner, attr
    return None


def plan_batches(lengths: Sequence[int], batch_size: int) -> list[list[int]]:
    """Indices of the sequences per batch: ``batch_size`` consecutive sequences of the length-sorted order, longest
    first (a padded batch is padded only to its own longest sequence; a packed one has no padding at all)."""
    order = sorted(range(len(lengths)), key=lambda k: -lengths[k])
    return [order[b : b + batch_size] for b in range(0, len(order), batch_size)]



def without_stored_state(tokenizer: Any) -> Any:
    """The one rule for every tokenizer loaded from a checkpoint or model folder (BERTScore/MoverScore encoders, BLEURT,
    MetricX, COMET): padding and truncation stored in its ``tokenizer.json`` are cleared, so a text's ids never
    depend on the batch it is encoded with nor on a length saved with the file. (bleurt-pytorch's converter saves
    ``"padding": {"strategy": "BatchLongest"}`` after its check call; encoded with that state, every text of a batch
    is padded to the longest one and ``[PAD]`` ids land inside the pair.) Each metric pads and truncates itself, as
    its reference package does. ``tokenizer``: a ``tokenizers.Tokenizer`` or a transformers tokenizer (a fast one's
    backend is cleared; a slow one stores no such state); returned, cleared in place."""
    from tokenizers import Tokenizer

    backend = tokenizer if isinstance(tokenizer, Tokenizer) else getattr(tokenizer, "backend_tokenizer", None)
    if isinstance(backend, Tokenizer):
        if backend.padding is not None:
            backend.no_padding()
        if backend.truncation is not None:
            backend.no_truncation()
    return tokenizer


def tokenizer_from_file(path: str | os.PathLike) -> Any:
    """A ``tokenizers.Tokenizer`` read from a ``tokenizer.json``, under :func:`without_stored_state`'s rule."""
    from tokenizers import Tokenizer

    return without_stored_state(Tokenizer.from_file(str(path)))


def pad_batch(batch: Sequence[Sequence[int]], pad_id: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Token-id sequences as a right-padded ``(len(batch), longest)`` id matrix and its 0/1 attention mask (CPU)."""
    width = max(len(ids) for ids in batch)
    input_ids = torch.full((len(batch), width), pad_id, dtype=torch.long)
    mask = torch.zeros((len(batch), width), dtype=torch.long)
    for row, ids in enumerate(batch):
        input_ids[row, : len(ids)] = torch.as_tensor(ids, dtype=torch.long)
        mask[row, : len(ids)] = 1
    return input_ids, mask


def forward_batch(
    model: torch.nn.Module,
    batch: Sequence[Sequence[int]],
    layer: int | None,
    *,
    pad_id: int,
    device: torch.device,
    autocast_dtype: torch.dtype | None = None,
    stack: tuple[object, str] | None = None,
    packed: bool = False,
) -> list[torch.Tensor]:
    """Hidden states of one batch of token-id sequences: float32 CPU tensors ``(len(ids), hidden)`` (``layer=None``:
    all layers, ``(len(ids), L + 1, hidden)``). Pure in (ids, model, layer); the caller holds the model lock and has
    cut the layer stack to ``layer`` blocks when ``stack`` is given. ``packed``: the padding-free forward of
    :mod:`nlgmetrics.embed.packed` (BERT-family models only)."""
    lengths = [len(ids) for ids in batch]
    autocast = (
        torch.autocast(device_type=device.type, dtype=autocast_dtype)
        if autocast_dtype is not None and device.type == "cuda"
        else nullcontext()
    )
    if packed:
        with torch.inference_mode(), autocast:
            hidden = packed_hidden_states(model, batch, layer, device)
        return list(hidden.float().cpu().split(lengths))
    uniform = min(lengths) == max(lengths)  # no padding: no mask, so SDPA can take its fused kernels
    input_ids, mask = pad_batch(batch, pad_id)
    input_ids = input_ids.to(device)
    mask = None if uniform else mask.to(device)
    with torch.inference_mode(), autocast:
        if layer is None:
            out = model(input_ids=input_ids, attention_mask=mask, output_hidden_states=True)
            hidden = torch.stack(out.hidden_states, dim=2)
        elif stack is None:
            out = model(input_ids=input_ids, attention_mask=mask, output_hidden_states=True)
            hidden = out.hidden_states[layer]
        else:
            hidden = model(input_ids=input_ids, attention_mask=mask)[0]
    hidden = hidden.float().cpu()
    return [hidden[row, :n] for row, n in enumerate(lengths)]


def packing_matches(
    model: torch.nn.Module, probe: Sequence[Sequence[int]], *, pad_id: int, device: torch.device, tol: float = 1e-4
) -> bool:
    """Whether :func:`forward_batch`'s packed path gives its padded path's hidden states (every layer) on ``probe``."""
    padded = forward_batch(model, probe, None, pad_id=pad_id, device=device)
    try:
        packed = forward_batch(model, probe, None, pad_id=pad_id, device=device, packed=True)
    except Exception:  # noqa: BLE001 - an unexpected layout: use the padded forward
        return False
    return all(p.shape == q.shape and torch.allclose(p, q, atol=tol, rtol=0) for p, q in zip(packed, padded))


#: Set by :func:`nlgmetrics.embed.distributed.sharded_encoding`: called as ``hook(encoder, missing, layer,
#: batch_size=..., long_text=..., progress=...)`` by every :meth:`Encoder.embed` (even with no text missing, since
#: sharding is collective), it returns ``(text, embeddings)`` pairs computed across processes, or None to decline
#: (the missing texts are then encoded here). The engine itself knows nothing of torch.distributed.
MISSING_TEXTS_HOOK: ContextVar[Callable[..., Iterable[tuple[str, TokenEmbeddings]] | None] | None] = ContextVar(
    "nlgmetrics_missing_texts_hook", default=None
)


class Encoder:
    """A tokenizer and model loaded once; see the module docstring for the semantics of :meth:`embed`."""

    def __init__(
        self,
        model_type: str,
        *,
        device: str | torch.device | None = None,
        dtype: str | None = None,
        use_fast_tokenizer: bool = False,
        cache: EmbeddingCache | None = None,
    ) -> None:
        from transformers import AutoConfig, AutoModel, AutoTokenizer

        if dtype not in _DTYPES:
            raise OptionError(f"dtype must be one of float32, bfloat16, float16 (or None), got {dtype!r}.")
        self.name = model_type
        self.path = resolve_model(model_type)
        #: the folder the weights were read from (a hub id's snapshot in the local cache): what signatures digest
        self.folder = self.path if os.path.isdir(self.path) else None
        self.device = pick_device(device)
        self.autocast_dtype = _DTYPES[dtype]
        if self.autocast_dtype is not None and self.device.type != "cuda":
            warnings.warn(
                f"dtype={dtype!r} applies on CUDA only; computing in float32 on {self.device}.", UserWarning, stacklevel=3
            )
            self.autocast_dtype = None
        self.use_fast_tokenizer = bool(use_fast_tokenizer)
        self._cache = cache
        local = os.path.isdir(self.path)
        try:
            with model_loading():  # no load bars or messages inside the CLI's and the demo's quiet_third_party()
                self.tokenizer = without_stored_state(
                    AutoTokenizer.from_pretrained(self.path, use_fast=self.use_fast_tokenizer))
                config = AutoConfig.from_pretrained(self.path)
                if "t5" in config.model_type:
                    from transformers import T5EncoderModel

                    model = T5EncoderModel.from_pretrained(self.path, dtype=torch.float32)
                else:
                    model = AutoModel.from_pretrained(self.path, dtype=torch.float32)
        except (OSError, ValueError) as exc:
            if local:
                raise
            raise missing_model_error(model_type, exc) from exc
        if self.folder is None:  # a hub id: the snapshot transformers read it from
            from nlgmetrics.signature import model_folder

            self.folder = model_folder(self.path)
        model.eval()
        if hasattr(model, "decoder") and hasattr(model, "encoder"):
            model = model.encoder
        if getattr(model, "pooler", None) is not None:
            model.pooler = None  # unused by any embedding metric; saves a dense layer per batch
        self.model = model.to(self.device)
        self.config = config
        self._stack = _find_layer_stack(self.model)
        if self._stack is not None:
            owner, attr = self._stack
            self._blocks = getattr(owner, attr)
            self.num_hidden_layers = len(self._blocks)
        else:
            self._blocks = None
            self.num_hidden_layers = int(config.num_hidden_layers)
        self._lock = threading.RLock()

        # tokenization as bert_score's sent_encode (prefix space for GPT-2/RoBERTa tokenizers)
        from transformers import GPT2Tokenizer, RobertaTokenizer

        self.add_prefix_space = isinstance(self.tokenizer, (GPT2Tokenizer, RobertaTokenizer))
        try:
            self._empty_ids = list(self.tokenizer.build_inputs_with_special_tokens([]))
        except (AttributeError, NotImplementedError):
            self._empty_ids = list(self.tokenizer("", add_special_tokens=True)["input_ids"])
        self.prefix_ids, self.suffix_ids = self._special_layout()
        self.max_len = self._max_length()
        pad = self.tokenizer.pad_token_id
        self.pad_id = int(pad) if pad is not None else 0
        hidden = getattr(config, "hidden_size", None)
        self.hidden_size = int(hidden) if isinstance(hidden, int) else None
        # padding-free forward for BERT-family models, once it reproduces the padded forward on a probe batch
        probe = self.token_ids(["Hello world.", "A cat sat on the mat!", "An emoji: \U0001F600", "Hello there."])
        self.packed = can_pack(self.model) and packing_matches(
            self.model, probe, pad_id=self.pad_id, device=self.device)

        revision = getattr(config, "_commit_hash", None)
        self.model_id = (
            f"local:{_folder_identity(self.path)}" if local else f"hub:{model_type}@{revision or 'unknown-revision'}"
        )
        lower = getattr(self.tokenizer, "do_lower_case", None)
        self.tokenizer_settings = (
            f"{type(self.tokenizer).__name__}|fast={self.use_fast_tokenizer}|prefix_space={self.add_prefix_space}"
            f"|lower={lower}|max_len={self.max_len}|strip=1"
        )

    # -- tokenization ---------------------------------------------------------------------------------------------
    def _special_layout(self) -> tuple[list[int], list[int]]:
        probe = "hello world"
        kwargs = {"add_prefix_space": True} if self.add_prefix_space else {}
        full = list(self.tokenizer.encode(probe, add_special_tokens=True, **kwargs))
        plain = list(self.tokenizer.encode(probe, add_special_tokens=False, **kwargs))
        for start in range(len(full) - len(plain) + 1):
            if full[start : start + len(plain)] == plain:
                return full[:start], full[start + len(plain) :]
        return [], []

    def _max_length(self) -> int:
        limits = []
        tok_max = getattr(self.tokenizer, "model_max_length", None)
        if isinstance(tok_max, int) and 0 < tok_max < 100_000:
            limits.append(tok_max)
        positions = getattr(self.config, "max_position_embeddings", None)
        if isinstance(positions, int) and positions > 0 and getattr(self.config, "position_embedding_type", "absolute") == "absolute":
            if getattr(self.config, "model_type", "") in _ROBERTA_LIKE_POSITIONS:
                positions -= (getattr(self.config, "pad_token_id", 1) or 1) + 1
            limits.append(positions)
        return min(limits) if limits else 512

    def token_ids(self, texts: Sequence[str]) -> list[list[int]]:
        """Token ids with special tokens, as bert_score's ``sent_encode`` but never truncated."""
        texts = replace_lone_surrogates(texts, "embedding engine")
        out: list[list[int] | None] = [None] * len(texts)
        todo: list[int] = []
        for i, text in enumerate(texts):
            if not text.strip():
                out[i] = list(self._empty_ids)
            else:
                todo.append(i)
        if todo:
            stripped = [texts[i].strip() for i in todo]
            if self.add_prefix_space:
                encoded = [self.tokenizer.encode(s, add_special_tokens=True, add_prefix_space=True) for s in stripped]
            else:
                encoded = self.tokenizer(stripped, add_special_tokens=True, verbose=False)["input_ids"]
            for i, ids in zip(todo, encoded):
                out[i] = list(ids)
        return out  # type: ignore[return-value]

    def namespace(self, layer: int | None, long_text: str) -> str:
        """The cache namespace: everything besides the text that determines the embeddings."""
        layer_name = "all" if layer is None else str(layer)
        return (
            f"engine={ENGINE_VERSION}|model={self.model_id}|layer={layer_name}|{self.tokenizer_settings}"
            f"|long={long_text}|dtype={_dtype_name(self.autocast_dtype)}"
        )

    def entry_spec(self, layer: int | None, long_text: str, text: str) -> EntrySpec | None:
        """What a cached entry of ``text`` must look like (checked on entries read from disk)."""
        if self.hidden_size is None:
            return None
        rows = (self.hidden_size,) if layer is not None else (self.num_hidden_layers + 1, self.hidden_size)
        # a loose bound on the token count: tokenizers give at most ~2 tokens per UTF-8 byte, NFKC expands a
        # character to at most 18; specials come on top
        bound = 16 * len(text.encode("utf-8", "surrogatepass")) + 64
        max_tokens = min(bound, self.max_len) if long_text == "truncate" else bound
        return EntrySpec(rows, len(self.tokenizer), max_tokens)

    # -- long texts -----------------------------------------------------------------------------------------------
    def _pieces(self, ids: list[int], long_text: str) -> list[list[int]]:
        """The sequences to run for one text: itself, its truncation, or its windows."""
        if len(ids) <= self.max_len:
            return [ids]
        n_pre, n_suf = len(self.prefix_ids), len(self.suffix_ids)
        prefix, content, suffix = ids[:n_pre], ids[n_pre : len(ids) - n_suf], ids[len(ids) - n_suf :]
        width = self.max_len - n_pre - n_suf
        if long_text == "truncate":
            return [prefix + content[:width] + suffix]
        return [prefix + content[s : s + width] + suffix for s in self._window_starts(len(content), width)]

    @staticmethod
    def _window_starts(n: int, width: int) -> list[int]:
        stride = max(width // 2, 1)
        starts = list(range(0, max(n - width, 0), stride))
        starts.append(max(n - width, 0))
        return starts

    def _stitch(self, ids: list[int], outputs: list[torch.Tensor], long_text: str) -> torch.Tensor:
        if len(outputs) == 1 and (len(ids) <= self.max_len or long_text == "truncate"):
            return outputs[0]
        n_pre, n_suf = len(self.prefix_ids), len(self.suffix_ids)
        n = len(ids) - n_pre - n_suf
        width = self.max_len - n_pre - n_suf
        starts = self._window_starts(n, width)
        positions = torch.arange(n)
        best = torch.full((n,), -1, dtype=torch.long)
        best_score = torch.full((n,), -1.0)
        for w, start in enumerate(starts):
            end = min(start + width, n)
            inside = (positions >= start) & (positions < end)
            left = (positions - start).float() if start > 0 else torch.full((n,), float("inf"))
            right = (end - 1 - positions).float() if end < n else torch.full((n,), float("inf"))
            score = torch.where(inside, torch.minimum(left, right), torch.tensor(-1.0))
            better = score > best_score
            best = torch.where(better, torch.tensor(w), best)
            best_score = torch.where(better, score, best_score)
        rest = outputs[0].shape[1:]
        content = torch.empty((n, *rest), dtype=outputs[0].dtype)
        for w, start in enumerate(starts):
            rows = (best == w).nonzero(as_tuple=True)[0]
            if len(rows):
                content[rows] = outputs[w][n_pre + rows - start]
        return torch.cat([outputs[0][:n_pre], content, outputs[-1][outputs[-1].shape[0] - n_suf :]], dim=0)

    # -- embedding ------------------------------------------------------------------------------------------------
    @contextmanager
    def _cut_to(self, layer: int | None):
        """Temporarily keep only the first ``layer`` blocks (bert_score's ``num_layers``)."""
        if layer is None or self._stack is None or layer == self.num_hidden_layers:
            yield
            return
        owner, attr = self._stack
        setattr(owner, attr, torch.nn.ModuleList(list(self._blocks)[:layer]))
        try:
            yield
        finally:
            setattr(owner, attr, self._blocks)

    def _check_layer(self, layer: int | None) -> None:
        if layer is None:
            return
        if isinstance(layer, bool) or not isinstance(layer, int) or not 0 <= layer <= self.num_hidden_layers:
            raise OptionError(
                f"layer must be an integer from 0 (embedding output) to {self.num_hidden_layers} (last layer) for "
                f"{self.name!r}, got {layer!r}."
            )

    def compute(
        self,
        texts: Sequence[str],
        layer: int | None,
        *,
        batch_size: int = 64,
        long_text: str = "window",
        progress: bool = False,
    ) -> list[TokenEmbeddings]:
        """Embed ``texts`` (no cache): tokenize, window, sort by length, batch, forward, stitch."""
        self._check_layer(layer)
        if long_text not in LONG_TEXT_MODES:
            raise OptionError(f"long_text must be one of {LONG_TEXT_MODES}, got {long_text!r}.")
        check_batch_size(batch_size)
        all_ids = self.token_ids(texts)
        pieces: list[tuple[int, int, list[int]]] = []  # (text index, piece index, ids)
        counts = []
        for i, ids in enumerate(all_ids):
            parts = self._pieces(ids, long_text)
            if long_text == "truncate":
                all_ids[i] = parts[0]
            counts.append(len(parts))
            pieces.extend((i, p, part) for p, part in enumerate(parts))
        outputs: list[list[torch.Tensor | None]] = [[None] * c for c in counts]

        def forward(batch: list[int]) -> list[torch.Tensor]:
            return forward_batch(
                self.model, [pieces[k][2] for k in batch], layer, pad_id=self.pad_id, device=self.device,
                autocast_dtype=self.autocast_dtype, stack=self._stack, packed=self.packed,
            )

        with self._lock, self._cut_to(layer):
            for batch, hidden in halving_batches(
                [len(p[2]) for p in pieces], batch_size, forward, device=self.device, what=f"encoder {self.name!r}",
                fix=_OOM_FIX, progress=f"embedding ({self.device.type})" if progress else None,
            ):
                for k, h in zip(batch, hidden):
                    text_index, piece_index, _ = pieces[k]
                    outputs[text_index][piece_index] = h
        result = []
        for ids, outs in zip(all_ids, outputs):
            emb = self._stitch(ids, outs, long_text).clone()  # own storage: a row view would pin its whole batch
            result.append(TokenEmbeddings(ids, emb))
        return result

    def embed(
        self,
        texts: Sequence[str],
        layer: int | None,
        *,
        batch_size: int = 64,
        long_text: str = "window",
        progress: bool = False,
        copy: bool = True,
    ) -> list[TokenEmbeddings]:
        """One :class:`TokenEmbeddings` per text, in order, through the shared :class:`EmbeddingCache`.

        ``layer``: 0 (embedding output) .. ``num_hidden_layers`` (last), as bert_score's ``num_layers``; ``None``:
        every layer, embeddings shaped ``(n_tokens, L + 1, hidden)``. ``copy=False`` returns the cached tensors
        themselves (faster; do not modify them in place).
        """
        self._check_layer(layer)
        check_batch_size(batch_size)
        if long_text not in LONG_TEXT_MODES:
            raise OptionError(f"long_text must be one of {LONG_TEXT_MODES}, got {long_text!r}.")
        if isinstance(texts, str):
            raise OptionTypeError("texts must be a sequence of strings, not one string: wrap it in a list.")
        cache = self._cache if self._cache is not None else get_cache()
        namespace = self.namespace(layer, long_text)
        found: dict[str, TokenEmbeddings] = {}
        missing: list[str] = []
        for text in texts:
            if not isinstance(text, str):
                raise OptionTypeError(f"texts must be strings, got {type(text).__name__}.")
            if text in found:
                continue
            entry = cache.get(namespace, text, self.entry_spec(layer, long_text, text))
            if entry is None:
                found[text] = None  # type: ignore[assignment]
                missing.append(text)
            else:
                found[text] = entry
        hook = MISSING_TEXTS_HOOK.get()
        if missing or hook is not None:
            options = {"batch_size": batch_size, "long_text": long_text, "progress": progress}
            computed = hook(self, missing, layer, **options) if hook is not None else None
            if computed is None:
                computed = zip(missing, self.compute(missing, layer, **options)) if missing else ()
            for text, entry in computed:
                cache.put(namespace, text, entry)
                found[text] = entry
        out = [found[text] for text in texts]
        if copy:
            out = [TokenEmbeddings(list(e.input_ids), e.embeddings.clone()) for e in out]
        return out

    def __repr__(self) -> str:
        return f"Encoder({self.name!r}, device={self.device}, dtype={_dtype_name(self.autocast_dtype)}, id={self.model_id})"


_ENCODERS: dict[tuple, Encoder] = {}
_ENCODERS_LOCK = threading.Lock()


def get_encoder(
    model_type: str,
    *,
    device: str | None = None,
    dtype: str | None = None,
    use_fast_tokenizer: bool = False,
) -> Encoder:
    """The process-wide :class:`Encoder` for (resolved model, device, dtype, tokenizer kind), loaded on first use.

    ``model_type`` is a hub id or local folder (the bundled MiniLM id and aliases resolve to its installed folder);
    offline and not available locally, it raises :func:`nlgmetrics.resources.missing_model_error`.
    """
    if dtype not in _DTYPES:
        raise OptionError(f"dtype must be one of float32, bfloat16, float16 (or None), got {dtype!r}.")
    path = resolve_model(model_type)
    resolved_device = pick_device(device)
    key = (path, str(resolved_device), _dtype_name(_DTYPES[dtype]), bool(use_fast_tokenizer))
    with _ENCODERS_LOCK:
        encoder = _ENCODERS.get(key)
        if encoder is None:
            encoder = Encoder(model_type, device=resolved_device, dtype=dtype, use_fast_tokenizer=use_fast_tokenizer)
            _ENCODERS[key] = encoder
        return encoder


def clear_encoders() -> None:
    """Forget the loaded encoders (frees their memory once no one else holds them)."""
    with _ENCODERS_LOCK:
        _ENCODERS.clear()
