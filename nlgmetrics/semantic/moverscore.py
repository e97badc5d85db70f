"""MoverScore (Zhao et al., 2019) with the semantics of MoverScore v2 (moverscore 1.0.3, ``word_mover_score``).

Flow: text -> ``[CLS] wordpieces [SEP]`` (truncated to the model maximum) -> contextual embeddings at the last layer
(shared engine and cache, :mod:`nlgmetrics.embed`) -> token masses -> optimal transport between the reference and the
prediction (:mod:`nlgmetrics.transport`) -> score.

Token masses. Each side has its own idf, from its own corpus (the predictions; all references, flattened), with the
document frequency df(t) counted once per text and N the number of texts::

    idf(t) = log((N + 1) / (df(t) + 1))          (ids absent from the corpus: log(N + 1))
    w(t)   = 0 if t contains '##', is one punctuation character, or is a stop word, else idf(t)   (idf=False: 1)

A given idf (``idf=(prediction idf, reference idf)``, v2's ``idf_dict_hyp``/``idf_dict_ref``, say counted over a
larger corpus) replaces the two corpus idfs. With idf on, ``[CLS]`` and ``[SEP]`` occur in every text, so their idf
is log(1) = 0; with ``idf=False`` every token, ``[CLS]`` and ``[SEP]`` included, weighs 1 (unless one of the
zero-mass rules applies). Masses are normalised per text: ``a = w_ref / sum w_ref``, ``b = w_pred / sum w_pred``.

Transport. Embeddings are L2-normalised; the ground cost between a reference token x and a prediction token y is
``||x - y||`` (``distance="euclidean"``, v2) or ``1 - cos(x, y)`` (``"cosine"``)::

    distance = min_P <P, C>  s.t.  P 1 = a,  P^T 1 = b,  P >= 0        (exact EMD; v2's pyemd on [ref; pred])
    score    = 1 - distance

v2 solves the problem on the joined [reference; prediction] token set with the reference masses in the first block
and the prediction masses in the second; only the reference-to-prediction block can carry flow, so the problem
solved here, on the tokens with mass, has the same optimum. ``solver="sinkhorn"`` solves the entropic problem
instead (``reg``; the cost of its plan is reported); ``relaxed=True`` drops the reference marginal: every prediction
token sends its mass to its nearest reference token, ``distance = sum_j b_j min_i C_ij``.

Options beyond v2: ``stop_words``; ``n_gram`` > 1 (v1's n-gram embeddings, which v2 ignores: windows of n consecutive
kept tokens, each with mass = the sum of its tokens' weights and embedding = their weight-averaged normalised
embedding); ``remove_subwords=False`` keeps '##' pieces (v2 always drops them, whatever its flag says); several
references per prediction, combined by ``multi_ref`` (max or mean of the scores) or ``ref_weights`` (a weighted
mean), as BERTScore; ``model_type``/``num_layers`` as BERTScore (default: the bundled MiniLM, its last layer).

Long texts and memory. With ``long_text="window"`` a text keeps all its tokens, so one pair can be a very large
transport problem. Before anything is embedded, the number of tokens with mass is bounded from the tokenizer: exact
transport past :data:`nlgmetrics.transport.exact.MAX_ENTRIES` (2**26, e.g. 8192 x 8192 tokens; about 2 GiB and a
minute) is a ``ValueError`` naming the options that lift it: ``relaxed=True`` (costs built in blocks, memory linear in
the length), ``solver="sinkhorn"`` (memory ~48 bytes per token pair) or ``long_text="truncate"``. A call whose
estimated memory (embeddings, cost matrices, solver) exceeds the available memory warns first. Exact cost matrices are
built per problem inside the solver's threads once a chunk's would be large (:mod:`nlgmetrics.transport`).

Defined results. A text in which every token has zero mass (only punctuation, say; or idf over a corpus of one text,
where every id has df = N) has nothing to transport: its pairs score 0.0 (distance 1.0), with a warning. v2 would
report 1.0 there. Costs are computed in float64 from the float32 embeddings; v2 computes them in float32, which
differs by at most about 3e-4 for near-identical tokens. Lone surrogates (invalid Unicode) are replaced by U+FFFD
with a warning before tokenization.
"""

from __future__ import annotations

import math
import string
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import torch

from nlgmetrics._quiet import warn
from nlgmetrics import __version__
from nlgmetrics.embed.distributed import check_mode, map_sharded, score_sharded
from nlgmetrics.errors import LimitError, OptionError, OptionTypeError
from nlgmetrics.inputs import check_pairs, replace_lone_surrogates, replace_lone_surrogates_in_pairs
from nlgmetrics.options import checked_options
from nlgmetrics.resources import BUNDLED_ENCODER_ID
from nlgmetrics.semantic import PAIR_CHUNK, release_freed_memory, warn_if_memory_short
from nlgmetrics.semantic.idf import DocumentFrequencies
from nlgmetrics.semantic.references import check_multi_ref, check_ref_weights, combine_references
from nlgmetrics.transport import DEFAULT_REG, solve_clouds
from nlgmetrics.transport import exact as exact_transport

IdfTable = Mapping[int, float] | np.ndarray  # token id -> idf weight: a (default)dict, or an array over the vocabulary

PUNCTUATION = frozenset(string.punctuation)
DISTANCES = ("euclidean", "cosine")
SOLVERS = ("exact", "sinkhorn")
LONG_TEXT_MODES = ("truncate", "window")
ZERO_MASS_SCORE = 0.0


def idf_dict(token_ids: Iterable[Sequence[int]]) -> defaultdict:
    """MoverScore's idf over one corpus (:mod:`nlgmetrics.semantic.idf`): ``log((N+1)/(df+1))``, df counted once
    per text; unseen ids ``log(N+1)``."""
    return DocumentFrequencies.count(token_ids).idf_dict()


@dataclass(frozen=True)
class Units:
    """What one text brings to a transport problem: unit embeddings (k, d), float64, L2-normalised, and masses
    (k,) summing to 1; only units with positive mass are kept (``k = 0``: nothing to transport)."""

    embeddings: np.ndarray
    mass: np.ndarray


def token_weights(
    tokens: Sequence[str], ids: Sequence[int], idf: Mapping[int, float] | None, stop_words: frozenset,
    remove_subwords: bool,
) -> np.ndarray:
    """Per-token weights before normalisation: 0 for '##' pieces, single punctuation characters and stop words."""
    out = np.empty(len(tokens))
    for k, (tok, i) in enumerate(zip(tokens, ids)):
        if tok in PUNCTUATION or tok in stop_words or (remove_subwords and "##" in tok):
            out[k] = 0.0
        else:
            out[k] = idf[i] if idf is not None else 1.0
    return out


def _normalise_rows(x: np.ndarray) -> np.ndarray:
    return x / (np.linalg.norm(x, axis=-1, keepdims=True) + 1e-30)


def _as_float32(embeddings) -> np.ndarray:
    if isinstance(embeddings, torch.Tensor):
        return embeddings.detach().cpu().numpy()
    return np.asarray(embeddings, dtype=np.float32)


def _as_float64(embeddings) -> np.ndarray:
    if isinstance(embeddings, torch.Tensor):
        embeddings = embeddings.detach().cpu().numpy()
    return np.asarray(embeddings, dtype=np.float64)


def build_units(weights: np.ndarray, embeddings: torch.Tensor | np.ndarray, kept: np.ndarray | None = None,
                n_gram: int = 1) -> Units:
    """The transport units of one text from its token ``weights`` (zero-mass rules applied) and embeddings.

    ``n_gram`` > 1: windows of ``n_gram`` consecutive ``kept`` tokens (default: those with positive weight), each
    with mass = the sum of its weights and embedding = the weight-averaged normalised token embedding. Plain numpy:
    these are small per-text arrays, where torch's per-op and threading overheads would dominate.
    """
    weights = np.asarray(weights, dtype=np.float64)
    emb = _as_float64(embeddings)
    if n_gram == 1:
        keep = np.flatnonzero(weights > 0)
        unit_mass, unit_emb = weights[keep], _normalise_rows(emb[keep])
    else:
        emb = _normalise_rows(emb)
        positions = np.flatnonzero(weights > 0 if kept is None else kept)
        width = min(n_gram, len(positions))
        masses, vecs = [], []
        for start in range(len(positions) - width + 1 if width else 0):
            win = positions[start : start + width]
            w = weights[win]
            total = float(w.sum())
            if total <= 0:
                continue
            masses.append(total)
            vecs.append((w / total) @ emb[win])
        unit_mass = np.asarray(masses, dtype=np.float64)
        unit_emb = _normalise_rows(np.stack(vecs)) if vecs else emb[:0]
    total = float(unit_mass.sum())
    if total <= 0:
        return Units(emb[:0], np.zeros(0))
    return Units(np.ascontiguousarray(unit_emb), unit_mass / total)


def idf_array(token_ids: Iterable[Sequence[int]], size: int) -> np.ndarray:
    """:func:`idf_dict` as a dense array over ids ``0..size-1`` (the vectorised form used for scoring)."""
    return DocumentFrequencies.count(token_ids).idf_array(size)


_ZERO_FLAGS: dict[tuple, np.ndarray] = {}
SINKHORN_BYTES_PER_ENTRY = 48  # float64 costs, scaled costs and the log-domain temporaries of a half-step


def _token_bound(text: str) -> int:
    """At most this many tokens: WordPiece, BPE and SentencePiece (byte fallback) give at most 2 per UTF-8 byte."""
    return 2 * len(text.encode("utf-8", "surrogatepass")) + 4


def _check_options(stop_words, n_gram, distance, solver, reg, multi_ref, long_text, idf) -> frozenset:
    if isinstance(stop_words, str):
        raise OptionTypeError("stop_words must be a collection of tokens (e.g. a list), not one string.")
    try:
        stops = frozenset(stop_words or ())
    except TypeError:
        raise OptionTypeError(f"stop_words must be a collection of token strings, got {stop_words!r:.60}.") from None
    if isinstance(n_gram, bool) or not isinstance(n_gram, int) or n_gram < 1:
        raise OptionError(f"n_gram must be a positive integer (1 = MoverScore v2), got {n_gram!r}.")
    if distance not in DISTANCES:
        raise OptionError(f"distance must be one of {DISTANCES}, got {distance!r}.")
    if solver not in SOLVERS:
        raise OptionError(f"solver must be one of {SOLVERS}, got {solver!r}.")
    if isinstance(reg, bool) or not isinstance(reg, (int, float)) or not (reg > 0 and math.isfinite(reg)):
        raise OptionError(f"reg (the Sinkhorn regularisation) must be a positive number, got {reg!r}.")
    check_multi_ref(multi_ref)
    if long_text not in LONG_TEXT_MODES:
        raise OptionError(f"long_text must be one of {LONG_TEXT_MODES}, got {long_text!r}.")
    if not isinstance(idf, bool):
        sides = tuple(idf) if isinstance(idf, (tuple, list)) else ()
        if len(sides) != 2 or not all(isinstance(x, Mapping) or (isinstance(x, np.ndarray) and x.ndim == 1)
                                      for x in sides):
            raise OptionTypeError("idf must be True, False or a pair (prediction idf, reference idf), each a dict token id "
                            f"-> weight (a defaultdict for unseen ids) or a 1-D array over token ids; got {idf!r:.80}.")
    return stops


class MoverScorer:
    """Holds the encoder and the options; :meth:`score` scores pairs, :meth:`alignment` gives one pair's flow.

    Options are those of :func:`compute_moverscore`.
    """

    def __init__(
        self,
        model_type: str | None = None,
        num_layers: int | None = None,
        *,
        idf: bool | tuple[IdfTable, IdfTable] = True,
        stop_words: Iterable[str] | None = None,
        n_gram: int = 1,
        remove_subwords: bool = True,
        distance: str = "euclidean",
        solver: str = "exact",
        reg: float = DEFAULT_REG,
        relaxed: bool = False,
        multi_ref: str = "max",
        long_text: str = "truncate",
        device: str | None = None,
        dtype: str | None = None,
        batch_size: int = 64,
        num_threads: int | None = None,
        verbose: bool = False,
        distributed: bool | str | None = None,
    ) -> None:
        from nlgmetrics.embed import get_encoder

        self.distributed = None if distributed is None else check_mode(distributed)
        self.stop_words = _check_options(stop_words, n_gram, distance, solver, reg, multi_ref, long_text, idf)
        self.model_type = model_type or BUNDLED_ENCODER_ID
        self.encoder = get_encoder(self.model_type, device=device, dtype=dtype)
        self.layer = self.encoder.num_hidden_layers if num_layers is None else num_layers
        top = self.encoder.num_hidden_layers
        if isinstance(self.layer, bool) or not isinstance(self.layer, int) or not 0 <= self.layer <= top:
            raise OptionError(f"num_layers must be an integer from 0 (embedding output) to {top} (last layer) for "
                             f"{self.model_type!r}, got {num_layers!r}.")
        self.idf = idf if isinstance(idf, bool) else tuple(idf)
        self.n_gram, self.remove_subwords = n_gram, bool(remove_subwords)
        self.distance, self.solver, self.reg, self.relaxed = distance, solver, float(reg), bool(relaxed)
        self.multi_ref, self.long_text = multi_ref, long_text
        self.batch_size, self.num_threads, self.verbose = batch_size, num_threads, verbose
        self.dtype = dtype

    # -- embeddings -----------------------------------------------------------------------------------------------
    def _fits(self, texts: Sequence[str]) -> list[bool]:
        """Whether each text fits the model unchanged. A text of b UTF-8 bytes has at most 2b + 4 tokens under
        WordPiece, BPE and SentencePiece (byte fallback); only longer texts are tokenized to decide."""
        limit = self.encoder.max_len
        fits = [_token_bound(t) <= limit for t in texts]
        unsure = [i for i, ok in enumerate(fits) if not ok]
        if unsure:
            for i, ids in zip(unsure, self.encoder.token_ids([texts[i] for i in unsure])):
                fits[i] = len(ids) <= limit
        return fits

    def embed(self, texts: Sequence[str]) -> dict[str, tuple[list[int], torch.Tensor]]:
        """Unique text -> (input_ids, embeddings). Texts that fit the model are embedded in the engine's default
        ("window") namespace, where the numbers equal truncation's, so BERTScore's cache entries are shared."""
        unique = list(dict.fromkeys(texts))
        if self.long_text == "truncate":
            fits = self._fits(unique)
            groups = [([t for t, ok in zip(unique, fits) if ok], "window"),
                      ([t for t, ok in zip(unique, fits) if not ok], "truncate")]
        else:
            groups = [(unique, "window")]
        table = {}
        for group, mode in groups:
            if group:
                embs = self.encoder.embed(group, self.layer, batch_size=self.batch_size, long_text=mode,
                                          progress=self.verbose, copy=False)
                table.update({t: (e.input_ids, e.embeddings) for t, e in zip(group, embs)})
        return table

    def tokens(self, ids: Sequence[int]) -> list[str]:
        return self.encoder.tokenizer.convert_ids_to_tokens(list(ids))

    def zero_flags(self) -> np.ndarray:
        """Per vocabulary id: True where the token always gets zero mass (punctuation, '##' pieces, stop words)."""
        tok = self.encoder.tokenizer
        key = (self.encoder.model_id, self.encoder.tokenizer_settings, self.stop_words, self.remove_subwords)
        flags = _ZERO_FLAGS.get(key)
        if flags is None:
            vocab = self.tokens(range(len(tok)))
            flags = np.array([t is not None and (t in PUNCTUATION or t in self.stop_words or
                                                 (self.remove_subwords and "##" in t)) for t in vocab], dtype=bool)
            _ZERO_FLAGS[key] = flags
        return flags

    def units(self, texts: Sequence[str], table: dict, idf: np.ndarray | Mapping[int, float] | None
              ) -> dict[str, Units]:
        """Unique text -> :class:`Units`; ``idf`` is an array over ids (:func:`idf_array`), a mapping, or None.

        Vectorised over all texts at once (one concatenation, one normalisation), then sliced per text."""
        flags = self.zero_flags()
        unique = list(dict.fromkeys(texts))
        if not unique:
            return {}
        lengths = [len(table[t][0]) for t in unique]
        ids = np.fromiter((i for t in unique for i in table[t][0]), dtype=np.int64, count=sum(lengths))
        zero = np.zeros(len(ids), dtype=bool)
        inside = ids < len(flags)
        zero[inside] = flags[ids[inside]]
        for k in np.flatnonzero(~inside):  # ids beyond the vocabulary list: decide by their token strings
            t = self.tokens([int(ids[k])])[0] or ""
            zero[k] = t in PUNCTUATION or t in self.stop_words or (self.remove_subwords and "##" in t)
        if idf is None:
            weights = np.ones(len(ids))
        elif isinstance(idf, np.ndarray):
            if len(ids) and ids.max() >= len(idf):
                raise OptionError(f"the idf array has {len(idf)} entries but the texts hold token id {ids.max()}: "
                                 "give an array over the whole vocabulary (len(tokenizer)).")
            weights = idf[ids].astype(np.float64)
        else:
            try:
                weights = np.array([idf[int(i)] for i in ids], dtype=np.float64)
            except KeyError as exc:
                raise OptionError(f"the idf dict has no weight for token id {exc.args[0]!r}: pass a "
                                 "collections.defaultdict with a weight for unseen ids (v2's form).") from None
        weights[zero] = 0.0
        emb = np.concatenate([_as_float32(table[t][1]) for t in unique])
        bounds = np.concatenate([[0], np.cumsum(lengths)])
        out = {}
        if self.n_gram == 1:
            keep = weights > 0
            emb_kept = _normalise_rows(emb[keep].astype(np.float64))
            kept_bounds = np.concatenate([[0], np.cumsum(keep)])[bounds]
            for k, text in enumerate(unique):
                lo, hi = kept_bounds[k], kept_bounds[k + 1]
                w = weights[bounds[k] : bounds[k + 1]][keep[bounds[k] : bounds[k + 1]]]
                total = w.sum()
                out[text] = Units(emb_kept[lo:hi], w / total) if total > 0 else Units(emb_kept[:0], np.zeros(0))
        else:
            for k, text in enumerate(unique):
                lo, hi = bounds[k], bounds[k + 1]
                out[text] = build_units(weights[lo:hi], emb[lo:hi], ~zero[lo:hi], self.n_gram)
        return out

    def token_ids(self, texts: Sequence[str]) -> dict[str, list[int]]:
        """Unique text -> the input ids :meth:`embed` gives it (cut to the model maximum with ``"truncate"``), from
        the tokenizer alone."""
        unique = list(dict.fromkeys(texts))
        ids = self.encoder.token_ids(unique)
        if self.long_text == "truncate":
            ids = [self.encoder._pieces(i, "truncate")[0] for i in ids]
        return dict(zip(unique, ids))

    def idf_arrays(self, predictions: Sequence[str], references: Sequence[str], ids: Mapping[str, Sequence[int]]):
        """Each side's idf over its own corpus, as dense arrays over the vocabulary (ids seen included);
        ``ids``: text -> input ids."""
        size = max([len(self.encoder.tokenizer)] + [max(ids[t], default=0) + 1 for t in ids])
        return (idf_array((ids[t] for t in predictions), size), idf_array((ids[t] for t in references), size))

    # -- scoring --------------------------------------------------------------------------------------------------
    def distances(self, pairs: Sequence[tuple[Units, Units]]) -> np.ndarray:
        """Transport distance of each (reference units, prediction units) pair; NaN where a side has no mass."""
        out = np.full(len(pairs), np.nan)
        todo = [k for k, (r, p) in enumerate(pairs) if len(r.mass) and len(p.mass)]
        if todo:
            method = "relaxed" if self.relaxed else self.solver
            device = self.encoder.device if method != "exact" else None
            res = solve_clouds(
                [pairs[k][0].embeddings for k in todo], [pairs[k][1].embeddings for k in todo],
                [pairs[k][0].mass for k in todo], [pairs[k][1].mass for k in todo],
                metric=self.distance, method=method, reg=self.reg, num_threads=self.num_threads, device=device,
                unit_rows=True,
            )
            out[todo] = res.costs
        return out

    def score(
        self, predictions: Sequence[str], references: Sequence[Sequence[str]],
        ref_weights: Sequence[Sequence[float]] | None = None,
    ) -> tuple[list[float], list[float]]:
        """Per-example (scores, distances); ``references`` holds one list of strings per prediction.

        With ``distributed`` on under torch.distributed (:mod:`nlgmetrics.embed.distributed`) every rank must pass the
        same inputs; each encodes a share of the texts and all return rank 0's scores."""
        return score_sharded(self.distributed, self._score, predictions, references, ref_weights)

    def _unit_bounds(self, texts: Sequence[str]) -> dict[str, int]:
        """Unique text -> an upper bound on its transport units (tokens that can carry mass), from the UTF-8 length
        and, for texts that may be long, the tokenizer (tokens minus those always of zero mass)."""
        limit = self.encoder.max_len if self.long_text == "truncate" else None
        bound = {t: _token_bound(t) for t in dict.fromkeys(texts)}
        if limit is not None:
            return {t: min(b, limit) for t, b in bound.items()}
        long = [t for t, b in bound.items() if b > self.encoder.max_len]
        if long:
            flags = self.zero_flags()
            for t, ids in zip(long, self.encoder.token_ids(long)):
                ids = np.asarray(ids, dtype=np.int64)
                bound[t] = int(np.count_nonzero(~flags[ids[ids < len(flags)]]) + np.count_nonzero(ids >= len(flags)))
        return bound

    def _check_size(self, keys: Sequence[tuple[str, str]]) -> None:
        """Before embedding: refuse exact transport past the solver's limit, warn when memory may not suffice."""
        if not keys:
            return
        method = "relaxed" if self.relaxed else self.solver
        bound = self._unit_bounds([t for key in keys for t in key])
        sizes = sorted((bound[r] * bound[p], bound[r], bound[p]) for p, r in keys)
        entries, n_ref, n_pred = sizes[-1]
        if method == "exact" and entries > exact_transport.MAX_ENTRIES:
            gib = entries * SINKHORN_BYTES_PER_ENTRY / 2**30
            raise LimitError(
                f"MoverScore: exact transport between a reference of {n_ref} and a prediction of {n_pred} tokens "
                f"with mass ({entries:,} token pairs) is beyond the exact solver's limit of "
                f"{exact_transport.MAX_ENTRIES:,} token pairs (e.g. {math.isqrt(exact_transport.MAX_ENTRIES)} x "
                f"{math.isqrt(exact_transport.MAX_ENTRIES)}; memory and time grow past that). "
                "Pass relaxed=True (one-sided transport, costs built in blocks: memory linear in the length), "
                f"solver='sinkhorn' (entropic; about {gib:.1f} GiB here, a GPU helps), or long_text='truncate' "
                "(v2: the first 512 tokens of each text)."
            )
        hidden = self.encoder.hidden_size or 1024
        chunk_tokens = max(sum(bound[t] for t in {t for key in keys[i : i + PAIR_CHUNK] for t in key})
                           for i in range(0, len(keys), PAIR_CHUNK))
        estimate = chunk_tokens * 28 * hidden  # float32 embeddings (engine, cache) + float64 units
        if method == "exact":
            threads = self.num_threads or exact_transport.default_threads()
            estimate += exact_transport.BYTES_PER_ENTRY * sum(e for e, _, _ in sizes[-threads:])
        elif method == "sinkhorn":
            estimate += SINKHORN_BYTES_PER_ENTRY * max(entries, 2**24)
        device = self.encoder.device
        free = torch.cuda.mem_get_info(device)[0] if device.type == "cuda" and method != "exact" else None
        warn_if_memory_short(estimate, f"MoverScore ({method} transport, largest pair {n_ref} x {n_pred} tokens)",
                             "Pass relaxed=True or long_text='truncate', or score fewer pairs per call.", free=free,
                             stacklevel=5)

    def _score(
        self, predictions: Sequence[str], references: Sequence[Sequence[str]],
        ref_weights: Sequence[Sequence[float]] | None,
    ) -> tuple[list[float], list[float]]:
        predictions, references = replace_lone_surrogates_in_pairs(
            list(predictions), [list(group) for group in references], "MoverScore")
        flat_refs = [r for group in references for r in group]
        keys = list(dict.fromkeys((p, r) for p, group in zip(predictions, references) for r in group))
        self._check_size(keys)
        # one chunk: embed everything at once; more: embed and solve PAIR_CHUNK pairs at a time (bounded memory),
        # the corpus-level idf then coming from the tokenizer alone
        table = self.embed(list(predictions) + flat_refs) if len(keys) <= PAIR_CHUNK else None
        idf_pred = idf_ref = None
        if self.idf is True:
            ids = {t: e[0] for t, e in table.items()} if table is not None else self.token_ids(
                list(predictions) + flat_refs)
            idf_pred, idf_ref = self.idf_arrays(predictions, flat_refs, ids)
        elif self.idf is not False:
            idf_pred, idf_ref = self.idf
        dist = []
        for start in range(0, len(keys), PAIR_CHUNK):
            chunk = keys[start : start + PAIR_CHUNK]
            part = table if table is not None else self.embed([t for key in chunk for t in key])
            pred_units = self.units([p for p, _ in chunk], part, idf_pred)
            ref_units = self.units([r for _, r in chunk], part, idf_ref)
            pairs = [(ref_units[r], pred_units[p]) for p, r in chunk]  # under sharding each rank solves a share
            dist += map_sharded(self.distances, pairs, [len(r.mass) * len(p.mass) for r, p in pairs])
            if table is None:
                del part, pred_units, ref_units, pairs
                release_freed_memory()
        dist = np.asarray(dist, dtype=float)
        by_key = dict(zip(keys, dist))
        empty = [k for k, d in zip(keys, dist) if np.isnan(d)]
        if empty:
            warn(
                f"MoverScore: {len(empty)} pair(s) have a text whose tokens all carry zero mass (only punctuation, "
                "subword pieces or stop words, or idf over a corpus of one text); they score "
                f"{ZERO_MASS_SCORE} (distance {1 - ZERO_MASS_SCORE}). For single pairs pass idf=False."
            )
        per_pair = [by_key[(p, r)] for p, group in zip(predictions, references) for r in group]
        flat = torch.tensor([[ZERO_MASS_SCORE if np.isnan(d) else 1.0 - d] for d in per_pair], dtype=torch.float64)
        sizes = [len(group) for group in references]
        scores = combine_references(flat, sizes, self.multi_ref, check_ref_weights(ref_weights, sizes))[:, 0].tolist()
        return scores, [1.0 - s for s in scores]

    def alignment(self, prediction: str, reference: str, *, idf: Mapping[int, float] | None = None) -> dict:
        """One pair's tokens, masses, cost matrix and flow (rows: reference tokens, columns: prediction tokens; all
        tokens, zero-mass ones with zero flow). Only for ``n_gram=1``. ``idf``: one dict for both sides (default:
        none, every token weighs 1, as v2's ``plot_example``)."""
        if self.n_gram != 1:
            raise OptionError("alignment() shows token-to-token flow and needs n_gram=1.")
        prediction, reference = replace_lone_surrogates([prediction, reference], "MoverScore")
        self._check_size([(prediction, reference)])
        table = self.embed([prediction, reference])
        sides = {}
        for name, text in (("reference", reference), ("prediction", prediction)):
            ids, emb = table[text]
            toks = self.tokens(ids)
            w = token_weights(toks, ids, idf, self.stop_words, self.remove_subwords)
            sides[name] = (toks, w / w.sum() if w.sum() > 0 else w, _normalise_rows(_as_float64(emb)))
        (rt, ra, re), (pt, pb, pe) = sides["reference"], sides["prediction"]
        method = "relaxed" if self.relaxed else self.solver
        res = solve_clouds([re], [pe], [ra], [pb], metric=self.distance, method=method, reg=self.reg,
                           return_flow=True, num_threads=1)
        from nlgmetrics.transport import pairwise_costs

        cost = pairwise_costs(torch.from_numpy(re), torch.from_numpy(pe), self.distance).numpy()
        empty = ra.sum() == 0 or pb.sum() == 0
        distance = 1.0 - ZERO_MASS_SCORE if empty else float(res.costs[0])
        return {"reference_tokens": rt, "prediction_tokens": pt, "reference_mass": ra, "prediction_mass": pb,
                "cost": cost, "flow": res.flows[0], "distance": distance, "score": 1.0 - distance}

    def signature(self, ref_weights: bool = False) -> str:
        """How the scores are computed (:mod:`nlgmetrics.signature`): the model (name, weights digest, precision,
        torch/transformers), layer, idf (``given``: weights passed in), and every transport option."""
        from nlgmetrics.signature import build, model_parts, unless_default

        return build([
            *model_parts(self.model_type, self.encoder.folder, self.encoder.autocast_dtype), ("layer", self.layer),
            ("idf", self.idf if isinstance(self.idf, bool) else "given"), ("distance", self.distance),
            ("solver", "relaxed" if self.relaxed else self.solver),
            ("reg", self.reg if self.solver == "sinkhorn" and not self.relaxed else ...),
            ("n_gram", self.n_gram), ("subwords", "kept" if not self.remove_subwords else "removed"),
            ("stop_words", len(self.stop_words) if self.stop_words else 0),
            ("multi_ref", self.multi_ref), ("ref_weights", unless_default(ref_weights, False)),
            ("long", self.long_text),
        ])

    def hash(self) -> str:
        parts = [
            f"moverscore-v2|{self.model_type}_L{self.layer}",
            "idf" if self.idf is True else "no-idf" if self.idf is False else "idf-given",
            self.distance,
            "relaxed" if self.relaxed else self.solver + (f"-reg{self.reg:g}" if self.solver == "sinkhorn" else ""),
        ]
        if self.n_gram != 1:
            parts.append(f"ngram{self.n_gram}")
        if not self.remove_subwords:
            parts.append("subwords-kept")
        if self.stop_words:
            parts.append(f"stop{len(self.stop_words)}")
        if self.multi_ref != "max":
            parts.append(f"multiref-{self.multi_ref}")
        if self.long_text != "truncate":
            parts.append(f"long-{self.long_text}")
        parts.append(f"nlgmetrics-{__version__}")
        return "|".join(parts)


@checked_options
def compute_moverscore(
    predictions: Sequence[str],
    references: Sequence[str | Sequence[str]],
    *,
    model_type: str | None = None,
    num_layers: int | None = None,
    idf: bool | tuple[IdfTable, IdfTable] = True,
    stop_words: Iterable[str] | None = None,
    n_gram: int = 1,
    remove_subwords: bool = True,
    distance: str = "euclidean",
    solver: str = "exact",
    reg: float = DEFAULT_REG,
    relaxed: bool = False,
    multi_ref: str = "max",
    ref_weights: Sequence[Sequence[float]] | None = None,
    long_text: str = "truncate",
    device: str | None = None,
    dtype: str | None = None,
    batch_size: int = 64,
    num_threads: int | None = None,
    verbose: bool = False,
    distributed: bool | str | None = None,
) -> dict:
    """MoverScore of each prediction against its reference(s); see the module docstring for the semantics.

    Args:
        model_type: hub id or local folder (default: the bundled ``sentence-transformers/all-MiniLM-L6-v2``; v2 used
            ``distilbert-base-uncased``). num_layers: hidden layer (default: the last, as v2).
        idf: True: idf weights from each side's own corpus (v2); False: every token 1; or a pair (prediction idf,
            reference idf), each a dict token id -> weight (a defaultdict, as v2's ``idf_dict_hyp``/``idf_dict_ref``)
            or an array over token ids, e.g. idf counted over a larger corpus. stop_words: tokens given zero mass.
        n_gram: v1's n-gram units (1 = v2). remove_subwords: give '##' pieces zero mass (v2: always).
        distance: 'euclidean' (v2) or 'cosine'. solver: 'exact' (v2) or 'sinkhorn' with ``reg``.
        relaxed: one-sided transport (prediction tokens to their nearest reference tokens).
        multi_ref: 'max' or 'mean' over several references; ref_weights: weighted mean instead.
        long_text: 'truncate' (v2) or 'window' (every token embedded). device, dtype, batch_size: the encoder's.
        num_threads: threads for the exact solver (default: usable cores).
        distributed: sharded encoding under torch.distributed (:mod:`nlgmetrics.embed.distributed`): True, 'auto'
            (when initialised with several ranks) or False; default None: off unless inside ``sharded_encoding()``.
            Every rank must then call with the same inputs; all return the same scores.
    Returns:
        ``scores`` (per example, 1 - distance), ``moverscore`` (their mean), ``distances`` (transport cost, lower is
        closer), ``hashcode`` (model, layer and options).
    """
    preds, refs = check_pairs(predictions, references)
    weights = check_ref_weights(ref_weights, [len(group) for group in refs])
    scorer = MoverScorer(
        model_type, num_layers, idf=idf, stop_words=stop_words, n_gram=n_gram, remove_subwords=remove_subwords,
        distance=distance, solver=solver, reg=reg, relaxed=relaxed, multi_ref=multi_ref, long_text=long_text,
        device=device, dtype=dtype, batch_size=batch_size, num_threads=num_threads, verbose=verbose,
        distributed=distributed,
    )
    scores, distances = scorer.score(preds, refs, weights)
    return {
        "scores": scores,
        "moverscore": float(np.mean(scores)),
        "distances": distances,
        "hashcode": scorer.hash(),
        "signature": scorer.signature(ref_weights is not None),
    }
