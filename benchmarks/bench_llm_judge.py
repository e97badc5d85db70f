"""LLM judge: requests/s against a local ``transformers serve`` with 1 vs N requests in flight, and a cached rerun vs
the first run.

The judge is the tiny random Llama of tests/tiny_judge.py (built here, served by a ``transformers serve`` subprocess
on 127.0.0.1); the texts are WMT17 en-de system outputs. Figures measure the client and cache machinery and the
server's request handling, not a real judge's generation cost (a real model's seconds per request dominate there,
and concurrency pays off on a server that batches: ``transformers serve`` runs one request at a time unless started
with ``--continuous-batching``, so both are measured).

    python -m benchmarks.bench_llm_judge [--quick]
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import load_wmt17_ende, main, peak_rss_mb

_TESTS = Path(__file__).resolve().parent.parent / "tests"
IN_FLIGHT = 8


def _texts(data: Path, n: int) -> list[str]:
    try:
        _, systems = load_wmt17_ende(data)
        texts = [line for lines in systems.values() for line in lines]
    except OSError:
        texts = [f"text number {i}" for i in range(n)]
    return list(dict.fromkeys(texts))[:n]  # distinct: every one is a request


def run(data: Path, quick: bool) -> dict:
    sys.path.insert(0, str(_TESTS))
    from judge_servers import ServeProcess
    from tiny_judge import tiny_judge_folder

    from nlgmetrics.judge import compute_llm_judge
    from nlgmetrics.judge.openai_backend import OpenAIBackend

    n = 24 if quick else 96
    texts = _texts(data, 2 * n)
    template = "score {prediction} from {low} to {high}"
    folder = tiny_judge_folder()
    rows, notes = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for mode, extra in (("default", ()), ("--continuous-batching", ("--continuous-batching",))):
            server = ServeProcess(folder, log=Path(tmp) / "serve.log", extra_args=extra).start()
            try:
                def judge(batch: list[str], in_flight: int, cache) -> tuple[float, dict]:
                    backend = OpenAIBackend(folder, base_url=server.base_url, max_concurrency=in_flight, timeout=120)
                    start = time.perf_counter()
                    result = compute_llm_judge(batch, backend=backend, template=template, weighting="parse",
                                               max_tokens=2, cache=cache, return_answers=True)
                    return time.perf_counter() - start, result

                judge(texts[:4], 1, False)  # warm-up: the server's first requests (continuous batching: ~30 s)
                one_s, one = judge(texts[:n], 1, False)
                many_s, many = judge(texts[:n], IN_FLIGHT, False)
                assert many["answers"] == one["answers"]  # same greedy answers however many are in flight
                rows.append({"case": f"{n} requests, {IN_FLIGHT} in flight vs 1 (transformers serve {mode})",
                             "ours_s": many_s, "anchor": "1 in flight", "anchor_s": one_s, "speedup": one_s / many_s,
                             "requests_per_s_1": n / one_s, f"requests_per_s_{IN_FLIGHT}": n / many_s})
                notes.append(f"transformers serve {mode}: {n / one_s:.1f} requests/s with 1 in flight, "
                             f"{n / many_s:.1f} with {IN_FLIGHT} (identical answers).")
                if mode != "default":
                    continue
                cache = str(Path(tmp) / "judge.sqlite")
                first_s, first = judge(texts[n:], IN_FLIGHT, cache)
                rerun_s, rerun = judge(texts[n:], IN_FLIGHT, cache)
                assert rerun["cache_hits"] == len(texts[n:]) and rerun["judged"] == 0
                assert rerun["scores"] == first["scores"]
                rows.append({"case": f"{len(texts) - n} judgments, cached rerun vs first run", "ours_s": rerun_s,
                             "anchor": "first run (fills the SQLite cache)", "anchor_s": first_s,
                             "speedup": first_s / rerun_s, "max_abs_diff": 0.0})
                notes.append(f"cached rerun: {rerun_s * 1000:.0f} ms for {len(texts) - n} judgments (first run "
                             f"{first_s:.2f} s, {IN_FLIGHT} in flight).")
            finally:
                server.stop()
    return {"metric": "llm_judge", "rows": rows, "notes": notes, "peak_rss_mb": peak_rss_mb()}


if __name__ == "__main__":
    main(run)
