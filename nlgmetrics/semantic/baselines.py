"""BERTScore baseline rescaling: computing a baseline file by bert_score's method (:func:`compute_baseline`: random
sentence pairs, ``all_layers``, mean per layer; ``nlgmetrics baseline`` on the command line). The file format, the
lookup order and reading/writing live in :mod:`nlgmetrics.semantic.baseline_files`; its names are re-exported here.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path

import torch

from nlgmetrics.errors import OptionError
from nlgmetrics.semantic.baseline_files import (  # noqa: F401 - the file rules, importable from here as before
    DATA_DIR,
    baseline_candidates,
    baseline_target,
    check_lang,
    default_baseline_path,
    find_baseline,
    read_baseline,
    write_baseline,
)


def compute_baseline(
    sentences: Sequence[str],
    model_type: str,
    *,
    lang: str | None = None,
    pairs: int = 100_000,
    seed: int = 0,
    out: str | Path | None = None,
    batch_size: int = 64,
    device: str | None = None,
    long_text: str = "window",
    verbose: bool = False,
) -> torch.Tensor:
    """bert_score's baseline method: shuffle the (non-empty, deduplicated) sentences with ``seed``, pair them as
    ``(s[2i], s[2i+1])`` for up to ``pairs`` pairs, score every pair with every layer (no idf), and average P, R and F
    per layer. Returns ``(L + 1, 3)``; written to ``out`` (or, with ``lang``, to the cache location that
    :func:`find_baseline` reads) when given."""
    from nlgmetrics.embed.encoder import check_batch_size
    from nlgmetrics.semantic.bertscore import BERTScorer

    if isinstance(pairs, bool) or not isinstance(pairs, int) or pairs < 1:
        raise OptionError(f"pairs must be a positive integer (random sentence pairs to average over; bert_score used "
                         f"100000), got {pairs!r}.")
    check_batch_size(batch_size)
    if out is None and lang is not None:
        out = baseline_target(default_baseline_path(lang, model_type), make_parents=True)
    elif out is not None:
        out = baseline_target(out)  # checked before any work
    unique = list(dict.fromkeys(s.strip() for s in sentences if isinstance(s, str) and s.strip()))
    if len(unique) < 2:
        raise OptionError("a baseline needs at least two distinct non-empty sentences.")
    random.Random(seed).shuffle(unique)
    n = min(pairs, len(unique) // 2)
    hyps, refs = unique[0 : 2 * n : 2], unique[1 : 2 * n : 2]
    scorer = BERTScorer(model_type, 0, all_layers=True, batch_size=batch_size, device=device, long_text=long_text,
                        verbose=verbose)
    scores = scorer.score_pairs(hyps, refs, None)  # (L + 1, n, 3)
    table = scores.double().mean(dim=1).float()
    if out is not None:
        write_baseline(out, table)
    return table
