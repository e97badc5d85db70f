"""The ``openai`` judge backend: any OpenAI-compatible server (vLLM, TGI, SGLang, llama.cpp, Ollama,
``transformers serve``, OpenAI) through the official ``openai`` client.

Chat completions at temperature 0 with a seed by default, asking for ``logprobs``/``top_logprobs``: the label
probabilities are read at the first answer position whose top tokens include a label (a token counts for a label
when its text, stripped of spaces, equals it). A server that returns no logprobs (``transformers serve`` ignores the
fields) gets one warning and its answers are parsed.

Up to ``max_concurrency`` requests are in flight (threads); a 429, 5xx, timeout or dropped connection is retried up
to ``max_retries`` times with exponential backoff (``backoff * 2**attempt`` seconds, or the server's
``Retry-After`` if longer, plus jitter, capped at 30 s);
other 4xx errors stop the run with the server's message. A server that cannot be reached is a ``JudgeServerError``
naming the URL.
"""

from __future__ import annotations

import math
import random
import threading
import time
import warnings
from collections.abc import Sequence
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait

from nlgmetrics.judge.backends import Answer, JudgeBackend, OnAnswer, Request


class JudgeServerError(ValueError):
    """The judge server could not be reached, or refused the requests (the message names the URL and the fix)."""


class OpenAIBackend(JudgeBackend):
    """Judgments from an OpenAI-compatible chat completions endpoint.

    ``model``: the served model name; ``base_url``: e.g. ``http://127.0.0.1:8000/v1`` (default: the client's,
    ``$OPENAI_BASE_URL`` or OpenAI); ``api_key``: default ``$OPENAI_API_KEY``, else ``"EMPTY"`` (local servers);
    ``timeout``: seconds per request; ``top_logprobs``: alternatives asked per position (OpenAI allows up to 20).
    """

    name = "openai"

    def __init__(self, model: str, *, base_url: str | None = None, api_key: str | None = None,
                 max_concurrency: int = 8, max_retries: int = 6, timeout: float = 60.0, top_logprobs: int = 20,
                 backoff: float = 0.5) -> None:
        try:
            import openai
        except ImportError:
            raise ImportError("the openai judge backend needs the openai client: pip install 'nlgmetrics[judge]'") \
                from None
        import os

        for name, value in (("max_concurrency", max_concurrency), ("max_retries", max_retries)):
            if isinstance(value, bool) or not isinstance(value, int) or value < (1 if name == "max_concurrency" else 0):
                raise ValueError(f"{name} must be a {'positive' if name == 'max_concurrency' else 'non-negative'} "
                                 f"integer, got {value!r}.")
        if isinstance(top_logprobs, bool) or not isinstance(top_logprobs, int) or not 0 <= top_logprobs <= 20:
            raise ValueError(f"top_logprobs must be an integer from 0 to 20 (OpenAI's limit), got {top_logprobs!r}.")
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
            raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}.")
        self._openai = openai
        self.model = model
        self.client = openai.OpenAI(base_url=base_url, api_key=api_key or os.environ.get("OPENAI_API_KEY") or "EMPTY",
                                    max_retries=0, timeout=timeout)
        self.base_url = str(self.client.base_url).rstrip("/")
        self.max_concurrency, self.max_retries, self.backoff = max_concurrency, max_retries, backoff
        self.top_logprobs = top_logprobs
        self.retries = 0  # requests sent again after a 429/5xx/timeout, over the backend's life
        self._no_logprobs_warned = False
        self._answered = threading.Event()  # the server has answered once (a later connection error may be a restart)

    def identity(self) -> dict[str, str]:
        return {"backend": self.name, "base_url": self.base_url, "model": self.model}

    def close(self) -> None:
        self.client.close()

    def _ask(self, request: Request, *, max_tokens: int, weighting: str, temperature: float,
             seed: int | None) -> Answer:
        openai = self._openai
        params = {"model": self.model, "messages": request.as_messages(), "max_tokens": max_tokens,
                  "temperature": temperature}
        if seed is not None:
            params["seed"] = seed
        if weighting == "geval" and self.top_logprobs:
            params.update(logprobs=True, top_logprobs=self.top_logprobs)
        attempt = 0
        while True:
            try:
                response = self.client.chat.completions.create(**params)
                break
            except (openai.RateLimitError, openai.InternalServerError, openai.APIConnectionError) as exc:
                refused = isinstance(exc, openai.APIConnectionError) and not isinstance(exc, openai.APITimeoutError)
                limit = self.max_retries if (self._answered.is_set() or not refused) else min(self.max_retries, 2)
                if attempt >= limit:
                    what = "cannot be reached" if isinstance(exc, openai.APIConnectionError) else "keeps failing"
                    raise JudgeServerError(
                        f"the judge server at {self.base_url} {what} ({_reason(exc)}) after {attempt + 1} attempts; "
                        f"start it, or fix base_url=. Judgments made so far are in the cache."
                    ) from None
                self.retries += 1
                wait_s = max(self.backoff * 2 ** attempt, _retry_after(exc))  # a server's Retry-After is honoured
                time.sleep(min(wait_s, 30.0) + random.uniform(0, self.backoff))
                attempt += 1
            except openai.APIStatusError as exc:
                raise JudgeServerError(
                    f"the judge server at {self.base_url} refused the request for model {self.model!r} "
                    f"(HTTP {exc.status_code}: {_reason(exc)}); check model= and api_key=."
                ) from None
        self._answered.set()
        choice = response.choices[0]
        probs = _label_probs(choice.logprobs, request.labels) if weighting == "geval" else None
        if weighting == "geval" and probs is None and not self._no_logprobs_warned:
            self._no_logprobs_warned = True
            warnings.warn(
                f"llm_judge: the server at {self.base_url} returned no token logprobs with the answer (transformers "
                f"serve, for one, ignores the logprobs fields); G-Eval weighting is not possible, so answers are "
                f"parsed as integers instead.", stacklevel=2,
            )
        usage = response.usage
        return Answer(
            text=choice.message.content or "", probs=probs, model=response.model or "",
            fingerprint=getattr(response, "system_fingerprint", None) or "",
            prompt_tokens=getattr(usage, "prompt_tokens", 0) or 0,
            completion_tokens=getattr(usage, "completion_tokens", 0) or 0,
        )

    def run(self, requests: Sequence[Request], on_answer: OnAnswer, *, max_tokens: int, weighting: str,
            temperature: float = 0.0, seed: int | None = 0, progress: bool = False) -> None:
        """Ask every request, at most ``max_concurrency`` at once; ``on_answer`` runs in the calling thread."""
        from tqdm.auto import tqdm

        bar = tqdm(total=len(requests), desc="judging", disable=not progress, unit="judgment")
        pending: dict = {}
        queue = iter(range(len(requests)))
        pool = ThreadPoolExecutor(self.max_concurrency, thread_name_prefix="llm-judge")
        try:
            while True:
                while len(pending) < self.max_concurrency:
                    j = next(queue, None)
                    if j is None:
                        break
                    future = pool.submit(self._ask, requests[j], max_tokens=max_tokens, weighting=weighting,
                                         temperature=temperature, seed=seed)
                    pending[future] = j
                if not pending:
                    break
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    j = pending.pop(future)
                    on_answer(j, future.result())
                    bar.update(1)
        finally:  # on an error, do not wait for requests still in flight (their answers are not needed)
            pool.shutdown(wait=not pending, cancel_futures=True)
            bar.close()


def _retry_after(exc: Exception) -> float:
    """Seconds from a ``Retry-After`` header of the failed response (0 without one, or for an HTTP date)."""
    response = getattr(exc, "response", None)
    try:
        return max(0.0, float(response.headers.get("retry-after", 0))) if response is not None else 0.0
    except (TypeError, ValueError):
        return 0.0


def _reason(exc: Exception) -> str:
    cause = exc.__cause__ or exc.__context__
    text = str(getattr(exc, "message", None) or exc)
    if cause is not None and text in ("Connection error.", "Request timed out."):
        text = f"{text.rstrip('.')}: {cause}"
    return text.splitlines()[0][:200] if text else type(exc).__name__


def _label_probs(logprobs, labels: Sequence[str]) -> dict[str, float] | None:
    """Probabilities of ``labels`` at the first answer position whose top tokens include one (``None`` if none)."""
    content = getattr(logprobs, "content", None) if logprobs is not None else None
    for position in content or []:
        candidates = {(t.token, t.logprob) for t in (position.top_logprobs or [])} | {(position.token,
                                                                                       position.logprob)}
        probs = {label: 0.0 for label in labels}
        for token, logprob in candidates:
            key = (token or "").strip()
            if key in probs and logprob is not None:
                probs[key] += math.exp(logprob)
        if any(p > 0.0 for p in probs.values()):
            return probs
    return None
