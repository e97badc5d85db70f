"""METEOR as a Hugging Face evaluate module, nltk-exact, offline, with per-example scores (nlgmetrics)."""

import datasets
import evaluate

import nlgmetrics  # From: nlgmetrics
from nlgmetrics.integration import evaluate_support

_CITATION = """\
@inproceedings{banarjee2005,
    title = {{METEOR}: An Automatic Metric for {MT} Evaluation with Improved Correlation with Human Judgments},
    author = {Banerjee, Satanjeev and Lavie, Alon},
    booktitle = {Proceedings of the {ACL} Workshop on Intrinsic and Extrinsic Evaluation Measures for Machine
        Translation and/or Summarization},
    month = jun,
    year = {2005},
    address = {Ann Arbor, Michigan},
    publisher = {Association for Computational Linguistics},
    url = {https://www.aclweb.org/anthology/W05-0909},
    pages = {65--72},
}
"""

_DESCRIPTION = """\
METEOR (Banerjee & Lavie, 2005) aligns the words of a candidate with a reference in three stages (exact words, Porter
stems, WordNet synonyms), then combines unigram precision P and recall R into a recall-weighted harmonic mean and
multiplies it by a fragmentation penalty: METEOR = (1 - gamma (chunks / matches)^beta) * P R / (alpha P + (1 - alpha)
R). With several references the best score counts. This module gives, example for example, the numbers of nltk 3.10's
meteor_score on nltk word_tokenize tokens (what HF evaluate's `meteor` computes), offline: WordNet 3.0 and nltk's
Punkt tables come from Python packages and nothing is downloaded. Besides the mean (`meteor`) it returns every
example's score (`scores`).
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions: list of str, one candidate per example.
    references: list of str (one reference per example) or list of list of str (any number per example; the best
        reference counts).
    alpha: float in [0, 1], weight of precision against recall (default 0.9).
    beta: float >= 0, shape of the fragmentation penalty (default 3).
    gamma: float in [0, 1], weight of the fragmentation penalty (default 0.5).
    tokenize: 'nltk' (default: nltk word_tokenize, as HF evaluate's meteor) or 'whitespace' (pre-tokenized text).
    sentence_scores: bool, also return each example's METEOR in `scores` (default False).
    return_signature: bool, also return `signature`, the parameters the scores were computed with (default False).
    return_details: bool, return every key nlgmetrics computes (default False).
Returns:
    meteor: mean METEOR over the examples (HF evaluate's key, the only one with HF's arguments).
    scores (with sentence_scores): METEOR of each example, in order. signature (with return_signature).
Examples:
    >>> meteor = evaluate.load("./metrics/meteor")
    >>> predictions = ["It is a guide to action which ensures that the military always obeys the commands of the party",
    ...                "The cat sat on the mat."]
    >>> references = [["It is a guide to action that ensures that the military will forever heed Party commands",
    ...                "It is the guiding principle which guarantees the military forces always being under the command of the Party"],
    ...               "A cat was sitting on the mat."]
    >>> result = meteor.compute(predictions=predictions, references=references, sentence_scores=True)
    >>> round(result["meteor"], 4), [round(s, 4) for s in result["scores"]]
    (0.7199, [0.6944, 0.7454])
    >>> result = meteor.compute(predictions=predictions, references=references, alpha=0.85, beta=0.2, gamma=0.6,
    ...                         return_signature=True)
    >>> round(result["meteor"], 4), result["signature"]
    (0.3739, 'alpha:0.85|beta:0.2|gamma:0.6|tok:nltk|wordnet:3.0|version:nlgmetrics-0.1.0')
    >>> meteor.compute(predictions=[""], references=["An empty prediction scores zero."])
    {'meteor': 0.0}
"""


#: what HF evaluate's ``meteor`` returns: with HF's arguments alone, exactly this key (the rest on request)
HF_KEYS = ("meteor",)


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Meteor(evaluate_support.NLGMetric):
    metric_name = "meteor"

    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=evaluate_support.text_pair_features(),
            codebase_urls=["https://github.com/nltk/nltk/blob/develop/nltk/translate/meteor_score.py"],
            reference_urls=[
                "https://www.nltk.org/api/nltk.translate.meteor_score.html",
                "https://en.wikipedia.org/wiki/METEOR",
            ],
        )

    def _compute(self, predictions, references, alpha=0.9, beta=3, gamma=0.5, tokenize="nltk", sentence_scores=False,
                 return_signature=False, return_details=False):
        return evaluate_support.compute_metric(
            "meteor", predictions, references, hf_keys=HF_KEYS, return_signature=return_signature,
            return_details=return_details, alpha=alpha, beta=beta, gamma=gamma, tokenize=tokenize,
            sentence_scores=sentence_scores,
        )
