"""ROUGE backends: rouge-score-rs (``backend="native"``, what ``"auto"`` picks where it can) and our Python reference
(``backend="python"``) give the same floats (==) per example on real WMT17 text, German umlauts, multi-sentence
documents, several references, empty texts and lone surrogates, with and without the stemmer; configurations it cannot
reproduce go to Python; without rouge-score-rs everything takes the Python path."""

from __future__ import annotations

import gzip
import html
import importlib
import json
import sys
from pathlib import Path

import pytest
from rouge_score import rouge_scorer

from nlgmetrics.lexical import rouge, rouge_native
from nlgmetrics.lexical.rouge import compute_rouge, rouge_scores

pytestmark = [
    pytest.mark.filterwarnings(r"ignore:ROUGE. \d+ of \d+ texts:UserWarning"),
    pytest.mark.skipif(not rouge_native.AVAILABLE, reason="rouge-score-rs is not installed"),
]

PERL_FIGURES = Path(__file__).resolve().parent / "data" / "rouge155" / "perl_figures.json.gz"
NATIVE_TYPES = ["rouge1", "rouge2", "rouge3", "rouge4", "rouge9", "rougeL", "rougeLsum"]
EDGE_TEXTS = [
    "", " ", "\n", "\n\n", ".", "über straße", "günter grass\nlas vor", "中文文本", "line one\r\nline two",
    "a\ud800b c", "\ud83d", "the cat\nthe cat sat\n\nsat the cat", "THE Cat, the CAT!",
]  # fmt: skip


@pytest.fixture(scope="module")
def texts(wmt17_deen, wmt17_ende) -> dict:
    """WMT17 de-en (English, 150 lines, 2 systems), en-de (German: umlauts, 200 lines), and the ROUGE-1.5.5 test
    inputs: 150 multi-sentence documents (one line per sentence) and 100 cases with three references."""
    deen_refs = [html.unescape(r) for r in wmt17_deen["references"]]
    deen_hyps = [html.unescape(h) for hyps in list(wmt17_deen["systems"].values())[:2] for h in hyps]
    ende = next(iter(wmt17_ende["systems"].values()))[:200]
    with gzip.open(PERL_FIGURES, "rt", encoding="utf-8") as handle:
        inputs = json.load(handle)["inputs"]
    docs, multi = inputs["B"], inputs["C"]
    return {
        "preds": deen_hyps + ende + ["\n".join(c["peer"]) for c in docs],
        "refs": deen_refs * 2 + wmt17_ende["reference"][:200] + ["\n".join(c["models"][0]) for c in docs],
        "multi_preds": ["\n".join(c["peer"]) for c in multi] + ["\n".join(c["peer"]) for c in docs[:40]],
        "multi_refs": [["\n".join(m) for m in c["models"]] for c in multi]
        + [["\n".join(m) for m in c["models"]] + [docs[i + 1]["peer"][0], ""] for i, c in enumerate(docs[:40])],
    }


def both(predictions, references, rouge_types, **options) -> list:
    """The per-example scores of both backends, asserted equal (==), returned once."""
    native = rouge_scores(predictions, references, rouge_types, backend="native", **options)
    python = rouge_scores(predictions, references, rouge_types, backend="python", **options)
    assert native == python
    return native


@pytest.mark.parametrize("use_stemmer", [False, True])
def test_backends_equal_on_real_text(texts, use_stemmer):
    """300 English and 200 German WMT17 pairs and 150 multi-sentence documents: every type, P/R/F, delta 0."""
    scores = both(texts["preds"], texts["refs"], NATIVE_TYPES, use_stemmer=use_stemmer)
    assert len(scores) == 650
    assert any(s["rougeLsum"] != s["rougeL"] for s in scores[500:])  # the documents exercise the union LCS
    assert scores[0]["rouge1"][2] > 0.3


@pytest.mark.parametrize("use_stemmer", [False, True])
@pytest.mark.parametrize("types", [["rougeLsum"], ["rougeL"], ["rouge2", "rougeLsum", "rouge1"]])
def test_backends_equal_with_several_references_and_type_subsets(texts, use_stemmer, types):
    """Three references (and three plus a distractor and an empty one) with 'best', rouge_score's score_multi."""
    scores = both(texts["multi_preds"], texts["multi_refs"], types, use_stemmer=use_stemmer)
    scorer = rouge_scorer.RougeScorer(types, use_stemmer=use_stemmer)
    for ours, pred, refs in zip(scores, texts["multi_preds"], texts["multi_refs"]):
        theirs = scorer.score_multi(refs, pred)
        assert ours == {t: tuple(theirs[t]) for t in types}


@pytest.mark.parametrize("use_stemmer", [False, True])
def test_backends_equal_on_edge_texts(use_stemmer):
    """Empty, whitespace-only, newline-only, non-ASCII-only, CRLF and lone-surrogate texts, every pairing."""
    preds = [a for a in EDGE_TEXTS for _ in EDGE_TEXTS]
    refs = [b for _ in EDGE_TEXTS for b in EDGE_TEXTS]
    scores = both(preds, refs, NATIVE_TYPES, use_stemmer=use_stemmer)
    assert scores[0]["rouge1"] == (0.0, 0.0, 0.0)
    assert scores[EDGE_TEXTS.index("a\ud800b c") * (len(EDGE_TEXTS) + 1)]["rouge1"] == (1.0, 1.0, 1.0)


def test_average_pools_several_references_in_python_and_the_rest_natively(texts, monkeypatch):
    """multi_ref='average' (perl's -f A) is ours: examples with several references go to Python, single ones not."""
    preds = texts["multi_preds"][:20] + texts["preds"][:20]
    refs = texts["multi_refs"][:20] + [[r] for r in texts["refs"][:20]]
    calls = []
    score_into = rouge_native.score_into
    monkeypatch.setattr(rouge_native, "score_into", lambda *a, **k: calls.append(score_into(*a, **k)) or calls[-1])
    scores = both(preds, refs, ["rouge1", "rougeLsum"], multi_ref="average")
    assert calls[0] == list(range(20))  # left to the Python path
    best = rouge_scores(preds, refs, ["rouge1", "rougeLsum"], multi_ref="best")
    assert best[20:] == scores[20:] and best[:20] != scores[:20]


def test_long_multi_line_texts_stay_in_python(texts, monkeypatch):
    """Over LSUM_NATIVE_CELLS a multi-line example is scored in Python (rouge-score-rs fills a full LCS table);
    one-line examples keep rougeLsum = rougeL natively at any length."""
    preds, refs = texts["preds"][500:520], texts["refs"][500:520]
    expected = rouge_scores(preds, refs, NATIVE_TYPES, backend="python")
    monkeypatch.setattr(rouge_native, "LSUM_NATIVE_CELLS", 0)
    calls = []
    score_into = rouge_native.score_into
    monkeypatch.setattr(rouge_native, "score_into", lambda *a, **k: calls.append(score_into(*a, **k)) or calls[-1])
    assert rouge_scores(preds, refs, NATIVE_TYPES, backend="native") == expected
    assert calls == [list(range(20))]
    long_pred, long_ref = " ".join(texts["preds"][:300]), " ".join(texts["refs"][:300])  # about 7,000 words each
    assert both([long_pred], [long_ref], ["rougeL", "rougeLsum"])[0]["rougeLsum"][2] > 0.4


@pytest.mark.parametrize(
    ("options", "reason"),
    [
        ({"rouge_types": ["rouge1", "rougeW"]}, "not rougeW"),
        ({"rouge_types": ["rougeSU4"]}, "not rougeSU4"),
        ({"tokenizer": "unicode"}, "tokenizer"),
        ({"lang": "de"}, "tokenizer"),
        ({"tokenizer": str.split}, "tokenizer"),
        ({"alpha": 0.2}, "alpha"),
        ({"beta": 2.0}, "alpha/beta"),
        ({"split_summaries": True}, "split_summaries"),
    ],
)
def test_what_native_cannot_reproduce_goes_to_python(texts, options, reason):
    preds, refs = texts["preds"][480:520], texts["refs"][480:520]
    with pytest.raises(ValueError, match=f"backend='native'.*{reason}"):
        compute_rouge(preds, refs, backend="native", use_aggregator=False, **options)
    auto = compute_rouge(preds, refs, use_aggregator=False, **options)
    assert auto == compute_rouge(preds, refs, backend="python", use_aggregator=False, **options)


def test_english_lang_and_explicit_rouge_score_tokenizer_are_native(texts):
    preds, refs = texts["preds"][:50], texts["refs"][:50]
    expected = rouge_scores(preds, refs, backend="python")
    assert rouge_scores(preds, refs, backend="native", lang="en") == expected
    assert rouge_scores(preds, refs, backend="native", tokenizer="rouge_score") == expected


@pytest.mark.parametrize("aggregator", ["mean", "bootstrap"])
def test_compute_rouge_aggregates_equal(texts, aggregator):
    preds, refs = texts["preds"][:200], texts["refs"][:200]
    options = {"use_stemmer": True, "aggregator": aggregator, "numpy_seed": 7, "n_bootstrap": 50}
    native = compute_rouge(preds, refs, backend="native", **options)
    assert native == compute_rouge(preds, refs, backend="python", **options)
    assert 0.3 < native["rouge1"] < 0.9


def test_environment_variable_chooses_the_backend(texts, monkeypatch):
    preds, refs = texts["preds"][:30], texts["refs"][:30]
    calls = []
    monkeypatch.setattr(rouge_native, "score_into", lambda *a, **k: calls.append(1) or [])
    monkeypatch.setenv("NLGMETRICS_ROUGE_BACKEND", "python")
    python = rouge_scores(preds, refs)
    assert calls == []
    monkeypatch.setenv("NLGMETRICS_ROUGE_BACKEND", "rust")
    with pytest.raises(ValueError, match=r"backend must be .*'rust'.*NLGMETRICS_ROUGE_BACKEND"):
        rouge_scores(preds, refs)
    monkeypatch.undo()
    assert rouge_scores(preds, refs) == python
    with pytest.raises(ValueError, match="backend must be"):
        compute_rouge(preds, refs, backend="fast")


def test_perl_flavor_takes_no_backend():
    with pytest.raises(ValueError, match="backend apply to flavor='rouge_score' only"):
        compute_rouge(["a b"], ["a b"], flavor="rouge155", backend="native")


@pytest.fixture
def without_rouge_score_rs(monkeypatch):
    """rouge_native re-imported as if rouge-score-rs were not installed (its import raising ImportError)."""
    monkeypatch.setitem(sys.modules, "rouge_score_rs", None)
    importlib.reload(rouge_native)
    yield
    monkeypatch.undo()
    importlib.reload(rouge_native)
    assert rouge_native.AVAILABLE


def test_without_rouge_score_rs_everything_is_python(texts, without_rouge_score_rs):
    assert not rouge_native.AVAILABLE and rouge.native_refusal(rouge.make_scorer()) is not None
    preds, refs = texts["preds"][480:520], texts["refs"][480:520]
    auto = rouge_scores(preds, refs, use_stemmer=True)
    assert auto == rouge_scores(preds, refs, use_stemmer=True, backend="python")
    with pytest.raises(ValueError, match="rouge-score-rs is not installed"):
        rouge_scores(preds, refs, backend="native")
