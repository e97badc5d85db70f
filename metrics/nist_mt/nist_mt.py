"""NIST as a Hugging Face evaluate module: HF `nist_mt`'s arguments and numbers, nltk corpus_nist-exact (nlgmetrics)."""

import datasets
import evaluate

import nlgmetrics  # From: nlgmetrics
from nlgmetrics.integration import evaluate_support
from nlgmetrics.stats import DEFAULT_SEED

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
length). A drop-in for Hugging Face evaluate's `nist_mt`: HF's arguments (`n`, `lowercase`, `western_lang`) give
HF's key `nist_mt` with exactly nltk's `corpus_nist` on nltk's NIST tokenizer, offline (no nltk data needed), plus
per-order precisions, the length penalty, other tokenizers and a bootstrap interval. Where nltk divides by zero
(no hypothesis n-grams of some order in the whole corpus, no reference words) the score is defined: that order
adds 0, and no reference words gives 0.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions: list of str, one translation per example.
    references: list of str (one reference per example) or list of list of str (any number per example).
    n: int, highest n-gram order (default 5).
    lowercase: bool, lowercase (default False; as nltk, only with western_lang=True).
    western_lang: bool, apply the NIST tokenizer's Western-language rules (split punctuation) (default True);
        False splits on whitespace only.
    tokenize: None (default: the NIST tokenizer above), or a BLEU tokenizer: '13a', 'intl', 'zh', 'char', 'none'.
    n_bootstrap: int, if >= 2, a seeded bootstrap 95% interval over segments (default 0: none).
    seed: int, the bootstrap seed (default 12345).
    return_signature: bool, also return `signature`, the settings that give these numbers (default False).
    return_details: bool, also return nist (= nist_mt), precisions, length_penalty and the lengths (default False).
Returns:
    nist_mt: corpus NIST (HF's key, the only one with HF's arguments). With n_bootstrap: nist_mean, nist_ci, nist_low,
    nist_high. With return_details: nist (the same value as nist_mt), precisions (per-order information precisions;
    they add up to nist_mt / length_penalty), length_penalty, translation_length, reference_length.
Examples:
    >>> nist_mt = evaluate.load("./metrics/nist_mt")
    >>> hypothesis = "It is a guide to action which ensures that the military always obeys the commands of the party"
    >>> reference1 = "It is a guide to action that ensures that the military will forever heed Party commands"
    >>> reference2 = "It is the guiding principle which guarantees the military forces always being under the command of the Party"
    >>> reference3 = "It is the practical guide for the army always to heed the directions of the party"
    >>> nist_mt.compute(predictions=[hypothesis], references=[[reference1, reference2, reference3]])["nist_mt"]
    3.3709935957649324
    >>> nist_mt.compute(predictions=[hypothesis], references=[reference1])["nist_mt"]
    2.4477124183006533
    >>> result = nist_mt.compute(predictions=[hypothesis], references=[[reference1, reference2, reference3]],
    ...                          n=3, lowercase=True, return_details=True)
    >>> round(result["nist_mt"], 4), round(result["length_penalty"], 4)
    (3.5965, 1.0)
    >>> hypothesis = hypothesis.replace("action", "action,") + "."
    >>> round(nist_mt.compute(predictions=[hypothesis], references=[reference1 + "."], western_lang=False)["nist_mt"], 4)
    2.0033
"""


#: what HF evaluate's ``nist_mt`` returns: with HF's arguments alone, exactly this key (the rest on request)
HF_KEYS = ("nist_mt",)


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class NistMt(evaluate_support.NLGMetric):
    metric_name = "nist_mt"

    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=evaluate_support.text_pair_features(),
            codebase_urls=["https://github.com/nltk/nltk/blob/develop/nltk/translate/nist_score.py"],
            reference_urls=["https://dl.acm.org/doi/10.5555/1289189.1289273"],
        )

    def _compute(self, predictions, references, n=5, lowercase=False, western_lang=True, tokenize=None,
                 n_bootstrap=0, seed=DEFAULT_SEED, return_signature=False, return_details=False):
        return evaluate_support.compute_metric(
            self.metric_name, predictions, references, hf_keys=HF_KEYS, return_signature=return_signature,
            return_details=return_details, n=n, lowercase=lowercase, western_lang=western_lang,
            tokenize=tokenize, n_bootstrap=n_bootstrap, seed=seed)
