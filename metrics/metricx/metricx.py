"""MetricX-24 as a Hugging Face evaluate module: google-research/metricx's numbers on the published checkpoints,
reference-based and QE, without the research code (nlgmetrics)."""

import evaluate

import nlgmetrics  # From: nlgmetrics
from nlgmetrics.integration import evaluate_support

_CITATION = """\
@inproceedings{juraska-etal-2024-metricx,
  title={MetricX-24: The Google Submission to the WMT 2024 Metrics Shared Task},
  author={Juraska, Juraj and Deutsch, Daniel and Finkelstein, Mara and Freitag, Markus},
  booktitle={Proceedings of the Ninth Conference on Machine Translation},
  year={2024}
}
"""

_DESCRIPTION = """\
MetricX-24 (Juraska et al., 2024) is a learned MT metric: an mT5 encoder-decoder regression model reads
"source: S candidate: H reference: R" (or, for quality estimation, "source: S candidate: H"; at most 1536 tokens)
and predicts an MQM-like error score, clamped to 0-25: lower is better. This module loads the published
MetricX-24 hybrid checkpoints (google/metricx-24-hybrid-{large,xl,xxl}-v2p6, or a local folder) and reproduces the
predictions of google-research/metricx's own predict.py (|diff| <= 1e-5 in float32), in length-sorted batches.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions: list of str, the translations.
    references: list of str or list of list of str (several: the best, min, counts; see multi_ref). Not read with
        qe=True (pass the sources or empty strings there).
    checkpoint: a checkpoint name ('metricx-24-hybrid-large-v2p6' default, -xl-, -xxl-, their -bfloat16 variants),
        hub id or local folder; also the config name of evaluate.load.
    sources: list of str, the source segments (default: the empty string, as metricx's README allows).
    qe: bool, quality estimation from the sources alone (default False).
    tokenizer: the mT5 tokenizer (default: the checkpoint folder's when it has one, else google/mt5-xl).
    batch_size (8), device, dtype ('bfloat16': CUDA autocast), multi_ref ('min' default, 'mean'),
    n_bootstrap, seed: as in nlgmetrics.learned.metricx.compute_metricx.
Returns:
    metricx: mean error (lower is better); scores: one per example (0-25); signature.
Examples:
    The checkpoint (a config name as below, a hub id or a local folder) is read at the first compute; none ships
    with nlgmetrics, so the scoring calls are not run here (tests/test_metricx.py runs them on a checkpoint built in
    the test). Scores are errors: lower is better.

    >>> metricx = evaluate.load("./metrics/metricx", "metricx-24-hybrid-large-v2p6")
    >>> metricx.compute(predictions=["Das ist gut."], references=["Das ist gut."],
    ...                 sources=["That is good."])  # doctest: +SKIP
    {'metricx': 0.3..., 'scores': [0.3...], 'signature': '...'}

    Quality estimation (``qe=True``) reads the source instead of a reference, so it needs sources; that is checked
    before the checkpoint is loaded:

    >>> metricx.compute(predictions=["Das ist gut."], references=[""], qe=True)
    Traceback (most recent call last):
    ...
    ValueError: metricx: qe=True scores a translation from its source: pass sources=[...], one per prediction.
    >>> metricx.compute(predictions=["Das ist gut."], references=[""], sources=["That is good."],
    ...                 qe=True)  # doctest: +SKIP
    {'metricx': ..., 'scores': [...], 'signature': '...'}
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class MetricX(evaluate_support.NLGMetric):
    metric_name = "metricx"

    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            homepage="https://github.com/google-research/metricx",
            inputs_description=_KWARGS_DESCRIPTION,
            features=evaluate_support.text_pair_features(),
            codebase_urls=["https://github.com/google-research/metricx"],
            reference_urls=["https://aclanthology.org/2024.wmt-1.35/"],
        )

    def _compute(
        self, predictions, references, checkpoint=None, sources=None, qe=False, tokenizer=None, batch_size=8,
        device=None, dtype=None, multi_ref="min", n_bootstrap=0, seed=12345,
    ):
        if checkpoint is None and self.config_name != "default":
            checkpoint = self.config_name
        return evaluate_support.compute_metric(
            "metricx", predictions, None if qe else references, checkpoint=checkpoint, sources=sources, qe=qe,
            tokenizer=tokenizer, batch_size=batch_size, device=device, dtype=dtype, multi_ref=multi_ref,
            n_bootstrap=n_bootstrap, seed=seed,
        )
