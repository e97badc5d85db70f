"""llm_judge through the metric spec: CLI score and compare, Trainer compute_metrics, lm-eval, Ray's scorer; bad
input at those doors (a server that is down on the command line, unscored segments in compare)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from nlgmetrics.cli import main
from nlgmetrics.judge import compute_llm_judge
from nlgmetrics.registry import available_metrics, get_spec, self_contained_metrics
from test_llm_judge import PREDICTIONS, SHORT, ScriptedBackend
from tiny_judge import tiny_judge_folder

QUESTIONS = [f"what about {t}?" for t in PREDICTIONS]
OTHER = PREDICTIONS[3:] + PREDICTIONS[:3]
RELEVANCE = "{source} answer {prediction} score from {low} to {high}"


@pytest.fixture(scope="module")
def tiny_judge():
    return tiny_judge_folder()


@pytest.fixture()
def files(tmp_path):
    out = {}
    for name, lines in (("a", PREDICTIONS), ("b", OTHER), ("q", QUESTIONS)):
        out[name] = tmp_path / f"{name}.txt"
        out[name].write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out


def test_spec_is_opt_in_per_example_and_higher_is_better():
    spec = get_spec("llm_judge")
    assert spec.needs_checkpoint and "llm_judge" in available_metrics() and "llm_judge" not in self_contained_metrics()
    assert spec.per_example == {"scores": "llm_judge"} and spec.higher_is_better and spec.references_optional
    assert "sources" not in spec.option_names() and "contexts" in spec.option_names()


def test_cli_score_with_sources_and_no_references(tiny_judge, files, tmp_path, capsys):
    cache = tmp_path / "judge.sqlite"
    args = ["score", "-m", "llm_judge", "-p", str(files["a"]), "-s", str(files["q"]), "-o", f"model={tiny_judge}",
            "-o", f"template={RELEVANCE}", "-o", f"cache={cache}", "--format", "json"]
    assert main(args) == 0
    result = json.loads(capsys.readouterr().out)
    direct = compute_llm_judge(PREDICTIONS, sources=QUESTIONS, model=tiny_judge, template=RELEVANCE, cache=False)
    assert result["scores"] == pytest.approx(direct["scores"], abs=1e-9) and result["judged"] == len(PREDICTIONS)
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out)["cache_hits"] == len(PREDICTIONS)  # the cache path option was a path


def test_cli_server_down_is_one_line_naming_the_url(files, capsys):
    url = "http://127.0.0.1:9/v1"
    code = main(["score", "-m", "llm_judge", "-p", str(files["a"]), "-o", "backend=openai", "-o", f"base_url={url}",
                 "-o", "model=judge", "-o", "template=fluency", "-o", "cache=false"])
    err = capsys.readouterr().err
    assert code == 2 and f"the judge server at {url} cannot be reached" in err and "Traceback" not in err


def test_cli_compare_runs_a_paired_test_on_judge_scores(tiny_judge, files, capsys):
    assert main(["compare", "-s", str(files["q"]), "--baseline", str(files["a"]), str(files["b"]), "-m", "llm_judge",
                 "-o", f"llm_judge.model={tiny_judge}", "-o", f"llm_judge.template={RELEVANCE}",
                 "-o", "llm_judge.cache=false", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    base = compute_llm_judge(PREDICTIONS, sources=QUESTIONS, model=tiny_judge, template=RELEVANCE, cache=False)
    other = compute_llm_judge(OTHER, sources=QUESTIONS, model=tiny_judge, template=RELEVANCE, cache=False)
    assert [row["score"] for row in rows] == pytest.approx([base["llm_judge"], other["llm_judge"]], abs=1e-9)
    assert rows[1]["p_value"] is not None and 0 < rows[1]["p_value"] <= 1


def test_compare_refuses_unscored_segments():
    from nlgmetrics import compare

    judge = ScriptedBackend(lambda r, seed: "no idea" if "b" in r.as_messages()[-1]["content"] else "3")
    with pytest.raises(ValueError, match="left segment 1 of system 'x' without a score .*on_unparseable='retry'"):
        with pytest.warns(UserWarning):
            compare({"x": ["a", "b"], "y": ["c", "d"]}, [["r"], ["r"]], ["llm_judge"], baseline="x",
                    metric_options={"llm_judge": {"backend": judge, "template": SHORT, "cache": False}})


def test_trainer_compute_metrics_opt_in(tiny_judge):
    from transformers import AutoTokenizer

    from nlgmetrics.integration.transformers import make_compute_metrics

    tokenizer = AutoTokenizer.from_pretrained(tiny_judge)
    ids = [tokenizer.encode(t, add_special_tokens=False) for t in PREDICTIONS]
    width = max(map(len, ids))
    batch = np.array([row + [-100] * (width - len(row)) for row in ids])
    compute_metrics = make_compute_metrics(tokenizer, ["llm_judge"], {"llm_judge": {
        "model": tiny_judge, "template": SHORT, "cache": False}}, warmup=False)
    flat = compute_metrics((batch, batch))
    decoded = [tokenizer.decode(row, skip_special_tokens=True).strip() for row in ids]
    expected = compute_llm_judge(decoded, model=tiny_judge, template=SHORT, cache=False)["llm_judge"]
    assert flat["llm_judge"] == pytest.approx(expected, abs=1e-9)


def test_lm_eval_scores_the_corpus_once(tiny_judge):
    pytest.importorskip("lm_eval")
    from nlgmetrics.integration.lm_eval import score_corpus

    options = json.dumps({"model": tiny_judge, "template": "{reference} {prediction} {low} {high}", "cache": False})
    flat = score_corpus("llm_judge", [(ref, pred, options) for ref, pred in zip(OTHER, PREDICTIONS)])
    direct = compute_llm_judge(PREDICTIONS, OTHER, model=tiny_judge, template="{reference} {prediction} {low} {high}",
                               cache=False)
    assert flat["llm_judge"] == pytest.approx(direct["llm_judge"], abs=1e-9)


def test_ray_scorer_actor_owns_the_judge(tiny_judge):
    pytest.importorskip("ray")
    from nlgmetrics.integration.ray_data import MetricScorer
    from nlgmetrics.judge import TransformersBackend

    scorer = MetricScorer(["llm_judge"], reference_columns=(), source_column="q",
                          metric_options={"llm_judge": {"model": tiny_judge, "template": RELEVANCE, "cache": False}})
    assert isinstance(scorer.options["llm_judge"]["backend"], TransformersBackend)  # built in the actor, once
    batch = {"prediction": np.array(PREDICTIONS, dtype=object), "q": np.array(QUESTIONS, dtype=object)}
    scored = scorer(dict(batch))
    direct = compute_llm_judge(PREDICTIONS, sources=QUESTIONS, model=tiny_judge, template=RELEVANCE, cache=False)
    assert scored["llm_judge"].tolist() == pytest.approx(direct["scores"], abs=1e-9)
    unreadable = MetricScorer(["llm_judge"], reference_columns=(), metric_options={"llm_judge": {
        "backend": ScriptedBackend(lambda r, s: "?" if "dog" in r.as_messages()[-1]["content"] else "2"),
        "template": SHORT, "cache": False}})
    with pytest.warns(UserWarning):
        column = unreadable({"prediction": np.array(["a dog", "a cat"], dtype=object)})["llm_judge"]
    assert column.tolist() == [None, 2.0]  # a null cell, not NaN
