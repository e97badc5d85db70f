"""An Inspect task scored with nlgmetrics: German-English translation of 24 WMT17 segments.

    inspect eval integration/inspect/nlgmetrics_mt.py --model openai/gpt-4o-mini
    inspect eval integration/inspect/nlgmetrics_mt.py --model mockllm/model -T system=online_b   # offline, no model

``-T system=online_b`` (or ``c3ma``) skips generation and scores a WMT17 system's recorded translations instead, so
the task runs anywhere. ``-T bleurt_checkpoint=/path/to/BLEURT-20`` adds BLEURT; ``-T comet_checkpoint=/path/to/wmt22-comet-da``
adds COMET with the German sentence as its source.
"""

from __future__ import annotations

from pathlib import Path

from inspect_ai import Task, task
from inspect_ai.dataset import Sample, json_dataset
from inspect_ai.model import ModelOutput
from inspect_ai.solver import Generate, Solver, TaskState, generate, solver

from nlgmetrics.integration.inspect import bertscore, bleu, bleurt, chrf, comet, meteor, rouge, sacrebleu, ter

DATA = Path(__file__).resolve().parent.parent / "data" / "wmt17_deen_24.jsonl"
PROMPT = "Translate this German sentence into English. Answer with the translation only.\n\n{source}"


@solver
def replay(system: str) -> Solver:
    """Use a WMT17 system's recorded translation (sample metadata ``system``) as the model's output."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        state.output = ModelOutput.from_content(model=f"wmt17/{system}", content=state.metadata[system])
        return state

    return solve


def record_to_sample(record: dict) -> Sample:
    return Sample(id=record["id"], input=PROMPT.format(source=record["source"]), target=record["reference"],
                  metadata={k: record[k] for k in ("source", "online_b", "c3ma")})


@task
def nlgmetrics_mt(system: str | None = None, bleurt_checkpoint: str | None = None,
                  comet_checkpoint: str | None = None, encoder: str = "sentence-transformers/all-MiniLM-L6-v2",
                  limit: int | None = None) -> Task:
    dataset = json_dataset(str(DATA), record_to_sample)
    if limit:
        dataset = dataset[:limit]
    scorers = [bleu(), sacrebleu(), chrf(), ter(), rouge(), meteor(), bertscore(model_type=encoder)]
    if bleurt_checkpoint:
        scorers.append(bleurt(checkpoint=bleurt_checkpoint))
    if comet_checkpoint:  # COMET's source is the German sentence alone, not the prompt around it
        scorers.append(comet(model=comet_checkpoint, source_field="source"))
    return Task(dataset=dataset, solver=replay(system) if system else generate(), scorer=scorers)
