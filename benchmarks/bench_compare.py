"""Paired significance over the 16 WMT17 en-de systems: nlgmetrics.compare vs sacrebleu 2.6's paired tests.

Case ``paired-bs``: baseline + 15 systems, BLEU (and chrF when nlgmetrics has it), 1,000 bootstrap resamples, as
``sacrebleu REF -i SYS... -m bleu chrf --paired-bs``; in-process, both from cold caches, best of ``repeat``. The
rows also check that every score, p-value, mean and interval is equal (max abs diff). Case ``command``: the same as
two commands in fresh processes (imports included), when this nlgmetrics has the ``compare`` subcommand, and the
same for ``--paired-ar`` (10,000 trials). Case ``bertscore``: BERTScore (bundled MiniLM, layer 6) over the 16
systems x ``N`` segments, ``compare`` with the paired bootstrap from an empty embedding cache against bert_score 0.3.13's loaded ``BERTScorer`` scoring each system in
its own call (no test: bert_score has none), with how many texts each embeds (ours: the references once) and the
largest difference of a system's mean F1.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import DEFAULT_DATA, load_wmt17_ende, main, peak_rss_mb, timed
from nlgmetrics.registry import available_metrics

SACREBLEU_NAMES = {"bleu": "BLEU", "chrf": "chrF2"}


def _clear_caches() -> None:
    from benchmarks.bench_bleu import _clear_caches as clear_bleu

    clear_bleu()
    try:
        from nlgmetrics.lexical import chrf

        for name in dir(chrf):
            function = getattr(chrf, name)
            if hasattr(function, "cache_clear"):
                function.cache_clear()
    except ImportError:
        pass


def _sacrebleu(systems: dict[str, list[str]], reference: list[str], metrics: list[str], test: str, n: int):
    from sacrebleu.metrics import BLEU, CHRF
    from sacrebleu.significance import PairedTest

    objects = {"bleu": BLEU, "chrf": CHRF}
    ps = PairedTest(list(systems.items()), {SACREBLEU_NAMES[m]: objects[m]() for m in metrics}, references=[reference],
                    test_type=test, n_samples=n)
    _, scores = ps()
    return scores


def _max_diff(ours: list[dict], theirs: dict, metrics: list[str]) -> float:
    worst = 0.0
    names = theirs["System"]
    for row in ours:
        result = theirs[SACREBLEU_NAMES[row["metric"]]][names.index(row["system"])]
        for key, value in (("score", result.score), ("p_value", result.p_value), ("mean", result.mean),
                           ("ci", result.ci)):
            if value is not None:
                worst = max(worst, abs(row[key] - value))
    return worst


def _commands(reference: list[str], systems: dict[str, list[str]], metrics: list[str], test: str) -> dict | None:
    """Both command lines (``--paired-bs`` or ``--paired-ar``) in fresh processes, one run each: seconds, or None
    without our subcommand."""
    help_text = subprocess.run([sys.executable, "-m", "nlgmetrics.cli", "--help"], capture_output=True, text=True)
    if " compare" not in help_text.stdout:
        return None
    with tempfile.TemporaryDirectory() as folder:
        ref = Path(folder) / "ref.txt"
        ref.write_text("\n".join(reference) + "\n", encoding="utf-8")
        files = []
        for name, lines in systems.items():
            files.append(Path(folder) / name)
            files[-1].write_text("\n".join(lines) + "\n", encoding="utf-8")
        theirs = [sys.executable, "-m", "sacrebleu", str(ref), "-i", *map(str, files), "-m", *metrics, f"--paired-{test}",
                  "-f", "text"]  # sacrebleu's default JSON output crashes on its float32 results
        ours = [sys.executable, "-m", "nlgmetrics.cli", "compare", "-r", str(ref), "--baseline", str(files[0]),
                *map(str, files[1:]), "-m", *metrics, f"--paired-{test}"]
        out = {}
        for label, command in (("ours", ours), ("anchor", theirs)):
            start = time.perf_counter()
            subprocess.run(command, check=True, capture_output=True)
            out[label] = time.perf_counter() - start
        return out


def _bertscore_row(reference: list[str], systems: dict[str, list[str]], n: int) -> dict:
    """16 systems' BERTScore: compare (references embedded once) vs one BERTScorer call per system."""
    import bert_score
    import torch

    from nlgmetrics import compare
    from nlgmetrics.embed import Encoder, get_cache
    from nlgmetrics.resources import bundled_encoder_path

    torch.set_num_threads(2)
    refs = reference[:n]
    hyps = {name: lines[:n] for name, lines in systems.items()}
    options = {"bertscore": {"model_type": "minilm", "num_layers": 6}}
    warm_up = {name: lines[:2] for name, lines in list(hyps.items())[:2]}
    compare(warm_up, refs[:2], ["bertscore"], n_resamples=10, metric_options=options)  # loads the encoder
    embedded: list[str] = []
    original = Encoder.compute

    def counting(self, texts, *args, **kwargs):
        embedded.extend(texts)
        return original(self, texts, *args, **kwargs)

    get_cache().clear()
    Encoder.compute = counting
    try:
        start = time.perf_counter()
        ours = compare(hyps, refs, ["bertscore"], n_resamples=1000, metric_options=options)
        ours_s = time.perf_counter() - start
    finally:
        Encoder.compute = original
    scorer = bert_score.BERTScorer(model_type=bundled_encoder_path(), num_layers=6)
    start = time.perf_counter()
    theirs = {name: float(scorer.score(lines, refs)[2].mean()) for name, lines in hyps.items()}
    anchor_s = time.perf_counter() - start
    f1 = {row["system"]: row["score"] for row in ours if row["metric"] == "bertscore_f1"}
    return {
        "case": f"bertscore (MiniLM), {len(hyps)} systems x {n}, paired-bs 1000; texts embedded: ours "
                f"{len(embedded)} distinct (of {len(hyps)} x {n} outputs + {n} references), bert_score {2 * n * len(hyps)}",
        "ours_s": ours_s, "anchor": "bert_score 0.3.13 BERTScorer.score per system (no test)", "anchor_s": anchor_s,
        "speedup": anchor_s / ours_s, "max_abs_diff": max(abs(f1[name] - theirs[name]) for name in hyps),
    }


def run(data: Path = DEFAULT_DATA, quick: bool = False) -> dict:
    from nlgmetrics import compare

    reference, systems = load_wmt17_ende(data)
    if quick:
        reference = reference[:500]
        systems = {name: lines[:500] for name, lines in list(systems.items())[:4]}
    metrics = ["bleu"] + (["chrf"] if "chrf" in available_metrics() else [])
    repeat = 1 if quick else 3

    def ours():
        _clear_caches()
        return compare(systems, reference, metrics, paired="bs", n_resamples=1000)

    def anchor():
        _clear_caches()
        return _sacrebleu(systems, reference, metrics, "bs", 1000)

    ours_s, ours_rows = timed(ours, repeat)
    anchor_s, anchor_scores = timed(anchor, repeat)
    rows = [{
        "case": f"paired-bs 1000, {' + '.join(metrics)}, {len(systems)} systems x {len(reference)} (in process)",
        "ours_s": ours_s, "anchor": "sacrebleu 2.6 PairedTest", "anchor_s": anchor_s, "speedup": anchor_s / ours_s,
        "max_abs_diff": _max_diff(ours_rows, anchor_scores, metrics),
    }]
    for test, label in (("bs", "same, as commands"), ("ar", "paired-ar 10000 trials, as commands")):
        commands = _commands(reference, systems, metrics, test)
        if commands:
            rows.append({
                "case": f"{label} (nlgmetrics compare vs sacrebleu --paired-{test}), one run each",
                "ours_s": commands["ours"], "anchor": "sacrebleu 2.6 command", "anchor_s": commands["anchor"],
                "speedup": commands["anchor"] / commands["ours"],
            })
    rows.append(_bertscore_row(reference, systems, 60 if quick else 300))
    return {"metric": "compare", "rows": rows, "peak_rss_mb": peak_rss_mb(),
            "notes": ["scores, p-values, bootstrap means and intervals compared with sacrebleu's (max abs diff)"]}


if __name__ == "__main__":
    main(run)
