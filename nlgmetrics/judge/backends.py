"""Judge backends: what is asked (:class:`Request`), what comes back (:class:`Answer`), and the in-process
``transformers`` backend. The OpenAI-compatible backend is :mod:`nlgmetrics.judge.openai_backend`.

A backend answers a list of requests and reports each answer through a callback as soon as it has it (the caller
commits it to the cache), in any order.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nlgmetrics._digest import folder_revision
from nlgmetrics.errors import CheckpointError, OptionError


@dataclass(frozen=True)
class Request:
    """One judgment to make: the chat ``messages`` and the answer ``labels`` whose probabilities are wanted."""

    messages: tuple[tuple[tuple[str, str], ...], ...]
    labels: tuple[str, ...]

    @classmethod
    def of(cls, messages: list[dict[str, str]], labels: Sequence[str]) -> Request:
        return cls(tuple(tuple(sorted(m.items())) for m in messages), tuple(labels))

    def as_messages(self) -> list[dict[str, str]]:
        return [dict(m) for m in self.messages]


@dataclass
class Answer:
    """A judge's answer: its text, the probabilities of the request's labels (``None`` when the backend has none),
    the model and fingerprint that answered, and token counts."""

    text: str
    probs: dict[str, float] | None = None
    model: str = ""
    fingerprint: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> str:
        return json.dumps({"text": self.text, "probs": self.probs, "model": self.model,
                           "fingerprint": self.fingerprint, "prompt_tokens": self.prompt_tokens,
                           "completion_tokens": self.completion_tokens}, sort_keys=True)

    @classmethod
    def from_json(cls, data: str) -> Answer:
        return cls(**json.loads(data))


OnAnswer = Callable[[int, Answer], None]
#: the largest in-process batch a user may ask for
MAX_BATCH_SIZE = 4096


class JudgeBackend:
    """Base of the backends. ``identity()`` names what decides the answers (part of the signature; never a
    credential); ``key_identity()`` is what the cache key takes from the backend (default: the identity);
    ``payload()`` is the request as sent (model input and every sampling parameter, part of the cache key);
    ``run`` answers ``requests`` and calls ``on_answer(i, answer)`` for each, as it arrives."""

    name = ""

    def identity(self) -> dict[str, str]:
        raise NotImplementedError

    def key_identity(self) -> dict[str, str]:
        return self.identity()

    def payload(self, request: Request, *, max_tokens: int, weighting: str, temperature: float,
                seed: int | None) -> dict:
        """What decides this backend's answer to ``request`` (a backend that ignores a parameter leaves it out)."""
        return {"messages": request.as_messages(), "max_tokens": max_tokens, "temperature": temperature,
                "seed": seed, "logprobs": weighting == "geval"}

    def run(self, requests: Sequence[Request], on_answer: OnAnswer, *, max_tokens: int, weighting: str,
            temperature: float = 0.0, seed: int | None = 0, progress: bool = False) -> None:
        raise NotImplementedError

    def close(self) -> None:
        """Release what the backend holds (clients, threads)."""


class TransformersBackend(JudgeBackend):
    """An in-process causal LM (``AutoModelForCausalLM``): prompts through the tokenizer's chat template, batched
    with left padding; the answer's probabilities are read from the next-token distribution directly (softmax over
    the whole vocabulary, summed over every token that spells the label, e.g. ``"3"`` and ``"▁3"``): exact, no
    sampling. The answer text is the greedy continuation (``max_tokens`` tokens; one with G-Eval weighting).

    ``model``: a local folder or a hub id (online); ``revision``: the hub revision (a local folder's is derived from
    its files); ``device``: ``"cpu"``, ``"cuda"``, ... (default: CUDA when available); ``dtype``: ``None`` (float32),
    ``"float16"`` or ``"bfloat16"`` (CUDA).
    """

    name = "transformers"

    def __init__(self, model: str, *, revision: str | None = None, device: str | None = None,
                 dtype: str | None = None, batch_size: int = 8) -> None:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        from nlgmetrics.options import check_int

        batch_size = check_int("batch_size", batch_size, 1, MAX_BATCH_SIZE, "prompts per forward pass")
        local = Path(str(model)).is_dir()
        self.model_name = str(model)
        self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        torch_dtype = {None: torch.float32, "float32": torch.float32, "float16": torch.float16,
                       "bfloat16": torch.bfloat16}.get(dtype)
        if torch_dtype is None:
            raise OptionError(f"dtype must be None, 'float32', 'float16' or 'bfloat16', got {dtype!r}.")
        try:
            self.tokenizer = AutoTokenizer.from_pretrained(model, revision=revision)
            self.model = AutoModelForCausalLM.from_pretrained(model, revision=revision, dtype=torch_dtype)
        except OSError as exc:
            raise CheckpointError(
                f"cannot load the judge model {model!r} ({str(exc).splitlines()[0]}); pass a local folder holding a "
                f"causal LM and its tokenizer, or a hub id when online."
            ) from None
        if getattr(self.tokenizer, "chat_template", None) is None:
            raise CheckpointError(f"the tokenizer of {model!r} has no chat template; a judge needs a chat (instruct) model.")
        self.model.to(self.device).eval()
        self.tokenizer.padding_side = "left"
        if self.tokenizer.pad_token_id is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self.revision = revision or (folder_revision(model) if local else getattr(
            self.model.config, "_commit_hash", None) or "unknown")
        self.batch_size = batch_size
        self.dtype = str(torch_dtype).replace("torch.", "")
        self._label_ids: dict[tuple[str, ...], dict[str, list[int]]] = {}

    def identity(self) -> dict[str, str]:
        return {"backend": self.name, "model": self.model_name, "revision": self.revision, "dtype": self.dtype}

    def payload(self, request: Request, *, max_tokens: int, weighting: str, temperature: float,
                seed: int | None) -> dict:
        """Greedy and exact: temperature and seed do not change an in-process answer, so they are left out."""
        return {"messages": request.as_messages(), "max_tokens": max_tokens, "logprobs": weighting == "geval"}

    def label_token_ids(self, labels: tuple[str, ...]) -> dict[str, list[int]] | None:
        """Every vocabulary id whose token spells each label (a leading space marker ``Ġ``/``▁`` ignored); ``None``
        when some label is no single token (no G-Eval weighting is possible then)."""
        if labels not in self._label_ids:
            tokens = self.tokenizer.convert_ids_to_tokens(list(range(len(self.tokenizer))))
            found: dict[str, list[int]] = {label: [] for label in labels}
            for i, token in enumerate(tokens):
                key = (token or "").lstrip("Ġ▁ ")
                if key in found:
                    found[key].append(i)
            missing = [label for label, ids in found.items() if not ids]
            if missing:
                warnings.warn(
                    f"llm_judge: no single token of {self.model_name!r} spells the answer label(s) {missing}, so "
                    f"G-Eval weighting is not possible; the greedy answers are parsed instead.", stacklevel=3,
                )
            self._label_ids[labels] = None if missing else found
        return self._label_ids[labels]

    def _prompts(self, requests: Sequence[Request]) -> list[str]:
        return [self.tokenizer.apply_chat_template(r.as_messages(), add_generation_prompt=True, tokenize=False)
                for r in requests]

    def _encode(self, texts: Sequence[str]) -> dict:
        batch = self.tokenizer(list(texts), return_tensors="pt", padding=True, add_special_tokens=False)
        return {k: v.to(self.device) for k, v in batch.items() if k in ("input_ids", "attention_mask")}

    def max_positions(self) -> int | None:
        """The most positions the model reads (its config's ``max_position_embeddings``, or the like); None when it
        declares none."""
        config = self.model.config
        for name in ("max_position_embeddings", "n_positions", "max_sequence_length", "seq_length"):
            value = getattr(config, name, None)
            if isinstance(value, int) and value > 0:
                return value
        return None

    def check_lengths(self, lengths: Sequence[int], max_tokens: int) -> None:
        """A :class:`~nlgmetrics.errors.LimitError` when a prompt and its answer (``max_tokens``) do not fit the
        model's positions: refused before any forward, instead of a silently wrong judgment past them."""
        from nlgmetrics.errors import LimitError

        limit = self.max_positions()
        if limit is None or not lengths:
            return
        longest = max(range(len(lengths)), key=lambda k: lengths[k])
        if lengths[longest] + max_tokens > limit:
            over = sum(n + max_tokens > limit for n in lengths)
            raise LimitError(
                f"llm_judge: a prompt of {lengths[longest]} tokens plus max_tokens={max_tokens} answer tokens is more "
                f"than the {limit} positions {self.model_name!r} reads ({over} of {len(lengths)} prompts are too "
                "long); shorten the texts or the template, lower max_tokens, or use a judge with a longer context.")

    def run(self, requests: Sequence[Request], on_answer: OnAnswer, *, max_tokens: int, weighting: str,
            temperature: float = 0.0, seed: int | None = 0, progress: bool = False) -> None:
        """Greedy and exact: ``temperature`` and ``seed`` do not change an in-process answer. Every prompt is checked
        against the model's positions first (:meth:`check_lengths`); batches of similar lengths run through the OOM
        rule (:func:`nlgmetrics.embed.oom.halving_batches`: on a device out-of-memory error the batch halves)."""
        import torch

        from nlgmetrics.embed.oom import halving_batches

        texts = self._prompts(requests)
        lengths = [len(ids) for ids in self.tokenizer(texts, add_special_tokens=False)["input_ids"]]
        self.check_lengths(lengths, max_tokens)

        def forward(chunk: list[int]) -> list[Answer]:
            batch = self._encode([texts[i] for i in chunk])
            mask = batch["attention_mask"]
            positions = (mask.cumsum(-1) - 1).clamp(min=0)
            ids = [self.label_token_ids(requests[i].labels) for i in chunk] if weighting == "geval" else None
            generate = (ids is None or None in ids) and max_tokens > 1
            with torch.inference_mode():
                logprobs = torch.log_softmax(self.model(**batch, position_ids=positions).logits[:, -1].float(), -1)
                if generate:
                    generated = self.model.generate(**batch, max_new_tokens=max_tokens, do_sample=False,
                                                    pad_token_id=self.tokenizer.pad_token_id)
                    new_tokens = generated[:, batch["input_ids"].shape[1]:]
                else:
                    new_tokens = logprobs.argmax(-1, keepdim=True)
            prompt_lengths = mask.sum(-1).tolist()
            answers = []
            for row, i in enumerate(chunk):
                label_ids = ids[row] if ids is not None else None
                probs = None if label_ids is None else {
                    label: float(logprobs[row, label_ids[label]].exp().sum()) for label in requests[i].labels}
                tokens = [t for t in new_tokens[row].tolist() if t != self.tokenizer.pad_token_id]
                text = self.tokenizer.decode(tokens, skip_special_tokens=True)
                answers.append(Answer(text=text, probs=probs, model=self.model_name, fingerprint=self.revision,
                                      prompt_tokens=int(prompt_lengths[row]), completion_tokens=len(tokens)))
            return answers

        for chunk, answers in halving_batches(lengths, self.batch_size, forward, device=self.device,
                                              what="the judge model's forward",
                                              fix="use shorter texts or template, a smaller judge, or the CPU "
                                                  "(device='cpu')", progress="judging" if progress else None):
            for i, answer in zip(chunk, answers):
                on_answer(i, answer)
