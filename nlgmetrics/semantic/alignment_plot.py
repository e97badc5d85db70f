"""Token-alignment heatmaps (PNG): MoverScore's transport flow or BERTScore's token similarities.

- ``metric="moverscore"``: the optimal flow ``P_ij`` from reference token i to prediction token j (rows: reference
  tokens, columns: prediction tokens, ``[CLS]``/``[SEP]`` included; zero-mass tokens carry no flow), with the pair's
  score in the title. One pair has no corpus to take idf from, so every token weighs 1 unless ``idf`` (a dict
  ``token id -> weight`` used for both sides) is given, as MoverScore v2's ``plot_example`` does.
- ``metric="bertscore"``: the cosine similarity ``cos(x_i, y_j)`` of the reference and prediction token embeddings
  at the chosen layer (special tokens left out, as bert_score's ``plot_example``).

matplotlib is an optional extra (``pip install matplotlib``); the error says so when it is missing.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from nlgmetrics.errors import OptionError, OptionTypeError

PLOT_METRICS = ("moverscore", "bertscore")


def _pyplot():
    try:
        import matplotlib

        matplotlib.use("Agg", force=False)
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError(
            "alignment plots need matplotlib, an optional extra: pip install matplotlib (or 'nlgmetrics[plot]')."
        ) from None
    return plt


def alignment_matrix(
    prediction: str,
    reference: str,
    *,
    metric: str = "moverscore",
    model_type: str | None = None,
    num_layers: int | None = None,
    idf: Mapping[int, float] | None = None,
    device: str | None = None,
    **moverscore_options,
) -> dict:
    """The numbers behind the picture: ``reference_tokens``, ``prediction_tokens``, ``matrix`` (rows: reference
    tokens), ``title``; plus ``score`` (MoverScore) for ``metric="moverscore"``."""
    if not isinstance(prediction, str) or not isinstance(reference, str):
        raise OptionTypeError("prediction and reference must be strings (one pair).")
    if metric == "moverscore":
        from nlgmetrics.semantic.moverscore import MoverScorer

        scorer = MoverScorer(model_type, num_layers, device=device, **moverscore_options)
        al = scorer.alignment(prediction, reference, idf=idf)
        weights = "idf weights given" if idf is not None else "every token weighing 1"
        return {"reference_tokens": al["reference_tokens"], "prediction_tokens": al["prediction_tokens"],
                "matrix": al["flow"], "score": al["score"],
                "title": f"MoverScore flow (score {al['score']:.4f}, layer {scorer.layer})",
                "heading": f"MoverScore flow (layer {scorer.layer}, {weights})"}
    if metric == "bertscore":
        from nlgmetrics.embed import default_layer, get_encoder
        from nlgmetrics.resources import BUNDLED_ENCODER_ID

        name = model_type or BUNDLED_ENCODER_ID
        encoder = get_encoder(name, device=device)
        layer = num_layers if num_layers is not None else (default_layer(name) or encoder.num_hidden_layers)
        (pred_ids, pred_emb), (ref_ids, ref_emb) = encoder.embed([prediction, reference], layer)
        n_pre, n_suf = len(encoder.prefix_ids), len(encoder.suffix_ids)

        def strip(ids, emb):
            stop = len(ids) - n_suf
            e = emb[n_pre:stop].double().numpy()
            return encoder.tokenizer.convert_ids_to_tokens(list(ids[n_pre:stop])), e / (
                np.linalg.norm(e, axis=1, keepdims=True) + 1e-30)

        pt, pe = strip(pred_ids, pred_emb)
        rt, re = strip(ref_ids, ref_emb)
        return {"reference_tokens": rt, "prediction_tokens": pt, "matrix": re @ pe.T,
                "title": f"BERTScore token similarity (layer {layer})",
                "heading": f"BERTScore token similarity (layer {layer})"}
    raise OptionError(f"metric must be one of {PLOT_METRICS}, got {metric!r}.")


def plot_alignment(
    prediction: str,
    reference: str,
    path: str | os.PathLike,
    *,
    metric: str = "moverscore",
    model_type: str | None = None,
    num_layers: int | None = None,
    idf: Mapping[int, float] | None = None,
    device: str | None = None,
    dpi: int = 150,
    score: float | None = None,
    **moverscore_options,
) -> Path:
    """Write a PNG heatmap of one pair's token alignment to ``path`` and return the path written (``.png`` added to
    a name without a suffix; an existing file is replaced only if it is a PNG image: :mod:`nlgmetrics._outputs`).

    ``metric``: 'moverscore' (transport flow; ``moverscore_options`` such as ``distance``, ``stop_words``,
    ``remove_subwords``, ``solver``, ``relaxed`` pass through) or 'bertscore' (cosine similarity). Rows are the
    reference's tokens, columns the prediction's. ``score``: the pair's score as a run reported it (MoverScore, or
    BERTScore F1), shown in the title instead of the plotted computation's own (which weighs every token 1 unless
    ``idf`` is given, so it can differ from a run with idf).
    """
    from nlgmetrics._outputs import figure_target, save_figure

    figure_target(path, formats=("png",))  # checked before any work
    data = alignment_matrix(prediction, reference, metric=metric, model_type=model_type, num_layers=num_layers,
                            idf=idf, device=device, **moverscore_options)
    plt = _pyplot()
    rt, pt, matrix = data["reference_tokens"], data["prediction_tokens"], data["matrix"]
    width = min(max(4.0, 0.45 * len(pt) + 2.5), 40.0)
    height = min(max(3.0, 0.4 * len(rt) + 2.0), 40.0)
    fig, ax = plt.subplots(figsize=(width, height))
    try:
        image = ax.imshow(matrix, cmap="Blues", aspect="auto")
        ax.set_xticks(np.arange(len(pt)))
        ax.set_yticks(np.arange(len(rt)))
        ax.set_xticklabels(pt, fontsize=9, rotation=45, ha="right", rotation_mode="anchor")
        ax.set_yticklabels(rt, fontsize=9)
        ax.set_xlabel("prediction")
        ax.set_ylabel("reference")
        title = data["title"] if score is None else f"{data['heading']}\nthis pair's score in the run: {score:.4f}"
        ax.set_title(title, fontsize=11)
        fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
        fig.tight_layout()
        out = save_figure(fig, path, formats=("png",), dpi=dpi)
    finally:
        plt.close(fig)
    return out
