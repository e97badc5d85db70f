"""BERTScore vs bert_score 0.3.13 on WMT17 DA de-en, bundled MiniLM (layer 6), CPU, side by side in one process.

Cases (``N`` segments of the reference and of four systems):

- ``cold call, model load included``: one system; ours starts with no encoder and an empty cache
  (``compute_bertscore``), bert_score with ``bert_score.score`` (which loads the model on every call).
- ``cold call, model loaded``: encoder / ``BERTScorer`` already loaded, empty embedding cache.
- ``encoder-forward floor``: only the encoder forward over the deduplicated, length-sorted batches that our call runs
  (the padding-free forward for BERT-family models, see ``nlgmetrics.embed.packed``);
  ``overhead`` = ours (model loaded, cold) / floor.
- ``padding-free vs padded forward``: the same batches through the model's own padded forward, as the engine ran
  before packing (and as bert_score runs, whose batches of word-count-sorted texts have more padding still).
- ``4 systems, 4 calls``: each system in its own call against the same references (a user comparing systems); ours
  starts with an empty cache, bert_score with a loaded ``BERTScorer``.
- ``warm repeat``: the same call again (ours from the cache; bert_score recomputes).
- ``stream``: ``S`` random pairs from all WMT17 DA text in chunks, in a subprocess with a 256 MiB cache budget: its
  peak RSS, and the RSS with 1/4 of the pairs, to show memory does not grow with the stream.

Every case checks P/R/F against bert_score (``max_abs_diff``). Run: ``python -m benchmarks.bench_bertscore
[--data ../shared/data] [--quick]``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import torch  # noqa: E402

from benchmarks.common import DEFAULT_DATA, load_wmt17_da, main, peak_rss_mb  # noqa: E402

LAYER = 6


def _diff(ours: dict, theirs) -> float:
    return max(
        max(abs(a - b) for a, b in zip(ours[key], t.tolist()))
        for key, t in zip(("precision", "recall", "f1"), theirs)
    )


def _clock(fn, repeat: int = 1, setup=None):
    """Best wall-clock and best process-CPU seconds of ``fn`` over ``repeat`` runs (``setup`` runs untimed before
    each), and the last result. CPU seconds are steadier than wall clock on a shared machine."""
    best, best_cpu, result = float("inf"), float("inf"), None
    for _ in range(repeat):
        if setup is not None:
            setup()
        start, cpu = time.perf_counter(), time.process_time()
        result = fn()
        best = min(best, time.perf_counter() - start)
        best_cpu = min(best_cpu, time.process_time() - cpu)
    return best, best_cpu, result


def _compare(ours_fn, anchor_fn, repeat: int, setup=None) -> tuple[tuple, tuple]:
    """``_clock`` of ours and of the anchor, taking turns (ours, anchor, ours, ...), so a slow spell of a shared
    machine does not land on one side only."""
    ours, theirs = (float("inf"), float("inf"), None), (float("inf"), float("inf"), None)
    for _ in range(repeat):
        o, t = _clock(ours_fn, 1, setup), _clock(anchor_fn, 1)
        ours = (min(ours[0], o[0]), min(ours[1], o[1]), o[2])
        theirs = (min(theirs[0], t[0]), min(theirs[1], t[1]), t[2])
    return ours, theirs


def _row(case: str, anchor: str, ours: tuple, theirs: tuple, diff) -> dict:
    """A result row from two ``_clock`` results: wall-clock and CPU-time speed-ups."""
    return {"case": case, "ours_s": ours[0], "anchor": anchor, "anchor_s": theirs[0], "speedup": theirs[0] / ours[0],
            "ours_cpu_s": ours[1], "anchor_cpu_s": theirs[1], "speedup_cpu": theirs[1] / ours[1], "max_abs_diff": diff}


def _floor_seconds(encoder, texts: list[str], batch_size: int, packed: bool) -> float:
    """The bare encoder forward over exactly the batches our engine runs (deduplicated, length-sorted, windows
    included), inputs prebuilt, nothing else timed: ``packed`` the engine's padding-free forward, else the model's
    own padded forward (what the engine ran before packing, and what bert_score runs)."""
    from nlgmetrics.embed.encoder import plan_batches
    from nlgmetrics.embed.packed import packed_hidden_states

    unique = list(dict.fromkeys(texts))
    seqs = [piece for ids in encoder.token_ids(unique) for piece in encoder._pieces(ids, "window")]
    plan = plan_batches([len(s) for s in seqs], batch_size)
    if packed:
        start = time.perf_counter()
        with torch.inference_mode():
            for batch in plan:
                packed_hidden_states(encoder.model, [seqs[k] for k in batch], LAYER, encoder.device)
        return time.perf_counter() - start
    batches = []
    for batch in plan:
        chunk = [seqs[k] for k in batch]
        width = max(len(s) for s in chunk)
        ids = torch.full((len(chunk), width), encoder.pad_id, dtype=torch.long)
        mask = torch.zeros((len(chunk), width), dtype=torch.long)
        for row, s in enumerate(chunk):
            ids[row, : len(s)] = torch.tensor(s)
            mask[row, : len(s)] = 1
        batches.append((ids, None if all(len(s) == width for s in chunk) else mask))
    start = time.perf_counter()
    with torch.inference_mode():
        for ids, mask in batches:
            encoder.model(input_ids=ids, attention_mask=mask)
    return time.perf_counter() - start


def _stream_rss(pairs: int, data: Path, model_type: str) -> dict:
    """Run the stream case in a fresh interpreter; returns its peak RSS (MiB) at 1/4 and at all pairs."""
    code = f"""
import json, random, resource, sys, torch
torch.set_num_threads({torch.get_num_threads()})
sys.path.insert(0, {str(Path(__file__).resolve().parent.parent)!r})
from benchmarks.common import DA_PAIRS, load_wmt17_da
from nlgmetrics.embed import configure_cache
from nlgmetrics.semantic.bertscore import compute_bertscore
configure_cache(budget_mb=256)
texts = []
import os
for pair in DA_PAIRS:
    if not os.path.isdir(os.path.join({str(data)!r}, "wmt17-da", pair)):
        continue
    ref, systems = load_wmt17_da({str(data)!r}, pair)
    texts += ref
    for hyps in systems.values():
        texts += hyps
rng = random.Random(0)
n = {pairs}
cands = [rng.choice(texts) for _ in range(n)]
refs = [rng.choice(texts) for _ in range(n)]
rss = lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
out, marks = [], {{}}
step = max(n // 4, 1)
for start in range(0, n, step):
    out += compute_bertscore(cands[start:start + step], refs[start:start + step], model_type={model_type!r},
                             num_layers=6)["f1"]
    marks[min(start + step, n)] = rss()
print(json.dumps({{"n": len(out), "marks": marks, "unique_texts": len(set(cands + refs))}}))
"""
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    result["seconds"] = time.perf_counter() - start
    return result


def run(data: Path = DEFAULT_DATA, quick: bool = False) -> dict:
    import bert_score

    from nlgmetrics.embed import clear_encoders, get_cache, get_encoder
    from nlgmetrics.resources import bundled_encoder_path
    from nlgmetrics.semantic.bertscore import compute_bertscore

    torch.set_num_threads(int(os.environ.get("BENCH_THREADS", "2")))
    n = 150 if quick else 600
    stream_pairs = 1000 if quick else 6000
    reference, systems = load_wmt17_da(data, "de-en")
    names = sorted(systems)[:4]
    refs = reference[:n]
    hyps = {name: systems[name][:n] for name in names}
    model_dir = os.environ.get("BENCH_MODEL_DIR") or bundled_encoder_path()  # a copy elsewhere (e.g. a GPU host)
    model_type = model_dir if os.environ.get("BENCH_MODEL_DIR") else "sentence-transformers/all-MiniLM-L6-v2"
    opts = dict(model_type=model_type, num_layers=LAYER)
    rows = []

    repeat = 1 if quick else int(os.environ.get("BENCH_REPEAT", "3"))
    cold = lambda: get_cache().clear()  # noqa: E731

    # 1. cold call, model load included
    ours, theirs = _compare(
        lambda: compute_bertscore(hyps[names[0]], refs, **opts),
        lambda: bert_score.score(hyps[names[0]], refs, model_type=model_dir, num_layers=LAYER),
        repeat, lambda: (clear_encoders(), get_cache().clear()),
    )
    rows.append(_row(f"cold call, model load included ({n} pairs)", "bert_score.score", ours, theirs,
                     _diff(ours[2], theirs[2])))

    # 2. cold call, model loaded; 3. floor
    scorer = bert_score.BERTScorer(model_type=model_dir, num_layers=LAYER)
    encoder = get_encoder(opts["model_type"])
    ours, theirs = _compare(lambda: compute_bertscore(hyps[names[0]], refs, **opts),
                            lambda: scorer.score(hyps[names[0]], refs), repeat, cold)
    floors = [(_floor_seconds(encoder, hyps[names[0]] + refs, 64, encoder.packed),
               _floor_seconds(encoder, hyps[names[0]] + refs, 64, False)) for _ in range(repeat)]
    floor_s, padded_s = min(f[0] for f in floors), min(f[1] for f in floors)
    rows.append(_row(f"cold call, model loaded ({n} pairs)", "BERTScorer.score", ours, theirs, _diff(ours[2], theirs[2])))
    rows.append({"case": "encoder-forward floor (same batches)", "ours_s": floor_s, "anchor": "ours / floor",
                 "anchor_s": ours[0], "speedup": floor_s / ours[0], "overhead": ours[0] / floor_s, "max_abs_diff": ""})
    rows.append({"case": "padding-free vs padded forward (same batches)", "ours_s": floor_s,
                 "anchor": "model forward, padded", "anchor_s": padded_s, "speedup": padded_s / floor_s,
                 "max_abs_diff": ""})

    # 4. four systems in four calls, same references
    ours, theirs = _compare(lambda: [compute_bertscore(hyps[name], refs, **opts) for name in names],
                            lambda: [scorer.score(hyps[name], refs) for name in names], repeat, cold)
    rows.append(_row(f"{len(names)} systems, {len(names)} calls, same references", "BERTScorer.score", ours, theirs,
                     max(_diff(o, t) for o, t in zip(ours[2], theirs[2]))))

    # 5. warm repeat of the last call
    ours = _clock(lambda: compute_bertscore(hyps[names[-1]], refs, **opts), 3)
    theirs = _clock(lambda: scorer.score(hyps[names[-1]], refs), repeat)
    rows.append(_row("warm repeat of a call", "BERTScorer.score", ours, theirs, _diff(ours[2], theirs[2])))

    # 6. streaming memory (subprocess)
    stream = _stream_rss(stream_pairs, data, model_type)
    marks = {int(k): v for k, v in stream["marks"].items()}
    first, last = marks[min(marks)], marks[max(marks)]
    rows.append({"case": f"stream {stream_pairs} random pairs, 256 MiB cache", "ours_s": stream["seconds"],
                 "anchor": "-", "anchor_s": "", "speedup": "", "max_abs_diff": "",
                 "peak_rss_mb": last, "rss_after_quarter_mb": first, "unique_texts": stream["unique_texts"]})
    return {
        "metric": "bertscore",
        "rows": rows,
        "peak_rss_mb": peak_rss_mb(),
        "notes": [
            f"WMT17 DA de-en, first {n} segments, systems {', '.join(names)}; {torch.get_num_threads()} torch threads, "
            f"CPU, sentence-transformers/all-MiniLM-L6-v2 layer 6, fp32; best of {repeat} runs taken in turns with the "
            "anchor (BENCH_REPEAT), caches cleared before each cold run; speed-ups in wall clock and process CPU time.",
            "ours: nlgmetrics compute_bertscore (dedup, exact token-length sort, padding-free forward, cache); anchor: "
            "bert_score 0.3.13.",
            f"stream: peak RSS {first:.0f} MiB after 1/4 of the pairs, {last:.0f} MiB after all "
            f"({stream['unique_texts']} distinct texts).",
        ],
    }


if __name__ == "__main__":
    main(run)
