"""Minimum-Bayes-risk (MBR) selection and quality-estimation (QE) reranking with any metric of the registry.

    from nlgmetrics.mbr import mbr, rerank

    candidates = [["Das ist gut.", "Das ist schön.", "Es ist gut."], ["Hallo Welt.", "Hallo, Welt!"]]
    result = mbr(candidates, metric="chrf")                  # one selected candidate per source
    result["index"], result["text"], result["expected_utility"], result["signature"]
    mbr(candidates, metric="comet", sources=sources, model="Unbabel/wmt22-comet-da")
    mbr(candidates, metric="comet", sources=sources, method="aggregate")     # Vamvas & Sennrich 2024
    mbr(candidates, metric="comet", sources=sources, top_k=8, qe_metric="comet",
        qe_options={"model": "Unbabel/wmt22-cometkiwi-da"})  # comet-mbr's --rerank_top_k
    rerank(candidates, metric="comet", sources=sources, model="Unbabel/wmt22-cometkiwi-da")   # QE reranking

**MBR.** For one source with candidates ``h_1..h_N`` and pseudo-references ``y_1..y_M`` (the candidates themselves
unless ``samples`` are given), the utility matrix is ``U[i, j] = u(h_i, y_j)`` (the metric on that pair alone; the
source as its source where the metric reads one) and each candidate's expected utility is a mean of its row; the
selected candidate maximises it (minimises it for a lower-is-better metric: TER, MetricX). Methods:

- ``exact``: the whole N x M matrix (computed in blocks, so memory stays bounded at N = 1,024).
- ``aggregate`` (reference aggregation, Vamvas & Sennrich 2024; DeNero et al. 2009): ``u(h_i, y_bar)`` against one
  aggregated reference, O(N) utility calls: chrF's mean n-gram counts (``y_bar(g) = (1/M) sum_j c_j(g)``), COMET's
  mean sentence embedding.
- ``centroid`` (Deguchi et al. 2024): the samples' COMET sentence embeddings clustered into ``n_centroids`` by k-means
  (k-means++ seeding with ``seed``, at most ``kmeans_iterations`` rounds), the expected utility the mean over the
  centroids (unweighted, as mbrs' default); ``n_centroids >= M`` is exact MBR over all samples.
- pruning (``top_k`` with ``qe_metric``): as comet-mbr's ``--rerank_top_k``, each source's candidates are first
  scored by a reference-free metric (COMET-Kiwi, MetricX-QE ``qe=True``, the judge) and only the ``top_k`` best kept,
  in comet-mbr's order (best first; among equal QE scores the later candidate first, as its reversed ``argsort``);
  they are then also the pseudo-references unless ``samples`` are given. ``index`` still counts in the original list.

**Conventions** (``convention``): the two reference implementations differ, and both are reachable:

- ``"comet-mbr"`` (default; unbabel-comet's ``comet-mbr``): a candidate's expected utility is the mean over the
  ``N - 1`` *other* candidates (its own column left out: ``(sum_j U[i, j] - U[i, i]) / (N - 1)``), in float64; ties
  go to the first index (``argmax``). With separate ``samples`` there is no own column: the mean over all M.
  ``N = 1``: the lone candidate is selected, with expected utility None (there is no other candidate).
- ``"mbrs"`` (mbrs' ``DecoderMBR``): the mean over all ``N`` pseudo-references, itself included, in float32 (the
  utilities rounded to float32, ``torch.mean``), and ties broken by ``torch.topk`` (not necessarily the first index).
  Needs torch.

Identical candidate texts are common in real candidate lists (on WMT17 en-de's 16 systems half of the sources have
some); they give identical rows, so ties are common, and the conventions pick different indices for the same text.

**Speed.** Each utility is computed once per distinct text where it can be (see :mod:`nlgmetrics.mbr.utilities`):
chrF from every distinct text's n-gram counts (all pairs' clipped matches from sparse products), COMET estimators from
sentence embeddings encoded once per distinct text over all sources, in length-sorted packed batches, through the
shared embedding cache (a later call, or another utility of the same model, reuses them).

**Output**: ``index``, ``text``, ``expected_utility`` (one per source), ``signature`` (the selection's settings and
the utility metric's own signature), and on request ``expected_utilities`` (every candidate's) and ``matrix``
(exact: each source's utility matrix); with pruning ``kept`` (the indices MBR saw) and ``qe_scores``.

**Bad input**: a source without candidates, a candidate that is not a string, ``sources``/``samples`` of another
length than the candidates' list, an unknown or refused option (a bootstrap interval has no per-pair meaning), a
metric that needs sources without them: one :class:`~nlgmetrics.errors.InputError` / ``OptionError`` naming the fix,
before any model runs. An empty candidate is a candidate: it gets the metric's score for an empty text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from nlgmetrics.errors import InputError, MissingExtraError, OptionError
from nlgmetrics.inputs import check_predictions
from nlgmetrics.mbr.utilities import Group, Utility, make_utility
from nlgmetrics.options import check_int
from nlgmetrics.registry import SOURCES_NONE, get_spec, per_example_key
from nlgmetrics.registry import score as score_metric

METHODS = ("exact", "aggregate", "centroid")
CONVENTIONS = ("comet-mbr", "mbrs")
#: utility pairs computed per batch of sources (the batch's matrices are held at once: 8 MB of float64).
PAIRS_PER_BATCH = 2**20
#: the most candidates or samples per source (N x N utilities: 2^24 pairs for one source at the bound).
MAX_CANDIDATES = 4096
MAX_CENTROIDS = 1024

__all__ = ["CONVENTIONS", "METHODS", "mbr", "rerank", "utility_matrix"]


# -- inputs -----------------------------------------------------------------------------------------------------------
def _check_groups(candidates: Any, sources: Any, samples: Any) -> tuple[list[list[str]], list | None, list | None]:
    """Candidates as one list of strings per source (each non-empty); sources one string per source; samples one
    non-empty list per source."""
    groups = _lists(candidates, "candidates")
    for i, group in enumerate(groups):
        if not group:
            raise InputError(f"source {i} has no candidates: give at least one candidate per source (an empty string "
                             "is a candidate).")
        if len(group) > MAX_CANDIDATES:
            raise InputError(f"source {i} has {len(group)} candidates; at most {MAX_CANDIDATES} per source "
                             "(N x N utilities): split them, or use method='aggregate'.")
    if sources is not None:
        sources = check_predictions(sources, "sources")
        if len(sources) != len(groups):
            raise InputError(f"got {len(groups)} candidate lists but {len(sources)} sources: give one source per list.")
    if samples is not None:
        samples = _lists(samples, "samples")
        if len(samples) != len(groups):
            raise InputError(f"got {len(groups)} candidate lists but {len(samples)} sample lists: give one list of "
                             "pseudo-references per source.")
        for i, group in enumerate(samples):
            if not group or len(group) > MAX_CANDIDATES:
                raise InputError(f"source {i} has {len(group)} samples; give 1 to {MAX_CANDIDATES} per source.")
    return groups, sources, samples


def _lists(value: Any, name: str) -> list[list[str]]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence) and not hasattr(value, "tolist"):
        raise InputError(f"{name} must be a list with one list of strings per source, got {type(value).__name__}.")
    outer = list(value.tolist() if hasattr(value, "tolist") else value)
    out = []
    for i, group in enumerate(outer):
        if isinstance(group, (str, bytes)):
            raise InputError(f"{name}[{i}] is a string; give one list of strings per source (e.g. [[a, b], [c, d]]); "
                             "a flat list of N candidates per source: [flat[i : i + N] for i in range(0, len(flat), N)]"
                             " (the command line reads that layout with -n N).")
        out.append(check_predictions(group, f"{name}[{i}]"))
    return out


def _metric_options(metric: str, options: Mapping[str, Any], sources: Any, what: str,
                    references_given: bool = True) -> tuple[str, dict]:
    """``metric`` (``NAME`` or ``NAME:KEY``) with its options checked: aliases resolved, unknown names and options
    without a per-pair meaning refused, idf as one pair gives it, sources where the metric needs them."""
    from nlgmetrics.integration.samplewise import sample_options

    name, _ = per_example_key(metric)
    spec = get_spec(name)
    options = spec.canonical_options(options)
    for option, why in spec.refused_per_example.items():
        if options.get(option) and option != "distributed":
            raise OptionError(f"{what} {name}: option {option}={options[option]!r} has no meaning for one pair "
                              f"({why}); leave it out.")
    options.pop("distributed", None)
    spec.input_arguments(sources if spec.sources != SOURCES_NONE else None, references_given=references_given,
                         options=options)
    return metric, sample_options(name, options)


def _source_list(sources: list | None, spec_sources: str, n: int) -> list:
    return sources if sources is not None and spec_sources != SOURCES_NONE else [None] * n


# -- selection --------------------------------------------------------------------------------------------------------
def _expected(matrix: np.ndarray, own_columns: bool, convention: str) -> np.ndarray:
    """Each row's expected utility: comet-mbr's mean over the other columns (float64), or mbrs' mean over all
    columns in float32 (torch.mean)."""
    if convention == "mbrs":
        import torch

        return torch.from_numpy(np.asarray(matrix, dtype=np.float32)).mean(dim=-1).numpy()
    matrix = np.asarray(matrix, dtype=np.float64)
    if own_columns:
        n = matrix.shape[1]
        if n == 1:
            return np.full(len(matrix), np.nan)  # no other candidate: reported as None
        return (matrix.sum(axis=1) - np.diagonal(matrix)) / (n - 1)
    return matrix.mean(axis=1)


def _best(values: np.ndarray, higher_is_better: bool, convention: str) -> int:
    """The index of the best value: the first (argmax/argmin) or torch.topk's pick (mbrs)."""
    if np.isnan(values).all():
        return 0
    if convention == "mbrs":
        import torch

        return int(torch.topk(torch.from_numpy(np.asarray(values, dtype=np.float32)), 1,
                              largest=higher_is_better).indices[0])
    return int(np.argmax(values) if higher_is_better else np.argmin(values))


def _qe_scores(metric: str, options: Mapping[str, Any], groups: list[list[str]], sources: list | None,
               references: list[list[str]] | None = None) -> tuple[list[np.ndarray], str, bool]:
    """Each candidate's score (one call per block of candidates; against its source's ``references`` where given),
    the metric's signature, and whether higher is better. An unscored candidate (an unreadable judge answer) ranks
    last."""
    from nlgmetrics.mbr.utilities import PAIRS_PER_CALL

    name, key = per_example_key(metric)
    spec = get_spec(name)
    flat = [c for group in groups for c in group]
    owners = [i for i, group in enumerate(groups) for _ in group]
    values, signature = [], "none"
    for start in range(0, len(flat), PAIRS_PER_CALL):
        part = slice(start, start + PAIRS_PER_CALL)
        given = [sources[i] for i in owners[part]] if sources is not None and spec.sources != SOURCES_NONE else None
        refs = [references[i] for i in owners[part]] if references is not None else None
        result = score_metric(name, flat[part], refs, sources=given, **{**options, **spec.per_example_options})
        values += list(result[key])
        signature = result.get("signature", signature)
    worst = -np.inf if spec.higher_is_better else np.inf
    scores = np.array([worst if v is None else float(v) for v in values])
    out = np.split(scores, np.cumsum([len(g) for g in groups])[:-1]) if groups else []
    for i, row in enumerate(out):
        if not np.isfinite(row).any():
            raise InputError(f"{name} scored none of source {i}'s candidates (unreadable answers?): nothing to rank; "
                             "retry them (on_unparseable='retry') or use another QE metric.")
    return out, signature, spec.higher_is_better


def _kept(scores: np.ndarray, top_k: int, higher_is_better: bool) -> np.ndarray:
    """comet-mbr's ``--rerank_top_k``: ``argsort`` ascending, reversed, the first ``top_k`` (the best first; among
    equal scores the later candidate first). A lower-is-better QE metric keeps the lowest."""
    order = np.argsort(scores if higher_is_better else -scores, kind="stable")[::-1]
    return order[:top_k]


def mbr(
    candidates: Sequence[Sequence[str]],
    metric: str = "chrf",
    *,
    sources: Sequence[str] | None = None,
    samples: Sequence[Sequence[str]] | None = None,
    method: str = "exact",
    convention: str = "comet-mbr",
    top_k: int | None = None,
    qe_metric: str | None = None,
    qe_options: Mapping[str, Any] | None = None,
    n_centroids: int = 8,
    kmeans_iterations: int = 5,
    seed: int = 0,
    return_matrix: bool = False,
    **options: Any,
) -> dict[str, Any]:
    """Minimum-Bayes-risk selection: per source, the candidate of highest expected utility (see the module docstring).

    Args:
        candidates: one list of candidate texts per source (N may differ between sources).
        metric: the utility, a registry metric ``NAME`` or ``NAME:KEY`` (``bertscore:f1``, ``rouge:rougeL``) whose
            per-example score is the utility; ``options`` are its options (``model=...`` for COMET).
        sources: one source text per source, for metrics that read them (COMET estimators need them).
        samples: separate pseudo-references, one list per source (default: the candidates).
        method: ``"exact"``, ``"aggregate"`` or ``"centroid"``. convention: ``"comet-mbr"`` or ``"mbrs"``.
        top_k, qe_metric, qe_options: prune each source to its ``top_k`` best candidates by ``qe_metric`` first.
        n_centroids, kmeans_iterations, seed: centroid MBR's k-means.
        return_matrix: also return ``expected_utilities`` and (exact) each source's ``matrix``.
    Returns:
        ``index``, ``text``, ``expected_utility`` per source (None where undefined: N = 1 under comet-mbr's
        convention), ``signature``; see the module docstring for the optional keys.
    """
    if method not in METHODS:
        raise OptionError(f"unknown method {method!r}; choose one of {', '.join(METHODS)}.")
    if convention not in CONVENTIONS:
        raise OptionError(f"unknown convention {convention!r}; choose 'comet-mbr' (mean over the other candidates, "
                          "ties to the first) or 'mbrs' (mean over all, float32, ties by torch.topk).")
    if convention == "mbrs":
        try:
            import torch  # noqa: F401
        except ImportError:
            raise MissingExtraError("convention='mbrs' averages in float32 and breaks ties as torch.topk does, which "
                                    "needs torch: pip install 'nlgmetrics[embed]', or use convention='comet-mbr'.",
                                    name="torch") from None
    groups, sources, samples = _check_groups(candidates, sources, samples)
    n_centroids = check_int("n_centroids", n_centroids, 1, MAX_CENTROIDS, "clusters of sample embeddings")
    kmeans_iterations = check_int("kmeans_iterations", kmeans_iterations, 1, 1000, "k-means rounds")
    seed = check_int("seed", seed, 0, 2**63 - 1, "k-means++ seeding")
    metric, options = _metric_options(metric, options, sources, "utility")
    if (top_k is None) != (qe_metric is None):
        raise OptionError("pruning needs both top_k (how many candidates to keep) and qe_metric (the reference-free "
                          "metric that ranks them, e.g. comet with a COMET-Kiwi model); give both or neither.")
    qe = None
    if qe_metric is not None:
        top_k = check_int("top_k", top_k, 1, MAX_CANDIDATES, "candidates kept per source")
        qe_metric, qe_opts = _metric_options(qe_metric, dict(qe_options or {}), sources, "QE metric", False)
        qe = _qe_scores(qe_metric, qe_opts, groups, sources)
    elif qe_options:
        raise OptionError("qe_options are given without qe_metric and top_k: give those too, or leave them out.")

    utility = make_utility(metric, options)
    kept = [np.arange(len(g)) for g in groups]
    if qe is not None:
        kept = [_kept(scores, top_k, qe[2]) for scores in qe[0]]
    source_of = _source_list(sources, utility.spec.sources, len(groups))
    work = [Group([g[i] for i in keep], list(s) if s is not None else [g[i] for i in keep], src)
            for g, keep, s, src in zip(groups, kept, samples or [None] * len(groups), source_of)]
    own = samples is None
    utility.check_method(method)

    result: dict[str, Any] = {"index": [], "text": [], "expected_utility": []}
    if return_matrix:
        result["expected_utilities"] = []
        if method == "exact":
            result["matrix"] = []
    for batch in _batches(work):
        if method == "exact":
            matrices = utility.matrices([work[i] for i in batch])
            expected = [_expected(m, own, convention) for m in matrices]
        elif method == "aggregate":
            matrices = None
            expected = [_expected(m, False, convention) for m in utility.aggregated([work[i] for i in batch])]
        else:
            matrices = None
            expected = [_expected(m, False, convention) for m in
                        utility.centroid([work[i] for i in batch], n_centroids, kmeans_iterations, seed)]
        for k, i in enumerate(batch):
            local = _best(expected[k], utility.higher_is_better, convention)
            value = expected[k][local]
            result["index"].append(int(kept[i][local]))
            result["text"].append(work[i].candidates[local])
            result["expected_utility"].append(None if np.isnan(value) else float(value))
            if return_matrix:
                result["expected_utilities"].append([None if np.isnan(v) else float(v) for v in expected[k]])
                if matrices is not None:
                    result["matrix"].append(np.asarray(matrices[k], dtype=np.float64).tolist())
    if qe is not None:
        result["kept"] = [k.tolist() for k in kept]
        result["qe_scores"] = [s.tolist() for s in qe[0]]
    result["signature"] = _mbr_signature(utility, work[0], method, convention, own, n_centroids, kmeans_iterations,
                                         seed, qe_metric, top_k, qe[1] if qe else None)
    return result


def _batches(work: Sequence[Group]) -> list[list[int]]:
    """Sources in batches of about :data:`PAIRS_PER_BATCH` utility pairs (one source per batch at least)."""
    batches, current, size = [], [], 0
    for i, group in enumerate(work):
        pairs = len(group.candidates) * len(group.samples)
        if current and size + pairs > PAIRS_PER_BATCH:
            batches.append(current)
            current, size = [], 0
        current.append(i)
        size += pairs
    if current:
        batches.append(current)
    return batches


def _mbr_signature(utility: Utility, first: Group, method: str, convention: str, own: bool, n_centroids: int,
                   iterations: int, seed: int, qe_metric: str | None, top_k: int | None, qe_signature: str | None
                   ) -> str:
    """``mbr:METHOD|convention:...|refs:candidates|samples|...|utility:NAME{its signature}|version:...``
    (:mod:`nlgmetrics.signature`)."""
    from nlgmetrics.signature import build, nested

    parts = [("mbr", method), ("convention", convention), ("refs", "candidates" if own else "samples")]
    if method == "centroid":
        parts += [("centroids", n_centroids), ("kmeans", iterations), ("seed", seed)]
    if qe_metric is not None:
        parts += [("top_k", top_k), ("qe", nested(per_example_key(qe_metric)[0], qe_signature))]
    return build([*parts, ("utility", nested(utility.label, utility.signature(first)))])


def utility_matrix(hypotheses: Sequence[str], references: Sequence[str], metric: str = "chrf", *,
                   source: str | None = None, **options: Any) -> np.ndarray:
    """``U[i, j]``: ``metric`` on ``hypotheses[i]`` against ``references[j]`` alone (``source`` as its source), as
    the MBR utilities compute it (float64; COMET's values are float32 numbers)."""
    hyps = check_predictions(hypotheses, "hypotheses")
    refs = check_predictions(references, "references")
    metric, options = _metric_options(metric, options, None if source is None else [source], "utility")
    utility = make_utility(metric, options)
    group = Group(hyps, refs, source if utility.spec.sources != SOURCES_NONE else None)
    return np.asarray(utility.matrices([group])[0], dtype=np.float64)


# -- QE reranking ------------------------------------------------------------------------------------------------------
def rerank(
    candidates: Sequence[Sequence[str]],
    metric: str = "comet",
    *,
    sources: Sequence[str] | None = None,
    references: Sequence[str | Sequence[str]] | None = None,
    return_scores: bool = False,
    **options: Any,
) -> dict[str, Any]:
    """Reranking: per source, the candidate with the best score. Quality estimation (reference-free, from
    ``sources``): COMET-Kiwi (``metric="comet"`` with a Kiwi ``model``), MetricX-QE (``metric="metricx"``,
    ``qe=True``), ``llm_judge``. With ``references`` (one or a list per source) any per-example metric ranks the
    candidates against them (the oracle selection, an upper bound for MBR). The highest score wins (the lowest for
    a lower-is-better metric: MetricX, TER); ties go to the first index; an unscored candidate (an unreadable judge
    answer) ranks last.

    Returns ``index``, ``text``, ``score`` per source and ``signature`` (the metric's, with the reranking), and with
    ``return_scores=True`` ``scores`` (every candidate's)."""
    from nlgmetrics.inputs import check_references

    groups, sources, _ = _check_groups(candidates, sources, None)
    refs = None
    if references is not None:
        refs = check_references(references)
        if len(refs) != len(groups):
            raise InputError(f"got {len(groups)} candidate lists but {len(refs)} references: give one reference (or "
                             "a list of them) per source.")
    metric, options = _metric_options(metric, options, sources, "reranking metric", refs is not None)
    scores, signature, higher = _qe_scores(metric, options, groups, sources, refs)
    out: dict[str, Any] = {"index": [], "text": [], "score": []}
    for group, row in zip(groups, scores):
        best = int(np.argmax(row) if higher else np.argmin(row))
        out["index"].append(best)
        out["text"].append(group[best])
        out["score"].append(float(row[best]))
    if return_scores:
        out["scores"] = [[None if not np.isfinite(v) else float(v) for v in row] for row in scores]
    from nlgmetrics.signature import build, nested

    out["signature"] = build([("rerank", "best"), ("refs", refs is not None),
                              ("metric", nested(per_example_key(metric)[0], signature))])
    return out
