"""A lighteval custom task scored with nlgmetrics: German-English translation of 24 WMT17 segments.

    lighteval accelerate "model_name=HuggingFaceTB/SmolLM2-135M-Instruct" "nlgmetrics_mt|0" \
        --custom-tasks integration/lighteval/nlgmetrics_tasks.py

The data is the JSONL file in ``integration/data`` (a local folder is a ``hf_repo`` that ``datasets`` loads offline).
Environment variables add the learned metrics: ``NLGMETRICS_BLEURT=/path/to/BLEURT-20`` adds BLEURT,
``NLGMETRICS_COMET=/path/to/wmt22-comet-da`` adds COMET (source: the German sentence, from ``doc.specific``),
``NLGMETRICS_JUDGE=/path/to/a/local/chat-model`` adds the LLM judge on the in-process transformers backend (its
answers cached in nlgmetrics' judge cache).
"""

from __future__ import annotations

import os
from pathlib import Path

from lighteval.tasks.lighteval_task import LightevalTaskConfig
from lighteval.tasks.requests import Doc

from nlgmetrics.integration.lighteval import nlgmetrics_metric

DATA = Path(__file__).resolve().parent.parent / "data"
PROMPT = "Translate this German sentence into English.\nGerman: {source}\nEnglish:"


def wmt17_deen(line: dict, task_name: str = "") -> Doc:
    return Doc(task_name=task_name, query=PROMPT.format(source=line["source"]), choices=[line["reference"]],
               gold_index=0, specific={"source": line["source"]})


METRICS = [
    nlgmetrics_metric("bleu"),
    nlgmetrics_metric("sacrebleu"),
    nlgmetrics_metric("chrf"),
    nlgmetrics_metric("ter"),
    nlgmetrics_metric("rouge"),
    nlgmetrics_metric("meteor"),
    nlgmetrics_metric("bertscore", model_type=os.environ.get("NLGMETRICS_ENCODER",
                                                             "sentence-transformers/all-MiniLM-L6-v2")),
]
if os.environ.get("NLGMETRICS_BLEURT"):
    METRICS.append(nlgmetrics_metric("bleurt", checkpoint=os.environ["NLGMETRICS_BLEURT"]))
if os.environ.get("NLGMETRICS_COMET"):
    METRICS.append(nlgmetrics_metric("comet", model=os.environ["NLGMETRICS_COMET"], source_field="source"))
if os.environ.get("NLGMETRICS_JUDGE"):
    METRICS.append(nlgmetrics_metric("llm_judge", model=os.environ["NLGMETRICS_JUDGE"], backend="transformers",
                                     source_field="source", cache=os.environ.get("NLGMETRICS_JUDGE_CACHE", True)))

nlgmetrics_mt = LightevalTaskConfig(
    name="nlgmetrics_mt",
    prompt_function=wmt17_deen,
    hf_repo=str(DATA),
    hf_subset="default",
    hf_avail_splits=["train"],
    evaluation_splits=["train"],
    generation_size=48,
    stop_sequence=["\n"],
    metrics=METRICS,
)

TASKS_TABLE = [nlgmetrics_mt]
