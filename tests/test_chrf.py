"""chrF / chrF++: parity with sacrebleu 2.6 on real WMT17 text (corpus and every sentence score), every option,
several references, edge cases, bad options, the evaluate module."""

from __future__ import annotations

import doctest
import gzip
import json
import math

import numpy as np
import pytest
import sacrebleu
from sacrebleu.metrics import CHRF as SacreCHRF

from nlgmetrics.lexical import chrf as chrf_module
from nlgmetrics.lexical.chrf import CHRF, compute_chrf, split_punctuation
from nlgmetrics.registry import get_metric

from conftest import DATA

TOL = 1e-9


@pytest.fixture(scope="module")
def wmt17_ende_16() -> dict:
    """Every 10th segment of the WMT17 en-de reference and all 16 systems."""
    with gzip.open(DATA / "wmt17_ende_16systems_every10th.json.gz", "rt", encoding="utf-8") as handle:
        return json.load(handle)


def assert_parity(hyps: list[str], refs: list[list[str]], **options) -> dict:
    """Corpus score and every sentence score equal sacrebleu's within 1e-9; returns our result."""
    ours = compute_chrf(hyps, refs, sentence_scores=True, **options)
    n_streams = max(map(len, refs))
    streams = [[r[j] if j < len(r) else None for r in refs] for j in range(n_streams)]
    theirs = SacreCHRF(**options)
    assert abs(ours["score"] - theirs.corpus_score(hyps, streams).score) <= TOL
    sentence = SacreCHRF(**options)
    diffs = [abs(a - sentence.sentence_score(h, r).score) for a, h, r in zip(ours["scores"], hyps, refs)]
    assert max(diffs) <= TOL
    return ours


@pytest.mark.parametrize("word_order", [0, 2])
def test_all_16_wmt17_ende_systems(wmt17_ende_16, word_order):
    refs = [[r] for r in wmt17_ende_16["reference"]]
    assert len(wmt17_ende_16["systems"]) == 16
    for hyps in wmt17_ende_16["systems"].values():
        assert_parity(hyps, refs, word_order=word_order)


def test_full_wmt17_ende_systems_statistics_equal_sacrebleu(wmt17_ende):
    """Three full 3,004-segment systems: every segment's statistics, not only the scores."""
    refs = wmt17_ende["reference"]
    for hyps in wmt17_ende["systems"].values():
        ours = CHRF(word_order=2).corpus_statistics(hyps, [[r] for r in refs])
        sacre = SacreCHRF(word_order=2)
        theirs = sacre._extract_corpus_statistics(hyps, [refs])
        assert ours.tolist() == theirs
        score = compute_chrf(hyps, refs, word_order=2)["score"]
        assert abs(score - sacre._aggregate_and_compute(theirs).score) <= TOL


OPTIONS = [
    {},
    {"word_order": 2},
    {"word_order": 1},
    {"word_order": 3, "char_order": 4},
    {"char_order": 1},
    {"char_order": 3},
    {"char_order": 9},
    {"char_order": 0, "word_order": 2},
    {"beta": 1},
    {"beta": 3, "word_order": 2},
    {"beta": 0.5},
    {"beta": 0},
    {"lowercase": True},
    {"lowercase": True, "word_order": 2},
    {"whitespace": True},
    {"whitespace": True, "word_order": 2, "lowercase": True},
    {"eps_smoothing": True},
    {"eps_smoothing": True, "word_order": 2, "beta": 1},
]


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "default")
def test_every_option_on_wmt17_deen(wmt17_deen, options):
    refs = [[r] for r in wmt17_deen["references"]]
    for name in list(wmt17_deen["systems"])[:4]:
        assert_parity(wmt17_deen["systems"][name], refs, **options)


@pytest.mark.parametrize("options", OPTIONS[:2] + OPTIONS[12:], ids=str)
def test_every_option_on_wmt17_ende(wmt17_ende_16, options):
    refs = [[r] for r in wmt17_ende_16["reference"]]
    assert_parity(wmt17_ende_16["systems"]["online-B.0"], refs, **options)


@pytest.mark.parametrize("options", [{}, {"word_order": 2}, {"eps_smoothing": True, "lowercase": True}], ids=str)
def test_several_references_varying_count(wmt17_ende_16, options):
    """1-3 references per example; sacrebleu takes streams padded with None and keeps the best-scoring one."""
    systems = wmt17_ende_16["systems"]
    refs = [[a] if i % 3 == 0 else [a, b] if i % 3 == 1 else [a, b, c] for i, (a, b, c) in
            enumerate(zip(wmt17_ende_16["reference"], systems["uedin-nmt.4722"], systems["online-A.0"]))]
    ours = assert_parity(systems["online-F.0"], refs, **options)
    assert ours["signature"].startswith("nrefs:var|")
    same_count = assert_parity(systems["KIT.4950"], [r[:1] + [r[-1]] for r in refs], **options)
    assert same_count["signature"].startswith("nrefs:2|")


def test_best_reference_ties_keep_the_first():
    # both references score the same; the first one's statistics are kept (sacrebleu's strict '>')
    stats = CHRF().segment_statistics("abc", ["abd", "abe"])
    assert stats == SacreCHRF()._extract_corpus_statistics(["abc"], [["abd"], ["abe"]])[0]
    assert CHRF().corpus_statistics(["abc"], [["abd", "abe"]]).tolist() == [stats]


EDGE_CASES = [
    ("", "a reference"),
    ("a prediction", ""),
    ("", ""),
    ("   ", "  \t "),
    ("\n", "x"),
    ("x", "x"),
    ("猫坐在垫子上。", "猫坐在垫子上了。"),
    ("I ❤️ 🐍 code 👩‍👩‍👧", "I ❤️ 🐍 python code 👩‍👩‍👧"),
    ("مرحبا بالعالم", "مرحبا يا عالم"),
    ("(hi) there!", "(hi), there !"),
    ("... !!! ?", "... !!! ?"),
    ("a\u00a0b\u2003c", "a b c"),
    ("ÉCOLE Straße", "école strasse"),
]


@pytest.mark.parametrize("options", [{}, {"word_order": 2}, {"whitespace": True, "eps_smoothing": True},
                                     {"lowercase": True, "word_order": 2, "eps_smoothing": True}], ids=str)
def test_edge_cases_get_sacrebleu_scores(options):
    hyps, refs = [h for h, _ in EDGE_CASES], [[r] for _, r in EDGE_CASES]
    ours = assert_parity(hyps, refs, **options)
    assert all(math.isfinite(s) for s in ours["scores"] + [ours["score"]])
    for hyp, (ref,) in zip(hyps, refs):  # each alone, as a one-segment corpus
        single = compute_chrf([hyp], [ref], **options)["score"]
        assert abs(single - SacreCHRF(**options).sentence_score(hyp, [ref]).score) <= TOL


def test_empty_texts_score_zero_or_eps():
    """sacrebleu's values: 0 by default; with eps_smoothing each order without n-grams on a side adds 1e-16."""
    assert compute_chrf([""], [""])["score"] == 0.0
    assert compute_chrf(["abc"], [""])["score"] == 0.0
    assert compute_chrf([""], [""], eps_smoothing=True)["score"] == 1.0000000000000002e-14  # 100 * (6 x 1e-16) / 6
    # orders 1-3 of the reference have n-grams (F = 0 there), orders 4-6 have none on either side (1e-16 each)
    assert compute_chrf([""], ["abc"], eps_smoothing=True)["score"] == 5e-15


def test_large_alphabet_uses_the_per_segment_path_and_matches():
    """More distinct reference characters than 63-bit keys can hold at order 6: scored segment by segment."""
    chars = [chr(0x4E00 + i) for i in range(1600)]
    refs = ["".join(chars[i : i + 40]) for i in range(0, 1600, 40)]
    hyps = ["".join(chars[i + 3 : i + 30]) + "的" for i in range(0, 1600, 40)]
    assert chrf_module._reference_set(tuple((r,) for r in refs), 6, 0, False, False) is None
    assert_parity(hyps, [[r] for r in refs])
    assert_parity(hyps, [[r] for r in refs], char_order=3, word_order=2)  # fits again: vectorized


def test_segments_in_several_chunks(wmt17_deen):
    """char_order=10: base^10 is large enough that the 150 segments are encoded in two chunks."""
    refs = wmt17_deen["references"]
    encoded = chrf_module._reference_set(tuple((r,) for r in refs), 10, 0, False, False)
    assert 1 <= encoded.chars.chunk < len(refs)
    assert_parity(wmt17_deen["systems"]["online-B.0"], [[r] for r in refs], char_order=10)


def test_vectorized_and_per_segment_statistics_agree(wmt17_ende_16):
    refs = [[r, h] for r, h in zip(wmt17_ende_16["reference"], wmt17_ende_16["systems"]["xmu.4910"])]
    hyps = wmt17_ende_16["systems"]["LIUM-NMT.4900"]
    for chrf in (CHRF(), CHRF(word_order=2, lowercase=True), CHRF(char_order=2, whitespace=True, beta=1)):
        per_segment = [chrf.segment_statistics(h, r) for h, r in zip(hyps, refs)]
        assert chrf.corpus_statistics(hyps, refs).tolist() == per_segment


def test_split_punctuation_as_sacrebleu():
    text = "(hi) there, 'quoted' a . -- x! ?y"
    assert split_punctuation(text) == SacreCHRF(word_order=2)._remove_punctuation(text)
    assert split_punctuation("(hi)") == ["(hi", ")"]


def test_signature_matches_sacrebleu_except_version():
    for options in [{}, {"word_order": 2, "lowercase": True, "whitespace": True, "eps_smoothing": True, "beta": 3}]:
        metric = SacreCHRF(**options)
        metric.corpus_score(["x"], [["x"]])
        theirs = str(metric.get_signature()).rsplit("|version:", 1)[0]
        beta = f"|beta:{options['beta']}" if options.get("beta", 2) != 2 else ""  # sacrebleu's format omits beta
        assert compute_chrf(["x"], ["x"], **options)["signature"] == theirs + beta + "|version:nlgmetrics-0.1.0"


def test_result_keys_and_object_api(wmt17_deen):
    hyps, refs = wmt17_deen["systems"]["online-A.0"], wmt17_deen["references"]
    result = compute_chrf(hyps, refs, word_order=2, beta=3)
    assert list(result) == ["score", "char_order", "word_order", "beta", "signature"]
    assert (result["char_order"], result["word_order"], result["beta"]) == (6, 2, 3)
    chrf = CHRF(word_order=2, beta=3)
    stats = chrf.corpus_statistics(hyps, [[r] for r in refs])
    assert stats.shape == (150, 24) and stats.dtype == np.int64
    assert chrf.score_from_statistics(stats.sum(axis=0)).score == result["score"]
    assert chrf.corpus_score(hyps, [[r] for r in refs]).name == "chrF3++"
    assert chrf.sentence_score(hyps[0], [refs[0]]).score == pytest.approx(
        sacrebleu.sentence_chrf(hyps[0], [refs[0]], word_order=2, beta=3).score, abs=TOL)
    assert get_metric("chrf") is compute_chrf


def test_bootstrap_is_seeded_and_matches_sacrebleu(wmt17_ende_16):
    refs = wmt17_ende_16["reference"]
    hyps = wmt17_ende_16["systems"]["uedin-nmt.4722"]
    first = compute_chrf(hyps, refs, n_bootstrap=200)
    assert first == compute_chrf(hyps, refs, n_bootstrap=200)
    assert first["score_mean"] != compute_chrf(hyps, refs, n_bootstrap=200, seed=7)["score_mean"]
    assert first["score_low"] <= first["score"] <= first["score_high"]
    assert first["signature"].startswith("nrefs:1|bs:200|seed:12345|")
    theirs = SacreCHRF().corpus_score(hyps, [refs], n_bootstrap=200)
    # sacrebleu scores the resampled statistics in float32; the difference stays far below the printed precision
    assert abs(first["score_mean"] - theirs._mean) <= 1e-4
    assert abs(first["score_ci"] - theirs._ci) <= 1e-4


def test_reference_cache_is_keyed_by_settings():
    refs = ["The Cat sat."]
    assert compute_chrf(["the cat sat."], refs)["score"] != compute_chrf(["the cat sat."], refs, lowercase=True)["score"]
    assert compute_chrf(["the cat sat."], refs, lowercase=True)["score"] == 100.0
    assert compute_chrf(["thecat sat."], refs, lowercase=True)["score"] == 100.0
    assert compute_chrf(["thecat sat."], refs, lowercase=True, whitespace=True)["score"] < 100.0


@pytest.mark.parametrize(
    "options, match",
    [({"char_order": -1}, r"char_order must be an integer in \[0, 32\]"),
     ({"char_order": 6.0}, r"char_order must be an integer, got float 6.0"),  # the type rule (options.py)
     ({"word_order": True}, r"word_order must be an integer, got bool True"),
     ({"word_order": "2"}, r"word_order must be an integer, got str '2'"),
     ({"char_order": 0}, "both 0"),
     ({"beta": -1}, r"beta must be a finite number in \[0, 1e\+06\]"),
     ({"beta": "2"}, "beta must be a finite number, got str"),
     ({"beta": float("nan")}, r"beta must be a finite number, got float nan")],
)
def test_bad_options_raise(options, match):
    with pytest.raises((ValueError, TypeError), match=match):
        compute_chrf(["a"], ["a"], **options)


@pytest.mark.parametrize(
    "predictions, references, error, match",
    [(["a", "b"], ["a"], ValueError, "2 predictions but 1 references"),
     ([], [], ValueError, "no examples"),
     (["a"], [[]], ValueError, "empty list"),
     ([None], ["a"], TypeError, r"predictions\[0\] must be a string")],
)
def test_bad_input_raises_named_errors(predictions, references, error, match):
    with pytest.raises(error, match=match):
        compute_chrf(predictions, references)


def test_evaluate_module_matches_hf_chrf_and_doctest(wmt17_deen):
    import inspect

    import evaluate

    module = evaluate.load("./metrics/chrf")
    hyps, refs = wmt17_deen["systems"]["online-B.0"][:60], wmt17_deen["references"][:60]
    result = module.compute(predictions=hyps, references=[[r] for r in refs], word_order=2, lowercase=True)
    assert abs(result["score"] - SacreCHRF(word_order=2, lowercase=True).corpus_score(hyps, [refs]).score) <= TOL
    assert {"score", "char_order", "word_order", "beta"} <= set(result)
    varying = module.compute(predictions=hyps[:2], references=[[refs[0]], [refs[1], "x"]], sentence_scores=True,
                             return_signature=True)
    assert len(varying["scores"]) == 2 and varying["signature"].startswith("nrefs:var|")
    parameters = inspect.signature(type(module)._compute).parameters.values()
    assert all(p.kind != p.VAR_KEYWORD for p in parameters)  # HF's test_metric_common.test_load
    parser = doctest.DocTestParser()
    test = parser.get_doctest(module.inputs_description, {"evaluate": evaluate}, "chrf", None, 0)
    runner = doctest.DocTestRunner()
    runner.run(test)
    assert runner.tries >= 5 and runner.failures == 0


def test_reference_corpus_cache_is_bounded_by_bytes(monkeypatch):
    """Issue 29.8: chrF's reference cache kept up to four encoded corpora whatever their size (~530 MB each for 10**5
    pairs: 2.2 GB after the calls). It is bounded by bytes now: a corpus over the budget is not kept."""
    from nlgmetrics import _cache

    refs = [f"reference number {i} with some words" for i in range(2000)]
    preds = [f"prediction number {i} with words" for i in range(2000)]
    chrf_module._reference_set.cache_clear()
    compute_chrf(preds, refs)
    info = chrf_module._reference_set.cache_info()
    assert info.currsize == 1 and 0 < info.bytes <= info.maxsize == _cache.REFERENCE_CORPUS_BYTES
    assert info.bytes >= _cache.deep_size(chrf_module._reference_set(tuple((r,) for r in refs), 6, 0, False, False))
    budget = info.bytes * 3 - 1  # room for two such corpora (a little larger each), not three
    small = _cache.byte_lru_cache(budget)(chrf_module._reference_set.__wrapped__)
    for shift in range(3):
        small(tuple((r + "x" * shift,) for r in refs), 6, 0, False, False)
        assert small.cache_info().bytes <= budget
    assert small.cache_info().currsize == 2
    tiny = _cache.byte_lru_cache(10)(chrf_module._reference_set.__wrapped__)
    assert tiny(tuple((r,) for r in refs), 6, 0, False, False) is not None and tiny.cache_info().currsize == 0
