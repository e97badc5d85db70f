"""BERTScore as a Hugging Face evaluate module: bert_score-exact, cached, long-text safe, offline (nlgmetrics)."""

import datasets
import evaluate

import nlgmetrics  # From: nlgmetrics
from nlgmetrics.integration import evaluate_support

_CITATION = """\
@inproceedings{bert-score,
  title={BERTScore: Evaluating Text Generation with BERT},
  author={Tianyi Zhang* and Varsha Kishore* and Felix Wu* and Kilian Q. Weinberger and Yoav Artzi},
  booktitle={International Conference on Learning Representations},
  year={2020},
  url={https://openreview.net/forum?id=SkeHuCVFDr}
}
"""

_DESCRIPTION = """\
BERTScore (Zhang et al., 2020) matches each token of the candidate with its most similar token of the reference by
cosine similarity of contextual embeddings, and averages those maxima into precision (over candidate tokens), recall
(over reference tokens) and F1, optionally idf-weighted. This module computes exactly the numbers of bert_score 0.3.13
(|diff| <= 1e-5, same model and layer) on nlgmetrics' shared embedding engine: texts are embedded once per process and
cached across calls, long texts are embedded whole with sliding windows instead of crashing or being truncated, and
GPU (with optional bf16/fp16) is used when present. Offline, the bundled encoder
sentence-transformers/all-MiniLM-L6-v2 (layer 6) is available as model_type.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions: list of str, one candidate per example.
    references: list of str (one reference per example) or list of list of str (any number per example).
    lang: str, language code picking bert_score's default model ('en': roberta-large, layer 17; others:
        bert-base-multilingual-cased). Needed for rescale_with_baseline unless baseline_path is given.
    model_type: str, hub id or local folder ('sentence-transformers/all-MiniLM-L6-v2' is bundled and offline).
    num_layers: int, hidden layer to use (0 = embeddings); default from bert_score's tuned table.
    verbose: bool, progress bars (default False).
    idf: bool or dict, idf weighting from the references (True), or a dict token id -> weight (default False).
    device: str, e.g. 'cpu', 'cuda:0' (default: CUDA when available).
    batch_size: int, sequences per encoder batch (default 64).
    nthreads: int, accepted for compatibility; unused (idf is computed in process).
    all_layers: bool, scores for every layer: lists of lists, one per layer (default False).
    use_fast_tokenizer: bool, passed to the tokenizer loader as use_fast (default False).
    rescale_with_baseline: bool, rescale with bert_score-format baselines (default False).
    baseline_path: str, a custom baseline file (LAYER,P,R,F).
    dtype: None/'float32' (default), 'bfloat16' or 'float16' (autocast on CUDA only).
    long_text: 'window' (default: sliding windows, every token embedded) or 'truncate' (bert_score's truncation).
    multi_ref: 'max' (default, bert_score) or 'mean' over several references per example.
    ref_weights: list of list of float, a weighted mean over each example's references (e.g. retrieval scores).
    diversity: bool, also return self_bertscore, the mean pairwise F1 among the predictions (lower = more diverse).
    return_signature: bool, also return `signature`: the model's name and weights digest, layer, idf, baseline,
        precision and library versions (default False).
    distributed: sharded encoding under torch.distributed: True, 'auto' (when initialised with several ranks) or
        False (default None: off unless inside nlgmetrics.embed.distributed.sharded_encoding()).
Returns:
    precision, recall, f1: lists of float, one per example.
    hashcode: str, model, layer, idf, rescaling and versions.
    self_bertscore: float (with diversity=True).
    signature: str (with return_signature=True).
Examples:
    >>> bertscore = evaluate.load("./metrics/bertscore")
    >>> predictions = ["The cat sat on the mat.", "A quick brown fox jumps."]
    >>> references = [["The cat was sitting on the mat."], ["The fast brown fox leaped.", "A fox jumped."]]
    >>> results = bertscore.compute(predictions=predictions, references=references,
    ...                             model_type="sentence-transformers/all-MiniLM-L6-v2")
    >>> [round(v, 4) for v in results["f1"]]
    [0.9211, 0.8249]
    >>> [round(v, 4) for v in results["precision"]], [round(v, 4) for v in results["recall"]]
    ([0.9314, 0.8217], [0.911, 0.8746])
    >>> results["hashcode"].split("_version")[0]
    'sentence-transformers/all-MiniLM-L6-v2_L6_no-idf'
    >>> same = bertscore.compute(predictions=["hello there"], references=["hello there"], model_type="minilm")
    >>> [round(v, 2) for v in same["f1"]]
    [1.0]
"""


#: what HF evaluate's ``bertscore`` returns: with HF's arguments alone, exactly these keys (the rest on request)
HF_KEYS = ("precision", "recall", "f1", "hashcode")


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class BERTScore(evaluate_support.NLGMetric):
    metric_name = "bertscore"

    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            homepage="https://github.com/Tiiiger/bert_score",
            inputs_description=_KWARGS_DESCRIPTION,
            features=evaluate_support.text_pair_features(),
            codebase_urls=["https://github.com/Tiiiger/bert_score"],
            reference_urls=["https://github.com/Tiiiger/bert_score", "https://arxiv.org/abs/1904.09675"],
        )

    def _compute(
        self, predictions, references, lang=None, model_type=None, num_layers=None, verbose=False, idf=False,
        device=None, batch_size=64, nthreads=4, all_layers=False, rescale_with_baseline=False, baseline_path=None,
        use_fast_tokenizer=False, dtype=None, long_text="window", multi_ref="max", ref_weights=None, diversity=False,
        distributed=None, return_signature=False,
    ):
        return evaluate_support.compute_metric(
            "bertscore", predictions, references, hf_keys=HF_KEYS + (("self_bertscore",) if diversity else ()),
            return_signature=return_signature, lang=lang, model_type=model_type, num_layers=num_layers,
            verbose=verbose, idf=idf, device=device, batch_size=batch_size, nthreads=nthreads, all_layers=all_layers,
            rescale_with_baseline=rescale_with_baseline, baseline_path=baseline_path,
            use_fast_tokenizer=use_fast_tokenizer, dtype=dtype, long_text=long_text, multi_ref=multi_ref,
            ref_weights=ref_weights, diversity=diversity, distributed=distributed,
        )
