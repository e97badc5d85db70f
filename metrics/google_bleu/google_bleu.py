"""Google BLEU (GLEU) as a Hugging Face evaluate module: HF `google_bleu`'s arguments and numbers (nlgmetrics)."""

import datasets
import evaluate

import nlgmetrics  # From: nlgmetrics
from nlgmetrics.integration import evaluate_support
from nlgmetrics.stats import DEFAULT_SEED
from nlgmetrics.text.tokenizers import tokenize_13a

_CITATION = """\
@misc{wu2016googles,
    title = {Google's Neural Machine Translation System: Bridging the Gap between Human and Machine Translation},
    author = {Yonghui Wu and Mike Schuster and Zhifeng Chen and Quoc V. Le and Mohammad Norouzi and Wolfgang Macherey
        and Maxim Krikun and Yuan Cao and Qin Gao and Klaus Macherey and Jeff Klingner and Apurva Shah and Melvin
        Johnson and Xiaobing Liu and Łukasz Kaiser and Stephan Gouws and Yoshikiyo Kato and Taku Kudo and Hideto
        Kazawa and Keith Stevens and George Kurian and Nishant Patil and Wei Wang and Cliff Young and Jason Smith and
        Jason Riesa and Alex Rudnick and Oriol Vinyals and Greg Corrado and Macduff Hughes and Jeffrey Dean},
    year = {2016},
    eprint = {1609.08144},
    archivePrefix = {arXiv},
    primaryClass = {cs.CL}
}
"""

_DESCRIPTION = """\
Google BLEU (GLEU; Wu et al., 2016) is a BLEU variant meant to behave well on single sentences: over all n-grams of
orders 1..4 it counts the matches with a reference and divides by the larger of the prediction's and the
reference's n-gram counts, i.e. min(precision, recall). At corpus level the matches and the denominators are summed
over examples first. A drop-in for Hugging Face evaluate's `google_bleu`: HF's arguments (`tokenizer`, `min_len`,
`max_len`) give HF's key `google_bleu` with exactly nltk's `corpus_gleu` numbers, offline, plus per-example scores
and a bootstrap interval.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions: list of str, one translation per example.
    references: list of str (one reference per example) or list of list of str (any number per example).
    tokenizer: a callable str -> list of tokens (default: mteval-v13a, the same tokens as HF's `Tokenizer13a`), or a
        name: '13a', 'intl', 'zh', 'char', 'none' (applied as sacrebleu applies them).
    min_len: int, the lowest n-gram order counted (default 1).
    max_len: int, the highest n-gram order counted (default 4).
    lowercase: bool, lowercase before tokenizing (default False).
    sentence_scores: bool, also return each example's sentence GLEU in `scores` (default False).
    n_bootstrap: int, if >= 2, a seeded bootstrap 95% interval over examples (default 0: none).
    seed: int, the bootstrap seed (default 12345).
    return_signature: bool, also return `signature`, the settings that give these numbers (default False).
    return_details: bool, return every key nlgmetrics computes (default False).
Returns:
    google_bleu: corpus GLEU in [0, 1] (HF's key, the only one with HF's arguments). scores (with sentence_scores); google_bleu_mean, google_bleu_ci,
    google_bleu_low, google_bleu_high (with n_bootstrap).
Examples:
    >>> google_bleu = evaluate.load("./metrics/google_bleu")
    >>> predictions = ["It is a guide to action which ensures that the rubber duck always disobeys the commands of the cat",
    ...                "he read the book because he was interested in world history"]
    >>> references = [["It is the guiding principle which guarantees the rubber duck forces never being under the command of the cat"],
    ...               ["he was interested in world history because he read the book"]]
    >>> round(google_bleu.compute(predictions=predictions, references=references)["google_bleu"], 2)
    0.44
    >>> references[0] += ["It is a guide to action that ensures that the rubber duck will never heed the cat commands",
    ...                   "It is the practical guide for the rubber duck army never to heed the directions of the cat"]
    >>> round(google_bleu.compute(predictions=predictions, references=references)["google_bleu"], 2)
    0.61
    >>> round(google_bleu.compute(predictions=predictions, references=references, min_len=2)["google_bleu"], 2)
    0.53
    >>> round(google_bleu.compute(predictions=predictions, references=references, min_len=2, max_len=6)["google_bleu"], 2)
    0.4
    >>> result = google_bleu.compute(predictions=predictions, references=references, sentence_scores=True)
    >>> [round(score, 4) for score in result["scores"]]
    [0.5143, 0.7895]
"""


#: what HF evaluate's ``google_bleu`` returns: with HF's arguments alone, exactly this key (the rest on request)
HF_KEYS = ("google_bleu",)


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class GoogleBleu(evaluate_support.NLGMetric):
    metric_name = "google_bleu"

    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=evaluate_support.text_pair_features(),
            codebase_urls=["https://github.com/nltk/nltk/blob/develop/nltk/translate/gleu_score.py"],
            reference_urls=["https://arxiv.org/abs/1609.08144"],
        )

    def _compute(self, predictions, references, tokenizer=tokenize_13a, min_len=1, max_len=4, lowercase=False,
                 sentence_scores=False, n_bootstrap=0, seed=DEFAULT_SEED, return_signature=False,
                 return_details=False):
        return evaluate_support.compute_metric(
            self.metric_name, predictions, references, hf_keys=HF_KEYS, return_signature=return_signature,
            return_details=return_details,
            tokenizer=tokenizer, min_len=min_len, max_len=max_len,
            lowercase=lowercase, sentence_scores=sentence_scores, n_bootstrap=n_bootstrap, seed=seed)
