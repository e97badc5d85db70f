"""chrF and chrF++ as a Hugging Face evaluate module, sacrebleu-exact (nlgmetrics)."""

import evaluate

import nlgmetrics  # From: nlgmetrics
from nlgmetrics.integration import evaluate_support

_CITATION = """\
@inproceedings{popovic-2015-chrf,
    title = "chr{F}: character n-gram {F}-score for automatic {MT} evaluation",
    author = "Popovi{\\'c}, Maja",
    booktitle = "Proceedings of the Tenth Workshop on Statistical Machine Translation",
    year = "2015",
    pages = "392--395",
}
@inproceedings{popovic-2017-chrf,
    title = "chr{F}++: words helping character n-grams",
    author = "Popovi{\\'c}, Maja",
    booktitle = "Proceedings of the Second Conference on Machine Translation",
    year = "2017",
    pages = "612--618",
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
chrF (Popović, 2015) is the F-score of character n-gram matches (orders 1..6) between a translation and its
reference, with recall weighted beta = 2 times as much as precision; chrF++ (Popović, 2017) adds word unigrams and
bigrams. This module computes exactly the numbers of sacrebleu 2.6's CHRF (and so of HF evaluate's `chrf`), offline
and without sacrebleu, accepts any number of references per prediction (varying per example), and returns a
sacrebleu-style signature, per-example sentence scores and a seeded bootstrap interval on request.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions: list of str, one translation per example.
    references: list of str (one reference per example) or list of list of str (any number per example; each
        prediction keeps the reference with its best sentence score).
    char_order: int, character n-gram order (default 6).
    word_order: int, word n-gram order (default 0; 2 gives chrF++).
    beta: number, recall is beta times as important as precision (default 2).
    lowercase: bool, case-insensitive (default False).
    whitespace: bool, keep whitespace in character n-grams (default False).
    eps_smoothing: bool, chrF++.py/Moses/NLTK epsilon smoothing over all orders instead of sacrebleu's default
        average over the orders that have n-grams (default False).
    sentence_scores: bool, also return per-example sentence chrF in `scores` (default False).
    n_bootstrap: int, if >= 2, a seeded bootstrap 95% interval over segments (default 0: none).
    seed: int, the bootstrap seed (default 12345, as sacrebleu).
    return_signature: bool, also return `signature`, how the score was computed (default False).
    return_details: bool, return every key nlgmetrics computes (default False).
Returns:
    score: corpus chrF (chrF++), 0-100; char_order, word_order, beta: as given (HF evaluate's keys, the only ones
    with HF's arguments). signature (with return_signature).
    scores (with sentence_scores=True); score_mean, score_ci, score_low, score_high (with n_bootstrap).
Examples:
    >>> chrf = evaluate.load("./metrics/chrf")
    >>> prediction = ["The relationship between cats and dogs is not exactly friendly.",
    ...               "a good bookshop is just a genteel black hole that knows how to read."]
    >>> reference = [["The relationship between dogs and cats is not exactly friendly."],
    ...              ["A good bookshop is just a genteel Black Hole that knows how to read."]]
    >>> results = chrf.compute(predictions=prediction, references=reference)
    >>> results
    {'score': 84.64214891738334, 'char_order': 6, 'word_order': 0, 'beta': 2}
    >>> {k: round(v * 100, 4) for k, v in results.items()}  # transformers' examples post-process results so
    {'score': 8464.2149, 'char_order': 600, 'word_order': 0, 'beta': 200}
    >>> chrf.compute(predictions=prediction, references=reference, word_order=2)["score"]
    82.87263732906315
    >>> chrf.compute(predictions=prediction, references=reference, word_order=2, lowercase=True)["score"]
    92.12853119829202
    >>> several = [reference[0], reference[1] + [prediction[1]]]  # the second prediction also has an exact reference
    >>> results = chrf.compute(predictions=prediction, references=several, word_order=2, sentence_scores=True,
    ...                        n_bootstrap=100, return_signature=True)
    >>> [round(s, 2) for s in results["scores"]], round(results["score"], 2), results["signature"]
    ([83.31, 100.0], 92.13, 'nrefs:var|bs:100|seed:12345|case:mixed|eff:yes|nc:6|nw:2|space:no|version:nlgmetrics-0.1.0')
"""


#: what HF evaluate's ``chrf`` returns: with HF's arguments alone, exactly these keys (the rest on request)
HF_KEYS = ("score", "char_order", "word_order", "beta")


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class ChrF(evaluate_support.NLGMetric):
    metric_name = "chrf"

    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            homepage="https://github.com/mjpost/sacreBLEU#chrf--chrf",
            inputs_description=_KWARGS_DESCRIPTION,
            features=evaluate_support.text_pair_features(),
            codebase_urls=["https://github.com/mjpost/sacreBLEU#chrf--chrf"],
            reference_urls=["https://github.com/m-popovic/chrF", "https://aclanthology.org/W15-3049/",
                            "https://aclanthology.org/W17-4770/"],
        )

    def _compute(
        self,
        predictions,
        references,
        char_order=6,
        word_order=0,
        beta=2,
        lowercase=False,
        whitespace=False,
        eps_smoothing=False,
        sentence_scores=False,
        n_bootstrap=0,
        seed=12345,
        return_signature=False,
        return_details=False,
    ):
        return evaluate_support.compute_metric(
            "chrf", predictions, references, hf_keys=HF_KEYS, return_signature=return_signature,
            return_details=return_details, char_order=char_order, word_order=word_order, beta=beta,
            lowercase=lowercase, whitespace=whitespace, eps_smoothing=eps_smoothing,
            sentence_scores=sentence_scores, n_bootstrap=n_bootstrap, seed=seed,
        )
