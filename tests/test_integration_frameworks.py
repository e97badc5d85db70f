"""Inspect and lighteval running nlgmetrics end to end, in their own venv (tests/framework_venv.py: lighteval 0.13,
inspect-ai 0.3.285, nltk 3.9.1), offline; every number they report is compared with the core's on the same texts in
this venv (nltk 3.10).

- Inspect: ``inspect_ai.eval()`` of the example task (integration/inspect/nlgmetrics_mt.py) on the ``mockllm``
  model, its replay solver answering each prompt with a WMT17 system's translation; scorers for every lexical metric, BERTScore and
  MoverScore (bundled MiniLM), BLEURT on a test checkpoint and the judge on the in-process backend (tiny Llama).
- lighteval: the example custom task (integration/lighteval/nlgmetrics_tasks.py) through ``Pipeline`` on a tiny
  Llama built here, with BLEURT and the judge added by environment variables.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from framework_venv import ROOT, run_in_frameworks  # noqa: E402
from learned_checkpoints import build_bleurt  # noqa: E402
from tiny_judge import tiny_judge_folder  # noqa: E402

from nlgmetrics.integration.samplewise import SampleText, check_options, corpus_headline, score_sample  # noqa: E402
from nlgmetrics.registry import get_spec, score  # noqa: E402

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
    root = tmp_path_factory.mktemp("framework-assets")
    return {"bleurt": str(build_bleurt(root / "bleurt", "bert")), "judge": tiny_judge_folder(),
            "generator": str(build_tiny_generator(root / "generator")), "root": root}


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
def run_inspect(bleurt, judge, cache, logs, n):
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
    OPTIONS = {"bleu": {}, "sacrebleu": {}, "google_bleu": {}, "nist_mt": {}, "chrf": {"word_order": 2}, "ter": {},
               "rouge": {"use_stemmer": True}, "meteor": {},
               "bertscore": {"model_type": "sentence-transformers/all-MiniLM-L6-v2"},
               "moverscore": {"model_type": "sentence-transformers/all-MiniLM-L6-v2"},
               "bleurt": {"checkpoint": bleurt},
               "llm_judge": {"model": judge, "backend": "transformers", "cache": cache}}
    task = Task(dataset=task.dataset, solver=task.solver,
                scorer=[getattr(scorers, m)(**o) for m, o in OPTIONS.items()])
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
    return {"samples": samples, "results": results, "options": OPTIONS, "bleurt_loads": len(loads),
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
        texts = [SampleText(s["prediction"], s["target"], s["input"] if metric == "llm_judge" else None)
                 for s in samples]
        meta = samples[0]["metadata"][metric]
        assert meta["higher_is_better"] is get_spec(metric).higher_is_better and meta["options"] == \
            check_options(metric, options)
        if metric == "llm_judge":
            options = {**options, "cache": False}  # recomputed here, not read back from the eval's cache
        tolerance = 1e-12 if get_spec(metric).kind == "lexical" else 1e-5
        check_against_core(metric, options, texts, [s["values"][metric] for s in samples], out["results"][metric],
                           tolerance)
    sacre = samples[0]["metadata"]["sacrebleu"]["signature"]
    assert sacre.startswith("nrefs:1|case:mixed|eff:no|tok:13a")
    assert out["empty_headline"] == {}  # no shape to report, no error: Inspect shows n/a without a warning


LIGHTEVAL_PART = r"""
def run_lighteval(model, out, n, env):
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
        tasks="nlgmetrics_mt|0",
        pipeline_parameters=PipelineParameters(launcher_type=ParallelismManager.ACCELERATE, max_samples=int(n),
                                               custom_tasks_directory="integration/lighteval/nlgmetrics_tasks.py"),
        evaluation_tracker=EvaluationTracker(output_dir=out, save_details=False),
        model_config=TransformersModelConfig(model_name=model, batch_size=16))
    pipeline.evaluate()
    results = pipeline.get_results()["results"]["nlgmetrics_mt:0"]
    details = [{"prediction": d.model_response.final_text[0], "golds": d.doc.get_golds(),
                "source": d.doc.specific["source"], "metric": d.metric}
               for d in pipeline.get_details()["nlgmetrics_mt|0"]]
    return {"results": results, "details": details, "mixed_references_saved": save_mixed_references()}


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
    args = {"inspect": {"bleurt": assets["bleurt"], "judge": assets["judge"], "cache": str(root / "judge.sqlite"),
                        "logs": str(root / "inspect-logs"), "n": N},
            "lighteval": {"model": assets["generator"], "out": str(root / "lighteval"), "n": N,
                          "env": {"NLGMETRICS_BLEURT": assets["bleurt"], "NLGMETRICS_JUDGE": assets["judge"],
                                  "NLGMETRICS_JUDGE_CACHE": str(root / "judge-lighteval.sqlite")}}}
    return run_in_frameworks(FRAMEWORKS_SCRIPT, json.dumps(args), timeout=900)


def test_lighteval_custom_task_scores_equal_the_core(assets, runs):
    out = runs["lighteval"]
    details, results = out["details"], out["results"]
    assert len(details) == N and any(d["prediction"].strip() for d in details)
    assert out["mixed_references_saved"] == [  # references one type (a list) whatever a document's count
        {"bleu": {"prediction": "one ref", "references": ["one ref"], "source": None}},
        {"bleu": {"prediction": "ref a", "references": ["ref a", "ref b"], "source": None}}]
    samples = [SampleText(d["prediction"], d["golds"][0], d["source"]) for d in details]
    encoder = {"model_type": "sentence-transformers/all-MiniLM-L6-v2"}
    for metric, options in [("bleu", {}), ("sacrebleu", {}), ("chrf", {}), ("ter", {}), ("rouge", {}),
                            ("meteor", {}), ("bertscore", encoder)]:
        names = get_spec(metric).headline
        reported = {k: results[k] for k in names}
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
        check_against_core(metric, options, texts, [d["metric"][metric] for d in details],
                           {metric: results[metric]}, 1e-5)
        assert f"{metric}_stderr" in results
