"""MoverScore as a Hugging Face evaluate module: MoverScore v2 semantics, no pyemd, CPU or GPU, offline (nlgmetrics)."""

import datasets
import evaluate

import nlgmetrics  # From: nlgmetrics
from nlgmetrics.integration import evaluate_support

_CITATION = """\
@inproceedings{zhao-etal-2019-moverscore,
    title = "{M}over{S}core: Text Generation Evaluating with Contextualized Embeddings and Earth Mover Distance",
    author = "Zhao, Wei and Peyrard, Maxime and Liu, Fei and Gao, Yang and Meyer, Christian M. and Eger, Steffen",
    booktitle = "Proceedings of the 2019 Conference on Empirical Methods in Natural Language Processing and the 9th
        International Joint Conference on Natural Language Processing (EMNLP-IJCNLP)",
    year = "2019",
    address = "Hong Kong, China",
    publisher = "Association for Computational Linguistics",
    url = "https://aclanthology.org/D19-1053",
    pages = "563--578",
}
"""

_DESCRIPTION = """\
MoverScore (Zhao et al., 2019) compares a prediction with a reference by the earth mover's distance between their
contextual token embeddings: each text is a distribution of idf-weighted token embeddings, and the score is one minus
the least total distance needed to move one distribution onto the other. This module computes the numbers of
MoverScore v2 (moverscore 1.0.3, `word_mover_score`): [CLS] + wordpieces + [SEP], idf from each side's own corpus,
last hidden layer, '##' pieces, punctuation and stop words at zero mass, L2-normalised embeddings, euclidean costs,
exact transport, score = 1 - cost. It needs no pyemd, never downloads at import, runs on CPU or GPU, embeds through
the cache it shares with BERTScore, and solves all transport problems of a call as one batch.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions: list of str, one prediction per example.
    references: list of str (one reference per example) or list of list of str (any number per example).
    model_type: hub id or local model folder (default: the bundled 'sentence-transformers/all-MiniLM-L6-v2'; the
        original used 'distilbert-base-uncased').
    num_layers: hidden layer to use (default: the last, as v2).
    idf: bool, idf weights from each side's own corpus (default True, v2); False: every token weighs 1; or a pair
        (prediction idf, reference idf), each a defaultdict token id -> weight (v2's idf_dict_hyp/idf_dict_ref).
    stop_words: list of tokens given zero mass (default none).
    n_gram: int, MoverScore v1's n-gram units (default 1, v2).
    remove_subwords: bool, '##' pieces get zero mass (default True, v2).
    distance: 'euclidean' (default, v2) or 'cosine' (1 - cosine similarity).
    solver: 'exact' (default, v2's earth mover's distance) or 'sinkhorn' (entropic, batched; see reg).
    reg: float, Sinkhorn regularisation (default 0.01).
    relaxed: bool, one-sided transport: each prediction token to its nearest reference token (default False).
    multi_ref: 'max' (default) or 'mean' over several references; ref_weights: weights per reference instead.
    long_text: 'truncate' (default, v2: the model maximum) or 'window' (every token embedded with sliding windows).
    device: 'cpu', 'cuda', ... (default: CUDA when available); dtype: None, 'float16' or 'bfloat16' (CUDA only).
    batch_size: int, texts per encoder batch (default 64). num_threads: threads of the exact solver.
    verbose: bool, progress bars (default False).
    distributed: sharded encoding under torch.distributed: True, 'auto' (when initialised with several ranks) or
        False (default None: off unless inside nlgmetrics.embed.distributed.sharded_encoding()).
Returns:
    scores: MoverScore of each example (1 - distance; higher is closer).
    moverscore: the mean of scores (the corpus score).
    distances: transport distance of each example (lower is closer).
    hashcode: model, layer and options.
    A text whose tokens all have zero mass (only punctuation, say, or idf over a corpus of one text: pass idf=False
    for single pairs) scores 0.0 with a warning.
Examples:
    >>> moverscore = evaluate.load("./metrics/moverscore")
    >>> predictions = ["the cat sat on the mat", "a dog barked loudly at the mailman"]
    >>> references = ["a cat was sitting on the mat", "the dog barked at the postman"]
    >>> result = moverscore.compute(predictions=predictions, references=references, idf=False)
    >>> [round(s, 4) for s in result["scores"]]
    [0.594, 0.3456]
    >>> round(result["moverscore"], 4), [round(d, 4) for d in result["distances"]]
    (0.4698, [0.406, 0.6544])
    >>> same = moverscore.compute(predictions=["the cat sat on the mat"], references=["the cat sat on the mat"],
    ...                           idf=False)
    >>> round(same["scores"][0], 6)
    1.0
    >>> result = moverscore.compute(predictions=predictions, references=[["a cat was sitting on the mat", "cats"],
    ...                             ["the dog barked at the postman"]], idf=False, multi_ref="mean")
    >>> [round(s, 4) for s in result["scores"]]
    [0.2328, 0.3456]
    >>> [round(s, 4) for s in moverscore.compute(predictions=predictions, references=references)["scores"]]
    [0.4454, 0.2563]
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class MoverScore(evaluate_support.NLGMetric):
    metric_name = "moverscore"

    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=evaluate_support.text_pair_features(),
            codebase_urls=["https://github.com/AIPHES/emnlp19-moverscore"],
            reference_urls=["https://aclanthology.org/D19-1053", "https://pythonot.github.io/"],
        )

    def _compute(
        self, predictions, references, model_type=None, num_layers=None, idf=True, stop_words=None, n_gram=1,
        remove_subwords=True, distance="euclidean", solver="exact", reg=0.01, relaxed=False, multi_ref="max",
        ref_weights=None, long_text="truncate", device=None, dtype=None, batch_size=64, num_threads=None,
        verbose=False, distributed=None,
    ):
        return evaluate_support.compute_metric(
            "moverscore", predictions, references, model_type=model_type, num_layers=num_layers, idf=idf,
            stop_words=stop_words, n_gram=n_gram, remove_subwords=remove_subwords, distance=distance, solver=solver,
            reg=reg, relaxed=relaxed, multi_ref=multi_ref, ref_weights=ref_weights, long_text=long_text,
            device=device, dtype=dtype, batch_size=batch_size, num_threads=num_threads, verbose=verbose,
            distributed=distributed,
        )
