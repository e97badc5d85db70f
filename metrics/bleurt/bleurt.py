"""BLEURT as a Hugging Face evaluate module: the published PyTorch checkpoints, bleurt-pytorch-exact, no TensorFlow
(nlgmetrics)."""

import evaluate

import nlgmetrics  # From: nlgmetrics
from nlgmetrics.integration import evaluate_support

_CITATION = """\
@inproceedings{bleurt,
  title={BLEURT: Learning Robust Metrics for Text Generation},
  author={Thibault Sellam and Dipanjan Das and Ankur P. Parikh},
  booktitle={ACL},
  year={2020},
  url={https://arxiv.org/abs/2004.04696}
}
@inproceedings{pu-etal-2021-learning,
  title={Learning Compact Metrics for {MT}},
  author={Pu, Amy and Chung, Hyung Won and Parikh, Ankur and Gehrmann, Sebastian and Sellam, Thibault},
  booktitle={EMNLP},
  year={2021}
}
"""

_DESCRIPTION = """\
BLEURT (Sellam et al., 2020) is a learned metric: a BERT-style regression model reads the pair [CLS] reference [SEP]
candidate [SEP] and outputs one score (higher is better; roughly 0-1 for BLEURT-20, unbounded). This module loads the
PyTorch ports of the published checkpoints (lucadiliello/BLEURT-20, -D12, -D6, -D3 and bleurt-tiny/base/large-128/512,
the layout bleurt-pytorch reads) or any local folder in that layout, and reproduces bleurt-pytorch 0.0.1's scores
(|diff| <= 1e-5 in float32) without TensorFlow or the BLEURT repository. Pairs run length-sorted and padding-free;
pairs over the checkpoint's 512 tokens are truncated as BLEURT's encoder does, with a warning.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions: list of str, one candidate per example.
    references: list of str (one reference per example) or list of list of str (any number; see multi_ref).
    checkpoint: the checkpoint (overrides the config name given to evaluate.load): an HF evaluate config name
        ('bleurt-base-128' = 'default', 'bleurt-tiny-512', ..., 'BLEURT-20', 'BLEURT-20-D3', any case), a hub id
        (online, or already in the hub cache) or a local folder.
    batch_size: int, pairs per forward pass (default 32).
    max_length: int, tokens per pair before truncation (default: the checkpoint's, 512; 128 reproduces TensorFlow
        BLEURT on the legacy '-128' checkpoints).
    device: str, e.g. 'cpu', 'cuda' (default: CUDA when available).
    dtype: None/'float32' (default) or 'bfloat16'/'float16' (autocast on CUDA only).
    multi_ref: 'max' (default) or 'mean' over several references per example.
    details: bool, also return the mean ('bleurt') and the signature (default False: HF's keys only).
    n_bootstrap: int, resamples for a seeded 95% interval of the mean (adds bleurt_mean/ci/low/high; default 0).
    seed: int, bootstrap seed (default 12345).
    return_signature: bool, also return `signature`: the checkpoint's name and weights digest, max_len, multi_ref,
        precision and library versions (default False).
Returns:
    scores: list of float, BLEURT of each example (HF evaluate's key).
    bleurt, signature: with details=True or n_bootstrap; signature with return_signature=True.
Examples:
    The checkpoint (HF's config names, a hub id or a local folder) is read at the first compute; none ships with
    nlgmetrics, so the scoring call is not run here (tests/test_bleurt.py runs it on checkpoints built in the test).

    >>> bleurt = evaluate.load("./metrics/bleurt", "BLEURT-20")
    >>> bleurt.config_name
    'BLEURT-20'
    >>> bleurt.compute(predictions=["hello there", "general kenobi"],
    ...                references=["hello there", "general kenobi"])  # doctest: +SKIP
    {'scores': [1.03..., 1.04...]}

    A folder that is not a BLEURT checkpoint (here the checkout's ./metrics) is an error that says what one looks
    like:

    >>> evaluate.load("./metrics/bleurt", "./metrics").compute(predictions=["hello there"], references=["hello there"])
    Traceback (most recent call last):
    ...
    nlgmetrics.errors.CheckpointError: bleurt: checkpoint metrics is not a BLEURT checkpoint: it has no config.json. Pass the folder of a BleurtForSequenceClassification checkpoint (e.g. lucadiliello/BLEURT-20).
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class BLEURT(evaluate_support.NLGMetric):
    metric_name = "bleurt"

    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            homepage="https://github.com/google-research/bleurt",
            inputs_description=_KWARGS_DESCRIPTION,
            features=evaluate_support.text_pair_features(),
            codebase_urls=["https://github.com/google-research/bleurt", "https://github.com/lucadiliello/bleurt-pytorch"],
            reference_urls=["https://arxiv.org/abs/2004.04696", "https://arxiv.org/abs/2110.06341"],
        )

    def _compute(
        self, predictions, references, checkpoint=None, batch_size=32, max_length=None, device=None, dtype=None,
        multi_ref="max", details=False, n_bootstrap=0, seed=12345, return_signature=False,
    ):
        if checkpoint is None and self.config_name != "default":
            checkpoint = self.config_name
        result = evaluate_support.compute_metric(
            "bleurt", predictions, references, checkpoint=checkpoint, batch_size=batch_size, max_length=max_length,
            device=device, dtype=dtype, multi_ref=multi_ref, n_bootstrap=n_bootstrap, seed=seed,
        )
        if details or n_bootstrap:
            return result
        return {"scores": result["scores"], **({"signature": result["signature"]} if return_signature else {})}
