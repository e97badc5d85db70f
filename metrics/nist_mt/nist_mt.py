"""NIST as a Hugging Face evaluate module, nltk corpus_nist-exact (nlgmetrics)."""

import datasets
import evaluate

import nlgmetrics  # From: nlgmetrics
from nlgmetrics.integration import evaluate_support

_CITATION = """\
@inproceedings{doddington-2002-nist,
    title = "Automatic evaluation of machine translation quality using n-gram co-occurrence statistics",
    author = "Doddington, George",
    booktitle = "Proceedings of the Second International Conference on Human Language Technology Research",
    year = "2002",
    pages = "138--145",
}
"""

_DESCRIPTION = """\
NIST (Doddington, 2002) is BLEU's information-weighted variant: each matched n-gram counts by how informative it is
in the references (log2 of how often its prefix occurs over how often it occurs), the per-order precisions are summed
arithmetically rather than averaged geometrically, and the brevity penalty is softer (0.5 at 2/3 of the reference
length). This module computes exactly nltk's corpus_nist on the tokens of nlgmetrics' BLEU tokenizers, offline.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions: list of str, one translation per example.
    references: list of str (one reference per example) or list of list of str (any number per example).
    n: int, highest n-gram order (default 5).
    tokenize: '13a' (default, mteval-v13a), 'intl' (mteval-v14 international), 'zh', 'char' or 'none'.
    lowercase: bool (default False).
    n_bootstrap: int, if >= 2, a seeded bootstrap 95% interval over segments (default 0: none).
    seed: int, the bootstrap seed (default 12345).
Returns:
    nist_mt: corpus NIST (HF evaluate's key); nist: the same value.
    precisions: per-order information precisions (they add up to nist / length_penalty); length_penalty;
    translation_length; reference_length. With n_bootstrap: nist_mean, nist_ci, nist_low, nist_high.
Examples:
    >>> nist = evaluate.load("./metrics/nist")
    >>> predictions = ["It is a guide to action which ensures that the military always obeys the commands of the party."]
    >>> references = [["It is a guide to action that ensures that the military will forever heed Party commands.",
    ...                "It is the guiding principle which guarantees the military forces always being under the command of the Party."]]
    >>> result = nist.compute(predictions=predictions, references=references)
    >>> round(result["nist_mt"], 4), round(result["length_penalty"], 4)
    (3.1232, 1.0)
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Nist(evaluate_support.NLGMetric):
    metric_name = "nist"

    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=evaluate_support.text_pair_features(),
            codebase_urls=["https://github.com/nltk/nltk/blob/develop/nltk/translate/nist_score.py"],
            reference_urls=["https://dl.acm.org/doi/10.5555/1289189.1289273"],
        )

