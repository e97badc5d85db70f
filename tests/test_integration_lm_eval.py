"""nlgmetrics.integration.lm_eval: registration (names, idempotence, collisions), passthrough-then-aggregate equal to
the core on the whole corpus, and `lm_eval run --model dummy --include_path integration/lm_eval --tasks
nlgmetrics_demo` offline. The same run holds lm-eval's row of the cross-entry-point matrix (tests/entry_matrix.py): a
task generated from the spec with every metric's headline names (tiny checkpoints for the learned ones, the source
before a tab in the target)."""

from __future__ import annotations

import importlib
import importlib.util
import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("lm_eval")

from lm_eval.api import registry  # noqa: E402

import nlgmetrics.integration.lm_eval as nlgm  # noqa: E402
from nlgmetrics.integration.suite import compute_suite, flatten_result  # noqa: E402
from nlgmetrics.registry import SPECS, available_metrics, self_contained_metrics  # noqa: E402
from nlgmetrics.resources import BUNDLED_ENCODER_ID, bundled_encoder_path  # noqa: E402

from conftest import REPO  # noqa: E402
from entry_matrix import Outcome, Texts, check, model_options  # noqa: E402

EMBEDDING = ("bertscore", "moverscore")
DEMO = json.loads((REPO / "integration" / "lm_eval" / "demo_data.json").read_text(encoding="utf-8"))
GOLDS = [row["summary"] for row in DEMO]
PREDICTIONS = [" ".join(reversed(g.split()[:8])) + " and more." for g in GOLDS]  # partial overlap, not identical


def usable(names):
    return [n for n in names if n not in EMBEDDING or bundled_encoder_path() is not None]


def test_registered_names_do_not_collide_with_lm_eval():
    names = nlgm.lm_eval_names(available_metrics())
    assert nlgm.REGISTERED == list(names)
    for name in names:
        assert name.startswith("nlgm_")
        assert registry.metric_registry.get(name) is getattr(nlgm, name)
        assert registry.get_metric_aggregation(name) is registry.aggregation_registry.get(name)
        assert registry.is_higher_better(name) is SPECS[names[name][0]].higher_is_better  # TER: lower is better
    assert "nlgm_ter" not in names or registry.is_higher_better("nlgm_ter") is False
    assert "bleu" in registry.metric_registry and registry.metric_registry.get("bleu").__module__ == "lm_eval.api.metrics"
    expected = {"nlgm_bleu", "nlgm_rouge1", "nlgm_rouge2", "nlgm_rougeL", "nlgm_rougeLsum", "nlgm_meteor",
                "nlgm_bertscore_precision", "nlgm_bertscore_recall", "nlgm_bertscore_f1", "nlgm_moverscore"}
    assert {n for n in expected if nlgm.lm_eval_names()[n][0] in available_metrics()} <= set(names)


def test_registration_is_idempotent():
    before = {name: registry.metric_registry.get(name) for name in nlgm.REGISTERED}
    assert nlgm.register() == nlgm.REGISTERED
    importlib.reload(nlgm)  # a second import of the module, e.g. from a task's utils.py
    assert {name: registry.metric_registry.get(name) for name in nlgm.REGISTERED} == before


def test_foreign_name_collision_is_an_error():
    name = "nlgm_bleu"
    saved = registry.metric_registry._objs.pop(name)
    try:
        registry.metric_registry.register(name)(lambda items: items)
        with pytest.raises(ValueError, match="already registered"):
            nlgm.register(["bleu"])
    finally:
        registry.metric_registry._objs[name] = saved


def passthrough_items(name, options=None):
    function = getattr(nlgm, name)
    return [function(references=[g], predictions=[p], **(options or {})) for g, p in zip(GOLDS, PREDICTIONS)]


@pytest.mark.parametrize("name", list(nlgm.lm_eval_names(usable(self_contained_metrics()))))
def test_aggregation_is_the_corpus_score(name):
    metric, key = nlgm.lm_eval_names()[name]
    options = {"model_type": BUNDLED_ENCODER_ID} if metric in EMBEDDING else {}
    items = passthrough_items(name, options)
    assert items[0] == (GOLDS[0], PREDICTIONS[0], json.dumps(options, sort_keys=True))
    value = registry.get_metric_aggregation(name)(items)
    expected = flatten_result(metric, compute_suite(PREDICTIONS, GOLDS, [metric], {metric: options})[metric])[key]
    assert isinstance(value, float) and value == pytest.approx(expected, abs=1e-9)
    # lm-eval's positional fallback fn([gold, prediction]) gives the same item without options
    assert getattr(nlgm, name)([GOLDS[0], PREDICTIONS[0]]) == (GOLDS[0], PREDICTIONS[0], "{}")


def test_shared_scores_are_computed_once_and_options_apply(monkeypatch):
    if "rouge" not in available_metrics():
        pytest.skip("needs rouge")
    calls = []
    real = nlgm.compute_suite
    monkeypatch.setattr(nlgm, "compute_suite", lambda *a, **k: calls.append(a[2]) or real(*a, **k))
    nlgm._MEMO.clear()
    options = {"use_stemmer": True, "rouge_types": ["rouge1", "rouge2", "rougeL", "rougeLsum"]}
    values = {k: registry.get_metric_aggregation(k)(passthrough_items(k, options))
              for k in ("nlgm_rouge1", "nlgm_rouge2", "nlgm_rougeL", "nlgm_rougeLsum")}
    assert calls == [["rouge"]]
    direct = compute_suite(PREDICTIONS, GOLDS, ["rouge"], {"rouge": options})["rouge"]
    assert values == {f"nlgm_{k}": pytest.approx(direct[k]) for k in ("rouge1", "rouge2", "rougeL", "rougeLsum")}
    # several references through reference_separator
    items = [nlgm.nlgm_rouge1(references=[g + "|||" + p], predictions=[p], reference_separator="|||")
             for g, p in zip(GOLDS, PREDICTIONS)]
    assert registry.get_metric_aggregation("nlgm_rouge1")(items) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="different options"):
        registry.get_metric_aggregation("nlgm_rouge1")(items[:2] + passthrough_items("nlgm_rouge1")[:2])
    with pytest.raises(TypeError, match="one string per document"):
        nlgm.nlgm_rouge1(references=[["a", "b"]], predictions=["a"])


#: the judge task of the combined run: its key comes from $MY_JUDGE_KEY (api_key_env), never from the YAML
JUDGE_KEY = "sk-LMEVAL-ENV-KEY-6160"


def demo_include_path(folder: Path) -> list[str]:
    """integration/lm_eval copied into ``folder``, its demo task without the entries of metrics this installation
    lacks; the nlgm_* names the demo task scores."""
    names = nlgm.lm_eval_names(usable(self_contained_metrics()))
    shutil.copytree(REPO / "integration" / "lm_eval", folder, ignore=shutil.ignore_patterns("examples", "__pycache__"))
    yaml_text = (folder / "nlgmetrics_demo.yaml").read_text(encoding="utf-8")
    entries = yaml_text.split("  - metric: ")
    kept = [e for e in entries[1:] if e.split("nlgmetrics.integration.lm_eval.")[1].split()[0] in names]
    if len(kept) < len(entries) - 1:
        last = kept[-1].split("metadata:")
        kept[-1] = last[0]
        (folder / "nlgmetrics_demo.yaml").write_text(
            entries[0] + "".join("  - metric: " + e for e in kept) + "metadata:" + yaml_text.split("metadata:")[1],
            encoding="utf-8",
        )
    return [e.split("nlgmetrics.integration.lm_eval.")[1].split()[0] for e in kept]


@pytest.fixture(scope="module")
def lm_eval_run(tmp_path_factory) -> dict:
    """ONE real `lm_eval run --model dummy --log_samples` (a fresh process, offline) of the shipped demo task and,
    where the judge is available, a judge task whose key is given by api_key_env and served by a loopback server:
    the process, its output folder, the demo's metric names, the judge server's requests."""
    tmp = tmp_path_factory.mktemp("lm_eval_run")
    include = tmp / "tasks"
    names = demo_include_path(include)
    assert names, "no nlgmetrics metric available for the demo task"
    tasks = ["nlgmetrics_demo", "nlgmetrics_matrix"]
    options = model_options(tmp / "models")
    (include / "nlgmetrics_matrix.yaml").write_text(matrix_task("nlgmetrics_matrix", options), encoding="utf-8")
    server = None
    if "llm_judge" in available_metrics() and importlib.util.find_spec("openai") is not None:
        from judge_servers import CannedServer, completion, lm_eval_judge_task

        server = CannedServer(lambda body: (200, completion("4", logprob=-0.2), "application/json"))
        (tmp / "cache").mkdir()
        (include / "judge_env.yaml").write_text(
            lm_eval_judge_task("judge_env", server.base_url, tmp / "cache" / "judge.sqlite",
                               "api_key_env: MY_JUDGE_KEY"), encoding="utf-8")
        tasks.append("judge_env")
    lm_eval = Path(sys.executable).with_name("lm_eval")
    command = [str(lm_eval)] if lm_eval.exists() else [sys.executable, "-m", "lm_eval"]
    env = {**{k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}, "HF_HUB_OFFLINE": "1",
           "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "OMP_NUM_THREADS": "1", "MY_JUDGE_KEY": JUDGE_KEY}
    try:
        run = subprocess.run(
            command + ["run", "--model", "dummy", "--include_path", str(include), "--tasks", ",".join(tasks),
                       "--log_samples", "--output_path", str(tmp / "out")],
            cwd=REPO, env=env, capture_output=True, text=True, timeout=300,
        )
    finally:
        if server is not None:
            server.stop()
    return {"run": run, "tmp": tmp, "names": names, "tasks": tasks, "options": options,
            "requests": server.requests if server is not None else None}


def matrix_task(name: str, options: dict[str, dict]) -> str:
    """The YAML of the matrix's lm-eval task: the demo documents, one metric entry per headline name of every metric
    of the spec (``nlgm_<key>``, with the metric's ``options``); every target is ``document<TAB>summary``, so the
    metrics that read a source get the document (``source_separator``), the others the summary alone."""
    from nlgmetrics.registry import SPECS

    entries = []
    for lm_name, (metric, _) in nlgm.lm_eval_names(list(SPECS)).items():
        settings = {"source_separator": "\t", **options[metric]}
        lines = "".join(f"    {key}: {json.dumps(value)}\n" for key, value in settings.items())
        entries.append(f"  - metric: !function nlgmetrics.integration.lm_eval.{lm_name}\n    aggregation: {lm_name}\n"
                       f"    higher_is_better: {str(SPECS[metric].higher_is_better).lower()}\n{lines}")
    return (f"task: {name}\ncustom_dataset: !function utils.load_demo\ntest_split: test\noutput_type: generate_until\n"
            'doc_to_text: "Document: {{document}}\\nSummary:"\ndoc_to_target: "{{document}}\\t{{summary}}"\n'
            'generation_kwargs:\n  until: ["\\n"]\n  max_gen_toks: 8\nmetric_list:\n' + "".join(entries)
            + "metadata:\n  version: 1.0\n")


def lm_eval_results(lm_eval_run: dict) -> dict:
    run = lm_eval_run["run"]
    assert run.returncode == 0, (run.stdout + run.stderr)[-4000:]
    [results_file] = list((lm_eval_run["tmp"] / "out").rglob("results_*.json"))
    return json.loads(results_file.read_text())["results"]


@pytest.mark.slow
def test_lm_eval_cli_runs_the_demo_task_offline(lm_eval_run):
    results = lm_eval_results(lm_eval_run)["nlgmetrics_demo"]
    for name in lm_eval_run["names"]:
        assert f"{name},none" in results, name
        metric, key = nlgm.lm_eval_names()[name]
        options = {"use_stemmer": True} if metric == "rouge" else {}
        if metric in EMBEDDING:
            options["model_type"] = BUNDLED_ENCODER_ID
        # the dummy model answers "lol"; lm-eval's table must equal the core on the whole corpus
        expected = flatten_result(metric, compute_suite(["lol"] * len(GOLDS), GOLDS, [metric], {metric: options})[metric])
        assert math.isclose(results[f"{name},none"], expected[key], abs_tol=1e-6), name


@pytest.mark.slow
def test_matrix_row_of_lm_eval(lm_eval_run):
    """Every metric of the spec through lm-eval (the matrix task of the same run): each nlgm_<key> aggregation is the
    core's number on the corpus (the dummy model answers "lol"; the documents are the sources of the metrics that
    read them); no signature (listed in tests/entry_matrix.py)."""
    from nlgmetrics.registry import SPECS

    results = lm_eval_results(lm_eval_run)["nlgmetrics_matrix"]
    texts = Texts(["lol"] * len(GOLDS), GOLDS, [row["document"] for row in DEMO])
    for metric, options in lm_eval_run["options"].items():
        outcome = Outcome({key: results[f"{nlgm.PREFIX}{key},none"] for key in SPECS[metric].headline})
        check("lm_eval", metric, outcome, options, texts, 1e-12 if SPECS[metric].kind == "lexical" else 1e-6)
    assert set(lm_eval_run["options"]) == set(SPECS)


@pytest.mark.slow
def test_lm_eval_run_with_log_samples_leaks_no_key(lm_eval_run):
    """The judge task of the same `lm_eval run --log_samples`, judging through a loopback server: the key given by
    api_key_env ($MY_JUDGE_KEY; $OPENAI_API_KEY unset) reaches the server as Bearer and no output file, judge cache,
    log or stream. A key written into the task YAML is refused through lm-eval's own call:
    tests/test_secrets_policy.py::test_lm_eval_task_yaml_key_is_refused_through_lm_evals_call."""
    if "judge_env" not in lm_eval_run["tasks"]:
        pytest.skip("needs llm_judge and openai")
    results = lm_eval_results(lm_eval_run)
    assert results["judge_env"]["nlgm_llm_judge,none"] == pytest.approx(4.0)
    out, run = lm_eval_run["tmp"] / "out", lm_eval_run["run"]
    assert list(out.rglob("samples_judge_env_*.jsonl"))
    assert len(lm_eval_run["requests"]) == len(GOLDS)
    assert {h.get("authorization") for _, h, _ in lm_eval_run["requests"]} == {f"Bearer {JUDGE_KEY}"}
    files = [path for folder in (out, lm_eval_run["tmp"] / "cache") for path in folder.rglob("*") if path.is_file()]
    assert len(files) >= 3  # results, two samples files, the judge cache
    leaks = [str(path) for path in files if JUDGE_KEY.encode() in path.read_bytes()]
    leaks += [name for name, text in (("stdout", run.stdout), ("stderr", run.stderr)) if JUDGE_KEY in text]
    assert leaks == []


def test_existing_task_example_resolves_our_metrics():
    from lm_eval.tasks import TaskManager
    from lm_eval.tasks._yaml_loader import load_yaml

    manager = TaskManager(include_path=str(REPO / "integration" / "lm_eval"), include_defaults=False)
    assert {"nlgmetrics_demo", "wmt16-de-en-nlgmetrics"} <= set(manager.all_tasks)
    config = load_yaml(REPO / "integration" / "lm_eval" / "examples" / "wmt16_de_en_nlgmetrics.yaml", resolve_func=True)
    ours = [entry for entry in config["metric_list"] if callable(entry["metric"])]
    assert [entry["metric"].__name__ for entry in ours] == [entry["aggregation"] for entry in ours]
    assert all(registry.aggregation_registry.get(entry["aggregation"]) for entry in ours)


def test_source_separator_must_occur_exactly_once():
    if "chrf" not in available_metrics():
        pytest.skip("needs chrf")
    sources = ["Der Hund bellt.", "Die Katze schläft."]
    refs, preds = ["The dog barks.", "The cat sleeps."], ["The dog barks.", "A cat sleeps."]
    items = [nlgm.nlgm_chrf(references=[s + "\t" + r], predictions=[p], source_separator="\t")
             for s, r, p in zip(sources, refs, preds)]
    direct = flatten_result("chrf", compute_suite(preds, refs, ["chrf"], {"chrf": {}})["chrf"])["chrf"]
    assert registry.get_metric_aggregation("nlgm_chrf")(items) == pytest.approx(direct, abs=1e-9)
    assert nlgm.split_sources("chrf", ["a\tb", "c\t"], "\t") == (["a", "c"], ["b", ""])
    # a tab inside the source: splitting at the first (or the last) tab would move text between source and reference
    tabbed = [nlgm.nlgm_chrf(references=["Der\tHund bellt.\tThe dog barks."], predictions=["x"],
                             source_separator="\t")] + items
    with pytest.raises(ValueError, match=r"the target of document 0 contains it 2 times .*1 of 3 targets .*Choose a "
                                         r"separator no text contains"):
        registry.get_metric_aggregation("nlgm_chrf")(tabbed)
    missing = items + [nlgm.nlgm_chrf(references=["no separator"], predictions=["x"], source_separator="\t")]
    with pytest.raises(ValueError, match=r"the target of document 2 does not contain it: 'no separator'"):
        registry.get_metric_aggregation("nlgm_chrf")(missing)


def test_credentials_never_enter_a_logged_sample():
    if "llm_judge" not in available_metrics():
        pytest.skip("needs llm_judge")
    for option, value in (("api_key", "sk-LMEVAL-SECRET-1"),
                          ("base_url", "http://user:LMEVAL-SECRET-2@127.0.0.1:1/v1"),
                          ("base_url", "http://127.0.0.1:1/v1?api-key=LMEVAL-SECRET-3")):
        with pytest.raises(ValueError, match=rf"nlgm_llm_judge: the metric option\(s\) {option} carry a credential"
                                             r".*set \$OPENAI_API_KEY") as caught:
            nlgm.nlgm_llm_judge(references=["r"], predictions=["p"], model="m", backend="openai", **{option: value})
        assert "LMEVAL-SECRET" not in str(caught.value)
    # the per-sample value lm-eval logs holds the name of the key's variable, never the key
    item = nlgm.nlgm_llm_judge(references=["r"], predictions=["p"], model="m", api_key_env="MY_JUDGE_KEY")
    assert item == ("r", "p", json.dumps({"api_key_env": "MY_JUDGE_KEY", "model": "m"}, sort_keys=True))


def test_api_key_env_reaches_the_server_only(monkeypatch, tmp_path):
    if "llm_judge" not in available_metrics():
        pytest.skip("needs llm_judge")
    pytest.importorskip("openai")
    from judge_servers import CannedServer, completion

    server = CannedServer(lambda body: (200, completion("4", logprob=-0.01), "application/json"))
    try:
        options = {"model": "m", "backend": "openai", "base_url": server.base_url, "cache": str(tmp_path / "c.sqlite"),
                   "template": "{reference} {prediction} {low} {high}", "api_key_env": "MY_JUDGE_KEY"}
        items = [nlgm.nlgm_llm_judge(references=[g], predictions=[p], **options) for g, p in zip(GOLDS, PREDICTIONS)]
        nlgm._MEMO.clear()
        with pytest.raises(ValueError, match=r"\$MY_JUDGE_KEY is not set"):
            registry.get_metric_aggregation("nlgm_llm_judge")(items)
        monkeypatch.setenv("MY_JUDGE_KEY", "sk-FROM-THE-ENVIRONMENT")
        assert registry.get_metric_aggregation("nlgm_llm_judge")(items) == pytest.approx(4.0)
    finally:
        server.stop()
    assert {headers["authorization"] for _, headers, _ in server.requests} == {"Bearer sk-FROM-THE-ENVIRONMENT"}
    assert "sk-FROM-THE-ENVIRONMENT" not in repr(items)
    assert b"sk-FROM-THE-ENVIRONMENT" not in b"".join(p.read_bytes() for p in tmp_path.iterdir())
