"""LLM-as-judge as a Hugging Face evaluate module: rubric scores (G-Eval probability-weighted) or pairwise verdicts
from a local transformers model or any OpenAI-compatible server, cached in SQLite (nlgmetrics)."""

import datasets
import evaluate

import nlgmetrics  # From: nlgmetrics
from nlgmetrics.integration import evaluate_support

_CITATION = """\
@inproceedings{liu-etal-2023-g,
    title = "{G}-Eval: {NLG} Evaluation using Gpt-4 with Better Human Alignment",
    author = "Liu, Yang and Iter, Dan and Xu, Yichong and Wang, Shuohang and Xu, Ruochen and Zhu, Chenguang",
    booktitle = "Proceedings of the 2023 Conference on Empirical Methods in Natural Language Processing",
    year = "2023",
    url = "https://aclanthology.org/2023.emnlp-main.153",
}
@inproceedings{zheng2023judging,
    title = "Judging {LLM}-as-a-Judge with {MT}-Bench and Chatbot Arena",
    author = "Zheng, Lianmin and Chiang, Wei-Lin and Sheng, Ying and others",
    booktitle = "Advances in Neural Information Processing Systems 36 (Datasets and Benchmarks)",
    year = "2023",
}
"""

_DESCRIPTION = """\
An LLM judges each prediction. mode="score": a rubric on an integer scale (default 1-5); where the backend gives token
probabilities the score is G-Eval's probability-weighted mean sum_v v p(v) / sum_v p(v) over the scale's answer
tokens, else the first integer of the answer. mode="pairwise": each prediction against a baseline's, judged in both
orders (win 1, tie 0.5, loss 0; verdicts that flip with the order count as ties), with the share of examples whose
verdict does not depend on the order (position consistency). Backends: "transformers" (a local causal LM, exact
next-token probabilities) and "openai" (any OpenAI-compatible server: vLLM, TGI, SGLang, llama.cpp, Ollama,
transformers serve, OpenAI). Temperature 0 and a seed by default; every judgment is cached in SQLite under a key of
everything that decides it. Judge quality is not measured here: measure your judge against your own labels.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions: list of str, the texts to judge.
    references: list of str or list of list of str, optional (reference-based rubrics such as 'correctness').
    sources: list of str, optional: the questions or inputs ({source}).
    contexts: list of str or list of list of str, optional: retrieved passages ({context}, 'faithfulness').
    model: a local model folder or hub id (backend 'transformers'), or the served model name (backend 'openai').
    backend: 'transformers' (default) or 'openai'; base_url, api_key: the server (openai).
    mode: 'score' (default) or 'pairwise' (with baseline: the other system's predictions).
    template: a built-in rubric ('correctness', 'faithfulness', 'relevance', 'coherence', 'fluency'; 'pairwise'),
        or your own text with {prediction} (score) or {response_a}/{response_b} (pairwise) and optionally
        {reference}, {source}, {context}, {low}, {high}; placeholders are checked before any call.
    scale: (low, high), default (1, 5). weighting: 'geval' (default) or 'parse'.
    temperature (0.0), seed (0), max_tokens (8): sampling parameters (openai).
    on_unparseable: 'exclude' (default: score None, left out of the mean), 'retry' or 'error'.
    cache: True (default file), a path, or False. price: (USD per 1M prompt tokens, per 1M completion tokens).
    max_concurrency (8), max_retries (6), timeout (60 s), top_logprobs (20): the openai client.
    batch_size (8), device, dtype, revision: the transformers model.
    return_answers: bool, add the raw answers. verbose: bool, a progress bar.
Returns:
    llm_judge: the mean score (pairwise: the win rate, ties counted half).
    scores: per-example scores (None where the answer could not be read).
    pairwise also: wins, ties, losses, outcomes, position_consistency.
    unparseable, unparseable_indices, empty, weighting_used, cache_hits, judged, prompt_tokens,
    completion_tokens, cost (with price), signature, answers (with return_answers).
Examples:
    A judge needs an instruction-tuned chat model (a local folder or hub id, or one served behind an
    OpenAI-compatible API); none is available offline, so the judging calls are not run here (tests/test_llm_judge.py
    runs them on a tiny random model).

    >>> judge = evaluate.load("./metrics/llm_judge")
    >>> model = "Qwen/Qwen2.5-0.5B-Instruct"
    >>> result = judge.compute(predictions=["Paris is the capital.", "Hamlet is by Marlowe."],
    ...                        references=["Paris", "William Shakespeare"], template="correctness",
    ...                        model=model)  # doctest: +SKIP
    >>> result["scores"], result["weighting_used"]  # doctest: +SKIP
    ([4.9..., 1.2...], 'geval')

    Templates and inputs are checked before any model is loaded or request sent:

    >>> judge.compute(predictions=["Paris is the capital."], model=model, template="correctness")
    Traceback (most recent call last):
    ...
    nlgmetrics.errors.OptionError: the 'correctness' judge template needs references=[...] (the reference answers), one per prediction.
    >>> judge.compute(predictions=["Paris is the capital."], model=model,
    ...               template="Rate {answer} from {low} to {high}.")
    Traceback (most recent call last):
    ...
    nlgmetrics.errors.OptionError: judge template 'custom' has unknown placeholder(s) {answer} for mode='score'; allowed: {context}, {high}, {low}, {prediction}, {reference}, {source}.
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class LLMJudge(evaluate_support.NLGMetric):
    metric_name = "llm_judge"
    references_optional = True

    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=evaluate_support.text_pair_features(),
            codebase_urls=["https://github.com/nlpyang/geval"],
            reference_urls=["https://arxiv.org/abs/2303.16634", "https://arxiv.org/abs/2306.05685"],
        )

    def _compute(
        self, predictions, references=None, sources=None, contexts=None, model=None, backend="transformers",
        mode="score", template=None, baseline=None, scale=(1, 5), weighting="geval", temperature=0.0, seed=0,
        max_tokens=8, on_unparseable="exclude", unparseable_retries=2, cache=True, base_url=None, api_key=None,
        revision=None, max_concurrency=8, max_retries=6, timeout=60.0, top_logprobs=20, price=None, batch_size=8,
        device=None, dtype=None, return_answers=False, verbose=False,
    ):
        from nlgmetrics.registry import score

        return score(
            "llm_judge", predictions, references, sources=sources, contexts=contexts, model=model, backend=backend,
            mode=mode, template=template, baseline=baseline, scale=scale, weighting=weighting,
            temperature=temperature, seed=seed, max_tokens=max_tokens, on_unparseable=on_unparseable,
            unparseable_retries=unparseable_retries, cache=cache, base_url=base_url, api_key=api_key,
            revision=revision, max_concurrency=max_concurrency, max_retries=max_retries, timeout=timeout,
            top_logprobs=top_logprobs, price=price, batch_size=batch_size, device=device, dtype=dtype,
            return_answers=return_answers, verbose=verbose,
        )
