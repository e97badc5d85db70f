"""ROUGE-1.5.5 flavor: every per-case figure and every printed average of 22 ROUGE-1.5.5.pl runs, perl's Porter
variant, its tokens, its drand48, the documented quirks, bad input and the compute_rouge dispatch."""

from __future__ import annotations

import gzip
import html
import json

import numpy as np
import pytest
from conftest import DATA

from nlgmetrics.lexical.rouge import compute_rouge
from nlgmetrics.lexical.rouge155 import (
    TextOptions,
    _bootstrap_from_units,
    _order_statistics,
    _r5,
    _reader,
    _resample_means,
    compute_rouge155,
    drand48_stream,
    parse_rouge155_types,
    perl_bootstrap,
    porter_stem,
    raw_tokens,
    read_units,
    rouge155_scores,
    score_example,
    shared_texts,
    smart_stopwords,
    wordnet_exceptions_map,
)

FOLDER = DATA / "rouge155"
TYPES = {"ROUGE-1": "rouge1", "ROUGE-2": "rouge2", "ROUGE-3": "rouge3", "ROUGE-4": "rouge4", "ROUGE-L": "rougeL",
         "ROUGE-W-1.2": "rougeW", "ROUGE-S4": "rougeS4", "ROUGE-SU4": "rougeSU4"}  # fmt: skip
# the perl options of each run (tests/data/rouge155: set/run -> perl command) as keywords
RUN_OPTIONS = {
    "base": {},
    "m": {"use_stemmer": True},
    "m_wnexc": {"use_stemmer": True, "wordnet_exceptions": True},
    "s": {"remove_stopwords": True},
    "s_crash": {"remove_stopwords": True},
    "ms": {"use_stemmer": True, "remove_stopwords": True},
    "ms_crash": {"use_stemmer": True, "remove_stopwords": True},
    "fA": {"multi_ref": "average"},
    "fB": {"multi_ref": "best"},
    "zspl": {},
    "l30": {"length_limit": 30},
    "b150": {"byte_limit": 150, "byte_limit_bug": True},
}


@pytest.fixture(scope="module")
def perl() -> dict:
    with gzip.open(FOLDER / "perl_figures.json.gz", "rt", encoding="utf-8") as handle:
        return json.load(handle)


def _cases(perl: dict, key: str) -> list[dict]:
    wanted = set(perl["runs"][key]["cases"])
    return [case for case in perl["inputs"][key.split("/")[0]] if case["case"] in wanted]


def _texts(cases: list[dict]) -> tuple[list[str], list[list[str]]]:
    return ["\n".join(c["peer"]) for c in cases], [["\n".join(m) for m in c["models"]] for c in cases]


_FIGURES: dict[str, dict] = {}


def our_figures(perl: dict, key: str) -> dict[str, list[tuple[float, float, float]]]:
    """Our per-case (R, P, F) of every type perl printed in run ``key`` (computed once per test session)."""
    if key not in _FIGURES:
        run = perl["runs"][key]
        preds, refs = _texts(_cases(perl, key))
        names = [TYPES[t] for t in run["types"]]
        out = compute_rouge155(preds, refs, rouge_types=names, use_aggregator=False, **RUN_OPTIONS[key.split("/")[1]])
        _FIGURES[key] = {t: list(zip(out[f"{n}_recall"], out[f"{n}_precision"], out[n])) for t, n in zip(run["types"],
                                                                                                        names)}
    return _FIGURES[key]


RUN_KEYS = ["A/base", "A/m", "A/m_wnexc", "A/s_crash", "A/ms_crash", "A/s", "A/ms", "B/base", "B/m", "B/m_wnexc",
            "B/s", "B/ms", "B/l30", "B/b150", "C/base", "C/m", "C/m_wnexc", "C/s", "C/ms", "C/fA", "C/fB", "C/zspl"]


# ---------------------------------------------------------------------------------------------------------------------
# perl's figures, all of them
@pytest.mark.parametrize("key", RUN_KEYS)
def test_every_per_case_figure(perl, key):
    run = perl["runs"][key]
    ours = our_figures(perl, key)
    exact = total = 0
    wrong = []
    for perl_type, expected in run["figures"].items():
        for case, want, got in zip(run["cases"], expected, ours[perl_type]):
            total += 1
            mine = " ".join(f"{x:.5f}" for x in got)
            if mine == want:
                exact += 1
            else:
                wrong.append((case, perl_type, mine, want))
    assert total == len(run["cases"]) * len(run["types"])
    assert exact == total, wrong[:5]


def test_all_figures_were_checked(perl):
    assert sorted(perl["runs"]) == sorted(RUN_KEYS)
    assert sum(len(v) for run in perl["runs"].values() for v in run["figures"].values()) == 29784


def test_every_printed_average(perl):
    """Perl's Average_R/P/F and 95% intervals from our per-case figures (perl's bootstrap), and the plain means."""
    checked = 0
    for key in RUN_KEYS:
        rows = [r for r in perl["averages"] if f"{r['set']}/{r['run']}" == key]
        ours = our_figures(perl, key)
        figures = np.concatenate([np.array(ours[r["rouge_type"]]) for r in rows], axis=1)  # R, P, F per type
        assert len(figures) == int(rows[0]["n_cases"])
        average, low, high = perl_bootstrap(figures, [c["eval_id"] for c in _cases(perl, key)])
        for t, row in enumerate(rows):
            for c, letter in enumerate("RPF"):
                column = 3 * t + c
                got = [f"{average[column]:.5f}", f"{low[column]:.5f}", f"{high[column]:.5f}"]
                want = [row[f"Average_{letter}"], row[f"{letter}_ci_low"], row[f"{letter}_ci_high"]]
                assert got == want, (key, row["rouge_type"], letter)
                # the table's plain means are rounded to 5 decimals (one of 170 is a tie its own sum order decides)
                assert abs(figures[:, column].mean() - float(row[f"plain_mean_{letter}"])) <= 5.000001e-6
            checked += 1
    assert checked == len(perl["averages"]) == 170


def test_aggregated_keys_are_perls_printed_averages(perl):
    """compute_rouge155 with use_aggregator=True (eval ids with a gap: run A/s leaves out EVAL 265)."""
    key = "A/s"
    preds, refs = _texts(_cases(perl, key))
    ids = [c["eval_id"] for c in _cases(perl, key)]
    out = compute_rouge155(preds, refs, rouge_types=["rouge1", "rougeW"], remove_stopwords=True, eval_ids=ids)
    rows = {r["rouge_type"]: r for r in perl["averages"] if r["set"] == "A" and r["run"] == "s"}
    for name, perl_type in (("rouge1", "ROUGE-1"), ("rougeW", "ROUGE-W-1.2")):
        row = rows[perl_type]
        assert f"{out[name]:.5f}" == row["Average_F"] and f"{out[name + '_recall']:.5f}" == row["Average_R"]
        assert f"{out[name + '_precision_low']:.5f}" == row["P_ci_low"]
        assert f"{out[name + '_high']:.5f}" == row["F_ci_high"]
        assert abs(out[name + "_recall_plain"] - float(row["plain_mean_R"])) <= 5.000001e-6
    # without eval_ids the cases are "1".."299": another resampling order, the same plain mean
    other = compute_rouge155(preds, refs, rouge_types=["rouge1"], remove_stopwords=True)
    assert other["rouge1_plain"] == out["rouge1_plain"]
    assert (other["rouge1_low"], other["rouge1_high"]) != (out["rouge1_low"], out["rouge1_high"])


def test_compute_rouge_dispatches_to_the_perl_flavor(perl):
    key = "C/fB"
    preds, refs = _texts(_cases(perl, key))
    ours = compute_rouge(preds, refs, flavor="rouge155", rouge_types=["rouge1", "rougeL"], multi_ref="best",
                         use_aggregator=False)
    assert [f"{r:.5f} {p:.5f} {f:.5f}" for r, p, f in zip(ours["rouge1_recall"], ours["rouge1_precision"],
                                                           ours["rouge1"])] == perl["runs"][key]["figures"]["ROUGE-1"]
    # multi_ref defaults to perl's -f A in this flavor, to rouge_score's best-F in the default one
    pooled = compute_rouge(preds, refs, flavor="rouge155", rouge_types=["rouge1"], use_aggregator=False)
    assert pooled["rouge1_recall"][0] == 0.68 and ours["rouge1_recall"][0] == 0.75  # README example C0001
    default = compute_rouge(preds[:5], refs[:5], rouge_types=["rouge1"])
    assert default == compute_rouge(preds[:5], refs[:5], rouge_types=["rouge1"], multi_ref="best")
    flavored = compute_rouge(preds[:5], refs[:5], flavor="rouge155")
    assert flavored.pop("signature").endswith("|flavor:rouge155|version:nlgmetrics-0.1.0")  # the entry point signs
    assert flavored == compute_rouge155(preds[:5], refs[:5])


def test_registry_and_cli_options_reach_the_flavor():
    from nlgmetrics.registry import get_metric

    out = get_metric("rouge")(["the cat sat"], ["the cat sat down"], flavor="rouge155", use_aggregator=False)
    assert out["rouge1_recall"] == [0.75] and out["rouge1_precision"] == [1.0] and out["rouge1"] == [0.85714]


def test_shared_counts_equal_perls_own_reading(wmt17_deen):
    """Without -m/-s/-l/-b, ROUGE-N/L come from the rouge_score flavor's counts: on 150 WMT17 de-en segments (single
    lines, 3-line documents, non-ASCII text, three references) they equal this module's own perl reading."""
    refs = [html.unescape(r) for r in wmt17_deen["references"]]
    hyps = [[html.unescape(h) for h in out] for out in wmt17_deen["systems"].values()]
    refs[3] = "Günter’s café — İstanbul\n\n" + refs[3]  # perl's bytes: no token from the non-ASCII letters
    docs = ["\n".join(hyps[0][i : i + 3]) for i in range(0, 150, 3)]
    doc_refs = [["\n".join(refs[i : i + 3]), "\n".join(hyps[1][i : i + 3])] for i in range(0, 150, 3)]
    types = parse_rouge155_types(["rouge1", "rouge2", "rouge4", "rougeL"])
    read = _reader(TextOptions())
    for preds, references in ((hyps[2], [[r, h] for r, h in zip(refs, hyps[3])]), (docs, doc_refs),
                              (hyps[2], refs)):  # fmt: skip
        for multi_ref in ("average", "best"):
            shared = rouge155_scores(preds, references, [t.name for t in types], multi_ref=multi_ref)
            for i, (pred, ref) in enumerate(zip(preds, references)):
                own = score_example(types, read(pred), [read(r) for r in ([ref] if isinstance(ref, str) else ref)],
                                    multi_ref, 0.5)  # fmt: skip
                assert [tuple(shared[t.name][i]) for t in types] == own, (multi_ref, i)


# ---------------------------------------------------------------------------------------------------------------------
# the pieces, each against perl
def test_porter_stemmer_is_perls_variant():
    """4,341 words (every one where nltk's three Porter modes disagree with perl, and every 40th of 99,277 WMT17 and
    WordNet words) stemmed by the ``stem`` routine of ROUGE-1.5.5.pl under perl 5.36."""
    with gzip.open(FOLDER / "perl_porter_stems.tsv.gz", "rt", encoding="utf-8") as handle:
        pairs = [line.split("\t") for line in handle.read().split("\n")[:-1]]
    assert len(pairs) == 4341
    wrong = [(word, stem, porter_stem(word)) for word, stem in pairs if porter_stem(word) != stem]
    assert not wrong, wrong[:10]
    # the 2004 change to step 4: -ement, then -ment and -ent tried again on the result
    assert [porter_stem(w) for w in ("agreement", "settlement", "statement", "tournament")] == [
        "agreem", "settlem", "statem", "tournam"]  # fmt: skip
    assert porter_stem("yelling") == "yell" and porter_stem("generalization") == "gener"


def test_tokens_are_perls_bytes():
    assert raw_tokens("Günter's 28-year-old £5 ÉTÉ") == ["g", "nter", "s", "28", "year", "old", "5", "t"]
    assert raw_tokens("K\u212a İstanbul") == ["k", "stanbul"]  # only ASCII A-Z is lowercased
    assert read_units("one\n\ntwo\n") == (["one", "two"], ["one", "two"])


def test_truncation_words_and_bytes():
    text = "a b c d\ne-f g, h\ni j"
    assert read_units(text, length_limit=6) == (["a b c d", "e-f g,"], ["a b c d", "e-f g,"])
    assert read_units(text, length_limit=4) == (["a b c d"], ["a b c d"])
    # -b counts bytes (UTF-8), not the joining spaces, and may cut a word or a character
    assert read_units("ab cd\nüx yz", byte_limit=8) == (["ab cd", "\xc3\xbcx"], ["ab cd", "\xc3\xbcx"])
    # perl's readText_LCS bug: each sentence is compared with the limit alone
    assert read_units("ab cd\nef gh\nijklmnopq", byte_limit=8, byte_limit_bug=True) == (
        ["ab cd", "ef "], ["ab cd", "ef gh", "ijklmnop"])  # fmt: skip


def test_byte_limit_without_the_bug_cuts_every_measure_alike(perl):
    preds, refs = _texts(_cases(perl, "B/b150"))
    fixed = rouge155_scores(preds, refs, ["rouge1", "rougeL"], byte_limit=150)
    buggy = rouge155_scores(preds, refs, ["rouge1", "rougeL"], byte_limit=150, byte_limit_bug=True)
    assert np.array_equal(fixed["rouge1"], buggy["rouge1"])  # N/S read the same text either way
    assert (fixed["rougeL"][:, 0] <= fixed["rouge1"][:, 0]).all()  # LCS hits <= unigram hits, same denominators
    assert (fixed["rougeL"] != buggy["rougeL"]).any(axis=1).sum() > 100
    assert tuple(buggy["rougeL"][0, :2]) == (0.43333, 0.83871) and buggy["rouge1"][0, 0] == 0.83871  # B0001


def test_skip_bigrams_and_su_unigrams_as_perl():
    tokens = "28 year old chef found dead at san francisco mall"
    out = rouge155_scores([tokens.replace("at", "in")], [tokens], ["rougeS4", "rougeSU4", "rougeS*", "rougeSU*"])
    # 10 tokens: 35 skip-bigrams with at most 4 tokens between, 9 unigrams (not the last token), C(10, 2) = 45 pairs
    # "at" is in 5 + 3 of the 35 pairs within distance 4 and in 9 of all 45; 8 of the 9 unigram units match
    assert out["rougeS4"][0, 0] == round(27 / 35, 5)
    assert out["rougeSU4"][0, 0] == round((27 + 8) / (35 + 9), 5) == 0.79545
    assert out["rougeS*"][0, 0] == round(36 / 45, 5)
    assert out["rougeSU*"][0, 0] == round((36 + 8) / (45 + 9), 5)
    one = rouge155_scores(["word"], ["word"], ["rougeSU4", "rouge1"])
    assert one["rougeSU4"].tolist() == [[0.0, 0.0, 0.0]] and one["rouge1"].tolist() == [[1.0, 1.0, 1.0]]


def test_stop_words_and_wordnet_exceptions():
    stop = smart_stopwords()
    assert len(stop) == 596 and {"no", "one", "knows", "yet", "the"} <= stop  # 598 lines, 2 repeated
    assert len(wordnet_exceptions_map()) == 5930
    assert wordnet_exceptions_map()["best"] == "good" and wordnet_exceptions_map()["children"] == "child"
    plain = rouge155_scores(["the children went"], ["a child goes"], ["rouge1"], use_stemmer=True)
    wordnet = rouge155_scores(["the children went"], ["a child goes"], ["rouge1"], use_stemmer=True,
                              wordnet_exceptions=True)
    # children -> child, went -> go and goes -> go (tokens of at most 3 letters are never looked up)
    assert plain["rouge1"][0, 0] == 0.0 and wordnet["rouge1"][0, 0] == round(2 / 3, 5)


def test_where_perl_divides_by_zero_the_score_is_zero(perl):
    """A0265's reference is all stop words: perl dies computing ROUGE-W under -s; here its W is 0."""
    case = next(c for c in perl["inputs"]["A"] if c["case"] == "A0265")
    out = rouge155_scores(["\n".join(case["peer"])], ["\n".join(case["models"][0])], ["rougeW", "rougeL", "rouge1"],
                          remove_stopwords=True)
    assert case["models"][0] == ["no-one knows yet ."]
    assert out["rougeW"].tolist() == [[0.0, 0.0, 0.0]]
    perl_l = perl["runs"]["A/s_crash"]["figures"]["ROUGE-L"][264]  # printed before perl died
    assert " ".join(f"{x:.5f}" for x in out["rougeL"][0]) == perl_l == "0.00000 0.00000 0.00000"
    assert rouge155_scores([""], [""], ["rougeW", "rougeL", "rougeSU4"])["rougeW"].tolist() == [[0.0, 0.0, 0.0]]


def test_perls_drand48_and_alpha():
    # perl 5.36: srand(0); rand(), rand(); srand(999); rand()
    assert drand48_stream(0, 2).tolist() == [0.17082803610628972, 0.7499019804849638]
    assert drand48_stream(999, 1).tolist() == [0.10233439302919933]
    out = rouge155_scores(["the cat sat"], ["the cat sat down"], ["rouge1"], alpha=1.0)
    assert out["rouge1"].tolist() == [[0.75, 1.0, 1.0]]  # alpha = 1: F is the precision
    avg = compute_rouge155(["the cat sat", "a dog"], ["the cat sat down", "a dog barks"], rouge_types="rouge1",
                           n_bootstrap=10, confidence_interval=0.9)
    assert avg["rouge1_recall_low"] <= avg["rouge1_recall"] <= avg["rouge1_recall_high"]


# ---------------------------------------------------------------------------------------------------------------------
# bad input
@pytest.mark.parametrize(
    "options, error, match",
    [
        ({"rouge_types": ["rougeLsum"]}, ValueError, "already ROUGE-1.5.5's summary-level"),
        ({"rouge_types": ["rouge0"]}, ValueError, "invalid ROUGE type"),
        ({"tokenizer": "whitespace"}, ValueError, "tokenizes as ROUGE-1.5.5.pl"),
        ({"beta": 2}, ValueError, "alpha"),
        ({"multi_ref": "max"}, ValueError, "'average'"),
        ({"alpha": 1.5}, ValueError, "alpha"),
        ({"length_limit": 10, "byte_limit": 10}, ValueError, "not both"),
        ({"length_limit": 0}, ValueError, "positive integer"),
        ({"byte_limit": 2.5}, TypeError, "byte_limit must be an integer or None, got float 2.5"),
        ({"byte_limit_bug": True}, ValueError, "needs byte_limit"),
        ({"wordnet_exceptions": True}, ValueError, "use_stemmer=True"),
        ({"remove_stopwords": "yes"}, TypeError, "True or False"),
        ({"n_bootstrap": -3}, ValueError, r"n_bootstrap must be an integer in \[1, 100000\]"),
        ({"confidence_interval": 95}, ValueError, r"\[0, 1\]"),
        ({"eval_ids": ["1", "1"]}, ValueError, "each of the 2 examples once"),
    ],
)
def test_bad_options_raise(options, error, match):
    with pytest.raises(error, match=match):
        compute_rouge(["a b", "c"], ["a b", "c d"], flavor="rouge155", **options)


def test_bad_flavor_and_misplaced_keywords():
    with pytest.raises(ValueError, match="unknown ROUGE flavor"):
        compute_rouge(["a"], ["a"], flavor="perl")
    with pytest.raises(TypeError, match="flavor='rouge155' only"):
        compute_rouge(["a"], ["a"], remove_stopwords=True)
    with pytest.raises(TypeError):
        compute_rouge(["a"], ["a"], flavor="rouge155", stopwords=True)
    with pytest.raises(ValueError, match="predictions"):
        compute_rouge(["a", "b"], ["a"], flavor="rouge155")


def test_evaluate_module_takes_the_perl_flavor():
    import evaluate

    rouge = evaluate.load("./metrics/rouge")
    direct = compute_rouge(["the cat sat on the mat .\nit purred ."], [["a cat sat on a mat .\nit was happy ."]],
                           rouge_types=["rouge1", "rougeL", "rougeSU4"], flavor="rouge155", use_aggregator=False)
    through = rouge.compute(predictions=["the cat sat on the mat .\nit purred ."],
                            references=[["a cat sat on a mat .\nit was happy ."]],
                            rouge_types=["rouge1", "rougeL", "rougeSU4"], flavor="rouge155", use_aggregator=False,
                                return_details=True)
    assert through == direct and 0 < direct["rougeSU4"][0] < 1
    with pytest.raises(ValueError, match="apply to flavor='rouge_score' only"):
        compute_rouge(["a"], ["a"], flavor="rouge155", lang="de")


# ---------------------------------------------------------------------------------------------------------------------
# the fast routes equal the plain ones
def test_stemmed_shared_route_equals_perls_reading():
    """-m ROUGE-N/L through the rouge_score route (texts rewritten to perl's stemmed tokens) equal the figures of
    perl's own reading, with a NUL, non-ASCII letters, empty lines and a two-word WordNet base (comics ->
    comic_strip, renamed to a token no word has, here not 0x0 or 1x0)."""
    preds = ["The comics were 0x0 comic strips.\nİstanbul\x00agreement K\u212a", "", "...\n\n comics comic_strip",
             "Relational generalization yelling", "a\x00b"]  # fmt: skip
    refs = [["comic_strip comics 0x0 1x0 were agreements"], ["x"], ["comic strip\ncomics", "strip comics"],
            ["relate general yell", "generalizations"], ["a b\x00\x00"]]  # fmt: skip
    types = parse_rouge155_types(["rouge1", "rouge2", "rougeL"])
    for exceptions in (False, True):
        options = TextOptions(use_stemmer=True, wordnet_exceptions=exceptions)
        assert shared_texts(preds, refs, options) is not None
        read = _reader(options)
        for multi_ref in ("average", "best"):
            want = np.array([score_example(types, read(p), [read(r) for r in rs], multi_ref, 0.5)
                             for p, rs in zip(preds, refs)])  # fmt: skip
            got = rouge155_scores(preds, refs, [t.name for t in types], use_stemmer=True,
                                  wordnet_exceptions=exceptions, multi_ref=multi_ref)  # fmt: skip
            for k, t in enumerate(types):
                assert got[t.name].tolist() == want[:, k, :].tolist(), (exceptions, multi_ref, t.name)


def test_bootstrap_integer_sums_equal_perls_float_sums():
    """The exact-sum bootstrap prints what perl's float sums in draw order print (5-decimal values, several sizes,
    resample counts and confidences); a value that is not a 5-decimal figure takes perl's own sums."""
    rng = np.random.default_rng(7)
    fast_checked = 0
    for n, n_resamples, confidence in ((1, 10, 95), (37, 1000, 95), (300, 200, 90), (1234, 100, 99), (3004, 50, 95)):
        values = np.array([[float(f"{x:.5f}") for x in row] for row in rng.random((n, 3)).tolist()])
        ranked = np.sort(_resample_means(values, n_resamples), axis=0)
        perl = _order_statistics(ranked, np.cumsum(ranked, axis=0)[-1] / n_resamples, confidence)
        fast = _bootstrap_from_units(values, n_resamples, confidence)
        if fast is not None:
            fast_checked += 1
            for mine, theirs in zip(fast, perl):
                assert [_r5(x) for x in mine] == [_r5(x) for x in theirs]
    assert fast_checked >= 4
    assert _bootstrap_from_units(np.array([[0.123456], [0.5]]), 10, 95) is None


@pytest.mark.parametrize("key", ["A/base", "B/ms", "C/fA"])
def test_long_text_skip_bigram_route_gives_perls_figures(perl, key, monkeypatch):
    """Issue 29.7: ROUGE-S* of the perl flavor listed every skip-bigram (quadratic memory; a 20,000-word pair did not
    finish in 180 s). Long texts now take the default flavor's prefix-sum count: forced here on perl's cases."""
    import nlgmetrics.lexical.rouge155 as flavor

    monkeypatch.setattr(flavor, "SKIP_PAIR_LIMIT", 0)
    _FIGURES.pop(key, None)
    try:
        ours = our_figures(perl, key)
    finally:
        _FIGURES.pop(key, None)
    run = perl["runs"][key]
    checked = 0
    for perl_type, expected in run["figures"].items():
        if "-S" not in perl_type:
            continue
        for want, got in zip(expected, ours[perl_type]):
            assert " ".join(f"{x:.5f}" for x in got) == want
            checked += 1
    assert checked


def test_long_text_skip_bigrams_in_linear_memory(monkeypatch):
    import random
    import tracemalloc

    import nlgmetrics.lexical.rouge155 as flavor

    rng = random.Random(3)
    model = " ".join(f"w{rng.randrange(300)}" for _ in range(2000))
    peer = " ".join(f"w{rng.randrange(300)}" for _ in range(2000))
    tracemalloc.start()
    fast = rouge155_scores([peer], [model], ["rougeS*", "rougeSU*"])
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 20 * 2**20, f"peak {peak / 2**20:.0f} MiB"  # listing the 2 million skip-bigrams: 42 MiB, quadratic
    monkeypatch.setattr(flavor, "SKIP_PAIR_LIMIT", 10**9)  # the pair-listing route gives the same figures
    flavor.clear_caches()
    slow = rouge155_scores([peer], [model], ["rougeS*", "rougeSU*"])
    assert all(np.array_equal(fast[k], slow[k]) for k in fast)


def test_long_text_weighted_lcs_in_sublinear_table_memory():
    """Issue 29.7: the perl flavor's ROUGE-W kept the whole weighted-LCS table for its trace back (a 20,000-word
    pair: 2.6 GB). Checkpoint rows and one recomputed block at a time give the same marks. 1,000 words: tracemalloc
    slows the pure-Python rows ~13x (1,500 words took 16 CPU s here); the whole table is still 2.6x the bound."""
    import random
    import tracemalloc

    from nlgmetrics.lexical import rouge155 as flavor

    rng = random.Random(5)
    model = [f"w{rng.randrange(200)}" for _ in range(1000)]
    peer = [w if rng.random() < 0.6 else f"w{rng.randrange(200)}" for w in model]
    f = [k**1.2 for k in range(len(model) + 2)]
    tracemalloc.start()
    marks = flavor._wlcs_marks(model, peer, f)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    # the full table: 7.8 MiB here (17.6 at 1,500 words), quadratic; measured 0.84 MiB (1.49 at 1,500 words)
    assert peak < 3 * 2**20, f"peak {peak / 2**20:.1f} MiB"
    # the reference: the same trace back over the whole table
    rows, c, k = [[0.0] * (len(peer) + 1)], [0.0] * (len(peer) + 1), [0] * (len(peer) + 1)
    for x in model:
        c, k = flavor._wlcs_row(x, peer, c, k, f)
        rows.append(c)
    expected, i, j = [], len(model), len(peer)
    while i and j:
        if model[i - 1] == peer[j - 1]:
            i, j = i - 1, j - 1
            expected.append(i)
        elif rows[i - 1][j] >= rows[i][j - 1]:
            i -= 1
        else:
            j -= 1
    assert marks == expected and len(marks) > 500
