"""The judge against broken servers, broken cache files and oversized options: each is the project's error naming
the URL (credentials masked) or the file and the fix, or a defined score; never a NaN, never a raw traceback from
json/openai/sqlite3. Servers: tests/judge_servers.py's CannedServer on 127.0.0.1 (no model needed)."""

from __future__ import annotations

import json
import math
import os
import sqlite3

import pytest

pytest.importorskip("openai")

from judge_servers import CannedServer, completion  # noqa: E402

from nlgmetrics._digest import file_digest, folder_revision  # noqa: E402
from nlgmetrics.judge import Answer, JudgeBackend, compute_llm_judge  # noqa: E402
from nlgmetrics.judge.cache import JudgmentCache, cache_path, default_cache_path  # noqa: E402
from nlgmetrics.errors import CacheError, OutputError, ServerError  # noqa: E402
from nlgmetrics.judge.errors import JudgeCacheError, JudgeError, JudgeServerError  # noqa: E402
from nlgmetrics.judge.openai_backend import OpenAIBackend  # noqa: E402

SHORT = "score {prediction} from {low} to {high}"
JSON = "application/json"

BROKEN = {  # name -> (HTTP answer, the message's distinctive part)
    "html page": ((200, b"<!DOCTYPE html><html><body>Welcome to nginx</body></html>", "text/html"),
                  r"not a chat completion \(an HTML page: '<!DOCTYPE html><html><body>Welcome to nginx"),
    "html as json": ((200, b"<html>oops</html>", JSON), r"not a chat completion \(JSONDecodeError"),
    "error body": ((200, b'{"error": {"message": "model overloaded", "type": "server_error"}}', JSON),
                   r'not a chat completion \(an error body: "model overloaded"\)'),
    "truncated json": ((200, completion()[:60], JSON), r"not a chat completion \(JSONDecodeError"),
    "empty choices": ((200, completion(choices=[]), JSON), r"not a chat completion \(an empty choice list\)"),
    "logprob 800": ((200, completion(logprob=800, raw=True), JSON), r"returned the logprob 800.0 for the token '3'"),
    "logprob Infinity": ((200, completion(logprob="Infinity", raw=True), JSON), r"returned the logprob inf "),
    "logprob NaN": ((200, completion(logprob="NaN", raw=True), JSON), r"returned the logprob nan "),
    "logprob a string": ((200, completion(logprob="high"), JSON), r"returned the logprob 'high' "),
    "HTTP 401": ((401, b'{"error": {"message": "Incorrect API key provided: sk-LEAKED-KEY-123"}}', JSON),
                 r"refused the request for model 'm' \(HTTP 401: .*Incorrect API key provided: \*\*\*\); "
                 r"check model= and "
                 r"the API key \(api_key= or \$OPENAI_API_KEY\)\."),
}


@pytest.fixture()
def canned():
    servers = []

    def start(answer):
        servers.append(CannedServer(answer if callable(answer) else lambda body: answer))
        return servers[-1]

    yield start
    for server in servers:
        server.stop()


def judge(server: CannedServer, **options) -> OpenAIBackend:
    url = f"http://judge-user:PASSWORD-123@127.0.0.1:{server.port}/v1"
    return OpenAIBackend("m", base_url=url, api_key="sk-LEAKED-KEY-123", backoff=0.01, timeout=10, **options)


@pytest.mark.parametrize("case", list(BROKEN))
def test_a_broken_server_answer_is_one_error_naming_the_url(canned, case):
    answer, message = BROKEN[case]
    server = canned(answer)
    with pytest.raises(JudgeServerError, match=message) as caught:
        compute_llm_judge(["a"], backend=judge(server), template=SHORT, cache=False)
    text = str(caught.value)
    assert f"at http://***@127.0.0.1:{server.port}/v1 " in text
    assert "PASSWORD-123" not in text and "judge-user" not in text and "sk-LEAKED" not in text
    assert len(server.requests) == 1  # not retried: a broken answer is not a transient failure


def test_defined_answers_from_odd_but_valid_servers(canned):
    # -Infinity is probability 0: the label carries no mass, so the answer text is parsed (with the one warning)
    server = canned((200, completion(logprob="-Infinity", raw=True), JSON))
    with pytest.warns(UserWarning, match="returned no token logprobs"):
        result = compute_llm_judge(["a"], backend=judge(server), template=SHORT, cache=False)
    assert result["scores"] == [3.0] and result["weighting_used"] == "parse"
    # a logprob of 800 is not read when no logprobs are asked for: weighting='parse' is the documented way out
    server = canned((200, completion(logprob=800, raw=True), JSON))
    result = compute_llm_judge(["a", "b"], backend=judge(server), template=SHORT, cache=False, weighting="parse")
    assert result["scores"] == [3.0, 3.0] and "logprobs" not in server.requests[0][2].decode()
    # a choice without a message is an unparseable answer (counted, excluded), not a crash
    server = canned((200, completion(choices=[{"index": 0, "finish_reason": "stop"}]), JSON))
    with pytest.warns(UserWarning, match="1 of 1 answers could not be read"):
        result = compute_llm_judge(["a"], backend=judge(server), template=SHORT, cache=False, weighting="parse")
    assert result["scores"] == [None] and result["unparseable"] == 1 and result["llm_judge"] is None
    # a valid probability: exp(-0.1) on "3" alone -> exactly 3
    server = canned((200, completion(logprob=-0.1), JSON))
    result = compute_llm_judge(["a"], backend=judge(server), template=SHORT, cache=False)
    assert result["scores"] == [pytest.approx(3.0, abs=1e-12)] and result["weighting_used"] == "geval"


def test_base_url_with_a_query_string_is_refused_without_echoing_it():
    refused = r"without a query string .*got 'http://127.0.0.1:1/v1\?api-key=\*\*\*'"
    with pytest.raises(JudgeServerError, match=refused) as caught:
        OpenAIBackend("m", base_url="http://127.0.0.1:1/v1?api-key=QUERY-SECRET-9")
    assert "QUERY-SECRET-9" not in str(caught.value)


class ProbsBackend(JudgeBackend):
    """A custom backend returning ``probs`` (to check that the core refuses non-finite probabilities)."""

    name = "probs"

    def __init__(self, probs):
        self.probs = probs

    def identity(self):
        return {"backend": self.name, "model": "p"}

    def run(self, requests, on_answer, **_):
        for j, _request in enumerate(requests):
            on_answer(j, Answer("3", dict(self.probs), "p", "", 1, 1))


@pytest.mark.parametrize("probs", [{"3": math.inf}, {"3": math.nan, "4": 0.5}, {"3": 2.0}, {"3": -0.5}])
def test_a_custom_backend_with_impossible_probabilities_is_refused(probs):
    with pytest.raises(JudgeError, match=r"returned an unusable answer: the probabilities .* are not numbers in"):
        compute_llm_judge(["a"], backend=ProbsBackend(probs), template=SHORT, cache=False)


# -- the cache file ---------------------------------------------------------------------------------------------------
class Counting(JudgeBackend):
    """Answers "3" (with probabilities when ``probs``); counts the requests it answered."""

    name = "counting"

    def __init__(self, probs=True, model="c"):
        self.with_probs, self.model, self.asked = probs, model, 0

    def identity(self):
        return {"backend": self.name, "model": self.model}

    def run(self, requests, on_answer, **_):
        for j, _request in enumerate(requests):
            self.asked += 1
            on_answer(j, Answer("3", {"3": 0.5, "5": 0.5} if self.with_probs else None, self.model, "", 1, 1))


def test_cache_option_strings_and_paths(tmp_path, monkeypatch):
    monkeypatch.setenv("NLGMETRICS_JUDGE_CACHE", str(tmp_path / "default.sqlite"))
    for value in ("false", "False", "no", "OFF", "0", "none", "", False, None):
        assert cache_path(value) is None
    for value in ("true", "YES", "on", "1", True):
        assert cache_path(value) == default_cache_path() == tmp_path / "default.sqlite"
    assert cache_path(str(tmp_path / "false")) == tmp_path / "false"
    monkeypatch.chdir(tmp_path)
    result = compute_llm_judge(["a"], backend=Counting(), template=SHORT, cache="false")
    assert result["scores"] == [4.0] and sorted(os.listdir(tmp_path)) == []  # no file named false, no default file
    compute_llm_judge(["a"], backend=Counting(), template=SHORT, cache="true")
    assert [name for name in os.listdir(tmp_path) if not name.startswith("default.sqlite")] == []
    assert (tmp_path / "default.sqlite").is_file()
    with pytest.raises(TypeError, match="cache must be True"):
        compute_llm_judge(["a"], backend=Counting(), template=SHORT, cache=3)


def test_a_read_only_cache_serves_its_rows_and_refuses_a_new_judgment_before_any_request(tmp_path, monkeypatch):
    """A file SQLite may not write (a read-only file system; chmod does not bind root, as the test machines run, so
    the file is opened the way SQLite opens a file it may not write, mode=ro): its rows are served, and a judgment it
    lacks is refused before it is asked (issue 43: a read-only cache could not even be read)."""
    path = tmp_path / "judge.sqlite"
    compute_llm_judge(["a"], backend=Counting(), template=SHORT, cache=str(path))
    backend = Counting()
    before = path.read_bytes()
    real_connect = sqlite3.connect

    def read_only(database, *args, **kwargs):
        if kwargs.pop("uri", False):  # the cache's own read-only opening
            return real_connect(database, *args, uri=True, **kwargs)
        return real_connect(f"file:{database}?mode=ro", *args, uri=True, **kwargs)

    monkeypatch.setattr(sqlite3, "connect", read_only)
    assert compute_llm_judge(["a"], backend=backend, template=SHORT, cache=str(path))["cache_hits"] == 1
    with pytest.raises(JudgeCacheError, match="judge.sqlite is read-only and lacks 1 of the 2 judgments"):
        compute_llm_judge(["a", "b"], backend=backend, template=SHORT, cache=str(path))
    assert backend.asked == 0 and path.read_bytes() == before


def test_locked_corrupted_and_linked_caches(tmp_path, monkeypatch):
    path = tmp_path / "judge.sqlite"
    compute_llm_judge(["a"], backend=Counting(), template=SHORT, cache=str(path))
    backend = Counting()
    monkeypatch.setattr(JudgmentCache, "busy_timeout", 0.2)
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # another writer holds the file
    try:
        with pytest.raises(JudgeCacheError, match="judge.sqlite cannot be used \\(database is locked\\); another "
                                                  "process holds a write lock"):
            compute_llm_judge(["b"], backend=backend, template=SHORT, cache=str(path))
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    # a corrupted file (garbage over the header): refused, left as it was
    broken = tmp_path / "broken.sqlite"
    broken.write_bytes(path.read_bytes()[:100] + os.urandom(4000))
    before = broken.read_bytes()
    with pytest.raises(JudgeCacheError, match="broken.sqlite cannot be used .*not an intact SQLite database"):
        compute_llm_judge(["b"], backend=backend, template=SHORT, cache=str(broken))
    assert broken.read_bytes() == before
    # a symbolic link (to a real cache): never written through
    link = tmp_path / "link.sqlite"
    link.symlink_to(path)
    with pytest.raises(OutputError, match="link.sqlite is a symbolic link; nlgmetrics never writes through links"):
        compute_llm_judge(["b"], backend=backend, template=SHORT, cache=str(link))
    assert backend.asked == 0
    # a row whose answer is not JSON: judged again (a warning), replaced
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("UPDATE judgments SET answer = '{not json'")
    db.close()
    with pytest.warns(UserWarning, match="1 row\\(s\\) of the judge cache .* cannot be read"):
        result = compute_llm_judge(["a"], backend=backend, template=SHORT, cache=str(path))
    assert result["scores"] == [4.0] and result["judged"] == 1 and backend.asked == 1
    assert compute_llm_judge(["a"], backend=backend, template=SHORT, cache=str(path))["cache_hits"] == 1


def test_a_write_that_fails_mid_run_keeps_the_paid_answers(tmp_path, monkeypatch):
    path = tmp_path / "judge.sqlite"
    real_put = JudgmentCache.put
    calls = []

    def failing_put(self, key, answer):
        calls.append(key)
        if len(calls) == 2:  # the disk fills up on the second row
            self._db.close()
        real_put(self, key, answer)

    monkeypatch.setattr(JudgmentCache, "put", failing_put)
    backend = Counting()
    with pytest.warns(UserWarning, match="cannot write to the judge cache .*this run keeps its answers"):
        result = compute_llm_judge(["a", "b", "c"], backend=backend, template=SHORT, cache=str(path))
    assert result["scores"] == [4.0, 4.0, 4.0] and backend.asked == 3


def test_geval_reuses_an_answer_without_probabilities_like_any_answer(tmp_path):
    """Issue 43: a G-Eval request a server answered without probabilities was asked again on every rerun (400 of 400
    paid again after a kill). A cached answer is the answer to its request (asking again gets the same): reused."""
    path = str(tmp_path / "judge.sqlite")
    parse_only = Counting(probs=False)
    first = compute_llm_judge(["a", "b"], backend=parse_only, template=SHORT, cache=path)
    assert first["weighting_used"] == "parse" and first["scores"] == [3.0, 3.0]
    again = Counting(probs=False)
    second = compute_llm_judge(["a", "b"], backend=again, template=SHORT, cache=path)
    assert second["cache_hits"] == 2 and again.asked == 0 and second["scores"] == [3.0, 3.0]
    assert second["weighting_used"] == "parse"


def test_cache_key_follows_the_request_as_sent(canned, tmp_path):
    path = str(tmp_path / "judge.sqlite")
    server = canned((200, completion(logprob=-0.1), JSON))
    run = dict(template=SHORT, cache=path)
    assert compute_llm_judge(["a"], backend=judge(server), **run)["judged"] == 1
    assert compute_llm_judge(["a"], backend=judge(server), **run)["cache_hits"] == 1
    # top_logprobs, max_tokens, temperature and seed are sent to the server, so each is another judgment
    for options, call in (({"top_logprobs": 5}, {}), ({}, {"max_tokens": 4}), ({}, {"temperature": 0.5}),
                          ({}, {"seed": 7})):
        again = compute_llm_judge(["a"], backend=judge(server, **options), **run, **call)
        assert again["cache_hits"] == 0 and again["judged"] == 1, (options, call)
    # another password for the same server is the same judgment (credentials do not change an answer)
    other = OpenAIBackend("m", base_url=f"http://x:OTHER@127.0.0.1:{server.port}/v1", api_key="k2", backoff=0.01)
    assert compute_llm_judge(["a"], backend=other, **run)["cache_hits"] == 1


def test_local_judge_revision_follows_the_weights_content(tmp_path):
    folder = tmp_path / "judge"
    folder.mkdir()
    (folder / "config.json").write_text("{}")
    weights = folder / "model.safetensors"
    weights.write_bytes(b"\x00" * 64)
    first = folder_revision(folder)
    assert folder_revision(folder) == first
    stat = weights.stat()
    weights.write_bytes(b"\x01" * 64)  # the same size, other weights
    os.utime(weights, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert folder_revision(folder) != first
    weights.write_bytes(b"\x00" * 64)
    os.utime(weights, ns=(stat.st_atime_ns, stat.st_mtime_ns + 2_000_000))
    assert folder_revision(folder) == first
    assert file_digest(weights) == "f5a5fd42d16a20302798ef6ed309979b43003d2320d9f0e8ea9831a92759fb4b"  # sha256


def test_weight_digests_are_kept_across_processes(tmp_path, monkeypatch):
    from nlgmetrics import _digest

    monkeypatch.setenv("NLGMETRICS_JUDGE_CACHE", str(tmp_path / "cache" / "judge.sqlite"))
    folder = tmp_path / "judge"
    folder.mkdir()
    weights = folder / "model.safetensors"
    weights.write_bytes(b"\x02" * (2 << 20))  # over 1 MB: its digest is stored
    (folder / "config.json").write_text("{}")
    first = folder_revision(folder)
    store = json.loads(_digest.digest_store_path().read_text())
    assert list(store.values()) == [file_digest(weights)] and str(weights.resolve()) in next(iter(store))
    # a new process (empty memory) takes the stored digest instead of reading the weights again
    _digest._FILE_DIGESTS.clear()
    _digest.digest_store_path().write_text(json.dumps({key: "0" * 64 for key in store}))
    assert folder_revision(folder) != first  # proves the stored value was used, not a re-read
    _digest._FILE_DIGESTS.clear()
    stat = weights.stat()
    os.utime(weights, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))  # touched: the entry no longer applies
    assert folder_revision(folder) == first


# -- bounds ---------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("option, value, message", [
    ("unparseable_retries", 10 ** 6, r"unparseable_retries must be an integer in \[0, 10\]"),
    ("max_tokens", 10 ** 6, r"max_tokens must be an integer in \[1, 4096\]"),
    ("max_tokens", 0, r"max_tokens must be an integer in \[1, 4096\]"),
])
def test_sizes_are_bounded(option, value, message):
    with pytest.raises(ValueError, match=message):
        compute_llm_judge(["a"], backend=Counting(), template=SHORT, cache=False, **{option: value})


@pytest.mark.parametrize("option, value, message", [
    ("top_logprobs", 21, r"top_logprobs must be an integer in \[0, 20\]"),
    ("max_concurrency", 10 ** 6, r"max_concurrency must be an integer in \[1, 256\]"),
    ("max_retries", 10 ** 6, r"max_retries must be an integer in \[0, 20\]"),
])
def test_server_sizes_are_bounded(option, value, message):
    with pytest.raises(ValueError, match=message):
        OpenAIBackend("m", base_url="http://127.0.0.1:1/v1", **{option: value})


def test_retries_at_their_maximum_return(canned):
    # every answer unparseable, retried the documented maximum of 10 times: 1 + 10 requests, then a defined result
    server = canned((200, completion("no idea", logprob=-0.1), JSON))
    with pytest.warns(UserWarning, match="could not be read"):
        result = compute_llm_judge(["a"], backend=judge(server), template=SHORT, cache=False,
                                   on_unparseable="retry", unparseable_retries=10, weighting="parse")
    assert result["scores"] == [None] and result["unparseable"] == 1 and len(server.requests) == 11


def test_judge_errors_are_the_projects_and_a_cache_folder_must_exist(tmp_path):
    assert issubclass(JudgeServerError, ServerError) and issubclass(JudgeCacheError, CacheError)
    assert issubclass(JudgeError, ValueError) and issubclass(JudgeServerError, ValueError)
    assert str(JudgeServerError("at http://u:secret-pw@h/v1")) == "at http://***@h/v1"
    backend = Counting()
    with pytest.raises(OutputError, match="nodir"):  # a typo in a folder fails before anything is paid for
        compute_llm_judge(["a"], backend=backend, template=SHORT, cache=str(tmp_path / "nodir" / "judge.sqlite"))
    assert backend.asked == 0 and not (tmp_path / "nodir").exists()


def test_at_most_four_backends_are_kept(monkeypatch):
    from nlgmetrics.judge import core

    monkeypatch.setattr(core, "_BACKENDS", core.OrderedDict())
    made = [core.get_backend("openai", f"m{i}", base_url="http://127.0.0.1:1/v1") for i in range(6)]
    assert len(core._BACKENDS) == core.MAX_BACKENDS == 4
    assert [b.model for b in core._BACKENDS.values()] == ["m2", "m3", "m4", "m5"]
    assert made[0].client.is_closed() and not made[5].client.is_closed()  # an evicted client is closed
    assert core.get_backend("openai", "m5", base_url="http://127.0.0.1:1/v1") is made[5]  # reused, not rebuilt
