"""Policy test (issue 33.3, memory): the LLM judge run with every user-set size at its documented maximum at once
(``unparseable_retries=10``, ``max_tokens=4096``, ``top_logprobs=20``, ``max_retries=20``, ``max_concurrency=256``)
against a server that uses them (answers of 4,096 tokens, each with 20 alternatives) returns the G-Eval scores
with Python allocations under a cap. Each bound's refusal above its maximum is tests/test_llm_judge_errors.py's
``test_sizes_are_bounded``; ``agree``'s memory is tests/test_agree*.py's."""

from __future__ import annotations

import json
import tracemalloc

import pytest

pytest.importorskip("openai")

from judge_servers import CannedServer  # noqa: E402

from nlgmetrics.judge import compute_llm_judge  # noqa: E402
from nlgmetrics.judge.core import MAX_TOKENS, MAX_UNPARSEABLE_RETRIES  # noqa: E402
from nlgmetrics.judge.openai_backend import MAX_CONCURRENCY, MAX_RETRIES, MAX_TOP_LOGPROBS, OpenAIBackend  # noqa: E402

TEMPLATE = "score {prediction} from {low} to {high}"
#: Python allocations allowed for a run of two such answers. Measured: each answer is ~6 MB of JSON and ~70 MiB once
#: the openai client has parsed it (one object per alternative), ~220 MiB peak for three answers in flight; so the
#: peak grows with the answers in flight (up to ``max_concurrency``) times their size. Retries at their maximum on
#: short answers: test_llm_judge_errors.py's ``test_retries_at_their_maximum_return``.
PEAK_CAP = 200 * 2**20


def long_answer(first: str) -> bytes:
    """A chat completion of ``MAX_TOKENS`` tokens (``first`` then filler), each with ``MAX_TOP_LOGPROBS``
    alternatives: the largest answer the judge's bounds let a server send."""
    tokens = [first] + [" word"] * (MAX_TOKENS - 1)
    content = [{"token": token, "logprob": -0.05, "bytes": None,
                "top_logprobs": [{"token": token if k == 0 else f" alt{k}", "logprob": -0.05 - k, "bytes": None}
                                 for k in range(MAX_TOP_LOGPROBS)]} for token in tokens]
    body = {"id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": "canned",
            "choices": [{"index": 0, "finish_reason": "length",
                         "message": {"role": "assistant", "content": "".join(tokens)},
                         "logprobs": {"content": content}}],
            "usage": {"prompt_tokens": 5, "completion_tokens": MAX_TOKENS, "total_tokens": MAX_TOKENS + 5}}
    return json.dumps(body).encode()


@pytest.fixture()
def server():
    made = []

    def start(first: str) -> CannedServer:
        body = long_answer(first)
        made.append(CannedServer(lambda request: (200, body, "application/json")))
        return made[-1]

    yield start
    for running in made:
        running.stop()


def _judge(server: CannedServer, predictions: list[str], **options) -> dict:
    backend = OpenAIBackend("m", base_url=f"http://127.0.0.1:{server.port}/v1", api_key="k", backoff=0.01,
                            timeout=30, max_concurrency=MAX_CONCURRENCY, max_retries=MAX_RETRIES,
                            top_logprobs=MAX_TOP_LOGPROBS)
    tracemalloc.start()
    try:
        result = compute_llm_judge(predictions, backend=backend, template=TEMPLATE, cache=False,
                                   max_tokens=MAX_TOKENS, unparseable_retries=MAX_UNPARSEABLE_RETRIES, **options)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < PEAK_CAP, f"peak Python allocations {peak / 2**20:.0f} MiB"
    return result


def test_the_judge_at_every_maximum_scores_within_the_memory_cap(server):
    running = server("4")
    result = _judge(running, ["first answer", "second answer"])
    assert result["scores"] == [4.0, 4.0] and result["unparseable"] == 0
    sent = [json.loads(body) for _, _, body in running.requests]
    assert len(sent) == 2 and {(r["max_tokens"], r["top_logprobs"], r["logprobs"]) for r in sent} == {
        (MAX_TOKENS, MAX_TOP_LOGPROBS, True)}


def test_answers_in_flight_are_bounded_by_memory(monkeypatch):
    """At the maxima (4,096 tokens, 20 alternatives: ~70 MiB per parsed answer) 256 requests in flight would hold ~18
    GB: the backend keeps max_tokens x (1 + top_logprobs) x ANSWER_BYTES_PER_TOKEN x in-flight under the budget, and
    its thread pool is that size; small answers keep max_concurrency."""
    from nlgmetrics.judge import openai_backend as ob

    backend = OpenAIBackend("m", base_url="http://127.0.0.1:9/v1", api_key="k", max_concurrency=MAX_CONCURRENCY,
                            top_logprobs=MAX_TOP_LOGPROBS)
    assert backend.in_flight(MAX_TOKENS, "geval") == 13
    assert 13 * MAX_TOKENS * 21 * ob.ANSWER_BYTES_PER_TOKEN <= ob.ANSWER_MEMORY_BUDGET
    assert backend.in_flight(16, "geval") == MAX_CONCURRENCY and backend.in_flight(MAX_TOKENS, "parse") == 256
    sizes = []

    class Recording(ob.ThreadPoolExecutor):
        def __init__(self, max_workers, **kwargs):
            sizes.append(max_workers)
            super().__init__(max_workers, **kwargs)

    monkeypatch.setattr(ob, "ThreadPoolExecutor", Recording)
    backend.run([], lambda j, answer: None, max_tokens=MAX_TOKENS, weighting="geval")
    assert sizes == [13]
