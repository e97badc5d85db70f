"""ROUGE: rouge_score 0.1.2 parity on real WMT17 text (the default tokenizer, any text), hand-derived W/S/SU values,
multilingual text and the lost-letters warning, bad input, the evaluate module. HF evaluate's aggregate and module:
tests/test_rouge_hf.py; long texts: tests/test_rouge_long.py."""

from __future__ import annotations

import doctest
import html
import math
import random
import warnings

import pytest
import regex
from rouge_score import rouge_scorer, tokenizers

from nlgmetrics.lexical.rouge import (
    compute_rouge,
    lcs_length,
    lcs_positions,
    parse_rouge_type,
    rouge_scores,
    skip_bigram_counter,
    wlcs,
)
from nlgmetrics.text.rouge_tokenize import get_rouge_tokenizer, tokenizer_for_lang

# the lost-letters warning is tested where it is meant to be seen (pytest.warns still records it there)
pytestmark = pytest.mark.filterwarnings(r"ignore:ROUGE. \d+ of \d+ texts:UserWarning")

PARITY_TYPES = ["rouge1", "rouge2", "rouge3", "rouge4", "rouge9", "rougeL", "rougeLsum"]
TOL = 1e-9


@pytest.fixture(scope="module")
def deen(wmt17_deen) -> dict:
    """The 150-segment WMT17 de-en slice, HTML-unescaped: reference and 11 systems."""
    refs = [html.unescape(r) for r in wmt17_deen["references"]]
    systems = {name: [html.unescape(h) for h in hyps] for name, hyps in wmt17_deen["systems"].items()}
    return {"refs": refs, "systems": systems}


def assert_close(ours: tuple, score, context: str) -> None:
    theirs = (score.precision, score.recall, score.fmeasure)
    assert max(abs(a - b) for a, b in zip(ours, theirs)) <= TOL, (context, ours, theirs)


# ---------------------------------------------------------------------------------------------------------------------
# parity with rouge_score
@pytest.mark.parametrize("use_stemmer", [False, True])
def test_per_example_parity_every_type_all_systems(deen, use_stemmer):
    """The default tokenizer is rouge_score's on every text, "günter" included: per example, delta 0."""
    scorer = rouge_scorer.RougeScorer(PARITY_TYPES, use_stemmer=use_stemmer)
    refs = deen["refs"]
    checked = non_ascii = 0
    for name, hyps in deen["systems"].items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ours = rouge_scores(hyps, refs, PARITY_TYPES, use_stemmer=use_stemmer)
        assert ours == rouge_scores(hyps, refs, PARITY_TYPES, tokenizer="rouge_score", use_stemmer=use_stemmer)
        for i, (hyp, ref, row) in enumerate(zip(hyps, refs, ours)):
            theirs = scorer.score(ref, hyp)
            non_ascii += not (_plain(hyp) and _plain(ref))
            for rouge_type in PARITY_TYPES:
                assert row[rouge_type] == tuple(theirs[rouge_type]), (name, i, rouge_type)
                checked += 1
    assert checked == 11 * 150 * len(PARITY_TYPES) and non_ascii >= 20


def _plain(text: str) -> bool:
    """All letters, digits and marks are ASCII: the unicode tokenizer equals rouge_score's there."""
    return not regex.search(r"[[^\x00-\x7f]&&[\p{L}\p{N}\p{M}]]", text, flags=regex.V1)


@pytest.mark.parametrize("use_stemmer", [False, True])
def test_default_equals_rouge_score_on_german_text(wmt17_ende, use_stemmer):
    """WMT17 en-de: German references and system outputs, most with umlauts or ß; delta 0 per example."""
    types = ["rouge1", "rouge2", "rougeL", "rougeLsum"]
    scorer = rouge_scorer.RougeScorer(types, use_stemmer=use_stemmer)
    refs, hyps = wmt17_ende["reference"][:400], wmt17_ende["systems"]["online-F.0"][:400]
    with pytest.warns(UserWarning, match=r"ROUGE: \d+ of 800 texts"):
        result = compute_rouge(hyps, refs, use_aggregator=False, use_stemmer=use_stemmer)
    lost = 0
    for i, (hyp, ref) in enumerate(zip(hyps, refs)):
        theirs = scorer.score(ref, hyp)
        lost += not (_plain(hyp) and _plain(ref))
        for t in types:
            assert (result[f"{t}_precision"][i], result[f"{t}_recall"][i], result[t][i]) == tuple(theirs[t]), (i, t)
    assert lost > 200


def test_the_issue_example_gives_rouge_scores_number(deen):
    """issue 16: C-3MA's line 48 of WMT17 de-en gave rouge1 0.7692 (the unicode tokenizer) where rouge_score and HF
    give 0.7857; the default is now rouge_score's, with a warning; lang="de" keeps "günter" whole."""
    hyp = "in aachen , he met first winner hans günter winkler on saturday ."
    ref = deen["refs"][47]
    assert "günter" in ref
    with pytest.warns(UserWarning, match="lang="):
        ours = compute_rouge([hyp], [ref], rouge_types=["rouge1"])["rouge1"]
    assert ours == rouge_scorer.RougeScorer(["rouge1"]).score(ref, hyp)["rouge1"].fmeasure
    assert round(ours, 4) == 0.7857
    assert round(compute_rouge([hyp], [ref], rouge_types=["rouge1"], lang="de")["rouge1"], 4) == 0.7692
    assert compute_rouge([hyp], [ref], lang="de") == compute_rouge([hyp], [ref], tokenizer="unicode")


def test_aggregate_mean_is_the_mean_of_rouge_score_values(deen):
    refs, hyps = deen["refs"], deen["systems"]["online-B.0"]
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL", "rougeLsum"], use_stemmer=True)
    theirs = [scorer.score(r, h) for r, h in zip(refs, hyps)]
    ours = compute_rouge(hyps, refs, use_stemmer=True, tokenizer="rouge_score", aggregator="mean")
    assert ours == compute_rouge(hyps, refs, use_stemmer=True, tokenizer="rouge_score")  # the core's default
    for t in ["rouge1", "rouge2", "rougeL", "rougeLsum"]:
        assert abs(ours[t] - math.fsum(s[t].fmeasure for s in theirs) / len(theirs)) <= TOL
        assert abs(ours[f"{t}_precision"] - math.fsum(s[t].precision for s in theirs) / len(theirs)) <= TOL
        assert abs(ours[f"{t}_recall"] - math.fsum(s[t].recall for s in theirs) / len(theirs)) <= TOL
    per_example = compute_rouge(hyps, refs, use_stemmer=True, tokenizer="rouge_score", use_aggregator=False)
    assert per_example["rougeL"] == [s["rougeL"].fmeasure for s in theirs]


@pytest.mark.parametrize("use_stemmer", [False, True])
def test_multiline_rougelsum_parity(deen, use_stemmer):
    scorer = rouge_scorer.RougeScorer(["rougeLsum", "rougeL"], use_stemmer=use_stemmer)
    refs, hyps = deen["refs"], deen["systems"]["uedin-nmt.4723"]
    summaries = ["\n".join(hyps[i : i + 3]) for i in range(0, 150, 3)]
    targets = ["\n\n".join(refs[i : i + 4]) for i in range(0, 150, 3)]
    ours = rouge_scores(summaries, targets, ["rougeLsum", "rougeL"], tokenizer="rouge_score", use_stemmer=use_stemmer)
    for i, (s, t, row) in enumerate(zip(summaries, targets, ours)):
        theirs = scorer.score(t, s)
        assert_close(row["rougeLsum"], theirs["rougeLsum"], f"{i} rougeLsum")
        assert_close(row["rougeL"], theirs["rougeL"], f"{i} rougeL")


def test_best_reference_parity_with_score_multi(deen):
    types = ["rouge1", "rouge2", "rougeL", "rougeLsum"]
    scorer = rouge_scorer.RougeScorer(types, use_stemmer=True)
    systems = deen["systems"]
    hyps = systems["KIT.4951"]
    refs = [[r, a, b] for r, a, b in zip(deen["refs"], systems["online-A.0"], systems["SYSTRAN.4846"])]
    ours = rouge_scores(hyps, refs, types, tokenizer="rouge_score", use_stemmer=True)
    for i, (hyp, ref, row) in enumerate(zip(hyps, refs, ours)):
        theirs = scorer.score_multi(ref, hyp)
        for t in types:
            assert_close(row[t], theirs[t], f"{i} {t}")


def test_tokenizer_objects_and_callables_as_rouge_score(deen):
    refs, hyps = deen["refs"][:40], deen["systems"]["C-3MA.4958"][:40]
    stemming = tokenizers.DefaultTokenizer(use_stemmer=True)
    scorer = rouge_scorer.RougeScorer(["rouge1", "rougeL"], tokenizer=stemming)
    ours = rouge_scores(hyps, refs, ["rouge1", "rougeL"], tokenizer=stemming)
    for hyp, ref, row in zip(hyps, refs, ours):
        theirs = scorer.score(ref, hyp)
        assert_close(row["rouge1"], theirs["rouge1"], hyp)
        assert_close(row["rougeL"], theirs["rougeL"], hyp)
    # a plain callable: tokens used as they are (case kept, no stemming)
    result = compute_rouge(["The cats"], ["the cats"], rouge_types=["rouge1"], tokenizer=str.split, use_stemmer=True)
    assert result["rouge1"] == 0.5


def test_bit_parallel_lcs_matches_the_table():
    rng = random.Random(7)
    for _ in range(500):
        a = [rng.choice("abcde") for _ in range(rng.randint(0, 70))]
        b = [rng.choice("abcde") for _ in range(rng.randint(0, 70))]
        table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
        for i in range(1, len(a) + 1):
            for j in range(1, len(b) + 1):
                table[i][j] = table[i - 1][j - 1] + 1 if a[i - 1] == b[j - 1] else max(table[i - 1][j], table[i][j - 1])
        assert lcs_length(a, b) == table[-1][-1]
        positions = sorted(lcs_positions(a, b))
        assert len(positions) == table[-1][-1]
        assert (rouge_scorer.lcs_ind(a, b) if a and b else []) == positions


# ---------------------------------------------------------------------------------------------------------------------
# hand-derived values (Lin 2004)
def _one(prediction: str, reference: str, rouge_type: str, **options) -> tuple[float, float, float]:
    return rouge_scores([prediction], [reference], [rouge_type], **options)[0][rouge_type]


def test_rouge_w_paper_example():
    # Lin 2004, 3.3: X = A B C D E F G; Y1 = A B C D H I K; Y2 = A H B K C I D. Both share an LCS of length 4 with X,
    # consecutive in Y1 and scattered in Y2. With f(k) = k^2: WLCS(X, Y1) = 4^2 = 16, WLCS(X, Y2) = 4 * 1^2 = 4.
    x, y1, y2 = "a b c d e f g", "a b c d h i k", "a h b k c i d"
    assert wlcs(x.split(), y1.split(), 2.0) == 16.0
    assert wlcs(x.split(), y2.split(), 2.0) == 4.0
    # R = P = f^-1(WLCS / f(7)) = sqrt(16 / 49) = 4/7 and sqrt(4 / 49) = 2/7; F = R = P.
    for got, want in zip(_one(y1, x, "rougeW-2"), (4 / 7, 4 / 7, 4 / 7)):
        assert got == pytest.approx(want, abs=1e-12)
    for got, want in zip(_one(y2, x, "rougeW", weight_factor=2.0), (2 / 7, 2 / 7, 2 / 7)):
        assert got == pytest.approx(want, abs=1e-12)
    # Default w = 1.2: one run of 4 gives (4^1.2 / 7^1.2)^(1/1.2) = 4/7 again; four runs of 1 give 4^(1/1.2) / 7.
    assert _one(y1, x, "rougeW")[1] == pytest.approx(4 / 7, abs=1e-12)
    assert _one(y2, x, "rougeW")[1] == pytest.approx(4 ** (1 / 1.2) / 7, abs=1e-12)
    # ROUGE-L cannot tell them apart.
    assert _one(y1, x, "rougeL") == _one(y2, x, "rougeL") == (4 / 7, 4 / 7, 4 / 7)


def test_rouge_w_with_weight_one_is_rouge_l(deen):
    refs, hyps = deen["refs"][:60], deen["systems"]["online-G.0"][:60]
    w1 = compute_rouge(hyps, refs, rouge_types=["rougeW-1", "rougeL"], use_aggregator=False)
    for key in ["", "_precision", "_recall"]:
        assert w1["rougeW-1" + key] == pytest.approx(w1["rougeL" + key], abs=1e-12)


def test_rouge_s_paper_example():
    # Lin 2004, 5.1: S1 = "police killed the gunman" has C(4,2) = 6 skip-bigrams: police-killed, police-the,
    # police-gunman, killed-the, killed-gunman, the-gunman. S2 "police kill the gunman" shares 3 (police-the,
    # police-gunman, the-gunman) -> 3/6; S3 "the gunman kill police" shares 1 (the-gunman) -> 1/6; S4 "the gunman
    # police killed" shares 2 (the-gunman, police-killed) -> 2/6. P = R, so F = R (beta = 1).
    s1 = "police killed the gunman"
    for candidate, want in [("police kill the gunman", 0.5), ("the gunman kill police", 1 / 6),
                            ("the gunman police killed", 1 / 3)]:
        p, r, f = _one(candidate, s1, "rougeS*")
        assert p == pytest.approx(want) and r == pytest.approx(want) and f == pytest.approx(want)
    # S5 "gunman the killed police" (S1 reversed) shares no skip-bigram: ROUGE-S = 0; ROUGE-SU adds the 4 unigrams,
    # all matched: (0 + 4) / (6 + 4) = 0.4. (ROUGE-1.5.5's -u would count only 3 unigrams per side: 2/9.)
    assert _one("gunman the killed police", s1, "rougeS*") == (0.0, 0.0, 0.0)
    assert _one("gunman the killed police", s1, "rougeSU*") == pytest.approx((0.4, 0.4, 0.4))


def test_skip_distance_counts_and_limits():
    tokens = "a b c d e f g".split()
    # pairs with j - i <= d + 1: d = 4 excludes only (a, g): 21 - 1 = 20; d = 0 leaves the 6 bigrams
    assert sum(skip_bigram_counter(tokens, 4).values()) == 20
    assert sum(skip_bigram_counter(tokens, None).values()) == 21
    assert sum(skip_bigram_counter(tokens, 0).values()) == 6
    assert sum(skip_bigram_counter(tokens, 4, unigrams=True).values()) == 27
    # "a g" against the 7 tokens: (a, g) is 5 tokens apart in the reference, outside S4 but inside S*:
    # S*: hit 1, R = 1/21, P = 1/1, F = 2 * (1/21) / (1 + 1/21) = 1/11
    assert _one("a g", "a b c d e f g", "rougeS4") == (0.0, 0.0, 0.0)
    assert _one("a g", "a b c d e f g", "rougeS*") == pytest.approx((1.0, 1 / 21, 1 / 11))
    # SU4: hits (a, g unigrams) 2, totals 27 and 3 -> R = 2/27, P = 2/3
    p, r, f = _one("a g", "a b c d e f g", "rougeSU4")
    assert (p, r) == pytest.approx((2 / 3, 2 / 27)) and f == pytest.approx(2 * p * r / (p + r))


def test_rouge_s0_equals_rouge2(deen):
    refs, hyps = deen["refs"][:60], deen["systems"]["TALP-UPC.4830"][:60]
    result = compute_rouge(hyps, refs, rouge_types=["rougeS0", "rouge2"], use_aggregator=False)
    assert result["rougeS0"] == result["rouge2"]


def test_alpha_beta_and_perl_averaging():
    # rouge1 of "a b c d" against "a b": P = 2/4, R = 2/2
    assert _one("a b c d", "a b", "rouge1") == (0.5, 1.0, 2 * 0.5 / 1.5)
    assert _one("a b c d", "a b", "rouge1", alpha=1.0)[2] == pytest.approx(0.5)  # alpha -> 1: precision
    assert _one("a b c d", "a b", "rouge1", alpha=0.0)[2] == pytest.approx(1.0)  # alpha -> 0: recall
    assert _one("a b c d", "a b", "rouge1", beta=2.0)[2] == pytest.approx(5 * 0.5 / (4 * 0.5 + 1))
    assert _one("a b c d", "a b", "rouge1", alpha=0.5) == _one("a b c d", "a b", "rouge1", beta=1.0)
    # "a b" against ["a b", "c d"]: best reference F = 1; ROUGE-1.5.5 -f A pools hits 2 + 0 over totals 2 + 2 -> 0.5
    best = compute_rouge(["a b"], [["a b", "c d"]], rouge_types=["rouge1", "rougeL"])
    average = compute_rouge(["a b"], [["a b", "c d"]], rouge_types=["rouge1", "rougeL"], multi_ref="average")
    assert best["rouge1"] == best["rougeL"] == 1.0
    assert average["rouge1"] == average["rougeL"] == 0.5 and average["rouge1_precision"] == 0.5


def test_bootstrap_is_seeded(deen):
    refs, hyps = deen["refs"], deen["systems"]["LIUM-NMT.4733"]
    a = compute_rouge(hyps, refs, rouge_types=["rouge1", "rougeL"], n_bootstrap=200)
    b = compute_rouge(hyps, refs, rouge_types=["rouge1", "rougeL"], n_bootstrap=200)
    c = compute_rouge(hyps, refs, rouge_types=["rouge1", "rougeL"], n_bootstrap=200, seed=1)
    assert a == b and a != c
    for key in ["rouge1", "rouge1_precision", "rougeL_recall"]:
        assert a[f"{key}_low"] < a[f"{key}_mid"] < a[f"{key}_high"]
        assert abs(a[f"{key}_mid"] - a[key]) < 0.02


# ---------------------------------------------------------------------------------------------------------------------
# multilingual text and the lost-letters warning
MULTILINGUAL = [
    ("zh", "我喜欢猫。", "我很喜欢猫", ["我", "喜", "欢", "猫"]),
    ("ja", "猫が好きです", "猫が大好きです", ["猫", "が", "好", "き", "で", "す"]),
    ("ru", "Привет, мир!", "привет всему миру", ["привет", "мир"]),
    ("ar", "مرحبا بالعالم", "مرحبا يا عالم", ["مرحبا", "بالعالم"]),
    ("fr", "Le café est très bon.", "le café était très bon", ["le", "café", "est", "très", "bon"]),
    ("hi", "हिन्दी भाषा", "हिन्दी एक भाषा है", ["हिन्दी", "भाषा"]),
]


@pytest.mark.parametrize("lang, prediction, reference, tokens", MULTILINGUAL)
def test_other_scripts_score_above_zero_with_lang(lang, prediction, reference, tokens):
    assert list(get_rouge_tokenizer("unicode")(prediction)) == tokens
    result = compute_rouge([prediction], [reference], rouge_types=["rouge1", "rougeL", "rougeLsum", "rougeSU4"],
                           lang=lang)
    assert all(0 < result[key] < 1 for key in ["rouge1", "rougeL", "rougeLsum", "rougeSU4"])
    assert compute_rouge([prediction], [prediction], lang=lang)["rouge1"] == 1.0
    assert compute_rouge([prediction], [prediction], lang=lang, use_stemmer=True)["rougeL"] == 1.0
    # the default (rouge_score's, as HF) drops these letters, with one warning that names the fix
    scorer = rouge_scorer.RougeScorer(["rouge1", "rougeL"])
    with pytest.warns(UserWarning) as record:
        default = compute_rouge([prediction], [reference], rouge_types=["rouge1", "rougeL"])
    assert len(record) == 1
    assert "2 of 2 texts" in str(record[0].message) and "tokenizer='unicode'" in str(record[0].message)
    assert default["rouge1"] == scorer.score(reference, prediction)["rouge1"].fmeasure
    assert default["rougeL"] == scorer.score(reference, prediction)["rougeL"].fmeasure


def test_one_lost_letters_warning_per_call_counting_texts():
    predictions = ["the café", "plain text", "猫が好きです"]
    references = [["le café", "a cafe"], "plain text", ["ascii only", "naïve", "x"]]
    with pytest.warns(UserWarning) as record:
        compute_rouge(predictions, references)
    assert len(record) == 1
    message = str(record[0].message)
    assert "4 of 9 texts" in message and "'é' in predictions[0]" in message
    assert "tokenizer='unicode'" in message and "lang='de'" in message
    with pytest.warns(UserWarning, match=r"1 of 3 texts .*'ï' in references\[0\]\[1\]"):
        compute_rouge(["plain"], [["plain", "naïve"]])
    # no warning: ASCII text, or a tokenizer / language chosen explicitly
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compute_rouge(["plain text"], ["plain text!"])
        for options in ({"tokenizer": "unicode"}, {"tokenizer": "rouge_score"}, {"lang": "ja"}, {"lang": "en"},
                        {"tokenizer": str.split}):
            compute_rouge(predictions, references, **options)
    assert get_rouge_tokenizer()("Günter café") == ("g", "nter", "caf")  # None: the default, rouge_score's


def test_lang_shortcut():
    assert tokenizer_for_lang("en") is None and tokenizer_for_lang("en-GB") is None
    assert {tokenizer_for_lang(code) for code in ("de", "zh", "ja", "pt-BR", "zh_Hant", "fra")} == {"unicode"}
    for bad in ("", "german!", "x"):
        with pytest.raises(ValueError, match="tokenizer='unicode'"):
            compute_rouge(["a"], ["a"], lang=bad)
    with pytest.raises(TypeError, match="lang must be text or None, got int 3"):  # the type rule (options.py)
        compute_rouge(["a"], ["a"], lang=3)
    with pytest.raises(ValueError, match="not both"):
        compute_rouge(["a"], ["a"], lang="de", tokenizer="whitespace")


def test_unicode_tokenizer_folds_case_and_normalises():
    tokenize = get_rouge_tokenizer("unicode")
    assert tokenize("STRASSE Straße") == ("strasse", "strasse")
    assert tokenize("cafe\u0301 café") == ("café", "café")  # decomposed and precomposed é
    assert compute_rouge(["Привет Мир"], ["привет мир"], tokenizer="unicode")["rouge2"] == 1.0
    # rouge_score's tokenizer (the default) loses non-ASCII letters: Chinese has no tokens at all
    with pytest.warns(UserWarning):
        assert compute_rouge(["我喜欢猫"], ["我喜欢猫"])["rouge1"] == 0.0
    assert compute_rouge(["我喜欢猫"], ["我喜欢猫"], tokenizer="rouge_score")["rouge1"] == 0.0
    # stemming only touches ASCII words
    assert get_rouge_tokenizer("unicode", use_stemmer=True)("running café ходить") == ("run", "café", "ходить")
    assert get_rouge_tokenizer("whitespace", use_stemmer=True)("Running, fast") == ("running,", "fast")


# ---------------------------------------------------------------------------------------------------------------------
# empty text and bad input
@pytest.mark.parametrize("prediction, reference", [("", "a b c"), ("a b c", ""), ("", ""), ("!!! ...", "a b"),
                                                   ("\n\n", "a\nb")])
def test_empty_texts_score_zero(prediction, reference):
    types = ["rouge1", "rouge2", "rougeL", "rougeLsum", "rougeW", "rougeS4", "rougeSU*"]
    result = compute_rouge([prediction], [reference], rouge_types=types)
    assert all(value == 0.0 for key, value in result.items() if key != "signature")
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL", "rougeLsum"])
    theirs = scorer.score(reference, prediction)
    assert all(theirs[t].fmeasure == result[t] for t in theirs)


@pytest.mark.parametrize(
    "predictions, references, error, match",
    [
        (["a", "b"], ["a"], ValueError, "2 predictions but 1 references"),
        ([None], ["a"], TypeError, r"predictions\[0\] must be a string"),
        (["a"], [None], TypeError, r"references\[0\] must be a string or a list"),
        (["a"], [["a", 3]], TypeError, r"references\[0\]\[1\] must be a string"),
        ([], [], ValueError, "no examples"),
        (["a"], [[]], ValueError, "empty list"),
        ("a b", ["a b"], TypeError, "list of strings"),
    ],
)
def test_bad_input_raises_named_errors(predictions, references, error, match):
    with pytest.raises(error, match=match):
        compute_rouge(predictions, references)


@pytest.mark.parametrize(
    "options, error, match",
    [
        ({"rouge_types": ["rouge0"]}, ValueError, "invalid ROUGE type 'rouge0'"),
        ({"rouge_types": ["rouge10"]}, ValueError, "rouge1..rouge9"),
        ({"rouge_types": ["rougeS"]}, ValueError, "rougeS4"),
        ({"rouge_types": [1]}, TypeError, "rouge_types must be a list of text, text or None, got list"),
        ({"rouge_types": []}, ValueError, "non-empty"),
        ({"multi_ref": "max"}, ValueError, "multi_ref"),
        ({"alpha": 0.3, "beta": 2}, ValueError, "not both"),
        ({"alpha": 1.5}, ValueError, "alpha"),
        ({"weight_factor": 0.5, "rouge_types": ["rougeW"]}, ValueError, "weight_factor"),
        ({"n_bootstrap": 100, "use_aggregator": False}, ValueError, "use_aggregator"),
        ({"n_bootstrap": 1}, ValueError, "at least 2"),
        ({"tokenizer": "nltk"}, ValueError, "unknown tokenizer"),
        ({"tokenizer": 3}, TypeError, "tokenizer must be"),
        ({"tokenizer": lambda text: [1, 2]}, TypeError, "list of strings"),
        # non-finite values: a named ValueError, never a NaN score (beta=inf used to give NaN)
        ({"beta": math.inf}, ValueError, "beta must be a finite number"),
        ({"beta": math.nan}, ValueError, "beta must be a finite number"),
        ({"beta": -1.0}, ValueError, "beta"),
        ({"alpha": math.nan}, ValueError, "alpha must be a finite number"),
        ({"alpha": math.inf}, ValueError, "alpha"),
        ({"weight_factor": math.inf, "rouge_types": ["rougeW"]}, ValueError, "weight_factor"),
        ({"weight_factor": math.nan}, ValueError, "weight_factor"),
        ({"rouge_types": ["rougeW-" + "9" * 400]}, ValueError, "weight_factor"),
        ({"n_bootstrap": math.inf}, ValueError, "n_bootstrap"),
        ({"n_bootstrap": 10.5}, ValueError, "n_bootstrap"),
        ({"confidence_interval": math.nan}, ValueError, "confidence_interval"),
        ({"confidence_interval": 1.01, "n_bootstrap": 10}, ValueError, r"confidence_interval must be a number in \[0, 1\]"),
        ({"confidence_interval": -0.0001, "n_bootstrap": 10}, ValueError, "confidence_interval"),
        ({"seed": -1}, ValueError, "seed"),
        ({"seed": 1.5}, ValueError, "seed"),
        ({"numpy_seed": 2**32}, ValueError, "numpy_seed"),
        ({"numpy_seed": "42"}, ValueError, "numpy_seed"),
        ({"aggregator": "median"}, ValueError, "aggregator must be 'mean'"),
        ({"use_stemmer": "False"}, TypeError, "use_stemmer must be True or False"),
        ({"use_aggregator": "no"}, TypeError, "use_aggregator must be True or False"),
        ({"split_summaries": None}, TypeError, "split_summaries must be True or False"),
    ],
)
def test_bad_options_raise(options, error, match):
    with pytest.raises(error, match=match):
        compute_rouge(["a b"], ["a b"], **options)


def test_type_names_parse():
    assert parse_rouge_type("rougeSU*").unigrams and parse_rouge_type("rougeSU*").skip is None
    assert parse_rouge_type("rougeS4").skip == 4 and not parse_rouge_type("rougeS4").unigrams
    assert parse_rouge_type("rougeW-1.5").weight == 1.5 and parse_rouge_type("rougeW").weight == 1.2
    result = compute_rouge(["a b"], ["a b"], rouge_types="rouge1")  # one name as a string
    assert set(result) == {"rouge1", "rouge1_precision", "rouge1_recall", "signature"}


# ---------------------------------------------------------------------------------------------------------------------
# evaluate module and registry
def test_evaluate_module_end_to_end_and_doctest(deen):
    import evaluate

    module = evaluate.load("./metrics/rouge", seed=3)
    refs, hyps = deen["refs"][:50], deen["systems"]["RWTH-nmt-ensemble.4920"][:50]
    result = module.compute(predictions=hyps, references=refs, use_stemmer=True, aggregator="mean",
                            return_details=True)
    assert {"rouge1", "rouge2", "rougeL", "rougeLsum"} <= set(result)
    assert result == compute_rouge(hyps, refs, use_stemmer=True)
    # the module's default aggregate is HF's: rouge_score's bootstrap mid, numpy seeded with the module's seed
    hf_default = module.compute(predictions=hyps, references=refs, use_stemmer=True, return_details=True)
    assert hf_default == compute_rouge(hyps, refs, use_stemmer=True, aggregator="bootstrap", numpy_seed=3)
    assert hf_default != result and abs(hf_default["rouge1"] - result["rouge1"]) < 0.01
    listed = module.compute(predictions=hyps[:3], references=[[r, "x"] for r in refs[:3]], use_aggregator=False,
                            rouge_types=["rouge1", "rougeSU4"])
    assert list(listed) == ["rouge1", "rougeSU4"] and len(listed["rouge1"]) == len(listed["rougeSU4"]) == 3
    parser = doctest.DocTestParser()
    test = parser.get_doctest(type(module).__doc__ or module.inputs_description, {"evaluate": evaluate}, "rouge", None,
                              0)
    runner = doctest.DocTestRunner()
    runner.run(test)
    assert runner.tries >= 7 and runner.failures == 0
    with pytest.raises(ValueError):
        module.compute(predictions=["a", "b"], references=["a"])


def test_registry_entry():
    from nlgmetrics.registry import get_metric

    assert get_metric("rouge") is compute_rouge


@pytest.mark.parametrize("confidence", [0.0, 1.0, 0, 1])
def test_confidence_interval_takes_rouge_scores_closed_range(confidence, deen):
    """rouge_score's BootstrapAggregator accepts confidence_interval in [0, 1] (0: low = mid = high, the median of the
    resampled means; 1: their minimum and maximum); so does ours, with the numbers that definition gives."""
    import numpy as np
    from rouge_score import scoring

    from nlgmetrics.stats import bootstrap_indices

    hyps, refs = deen["systems"]["online-A.0"][:60], deen["refs"][:60]
    theirs = scoring.BootstrapAggregator(confidence_interval=confidence, n_samples=50)
    scorer = rouge_scorer.RougeScorer(["rouge1"])
    for ref, hyp in zip(refs, hyps):
        theirs.add_scores(scorer.score(ref, hyp))
    bounds = theirs.aggregate()["rouge1"]
    assert (bounds.low.fmeasure == bounds.mid.fmeasure == bounds.high.fmeasure) == (confidence == 0)
    ours = compute_rouge(hyps, refs, rouge_types=["rouge1"], n_bootstrap=200, seed=7, confidence_interval=confidence)
    per_example = compute_rouge(hyps, refs, rouge_types=["rouge1"], use_aggregator=False)["rouge1"]
    means = np.asarray(per_example)[bootstrap_indices(len(hyps), 200, 7)].mean(axis=1)
    median = np.percentile(means, 50)
    if confidence == 0:
        assert ours["rouge1_low"] == ours["rouge1_mid"] == ours["rouge1_high"] == pytest.approx(median, abs=1e-15)
    else:
        assert (ours["rouge1_low"], ours["rouge1_high"]) == pytest.approx((means.min(), means.max()), abs=1e-15)
        assert ours["rouge1_low"] < ours["rouge1_mid"] < ours["rouge1_high"]
