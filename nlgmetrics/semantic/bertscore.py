"""BERTScore (Zhang et al., 2020) with bert_score 0.3.13 semantics, score for score, on the shared embedding engine.

For a candidate ``x`` and a reference ``y`` with contextual token embeddings ``x_i``, ``y_j`` (special tokens
included, every vector L2-normalised) and token weights ``w``::

    P = sum_i w(x_i) max_j x_i . y_j / sum_i w(x_i)
    R = sum_j w(y_j) max_i x_i . y_j / sum_j w(y_j)
    F = 2 P R / (P + R)                       (NaN -> 0)

Weights: without idf, 1 for every token but ``[CLS]``/``[SEP]`` (0). With ``idf=True``, computed from the
references as bert_score does: ``idf(t) = log((M + 1) / (c(t) + 1))`` over the ``M`` references (every reference of
every example, repeats included), ``c(t)`` the number containing token ``t``; unseen tokens get ``log(M + 1)``; a dict
(e.g. a ``defaultdict``) is used as given. An empty candidate or reference (two special tokens only) gets P = R = 0
and F = 0, with a warning, as bert_score.

Several references per example: bert_score's ``max`` of P, R and F taken separately (default), or ``mean``, or a
weighted mean with ``ref_weights`` (one list of non-negative weights per example, e.g. retrieval scores).
Rescaling with a baseline ``b`` (bert_score's file of per-layer random-pair means): ``s' = (s - b) / (1 - b)``,
after the multi-reference combination.

Embeddings come from :mod:`nlgmetrics.embed` (deduplicated, sorted by length, cached across calls); long texts are
embedded whole with sliding windows instead of being truncated at 512 tokens (``long_text="truncate"``: bert_score's
truncation). One deliberate difference: bert_score zero-pads the similarity matrix of a batch, so a token whose
similarities are all negative can take 0 from a padding cell (depending on batch composition); here padding never
wins a max.

Memory: the similarity matrix ``x_i . y_j`` is never held whole; it is computed in blocks of rows of at most
``_SIM_ELEMENTS`` entries (the row maxima per block, the column maxima as a running maximum), so memory grows
linearly with the texts' length, with the same numbers. A call whose estimated memory (its embeddings) exceeds the
available memory warns first.

Defined results where bert_score gives NaN: a text whose idf weights sum to 0 (every one of its tokens occurs in every
reference, as with ``idf=True`` on a single pair, or an all-zero idf dict) is weighted as with ``idf=False``
(1 per token, 0 for ``[CLS]``/``[SEP]``), with a warning; bert_score's P or R is NaN there. An idf dict with a
negative or non-finite weight is a ``ValueError``. Texts holding lone surrogates (invalid Unicode) are scored with
each replaced by U+FFFD, with a warning (bert_score's tokenizer raises).
"""

from __future__ import annotations

import warnings
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

import torch

from nlgmetrics import __version__
from nlgmetrics.embed.distributed import check_mode, score_sharded
from nlgmetrics.errors import OptionError, OptionTypeError
from nlgmetrics.inputs import check_pairs, check_predictions, replace_lone_surrogates, replace_lone_surrogates_in_pairs
from nlgmetrics.options import checked_options
from nlgmetrics.resources import BUNDLED_ENCODER_ALIASES, BUNDLED_ENCODER_ID
from nlgmetrics.semantic import PAIR_CHUNK, available_memory, release_freed_memory, warn_if_memory_short
from nlgmetrics.semantic.idf import DocumentFrequencies
from nlgmetrics.semantic.references import check_multi_ref, check_ref_weights, combine_references

_MATCH_BATCH = 128  # pairs per padded similarity batch
_SIM_ELEMENTS = 2**24  # similarity entries computed at once (64 MiB in float32): bounds memory on long texts


# -- configuration ------------------------------------------------------------------------------------------------
def resolve_model_and_layer(
    lang: str | None, model_type: str | None, num_layers: int | None
) -> tuple[str, int | None]:
    """bert_score's defaults: ``model_type`` from ``lang``, ``num_layers`` from the tuned-layer table."""
    from nlgmetrics.embed.layers import default_layer, lang_to_model

    if model_type is None:
        if lang is None:
            raise OptionError(
                "pass lang (e.g. lang='en', bert_score's default model roberta-large) or model_type; offline, use "
                f"the bundled encoder: model_type={BUNDLED_ENCODER_ID!r}."
            )
        model_type = lang_to_model(lang)
    elif not isinstance(model_type, str) or not model_type:
        raise OptionTypeError(f"model_type must be a hub id or a local folder, got {model_type!r}.")
    if model_type in BUNDLED_ENCODER_ALIASES:
        model_type = BUNDLED_ENCODER_ID
    if num_layers is None:
        num_layers = default_layer(model_type)
    elif isinstance(num_layers, bool) or not isinstance(num_layers, int):
        raise OptionTypeError(f"num_layers must be an integer, got {num_layers!r}.")
    return model_type, num_layers


def get_hash(
    model_type: str,
    num_layers: int,
    idf: Any,
    rescale_with_baseline: bool,
    use_custom_baseline: bool,
    use_fast_tokenizer: bool = False,
    multi_ref: str = "max",
    long_text: str = "window",
    dtype: str | None = None,
) -> str:
    """bert_score's hash string, with this package's version and any non-default option of ours appended."""
    import transformers

    msg = (
        f"{model_type}_L{num_layers}{'_idf' if idf is not False and idf is not None else '_no-idf'}"
        f"_version=nlgmetrics-{__version__}(hug_trans={transformers.__version__})"
    )
    if rescale_with_baseline:
        msg += "-custom-rescaled" if use_custom_baseline else "-rescaled"
    if use_fast_tokenizer:
        msg += "_fast-tokenizer"
    if multi_ref != "max":
        msg += f"_multiref-{multi_ref}"
    if long_text != "window":
        msg += f"_long-{long_text}"
    if dtype not in (None, "float32", "fp32"):
        msg += f"_{dtype}"
    return msg


def idf_from_references(ids: Sequence[Sequence[int]]) -> defaultdict:
    """bert_score's ``get_idf_dict``: ``log((M + 1) / (c + 1))`` over the ``M`` references, unseen tokens
    ``log(M + 1)`` (:mod:`nlgmetrics.semantic.idf`)."""
    return DocumentFrequencies.count(ids).idf_dict()


def _weights(ids: Sequence[int], idf: Mapping | None, specials: tuple) -> torch.Tensor:
    if idf is None:
        return torch.tensor([0.0 if t in specials else 1.0 for t in ids], dtype=torch.float32)
    try:
        values = torch.tensor([float(idf[t]) for t in ids], dtype=torch.float64)
    except KeyError as exc:
        raise OptionError(
            f"idf dict has no weight for token id {exc.args[0]!r}: pass a collections.defaultdict (bert_score's "
            "format, token id -> weight) or idf=True to compute it from the references."
        ) from None
    except (TypeError, ValueError) as exc:
        raise OptionError(f"idf dict weights must be numbers ({exc}); fix the dict or pass idf=True.") from None
    bad = ~(torch.isfinite(values) & (values >= 0))
    if bool(bad.any()):
        k = int(bad.nonzero()[0, 0])
        raise OptionError(
            f"idf dict weight {float(values[k])!r} for token id {ids[k]!r} is not a finite number >= 0 (idf weights "
            "are log((M + 1) / (c + 1)) >= 0): fix the dict or pass idf=True."
        )
    return values.float()


# -- greedy matching ------------------------------------------------------------------------------------------------
def _pad(tensors: list[torch.Tensor], width: int) -> torch.Tensor:
    out = torch.zeros((len(tensors), width, *tensors[0].shape[1:]), dtype=tensors[0].dtype)
    for i, t in enumerate(tensors):
        out[i, : t.shape[0]] = t
    return out


def _match_batches(sizes: list[tuple[int, int]], max_elements: int) -> list[list[int]]:
    """Pair indices per padded batch: pairs sorted by (hyp, ref) length, at most ``_MATCH_BATCH`` per batch and, past
    the first pair, at most ``max_elements`` padded similarity entries (a long pair is not padded against others)."""
    batches: list[list[int]] = []
    width = 0  # the longest reference of the open batch
    for k in sorted(range(len(sizes)), key=lambda k: sizes[k]):
        th, tr = sizes[k][0], max(width, sizes[k][1])  # hypothesis lengths ascend: k's is the batch's longest
        if batches and len(batches[-1]) < _MATCH_BATCH and (len(batches[-1]) + 1) * th * tr <= max_elements:
            batches[-1].append(k)
            width = tr
        else:
            batches.append([k])
            width = sizes[k][1]
    return batches


def greedy_match(
    hyp_emb: list[torch.Tensor], hyp_w: list[torch.Tensor], ref_emb: list[torch.Tensor], ref_w: list[torch.Tensor],
    *, max_elements: int | None = None,
) -> torch.Tensor:
    """P, R, F (shape ``(n, 3)``) of pairs of L2-normalised token embeddings with token weights.

    The similarities of a batch are computed ``rows`` hypothesis tokens at a time, ``b * rows * tr <= max_elements``
    (at least one row): each block gives its rows' maxima over the reference (P) and updates the running maxima of the
    reference tokens over the hypothesis (R), so memory is linear in the lengths and the result the same."""
    max_elements = _SIM_ELEMENTS if max_elements is None else max_elements
    n = len(hyp_emb)
    out = torch.empty((n, 3), dtype=torch.float32)
    sizes = [(hyp_emb[k].shape[0], ref_emb[k].shape[0]) for k in range(n)]
    for idx in _match_batches(sizes, max_elements):
        hl = torch.tensor([sizes[k][0] for k in idx])
        rl = torch.tensor([sizes[k][1] for k in idx])
        th, tr = int(hl.max()), int(rl.max())
        h = _pad([hyp_emb[k] for k in idx], th)
        r = _pad([ref_emb[k] for k in idx], tr)
        hw = _pad([hyp_w[k] for k in idx], th)
        rw = _pad([ref_w[k] for k in idx], tr)
        h_valid = torch.arange(th)[None, :] < hl[:, None]
        r_invalid = ~(torch.arange(tr)[None, :] < rl[:, None])[:, None, :]
        r_t = r.transpose(1, 2)
        word_p = torch.empty((len(idx), th), dtype=h.dtype)
        word_r = torch.full((len(idx), tr), -2.0, dtype=h.dtype)
        rows = max(1, max_elements // max(1, len(idx) * tr))
        for lo in range(0, th, rows):
            hi = min(lo + rows, th)
            sim = torch.bmm(h[:, lo:hi], r_t)  # (b, rows, tr)
            word_r = torch.maximum(word_r, sim.masked_fill(~h_valid[:, lo:hi, None], -2.0).max(dim=1).values)
            word_p[:, lo:hi] = sim.masked_fill_(r_invalid, -2.0).max(dim=2).values
            del sim
        hw = hw / hw.sum(dim=1, keepdim=True)
        rw = rw / rw.sum(dim=1, keepdim=True)
        p = (word_p.masked_fill(~h_valid, 0.0) * hw).sum(dim=1)
        r_ = (word_r.masked_fill(r_invalid[:, 0, :], 0.0) * rw).sum(dim=1)
        f = 2 * p * r_ / (p + r_)
        out[idx] = torch.stack([p, r_, f], dim=1)
    return out


def _normalised(emb: torch.Tensor) -> torch.Tensor:
    return emb / torch.norm(emb, dim=-1, keepdim=True)


# -- baselines ------------------------------------------------------------------------------------------------------
def _rescale(scores: torch.Tensor, baseline: torch.Tensor) -> torch.Tensor:
    return (scores - baseline) / (1 - baseline)


# -- the metric -----------------------------------------------------------------------------------------------------
class BERTScorer:
    """A configured BERTScore: the encoder loads once (shared per process) and embeddings go through the cache.

    ``score(cands, refs)`` returns a tensor ``(n, 3)`` of P, R, F (``all_layers``: ``(L + 1, n, 3)``).
    """

    def __init__(
        self,
        model_type: str | None = None,
        num_layers: int | None = None,
        *,
        lang: str | None = None,
        idf: bool | Mapping = False,
        device: str | None = None,
        dtype: str | None = None,
        batch_size: int = 64,
        all_layers: bool = False,
        use_fast_tokenizer: bool = False,
        rescale_with_baseline: bool = False,
        baseline_path: str | None = None,
        long_text: str = "window",
        multi_ref: str = "max",
        verbose: bool = False,
        distributed: bool | str | None = None,
    ) -> None:
        from nlgmetrics.embed import get_encoder

        self.distributed = None if distributed is None else check_mode(distributed)
        self.model_type, layer = resolve_model_and_layer(lang, model_type, num_layers)
        self.lang = lang
        check_multi_ref(multi_ref)
        if not (isinstance(idf, bool) or isinstance(idf, Mapping)):
            raise OptionTypeError(f"idf must be True/False or a dict token id -> weight, got {type(idf).__name__}.")
        self.encoder = get_encoder(self.model_type, device=device, dtype=dtype, use_fast_tokenizer=use_fast_tokenizer)
        if layer is None:
            raise OptionError(
                f"no default layer for {self.model_type!r} (bert_score's table does not list it): pass num_layers, "
                f"an integer from 0 to {self.encoder.num_hidden_layers} (the last layer)."
            )
        self.encoder._check_layer(layer)
        self.num_layers = layer
        self.idf = idf
        self.dtype = dtype
        self.batch_size = batch_size
        self.all_layers = bool(all_layers)
        self.use_fast_tokenizer = bool(use_fast_tokenizer)
        self.long_text = long_text
        self.multi_ref = multi_ref
        self.verbose = verbose
        self.rescale_with_baseline = bool(rescale_with_baseline)
        self.baseline_path = baseline_path
        self.baseline: torch.Tensor | None = None
        if self.rescale_with_baseline:
            from nlgmetrics.semantic.baseline_files import find_baseline, read_baseline

            path = find_baseline(lang, self.model_type, baseline_path)
            table = read_baseline(path)
            if self.all_layers:
                self.baseline = table[:, None, :]
            else:
                if self.num_layers >= table.shape[0]:
                    raise OptionError(f"baseline file {path} has no row for layer {self.num_layers}.")
                self.baseline = table[self.num_layers]
        tok = self.encoder.tokenizer
        self._specials = (tok.sep_token_id, tok.cls_token_id)

    @property
    def hash(self) -> str:
        return get_hash(
            self.model_type, self.num_layers, self.idf, self.rescale_with_baseline, self.baseline_path is not None,
            self.use_fast_tokenizer, self.multi_ref, self.long_text, self.dtype,
        )

    def signature(self, ref_weights: bool = False) -> str:
        """How the scores are computed (:mod:`nlgmetrics.signature`): the model (name, weights digest, precision,
        torch/transformers), layer, idf (``yes``: from the references; ``given``: a dict), baseline rescaling
        (``custom`` for a baseline file), and our options where they are not bert_score's."""
        from nlgmetrics.signature import build, model_parts, unless_default

        baseline = ("custom" if self.baseline_path is not None else "yes") if self.rescale_with_baseline else "no"
        return build([
            *model_parts(self.model_type, self.encoder.folder, self.encoder.autocast_dtype), ("layer", self.num_layers),
            ("idf", "given" if isinstance(self.idf, Mapping) else bool(self.idf)), ("baseline", baseline),
            ("all_layers", unless_default(self.all_layers, False)),
            ("fast_tok", unless_default(self.use_fast_tokenizer, False)),
            ("multi_ref", unless_default(self.multi_ref, "max")), ("ref_weights", unless_default(ref_weights, False)),
            ("long", unless_default(self.long_text, "window")),
        ])

    def _embed(self, texts: Sequence[str]) -> dict[str, tuple[list[int], torch.Tensor]]:
        """text -> (ids, L2-normalised embeddings) for the unique texts."""
        unique = list(dict.fromkeys(texts))
        layer = None if self.all_layers else self.num_layers
        embs = self.encoder.embed(
            unique, layer, batch_size=self.batch_size, long_text=self.long_text, progress=self.verbose, copy=False
        )
        out = {}
        for text, e in zip(unique, embs):
            emb = e.embeddings.transpose(0, 1) if self.all_layers else e.embeddings  # (L+1, T, D) for all layers
            out[text] = (e.input_ids, _normalised(emb))
        return out

    def score_pairs(
        self, cands: Sequence[str], refs: Sequence[str], idf_dict: Mapping | None
    ) -> torch.Tensor:
        """P, R, F for aligned single pairs, ``(n, 3)`` (``all_layers``: ``(L + 1, n, 3)``)."""
        n = len(cands)
        self._check_memory(cands, refs)
        results = []
        zero_idf: set[str] = set()
        for start in range(0, n, PAIR_CHUNK):
            c, r = cands[start : start + PAIR_CHUNK], refs[start : start + PAIR_CHUNK]
            table = self._embed(list(c) + list(r))
            weights = {t: _weights(ids, idf_dict, self._specials) for t, (ids, _) in table.items()}
            if idf_dict is not None:  # idf weights summing to 0 would give 0 / 0: weigh such a text as without idf
                for t, w in weights.items():
                    if not float(w.sum()) > 0:
                        plain = _weights(table[t][0], None, self._specials)
                        if float(plain.sum()) > 0:
                            weights[t] = plain
                            zero_idf.add(t)
            hyp_w = [weights[t] for t in c]
            ref_w = [weights[t] for t in r]
            if self.all_layers:
                n_layers = table[c[0]][1].shape[0]
                chunk = torch.stack([
                    greedy_match([table[t][1][k] for t in c], hyp_w, [table[t][1][k] for t in r], ref_w)
                    for k in range(n_layers)
                ])
            else:
                chunk = greedy_match([table[t][1] for t in c], hyp_w, [table[t][1] for t in r], ref_w)
            hyp_empty = torch.tensor([len(table[t][0]) == 2 for t in c])
            ref_empty = torch.tensor([len(table[t][0]) == 2 for t in r])
            if bool(hyp_empty.any()):
                warnings.warn("Empty candidate sentence detected; setting raw BERTScores to 0.", UserWarning, stacklevel=3)
                chunk[..., hyp_empty, 0:2] = 0.0
            if bool(ref_empty.any()):
                warnings.warn("Empty reference sentence detected; setting raw BERTScores to 0.", UserWarning, stacklevel=3)
                chunk[..., ref_empty, 0:2] = 0.0
            chunk[..., 2] = torch.nan_to_num(chunk[..., 2], nan=0.0)
            results.append(chunk)
            if n > PAIR_CHUNK:
                del table, weights
                release_freed_memory()
        if zero_idf:
            warnings.warn(
                f"BERTScore: the idf weights of {len(zero_idf)} text(s) sum to 0 (every token occurs in every "
                "reference, e.g. idf=True over a single reference, or an all-zero idf dict); they are weighted as with "
                "idf=False instead of giving NaN (bert_score's result). Compute idf over a larger corpus (pass a dict) "
                "or use idf=False.",
                UserWarning,
                stacklevel=3,
            )
        return torch.cat(results, dim=-2)

    def _check_memory(self, cands: Sequence[str], refs: Sequence[str]) -> None:
        """Warn when one chunk's embeddings (the part of a call that grows with the texts) may not fit in memory.

        Per token: the engine's output, its cached copy and the normalised copy, ``3 * 4 * row`` bytes (``row`` =
        hidden size, times L + 1 with ``all_layers``), plus ids. Token counts are bounded from the UTF-8 length
        (at most ``2 * bytes + 4``); only when that bound is too much are the texts tokenized for the real count."""
        hidden = self.encoder.hidden_size or 1024
        row = hidden * ((self.encoder.num_hidden_layers + 1) if self.all_layers else 1)
        per_token = 12 * row + 64
        fixed = 3 * 4 * _SIM_ELEMENTS
        limit = self.encoder.max_len if self.long_text == "truncate" else None

        def estimate(counts: dict[str, int]) -> int:
            worst = 0
            for start in range(0, len(cands), PAIR_CHUNK):
                texts = set(cands[start : start + PAIR_CHUNK]) | set(refs[start : start + PAIR_CHUNK])
                worst = max(worst, sum(counts[t] for t in texts))
            return fixed + per_token * worst

        unique = list(dict.fromkeys([*cands, *refs]))
        bound = {t: 2 * len(t.encode("utf-8", "surrogatepass")) + 4 for t in unique}
        if limit is not None:
            bound = {t: min(b, limit) for t, b in bound.items()}
        free = available_memory()
        if free is None or estimate(bound) <= free:
            return
        long = [t for t in unique if bound[t] > (limit or 512)]
        exact = dict(bound)
        exact.update(zip(long, (len(ids) for ids in self.encoder.token_ids(long))))
        warn_if_memory_short(
            estimate(exact), f"BERTScore on {len(cands)} pair(s) (embeddings of {max(exact.values())} tokens at most "
            "per text)", "Score fewer or shorter texts per call, or pass long_text='truncate'.", free=free,
            stacklevel=5,
        )

    def score(
        self,
        cands: Sequence[str],
        refs: Sequence[str | Sequence[str]],
        ref_weights: Sequence[Sequence[float]] | None = None,
    ) -> torch.Tensor:
        """P, R, F per example; several references per example are combined by ``multi_ref`` (or ``ref_weights``).

        With ``distributed`` on under torch.distributed (:mod:`nlgmetrics.embed.distributed`) every rank must pass the
        same inputs; each encodes a share of the texts and all return rank 0's scores."""
        return score_sharded(self.distributed, self._score, cands, refs, ref_weights)

    def _score(
        self, cands: Sequence[str], refs: Sequence[str | Sequence[str]], ref_weights: Sequence[Sequence[float]] | None
    ) -> torch.Tensor:
        cands, groups = replace_lone_surrogates_in_pairs(*check_pairs(cands, refs), "BERTScore")
        flat_c = [c for c, g in zip(cands, groups) for _ in g]
        flat_r = [r for g in groups for r in g]
        idf_dict: Mapping | None = None
        if isinstance(self.idf, Mapping):
            idf_dict = self.idf
        elif self.idf:
            idf_dict = idf_from_references(self.encoder.token_ids(flat_r))
        flat = self.score_pairs(flat_c, flat_r, idf_dict)
        sizes = [len(g) for g in groups]
        combined = combine_references(flat, sizes, self.multi_ref, check_ref_weights(ref_weights, sizes))
        if self.baseline is not None:
            combined = _rescale(combined, self.baseline)
        return combined


def _scorer_options(options: dict) -> dict:
    known = {
        "model_type", "num_layers", "lang", "idf", "device", "dtype", "batch_size", "all_layers", "use_fast_tokenizer",
        "rescale_with_baseline", "baseline_path", "long_text", "multi_ref", "verbose", "distributed",
    }
    return {k: v for k, v in options.items() if k in known}


@checked_options
def compute_bertscore(
    predictions: Sequence[str],
    references: Sequence[str | Sequence[str]],
    *,
    lang: str | None = None,
    model_type: str | None = None,
    num_layers: int | None = None,
    verbose: bool = False,
    idf: bool | Mapping = False,
    device: str | None = None,
    batch_size: int = 64,
    nthreads: int = 4,
    all_layers: bool = False,
    use_fast_tokenizer: bool = False,
    rescale_with_baseline: bool = False,
    baseline_path: str | None = None,
    dtype: str | None = None,
    long_text: str = "window",
    multi_ref: str = "max",
    ref_weights: Sequence[Sequence[float]] | None = None,
    diversity: bool = False,
    distributed: bool | str | None = None,
) -> dict:
    """BERTScore per example, as HF evaluate's ``bertscore`` (keys precision, recall, f1, hashcode).

    ``nthreads`` is accepted for compatibility (bert_score's idf worker pool) and unused: idf is computed in process.
    ``distributed``: sharded encoding under torch.distributed (:mod:`nlgmetrics.embed.distributed`): ``True``,
    ``"auto"`` (when initialised with several ranks) or ``False``; default ``None``: off unless inside
    ``sharded_encoding()``. Every rank must then call with the same inputs; all return the same scores.
    ``diversity=True`` adds ``self_bertscore``: the mean pairwise F1 among the predictions (lower: more diverse).
    """
    del nthreads
    scorer = BERTScorer(
        model_type, num_layers, lang=lang, idf=idf, device=device, dtype=dtype, batch_size=batch_size,
        all_layers=all_layers, use_fast_tokenizer=use_fast_tokenizer, rescale_with_baseline=rescale_with_baseline,
        baseline_path=baseline_path, long_text=long_text, multi_ref=multi_ref, verbose=verbose,
        distributed=distributed,
    )
    scores = scorer.score(predictions, references, ref_weights=ref_weights)
    out = {
        "precision": scores[..., 0].tolist(),
        "recall": scores[..., 1].tolist(),
        "f1": scores[..., 2].tolist(),
        "hashcode": scorer.hash,
        "signature": scorer.signature(ref_weights is not None),
    }
    if diversity:
        out["self_bertscore"] = _self_bertscore(scorer, check_predictions(predictions))
    return out


def _self_bertscore(scorer: BERTScorer, texts: list[str]) -> float:
    if len(texts) < 2:
        raise OptionError("diversity needs at least two generations to compare.")
    texts = replace_lone_surrogates(texts, "BERTScore")
    cands = [a for i, a in enumerate(texts) for j in range(len(texts)) if i != j]
    refs = [texts[j] for i in range(len(texts)) for j in range(len(texts)) if i != j]
    flat = scorer.score_pairs(cands, refs, scorer.idf if isinstance(scorer.idf, Mapping) else None)
    if scorer.baseline is not None:
        flat = _rescale(flat, scorer.baseline)
    return float(flat[..., 2].mean())


def self_bertscore(generations: Sequence[str] | Sequence[Sequence[str]], **options: Any) -> dict:
    """Diversity of several generations for one input: the mean BERTScore F1 over all ordered pairs ``i != j``
    (F1 is symmetric without idf, so this is the mean over unordered pairs). Lower means more diverse.

    ``generations``: a list of strings (one input) or a list of such lists (one value per input). Options as
    :func:`compute_bertscore` (idf from references does not apply; a dict is used as given). Embeddings come from
    the shared cache, so scoring generations that were already scored against references embeds nothing again.
    """
    options = dict(options)
    if options.get("idf") is True:
        options["idf"] = False
    scorer = BERTScorer(**_scorer_options(options))
    items = generations.tolist() if hasattr(generations, "tolist") else generations  # numpy array, pandas Series
    grouped = isinstance(items, Sequence) and len(items) > 0 and not isinstance(items[0], str)
    groups = [check_predictions(g, "generations") for g in items] if grouped else [
        check_predictions(items, "generations")
    ]
    values = [_self_bertscore(scorer, g) for g in groups]
    return {
        "self_bertscore": values if grouped else values[0],
        "mean": sum(values) / len(values),
        "hashcode": scorer.hash,
    }
