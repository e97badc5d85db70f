"""ROUGE as a Hugging Face evaluate module: HF `rouge`'s arguments and numbers, plus W, S and SU (nlgmetrics)."""

import datasets
import evaluate

import nlgmetrics  # From: nlgmetrics
from nlgmetrics.integration import evaluate_support
from nlgmetrics.stats import DEFAULT_SEED

_CITATION = """\
@inproceedings{lin-2004-rouge,
    title = "{ROUGE}: A Package for Automatic Evaluation of Summaries",
    author = "Lin, Chin-Yew",
    booktitle = "Text Summarization Branches Out",
    year = "2004",
    address = "Barcelona, Spain",
    publisher = "Association for Computational Linguistics",
    url = "https://aclanthology.org/W04-1013",
    pages = "74--81",
}
"""

_DESCRIPTION = """\
ROUGE (Lin, 2004) compares a generated text with one or more references by overlapping units: n-grams (ROUGE-N),
the longest common subsequence (ROUGE-L, and ROUGE-Lsum over newline-separated sentences), the weighted LCS that
rewards consecutive matches (ROUGE-W), and skip-bigrams with or without unigrams (ROUGE-S, ROUGE-SU). A drop-in for HF
evaluate's `rouge`: with its arguments (rouge_types, use_aggregator, use_stemmer, tokenizer) it returns its numbers,
rouge_score 0.1.2's per example and the same bootstrap median for the same evaluate `seed`; more types, the exact mean
(`aggregator="mean"`), Unicode-aware tokenization (`tokenizer="unicode"` or `lang=...`) and seeded intervals on top.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions: list of str, one generated text per example.
    references: list of str (one reference per example) or list of list of str (any number per example).
    rouge_types: list of str (default ['rouge1', 'rouge2', 'rougeL', 'rougeLsum']). Valid: 'rouge1'..'rouge9',
        'rougeL', 'rougeLsum' (sentences split on newlines), 'rougeW' (or 'rougeW-1.5' for another weight),
        'rougeS4' / 'rougeS*' (skip-bigrams with at most 4 / any number of tokens between), 'rougeSU4' / 'rougeSU*'.
    use_aggregator: bool, True (default): one aggregate per key (see aggregator); False: one value per example.
    use_stemmer: bool, Porter-stem tokens longer than 3 characters, as rouge_score (default False).
    tokenizer: None (default: rouge_score's, as HF: lowercase ASCII a-z/0-9 words; other letters are dropped, and
        one warning per call says how many texts lost letters), 'unicode' (words of any script, one token per
        Chinese/Japanese character), 'whitespace', or a callable text -> list of str (its tokens are used as they are).
    lang: str, the texts' language code: any language but English ('de', 'fr', 'zh', 'ja', ...) selects
        tokenizer='unicode' (default None).
    split_summaries: bool, rougeLsum's sentences from nltk's sent_tokenize (Punkt, offline) instead of newlines, as
        rouge_score's RougeScorer(split_summaries=True) (default False, as HF).
    aggregator: 'bootstrap' (default, HF's number: the median of 1000 bootstrap means of the examples, rouge_score's
        BootstrapAggregator mid, drawn from numpy's global RNG seeded with this module's `seed`, as evaluate does) or
        'mean' (the exact mean over examples, independent of any seed).
    multi_ref: 'best' (default: per type, the reference with the highest F, as rouge_score's score_multi) or
        'average' (ROUGE-1.5.5's default: hits and counts summed over the references).
    weight_factor: float, w in ROUGE-W's f(k) = k^w (default 1.2).
    alpha: float in [0, 1], F = PR / ((1 - alpha) P + alpha R), as ROUGE-1.5.5's -p; or
    beta: float >= 0, F = (1 + beta^2) PR / (beta^2 P + R). Default: F1 (rouge_score's).
    n_bootstrap: int, if >= 2, a seeded bootstrap interval over examples (default 0: none).
    confidence_interval: float, the interval's coverage (default 0.95).
    seed: int, the seed of the n_bootstrap interval (default 12345): same input and seed, same interval. (The
        bootstrap aggregator uses the module's own seed: evaluate.load(..., seed=...).)
    flavor: 'rouge_score' (default: rouge_score / HF evaluate numbers) or 'rouge155' (what ROUGE-1.5.5.pl prints,
        exactly, without perl; its options: use_stemmer (-m, perl's Porter), wordnet_exceptions, remove_stopwords
        (-s), multi_ref 'average' (-f A, its default) or 'best' (-f B), length_limit (-l), byte_limit (-b),
        byte_limit_bug, eval_ids, alpha (-p); aggregated values are perl's bootstrap means with T_low/T_high).
    backend: 'auto' (default; $NLGMETRICS_ROUGE_BACKEND): rouge-score-rs for ROUGE-N/L/Lsum where its numbers are
        rouge_score's bit for bit, Python elsewhere; 'python' or 'native' to force one.
    return_signature: bool, also return `signature`, the settings that give these numbers (the aggregator
        included) (default False).
    return_details: bool, also return T_precision and T_recall for each type T (default False).
Returns:
    For each type T: T (F-measure; HF evaluate's rouge's keys, the only ones with HF's arguments), and with
    return_details T_precision and T_recall: floats (aggregated) or lists (use_aggregator=False). With n_bootstrap: T_low, T_mid, T_high and T_precision_low ... T_recall_high.
Examples:
    >>> rouge = evaluate.load("./metrics/rouge", seed=42)
    >>> predictions = ["the cat was found under the bed", "a quick brown fox jumps over the dog"]
    >>> references = [["the cat was under the bed"],
    ...               ["the quick brown fox jumped over the lazy dog", "a fast fox leaps over a dog"]]
    >>> results = rouge.compute(predictions=predictions, references=references)
    >>> {key: round(results[key], 4) for key in ["rouge1", "rouge2", "rougeL", "rougeLsum"]}
    {'rouge1': 0.8145, 'rouge2': 0.5636, 'rougeL': 0.8145, 'rougeLsum': 0.8145}
    >>> details = rouge.compute(predictions=predictions, references=references, return_details=True)
    >>> round(details["rouge1_precision"], 4), round(details["rouge1_recall"], 4)
    (0.8036, 0.8333)
    >>> results = rouge.compute(predictions=predictions, references=references,
    ...                         rouge_types=["rougeW", "rougeS4", "rougeSU4"], use_aggregator=False)
    >>> [round(x, 4) for x in results["rougeW"]], [round(x, 4) for x in results["rougeSU4"]]
    ([0.8224, 0.5979], [0.8333, 0.5278])
    >>> results = rouge.compute(predictions=predictions, references=references, rouge_types=["rouge2"],
    ...                         n_bootstrap=1000, aggregator="mean")
    >>> round(results["rouge2_low"], 4), round(results["rouge2_mid"], 4), round(results["rouge2_high"], 4)
    (0.4, 0.5636, 0.7273)
    >>> japanese = rouge.compute(predictions=["猫が好きです"], references=["猫が大好きです"], rouge_types=["rouge1"],
    ...                          lang="ja")
    >>> japanese["rouge1"]
    0.923076923076923
"""


#: the types HF evaluate's ``rouge`` scores by default (its keys: one per type, the F-measure)
HF_TYPES = ("rouge1", "rouge2", "rougeL", "rougeLsum")


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Rouge(evaluate_support.NLGMetric):
    metric_name = "rouge"

    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=evaluate_support.text_pair_features(),
            codebase_urls=["https://github.com/google-research/google-research/tree/master/rouge"],
            reference_urls=["https://aclanthology.org/W04-1013/", "https://pypi.org/project/rouge-score/"],
        )

    def _compute(
        self, predictions, references, rouge_types=None, use_aggregator=True, use_stemmer=False, tokenizer=None,
        lang=None, split_summaries=False, aggregator="bootstrap", multi_ref=None, weight_factor=1.2, alpha=None,
        beta=None, n_bootstrap=0, confidence_interval=0.95, seed=DEFAULT_SEED, flavor="rouge_score",
        wordnet_exceptions=False, remove_stopwords=False, length_limit=None, byte_limit=None, byte_limit_bug=False,
        eval_ids=None, backend=None, return_signature=False, return_details=False,
    ):
        # HF's rouge returns one key per type (F-measure): precision and recall come with return_details=True
        hf_keys = HF_TYPES if rouge_types is None else rouge_types
        if flavor != "rouge_score":  # ROUGE-1.5.5.pl's figures: perl's own bootstrap, no HF aggregate
            return evaluate_support.compute_metric(
                "rouge", predictions, references, hf_keys=hf_keys, return_signature=return_signature,
                return_details=return_details, rouge_types=rouge_types, use_aggregator=use_aggregator,
                use_stemmer=use_stemmer, tokenizer=tokenizer, multi_ref=multi_ref, weight_factor=weight_factor,
                alpha=alpha, beta=beta, n_bootstrap=n_bootstrap, confidence_interval=confidence_interval,
                flavor=flavor, wordnet_exceptions=wordnet_exceptions, remove_stopwords=remove_stopwords,
                length_limit=length_limit, byte_limit=byte_limit, byte_limit_bug=byte_limit_bug, eval_ids=eval_ids,
            )
        # numpy_seed: the module's seed, which evaluate also sets around _compute: HF's draws for the same seed
        return evaluate_support.compute_metric(
            "rouge", predictions, references, hf_keys=hf_keys, return_signature=return_signature,
            return_details=return_details, rouge_types=rouge_types, use_aggregator=use_aggregator,
            use_stemmer=use_stemmer, tokenizer=tokenizer, lang=lang, split_summaries=split_summaries,
            aggregator=aggregator, numpy_seed=self.seed, multi_ref=multi_ref, weight_factor=weight_factor, alpha=alpha,
            beta=beta, n_bootstrap=n_bootstrap, confidence_interval=confidence_interval, seed=seed,
            wordnet_exceptions=wordnet_exceptions, remove_stopwords=remove_stopwords, length_limit=length_limit,
            byte_limit=byte_limit, byte_limit_bug=byte_limit_bug, eval_ids=eval_ids,
            **({} if backend is None else {"backend": backend}),
        )
