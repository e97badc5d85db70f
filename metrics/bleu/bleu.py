"""BLEU as a Hugging Face evaluate module: HF `bleu`'s arguments and numbers, plus sacrebleu's (nlgmetrics)."""

import datasets
import evaluate

import nlgmetrics  # From: nlgmetrics
from nlgmetrics.integration import evaluate_support
from nlgmetrics.stats import DEFAULT_SEED
from nlgmetrics.text.tokenizers import tokenize_13a

_CITATION = """\
@inproceedings{papineni-etal-2002-bleu,
    title = "{B}leu: a Method for Automatic Evaluation of Machine Translation",
    author = "Papineni, Kishore and Roukos, Salim and Ward, Todd and Zhu, Wei-Jing",
    booktitle = "Proceedings of the 40th Annual Meeting of the Association for Computational Linguistics",
    year = "2002",
    pages = "311--318",
}
@inproceedings{lin-och-2004-orange,
    title = "{ORANGE}: a Method for Evaluating Automatic Evaluation Metrics for Machine Translation",
    author = "Lin, Chin-Yew and Och, Franz Josef",
    booktitle = "{COLING} 2004: Proceedings of the 20th International Conference on Computational Linguistics",
    year = "2004",
    pages = "501--507",
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
or more references, combined by a geometric mean and multiplied by a brevity penalty. A drop-in for Hugging Face
evaluate's `bleu`: HF's arguments (`tokenizer`, `max_order`, `smooth`) give HF's keys with HF's numbers
(tensorflow-nmt BLEU: shortest reference length, optional add-one smoothing, 0-1). The same call also returns
sacrebleu 2.6's numbers for the same tokens (`score` 0-100, `counts`, `totals`, `sys_len`, `ref_len`: closest
reference length, exp smoothing) with a signature; the `sacrebleu` module gives sacrebleu's numbers under sacrebleu's
names. Offline, without sacrebleu or HF's scripts.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions: list of str, one translation per example.
    references: list of str (one reference per example) or list of list of str (any number per example).
    tokenizer: a callable str -> list of tokens (default: mteval-v13a, the same tokens as HF's `Tokenizer13a`), or a
        name: '13a', 'intl', 'zh', 'char', 'none' (applied as sacrebleu applies them).
    max_order: int, highest n-gram order (default 4).
    smooth: bool, add one to the matches and totals of every order (Lin & Och 2004 as tensorflow-nmt; default False).
    lowercase: bool, lowercase before tokenizing (default False).
    smooth_method, smooth_value, effective_order: sacrebleu's smoothing for `score` ('exp' (default), 'floor',
        'add-k', 'none'; value for 'floor' 0.1, 'add-k' 1) and its effective order (default False).
    sentence_scores: bool, also return per-example sentence BLEU (sacrebleu's, 0-100) in `scores` (default False);
        sentence_effective_order (default True) as sacrebleu.sentence_bleu.
    n_bootstrap: int, if >= 2, a seeded bootstrap 95% interval of `score` over segments (default 0: none).
    seed: int, the bootstrap seed (default 12345, as sacrebleu).
    return_signature: bool, also return `signature`, how the score was computed (default False).
    return_details: bool, also return sacrebleu's keys for the same tokens (default False).
Returns:
    HF's keys, and only these with HF's arguments (tensorflow-nmt semantics): bleu (0-1), precisions (0-1),
    brevity_penalty, length_ratio, translation_length, reference_length (sum of each example's shortest reference
    length). signature (with return_signature); scores (with sentence_scores); score_mean, score_ci, score_low,
    score_high (with n_bootstrap). return_details adds sacrebleu's keys for the same tokens: score (0-100), counts,
    totals, sys_len, ref_len (closest reference lengths), signature. With one reference per example, bleu and score / 100 agree (to 1e-15) unless an order has no
    match at all (then HF's bleu is 0 and sacrebleu's is exp-smoothed).
Examples:
    >>> bleu = evaluate.load("./metrics/bleu")
    >>> predictions = ["hello there general kenobi", "foo bar foobar"]
    >>> references = [["hello there general kenobi", "hello there!"], ["foo bar foobar"]]
    >>> bleu.compute(predictions=predictions, references=references)["bleu"]
    1.0
    >>> predictions = ["The cat sat on the mat.", "Look at the dog there!"]
    >>> references = [["The cat sat on the mat."], ["Look at that dog over there!", "See the dog!"]]
    >>> result = bleu.compute(predictions=predictions, references=references)
    >>> round(result["bleu"], 4), result["brevity_penalty"], result["reference_length"]  # HF: shortest references
    (0.7139, 1.0, 11)
    >>> details = bleu.compute(predictions=predictions, references=references, return_details=True)
    >>> round(details["score"], 2), details["ref_len"], details["counts"]  # sacrebleu: closest references
    (66.1, 14, [13, 9, 5, 4])
    >>> round(bleu.compute(predictions=predictions, references=references, max_order=2, smooth=True)["bleu"], 4)
    0.9129
    >>> round(bleu.compute(predictions=predictions, references=references, tokenizer=str.split)["bleu"], 4)
    0.6914
    >>> details["signature"]
    'nrefs:var|case:mixed|eff:no|tok:13a|smooth:exp|version:nlgmetrics-0.1.0'
"""


#: what HF evaluate's ``bleu`` returns: with HF's arguments alone, exactly these keys (the rest on request)
HF_KEYS = ("bleu", "precisions", "brevity_penalty", "length_ratio", "translation_length", "reference_length")


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Bleu(evaluate_support.NLGMetric):
    metric_name = "bleu"

    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=evaluate_support.text_pair_features(),
            codebase_urls=["https://github.com/tensorflow/nmt/blob/master/nmt/scripts/bleu.py",
                           "https://github.com/mjpost/sacrebleu"],
            reference_urls=["https://aclanthology.org/P02-1040/", "https://aclanthology.org/W18-6319/"],
        )

    def _compute(self, predictions, references, tokenizer=tokenize_13a, max_order=4, smooth=False, lowercase=False,
                 smooth_method="exp", smooth_value=None, effective_order=False, sentence_scores=False,
                 sentence_effective_order=True, n_bootstrap=0, seed=DEFAULT_SEED, return_signature=False,
                 return_details=False):
        return evaluate_support.compute_metric(
            self.metric_name, predictions, references, hf_keys=HF_KEYS, return_signature=return_signature,
            return_details=return_details, tokenizer=tokenizer, max_order=max_order, smooth=smooth,
            lowercase=lowercase, smooth_method=smooth_method, smooth_value=smooth_value,
            effective_order=effective_order, sentence_scores=sentence_scores,
            sentence_effective_order=sentence_effective_order, n_bootstrap=n_bootstrap, seed=seed)
