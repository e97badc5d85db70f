"""sacrebleu's BLEU as a Hugging Face evaluate module: HF `sacrebleu`'s arguments, keys and numbers (nlgmetrics)."""

import datasets
import evaluate

import nlgmetrics  # From: nlgmetrics
from nlgmetrics.integration import evaluate_support
from nlgmetrics.stats import DEFAULT_SEED

_CITATION = """\
@inproceedings{post-2018-call,
    title = "A Call for Clarity in Reporting {BLEU} Scores",
    author = "Post, Matt",
    booktitle = "Proceedings of the Third Conference on Machine Translation: Research Papers",
    year = "2018",
    pages = "186--191",
}
@inproceedings{papineni-etal-2002-bleu,
    title = "{B}leu: a Method for Automatic Evaluation of Machine Translation",
    author = "Papineni, Kishore and Roukos, Salim and Ward, Todd and Zhu, Wei-Jing",
    booktitle = "Proceedings of the 40th Annual Meeting of the Association for Computational Linguistics",
    year = "2002",
    pages = "311--318",
}
"""

_DESCRIPTION = """\
sacrebleu (Post, 2018) computes corpus BLEU in one standard way, from detokenized text, with its own tokenizers, so
that scores are comparable across papers. A drop-in for Hugging Face evaluate's `sacrebleu`: HF's arguments
(`smooth_method`, `smooth_value`, `force`, `lowercase`, `tokenize`, `use_effective_order`) give HF's keys with
exactly sacrebleu 2.6's numbers, offline and without sacrebleu, plus a signature, per-example sentence BLEU and a
bootstrap interval. References may vary in number per example (HF's module requires the same number).
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions: list of str, one translation per example.
    references: list of str (one reference per example) or list of list of str (any number per example).
    smooth_method: 'exp' (default), 'floor', 'add-k' or 'none'.
    smooth_value: float, for 'floor' (default 0.1) and 'add-k' (default 1).
    force: bool, do not warn when 100 or more predictions end in " ." (tokenized text) (default False).
    lowercase: bool, lowercase before tokenizing (default False).
    tokenize: '13a' (default when None), 'intl', 'zh', 'char' or 'none'.
    use_effective_order: bool, ignore n-gram orders with no n-grams (default False).
    max_ngram_order: int, highest n-gram order (default 4).
    sentence_scores: bool, also return per-example sentence BLEU in `scores` (default False);
        sentence_effective_order (default True) as sacrebleu.sentence_bleu.
    n_bootstrap: int, if >= 2, a seeded bootstrap 95% interval over segments (default 0: none).
    seed: int, the bootstrap seed (default 12345, as sacrebleu).
    return_signature: bool, also return `signature`, how the score was computed (default False).
    return_details: bool, return every key above (default False).
Returns:
    score: BLEU (0-100); counts, totals: matched and total n-grams per order; precisions (0-100); bp: brevity
    penalty; sys_len, ref_len: lengths of the predictions and of the closest references: HF's keys, and only these with HF's
    arguments. signature (with return_signature); scores (with sentence_scores); score_mean, score_ci, score_low, score_high (with n_bootstrap).
Examples:
    >>> sacrebleu = evaluate.load("./metrics/sacrebleu")
    >>> predictions = ["hello there general kenobi", "foo bar foobar"]
    >>> references = [["hello there general kenobi", "hello there !"], ["foo bar foobar", "foo bar foobar"]]
    >>> results = sacrebleu.compute(predictions=predictions, references=references)
    >>> [key for key in results]
    ['score', 'counts', 'totals', 'precisions', 'bp', 'sys_len', 'ref_len']
    >>> round(results["score"], 1)
    100.0
    >>> predictions = ["hello there general kenobi", "on our way to ankh morpork"]
    >>> references = [["hello there general kenobi", "hello there !"], ["goodbye ankh morpork", "ankh morpork"]]
    >>> results = sacrebleu.compute(predictions=predictions, references=references)
    >>> round(results["score"], 1), results["counts"], results["precisions"][:2], results["sys_len"], results["ref_len"]
    (39.8, [6, 4, 2, 1], [60.0, 50.0], 10, 7)
    >>> results = sacrebleu.compute(predictions=predictions[1:], references=references[1:], use_effective_order=True,
    ...                         return_signature=True)
    >>> round(results["score"], 4), results["signature"]
    (16.2334, 'nrefs:2|case:mixed|eff:yes|tok:13a|smooth:exp|version:nlgmetrics-0.1.0')
"""


#: what HF evaluate's ``sacrebleu`` returns: with HF's arguments alone, exactly these keys (the rest on request)
HF_KEYS = ("score", "counts", "totals", "precisions", "bp", "sys_len", "ref_len")


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Sacrebleu(evaluate_support.NLGMetric):
    metric_name = "sacrebleu"

    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            homepage="https://github.com/mjpost/sacreBLEU",
            inputs_description=_KWARGS_DESCRIPTION,
            features=evaluate_support.text_pair_features(),
            codebase_urls=["https://github.com/mjpost/sacreBLEU"],
            reference_urls=["https://aclanthology.org/W18-6319/", "https://aclanthology.org/P02-1040/"],
        )

    def _compute(self, predictions, references, smooth_method="exp", smooth_value=None, force=False, lowercase=False,
                 tokenize=None, use_effective_order=False, max_ngram_order=4, sentence_scores=False,
                 sentence_effective_order=True, n_bootstrap=0, seed=DEFAULT_SEED, return_signature=False,
                 return_details=False):
        return evaluate_support.compute_metric(
            self.metric_name, predictions, references, hf_keys=HF_KEYS, return_signature=return_signature,
            return_details=return_details, smooth_method=smooth_method, smooth_value=smooth_value,
            force=force, lowercase=lowercase, tokenize=tokenize, use_effective_order=use_effective_order,
            max_ngram_order=max_ngram_order, sentence_scores=sentence_scores,
            sentence_effective_order=sentence_effective_order, n_bootstrap=n_bootstrap, seed=seed)
