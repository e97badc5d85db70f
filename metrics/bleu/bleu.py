"""BLEU as a Hugging Face evaluate module, sacrebleu-exact (nlgmetrics)."""

import datasets
import evaluate

import nlgmetrics  # From: nlgmetrics
from nlgmetrics.integration import evaluate_support

_CITATION = """\
@inproceedings{papineni-etal-2002-bleu,
    title = "{B}leu: a Method for Automatic Evaluation of Machine Translation",
    author = "Papineni, Kishore and Roukos, Salim and Ward, Todd and Zhu, Wei-Jing",
    booktitle = "Proceedings of the 40th Annual Meeting of the Association for Computational Linguistics",
    year = "2002",
    pages = "311--318",
}
@inproceedings{post-2018-call,
    title = "A Call for Clarity in Reporting {BLEU} Scores",
    author = "Post, Matt",
    booktitle = "Proceedings of the Third Conference on Machine Translation: Research Papers",
    year = "2018",
    pages = "186--191",
}
"""

_DESCRIPTION = """\
BLEU (Papineni et al., 2002) scores a candidate translation by its modified n-gram precisions (n = 1..4) against one
or more references, combined by a geometric mean and multiplied by a brevity penalty. This module computes exactly the
numbers of sacrebleu 2.6 (tokenizers 13a, intl, zh, char, none; smoothing exp, floor, add-k, none), offline and without
sacrebleu, and returns a sacrebleu-style signature with every score.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions: list of str, one translation per example.
    references: list of str (one reference per example) or list of list of str (any number per example).
    tokenize: '13a' (default), 'intl', 'zh', 'char' or 'none'.
    lowercase: bool, lowercase before tokenizing (default False).
    smooth_method: 'exp' (default), 'floor', 'add-k' or 'none'.
    smooth_value: float, for 'floor' (default 0.1) and 'add-k' (default 1).
    max_ngram_order: int, highest n-gram order (default 4).
    effective_order: bool, ignore orders with no n-grams (default False; sentence scores use True).
    sentence_scores: bool, also return per-example sentence BLEU in `scores` (default False).
    n_bootstrap: int, if >= 2, a seeded bootstrap 95% interval over segments (default 0: none).
    seed: int, the bootstrap seed (default 12345, as sacrebleu).
Returns:
    bleu: corpus BLEU in [0, 1] (HF evaluate's key); score: the same on sacrebleu's 0-100 scale.
    precisions: n-gram precisions in [0, 1]; brevity_penalty; length_ratio; translation_length; reference_length.
    counts, totals, sys_len, ref_len: sacrebleu's statistics; signature: how the score was computed.
    scores (with sentence_scores=True); score_mean, score_ci, score_low, score_high (with n_bootstrap).
Examples:
    >>> bleu = evaluate.load("./metrics/bleu")
    >>> predictions = ["The cat sat on the mat.", "Look at the dog over there!"]
    >>> references = [["The cat sat on the mat."], ["Look at that dog over there!", "See the dog there!"]]
    >>> result = bleu.compute(predictions=predictions, references=references)
    >>> round(result["score"], 2), round(result["bleu"], 4), result["counts"]
    (79.58, 0.7958, [14, 11, 7, 5])
    >>> result["signature"]
    'nrefs:var|case:mixed|eff:no|tok:13a|smooth:exp|version:nlgmetrics-0.1.0'
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Bleu(evaluate_support.NLGMetric):
    metric_name = "bleu"

    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=evaluate_support.text_pair_features(),
            codebase_urls=["https://github.com/mjpost/sacrebleu"],
            reference_urls=["https://aclanthology.org/P02-1040/", "https://aclanthology.org/W18-6319/"],
        )

