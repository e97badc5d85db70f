"""MBR utilities: a registry metric scoring every candidate of a source against every pseudo-reference.

A :class:`Group` is one source: its candidates (the hypotheses), its pseudo-references (samples) and its source text.
``matrices(groups)`` gives each group's ``(candidates, samples)`` utility matrix, ``U[i, j]`` = the metric on
candidate ``i`` against pseudo-reference ``j`` alone, as the metric gives it pair by pair (same options, same number;
MoverScore/BERTScore idf is off, since one pair is no corpus: :func:`nlgmetrics.integration.samplewise.sample_options`).

Three implementations, chosen by metric:

- :class:`ChrfUtility`: every distinct text's n-gram counts once, all pairs' clipped matches from sparse products
  (:meth:`nlgmetrics.lexical.chrf.CHRF.pairwise_scores`), bit for bit the sentence chrF; reference aggregation on the
  mean n-gram counts (:meth:`~nlgmetrics.lexical.chrf.CHRF.aggregate_scores`).
- :class:`CometUtility` (COMET estimators: wmt22-comet-da, wmt20-comet-da, cometinho): every distinct text of all
  groups (candidates, samples, sources) encoded once in length-sorted packed batches, through the shared embedding
  cache (:meth:`nlgmetrics.learned.comet.Comet.sentence_embeddings`), then the estimator head on all pairs in chunks;
  reference aggregation on the mean sample embedding, centroid MBR on k-means centroids of the sample embeddings.
- :class:`GenericUtility`: any other metric with a per-example score (BLEU, TER, BERTScore, MetricX, BLEURT, XCOMET,
  the judge, ...): the pairs as examples of one metric call per block of pairs (the embedding metrics' cache
  encodes each text once across blocks).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from nlgmetrics.errors import OptionError
from nlgmetrics.options import pair_blocks
from nlgmetrics.registry import SOURCES_NONE, get_spec, per_example_key
from nlgmetrics.registry import score as score_metric

#: pairs per metric call (generic utilities) and per estimator-head call (COMET; fewer on wide models).
PAIRS_PER_CALL = 4096
#: floats of estimator features held at once (COMET head): 64 MB.
FEATURE_FLOATS = 2**24


@dataclass(frozen=True)
class Group:
    """One source: its candidates, its pseudo-references and its source text (None: not given)."""

    candidates: list[str]
    samples: list[str]
    source: str | None = None


def _signature(result: Mapping[str, Any]) -> str:
    from nlgmetrics.signature import of

    return of(result) or "none"


class Utility:
    """A registry metric as an MBR utility (see the module docstring)."""

    aggregation = False  # reference aggregation is defined
    centroids = False  # centroid MBR is defined (k-means over sentence embeddings)

    def __init__(self, metric: str, options: Mapping[str, Any]) -> None:
        self.name, self.key = per_example_key(metric)
        self.spec = get_spec(self.name)
        self.options = dict(options)
        self.higher_is_better = self.spec.higher_is_better

    @property
    def label(self) -> str:
        """The metric as the signature names it (``NAME`` or ``NAME:KEY`` for a metric with several scores)."""
        several = len(self.spec.per_example) > 1 or self.spec.per_example_lists
        return f"{self.name}:{self.key}" if several else self.name

    def _call(self, hypotheses: list[str], references: list[str], sources: list[str] | None) -> dict:
        """The metric on ``(hypotheses[k], references[k], sources[k])`` as separate examples."""
        given = sources if self.spec.sources != SOURCES_NONE else None
        return score_metric(self.name, hypotheses, [[r] for r in references], sources=given,
                            **{**self.options, **self.spec.per_example_options})

    def signature(self, group: Group) -> str:
        """The metric's own signature, from one call on the group's first pair."""
        sources = None if group.source is None else [group.source]
        return _signature(self._call(group.candidates[:1], group.samples[:1], sources))

    def check_method(self, method: str) -> None:
        """An :class:`OptionError` naming the fix when ``method`` is not defined for this utility."""
        if method == "aggregate" and not self.aggregation:
            raise OptionError(f"reference aggregation is defined for chrf and COMET estimators (regression_metric "
                              f"checkpoints), not {self.label}; use method='exact'.")
        if method == "centroid" and not self.centroids:
            raise OptionError(f"centroid MBR clusters sentence embeddings: it is defined for COMET estimators "
                              f"(regression_metric checkpoints), not {self.label}; use method='exact' or 'aggregate'.")

    def matrices(self, groups: Sequence[Group]) -> list[np.ndarray]:
        """Each group's ``(candidates, samples)`` utility matrix."""
        raise NotImplementedError

    def aggregated(self, groups: Sequence[Group]) -> list[np.ndarray]:
        """Each group's ``(candidates, 1)`` utilities against the aggregate of its samples."""
        raise NotImplementedError

    def centroid(self, groups: Sequence[Group], n_centroids: int, iterations: int, seed: int) -> list[np.ndarray]:
        """Each group's ``(candidates, centroids)`` utilities against k-means centroids of its sample embeddings."""
        raise NotImplementedError


class GenericUtility(Utility):
    """Any metric with a per-example score: the pairs as the examples of one call per block of pairs."""

    def matrices(self, groups: Sequence[Group]) -> list[np.ndarray]:
        out = [np.empty((len(g.candidates), len(g.samples))) for g in groups]
        for pieces in pair_blocks([m.shape for m in out], PAIRS_PER_CALL):
            hyps, refs, sources = [], [], []
            for g, a, b in pieces:
                group = groups[g]
                for candidate in group.candidates[a:b]:
                    hyps += [candidate] * len(group.samples)
                    refs += group.samples
                    sources += [group.source] * len(group.samples)
            values = self._call(hyps, refs, None if any(s is None for s in sources) else sources)[self.key]
            if any(v is None for v in values):
                raise ValueError(f"{self.label} left some pairs unscored (e.g. unparseable judge answers): an MBR "
                                 "utility needs a number for every pair; retry them (on_unparseable='retry') or use "
                                 "another utility.")
            values = np.asarray(values, dtype=np.float64)
            start = 0
            for g, a, b in pieces:
                size = (b - a) * len(groups[g].samples)
                out[g][a:b] = values[start : start + size].reshape(b - a, -1)
                start += size
        return out


class ChrfUtility(Utility):
    """chrF/chrF++ from each distinct text's n-gram counts (:meth:`~nlgmetrics.lexical.chrf.CHRF.pairwise_scores`)."""

    aggregation = True

    def __init__(self, metric: str, options: Mapping[str, Any]) -> None:
        from nlgmetrics.lexical.chrf import CHRF

        super().__init__(metric, options)
        settings = {k: v for k, v in self.options.items() if k not in ("sentence_scores", "seed")}
        self.chrf = CHRF(**settings)

    def matrices(self, groups: Sequence[Group]) -> list[np.ndarray]:
        return self.chrf.pairwise_scores([(g.candidates, g.samples) for g in groups])

    def aggregated(self, groups: Sequence[Group]) -> list[np.ndarray]:
        return [m.reshape(-1, 1) for m in self.chrf.aggregate_scores([(g.candidates, g.samples) for g in groups])]


class CometUtility(Utility):
    """A COMET estimator on sentence embeddings: ``U[i, j] = FFN([m_i; r_j; m_i*r_j; |m_i-r_j|; m_i*s; |m_i-s|])``,
    every distinct text encoded once (:meth:`~nlgmetrics.learned.comet.Comet.sentence_embeddings`)."""

    aggregation = centroids = True

    def __init__(self, metric: str, options: Mapping[str, Any], comet: Any) -> None:
        super().__init__(metric, options)
        self.comet = comet

    def _embeddings(self, groups: Sequence[Group]) -> tuple[dict[str, int], Any]:
        texts = list(dict.fromkeys(t for g in groups for t in [*g.candidates, *g.samples, g.source]))
        vectors, cut = self.comet.sentence_embeddings(texts, self.options.get("batch_size", 16),
                                                      bool(self.options.get("progress_bar", False)))
        if cut:
            from nlgmetrics._quiet import warn

            warn(f"COMET: {cut} text(s) longer than the encoder takes ({self.comet.max_positions - 2} tokens) were "
                 "truncated, as unbabel-comet truncates them.")
        return {t: i for i, t in enumerate(texts)}, vectors

    def _scores(self, s: Any, m: Any, r: Any) -> np.ndarray:
        """Utilities of every ``m`` row against every ``r`` row (one source embedding ``s``), as an array."""
        import torch

        rows = max(1, FEATURE_FLOATS // (6 * m.shape[1] * max(len(r), 1)))
        out = []
        for start in range(0, len(m), rows):
            part = m[start : start + rows]
            mm = part.repeat_interleave(len(r), dim=0)
            rr = r.repeat(len(part), 1)
            out.append(self.comet.estimate(s.expand(len(mm), -1), mm, rr).view(len(part), len(r)))
        return torch.cat(out).numpy() if out else np.empty((0, len(r)), dtype=np.float32)

    def matrices(self, groups: Sequence[Group]) -> list[np.ndarray]:
        index, vectors = self._embeddings(groups)
        return [self._scores(vectors[index[g.source]].unsqueeze(0), vectors[[index[t] for t in g.candidates]],
                             vectors[[index[t] for t in g.samples]]) for g in groups]

    def aggregated(self, groups: Sequence[Group]) -> list[np.ndarray]:
        index, vectors = self._embeddings(groups)
        return [self._scores(vectors[index[g.source]].unsqueeze(0), vectors[[index[t] for t in g.candidates]],
                             vectors[[index[t] for t in g.samples]].mean(dim=0, keepdim=True)) for g in groups]

    def centroid(self, groups: Sequence[Group], n_centroids: int, iterations: int, seed: int) -> list[np.ndarray]:
        import torch

        index, vectors = self._embeddings(groups)
        out = []
        for g in groups:
            samples = vectors[[index[t] for t in g.samples]].double().numpy()
            centres = torch.from_numpy(kmeans(samples, n_centroids, iterations, seed)).float()
            out.append(self._scores(vectors[index[g.source]].unsqueeze(0), vectors[[index[t] for t in g.candidates]],
                                    centres))
        return out


def kmeans(x: np.ndarray, k: int, iterations: int, seed: int) -> np.ndarray:
    """k-means centroids of the rows of ``x`` (Lloyd's iterations after k-means++ seeding, numpy's generator seeded
    with ``seed``; at most ``iterations`` rounds, fewer once the assignment stops changing). ``k >= len(x)``: the rows
    themselves; ``k = 1``: their mean. An empty cluster keeps its centroid."""
    n = len(x)
    if k >= n:
        return x.copy()
    if k == 1:
        return x.mean(axis=0, keepdims=True)
    rng = np.random.default_rng(seed)
    centres = [x[rng.integers(n)]]
    for _ in range(k - 1):
        nearest = ((x[:, None, :] - np.asarray(centres)[None]) ** 2).sum(-1).min(axis=1)
        total = nearest.sum()
        centres.append(x[rng.choice(n, p=nearest / total)] if total > 0 else x[rng.integers(n)])
    centres = np.asarray(centres)
    assigned = np.full(n, -1)
    for _ in range(iterations):
        now = ((x[:, None, :] - centres[None]) ** 2).sum(-1).argmin(axis=1)
        if np.array_equal(now, assigned):
            break
        assigned = now
        for c in range(k):
            if (assigned == c).any():
                centres[c] = x[assigned == c].mean(axis=0)
    return centres


def make_utility(metric: str, options: Mapping[str, Any]) -> Utility:
    """The :class:`Utility` of ``metric`` (``NAME`` or ``NAME:KEY``) with its (checked) ``options``."""
    name, _ = per_example_key(metric)
    if name == "chrf":
        return ChrfUtility(metric, options)
    if name == "comet":
        from nlgmetrics.learned.comet import load_comet

        device = options.get("device")
        if device is None and options.get("gpus") is not None:
            device = "cuda" if options["gpus"] else "cpu"
        from nlgmetrics.learned.comet_checkpoint import DEFAULT_CHECKPOINT

        comet = load_comet(options.get("model", DEFAULT_CHECKPOINT), encoder=options.get("encoder"),
                           device=device, dtype=options.get("dtype"))
        if comet.kind == "regression_metric":
            return CometUtility(metric, options, comet)
    return GenericUtility(metric, options)
