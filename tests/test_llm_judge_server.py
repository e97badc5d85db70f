"""The openai judge backend against real servers on 127.0.0.1: ``transformers serve`` (a subprocess serving the tiny
random Llama), a stdlib server with real logprobs from the same model, a proxy that answers 429/500, a server killed
mid-run, and a server that is down."""

from __future__ import annotations

import sqlite3
import threading
import time
import warnings

import pytest

pytest.importorskip("openai")
pytest.importorskip("fastapi")

from judge_servers import FlakyProxy, LogprobServer, ServeProcess, free_port  # noqa: E402
from test_llm_judge import PAIR, PREDICTIONS, SHORT  # noqa: E402
from tiny_judge import tiny_judge_folder  # noqa: E402

from nlgmetrics.judge import compute_llm_judge  # noqa: E402
from nlgmetrics.judge.openai_backend import JudgeServerError, OpenAIBackend  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:llm_judge. .* answers could not be read")

MORE = [f"{a} {b}" for a in PREDICTIONS for b in ("good", "bad", "cat")]  # 24 distinct texts


@pytest.fixture(scope="module")
def tiny_judge():
    return tiny_judge_folder()


@pytest.fixture(scope="module")
def serve(tiny_judge, tmp_path_factory):
    server = ServeProcess(tiny_judge, log=tmp_path_factory.mktemp("serve") / "serve.log")
    try:
        yield server.start()
    finally:
        server.stop()


@pytest.fixture(scope="module")
def logprob_server(tiny_judge):
    server = LogprobServer(tiny_judge)
    yield server
    server.stop()


def backend(url: str, model: str, **options) -> OpenAIBackend:
    return OpenAIBackend(model, base_url=url, timeout=20, backoff=0.02, **options)


def test_geval_through_the_openai_client_equals_the_in_process_backend(tiny_judge, logprob_server):
    local = compute_llm_judge(MORE, model=tiny_judge, template=SHORT, cache=False)
    remote = compute_llm_judge(MORE, backend=backend(logprob_server.base_url, tiny_judge), template=SHORT,
                               cache=False, max_tokens=1)
    assert remote["weighting_used"] == "geval" and remote["unparseable"] == 0
    # float32 both sides; the in-process batch is left-padded, the server runs each prompt alone: ~5e-6 apart
    assert remote["scores"] == pytest.approx(local["scores"], abs=2e-5)
    assert "served:" in remote["signature"] and "@fp_tiny" in remote["signature"]
    assert remote["prompt_tokens"] == local["prompt_tokens"] and remote["completion_tokens"] == len(MORE)
    pair_local = compute_llm_judge(PREDICTIONS, mode="pairwise", baseline=PREDICTIONS[1:] + PREDICTIONS[:1],
                                   template=PAIR, model=tiny_judge, cache=False)
    pair_remote = compute_llm_judge(PREDICTIONS, mode="pairwise", baseline=PREDICTIONS[1:] + PREDICTIONS[:1],
                                    template=PAIR, backend=backend(logprob_server.base_url, tiny_judge),
                                    cache=False, max_tokens=1)
    assert pair_remote["outcomes"] == pair_local["outcomes"]
    assert pair_remote["position_consistency"] == pair_local["position_consistency"]


def test_transformers_serve_answers_like_the_in_process_model(tiny_judge, serve):
    """transformers serve 5.23 ignores logprobs/top_logprobs (UNUSED_CHAT_COMPLETION_FIELDS in
    transformers/cli/serving/chat_completion.py), so G-Eval falls back to parsing, with a warning; its greedy
    answers must equal the in-process model's greedy generation, token for token."""
    local = compute_llm_judge(PREDICTIONS, model=tiny_judge, template=SHORT, weighting="parse", max_tokens=3,
                              cache=False, return_answers=True)
    with pytest.warns(UserWarning, match=f"the server at {serve.base_url} returned no token logprobs"):
        remote = compute_llm_judge(PREDICTIONS, backend=backend(serve.base_url, tiny_judge), template=SHORT,
                                   max_tokens=3, cache=False, return_answers=True)
    assert remote["weighting_used"] == "parse"
    assert remote["answers"] == local["answers"]
    assert remote["scores"] == local["scores"] and remote["unparseable"] == local["unparseable"]
    assert remote["completion_tokens"] == 3 * len(PREDICTIONS)


def test_retries_on_429_and_500_answer_every_request_once(tiny_judge, logprob_server):
    proxy = FlakyProxy(f"http://127.0.0.1:{logprob_server.port}", every_429=3, every_500=4)
    try:
        judge = backend(proxy.base_url, tiny_judge, max_concurrency=4)
        result = compute_llm_judge(MORE, backend=judge, template=SHORT, cache=False, max_tokens=1)
    finally:
        proxy.stop()
    local = compute_llm_judge(MORE, model=tiny_judge, template=SHORT, cache=False)
    assert result["scores"] == pytest.approx(local["scores"], abs=2e-5) and result["judged"] == len(MORE)
    asked = [body["messages"][-1]["content"] for body in proxy.forwarded]
    assert sorted(asked) == sorted(SHORT.format(prediction=t, low=1, high=5) for t in MORE)  # each exactly once
    assert proxy.refused[429] > 0 and proxy.refused[500] > 0
    assert judge.retries == proxy.refused[429] + proxy.refused[500]
    assert 1 < proxy.max_in_flight <= 4


def test_server_down_is_a_clear_error_naming_the_url(tiny_judge):
    url = f"http://127.0.0.1:{free_port()}/v1"
    start = time.monotonic()
    with pytest.raises(JudgeServerError, match=f"the judge server at {url} cannot be reached .*start it, or fix"):
        compute_llm_judge(["a"], backend=backend(url, "m"), template=SHORT, cache=False)
    assert time.monotonic() - start < 10


def test_cost_from_token_counts(tiny_judge, logprob_server):
    result = compute_llm_judge(PREDICTIONS, backend=backend(logprob_server.base_url, tiny_judge), template=SHORT,
                               cache=False, max_tokens=1, price=(2.0, 8.0))
    assert result["cost"] == pytest.approx((result["prompt_tokens"] * 2.0 + result["completion_tokens"] * 8.0) / 1e6)
    assert result["prompt_tokens"] > 0


def test_server_killed_mid_run_then_rerun_resumes_from_cache(tiny_judge, serve, tmp_path):
    server = serve  # killed here, then started again on the same port
    cache = tmp_path / "judge.sqlite"
    texts = [f"{t} {i}" for i, t in enumerate(MORE)]
    options = dict(template=SHORT, weighting="parse", max_tokens=2, cache=str(cache))
    errors: list[Exception] = []

    def run() -> None:
        try:
            compute_llm_judge(texts, backend=backend(server.base_url, tiny_judge, max_concurrency=2, max_retries=2),
                              **options)
        except JudgeServerError as exc:
            errors.append(exc)

    try:
        worker = threading.Thread(target=run)
        worker.start()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and (not cache.exists() or _rows(cache) < 4):
            time.sleep(0.05)
        server.stop()
        worker.join(timeout=60)
        assert not worker.is_alive()
        assert errors and server.base_url in str(errors[0])
        saved = _rows(cache)
        assert 4 <= saved < len(texts)
        server.start()
        resumed = compute_llm_judge(texts, backend=backend(server.base_url, tiny_judge), **options)
        assert resumed["cache_hits"] == saved and resumed["judged"] == len(texts) - saved
        again = compute_llm_judge(texts, backend=backend(server.base_url, tiny_judge), **options)
        assert again["cache_hits"] == len(texts) and again["judged"] == 0 and again["scores"] == resumed["scores"]
    finally:
        if server.process.poll() is not None:
            server.start()
    fresh = compute_llm_judge(texts, model=tiny_judge, template=SHORT, weighting="parse", max_tokens=2, cache=False)
    assert resumed["scores"] == fresh["scores"]


def _rows(path) -> int:
    with sqlite3.connect(path, timeout=5) as db:
        try:
            return db.execute("SELECT COUNT(*) FROM judgments").fetchone()[0]
        except sqlite3.OperationalError:
            return 0
