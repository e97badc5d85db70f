"""The cross-entry-point matrix (issue 42): every metric of the spec (``registry.SPECS``) through every entry point, on
the same texts, gives the core's numbers (``registry.score``) and the core's signature, or the difference is listed in
:data:`DIFFERENCES`, the one table of differences, with its reason.

- :data:`ENTRY_POINTS` names every entry point; :func:`discovered_entry_points` finds them in the package (the CLI
  commands that take ``-m``, the framework adapters in ``nlgmetrics/integration``, the evaluate modules, the public
  Python API), so one added later without a place in the matrix fails tests/test_matrix.py.
- The metrics come from ``SPECS``: a metric added later is run everywhere; one that needs a model gets a tiny one
  from :data:`BUILDERS` (or the matrix fails, naming the builder to write).
- :func:`check` is the one assertion: tests/test_matrix.py runs it for the in-process entry points, the framework
  tests (Inspect and lighteval, lm-eval, Ray) for what their single runs record.

A listed difference is checked to hold, so the table cannot go stale: ``options`` (the entry point's defaults differ;
its numbers and signature are the core's with those options, and the signature names them), ``sample_signature``
(the numbers are the core's; the signature each sample carries is that of these options), ``refused`` (the entry
point refuses the metric, saying why), ``no_signature`` (the framework keeps numbers only), ``negated`` (agree turns
error rates around), ``no_sources`` (the entry point has no source texts to give). Views: most entry points report corpus headlines; agree and Ray report per-segment scores, the
spec's per-example columns (``sentence_bleu`` for BLEU: another statistic, under its own name).
"""

from __future__ import annotations

import argparse
import json
import math
import pkgutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nlgmetrics.registry import EMBEDDING, SOURCES_NONE, SPECS, MetricSpec, score

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "integration" / "data" / "wmt17_deen_24.jsonl"
N = 8
#: the seed evaluate modules are loaded with (HF's rouge draws its bootstrap aggregate from it)
MODULE_SEED = 42

#: every entry point, in report order; the value says what it reports (see the module docstring)
ENTRY_POINTS: dict[str, str] = {
    "core": "corpus",  # registry.score: the reference every other entry point is compared with
    "evaluate": "corpus",  # evaluate.load("./metrics/<name>").compute(...), return_signature where the module has it
    "evaluate.add_batch": "corpus",  # the same module fed by add_batch, then compute()
    "nlg_suite": "corpus",  # evaluate.load("./metrics/nlg_suite") with flat=False
    "cli.score": "corpus",  # nlgmetrics score -m <every metric> -f json, one command
    "compare": "corpus",  # nlgmetrics.compare(): the baseline rows' full-corpus scores
    "cli.compare": "corpus",  # nlgmetrics compare -f json
    "agree": "segment",  # nlgmetrics.agree(keep_scores=True): the per-segment scores it correlates
    "cli.agree": "signature",  # nlgmetrics agree -f json: correlations, and each metric's signature
    "trainer": "corpus",  # make_compute_metrics(...)(EvalPrediction): flat floats, signatures kept on the callable
    "inspect": "corpus",  # the scorers' corpus metric; the signature of each sample's metadata
    "lighteval": "corpus",  # nlgmetrics_metric(...) in a custom task
    "lm_eval": "corpus",  # nlgm_* aggregations
    "ray": "segments",  # score_dataset(...): one column per per-example score
    # MBR and reranking select candidates: what they say of the metric is its signature, inside their own
    "cli.mbr": "utility",  # nlgmetrics mbr -m METRIC: utility:NAME{the metric's signature}
    "cli.rerank": "utility",  # nlgmetrics rerank -m METRIC -r REFS: metric:NAME{the metric's signature}
    "ray_mbr": "utility",  # select_dataset(...): the same mbr() per batch (tests/test_ray_data.py runs chrf on it)
}

#: where each discovered entry point is in the matrix: CLI commands, adapter modules, Python API names
DISCOVERED = {
    "cli:score": "cli.score", "cli:compare": "cli.compare", "cli:agree": "cli.agree",
    "integration:inspect": "inspect", "integration:lighteval": "lighteval", "integration:lm_eval": "lm_eval",
    "integration:ray_data": "ray", "integration:transformers": "trainer",
    "api:compare": "compare", "api:agree": "agree", "modules": "evaluate", "module:nlg_suite": "nlg_suite",
    "cli:mbr": "cli.mbr", "cli:rerank": "cli.rerank", "integration:ray_mbr": "ray_mbr",
}
#: modules of nlgmetrics/integration that are shared code, not entry points
INTEGRATION_HELPERS = ("suite", "samplewise", "evaluate_support")


@dataclass(frozen=True)
class Difference:
    """One listed difference: at ``entry`` (a name of :data:`ENTRY_POINTS`), for the metrics ``applies`` selects
    (``applies(spec, options)``), what differs and why."""

    entry: str
    applies: Callable[[MetricSpec, Mapping[str, Any]], bool]
    kind: str  # "options", "sample_signature", "refused", "no_signature", "negated", "no_sources"
    reason: str
    options: Mapping[str, Any] = field(default_factory=dict)  # "options", "sample_signature": what it runs with
    match: str = ""  # kind "refused": a fragment of the entry point's error


def _every(spec: MetricSpec, options: Mapping[str, Any]) -> bool:
    return True


def _named(*names: str) -> Callable[[MetricSpec, Mapping[str, Any]], bool]:
    return lambda spec, options: spec.name in names


def _no_additive_statistics(spec: MetricSpec, options: Mapping[str, Any]) -> bool:
    return spec.corpus_level and not spec.statistics


def _no_per_example(spec: MetricSpec, options: Mapping[str, Any]) -> bool:
    return not spec.per_example and not spec.per_example_lists


def _corpus_idf(spec: MetricSpec, options: Mapping[str, Any]) -> bool:
    from nlgmetrics.integration.samplewise import sample_options

    return sample_options(spec.name, options) != dict(options)


_NO_SOURCES = ("agree's judgments hold hypotheses and references, no source texts: a metric that reads sources where "
               "given scores without them (as its compute function does with sources=None)")
_CORPUS_IDF_REASON = ("one sample is no corpus (every idf weight would be 0): each sample is scored with idf=False and "
                      "its metadata carries that signature; the corpus metric is recomputed with the corpus idf")
_PER_SEGMENT_SOURCES = ("agree scores the judged hypotheses against their references; it reads no source texts, "
                        "which this checkpoint needs")

#: The one table of differences between entry points (see the module docstring for the kinds).
DIFFERENCES: tuple[Difference, ...] = (
    Difference("evaluate", _named("rouge"), "options", "HF evaluate's rouge module aggregates by bootstrap (the median "
               "of 1000 resample means drawn with the module's seed), as HF's; the core takes the exact mean. The "
               "signature names it (agg:bootstrap[numpy_seed=...])",
               {"aggregator": "bootstrap", "numpy_seed": MODULE_SEED}),
    Difference("evaluate.add_batch", _named("rouge"), "options", "as for evaluate",
               {"aggregator": "bootstrap", "numpy_seed": MODULE_SEED}),
    Difference("trainer", lambda spec, options: spec.sentence_lines, "options", "Trainer's compute_metrics splits "
               "texts into sentences for rougeLsum (sentence_split='regex', its default, as summarization training "
               "scripts do); the signature names the split", {"sentence_split": "regex"}),
    Difference("compare", _no_additive_statistics, "refused", "a corpus statistic without additive per-segment "
               "statistics cannot be resampled segment by segment", match="cannot be resampled"),
    Difference("cli.compare", _no_additive_statistics, "refused", "as for compare", match="cannot be resampled"),
    Difference("agree", _no_per_example, "refused",
               "agree correlates per-segment scores; this metric has none", match="no per-example score"),
    Difference("cli.agree", _no_per_example, "refused",
               "as for agree", match="no per-example score"),
    Difference("agree", lambda spec, options: spec.sources == "optional" and spec.input_needs is not None,
               "refused", _PER_SEGMENT_SOURCES, match="needs sources"),
    Difference("cli.agree", lambda spec, options: spec.sources == "optional" and spec.input_needs is not None,
               "refused", _PER_SEGMENT_SOURCES, match="needs sources"),
    Difference("agree", lambda spec, options: spec.sources != SOURCES_NONE, "no_sources", _NO_SOURCES),
    Difference("cli.agree", lambda spec, options: spec.sources != SOURCES_NONE, "no_sources", _NO_SOURCES),
    Difference("agree", lambda spec, options: not spec.higher_is_better, "negated", "agree correlates scores "
               "where higher is better: an error rate's scores are negated and its label says so (-sentence_ter)"),
    Difference("inspect", _corpus_idf, "sample_signature", _CORPUS_IDF_REASON, {"idf": False}),
    Difference("lighteval", _every, "no_signature", "lighteval's results hold numbers only; the options are in its "
               "task config"),
    Difference("lm_eval", _every, "no_signature", "lm-eval's aggregations return floats; the options are in its "
               "results' configs"),
    Difference("ray", _every, "no_signature", "score_dataset adds score columns to the rows; the options are the "
               "caller's"),
    Difference("ray", _no_per_example, "refused", "a corpus statistic with no per-example score has no "
               "column", match="no per-example score"),
    *(Difference(entry, _no_per_example, "refused", "MBR and reranking compare candidates one by one: a corpus "
                 "statistic with no per-example score cannot", match="no per-example score")
      for entry in ("cli.mbr", "cli.rerank", "ray_mbr")),
    *(Difference(entry, _corpus_idf, "options", "each candidate pair is scored on its own, and one pair is no corpus: "
                 "idf off (samplewise.sample_options, the rule of every per-sample entry point), named in the "
                 "utility's signature", {"idf": False})
      for entry in ("cli.mbr", "cli.rerank", "ray_mbr")),
)


def differences(entry: str, metric: str, options: Mapping[str, Any]) -> list[Difference]:
    """The listed differences of ``metric`` at ``entry`` with ``options``."""
    spec = SPECS[metric]
    return [d for d in DIFFERENCES if d.entry == entry and d.applies(spec, options)]


def refusal(entry: str, metric: str, options: Mapping[str, Any]) -> Difference | None:
    return next((d for d in differences(entry, metric, options) if d.kind == "refused"), None)


# -- the texts and the models --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Texts:
    """What every entry point scores: ``predictions`` against ``references`` (one each), ``sources`` for the metrics
    that read them; ``other`` is a second system (compare)."""

    predictions: list[str]
    references: list[str]
    sources: list[str] | None = None
    other: list[str] | None = None


def matrix_texts(n: int = N) -> Texts:
    """The first ``n`` segments of integration/data/wmt17_deen_24.jsonl: WMT17 de-en (tokenized, lowercased), C-3MA's
    outputs against the reference, online-B as the second system."""
    rows = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines()][:n]
    return Texts([r["c3ma"] for r in rows], [r["reference"] for r in rows], [r["source"] for r in rows],
                 [r["online_b"] for r in rows])


def build_comet(folder: Path) -> Path:
    """A tiny COMET regression estimator in Unbabel's layout (hparams.yaml, checkpoints/model.ckpt), its weights our
    own modules' seeded initialisation, on a 2-layer XLM-R encoder (tests/comet_builder.py) beside it."""
    import torch
    import transformers
    import yaml
    from comet_builder import build_encoder
    from learned_checkpoints import wmt17_lines

    from nlgmetrics.learned.comet import comet_modules

    encoder = build_encoder(folder.parent / f"{folder.name}-encoder", wmt17_lines()[:2000], vocab_size=1000,
                            num_hidden_layers=2, hidden_size=32, intermediate_size=64)
    hparams = {"class_identifier": "regression_metric", "encoder_model": "XLM-RoBERTa", "hidden_sizes": [16],
               "layer": "mix", "layer_transformation": "softmax", "layer_norm": False, "pool": "avg",
               "dropout": 0.1, "activations": "Tanh", "final_activation": None, "pretrained_model": str(encoder)}
    torch.manual_seed(0)
    modules = comet_modules(hparams, transformers.XLMRobertaConfig.from_pretrained(encoder),
                            transformers.XLMRobertaModel)
    (folder / "checkpoints").mkdir(parents=True)
    (folder / "hparams.yaml").write_text(yaml.safe_dump(hparams), encoding="utf-8")
    state = {prefix + key: value for prefix, module in modules.items() for key, value in module.state_dict().items()}
    torch.save({"state_dict": state}, folder / "checkpoints" / "model.ckpt")
    return folder


def _bleurt(folder: Path) -> dict[str, Any]:
    from learned_checkpoints import build_bleurt

    return {"checkpoint": str(build_bleurt(folder, "bert"))}


def _metricx(folder: Path) -> dict[str, Any]:
    from learned_checkpoints import build_metricx

    return {"checkpoint": str(build_metricx(folder))}


def _judge(folder: Path) -> dict[str, Any]:
    from tiny_judge import tiny_judge_folder

    return {"model": tiny_judge_folder(), "backend": "transformers"}


#: metric -> (folder -> the options naming a tiny model built there), for every metric that needs a checkpoint
BUILDERS: dict[str, Callable[[Path], dict[str, Any]]] = {
    "comet": lambda folder: {"model": str(build_comet(folder))},
    "bleurt": _bleurt,
    "metricx": _metricx,
    "llm_judge": _judge,
}


def model_options(root: Path, metrics: Sequence[str] | None = None) -> dict[str, dict[str, Any]]:
    """The options each metric of ``metrics`` (default: every one) is run with in the matrix: the bundled MiniLM for
    the embedding metrics, a tiny checkpoint built under ``root`` for those that need one (:data:`BUILDERS`), none
    for the others. A metric that needs a checkpoint and has no builder is an error naming the fix."""
    from nlgmetrics.resources import BUNDLED_ENCODER_ID

    out = {}
    for name in metrics or SPECS:
        spec = SPECS[name]
        if spec.kind == EMBEDDING:
            out[name] = {"model_type": BUNDLED_ENCODER_ID}
        elif spec.needs_checkpoint:
            if name not in BUILDERS:
                raise KeyError(f"the matrix has no tiny checkpoint for {name}: add a builder to BUILDERS in "
                               "tests/entry_matrix.py")
            out[name] = BUILDERS[name](root / name)
        else:
            out[name] = {}
    return out


def reads_sources(metric: str) -> bool:
    return SPECS[metric].sources != SOURCES_NONE


# -- what an entry point gave, and what it should give -----------------------------------------------------------
@dataclass
class Outcome:
    """What one entry point gave for one metric: its numbers (``{name: value}``; a list per segment in the segment
    views; None where it reports none), its signature (None where it carries none), or the error it raised."""

    values: dict[str, Any] | None = None
    signature: str | None = None
    error: str | None = None


def expected(metric: str, options: Mapping[str, Any], texts: Texts, view: str) -> tuple[dict[str, Any], str | None]:
    """The core's numbers (in ``view``) and signature for ``metric`` with ``options`` on ``texts`` (their sources given
    to a metric that reads them). The option ``sentence_split`` is the suite's (Trainer): the texts split as the
    suite splits them."""
    key = (metric, json.dumps(options, sort_keys=True, default=str), view, tuple(texts.predictions),
           tuple(texts.references), tuple(texts.sources or ()))
    if key not in _EXPECTED:  # each check asks again for the same core run: once per process
        _EXPECTED[key] = _expected(metric, options, texts, view)
    return _EXPECTED[key]


_EXPECTED: dict[tuple, tuple[dict[str, Any], str | None]] = {}


def _expected(metric: str, options: Mapping[str, Any], texts: Texts, view: str) -> tuple[dict[str, Any], str | None]:
    from nlgmetrics.integration.ray_data import columns
    from nlgmetrics.integration.samplewise import headline
    from nlgmetrics.integration.suite import compute_suite
    from nlgmetrics.signature import of

    options = dict(options)
    split = options.pop("sentence_split", None)
    sources = texts.sources if reads_sources(metric) else None
    if view in ("segment", "segments"):
        options.update(SPECS[metric].per_example_options)
    if split is not None:
        result = compute_suite(texts.predictions, texts.references, [metric], {metric: options},
                               sentence_split=split, sources=sources)[metric]
    else:
        result = score(metric, texts.predictions, texts.references, sources=sources, **options)
    if view in ("segment", "segments"):
        values = {column: [float(v) for v in result[key]] for key, column in columns(metric, result).items()}
    else:
        values = headline(metric, result)
    return values, of(result)


def check(entry: str, metric: str, outcome: Outcome, options: Mapping[str, Any], texts: Texts,
          tolerance: float = 1e-12) -> None:
    """``outcome`` of ``metric`` at ``entry`` (run with ``options`` on ``texts``) is the core's, numbers within
    ``tolerance`` (relative and absolute) and the same signature, or differs as :data:`DIFFERENCES` lists."""
    assert entry in ENTRY_POINTS, f"{entry} is not in the matrix's ENTRY_POINTS"
    listed = differences(entry, metric, options)
    kinds = {d.kind for d in listed}
    where = f"{entry} x {metric}"
    refused = refusal(entry, metric, options)
    if refused is not None:
        assert outcome.error and refused.match in outcome.error, f"{where}: refusal expected ({refused.reason})"
        return
    assert outcome.error is None, f"{where}: {outcome.error}"
    run, signed = dict(options), dict(options)
    for difference in listed:
        if difference.kind in ("options", "sample_signature"):
            signed.update(difference.options)
            if difference.kind == "options":
                run.update(difference.options)
            default_signature = expected(metric, options, texts, "corpus")[1]  # the listed difference is real
            assert expected(metric, signed, texts, "corpus")[1] != default_signature, \
                f"{where}: listed options {dict(difference.options)} do not change the signature"
    view = ENTRY_POINTS[entry]
    if "no_sources" in kinds:
        texts = Texts(texts.predictions, texts.references, None, texts.other)
    want, signature = expected(metric, run, texts, view)
    if signed != run:  # the signature a sample carries: its own options
        signature = expected(metric, signed, texts, view)[1]
    if "negated" in kinds:
        want = {f"-{name}": [-v for v in values] for name, values in want.items()}
    if view in ("signature", "utility"):
        assert outcome.values is None, f"{where}: reports values; give it another view"
    else:
        assert outcome.values, f"{where}: no values"
        if view == "segment":  # agree reports one column: the metric's default per-segment score
            assert len(outcome.values) == 1 and set(outcome.values) <= set(want), (where, list(outcome.values),
                                                                                  list(want))
        else:
            assert set(outcome.values) == set(want), (where, sorted(outcome.values), sorted(want))
        for name, got in outcome.values.items():
            _close(got, want[name], tolerance, f"{where}: {name}")
    if "no_signature" in kinds:
        assert outcome.signature is None, f"{where}: carries a signature: take it off DIFFERENCES"
    else:
        assert outcome.signature == signature, (where, outcome.signature, signature)


def _close(got: Any, want: Any, tolerance: float, where: str) -> None:
    if isinstance(want, list):
        assert isinstance(got, (list, tuple)) and len(got) == len(want), where
        for a, b in zip(got, want):
            _close(a, b, tolerance, where)
        return
    assert isinstance(got, (int, float)) and math.isfinite(got), (where, got)
    assert math.isclose(got, want, rel_tol=tolerance, abs_tol=tolerance), (where, got, want)


def utility_signature(signature: str) -> str:
    """The metric's signature inside an MBR or reranking signature (``...|utility:NAME{SIGNATURE}|version:...``)."""
    return signature[signature.index("{") + 1: signature.rindex("}")]


def as_outcome(metric: str, result: Mapping[str, Any]) -> Outcome:
    """An entry point's result dict (the core's keys, or a subset such as an evaluate module's) as an outcome."""
    from nlgmetrics.integration.samplewise import headline
    from nlgmetrics.signature import of

    return Outcome(headline(metric, result), of(result))


# -- the entry points the package has ---------------------------------------------------------------------------------
def discovered_entry_points() -> set[str]:
    """Every entry point found in the package: ``cli:<command>`` for each command that takes ``-m``/``--metric(s)``,
    ``integration:<module>`` for each adapter module, ``api:<name>`` for each public callable, ``modules`` for the
    metric modules and ``module:<name>`` for a module under metrics/ that is no metric of the spec."""
    import nlgmetrics
    import nlgmetrics.integration
    from nlgmetrics.cli import _parser

    found = set()
    parser = _parser.build_parser()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for command, sub in action.choices.items():
                if any({"-m", "--metric", "--metrics"} & set(a.option_strings) for a in sub._actions):
                    found.add(f"cli:{command}")
    for module in pkgutil.iter_modules(nlgmetrics.integration.__path__):
        if module.name not in INTEGRATION_HELPERS and not module.name.startswith("_"):
            found.add(f"integration:{module.name}")
    found |= {f"api:{name}" for name in nlgmetrics.__all__ if name not in ("__version__", "module_path")}
    modules = {path.parent.name for path in (ROOT / "metrics").glob("*/*.py") if path.stem == path.parent.name}
    found.add("modules")
    found |= {f"module:{name}" for name in modules - set(SPECS)}
    return found
