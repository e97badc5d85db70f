"""LLM-as-judge: ``compute_llm_judge``, the metric's entry point (registry name ``llm_judge``).

Score mode: one judgment per example on an integer scale; with token probabilities the score is G-Eval's
probability-weighted mean (:mod:`nlgmetrics.judge.scale`), else the parsed integer. Pairwise mode: each prediction
against ``baseline`` (another system's prediction), judged in both orders; win = 1, tie = 0.5, loss = 0 per
example, and the share of examples whose verdict does not change with the order (position consistency).

Every judgment goes through the SQLite cache (:mod:`nlgmetrics.judge.cache`) unless ``cache=False``, keyed by the
request actually sent (the backend's ``payload``) and the backend's identity; no credential enters a signature, a
cache row or a message (:mod:`nlgmetrics._secrets`).

Bounds on the sizes a user sets: ``max_tokens`` <= :data:`MAX_TOKENS`, ``unparseable_retries`` <=
:data:`MAX_UNPARSEABLE_RETRIES`, ``top_logprobs`` <= 20, ``max_concurrency`` <= 256, ``max_retries`` <= 20,
``batch_size`` <= 4096, ``price`` two finite numbers in [0, :data:`MAX_PRICE`]; at most :data:`MAX_BACKENDS` backends
(loaded models, clients) are kept per process.
"""

from __future__ import annotations

import math
import threading
import warnings
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

import nlgmetrics
from nlgmetrics.errors import InputError, InputTypeError, OptionError, OptionTypeError
from nlgmetrics.inputs import check_predictions, check_references, replace_lone_surrogates
from nlgmetrics.options import check_int, check_real, checked_options
from nlgmetrics.judge.backends import Answer, JudgeBackend, Request, TransformersBackend
from nlgmetrics.judge.cache import JudgmentCache, cache_path, default_cache_path, judgment_key
from nlgmetrics.judge.errors import JudgeError
from nlgmetrics.judge.scale import (
    GEVAL, OUTCOME_SCORE, PAIRWISE_LABELS, PARSE, Scale, as_scale, combine_orders, pairwise_verdict,
)
from nlgmetrics.judge.templates import PAIRWISE, SCORE, Template, resolve_template

UNPARSEABLE = ("exclude", "retry", "error")
_BACKEND_OPTIONS = ("revision", "device", "dtype", "batch_size", "base_url", "api_key", "max_concurrency",
                    "max_retries", "timeout", "top_logprobs")
MAX_TOKENS = 4096
MAX_UNPARSEABLE_RETRIES = 10
MAX_BACKENDS = 4
#: the largest price per million tokens (USD) accepted: far above any served model's, and cost stays finite
MAX_PRICE = 1e6
_BACKENDS: OrderedDict[tuple, JudgeBackend] = OrderedDict()
_BACKENDS_LOCK = threading.Lock()


def get_backend(backend: str | JudgeBackend, model: str | None, **options: Any) -> JudgeBackend:
    """A backend object: ``backend`` itself when it is one, else ``"transformers"`` or ``"openai"`` built with
    ``options`` once per process and reused (a model is loaded once; a client keeps its connections)."""
    if isinstance(backend, JudgeBackend):
        return backend
    if backend not in ("transformers", "openai"):
        raise OptionError(f"backend must be 'transformers', 'openai' or a JudgeBackend object, got {backend!r}.")
    if not model:
        raise OptionError("the judge needs model=...: a local folder or hub id (transformers), or the served model "
                         "name (openai).")
    key = (backend, model, tuple(sorted((k, repr(v)) for k, v in options.items())))
    with _BACKENDS_LOCK:
        if key in _BACKENDS:
            _BACKENDS.move_to_end(key)
        else:
            while len(_BACKENDS) >= MAX_BACKENDS:  # the least recently used goes (its model, its connections)
                _BACKENDS.popitem(last=False)[1].close()
            if backend == "transformers":
                allowed = {"revision", "device", "dtype", "batch_size"}
                _BACKENDS[key] = TransformersBackend(model, **{k: v for k, v in options.items() if k in allowed})
            else:
                from nlgmetrics.judge.openai_backend import OpenAIBackend

                allowed = {"base_url", "api_key", "max_concurrency", "max_retries", "timeout", "top_logprobs"}
                _BACKENDS[key] = OpenAIBackend(model, **{k: v for k, v in options.items() if k in allowed})
        return _BACKENDS[key]


def with_backend(options: dict[str, Any]) -> dict[str, Any]:
    """``options`` of :func:`compute_llm_judge` with ``backend`` replaced by the built backend object (for a process
    that keeps the judge, e.g. a Ray actor: the model is loaded, or the client made, here and once)."""
    import inspect

    defaults = inspect.signature(compute_llm_judge).parameters
    build = {k: options.get(k, defaults[k].default) for k in _BACKEND_OPTIONS}
    return {**options, "backend": get_backend(options.get("backend", "transformers"), options.get("model"), **build)}


def _texts(values: Any, name: str, n: int) -> list[str] | None:
    """``values`` as one string per prediction (a list of strings per item is joined by blank lines)."""
    if values is None:
        return None
    if isinstance(values, (str, bytes)) or not hasattr(values, "__len__"):
        raise InputTypeError(f"{name} must be a list with one string per prediction, got {type(values).__name__}; "
                        f"wrap a single text in a list: [text].")
    if len(values) != n:
        raise InputError(f"{name} has {len(values)} items for {n} predictions; give one per prediction.")
    try:
        items = check_references(values, n)
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"{name}: {exc}".replace("references", name)) from None
    out = replace_lone_surrogates(["\n\n".join(item) for item in items], "llm_judge")
    empty = [i for i, text in enumerate(out) if not text.strip()]
    if empty:
        raise InputError(f"{name}[{empty[0]}] is empty ({len(empty)} empty in all); the judge template shows it, so "
                         f"give every example its {name[:-1]}, or drop {name}=.")
    return out


def signature_string(parts: dict[str, Any]) -> str:
    """``backend:...|model:...|...|version:nlgmetrics-...`` from the run's parts (:mod:`nlgmetrics.signature`); an
    in-process model adds the torch and transformers versions."""
    from nlgmetrics.signature import build, library_parts

    items = [(key, value) for key, value in parts.items() if key != "nlgmetrics"]
    return build(items + (library_parts() if parts.get("backend") == "transformers" else []))


@checked_options
def compute_llm_judge(
    predictions: Sequence[str],
    references: Sequence[str | Sequence[str]] | None = None,
    *,
    model: str | None = None,
    backend: str | JudgeBackend = "transformers",
    mode: str = SCORE,
    template: str | Template | dict | None = None,
    sources: Sequence[str] | None = None,
    contexts: Sequence[str | Sequence[str]] | None = None,
    baseline: Sequence[str] | None = None,
    scale: tuple[int, int] = (1, 5),
    weighting: str = GEVAL,
    temperature: float = 0.0,
    seed: int | None = 0,
    max_tokens: int = 8,
    on_unparseable: str = "exclude",
    unparseable_retries: int = 2,
    cache: bool | str = True,
    base_url: str | None = None,
    api_key: str | None = None,
    revision: str | None = None,
    max_concurrency: int = 8,
    max_retries: int = 6,
    timeout: float = 60.0,
    top_logprobs: int = 20,
    price: tuple[float, float] | None = None,
    batch_size: int = 8,
    device: str | None = None,
    dtype: str | None = None,
    return_answers: bool = False,
    verbose: bool = False,
) -> dict[str, Any]:
    """Judge each prediction with an LLM.

    ``mode="score"``: per-example ``scores`` on ``scale`` (G-Eval ``sum v p(v) / sum p(v)`` with ``weighting="geval"``
    where the backend returns probabilities, else the first integer of the answer); ``llm_judge`` is their mean.
    ``mode="pairwise"``: each prediction against ``baseline[i]`` in both orders; ``scores`` are 1 (win), 0.5 (tie, or
    verdicts that flip with the order) or 0 (loss); ``llm_judge`` is their mean (the win rate, ties half).

    ``references``, ``sources`` (questions) and ``contexts`` (RAG passages) are optional, one per prediction; the
    template decides which it needs. An empty prediction is not sent: it scores the scale's low end (score mode) or
    loses to a non-empty baseline (pairwise; two empty texts tie); ``empty`` counts them. Unparseable answers are
    counted in ``unparseable`` and, with ``on_unparseable="exclude"``, left out (their score is ``None``), with
    ``"retry"`` asked again up to ``unparseable_retries`` times (seed + attempt, temperature at least 0.7), with
    ``"error"`` raised. ``cache``: True (the default file, see :func:`nlgmetrics.judge.cache.default_cache_path`), a
    path, or False. ``price``: (USD per million prompt tokens, per million completion tokens) adds ``cost``.
    """
    predictions = replace_lone_surrogates(check_predictions(predictions), "llm_judge")
    n = len(predictions)
    if n == 0:
        raise InputError("predictions is empty; pass at least one text to judge.")
    refs = _texts(references, "references", n)
    given = {name for name, value in (("reference", refs), ("source", sources), ("context", contexts))
             if value is not None}
    tmpl = resolve_template(template, mode, given)  # placeholders checked before any input is read further
    srcs, ctxs = _texts(sources, "sources", n), _texts(contexts, "contexts", n)
    base = None
    if mode == PAIRWISE:
        if baseline is None:
            raise OptionError("mode='pairwise' compares each prediction with baseline=[...] (another system's "
                             "predictions, one per example).")
        base = replace_lone_surrogates(check_predictions(baseline, "baseline"), "llm_judge")
        if len(base) != n:
            raise InputError(f"baseline has {len(base)} texts for {n} predictions; give one per prediction.")
    elif baseline is not None:
        raise OptionError("baseline= is only read with mode='pairwise'.")
    if weighting not in (GEVAL, PARSE):
        raise OptionError(f"weighting must be 'geval' or 'parse', got {weighting!r}.")
    if on_unparseable not in UNPARSEABLE:
        raise OptionError(f"on_unparseable must be one of {UNPARSEABLE}, got {on_unparseable!r}.")
    max_tokens = check_int("max_tokens", max_tokens, 1, MAX_TOKENS, "answer tokens per judgment")
    unparseable_retries = check_int("unparseable_retries", unparseable_retries, 0, MAX_UNPARSEABLE_RETRIES,
                                    "extra requests per unparseable answer")
    temperature = check_real("temperature", temperature, 0, 2, "0: greedy, the default")
    timeout = check_real("timeout", timeout, 0.001, 86400, "seconds per request")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise OptionTypeError(f"seed must be an integer or None, got {seed!r}.")
    cache_file = cache_path(cache)  # True/False/a path; the strings "true"/"false"/... are no file names
    if price is not None:  # a pair of finite numbers (the type rule, nlgmetrics.options), neither negative
        price = tuple(check_real("price", p, 0, MAX_PRICE, "USD per 1M prompt tokens, per 1M completion tokens")
                      for p in price)
    sc = as_scale(scale)
    labels = PAIRWISE_LABELS if mode == PAIRWISE else sc.labels

    judge = get_backend(backend, model, revision=revision, device=device, dtype=dtype, batch_size=batch_size,
                        base_url=base_url, api_key=api_key, max_concurrency=max_concurrency, max_retries=max_retries,
                        timeout=timeout, top_logprobs=top_logprobs)
    parts = {**judge.identity(), "template": f"{tmpl.name}@{tmpl.digest()}", "mode": mode,
             "scale": sc.describe() if mode == SCORE else "A/B/C", "weighting": weighting,
             "temperature": temperature, "seed": seed, "nlgmetrics": nlgmetrics.__version__}
    fields = {"low": sc.low, "high": sc.high}

    def values(i: int) -> dict[str, Any]:
        return {**fields, "reference": refs[i] if refs else "", "source": srcs[i] if srcs else "",
                "context": ctxs[i] if ctxs else ""}

    # the judgments to make: (example, order) -> Request
    empty = [i for i in range(n) if not predictions[i].strip() or (base is not None and not base[i].strip())]
    todo: dict[tuple[int, int], Request] = {}
    for i in range(n):
        if i in empty:
            continue
        if mode == SCORE:
            todo[(i, 0)] = Request.of(tmpl.messages({**values(i), "prediction": predictions[i]}), labels)
        else:
            todo[(i, 0)] = Request.of(tmpl.messages({**values(i), "response_a": predictions[i],
                                                     "response_b": base[i]}), labels)
            todo[(i, 1)] = Request.of(tmpl.messages({**values(i), "response_a": base[i],
                                                     "response_b": predictions[i]}), labels)

    store = None if cache_file is None else JudgmentCache(cache_file, make_parents=cache is True or (
        isinstance(cache, str) and cache_file == default_cache_path()))
    stats = {"cache_hits": 0, "judged": 0, "prompt_tokens": 0, "completion_tokens": 0}
    try:
        answers = _judge_all(judge, store, todo, parts, weighting, temperature, seed, max_tokens, verbose, stats)
        read = _reader(mode, sc, weighting)
        unparseable = [k for k, a in answers.items() if read(a) is None]
        for attempt in range(1, unparseable_retries + 1):
            if on_unparseable != "retry" or not unparseable:
                break
            retry = {k: todo[k] for k in unparseable}
            again = _judge_all(judge, store, retry, parts, weighting, max(temperature, 0.7),
                               (seed or 0) + attempt, max_tokens, verbose, stats)
            answers.update({k: a for k, a in again.items() if read(a) is not None})
            unparseable = [k for k in unparseable if read(answers[k]) is None]
    finally:
        if store is not None:
            store.close()
    if unparseable and on_unparseable == "error":
        k = min(unparseable)
        raise JudgeError(f"the judge's answer to example {k[0]} cannot be read ({answers[k].text!r:.80}); "
                         f"{len(unparseable)} unparseable in all. Use on_unparseable='exclude' or 'retry'.")
    if unparseable:
        warnings.warn(f"llm_judge: {len(unparseable)} of {len(answers)} answers could not be read as "
                      f"{'A/B/C' if mode == PAIRWISE else 'an integer ' + sc.describe()}; "
                      "excluded from the mean (see 'unparseable').", stacklevel=2)
    bad = {k[0] for k in unparseable}

    result: dict[str, Any] = {}
    scores: list[float | None] = []
    if mode == SCORE:
        for i in range(n):
            scores.append(float(sc.low) if i in empty else None if i in bad else read(answers[(i, 0)]))
    else:
        outcomes, consistent = [], []
        for i in range(n):
            if i in empty:
                first, second = (not predictions[i].strip(), not base[i].strip())
                outcome, agree = ("tie" if first and second else "loss" if first else "win"), None
            elif i in bad:
                outcome, agree = None, None
            else:
                outcome, agree = combine_orders(read(answers[(i, 0)]), read(answers[(i, 1)]))
            outcomes.append(outcome)
            consistent.append(agree)
            scores.append(None if outcome is None else OUTCOME_SCORE[outcome])
        judged_pairs = [c for c in consistent if c is not None]
        result.update({
            "wins": outcomes.count("win"), "ties": outcomes.count("tie"), "losses": outcomes.count("loss"),
            "position_consistency": sum(judged_pairs) / len(judged_pairs) if judged_pairs else None,
            "outcomes": outcomes,
        })
    valid = [s for s in scores if s is not None]
    result = {"llm_judge": sum(valid) / len(valid) if valid else None, "scores": scores, **result}
    fell_back = weighting == GEVAL and any(a.probs is None for a in answers.values())
    observed = sorted({(a.model, a.fingerprint) for a in answers.values()})
    if len(observed) > 1:
        warnings.warn(f"llm_judge: the answers come from {len(observed)} model/fingerprint pairs "
                      f"({', '.join(f'{m!r} {f!r}' for m, f in observed[:4])}): the judge changed during the run, or "
                      f"cached answers come from an earlier one; scores may mix judges.", stacklevel=2)
    if observed and parts.get("backend") == "openai":
        parts = {**parts, "served": ",".join(f"{m}" + (f"@{f}" if f else "") for m, f in observed)}
    result.update({
        "unparseable": len(unparseable), "unparseable_indices": sorted(bad), "empty": len(empty),
        "weighting_used": PARSE if (weighting == PARSE or fell_back) else GEVAL,
        **stats, "signature": signature_string(parts),
    })
    if price is not None:
        result["cost"] = (stats["prompt_tokens"] * price[0] + stats["completion_tokens"] * price[1]) / 1e6
    if return_answers:
        result["answers"] = [[answers[(i, o)].text if (i, o) in answers else None
                              for o in range(2 if mode == PAIRWISE else 1)] for i in range(n)]
        if mode == SCORE:
            result["answers"] = [a[0] for a in result["answers"]]
    return result


def check_answer(answer: Answer, judge: JudgeBackend) -> None:
    """Refuse an answer no score can come from honestly: text not a string, token counts not integers, or a
    probability that is not a finite number in [0, 1] (it would make a NaN or infinite score)."""
    problem = None
    if not isinstance(answer.text, str):
        problem = f"its text is a {type(answer.text).__name__}"
    elif answer.probs is not None:
        if not isinstance(answer.probs, dict):
            problem = f"its probabilities are a {type(answer.probs).__name__}"
        else:
            bad = {k: v for k, v in answer.probs.items() if isinstance(v, bool) or not isinstance(v, (int, float))
                   or not math.isfinite(v) or not 0.0 <= v <= 1.0 + 1e-6}
            if bad:
                problem = f"the probabilities {bad} are not numbers in [0, 1]"
    if problem is not None:
        raise JudgeError(f"the judge {judge!r} ({', '.join(f'{k}={v}' for k, v in judge.identity().items())}) "
                         f"returned an unusable answer: {problem}; fix the backend.")


def _reader(mode: str, sc: Scale, weighting: str):
    """``Answer -> score or verdict or None`` for the mode and weighting."""
    if mode == PAIRWISE:
        return lambda a: pairwise_verdict(a.text, a.probs if weighting == GEVAL else None)
    if weighting == GEVAL:
        return lambda a: sc.expected(a.probs) if a.probs is not None and sc.expected(a.probs) is not None \
            else sc.parse(a.text)
    return lambda a: sc.parse(a.text)


def _judge_all(judge: JudgeBackend, store: JudgmentCache | None, todo: dict, parts: dict, weighting: str,
               temperature: float, seed: int | None, max_tokens: int, progress: bool, stats: dict) -> dict:
    """Answers for every request of ``todo``: from the cache, else from the backend (each stored as it arrives).

    The key is the request as the backend sends it (:meth:`JudgeBackend.payload`) with the backend's key identity
    and the run's template, mode, scale and version: a cached answer is the answer to that request, taken as it is
    (a G-Eval request answered without probabilities too: asking again gets the same). A read-only cache serves the
    rows it has and refuses, before anything is asked, a request it lacks."""
    keyparts = {**{k: v for k, v in parts.items() if k not in ("temperature", "seed", "weighting")},
                **judge.key_identity()}
    keys = {k: judgment_key({**keyparts, "labels": r.labels,
                             "request": judge.payload(r, max_tokens=max_tokens, weighting=weighting,
                                                      temperature=temperature, seed=seed)})
            for k, r in todo.items()}
    cached = store.get_many(list(set(keys.values()))) if store is not None else {}
    answers = {k: cached[key] for k, key in keys.items() if key in cached}
    stats["cache_hits"] += len(answers)
    missing = [k for k in todo if k not in answers]
    if missing and store is not None and store.read_only:
        store.refuse_new(len({keys[k] for k in missing}), len(set(keys.values())))
    # one request per distinct key (identical judgments are asked once)
    distinct: dict[str, list] = {}
    for k in missing:
        distinct.setdefault(keys[k], []).append(k)
    order = list(distinct)
    requests = [todo[distinct[key][0]] for key in order]
    endpoint = judgment_key(judge.key_identity())
    warned: set[tuple[str, str]] = set()

    def on_answer(j: int, answer: Answer) -> None:
        key = order[j]
        check_answer(answer, judge)
        if store is not None:
            store.put(key, answer)
            before = store.seen(endpoint, answer.model, answer.fingerprint)
            if before is not None and (answer.model, answer.fingerprint) not in warned:
                warned.add((answer.model, answer.fingerprint))
                warnings.warn(f"llm_judge: {parts.get('model')} now answers as model {answer.model!r} fingerprint "
                              f"{answer.fingerprint!r}, recorded before as {before[0]!r} {before[1]!r}; the judge "
                              f"may have changed (scores may not be comparable with earlier runs).", stacklevel=2)
        for k in distinct[key]:
            answers[k] = answer
        stats["judged"] += 1
        stats["prompt_tokens"] += answer.prompt_tokens
        stats["completion_tokens"] += answer.completion_tokens

    if requests:
        judge.run(requests, on_answer, max_tokens=max_tokens, weighting=weighting, temperature=temperature,
                  seed=seed, progress=progress)
    return answers
