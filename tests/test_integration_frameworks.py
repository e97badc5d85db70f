"""Inspect and lighteval running nlgmetrics end to end, in their own venv (tests/framework_venv.py: lighteval 0.13,
inspect-ai 0.3.285, nltk 3.9.1), offline; every number they report is compared with the core's on the same texts in
this venv (nltk 3.10).

- Inspect: ``inspect_ai.eval()`` of the example task (integration/inspect/nlgmetrics_mt.py) on the ``mockllm``
  model, its replay solver answering each prompt with a WMT17 system's translation; scorers for every lexical metric, BERTScore and
  MoverScore (bundled MiniLM), BLEURT on a test checkpoint and the judge on the in-process backend (tiny Llama).
- lighteval: the example custom task (integration/lighteval/nlgmetrics_tasks.py) through ``Pipeline`` on a tiny
  Llama built here, with BLEURT and the judge added by environment variables.

The same runs are Inspect's and lighteval's rows of the cross-entry-point matrix (tests/entry_matrix.py): Inspect
scores every metric of the spec (tiny checkpoints for the learned ones), and a second lighteval task generated here
(the example task's data and prompt, a metric for every metric of the spec, and chrF++ beside chrF) runs in the same
Pipeline; entry_matrix.check compares each corpus number and signature with the core's.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from framework_venv import ROOT, run_in_frameworks  # noqa: E402
from entry_matrix import Outcome, Texts, check, model_options  # noqa: E402

from nlgmetrics.integration.samplewise import (  # noqa: E402
    SampleText, check_options, corpus_headline, result_key, score_sample,
)
from nlgmetrics.registry import SPECS, get_spec, score  # noqa: E402

pytestmark = pytest.mark.slow  # one process in the frameworks venv runs Inspect and lighteval end to end

DATA = ROOT / "integration" / "data" / "wmt17_deen_24.jsonl"
N = 10


def build_tiny_generator(folder: Path) -> Path:
    """A 2-layer random Llama with a word-level tokenizer over the demo data's words, that never emits a special
    token: its greedy outputs are strings of English and German words (nonzero unigram overlap with the refs)."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    rows = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines()]
    tokenizer = Tokenizer(models.WordLevel(unk_token="<unk>"))
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Punctuation()])
    tokenizer.decoder = decoders.WordPiece(prefix="##", cleanup=False)  # joins words with spaces
    specials = ["<unk>", "<pad>", "<s>", "</s>"]
    tokenizer.train_from_iterator([f"{r['reference']} {r['source']}" for r in rows],
                                  trainer=trainers.WordLevelTrainer(special_tokens=specials))
    fast = PreTrainedTokenizerFast(tokenizer_object=tokenizer, unk_token="<unk>", pad_token="<pad>", bos_token="<s>",
                                   eos_token="</s>")
    fast.save_pretrained(folder)
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=len(fast), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=512,
                         initializer_range=0.5, bos_token_id=2, eos_token_id=3, pad_token_id=1)
    model = LlamaForCausalLM(config).eval()
    with torch.no_grad():
        model.lm_head.weight[: len(specials)] = -model.lm_head.weight[: len(specials)].abs() * 100  # never special
    model.save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def assets(tmp_path_factory):
    """The tiny generator, and every metric's options (tests/entry_matrix.py: MiniLM, tiny learned checkpoints)."""
    root = tmp_path_factory.mktemp("framework-assets")
    options = model_options(root / "models")
    return {"options": options, "bleurt": options["bleurt"]["checkpoint"], "judge": options["llm_judge"]["model"],
            "generator": str(build_tiny_generator(root / "generator")), "root": root}


def framework_options(assets: dict) -> dict[str, dict]:
    """What the frameworks score with: every metric of the spec, chrF as chrF++ and ROUGE stemmed (options that
    give them other keys), the judge's answers in a cache of its own."""
    options = {**assets["options"], "chrf": {"word_order": 2}, "rouge": {"use_stemmer": True}}
    options["llm_judge"] = {**options["llm_judge"], "cache": str(assets["root"] / "judge.sqlite")}
    return options


def check_against_core(metric: str, options: dict, samples: list[SampleText], per_sample: list, reported: dict,
                       tolerance: float) -> None:
    """The framework's per-sample values and headline equal the core's on the same texts (in this venv)."""
    options = check_options(metric, options)
    values = []
    for sample, value in zip(samples, per_sample):
        ours = score_sample(metric, options, sample)[0]
        got = value if isinstance(value, dict) else ({} if value is None or (isinstance(value, float) and
                                                                                 math.isnan(value))
                                                      else {get_spec(metric).headline[0]: value})
        assert got.keys() == ours.keys(), (metric, got, ours)
        for key in ours:
            assert got[key] == pytest.approx(ours[key], rel=tolerance, abs=tolerance), (metric, key)
        values.append(ours)
    want = corpus_headline(metric, options, samples, values)
    assert reported.keys() == want.keys(), (metric, reported, want)
    for key in want:
        assert reported[key] == pytest.approx(want[key], rel=tolerance, abs=tolerance), (metric, key)


#: One process runs both frameworks (they share the venv): Inspect's eval, then lighteval's Pipeline. Each part reads
#: its own arguments from the JSON in argv[1] and returns what its test checks.
INSPECT_PART = r"""
def run_inspect(options, logs, n):
    from inspect_ai import Task, eval
    from inspect_ai.model import get_model
    sys.path.insert(0, "integration/inspect")
    from nlgmetrics_mt import nlgmetrics_mt
    import nlgmetrics.integration.inspect as scorers
    import nlgmetrics.learned.bleurt as bleurt_module

    loads = []
    original = bleurt_module.BleurtScorer.__init__
    def counting(self, *args, **kwargs):
        loads.append(1)
        original(self, *args, **kwargs)
    bleurt_module.BleurtScorer.__init__ = counting

    # the replay solver answers each prompt with WMT17 C-3MA's translation (mockllm's generate() would have Inspect
    # fetch tiktoken's o200k_base to count tokens, which cannot work offline)
    task = nlgmetrics_mt(system="c3ma", limit=int(n))
    model = get_model("mockllm/model")
    task = Task(dataset=task.dataset, solver=task.solver,
                scorer=[getattr(scorers, m)(**o) for m, o in options.items()])
    log = eval(task, model=model, log_dir=logs, display="none")[0]
    assert log.status == "success", log.error
    bleurt_module.BleurtScorer.__init__ = original
    samples = [{"prediction": s.output.completion, "target": s.target, "input": s.input,
                "values": {name: score.value for name, score in s.scores.items()},
                "metadata": {name: score.metadata for name, score in s.scores.items()}} for s in log.samples]
    results = {s.name: {k: m.value for k, m in s.metrics.items()} for s in log.results.scores}
    # what Inspect's display asks before the first sample completes (issue 43: every `inspect eval` warned "Metric
    # nlgmetrics/headline raised on an empty sample set; reporting NaN")
    from inspect_ai._eval.task.results import call_metric
    try:
        empty = call_metric(scorers.headline("bleu"), [])
    except Exception as exc:
        empty = repr(exc)
    return {"samples": samples, "results": results, "options": options, "bleurt_loads": len(loads),
            "empty_headline": empty}
"""

def test_inspect_eval_scores_equal_the_core(assets, runs):
    out = runs["inspect"]
    rows = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines()][:N]
    samples = out["samples"]
    assert [s["prediction"] for s in samples] == [r["c3ma"] for r in rows]  # the replayed outputs were scored
    assert out["bleurt_loads"] == 1  # the checkpoint is loaded once for the whole eval, not per sample
    assert (assets["root"] / "judge.sqlite").exists()  # the judge's answers went through its cache
    for metric, options in out["options"].items():
        reads = get_spec(metric).sources != "none"
        texts = [SampleText(s["prediction"], s["target"], s["input"] if reads else None) for s in samples]
        meta = samples[0]["metadata"][metric]
        assert meta["higher_is_better"] is get_spec(metric).higher_is_better and meta["options"] == \
            check_options(metric, options)
        reported = {key: out["results"][metric][result_key(metric, key, meta["options"])]
                    for key in get_spec(metric).headline}
        if metric == "llm_judge":
            options = {**options, "cache": False}  # recomputed here, not read back from the eval's cache
        tolerance = 1e-12 if get_spec(metric).kind == "lexical" else 1e-5
        check_against_core(metric, options, texts, [s["values"][metric] for s in samples], reported, tolerance)
    sacre = samples[0]["metadata"]["sacrebleu"]["signature"]
    assert sacre.startswith("nrefs:1|case:mixed|eff:no|tok:13a")
    assert out["empty_headline"] == {}  # no shape to report, no error: Inspect shows n/a without a warning


def test_matrix_row_of_inspect(runs):
    """Every metric of the spec through Inspect: the scorer's corpus metric is the core's on the eval's texts (keys
    named per configuration: chrf[word_order=2]), the signature in each sample's metadata the core's (MoverScore's
    per sample without the corpus idf: listed in tests/entry_matrix.py)."""
    out = runs["inspect"]
    samples = out["samples"]
    assert set(out["options"]) == set(SPECS)
    for metric, options in out["options"].items():
        checked = check_options(metric, options)
        texts = Texts([s["prediction"] for s in samples], [s["target"] for s in samples],
                      [s["input"] for s in samples])
        reported = out["results"][metric]
        keys = {key: result_key(metric, key, checked) for key in get_spec(metric).headline}
        assert set(reported) == set(keys.values()), (metric, reported)
        signatures = {s["metadata"][metric]["signature"] for s in samples}
        assert len(signatures) == 1, (metric, signatures)  # one configuration, one signature for every sample
        outcome = Outcome({key: reported[name] for key, name in keys.items()}, signatures.pop())
        if metric == "llm_judge":
            checked = {**checked, "cache": False}  # recomputed here, not read back from the eval's cache
        check("inspect", metric, outcome, checked, texts, 1e-12 if get_spec(metric).kind == "lexical" else 1e-5)
    assert set(out["results"]["chrf"]) == {"chrf[word_order=2]"}  # chrF++ never under chrF's key


#: the matrix's lighteval task: the example task (data, prompt, generation) with a metric for every metric of the spec
#: and chrF++ beside chrF (two configurations of one metric, two keys), in a custom tasks file of its own that also
#: holds the example's tasks
MATRIX_TASKS = """
import dataclasses, json, sys
sys.path.insert(0, {folder!r})
from nlgmetrics_tasks import TASKS_TABLE as EXAMPLE, nlgmetrics_mt
from nlgmetrics.integration.lighteval import nlgmetrics_metric
METRICS = [nlgmetrics_metric(metric, **options) for metric, options in json.loads({options!r})]
TASKS_TABLE = [*EXAMPLE, dataclasses.replace(nlgmetrics_mt, name="nlgmetrics_matrix", metrics=METRICS)]
"""


def matrix_tasks(assets: dict) -> tuple[str, list]:
    """The matrix's custom tasks file (written under the assets' folder) and its (metric, options) pairs."""
    options = framework_options(assets)
    pairs = [(metric, {**options[metric], "cache": False} if metric == "llm_judge" else options[metric])
             for metric in SPECS]
    pairs.insert(list(SPECS).index("chrf"), ("chrf", {}))  # chrF, beside the chrF++ of framework_options
    path = assets["root"] / "matrix_tasks.py"
    path.write_text(MATRIX_TASKS.format(folder=str(ROOT / "integration" / "lighteval"), options=json.dumps(pairs)),
                    encoding="utf-8")
    return str(path), pairs


LIGHTEVAL_PART = r"""
def run_lighteval(model, out, n, env, tasks_file):
    import os
    os.environ.update(env)  # the custom task file reads its BLEURT checkpoint and judge from these at import
    from lighteval.logging.evaluation_tracker import EvaluationTracker
    from lighteval.models.transformers.transformers_model import TransformersModelConfig
    from lighteval.pipeline import ParallelismManager, Pipeline, PipelineParameters
    from lighteval.tasks.registry import Registry

    # lighteval 0.13 imports every built-in task to build its registry; two need the network at import
    # (tinyBenchmarks' download, mt_bench's hub lookup, which also fails with huggingface-hub >= 1): load the custom
    # tasks only
    Registry._load_from_files = staticmethod(lambda files, prefix: {})
    Registry._load_from_subdirs = staticmethod(lambda subdirs: {})

    pipeline = Pipeline(
        tasks="nlgmetrics_mt|0,nlgmetrics_matrix|0",
        pipeline_parameters=PipelineParameters(launcher_type=ParallelismManager.ACCELERATE, max_samples=int(n),
                                               custom_tasks_directory=tasks_file),
        evaluation_tracker=EvaluationTracker(output_dir=out, save_details=False),
        model_config=TransformersModelConfig(model_name=model, batch_size=16))
    pipeline.evaluate()
    outputs = {}
    for task in ("nlgmetrics_mt", "nlgmetrics_matrix"):
        details = [{"prediction": d.model_response.final_text[0], "golds": d.doc.get_golds(),
                    "source": d.doc.specific["source"], "query": d.doc.query, "metric": d.metric}
                   for d in pipeline.get_details()[f"{task}|0"]]
        outputs[task] = {"results": pipeline.get_results()["results"][f"{task}:0"], "details": details}
    return {**outputs, "mixed_references_saved": save_mixed_references()}


def save_mixed_references():
    # issue 43: a task whose documents have one reference and others several scored, then save_and_push_results
    # failed (pyarrow ArrowInvalid: the adapter stored a string for one reference, a list for several). The details of
    # such documents through lighteval's own save step (EvaluationTracker.save: Dataset.from_list of the details)
    from dataclasses import asdict
    from datasets import Dataset
    from lighteval.logging.info_loggers import DetailsLogger
    from lighteval.models.model_output import ModelResponse
    from lighteval.tasks.requests import Doc
    from nlgmetrics.integration.lighteval import nlgmetrics_metric

    metric = nlgmetrics_metric("bleu")
    docs = [Doc(query="q1", choices=["one ref"], gold_index=[0]),
            Doc(query="q2", choices=["ref a", "ref b"], gold_index=[0, 1])]
    responses = [ModelResponse(text=["one ref"]), ModelResponse(text=["ref a"])]
    details = [DetailsLogger.Detail(doc=doc, model_response=response,
                                    metric={"bleu": metric.sample_level_fn.prepare(doc=doc, model_response=response)})
               for doc, response in zip(docs, responses)]
    try:
        return list(Dataset.from_list([asdict(detail) for detail in details])["metric"])
    except Exception as exc:
        return repr(exc)
"""

FRAMEWORKS_SCRIPT = r"""
import json, sys
import torch; torch.set_num_threads(1)
""" + INSPECT_PART + LIGHTEVAL_PART + r"""
args = json.loads(sys.argv[1])
print(json.dumps({"inspect": run_inspect(**args["inspect"]), "lighteval": run_lighteval(**args["lighteval"])},
                 default=str))
"""


@pytest.fixture(scope="module")
def runs(assets):
    """Both frameworks' outputs, from one process in the frameworks venv."""
    root = assets["root"]
    tasks_file, pairs = matrix_tasks(assets)
    args = {"inspect": {"options": framework_options(assets), "logs": str(root / "inspect-logs"), "n": N},
            "lighteval": {"model": assets["generator"], "out": str(root / "lighteval"), "n": N,
                          "env": {"NLGMETRICS_BLEURT": assets["bleurt"], "NLGMETRICS_JUDGE": assets["judge"],
                                  "NLGMETRICS_JUDGE_CACHE": str(root / "judge-lighteval.sqlite")},
                          "tasks_file": tasks_file}}
    out = run_in_frameworks(FRAMEWORKS_SCRIPT, json.dumps(args), timeout=900)
    out["lighteval"]["matrix_options"] = pairs
    return out


def test_lighteval_custom_task_scores_equal_the_core(assets, runs):
    out = runs["lighteval"]["nlgmetrics_mt"]
    details, results = out["details"], out["results"]
    assert len(details) == N and any(d["prediction"].strip() for d in details)
    assert runs["lighteval"]["mixed_references_saved"] == [  # references one type (a list) whatever a document's count
        {"bleu": {"prediction": "one ref", "references": ["one ref"], "source": None}},
        {"bleu": {"prediction": "ref a", "references": ["ref a", "ref b"], "source": None}}]
    samples = [SampleText(d["prediction"], d["golds"][0], d["source"]) for d in details]
    encoder = {"model_type": "sentence-transformers/all-MiniLM-L6-v2"}
    for metric, options in [("bleu", {}), ("sacrebleu", {}), ("chrf", {}), ("ter", {}), ("rouge", {}),
                            ("meteor", {}), ("bertscore", encoder)]:
        names = get_spec(metric).headline
        reported = {k: results[result_key(metric, k, check_options(metric, options))] for k in names}
        assert not any(f"{k}_stderr" in results for k in names)  # corpus metrics: no bootstrap over recomputations
        tolerance = 1e-12 if get_spec(metric).kind == "lexical" else 1e-5
        want = corpus_headline(metric, check_options(metric, options), samples)
        for key in names:
            assert reported[key] == pytest.approx(want[key], rel=tolerance, abs=tolerance), (metric, key)
    # learned metrics: each sample's segment score (one batched call), then their mean
    for metric, options, source in [("bleurt", {"checkpoint": assets["bleurt"]}, False),
                                    ("llm_judge", {"model": assets["judge"], "backend": "transformers",
                                                   "cache": False}, True)]:
        texts = [SampleText(s.prediction, s.references, s.source if source else None) for s in samples]
        key = result_key(metric, metric, check_options(metric, options))
        check_against_core(metric, options, texts, [d["metric"][key] for d in details], {metric: results[key]}, 1e-5)
        assert f"{key}_stderr" in results


def test_matrix_row_of_lighteval(runs):
    """Every metric of the spec through lighteval (the matrix task of the same Pipeline): each configuration under
    its own keys (chrf is chrF, chrf[word_order=2] chrF++), every number the core's on the generated texts (no
    signature: listed in tests/entry_matrix.py)."""
    out = runs["lighteval"]["nlgmetrics_matrix"]
    details, results = out["details"], out["results"]
    texts = Texts([d["prediction"] for d in details], [d["golds"][0] for d in details], [d["query"] for d in details])
    assert {metric for metric, _ in runs["lighteval"]["matrix_options"]} == set(SPECS)
    for metric, options in runs["lighteval"]["matrix_options"]:
        checked = check_options(metric, options)
        keys = {key: result_key(metric, key, checked) for key in get_spec(metric).headline}
        outcome = Outcome({key: results[name] for key, name in keys.items()})
        check("lighteval", metric, outcome, checked, texts, 1e-12 if get_spec(metric).kind == "lexical" else 1e-5)
    assert results["chrf"] != results["chrf[word_order=2]"]  # issue 42: both were reported as 'chrf'
