"""``make validity``: segment-level agreement with WMT17 human judgments (direct assessment, 5 to-English pairs).

By default this is one call of ``nlgmetrics agree`` (the command is printed and written beside the results): Pearson
of every metric with the DA scores per pair, with 95% bootstrap intervals and significance clusters, written to
results/agree-wmt17.{md,json,png}; SentBLEU's row is checked against the published one. ``--sweep`` runs the
configuration search below instead.

Sweep: for every configuration below and each pair (560 judged segments), Pearson r and Kendall tau between the metric's
per-segment scores and the standardized DA scores. Writes results/validity.{json,md,png}; the table sets the
published figures of the same data beside ours.

Configurations are chosen on de-en only (``--select-on``): the "selected" row per family is the best de-en Pearson,
reported on all pairs, so the average is not tuned to its own test.

    python -m benchmarks.validity [--data ../shared/data] [--pairs cs-en,de-en] [--quick] [--sweep]
"""

from __future__ import annotations

import argparse
import csv
import html
import json
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
from scipy.stats import kendalltau, pearsonr

from benchmarks.common import DA_PAIRS, DEFAULT_DATA, read_lines
from nlgmetrics.embed import configure_cache
from nlgmetrics.registry import available_metrics, get_metric
from nlgmetrics.resources import BUNDLED_ENCODER_ID

RESULTS = Path(__file__).resolve().parent / "results"
PUBLISHED = {  # ../shared/data/README.md (MoverScore README), Pearson, cs/de/ru/tr/zh-en
    "SentBLEU (published)": [0.435, 0.432, 0.484, 0.538, 0.512],
    "BERTScore roberta-large (published)": [0.670, 0.686, 0.729, 0.714, 0.704],
    "BERTScore MiniLM L6 (bert_score, same text)": [0.596, 0.619, 0.688, 0.638, 0.647],
    "MoverScore WMD-1 BERT-MNLI (published)": [0.670, 0.708, 0.738, 0.762, 0.744],
}


def load_judgments(data: Path, pair: str) -> tuple[list[str], list[str], np.ndarray]:
    """(predictions, references, human scores) for the judged segments of one pair, HTML-unescaped."""
    folder = Path(data) / "wmt17-da"
    src = pair.split("-")[0]
    reference = read_lines(folder / f"newstest2017-{src}en-ref.en")
    outputs: dict[str, list[str]] = {}
    predictions, references, human = [], [], []
    with open(folder / "DA-seglevel.csv", encoding="utf-8") as handle:
        for row in csv.DictReader(handle, delimiter=" "):
            if row["LP"] != pair:
                continue
            system = row["SYSTEM"].split("+")[0]
            if system not in outputs:
                outputs[system] = read_lines(folder / pair / f"newstest2017.{system}.{pair}")
            sid = int(row["SID"]) - 1
            predictions.append(html.unescape(outputs[system][sid]))
            references.append(html.unescape(reference[sid]))
            human.append(float(row["HUMAN"]))
    return predictions, references, np.array(human)


def _per_example(name: str, key: str, **options) -> Callable[[list[str], list[str]], list[float]]:
    def score(predictions, references):
        result = get_metric(name)(predictions, references, **options)
        return list(result[key])
    return score


def _negated(scorer: Callable[[list[str], list[str]], list[float]]) -> Callable[[list[str], list[str]], list[float]]:
    def score(predictions, references):
        return [-value for value in scorer(predictions, references)]
    return score


def _layer_mean(key: str, layers: Sequence[int], **options) -> Callable[[list[str], list[str]], list[float]]:
    """A layer ensemble: the mean over ``layers`` of BERTScore's per-example ``key`` (one call per layer; the shared
    cache keeps each layer's embeddings)."""
    def score(predictions, references):
        per_layer = [get_metric("bertscore")(predictions, references, num_layers=layer, **options)[key]
                     for layer in layers]
        return list(np.mean(per_layer, axis=0))
    return score


def configurations() -> dict[str, tuple[str, Callable]]:
    """Name -> (family, per-segment scorer), for the metrics available in this installation."""
    available = set(available_metrics())
    configs: dict[str, tuple[str, Callable]] = {}
    if "bleu" in available:
        configs["SentBLEU (exp smoothing)"] = ("SentBLEU", _per_example("bleu", "scores", sentence_scores=True))
    if "chrf" in available:
        configs["sentence chrF"] = ("chrF", _per_example("chrf", "scores", sentence_scores=True))
        configs["sentence chrF++"] = ("chrF", _per_example("chrf", "scores", sentence_scores=True, word_order=2))
    if "ter" in available:  # an error rate: its negation, so that a positive r means agreement
        configs["sentence TER (negated)"] = ("TER", _negated(_per_example("ter", "scores", sentence_scores=True)))
    if "meteor" in available:
        configs["METEOR"] = ("METEOR", _per_example("meteor", "scores"))
    if "rouge" in available:
        for rouge_type in ("rouge1", "rouge2", "rougeL"):
            configs[f"ROUGE {rouge_type} F"] = (
                "ROUGE", _per_example("rouge", rouge_type, rouge_types=[rouge_type], use_aggregator=False))
    if "bertscore" in available:
        for layer in (4, 5, 6):
            for idf in (False, True):
                for key in ("precision", "recall", "f1"):
                    configs[f"BERTScore MiniLM L{layer} {key[0].upper()}{' idf' if idf else ''}"] = (
                        "BERTScore", _per_example("bertscore", key, model_type=BUNDLED_ENCODER_ID,
                                                  num_layers=layer, idf=idf))
        for layers in ((4, 6), (4, 5, 6), (3, 4, 5, 6)):
            for idf in (False, True):
                configs[f"BERTScore MiniLM F mean of L{'+L'.join(map(str, layers))}{' idf' if idf else ''}"] = (
                    "BERTScore", _layer_mean("f1", layers, model_type=BUNDLED_ENCODER_ID, idf=idf))
    if "moverscore" in available:
        for n_gram in (1, 2, 3):
            for idf in (True, False):
                for distance in ("euclidean", "cosine"):
                    configs[f"MoverScore MiniLM {distance}{' idf' if idf else ''}{f' {n_gram}-gram' * (n_gram > 1)}"] = (
                        "MoverScore", _per_example("moverscore", "scores", model_type=BUNDLED_ENCODER_ID, idf=idf,
                                                   distance=distance, n_gram=n_gram))
    return configs


AGREE_METRICS = ["sacrebleu", "chrf", "ter", "meteor", "rouge:rouge1", "bertscore:bertscore_f1", "moverscore"]
AGREE_OPTIONS = [f"{m}.model_type={BUNDLED_ENCODER_ID}" for m in ("bertscore", "moverscore")]


def agree_command(data: Path, pairs: list[str], plot: Path) -> list[str]:
    """The ``nlgmetrics agree`` arguments of the report (SentBLEU = sacrebleu's sentence BLEU)."""
    folder = data / "wmt17-da"
    available = set(available_metrics())
    metrics = [m for m in AGREE_METRICS if m.partition(":")[0] in available]
    options = [item for option in AGREE_OPTIONS if option.partition(".")[0] in available for item in ("-o", option)]
    return ["agree", str(folder / "DA-seglevel.csv"), "--input", "wmt-da", "--pair", *pairs, "--texts", str(folder),
            "-m", *metrics, *options, "--plot", str(plot)]


def agree_report(data: Path, pairs: list[str]) -> int:
    """Run ``nlgmetrics agree`` on WMT17 DA; write its JSON, markdown and plot; set SentBLEU beside the published row."""
    import contextlib
    import io

    from nlgmetrics.cli import main as cli
    from nlgmetrics.agreement import report

    RESULTS.mkdir(exist_ok=True)
    argv = agree_command(data, pairs, RESULTS / "agree-wmt17.png")
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        code = cli([*argv, "--format", "json"])
    if code:
        return code
    result = json.loads(output.getvalue())
    published = dict(zip(DA_PAIRS, PUBLISHED["SentBLEU (published)"]))
    ours = {row["dataset"]: row["value"] for row in result["rows"] if row["metric"] == "sacrebleu"}
    gaps = ", ".join(f"{pair} {ours[pair] - published[pair]:+.3f}" for pair in pairs if pair in published)
    command = "nlgmetrics " + " ".join(argv).replace(str(data), "$DATA").replace(str(RESULTS.parent.parent) + "/", "")
    text = report(result, "markdown") + (
        f"\n\nPublished SentBLEU: {' / '.join(f'{published[p]:.3f}' for p in pairs if p in published)}; "
        f"ours minus published: {gaps}.\n\nCommand: `{command} -f markdown`\n")
    (RESULTS / "agree-wmt17.json").write_text(json.dumps(result, indent=1) + "\n")
    (RESULTS / "agree-wmt17.md").write_text(text)
    print(text)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--pairs", default=",".join(DA_PAIRS))
    parser.add_argument("--select-on", default="de-en")
    parser.add_argument("--only", default="", help="comma-separated substrings of configuration names")
    parser.add_argument("--quick", action="store_true", help="first 120 segments per pair (--sweep)")
    parser.add_argument("--sweep", action="store_true", help="the configuration search instead of the agree report")
    args = parser.parse_args()
    if not (args.data / "wmt17-da" / "DA-seglevel.csv").is_file():
        sys.exit(f"WMT17 DA data not found under {args.data}: pass --data PATH")
    pairs = args.pairs.split(",")
    if not args.sweep:
        return agree_report(args.data, pairs)
    data = {pair: load_judgments(args.data, pair) for pair in pairs}
    if args.quick:
        data = {pair: (p[:120], r[:120], h[:120]) for pair, (p, r, h) in data.items()}
    configure_cache(budget_mb=4096)  # every layer's embeddings of all pairs stay cached across configurations
    configs = configurations()
    if args.only:
        wanted = args.only.split(",")
        configs = {k: v for k, v in configs.items() if any(w in k for w in wanted)}
    table: dict[str, dict] = {}
    for name, (family, scorer) in configs.items():
        start = time.perf_counter()
        row = {"family": family, "pearson": {}, "kendall": {}}
        for pair, (predictions, references, human) in data.items():
            scores = np.asarray(scorer(predictions, references), dtype=float)
            if not np.all(np.isfinite(scores)):
                raise ValueError(f"{name} gave non-finite scores on {pair}")
            row["pearson"][pair] = float(pearsonr(scores, human)[0])
            row["kendall"][pair] = float(kendalltau(scores, human)[0])
        row["pearson_avg"] = float(np.mean(list(row["pearson"].values())))
        table[name] = row
        print(f"{name:<40} r=" + " ".join(f"{row['pearson'][p]:.3f}" for p in pairs)
              + f"  avg {row['pearson_avg']:.3f}  ({time.perf_counter() - start:.0f}s)", flush=True)

    earlier = RESULTS / f"validity{'-quick' if args.quick else ''}.json"
    if args.only and earlier.is_file():  # --only: the other configurations' last results are kept
        kept = json.loads(earlier.read_text())
        if kept.get("pairs") == pairs:
            table = {**kept["results"], **table}
    selected = {}
    if args.select_on in pairs:
        for family in sorted({row["family"] for row in table.values()}):
            best = max((n for n in table if table[n]["family"] == family),
                       key=lambda n: table[n]["pearson"][args.select_on])
            selected[family] = best
    RESULTS.mkdir(exist_ok=True)
    suffix = "-quick" if args.quick else ""
    (RESULTS / f"validity{suffix}.json").write_text(json.dumps(
        {"pairs": pairs, "segments": {p: len(d[2]) for p, d in data.items()}, "results": table,
         "selected_on": args.select_on, "selected": selected, "published": PUBLISHED}, indent=1))
    (RESULTS / f"validity{suffix}.md").write_text(markdown(table, selected, pairs, args.select_on, args.quick))
    plot(table, selected, pairs, RESULTS / f"validity{suffix}.png")
    print((RESULTS / f"validity{suffix}.md").read_text())
    return 0


def markdown(table: dict, selected: dict, pairs: list[str], select_on: str, quick: bool) -> str:
    """Two tables: the configuration selected per family (on ``select_on``) beside the published figures, then all."""
    head = "| configuration | " + " | ".join(pairs) + " | avg Pearson | avg Kendall |"
    rule = "|" + "---|" * (len(pairs) + 3)

    def row(name: str, mark: str = "") -> str:
        r = table[name]
        return (f"| {name}{mark} | " + " | ".join(f"{r['pearson'][p]:.3f}" for p in pairs)
                + f" | {r['pearson_avg']:.3f} | {np.mean(list(r['kendall'].values())):.3f} |")

    order = list(DA_PAIRS)
    published = [f"| {name} | " + " | ".join(f"{values[order.index(p)]:.3f}" if p in order else "" for p in pairs)
                 + f" | {np.mean(values):.3f} | |" for name, values in PUBLISHED.items()]
    lines = [
        f"Segment-level correlation with WMT17 DA ({'first 120' if quick else '560'} segments per pair), Pearson r "
        f"per pair. Each family's configuration was selected on {select_on} Pearson alone and is reported on every "
        "pair. Published rows: the data README (roberta-large BERTScore, BERT-MNLI MoverScore) and bert_score's own "
        "MiniLM figure on the same text.", "", head, rule,
        *[row(name) for name in selected.values()], *published,
        "", f"All configurations (* = selected on {select_on}):", "", head, rule,
        *[row(name, "*" if name in selected.values() else "") for name in table],
    ]
    return "\n".join(lines) + "\n"


def plot(table: dict, selected: dict, pairs: list[str], path: Path) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    rows = [(name, table[name]["pearson"]) for name in selected.values()]
    order = list(DA_PAIRS)
    rows += [(name, dict(zip(order, values))) for name, values in PUBLISHED.items()]
    fig, ax = plt.subplots(figsize=(10, 5.5))
    width = 0.8 / max(len(rows), 1)
    for i, (name, values) in enumerate(rows):
        ax.bar([j + i * width for j in range(len(pairs))], [values.get(p, 0.0) for p in pairs], width, label=name)
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(pairs))], pairs)
    ax.set_ylabel("Pearson r with WMT17 DA")
    ax.set_ylim(0.3, 0.8)
    ax.legend(fontsize=7, ncol=3, loc="upper center", bbox_to_anchor=(0.5, -0.08))
    ax.set_title("Segment-level agreement with human judgments (selected configurations vs published)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


if __name__ == "__main__":
    sys.exit(main())
