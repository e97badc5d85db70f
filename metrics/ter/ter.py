"""TER as a Hugging Face evaluate module, sacrebleu-exact (nlgmetrics)."""

import datasets
import evaluate

import nlgmetrics  # From: nlgmetrics
from nlgmetrics.integration import evaluate_support

_CITATION = """\
@inproceedings{snover-etal-2006-study,
    title = "A Study of Translation Edit Rate with Targeted Human Annotation",
    author = "Snover, Matthew and Dorr, Bonnie and Schwartz, Rich and Micciulla, Linnea and Makhoul, John",
    booktitle = "Proceedings of the 7th Conference of the Association for Machine Translation in the Americas",
    year = "2006",
    pages = "223--231",
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
TER (Translation Edit Rate; Snover et al., 2006) counts the edits (insertions, deletions, substitutions of words and
shifts of word blocks) that turn a hypothesis into its closest reference, divided by the average reference length.
This module computes exactly the numbers of sacrebleu 2.6's TER (its Tercom tokenizer, beam-limited edit distance and
shift search, edit for edit), offline and without sacrebleu, takes HF evaluate's `ter` arguments, accepts a varying
number of references per prediction, and returns a sacrebleu-style signature with every score.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions: list of str, one translation per example.
    references: list of str (one reference per example) or list of list of str (any number per example).
    normalized: bool, Tercom normalization: punctuation split off, XML entities unescaped (default False).
    ignore_punct: bool, remove punctuation (default False).
    support_zh_ja_chars: bool, with normalized, split Chinese and Japanese characters; with ignore_punct, also
        remove CJK and full-width punctuation (default False).
    case_sensitive: bool, keep case (default False: everything is lowercased).
    sentence_scores: bool, also return per-example sentence TER in `scores` (default False).
    n_bootstrap: int, if >= 2, a seeded bootstrap 95% interval over segments (default 0: none).
    seed: int, the bootstrap seed (default 12345, as sacrebleu).
    return_signature: bool, also return `signature`, how the score was computed (default False).
    return_details: bool, return every key nlgmetrics computes (default False).
Returns:
    score: corpus TER, 100 * num_edits / ref_length (lower is better; it can exceed 100).
    num_edits: the edits summed over examples (each example's fewest over its references).
    ref_length: the examples' average reference lengths, summed. (HF's keys, the only ones with HF's arguments.)
    signature (with return_signature); scores (with sentence_scores); score_mean, score_ci, score_low,
    score_high (with n_bootstrap).
Examples:
    >>> ter = evaluate.load("./metrics/ter")
    >>> predictions = ["does this sentence match??", "what about this sentence?",
    ...                "What did the TER metric user say to the developer?"]
    >>> references = [["does this sentence match", "does this sentence match!?!"],
    ...               ["wHaT aBoUt ThIs SeNtEnCe?", "wHaT aBoUt ThIs SeNtEnCe?"],
    ...               ["Your jokes are...", "...TERrible"]]
    >>> result = ter.compute(predictions=predictions, references=references, case_sensitive=True)
    >>> result["score"], result["num_edits"], result["ref_length"]
    (150.0, 15, 10.0)
    >>> result = ter.compute(predictions=predictions[:2], references=references[:2], normalized=True,
    ...                      case_sensitive=True, sentence_scores=True, return_signature=True)
    >>> round(result["score"], 4), result["num_edits"], result["ref_length"], result["scores"]
    (57.1429, 6, 10.5, [36.36363636363637, 80.0])
    >>> result["signature"]
    'nrefs:2|case:mixed|tok:tercom|norm:yes|punct:yes|asian:no|version:nlgmetrics-0.1.0'
    >>> ter.compute(predictions=["the cat sat", "a dog"], references=[["the cat sat down"], ["one dog", "a dog", "dogs"]],
    ...             ignore_punct=True)["score"]
    17.64705882352941
"""


#: what HF evaluate's ``ter`` returns: with HF's arguments alone, exactly these keys (the rest on request)
HF_KEYS = ("score", "num_edits", "ref_length")


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Ter(evaluate_support.NLGMetric):
    metric_name = "ter"

    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=evaluate_support.text_pair_features(),
            codebase_urls=["https://github.com/mjpost/sacrebleu"],
            reference_urls=["https://aclanthology.org/2006.amta-papers.25/", "https://github.com/jhclark/tercom"],
        )

    def _compute(
        self, predictions, references, normalized=False, ignore_punct=False, support_zh_ja_chars=False,
        case_sensitive=False, sentence_scores=False, n_bootstrap=0, seed=12345,
        return_signature=False, return_details=False,
    ):
        return evaluate_support.compute_metric(
            "ter", predictions, references, hf_keys=HF_KEYS, return_signature=return_signature,
            return_details=return_details, normalized=normalized, no_punct=ignore_punct,
            asian_support=support_zh_ja_chars, case_sensitive=case_sensitive, sentence_scores=sentence_scores,
            n_bootstrap=n_bootstrap, seed=seed,
        )
