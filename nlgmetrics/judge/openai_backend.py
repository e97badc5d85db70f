"""The ``openai`` judge backend: any OpenAI-compatible server (vLLM, TGI, SGLang, llama.cpp, Ollama,
``transformers serve``, OpenAI) through the official ``openai`` client.

Chat completions at temperature 0 with a seed by default, asking for ``logprobs``/``top_logprobs``: the label
probabilities are read at the first answer position whose top tokens include a label (a token counts for a label
when its text, stripped of spaces, equals it). A server that returns no logprobs (``transformers serve`` ignores the
fields) gets one warning and its answers are parsed.

Up to ``max_concurrency`` requests are in flight (threads), fewer when large answers would hold more than
``ANSWER_MEMORY_BUDGET`` (:meth:`OpenAIBackend.in_flight`); a 429, 5xx, timeout or dropped connection is retried up
to ``max_retries`` times with exponential backoff (``backoff * 2**attempt`` seconds, or the server's
``Retry-After`` if longer, plus jitter, capped at 30 s);
other 4xx errors stop the run with the server's message. A server that cannot be reached, or that answers something
other than a chat completion (an HTML page, an ``{"error": ...}`` body, truncated JSON, no choices, a logprob that is
not a finite number <= 0, e.g. 800 or Infinity), is a ``JudgeServerError`` naming the URL (credentials masked, see
:mod:`nlgmetrics._secrets`) and the fix; never a NaN score.
"""

from __future__ import annotations

import json
import math
import random
import threading
import time
import warnings
from collections.abc import Sequence
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait

from nlgmetrics.options import check_int
from nlgmetrics._secrets import digest, redact_url, remember, remember_url
from nlgmetrics.errors import OptionError
from nlgmetrics.judge.backends import Answer, JudgeBackend, OnAnswer, Request
from nlgmetrics.judge.errors import JudgeServerError

#: bounds of the user-set sizes (a larger value is refused with its range)
MAX_CONCURRENCY, MAX_RETRIES, MAX_TOP_LOGPROBS = 256, 20, 20
#: answers in flight are bounded by memory, not only by count: a parsed answer costs about ANSWER_BYTES_PER_TOKEN per
#: generated token and alternative (measured: 4,096 tokens x 21 alternatives ~ 70 MiB through the openai client), and
#: at most ANSWER_MEMORY_BUDGET of them are held at once.
ANSWER_BYTES_PER_TOKEN, ANSWER_MEMORY_BUDGET = 900, 1 << 30
#: a logprob above this is not a log probability (a little above 0 is rounding on some servers)
_LOGPROB_SLACK = 1e-4


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
        from nlgmetrics.extras import require_extra

        require_extra("judge", "the openai judge backend", ("openai",))
        import openai
        import os

        max_concurrency = check_int("max_concurrency", max_concurrency, 1, MAX_CONCURRENCY, "requests in flight")
        max_retries = check_int("max_retries", max_retries, 0, MAX_RETRIES, "per request, after a 429/5xx/timeout")
        top_logprobs = check_int("top_logprobs", top_logprobs, 0, MAX_TOP_LOGPROBS, "OpenAI's limit")
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
            raise OptionError(f"timeout must be a positive number of seconds, got {timeout!r}.")
        self._openai = openai
        self.model = model
        key = api_key or os.environ.get("OPENAI_API_KEY") or "EMPTY"
        remember(key)
        remember_url(base_url)
        remember_url(os.environ.get("OPENAI_BASE_URL"))
        if base_url is not None and (not isinstance(base_url, str) or "?" in base_url or "#" in base_url):
            raise JudgeServerError(
                f"base_url must be a URL without a query string or fragment, e.g. http://127.0.0.1:8000/v1, got "
                f"{base_url!r} (the client appends /chat/completions after it); pass a key with api_key= or "
                f"$OPENAI_API_KEY.")
        given = base_url if base_url is not None else os.environ.get("OPENAI_BASE_URL")
        base_url, basic = _split_userinfo(given)
        # userinfo goes as a Basic Authorization header (as httpx would send it), never in the URL the client
        # logs ("HTTP Request: POST http://user:pass@..." at INFO)
        self.client = openai.OpenAI(base_url=base_url, api_key=key, max_retries=0, timeout=timeout,
                                    default_headers={"Authorization": basic} if basic else None)
        self.base_url = str(self.client.base_url).rstrip("/")  # without userinfo; shown as public_url
        remember_url(self.base_url)
        #: the URL with its credentials masked (``http://***@host/v1``): what signatures and messages show
        self.public_url = redact_url(given.rstrip("/") if basic else self.base_url)
        self.max_concurrency, self.max_retries, self.backoff = max_concurrency, max_retries, backoff
        self.top_logprobs = top_logprobs
        self.retries = 0  # requests sent again after a 429/5xx/timeout, over the backend's life
        self._no_logprobs_warned = False
        self._answered = threading.Event()  # the server has answered once (a later connection error may be a restart)

    def identity(self) -> dict[str, str]:
        return {"backend": self.name, "base_url": self.public_url, "model": self.model}

    def key_identity(self) -> dict[str, str]:
        """:meth:`identity` plus a digest of the URL's query string (it may select a deployment or API version);
        the userinfo is left out (credentials do not change an answer)."""
        query = self.base_url.split("?", 1)[1] if "?" in self.base_url else ""
        return {**self.identity(), "base_url": redact_url(self.base_url), **({"query": digest(query)} if query else {})}

    def payload(self, request: Request, *, max_tokens: int, weighting: str, temperature: float,
                seed: int | None) -> dict:
        """The body sent for ``request``: model, messages and every sampling parameter."""
        params = {"model": self.model, "messages": request.as_messages(), "max_tokens": max_tokens,
                  "temperature": temperature}
        if seed is not None:
            params["seed"] = seed
        if weighting == "geval" and self.top_logprobs:
            params.update(logprobs=True, top_logprobs=self.top_logprobs)
        return params

    def __repr__(self) -> str:
        return f"OpenAIBackend(model={self.model!r}, base_url={self.public_url!r})"

    def close(self) -> None:
        self.client.close()

    def _ask(self, request: Request, *, max_tokens: int, weighting: str, temperature: float,
             seed: int | None) -> Answer:
        openai = self._openai
        params = self.payload(request, max_tokens=max_tokens, weighting=weighting, temperature=temperature,
                              seed=seed)
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
                        f"the judge server at {self.public_url} {what} ({_reason(exc)}) after {attempt + 1} attempts; "
                        f"start it, or fix base_url=. Judgments made so far are in the cache."
                    ) from None
                self.retries += 1
                wait_s = max(self.backoff * 2 ** attempt, _retry_after(exc))  # a server's Retry-After is honoured
                time.sleep(min(wait_s, 30.0) + random.uniform(0, self.backoff))
                attempt += 1
            except openai.APIStatusError as exc:
                raise JudgeServerError(
                    f"the judge server at {self.public_url} refused the request for model {self.model!r} "
                    f"(HTTP {exc.status_code}: {_reason(exc)}); check model= and the API key (api_key= or "
                    f"$OPENAI_API_KEY)."
                ) from None
            except (openai.APIError, ValueError, TypeError) as exc:  # e.g. truncated JSON, a body of another shape
                raise self._not_a_completion(f"{type(exc).__name__}: {_reason(exc)}") from None
        self._answered.set()
        choices = getattr(response, "choices", None)
        if not isinstance(choices, list) or not choices:
            raise self._not_a_completion(_describe(response))
        choice = choices[0]
        message = getattr(choice, "message", None)
        content = getattr(message, "content", None) if message is not None else None
        if content is not None and not isinstance(content, str):
            raise self._not_a_completion(f"message content of type {type(content).__name__}")
        try:
            probs = _label_probs(getattr(choice, "logprobs", None), request.labels) if weighting == "geval" else None
        except _BadLogprob as exc:
            raise JudgeServerError(
                f"the judge server at {self.public_url} returned {exc} for model {self.model!r}: a log probability "
                f"is a finite number <= 0, so the server is broken or not OpenAI-compatible; fix or replace it, or "
                f"judge without logprobs (weighting='parse')."
            ) from None
        if weighting == "geval" and probs is None and not self._no_logprobs_warned:
            self._no_logprobs_warned = True
            warnings.warn(
                f"llm_judge: the server at {self.public_url} returned no token logprobs with the answer (transformers "
                f"serve, for one, ignores the logprobs fields); G-Eval weighting is not possible, so answers are "
                f"parsed as integers instead.", stacklevel=2,
            )
        usage = getattr(response, "usage", None)
        return Answer(
            text=content or "", probs=probs, model=_text(getattr(response, "model", None)),
            fingerprint=_text(getattr(response, "system_fingerprint", None)),
            prompt_tokens=_count(getattr(usage, "prompt_tokens", 0)),
            completion_tokens=_count(getattr(usage, "completion_tokens", 0)),
        )

    def _not_a_completion(self, what: str) -> JudgeServerError:
        return JudgeServerError(
            f"the judge server at {self.public_url} answered something that is not a chat completion ({what:.200}); "
            f"base_url= must be an OpenAI-compatible endpoint ending in /v1 that serves model {self.model!r}."
        )

    def in_flight(self, max_tokens: int, weighting: str) -> int:
        """Requests in flight at once: ``max_concurrency``, fewer when the answers asked for are large, so that
        ``in_flight x max_tokens x (1 + top_logprobs) x ANSWER_BYTES_PER_TOKEN <= ANSWER_MEMORY_BUDGET`` (at least 1).
        At the documented maxima (4,096 tokens, 20 alternatives) that is 13 requests, not 256 (~18 GB)."""
        alternatives = 1 + (self.top_logprobs if weighting == "geval" else 0)
        per_answer = max(1, max_tokens) * alternatives * ANSWER_BYTES_PER_TOKEN
        return max(1, min(self.max_concurrency, ANSWER_MEMORY_BUDGET // per_answer))

    def run(self, requests: Sequence[Request], on_answer: OnAnswer, *, max_tokens: int, weighting: str,
            temperature: float = 0.0, seed: int | None = 0, progress: bool = False) -> None:
        """Ask every request, at most :meth:`in_flight` at once; ``on_answer`` runs in the calling thread."""
        from tqdm.auto import tqdm

        bar = tqdm(total=len(requests), desc="judging", disable=not progress, unit="judgment")
        pending: dict = {}
        queue = iter(range(len(requests)))
        limit = self.in_flight(max_tokens, weighting)
        pool = ThreadPoolExecutor(limit, thread_name_prefix="llm-judge")
        try:
            while True:
                while len(pending) < limit:
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


def _split_userinfo(url: str | None) -> tuple[str | None, str | None]:
    """``(url without userinfo, "Basic ..." header value or None)``."""
    if not url or "@" not in url:
        return url, None
    import base64
    from urllib.parse import unquote, urlsplit, urlunsplit

    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url, None
    host = parts.netloc.rsplit("@", 1)[1]
    token = f"{unquote(parts.username or '')}:{unquote(parts.password or '')}".encode()
    return urlunsplit(parts._replace(netloc=host)), "Basic " + base64.b64encode(token).decode()


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


class _BadLogprob(ValueError):
    """A logprob that is not a finite number <= 0."""


def _checked_logprob(token: object, logprob: object) -> float:
    if isinstance(logprob, bool) or not isinstance(logprob, (int, float)) or math.isnan(logprob) \
            or logprob == math.inf or logprob > _LOGPROB_SLACK:
        raise _BadLogprob(f"the logprob {logprob!r} for the token {token!r}")
    return min(float(logprob), 0.0)


def _label_probs(logprobs, labels: Sequence[str]) -> dict[str, float] | None:
    """Probabilities of ``labels`` at the first answer position whose top tokens include one (``None`` if none).

    Every logprob read must be a finite number <= 0 (or -Infinity, probability 0): else :class:`_BadLogprob`."""
    content = getattr(logprobs, "content", None) if logprobs is not None else None
    if content is not None and not isinstance(content, list):
        raise _BadLogprob(f"logprobs.content of type {type(content).__name__}")
    for position in content or []:
        alternatives = getattr(position, "top_logprobs", None) or []
        candidates = {(getattr(t, "token", None), getattr(t, "logprob", None)) for t in alternatives}
        candidates.add((getattr(position, "token", None), getattr(position, "logprob", None)))
        probs = {label: 0.0 for label in labels}
        for token, logprob in candidates:
            key = token.strip() if isinstance(token, str) else ""
            if logprob is None:
                continue
            logprob = _checked_logprob(token, logprob)
            if key in probs:
                probs[key] += math.exp(logprob)
        if any(p > 0.0 for p in probs.values()):
            return probs
    return None


def _describe(response: object) -> str:
    """What a server sent instead of a chat completion, in a few words (its ``error`` message when it has one)."""
    if isinstance(response, (str, bytes)):
        text = response.decode("utf-8", "replace") if isinstance(response, bytes) else response
        kind = "an HTML page" if "<html" in text[:500].lower() or "<!doctype" in text[:500].lower() else "text"
        return f"{kind}: {' '.join(text.split())[:80]!r}"
    extra = getattr(response, "model_extra", None) or {}
    error = extra.get("error") if isinstance(extra, dict) else None
    if error is None:
        error = getattr(response, "error", None)
    if error is not None:
        message = error.get("message", error) if isinstance(error, dict) else error
        return f"an error body: {json.dumps(message, default=str)[:160]}"
    choices = getattr(response, "choices", None)
    if isinstance(choices, list) and not choices:
        return "an empty choice list"
    return f"a {type(response).__name__} without choices"


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _count(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0
