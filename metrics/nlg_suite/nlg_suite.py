"""Several nlgmetrics metrics in one pass, each with its own options, as one Hugging Face evaluate module.

Why not ``evaluate.combine``? ``evaluate.combine(["bleu", "rouge"]).compute(predictions=..., references=...,
**kwargs)`` passes the same keyword arguments to every module (evaluate issue #423), so options that belong to one
metric (BLEU's ``tokenize``, ROUGE's ``use_stemmer``, BERTScore's ``model_type``) break the others, and each module
loads and runs on its own. This module takes ``metric_options={"bleu": {...}, "rouge": {...}}``, sends shared
options (``model_type``, ``device``, ``batch_size``, ``dtype``, ``num_layers``) to the metrics that take them, and
runs every metric on nlgmetrics' core in one call: BERTScore and MoverScore share one loaded encoder and one
embedding cache, so with the same model and layer (the bundled encoder's defaults) each text is embedded once.

    combine = evaluate.combine(["./metrics/bleu", "./metrics/rouge"])        # same kwargs for both
    combine.compute(predictions=p, references=r)                            # no per-metric options
    suite = evaluate.load("./metrics/nlg_suite")
    suite.compute(predictions=p, references=r, metrics=["bleu", "rouge", "bertscore"],
                  metric_options={"bleu": {"tokenizer": "intl"}, "rouge": {"use_stemmer": True}})
"""

import datasets
import evaluate

import nlgmetrics  # From: nlgmetrics
from nlgmetrics.integration import evaluate_support
from nlgmetrics.integration import suite
from nlgmetrics.resources import BUNDLED_ENCODER_ID

_CITATION = """\
@misc{nlgmetrics,
  title = {nlgmetrics: text-generation evaluation metrics, reference-exact, fast and offline},
  year = {2026},
}
"""

_DESCRIPTION = """\
One pass over the same predictions and references with several nlgmetrics metrics (BLEU, NIST, ROUGE, METEOR,
BERTScore, MoverScore; whichever this installation has), each with its own options, unlike evaluate.combine, which
passes the same keyword arguments to every module (evaluate #423). The embedding metrics share one encoder and one
embedding cache. The result is a flat dict of floats (bleu, rouge1, ..., meteor, bertscore_f1, moverscore), or every
metric's full result with flat=False.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions: list of str, one candidate per example.
    references: list of str (one reference per example) or list of list of str (any number per example).
    metrics: list of metric names (default: every metric available in this installation).
    metric_options: dict metric -> dict of that metric's options, e.g. {"bleu": {"tokenizer": "zh"}}.
    model_type: str, the encoder of the embedding metrics (default: the bundled offline encoder
        sentence-transformers/all-MiniLM-L6-v2; a metric given its own model_type or lang keeps it).
    num_layers, device, batch_size, dtype: passed to every metric that takes them (the embedding metrics).
    sentence_split: None (default: texts as given), 'regex' or 'punkt': one sentence per line for ROUGE's rougeLsum.
    flat: bool, a flat dict of floats (default True) or {metric: its full result} (False).
    sources: list of str, one source text per prediction, for the metrics that read sources (COMET, MetricX, the
        judge); the others ignore them (default None).
    return_signature: bool, also return `signatures`: {metric: its signature}, the settings behind its numbers
        (default False; with flat=False each result holds its own `signature`).
Returns:
    flat=True: every numeric score of every metric (bleu, bleu_score, rouge1, rouge1_precision, ..., meteor,
    bertscore_precision/recall/f1 as means over examples, moverscore as the mean score).
    flat=False: {metric: the metric's own result dict}, with signatures, hashcodes and per-example lists.
    signatures: {metric: signature} (with return_signature=True).
Examples:
    >>> suite = evaluate.load("./metrics/nlg_suite")
    >>> predictions = ["The cat sat on the mat.", "Look at the dog over there!"]
    >>> references = [["The cat sat on the mat."], ["Look at that dog over there!", "See the dog there!"]]
    >>> result = suite.compute(predictions=predictions, references=references, metrics=["bleu", "rouge"],
    ...                        metric_options={"bleu": {"tokenizer": "intl"}, "rouge": {"rouge_types": ["rouge1", "rougeL"]}})
    >>> {key: round(value, 4) for key, value in result.items() if key in ("bleu", "rouge1", "rougeL")}
    {'bleu': 0.7958, 'rouge1': 0.9167, 'rougeL': 0.9167}
    >>> full = suite.compute(predictions=predictions, references=references, metrics=["bleu"], flat=False)
    >>> full["bleu"]["signature"]
    'nrefs:var|case:mixed|eff:no|tok:13a|smooth:exp|version:nlgmetrics-0.1.0'
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class NLGSuite(evaluate_support.NLGMetric):
    metric_name = "nlg_suite"

    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=evaluate_support.text_pair_features(),
            codebase_urls=["https://github.com/huggingface/evaluate/issues/423"],
            reference_urls=[],
        )

    def _compute(
        self, predictions, references, metrics=None, metric_options=None, model_type=BUNDLED_ENCODER_ID,
        num_layers=None, device=None, batch_size=None, dtype=None, sentence_split=None, flat=True,
        return_signature=False, sources=None,
    ):
        shared = {"model_type": model_type, "num_layers": num_layers, "device": device, "batch_size": batch_size,
                  "dtype": dtype}
        results = suite.compute_suite(
            predictions, references, metrics, metric_options, shared_options=shared, sentence_split=sentence_split,
            sources=sources,
        )
        out = suite.flatten_suite(results) if flat else results
        if return_signature:
            out = {**out, "signatures": suite.suite_signatures(results)}
        return out
