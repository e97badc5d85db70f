"""LLM judge core: templates, scale, parsing, G-Eval, pairwise, the in-process transformers backend and the cache,
on a tiny random Llama built here (tests/tiny_judge.py)."""

from __future__ import annotations

import functools
import sqlite3
import warnings

import pytest
import torch

from nlgmetrics.judge import Answer, JudgeBackend, Scale, Template, compute_llm_judge
from nlgmetrics.judge.cache import JudgmentCache
from nlgmetrics.judge.errors import JudgeCacheError
from nlgmetrics.judge.scale import combine_orders, pairwise_verdict
from nlgmetrics.judge.templates import builtin_template, resolve_template
from tiny_judge import tiny_judge_folder

PREDICTIONS = ["the cat sat on the mat", "a dog", "the answer is good", "bad text", "fluent summary of the source",
               "it was a cat", "dog", "cat"]
SHORT = "score {prediction} from {low} to {high}"
PAIR = "which is better {response_a} or {response_b}"


@pytest.fixture(scope="session")
def tiny_judge():
    return tiny_judge_folder()


@functools.cache
def oracle(folder: str):
    """The tiny judge loaded on its own (not through the backend under test)."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    return AutoTokenizer.from_pretrained(folder), AutoModelForCausalLM.from_pretrained(folder).eval()


def exact_probs(folder: str, messages: list[dict], labels) -> dict[str, float]:
    """The oracle: one unpadded forward pass, softmax over the whole vocabulary at the answer position."""
    tokenizer, model = oracle(folder)
    ids = tokenizer.apply_chat_template(messages, add_generation_prompt=True, return_tensors="pt", return_dict=True)
    with torch.no_grad():
        probs = torch.softmax(model(**ids).logits[0, -1].double(), -1)
    return {label: probs[tokenizer.convert_tokens_to_ids(label)].item() for label in labels}


# -- scale, parsing, verdicts -------------------------------------------------------------------------------------
def test_scale_parse_and_geval():
    scale = Scale(1, 5)
    assert [scale.parse(t) for t in ("4", "Score: 3/5", " 5.", "10", "0", "4.5", "none", "")] == \
        [4.0, 3.0, 5.0, None, None, None, None, None]
    assert scale.expected({"1": 0.5, "5": 0.5}) == 3.0
    assert scale.expected({"2": 0.1, "4": 0.3, "x": 0.6}) == pytest.approx((0.2 + 1.2) / 0.4)
    assert scale.expected({"7": 1.0}) is None
    with pytest.raises(ValueError, match="0 <= low < high <= 9"):
        Scale(1, 10)


def test_pairwise_verdicts_and_orders():
    assert pairwise_verdict("B is better", None) == "B"
    assert pairwise_verdict("Answer: C", None) == "C"
    assert pairwise_verdict("neither", None) is None
    assert pairwise_verdict("A", {"A": 0.2, "B": 0.7, "C": 0.1}) == "B"
    # prediction first: A = win; prediction second: B = win
    assert combine_orders("A", "B") == ("win", True)
    assert combine_orders("B", "A") == ("loss", True)
    assert combine_orders("C", "C") == ("tie", True)
    assert combine_orders("A", "A") == ("tie", False)  # position bias: the verdict followed the slot
    assert combine_orders("A", None) == (None, None)


# -- templates ------------------------------------------------------------------------------------------------------
def test_templates_checked_before_any_call():
    # every error below comes before the (nonexistent) model would be loaded
    bad = dict(model="./nonexistent-model", cache=False)
    with pytest.raises(ValueError, match=r"needs contexts=\[...\]"):
        compute_llm_judge(["a"], template="faithfulness", **bad)
    with pytest.raises(ValueError, match=r"unknown placeholder\(s\) \{answer\}"):
        compute_llm_judge(["a"], template="rate {answer}", **bad)
    with pytest.raises(ValueError, match=r"never shows the text to judge: add \{prediction\}"):
        compute_llm_judge(["a"], template="rate {reference}", references=["b"], **bad)
    with pytest.raises(ValueError, match=r"needs \{source\}: pass sources="):
        compute_llm_judge(["a"], template="{source}: {prediction}", **bad)
    with pytest.raises(ValueError, match="malformed"):
        compute_llm_judge(["a"], template="rate {prediction", **bad)
    with pytest.raises(ValueError, match=r"contexts\[1\] is empty"):
        compute_llm_judge(["a", "b"], template="faithfulness", contexts=["ctx", " "], **bad)
    with pytest.raises(ValueError, match="unknown judge template 'corectness'"):
        compute_llm_judge(["a"], template="corectness", **bad)


def test_builtin_templates_add_blocks_for_given_inputs():
    plain = builtin_template("coherence", "score", set())
    rag = builtin_template("faithfulness", "score", {"context", "source"})
    assert plain.fields() == {"prediction", "low", "high"}
    assert rag.fields() == {"prediction", "low", "high", "context", "source"}
    assert plain.digest() != builtin_template("coherence", "score", {"reference"}).digest()
    pair = resolve_template(None, "pairwise", {"reference"})
    assert pair.fields() == {"response_a", "response_b", "reference"}
    text = rag.messages({"prediction": "P", "context": "C", "source": "S", "low": 1, "high": 5})[1]["content"]
    assert "Context:\nC" in text and "Question or input:\nS" in text and "from 1 to 5" in text


# -- the transformers backend ---------------------------------------------------------------------------------------
def test_geval_scores_equal_exact_probabilities(tiny_judge):
    result = compute_llm_judge(PREDICTIONS, model=tiny_judge, template=SHORT, cache=False, batch_size=3)
    assert result["weighting_used"] == "geval" and result["unparseable"] == 0 and result["judged"] == len(PREDICTIONS)
    labels = [str(v) for v in range(1, 6)]
    for text, score in zip(PREDICTIONS, result["scores"]):
        probs = exact_probs(tiny_judge, [{"role": "user", "content": SHORT.format(prediction=text, low=1, high=5)}],
                            labels)
        assert score == pytest.approx(sum(int(v) * p for v, p in probs.items()) / sum(probs.values()), abs=1e-5)
    assert max(result["scores"]) - min(result["scores"]) > 0.5  # the tiny judge is input-dependent
    assert result["llm_judge"] == pytest.approx(sum(result["scores"]) / len(PREDICTIONS))
    assert "backend:transformers" in result["signature"] and "scale:1-5" in result["signature"]


def test_parse_mode_reads_greedy_answer(tiny_judge):
    with pytest.warns(UserWarning, match="could not be read as an integer 1-5; excluded from the mean"):
        result = compute_llm_judge(PREDICTIONS, model=tiny_judge, template=SHORT, weighting="parse", max_tokens=3,
                                   cache=False, return_answers=True, on_unparseable="exclude")
    tokenizer, model = oracle(tiny_judge)
    for text, answer, score in zip(PREDICTIONS, result["answers"], result["scores"]):
        ids = tokenizer.apply_chat_template([{"role": "user", "content": SHORT.format(prediction=text, low=1,
                                                                                       high=5)}],
                                            add_generation_prompt=True, return_tensors="pt", return_dict=True)
        out = model.generate(**ids, max_new_tokens=3, do_sample=False)
        expected = tokenizer.decode(out[0, ids["input_ids"].shape[1]:], skip_special_tokens=True)
        assert answer == expected
        first = int(expected.split()[0]) if expected.split()[0].isdigit() else None
        assert score == (float(first) if first is not None and 1 <= first <= 5 else None)
    assert result["unparseable"] == sum(s is None for s in result["scores"]) > 0  # the tiny judge also says 0
    valid = [s for s in result["scores"] if s is not None]
    assert result["llm_judge"] == pytest.approx(sum(valid) / len(valid))


def test_pairwise_both_orders_and_consistency(tiny_judge):
    baseline = PREDICTIONS[1:] + PREDICTIONS[:1]  # no pair appears in both orders (identical judgments are asked once)
    result = compute_llm_judge(PREDICTIONS, mode="pairwise", baseline=baseline, template=PAIR, model=tiny_judge,
                               cache=False)
    assert result["judged"] == 2 * len(PREDICTIONS)
    outcomes, agree = [], []
    for a, b in zip(PREDICTIONS, baseline):
        verdicts = []
        for x, y in ((a, b), (b, a)):
            probs = exact_probs(tiny_judge, [{"role": "user", "content": PAIR.format(response_a=x, response_b=y)}],
                                "ABC")
            verdicts.append(max("ABC", key=probs.get))
        outcome, consistent = combine_orders(*verdicts)
        outcomes.append(outcome)
        agree.append(consistent)
    assert result["outcomes"] == outcomes
    assert result["position_consistency"] == pytest.approx(sum(agree) / len(agree))
    assert result["wins"] + result["ties"] + result["losses"] == len(PREDICTIONS)
    assert result["llm_judge"] == pytest.approx((result["wins"] + 0.5 * result["ties"]) / len(PREDICTIONS))


def test_empty_predictions_defined_without_a_call(tiny_judge):
    result = compute_llm_judge(["", "a dog", "  "], model=tiny_judge, template=SHORT, cache=False)
    assert result["scores"][0] == result["scores"][2] == 1.0 and result["empty"] == 2 and result["judged"] == 1
    pair = compute_llm_judge(["", "a", ""], mode="pairwise", baseline=["b", "", ""], template=PAIR,
                             model=tiny_judge, cache=False)
    assert pair["outcomes"] == ["loss", "win", "tie"] and pair["judged"] == 0
    with pytest.raises(ValueError, match="predictions is empty"):
        compute_llm_judge([], model=tiny_judge)
    with pytest.raises(ValueError, match="baseline has 1 texts for 2"):
        compute_llm_judge(["a", "b"], mode="pairwise", baseline=["c"], model=tiny_judge)


# -- unparseable answers, with a backend that answers from a script --------------------------------------------------
class ScriptedBackend(JudgeBackend):
    """Answers with texts from ``script(request, seed)``, no probabilities; records every call."""

    name = "scripted"

    def __init__(self, script, model="scripted-judge", fingerprint="fp1", fail_after=None):
        self.script, self.model, self.fingerprint, self.fail_after = script, model, fingerprint, fail_after
        self.calls: list = []

    def identity(self):
        return {"backend": self.name, "model": "scripted-judge"}

    def run(self, requests, on_answer, *, max_tokens, weighting, temperature=0.0, seed=0, progress=False):
        for j, request in enumerate(requests):
            if self.fail_after is not None and len(self.calls) >= self.fail_after:
                raise ConnectionError("judge went away")
            self.calls.append((request, seed))
            on_answer(j, Answer(self.script(request, seed), None, self.model, self.fingerprint, 10, 1))


def _prediction(request) -> str:
    return request.as_messages()[-1]["content"].split(" from ")[0].removeprefix("score ")


def test_unparseable_counted_excluded_retried_or_raised():
    answers = {"a": "4", "b": "no idea", "c": "Score: 2"}
    judge = ScriptedBackend(lambda r, seed: answers[_prediction(r)])
    with pytest.warns(UserWarning, match="1 of 3 answers could not be read"):
        result = compute_llm_judge(["a", "b", "c"], backend=judge, template=SHORT, cache=False)
    assert result["scores"] == [4.0, None, 2.0] and result["unparseable"] == 1
    assert result["unparseable_indices"] == [1] and result["llm_judge"] == 3.0
    assert result["weighting_used"] == "parse"
    with pytest.raises(ValueError, match="example 1 cannot be read"):
        compute_llm_judge(["a", "b", "c"], backend=judge, template=SHORT, cache=False, on_unparseable="error")
    retrying = ScriptedBackend(lambda r, seed: answers[_prediction(r)] if seed == 0 else "5")
    result = compute_llm_judge(["a", "b", "c"], backend=retrying, template=SHORT, cache=False,
                               on_unparseable="retry")
    assert result["scores"] == [4.0, 5.0, 2.0] and result["unparseable"] == 0
    assert [seed for _, seed in retrying.calls] == [0, 0, 0, 1]


# -- the cache --------------------------------------------------------------------------------------------------------
def test_cache_rerun_pays_only_for_new_rows(tiny_judge, tmp_path):
    path = tmp_path / "judge.sqlite"
    first = compute_llm_judge(PREDICTIONS[:5], model=tiny_judge, template=SHORT, cache=str(path))
    assert first["cache_hits"] == 0 and first["judged"] == 5
    again = compute_llm_judge(PREDICTIONS, model=tiny_judge, template=SHORT, cache=str(path))
    assert again["cache_hits"] == 5 and again["judged"] == 3
    assert again["scores"][:5] == first["scores"]
    assert sqlite3.connect(path).execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    other = compute_llm_judge(PREDICTIONS[:5], model=tiny_judge, template=SHORT + ".", cache=str(path))
    assert other["cache_hits"] == 0  # another template is another judgment
    parse = compute_llm_judge(PREDICTIONS[:5], model=tiny_judge, template=SHORT, cache=str(path), weighting="parse")
    assert parse["cache_hits"] == 0  # another parsing rule too
    assert len(JudgmentCache(path)) == 18


def test_cache_commits_each_answer_and_resumes(tmp_path):
    path = tmp_path / "judge.sqlite"
    dying = ScriptedBackend(lambda r, seed: "3", fail_after=2)
    with pytest.raises(ConnectionError):
        compute_llm_judge(["a", "b", "c", "d"], backend=dying, template=SHORT, cache=str(path), weighting="parse")
    assert len(JudgmentCache(path)) == 2
    fresh = ScriptedBackend(lambda r, seed: "3")
    result = compute_llm_judge(["a", "b", "c", "d"], backend=fresh, template=SHORT, cache=str(path),
                               weighting="parse")
    assert result["cache_hits"] == 2 and result["judged"] == 2 and len(fresh.calls) == 2
    assert result["scores"] == [3.0] * 4


def test_cache_warns_when_the_judge_answers_as_another_model(tmp_path):
    path = tmp_path / "judge.sqlite"
    compute_llm_judge(["a"], backend=ScriptedBackend(lambda r, s: "3"), template=SHORT, cache=str(path),
                      weighting="parse")
    with pytest.warns(UserWarning, match="fingerprint 'fp2', recorded before as 'scripted-judge' 'fp1'"):
        compute_llm_judge(["b"], backend=ScriptedBackend(lambda r, s: "3", fingerprint="fp2"), template=SHORT,
                          cache=str(path), weighting="parse")


def test_cache_refuses_a_file_that_is_not_sqlite(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("my notes\n" * 100)
    with pytest.raises(JudgeCacheError, match="notes.txt cannot be used .*not an intact SQLite database"):
        compute_llm_judge(["a"], backend=ScriptedBackend(lambda r, s: "3"), template=SHORT, cache=str(path))
    assert path.read_text() == "my notes\n" * 100


# -- the evaluate module ----------------------------------------------------------------------------------------------
def test_evaluate_module_doctest_and_reference_free(tiny_judge):
    import doctest

    import evaluate

    module = evaluate.load("./metrics/llm_judge")
    # the docstring as HF's test_load runs it: no names injected (it once read an undefined JUDGE_MODEL)
    test = doctest.DocTestParser().get_doctest(module.inputs_description, {"evaluate": evaluate}, "llm_judge", None, 0)
    runner = doctest.DocTestRunner()
    runner.run(test)
    assert runner.summarize().failed == 0 and runner.summarize().attempted >= 3
    direct = compute_llm_judge(["a dog"], sources=["what barks?"], model=tiny_judge, template="relevance",
                               cache=False)
    through = module.compute(predictions=["a dog"], sources=["what barks?"], model=tiny_judge, template="relevance",
                             cache=False)
    assert through["scores"] == direct["scores"] and through["signature"] == direct["signature"]
    with pytest.raises(ValueError, match="Did you mean 'template'"):
        module.compute(predictions=["a"], model=tiny_judge, templat="x")


def test_labels_that_are_no_single_token_fall_back_to_parsing(tiny_judge):
    from nlgmetrics.judge import Request, get_backend

    backend = get_backend("transformers", tiny_judge)
    request = Request.of([{"role": "user", "content": "score the cat"}], ("3", "three"))
    answers = []
    with pytest.warns(UserWarning, match=r"no single token .* spells the answer label\(s\) \['three'\]"):
        backend.run([request], lambda i, a: answers.append(a), max_tokens=3, weighting="geval")
    assert answers[0].probs is None and answers[0].completion_tokens == 3


def test_bad_input_is_named_before_any_call():
    judge = ScriptedBackend(lambda r, s: "3")
    run = dict(backend=judge, template=SHORT, cache=False)
    cases = [
        (dict(predictions="one text"), TypeError, "Wrap a single text in a list"),
        (dict(predictions=["a", None]), TypeError, r"predictions\[1\]"),
        (dict(predictions=["a", "b"], sources=["q"], template="relevance"), ValueError,
         "sources has 1 items for 2 predictions"),
        (dict(predictions=["a"], sources="q", template="relevance"), TypeError, "wrap a single text"),
        (dict(predictions=["a"], scale=(1, 10)), ValueError, "0 <= low < high <= 9"),
        (dict(predictions=["a"], scale=(1.0, 5.0)), TypeError, r"scale must be a pair \(an integer, an integer\)"),
        (dict(predictions=["a"], weighting="mean"), ValueError, "weighting must be 'geval' or 'parse'"),
        (dict(predictions=["a"], on_unparseable="skip"), ValueError, "on_unparseable must be one of"),
        (dict(predictions=["a"], temperature=-1), ValueError, r"temperature must be a finite number in \[0, 2\]"),
        (dict(predictions=["a"], price=5), ValueError, "price must be"),
        (dict(predictions=["a"], cache=0), TypeError, "cache must be True"),
        (dict(predictions=["a"], mode="ranking"), ValueError, "mode must be 'score' or 'pairwise'"),
        (dict(predictions=["a"], template={"user": 3}), TypeError, "'user' must be a non-empty string"),
        (dict(predictions=["a"], baseline=["b"]), ValueError, "only read with mode='pairwise'"),
        (dict(predictions=["a"], mode="pairwise", template=PAIR_ONLY), ValueError, "baseline=\\[...\\]"),
        (dict(predictions=["a"], backend="vllm"), ValueError, "backend must be 'transformers', 'openai'"),
        (dict(predictions=["a"], backend="transformers", model=None), ValueError, "the judge needs model="),
    ]
    for options, error, message in cases:
        with pytest.raises(error, match=message):
            compute_llm_judge(**{**run, **options})
    assert judge.calls == []


PAIR_ONLY = "which is better {response_a} or {response_b}"


def test_lone_surrogates_are_replaced_with_a_warning(tmp_path):
    judge = ScriptedBackend(lambda r, s: "4")
    with pytest.warns(UserWarning, match="lone surrogates"):
        result = compute_llm_judge(["bad \udcff byte"], backend=judge, template=SHORT, cache=str(tmp_path / "c.db"))
    assert result["scores"] == [4.0] and "\ufffd" in judge.calls[0][0].as_messages()[-1]["content"]


def test_answers_from_two_fingerprints_in_one_run_warn():
    class Redeployed(ScriptedBackend):  # the server answers with another fingerprint after the first answer
        def run(self, requests, on_answer, **options):
            for j, _ in enumerate(requests):
                on_answer(j, Answer("3", None, self.model, f"fp{min(j, 1)}", 1, 1))

    with pytest.warns(UserWarning, match="the answers come from 2 model/fingerprint pairs"):
        result = compute_llm_judge(["a", "b"], backend=Redeployed(None), template=SHORT, cache=False)
    assert result["scores"] == [3.0, 3.0]


def test_cache_key_and_signature_carry_the_in_process_dtype(tiny_judge, tmp_path):
    path = str(tmp_path / "judge.sqlite")
    f32 = compute_llm_judge(PREDICTIONS[:3], model=tiny_judge, template=SHORT, cache=path)
    b16 = compute_llm_judge(PREDICTIONS[:3], model=tiny_judge, template=SHORT, cache=path, dtype="bfloat16")
    assert b16["cache_hits"] == 0 and b16["judged"] == 3  # a bfloat16 judgment is not served to a float32 run
    assert "dtype:float32" in f32["signature"] and "dtype:bfloat16" in b16["signature"]
    assert b16["scores"] != f32["scores"]  # bfloat16 rounding moves G-Eval scores
    again = compute_llm_judge(PREDICTIONS[:3], model=tiny_judge, template=SHORT, cache=path)
    assert again["cache_hits"] == 3 and again["scores"] == f32["scores"]


# -- issue 43: the cache's reuse and read-only rule, price, prompt length, out of memory --------------------------------
def test_a_geval_answer_without_probabilities_is_reused_like_any_answer(tmp_path):
    """Issue 43: G-Eval (the default weighting) against a server that returns no token probabilities never reused a
    cached answer: a rerun after a kill paid for every judgment again (400 of 400)."""
    path = str(tmp_path / "judge.sqlite")
    first = ScriptedBackend(lambda r, s: "4")  # answers without probabilities
    done = compute_llm_judge(["a", "b", "c"], backend=first, template=SHORT, cache=path)
    assert done["weighting_used"] == "parse" and done["judged"] == 3 and len(first.calls) == 3
    rerun = ScriptedBackend(lambda r, s: "1")
    again = compute_llm_judge(["a", "b", "c", "d"], backend=rerun, template=SHORT, cache=path)
    assert again["cache_hits"] == 3 and again["judged"] == 1 and len(rerun.calls) == 1
    assert again["scores"] == [4.0, 4.0, 4.0, 1.0] and again["weighting_used"] == "parse"


def test_a_read_only_cache_serves_its_rows_and_refuses_a_new_judgment_before_asking(tmp_path):
    """Issue 43: a read-only cache file could not even be read (a published cache could not be replayed)."""
    import os

    path = tmp_path / "published.sqlite"
    compute_llm_judge(["a", "b"], backend=ScriptedBackend(lambda r, s: "3"), template=SHORT, cache=str(path))
    os.chmod(path, 0o444)  # also read-only for root: the file's mode says it is published
    before = path.read_bytes()
    judge = ScriptedBackend(lambda r, s: "5")
    replay = compute_llm_judge(["b", "a"], backend=judge, template=SHORT, cache=str(path))
    assert replay["scores"] == [3.0, 3.0] and replay["cache_hits"] == 2 and judge.calls == []
    with pytest.raises(JudgeCacheError, match=r"published.sqlite is read-only and lacks 1 of the 3 judgments this run "
                                              r"needs \(it serves the other 2\); nothing was asked"):
        compute_llm_judge(["a", "b", "c"], backend=judge, template=SHORT, cache=str(path))
    assert judge.calls == [] and path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["published.sqlite"]


@pytest.mark.parametrize("price,error,match", [
    ((float("inf"), 0.0), "OptionTypeError", r"price must be a pair \(a finite number, a finite number\) or None"),
    ((float("nan"), 1.0), "OptionTypeError", "price must be a pair"),
    ((-1.0, 0.0), "OptionError", r"price must be a finite number in \[0, 1e\+06\]"),
    ((1.0, 1e300), "OptionError", r"price must be a finite number in \[0, 1e\+06\]"),
])
def test_price_is_two_finite_numbers_at_least_zero(price, error, match):
    """Issue 43: price=(inf, 0) gave cost inf."""
    from nlgmetrics import errors

    judge = ScriptedBackend(lambda r, s: "3")
    with pytest.raises(getattr(errors, error), match=match):
        compute_llm_judge(["a"], backend=judge, template=SHORT, cache=False, price=price)
    assert judge.calls == []
    cost = compute_llm_judge(["a"], backend=judge, template=SHORT, cache=False, price=(2, 8.5))["cost"]
    assert cost == pytest.approx((10 * 2 + 1 * 8.5) / 1e6)


def test_the_in_process_judge_refuses_a_prompt_longer_than_its_positions(tiny_judge):
    """Issue 43: the in-process judge scored a prompt longer than the model's positions without a word."""
    from nlgmetrics.errors import LimitError
    from nlgmetrics.judge.core import get_backend

    backend = get_backend("transformers", tiny_judge)
    calls = []
    original = backend.model.forward
    backend.model.forward = lambda *a, **k: calls.append(1) or original(*a, **k)
    try:
        with pytest.raises(LimitError, match=r"a prompt of \d+ tokens plus max_tokens=8 answer tokens is more than "
                                             r"the 512 positions .* \(1 of 2 prompts are too long\)"):
            compute_llm_judge(["the cat", "cat " * 600], backend=backend, template=SHORT, cache=False)
        assert calls == []  # refused before any forward
        assert compute_llm_judge(["cat " * 400], backend=backend, template=SHORT, cache=False)["judged"] == 1
    finally:
        backend.model.forward = original


def test_the_in_process_judge_halves_its_batch_on_out_of_memory(tiny_judge):
    """Issue 43: the judge's in-process model did not halve its batch; a raw torch OutOfMemoryError escaped. The OOM
    rule (nlgmetrics/embed/oom.py), simulated on the CPU: the same scores, one warning per halving."""
    from nlgmetrics.judge.backends import TransformersBackend

    oom = getattr(torch, "OutOfMemoryError", None) or torch.cuda.OutOfMemoryError
    backend = TransformersBackend(tiny_judge, batch_size=8)
    expected = compute_llm_judge(PREDICTIONS, backend=backend, template=SHORT, cache=False)["scores"]
    sizes = []
    original = backend.model.forward

    def capped(*args, **kwargs):
        sizes.append(len(kwargs["input_ids"]))
        if sizes[-1] > 2:
            raise oom("CUDA out of memory. Tried to allocate 9 GiB (simulated)")
        return original(*args, **kwargs)

    backend.model.forward = capped
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        halved = compute_llm_judge(PREDICTIONS, backend=backend, template=SHORT, cache=False)["scores"]
    assert [str(w.message) for w in caught if "out of memory" in str(w.message)] == [
        "CPU out of memory at batch 8; retrying at 4", "CPU out of memory at batch 4; retrying at 2"]
    assert sizes == [8, 4, 2, 2, 2, 2]
    assert halved == pytest.approx(expected, abs=1e-6)
    backend.model.forward = lambda *a, **k: (_ for _ in ()).throw(oom("CUDA out of memory (simulated)"))
    from nlgmetrics.errors import LimitError

    with pytest.raises(LimitError, match="out of memory with one sequence of .* tokens per forward"):
        compute_llm_judge(["a dog"], backend=backend, template=SHORT, cache=False)
