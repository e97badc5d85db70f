"""Servers for the LLM-judge tests and benchmark, all on 127.0.0.1 and all stoppable:

- :class:`ServeProcess`: a real ``transformers serve`` subprocess serving a model folder on a free port;
- :class:`LogprobServer`: a stdlib OpenAI-compatible chat completions server that answers greedily from a local
  causal LM with real ``top_logprobs`` (``transformers serve`` ignores the logprobs fields, so G-Eval through the
  openai client is checked against this one);
- :class:`FlakyProxy`: forwards to an upstream server but answers 429 or 500 on a fixed share of requests;
- :class:`CannedServer`: answers every request with a fixed (often broken) body, and records what it was sent.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ServeProcess:
    """``transformers serve FOLDER`` on 127.0.0.1 in a subprocess (its own process group, always killed)."""

    def __init__(self, folder: str, port: int | None = None, log: Path | None = None,
                 extra_args: tuple[str, ...] = ()) -> None:
        self.folder, self.port = folder, port or free_port()
        self.log, self.extra_args = log, tuple(extra_args)
        self.process: subprocess.Popen | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self, wait_s: float = 90.0) -> ServeProcess:
        cli = Path(sys.executable).with_name("transformers")
        env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "HF_HUB_OFFLINE": "1",
               "TRANSFORMERS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
        out = open(self.log, "ab") if self.log else subprocess.DEVNULL
        self.process = subprocess.Popen(
            [str(cli), "serve", self.folder, "--host", "127.0.0.1", "--port", str(self.port), "--device", "cpu",
             "--log-level", "error", *self.extra_args],
            stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True,
        )
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"transformers serve exited with code {self.process.returncode} (log: {self.log})")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/health", timeout=1) as response:
                    if response.status == 200:
                        return self
            except (urllib.error.URLError, OSError):
                time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"transformers serve did not answer /health within {wait_s} s (log: {self.log})")

    def stop(self) -> None:
        """Kill the server's whole process group and wait for it."""
        if self.process is None or self.process.poll() is not None:
            return
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait(timeout=30)


class _Quiet(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args) -> None:
        pass

    def _send(self, status: int, body: bytes, content_type: str = "application/json",
              retry_after: str | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        if retry_after is not None:
            self.send_header("Retry-After", retry_after)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _read(self) -> bytes:
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))


class _Server:
    def __init__(self, handler: type) -> None:
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
        self.httpd.owner = self
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


class LogprobServer(_Server):
    """OpenAI-compatible ``/v1/chat/completions`` over a local causal LM: greedy answer, real ``top_logprobs``
    (softmax over the whole vocabulary at each answer position), ``system_fingerprint`` ``fp_tiny``."""

    def __init__(self, folder: str, fingerprint: str = "fp_tiny") -> None:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        self.torch = torch
        self.tokenizer = AutoTokenizer.from_pretrained(folder)
        self.model = AutoModelForCausalLM.from_pretrained(folder).eval()
        self.name, self.fingerprint = folder, fingerprint
        self.lock = threading.Lock()
        self.requests = 0
        super().__init__(_LogprobHandler)

    def complete(self, body: dict) -> dict:
        torch = self.torch
        ids = self.tokenizer.apply_chat_template(body["messages"], add_generation_prompt=True, return_tensors="pt",
                                                 return_dict=True)["input_ids"]
        prompt_tokens = ids.shape[1]
        content, tokens = [], []
        with self.lock, torch.no_grad():
            self.requests += 1
            for _ in range(int(body.get("max_tokens") or 1)):
                logprobs = torch.log_softmax(self.model(input_ids=ids).logits[0, -1].double(), -1)
                top = logprobs.topk(int(body.get("top_logprobs") or 1))
                chosen = int(logprobs.argmax())
                tokens.append(chosen)
                decode = self.tokenizer.decode
                content.append({"token": decode([chosen]), "logprob": float(logprobs[chosen]), "bytes": None,
                                "top_logprobs": [{"token": decode([int(i)]), "logprob": float(v), "bytes": None}
                                                 for v, i in zip(top.values, top.indices)]})
                if chosen == self.tokenizer.eos_token_id:
                    break
                ids = torch.cat([ids, torch.tensor([[chosen]])], dim=1)
        message = {"role": "assistant", "content": self.tokenizer.decode(tokens, skip_special_tokens=True)}
        return {
            "id": f"chatcmpl-{self.requests}", "object": "chat.completion", "created": int(time.time()),
            "model": self.name, "system_fingerprint": self.fingerprint,
            "choices": [{"index": 0, "finish_reason": "length", "message": message,
                         "logprobs": {"content": content} if body.get("logprobs") else None}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": len(tokens),
                      "total_tokens": prompt_tokens + len(tokens)},
        }


class _LogprobHandler(_Quiet):
    def do_POST(self) -> None:
        body = json.loads(self._read())
        if not self.path.endswith("/chat/completions"):
            self._send(404, b'{"error": {"message": "not found"}}')
            return
        self._send(200, json.dumps(self.server.owner.complete(body)).encode())


class FlakyProxy(_Server):
    """Forwards POSTs to ``upstream`` (``http://127.0.0.1:PORT``), except that request number k (counting from 1)
    gets a 429 when ``k % every_429 == 0`` and a 500 when ``k % every_500 == 0``. Records the bodies it forwarded
    and answered with 200, and the most requests it had in flight at once."""

    def __init__(self, upstream: str, every_429: int = 3, every_500: int = 4) -> None:
        self.upstream, self.every_429, self.every_500 = upstream.rstrip("/"), every_429, every_500
        self.lock = threading.Lock()
        self.count = self.in_flight = self.max_in_flight = 0
        self.refused = {429: 0, 500: 0}
        self.forwarded: list[dict] = []
        super().__init__(_ProxyHandler)


class _ProxyHandler(_Quiet):
    def do_POST(self) -> None:
        proxy = self.server.owner
        data = self._read()
        with proxy.lock:
            proxy.count += 1
            k = proxy.count
            proxy.in_flight += 1
            proxy.max_in_flight = max(proxy.max_in_flight, proxy.in_flight)
        try:
            status = 429 if k % proxy.every_429 == 0 else 500 if k % proxy.every_500 == 0 else None
            if status is not None:
                with proxy.lock:
                    proxy.refused[status] += 1
                self._send(status, json.dumps({"error": {"message": f"proxy says {status}"}}).encode(),
                           retry_after="0.05" if status == 429 else None)
                return
            request = urllib.request.Request(proxy.upstream + self.path, data=data, method="POST",
                                             headers={"Content-Type": "application/json"})
            with urllib.request.urlopen(request, timeout=60) as response:
                answer = response.read()
            with proxy.lock:
                proxy.forwarded.append(json.loads(data))
            self._send(200, answer)
        finally:
            with proxy.lock:
                proxy.in_flight -= 1


class CannedServer(_Server):
    """Answers every POST with ``answer(body) -> (status, bytes, content type)`` (default: a chat completion
    answering ``"3"``); records each request's path, headers (lower-case names) and body. For broken answers: HTML
    pages, error bodies, truncated JSON, empty choice lists, absurd logprobs."""

    def __init__(self, answer=None) -> None:
        self.answer = answer or (lambda body: (200, completion(), "application/json"))
        self.lock = threading.Lock()
        self.requests: list[tuple[str, dict, bytes]] = []
        super().__init__(_CannedHandler)


def completion(text: str = "3", logprob: object = -0.1, *, choices: list | None = None, raw: bool = False) -> bytes:
    """A chat completion body whose one answer token is ``text`` with ``logprob`` (written as given: ``raw=True``
    puts the text of ``logprob`` into the JSON as is, e.g. ``Infinity`` or ``800``)."""
    marker = "__LOGPROB__"
    top = [{"token": text, "logprob": marker if raw else logprob, "bytes": None}]
    body = {"id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": "canned",
            "system_fingerprint": "fp_canned",
            "choices": choices if choices is not None else [
                {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text},
                 "logprobs": {"content": [{"token": text, "logprob": marker if raw else logprob, "bytes": None,
                                           "top_logprobs": top}]}}],
            "usage": {"prompt_tokens": 5, "completion_tokens": 1, "total_tokens": 6}}
    data = json.dumps(body)
    return data.replace(f'"{marker}"', str(logprob)).encode() if raw else data.encode()


class _CannedHandler(_Quiet):
    def do_POST(self) -> None:
        server = self.server.owner
        data = self._read()
        with server.lock:
            server.requests.append((self.path, {k.lower(): v for k, v in self.headers.items()}, data))
        status, body, content_type = server.answer(json.loads(data) if data else {})
        self._send(status, body, content_type)


def lm_eval_judge_task(name: str, base_url: str, cache: object, key_line: str, generation: bool = True) -> str:
    """The YAML of an lm-eval task (integration/lm_eval's demo documents) whose one metric is our judge on
    ``base_url``; ``key_line`` is the judge's credential option as the YAML gives it (``api_key_env: NAME`` or
    ``api_key: ...``); ``generation``: the task's generation_kwargs (stop at a newline, 8 tokens)."""
    kwargs = 'generation_kwargs:\n  until: ["\\n"]\n  max_gen_toks: 8\n' if generation else ""
    return f"""task: {name}
custom_dataset: !function utils.load_demo
test_split: test
output_type: generate_until
doc_to_text: "Document: {{{{document}}}}\\nSummary:"
doc_to_target: "{{{{summary}}}}"
{kwargs}metric_list:
  - metric: !function nlgmetrics.integration.lm_eval.nlgm_llm_judge
    aggregation: nlgm_llm_judge
    higher_is_better: true
    backend: openai
    model: m
    base_url: {base_url}
    template: "{{reference}} {{prediction}} {{low}} {{high}}"
    cache: {cache}
    {key_line}
metadata:
  version: 1.0
"""
