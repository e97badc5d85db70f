"""COMET as a Hugging Face evaluate module: unbabel-comet's numbers from Unbabel's checkpoints, without
unbabel-comet's pins, with cached source/reference embeddings and reference-free (QE) scoring (nlgmetrics)."""

import warnings

import datasets
import evaluate
from evaluate.module import temp_seed

import nlgmetrics  # From: nlgmetrics
from nlgmetrics.integration import evaluate_support

_CITATION = """\
@inproceedings{rei-etal-2022-comet,
    title = "{COMET}-22: Unbabel-{IST} 2022 Submission for the Metrics Shared Task",
    author = "Rei, Ricardo and C. de Souza, Jos{\\'e} G. and Alves, Duarte and Zerva, Chrysoula and Farinha, Ana C
        and Glushkova, Taisiya and Lavie, Alon and Coheur, Luisa and Martins, Andr{\\'e} F. T.",
    booktitle = "Proceedings of the Seventh Conference on Machine Translation (WMT)",
    year = "2022",
    url = "https://aclanthology.org/2022.wmt-1.52",
    pages = "578--585",
}
@inproceedings{rei-etal-2020-comet,
    title = "{COMET}: A Neural Framework for {MT} Evaluation",
    author = "Rei, Ricardo and Stewart, Craig and Farinha, Ana C and Lavie, Alon",
    booktitle = "Proceedings of the 2020 Conference on Empirical Methods in Natural Language Processing (EMNLP)",
    year = "2020",
    url = "https://www.aclweb.org/anthology/2020.emnlp-main.213",
    pages = "2685--2702",
}
"""

_DESCRIPTION = """\
COMET (Rei et al., 2020; 2022) scores a translation with a model trained on human judgments: a multilingual encoder
(XLM-R, InfoXLM, MiniLM) embeds the source, the translation and the reference, a learned mix of its layers is
pooled into sentence embeddings, and a feed-forward estimator maps their combination to a score; the reference-free
models (COMET-Kiwi) encode translation and source jointly. This module loads Unbabel's published checkpoints (a
folder with hparams.yaml and checkpoints/model.ckpt, or a hub id) and computes unbabel-comet 2.2.7's segment scores
(|diff| < 1e-5 in float32) without installing unbabel-comet or pytorch-lightning, so it works with numpy 2 and
transformers 5. Sources and references are embedded once per distinct text and cached across calls, so scoring many
systems against one test set encodes the shared sides once.
"""

_KWARGS_DESCRIPTION = """
Args:
    sources: list of str, the source sentences.
    predictions: list of str, the translations.
    references: list of str, one reference per translation. Reference-free models (wmt22-cometkiwi-da, comet-qe):
        load the module with that checkpoint as config name and leave references out (the module then has no
        references input); given anyway, they are unused (with a warning).
    gpus: int, number of GPUs (HF's argument; 0 = CPU; default: 1 when CUDA is available).
    progress_bar: bool, show a progress bar (default False).
    model: str, the checkpoint: a local folder (hparams.yaml + checkpoints/model.ckpt) or a hub id; default the
        config name ('default' = 'Unbabel/wmt22-comet-da').
    encoder: str, a folder with the encoder's config and tokenizer, when they are not in the Hugging Face cache.
    batch_size: int, sequences per encoder forward (default 16). device: 'cpu', 'cuda', ... (overrides gpus).
    dtype: None (float32) or 'bfloat16'/'float16' (autocast on CUDA).
    precision: 'float32' (default: unbabel-comet's Python predict()) or 'half' (float16 weights and arithmetic, as
        comet-score, comet-compare and comet-mbr 2.2.5+ compute after model.half()).
    enable_context: bool, unbabel-comet's enable_context (comet-score --enable-context; estimators with average
        pooling): each text holds its preceding sentences before the separator token ("previous. </s> current.").
    decoding_threshold: XCOMET's error-span decoding: None (argmax) or a number in [0, 1].
    return_signature: bool, also return `signature` (model, weights digest, references, dtype, precision, version).
    return_details: bool, return every key the core computes: `signature`, and for XCOMET `error_spans` (per
        segment, unbabel-comet's metadata.error_spans: text, confidence, severity, start, end).
    n_bootstrap: int, also return a seeded 95% bootstrap interval of mean_score (mean_score_ci_low/high, ...).
    distributed: sharded encoding under torch.distributed: True, 'auto' (when initialised with several ranks) or
        False (default None: off unless inside nlgmetrics.embed.distributed.sharded_encoding()).
Returns:
    mean_score: the system score, the mean of the segment scores (HF's key).
    scores: one score per segment (HF's key).
    error_spans (XCOMET, with return_details=True): per segment, a list of {text, confidence, severity, start, end}.
Examples:
    The checkpoint is a local folder in Unbabel's layout or a hub id (online, or in the Hugging Face cache); no
    checkpoint ships with nlgmetrics, so the scoring calls are not run here (tests/test_comet.py runs them on
    checkpoints built in the test).

    >>> sources = ["Dem Feuer konnte Einhalt geboten werden", "Schulen und Kindergärten wurden eröffnet."]
    >>> predictions = ["The fire could be stopped", "Schools and kindergartens were open"]
    >>> references = ["They were able to control the fire.", "Schools and kindergartens opened"]
    >>> comet = evaluate.load("./metrics/comet", "Unbabel/wmt22-comet-da")  # doctest: +SKIP
    >>> result = comet.compute(sources=sources, predictions=predictions, references=references)  # doctest: +SKIP
    >>> sorted(result)  # doctest: +SKIP
    ['mean_score', 'scores']

    Reference-free checkpoints (COMET-Kiwi, comet-qe) take no references; the config name tells which:

    >>> reference_free("Unbabel/wmt22-cometkiwi-da"), reference_free("Unbabel/wmt22-comet-da")
    (True, False)
    >>> kiwi = evaluate.load("./metrics/comet", "Unbabel/wmt22-cometkiwi-da")  # doctest: +SKIP
    >>> kiwi.compute(sources=sources, predictions=predictions)["scores"]  # doctest: +SKIP

    A folder that is not a COMET checkpoint (here the checkout's ./metrics) is an error that says what one looks
    like:

    >>> evaluate.load("./metrics/comet", "./metrics").compute(
    ...     sources=sources, predictions=predictions, references=references)
    Traceback (most recent call last):
    ...
    nlgmetrics.errors.CheckpointError: COMET: model metrics is not a COMET checkpoint folder: Unbabel's layout is hparams.yaml and checkpoints/model.ckpt inside one folder, as downloaded from the hub. Pass a COMET checkpoint folder (hparams.yaml and checkpoints/model.ckpt; e.g. hf download Unbabel/wmt22-comet-da --local-dir DIR) or a hub id such as Unbabel/wmt22-comet-da.
"""

_QE_NAMES = ("cometkiwi", "comet-qe", "comet_qe", "-qe-")


def reference_free(config_name):
    """Whether checkpoint ``config_name`` scores without references: its hparams say so (a local folder), or its
    hub id names a QE model (cometkiwi, comet-qe)."""
    from pathlib import Path

    from nlgmetrics.learned.comet_checkpoint import HPARAMS, CheckpointError, read_hparams

    folder = Path(config_name).expanduser()
    if folder.is_file():
        folder = folder.parents[1]
    if (folder / HPARAMS).is_file():
        try:
            hparams = read_hparams(folder)
        except CheckpointError:
            return False
        kind = hparams["class_identifier"]
        return kind == "referenceless_regression_metric" or (
            kind == "unified_metric" and "ref" not in (hparams.get("input_segments") or ["mt", "src", "ref"]))
    return any(name in str(config_name).lower() for name in _QE_NAMES)


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class COMET(evaluate_support.NLGMetric):
    metric_name = "comet"

    def _info(self):
        columns = {"sources": datasets.Value("string", id="sequence"),
                   "predictions": datasets.Value("string", id="sequence")}
        if not reference_free(self.config_name):
            columns["references"] = datasets.Value("string", id="sequence")
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            homepage="https://unbabel.github.io/COMET/html/index.html",
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features(columns),
            codebase_urls=["https://github.com/Unbabel/COMET"],
            reference_urls=["https://github.com/Unbabel/COMET", "https://aclanthology.org/2022.wmt-1.52/",
                            "https://www.aclweb.org/anthology/2020.emnlp-main.213/"],
        )

    @property
    def _takes_references(self):
        return "references" in self.features

    def _checked(self, predictions, references, sources):
        from nlgmetrics.inputs import check_predictions, check_references

        predictions = check_predictions(predictions)
        sources = check_predictions(sources, "sources") if sources is not None else None
        if references is not None:
            references = [group[0] if len(group) == 1 else group
                          for group in check_references(references, len(predictions))]
        return predictions, references, sources

    def add_batch(self, *, predictions=None, references=None, sources=None, **kwargs):
        """Add a batch of sources, predictions and (unless the model is reference-free) references."""
        predictions, references, sources = self._checked(predictions, references, sources)
        if references is not None and not self._takes_references:
            warnings.warn(f"COMET checkpoint {self.config_name} is reference-free: the references are not used.",
                          UserWarning, stacklevel=2)
        inputs = {"predictions": predictions, "sources": sources}
        if self._takes_references:
            inputs["references"] = references
        with self._module_lock:
            return evaluate.Metric.add_batch(self, **inputs, **kwargs)

    def add(self, *, prediction=None, reference=None, source=None, **kwargs):
        """Add one source, prediction and (unless the model is reference-free) reference."""
        (prediction,), references, (source,) = self._checked([prediction], None if reference is None else [reference],
                                                             [source])
        reference = references[0] if references is not None and self._takes_references else None
        with self._module_lock:
            return evaluate.Metric.add(self, prediction=prediction, reference=reference, sources=source, **kwargs)

    def compute(self, *, predictions=None, references=None, sources=None, **kwargs):
        """Compute COMET on what was added and/or the given inputs (see the module docstring)."""
        self._check_options(kwargs)
        given = any(value is not None for value in (predictions, references, sources))
        if given:
            predictions, references, sources = self._checked(predictions, references, sources)
        with self._module_lock:
            if not given or self.num_process != 1 or self.writer is not None:  # evaluate's path: what was added too
                inputs = {"predictions": predictions, "sources": sources}
                if self._takes_references:
                    inputs["references"] = references
                return evaluate.Metric.compute(self, **inputs, **kwargs)
        with evaluate_support._SEEDED_COMPUTE, temp_seed(self.seed):
            return self._compute(predictions=predictions, references=references, sources=sources, **kwargs)

    def _compute(self, predictions, references=None, sources=None, gpus=None, progress_bar=False, model=None,
                 encoder=None, batch_size=16, device=None, dtype=None, return_signature=False, n_bootstrap=None,
                 distributed=None, precision="float32", enable_context=False, decoding_threshold=None,
                 return_details=False):
        from nlgmetrics.learned.comet_checkpoint import DEFAULT_CHECKPOINT
        from nlgmetrics.registry import get_metric

        if model is None:
            model = DEFAULT_CHECKPOINT if self.config_name == "default" else self.config_name
        if gpus is None and device is None:
            import torch

            gpus = 1 if torch.cuda.is_available() else 0
        result = get_metric("comet")(
            predictions, references, sources=sources, model=model, encoder=encoder, batch_size=batch_size,
            device=device, gpus=gpus, dtype=dtype, progress_bar=progress_bar, n_bootstrap=n_bootstrap,
            distributed=distributed, precision=precision, enable_context=enable_context,
            decoding_threshold=decoding_threshold,
        )
        if not isinstance(return_details, bool):
            raise TypeError(f"comet: return_details must be True or False, got {return_details!r:.40}.")
        if return_details:
            return result
        keep = {"mean_score", "scores"}
        if return_signature:
            keep.add("signature")
        if n_bootstrap:
            keep |= {key for key in result if key.startswith("mean_score_")}
        return {key: value for key, value in result.items() if key in keep}
