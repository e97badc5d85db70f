"""TER: parity with sacrebleu 2.6 (scores and edit counts) on real WMT17 text, every option, several references,
edge cases, the beam and the candidate limit; bad input; the evaluate module with HF evaluate's arguments."""

from __future__ import annotations

import doctest
import gzip
import itertools
import json
import math
import random

import pytest
import sacrebleu
from sacrebleu.metrics.lib_ter import translation_edit_rate
from sacrebleu.metrics.ter import TER as SacreTER

from nlgmetrics.lexical import ter as ter_module
from nlgmetrics.lexical.ter import TER, compute_ter
from nlgmetrics.registry import get_metric

from conftest import DATA

OPTIONS = [
    dict(normalized=a, no_punct=b, asian_support=c, case_sensitive=d)
    for a, b, c, d in itertools.product([False, True], repeat=4)
]


@pytest.fixture(scope="module")
def wmt17_ende_16() -> dict:
    """Every 50th segment of the WMT17 en-de reference and all 16 systems (tests/data/README.md)."""
    with gzip.open(DATA / "wmt17_ende_16systems_every50.json.gz", "rt", encoding="utf-8") as handle:
        return json.load(handle)


def assert_parity(hyps: list[str], refs: list[list[str]], **options) -> dict:
    """Corpus score, num_edits, ref_length and every segment's edits and sentence score equal sacrebleu's."""
    ours = compute_ter(hyps, refs, sentence_scores=True, **options)
    streams = [[r[k] if k < len(r) else None for r in refs] for k in range(max(len(r) for r in refs))]
    metric = SacreTER(**options)
    their_stats = metric._extract_corpus_statistics(hyps, streams)
    theirs = metric.corpus_score(hyps, streams)
    assert abs(ours["score"] - theirs.score) <= 1e-9
    assert ours["num_edits"] == theirs.num_edits
    assert abs(ours["ref_length"] - theirs.ref_length) <= 1e-9
    ours_stats = TER(**options).corpus_statistics(hyps, refs)
    assert [int(e) for e in ours_stats[:, 0]] == [s[0] for s in their_stats]  # edit counts, segment by segment
    assert list(ours_stats[:, 1]) == [s[1] for s in their_stats]
    sentence = [metric._compute_score_from_stats(s).score for s in their_stats]
    assert max(abs(a - b) for a, b in zip(ours["scores"], sentence)) <= 1e-9
    return ours


def test_all_16_wmt17_ende_systems_default_options(wmt17_ende_16):
    refs = [[r] for r in wmt17_ende_16["reference"]]
    assert len(wmt17_ende_16["systems"]) == 16
    for hyps in wmt17_ende_16["systems"].values():
        assert_parity(hyps, refs)


def test_full_wmt17_ende_system_slice_and_sentence_ter(wmt17_ende):
    refs = wmt17_ende["reference"][:300]
    hyps = wmt17_ende["systems"]["online-F.0"][:300]
    ours = assert_parity(hyps, [[r] for r in refs])
    for i in range(0, 300, 30):  # the public sentence function gives the same numbers
        assert ours["scores"][i] == pytest.approx(sacrebleu.sentence_ter(hyps[i], [refs[i]]).score, abs=1e-9)


def test_wmt17_deen_all_systems(wmt17_deen):
    refs = [[r] for r in wmt17_deen["references"][:60]]
    for hyps in wmt17_deen["systems"].values():
        assert_parity(hyps[:60], refs)


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: "-".join(k for k, v in o.items() if v) or "default")
def test_every_option_on_deen_and_ende(options, wmt17_deen, wmt17_ende_16):
    k = OPTIONS.index(options)
    systems = list(wmt17_deen["systems"].values())
    deen = systems[k % len(systems)][:100]
    assert_parity(deen, [[r] for r in wmt17_deen["references"][:100]], **options)
    names = sorted(wmt17_ende_16["systems"])
    ende = wmt17_ende_16["systems"][names[k]][:30]
    assert_parity(ende, [[r] for r in wmt17_ende_16["reference"][:30]], **options)


def test_several_references_and_varying_counts(wmt17_ende_16):
    systems = wmt17_ende_16["systems"]
    names = sorted(systems)
    hyps = systems[names[0]]
    three = [[r, b, c] for r, b, c in zip(wmt17_ende_16["reference"], systems[names[1]], systems[names[2]])]
    ours = assert_parity(hyps, three)
    assert ours["signature"].startswith("nrefs:3|")
    varying = [refs[: 1 + i % 3] for i, refs in enumerate(three)]
    ours = assert_parity(hyps, varying, normalized=True)
    assert ours["signature"].startswith("nrefs:var|")
    # the fewest edits over the references, the average of their lengths (not an integer)
    stats = TER().segment_statistics("a b c", ["a b c d", "x y", "a b c"])
    assert stats == [0, 3.0]
    assert TER().segment_statistics("a b", ["a b c d", "x y z"]) == [2, 3.5]


@pytest.mark.parametrize(
    "prediction, references",
    [("", ["a reference"]), ("a prediction", [""]), ("", [""]), ("   ", ["  \t "]), ("\n", ["x"]),
     ("a b", ["", "a b c"]), ("a b", ["", "   "]), ("x", ["x y", ""])],
)
def test_empty_and_whitespace_text_gets_sacrebleu_scores(prediction, references):
    ours = assert_parity([prediction], [references])
    assert math.isfinite(ours["score"])
    theirs = sacrebleu.sentence_ter(prediction, references)
    assert ours["scores"] == [theirs.score]
    assert ours["num_edits"] == theirs.num_edits


def test_empty_reference_scores_are_defined():
    assert compute_ter(["a b c"], [""])["score"] == 100.0  # edits but nothing to edit towards
    assert compute_ter([""], [""])["score"] == 0.0
    assert compute_ter(["", "a"], ["", ""])["num_edits"] == 1


@pytest.mark.parametrize("options", [o for o in OPTIONS if o["asian_support"]], ids=str)
def test_cjk_kana_full_width_and_emoji(options):
    preds = ["猫坐在垫子上。", "ひらがなカタカナ漢字、テスト！", "I ❤️ 🐍 code (really).", "ｆｕｌｌ－ｗｉｄｔｈ，ｏｋ？", "㋀月の㍻"]
    refs = [["猫在垫子上坐着。"], ["カタカナひらがな漢字。テスト"], ["I ❤️ python 🐍 code, really!"], ["ｆｕｌｌ ｗｉｄｔｈ，ｏｋ"],
            ["㍻㋀月"]]
    assert_parity(preds, refs, **options)


def test_tokenizer_matches_sacrebleu_on_awkward_text():
    from sacrebleu.tokenizers.tokenizer_ter import TercomTokenizer

    from nlgmetrics.text.tercom import tokenize_tercom

    lines = ["He's &quot;ok&quot; &amp; it's 3.5, -2 or 1-2.", "line\n-break\nhere", "A.B,C 1,000.5 x-y 's",
             "İstanbul ǅ ΣΑΣ", "ひらがな漢字カタカナ。ｘ", "tab\tand\u00a0nbsp", "it's", "&lt;tag&gt; (x) [y] {z}"]
    for options in OPTIONS:
        theirs = TercomTokenizer(**options)
        for line in lines:
            assert " ".join(tokenize_tercom(line, **options)) == theirs(line), (line, options)


@pytest.mark.parametrize("options", [o for o in OPTIONS if o["normalized"]], ids=str)
def test_references_are_tokenized_twice_as_in_sacrebleu(options):
    """sacrebleu tokenizes references once when caching them and once more when splitting them: with normalization
    the possessive of "Nima's," is only split off the second time (WMT17 en-de reference line 2810)."""
    prediction = "The Nima's association, founded by Dr. Westerberg &amp;amp; co."
    reference = "Der Verein Nima's, gegründet von Dr. Tannaz Westerberg &amp;amp; Co."
    ours = assert_parity([prediction], [[reference]], **options)
    assert "'s" in TER(**options).reference_tokens(reference)
    assert ours["ref_length"] == len(TER(**options).tokenize(reference)) + 1
    assert ours["scores"] == [sacrebleu.sentence_ter(prediction, [reference], **options).score]


def test_the_beam_limits_the_distance_as_in_sacrebleu():
    """sacrebleu's edit distance only fills cells near the diagonal: here the match of "x" with the first reference
    word lies outside the beam, so TER counts 80 edits where the unrestricted Levenshtein distance is 79."""
    reference = " ".join(["x"] + [f"w{i}" for i in range(79)])
    assert compute_ter(["x"], [reference])["num_edits"] == 80 == translation_edit_rate(["x"], reference.split())[0]
    hyp = "5 1 3 2 5 4"
    ref = ("2 0 1 3 3 1 0 2 4 1 0 4 3 0 3 5 3 5 4 2 0 2 2 4 2 3 3 2 5 5 0 4 3 1 2 1 0 2 0 4 0 1 0 1 2 3 2 1 0 0 4 5 "
           "2 4 3 5 2")
    assert _levenshtein(hyp.split(), ref.split()) == 51  # the beam-limited distance is 52, and no shift helps
    assert compute_ter([hyp], [ref])["num_edits"] == translation_edit_rate(hyp.split(), ref.split())[0] == 52


def _levenshtein(hyp: list[str], ref: list[str]) -> int:
    previous = list(range(len(ref) + 1))
    for i, word in enumerate(hyp, 1):
        row = [i]
        for j, other in enumerate(ref, 1):
            row.append(min(previous[j - 1] + (word != other), previous[j] + 1, row[-1] + 1))
        previous = row
    return previous[-1]


def _ours(hyp: list[str], ref: list[str]) -> int:
    masks = ter_module._reference_masks(tuple(ref))
    return ter_module.ter_edits(tuple(masks.get(word, 0) for word in hyp), len(ref))


def test_random_pairs_shifts_beam_and_candidate_limit(monkeypatch):
    """Small vocabularies make many shifts, uneven lengths binding beams, long repetitive pairs the 1,000-candidate
    limit: all as sacrebleu."""
    used = {"banded": 0, "limit": 0}
    banded, candidates = ter_module._banded_rows, ter_module._shift_candidates

    def count_banded(*args):
        used["banded"] += 1
        return banded(*args)

    def count_limit(*args):
        out, checked = candidates(*args)
        used["limit"] += checked >= ter_module.MAX_SHIFT_CANDIDATES
        return out, checked

    monkeypatch.setattr(ter_module, "_banded_rows", count_banded)
    monkeypatch.setattr(ter_module, "_shift_candidates", count_limit)
    ter_module.ter_edits.cache_clear()
    rng = random.Random(2024)
    for trial in range(120):
        vocab = rng.choice([2, 3, 6, 30])
        m = rng.randint(0, 30)
        n = rng.choice([rng.randint(0, 30), max(1, m // 4), 2 * m + 1])
        if trial % 40 == 0:  # long repetitive pairs reach the candidate limit
            vocab, n, m = 2, 36, 36
        elif trial % 20 == 10:  # very uneven lengths: the beam can bind
            vocab, n, m = rng.choice([3, 30]), rng.randint(2, 10), rng.randint(35, 60)
        hyp = [str(rng.randrange(vocab)) for _ in range(n)]
        ref = [str(rng.randrange(vocab)) for _ in range(m)]
        assert _ours(hyp, ref) == translation_edit_rate(hyp, ref)[0], (hyp, ref)
    assert used["banded"] > 0 and used["limit"] > 0


@pytest.mark.parametrize("options", OPTIONS[::3], ids=str)
def test_signature_matches_sacrebleu_except_version(options):
    metric = SacreTER(**options)
    metric.corpus_score(["x"], [["x"]])
    theirs = str(metric.get_signature()).rsplit("|version:", 1)[0]
    assert compute_ter(["x"], ["x"], **options)["signature"] == theirs + "|version:nlgmetrics-0.1.0"


def test_bootstrap_is_seeded_and_matches_sacrebleu(wmt17_ende):
    refs = wmt17_ende["reference"][:300]
    hyps = wmt17_ende["systems"]["uedin-nmt.4722"][:300]
    first = compute_ter(hyps, refs, n_bootstrap=200)
    assert first == compute_ter(hyps, refs, n_bootstrap=200)
    assert first["score_mean"] != compute_ter(hyps, refs, n_bootstrap=200, seed=7)["score_mean"]
    assert first["score_low"] <= first["score"] <= first["score_high"]
    assert first["signature"].startswith("nrefs:1|bs:200|seed:12345|case:lc|")
    theirs = SacreTER().corpus_score(hyps, [refs], n_bootstrap=200)
    # sacrebleu sums resampled statistics in float32; the difference stays far below the printed precision
    assert abs(first["score_mean"] - theirs._mean) <= 1e-4
    assert abs(first["score_ci"] - theirs._ci) <= 1e-4


def test_ter_object_statistics_protocol(wmt17_ende):
    refs = [[r] for r in wmt17_ende["reference"][:80]]
    hyps = wmt17_ende["systems"]["C-3MA.4959"][:80]
    ter = TER()
    stats = ter.corpus_statistics(hyps, refs)
    assert stats.shape == (80, 2)
    summed = ter.score_from_statistics(stats.sum(axis=0))
    assert summed.score == compute_ter(hyps, refs)["score"] == ter.corpus_score(hyps, refs).score
    assert ter.sentence_score(hyps[3], refs[3]).score == ter.score_from_statistics(stats[3]).score
    assert get_metric("ter") is compute_ter


@pytest.mark.parametrize(
    "predictions, references, error, match",
    [
        (["a", "b"], ["a"], ValueError, "2 predictions but 1 references"),
        ([], [], ValueError, "no examples"),
        (["a"], [[]], ValueError, "empty list"),
        ([None], ["a"], TypeError, r"predictions\[0\] must be a string"),
        (["a"], [["a", 3]], TypeError, r"references\[0\]\[1\] must be a string"),
        ("a single string", ["a"], TypeError, "list of strings"),
    ],
)
def test_bad_input_raises_named_errors(predictions, references, error, match):
    with pytest.raises(error, match=match):
        compute_ter(predictions, references)


def test_bad_options_raise():
    with pytest.raises(TypeError, match="normalized must be True or False"):
        compute_ter(["a"], ["a"], normalized="yes")


def test_evaluate_module_hf_arguments_and_numbers(wmt17_ende):
    """HF evaluate's ter examples (its arguments, keys and documented numbers), then ours on real text."""
    import evaluate

    module = evaluate.load("./metrics/ter")
    preds = ["does this sentence match??", "what about this sentence?",
             "What did the TER metric user say to the developer?"]
    refs = [["does this sentence match", "does this sentence match!?!"],
            ["wHaT aBoUt ThIs SeNtEnCe?", "wHaT aBoUt ThIs SeNtEnCe?"], ["Your jokes are...", "...TERrible"]]
    hf_examples = [
        (3, dict(case_sensitive=True), {"score": 150.0, "num_edits": 15, "ref_length": 10.0}),
        (2, dict(case_sensitive=True), {"score": 62.5, "num_edits": 5, "ref_length": 8.0}),
        (2, dict(normalized=True, case_sensitive=True), {"score": 57.14285714285714, "num_edits": 6, "ref_length": 10.5}),
        (2, dict(ignore_punct=True, case_sensitive=False), {"score": 0.0, "num_edits": 0, "ref_length": 8.0}),
        (3, dict(ignore_punct=True, case_sensitive=False), {"score": 100.0, "num_edits": 10, "ref_length": 10.0}),
    ]
    for count, kwargs, expected in hf_examples:
        result = module.compute(predictions=preds[:count], references=refs[:count], **kwargs)
        assert {key: result[key] for key in expected} == expected
        assert type(result["num_edits"]) is int
    hyps, ende_refs = wmt17_ende["systems"]["uedin-nmt.4722"][:40], wmt17_ende["reference"][:40]
    result = module.compute(predictions=hyps, references=ende_refs, support_zh_ja_chars=True, normalized=True)
    assert result["score"] == pytest.approx(
        sacrebleu.corpus_ter(hyps, [ende_refs], normalized=True, asian_support=True).score, abs=1e-9)
    varying = module.compute(predictions=preds, references=[refs[0], refs[1][:1], refs[2] + ["x"]], sentence_scores=True,
                             return_signature=True)
    assert len(varying["scores"]) == 3 and varying["signature"].startswith("nrefs:var|")
    with pytest.raises(ValueError, match="ter: unknown option 'tokenize'"):
        module.compute(predictions=preds, references=refs, tokenize="13a")  # not a TER argument


def test_evaluate_module_doctest_and_bad_input():
    import evaluate

    module = evaluate.load("./metrics/ter")
    test = doctest.DocTestParser().get_doctest(module.inputs_description, {"evaluate": evaluate}, "ter", None, 0)
    runner = doctest.DocTestRunner()
    runner.run(test)
    assert runner.tries >= 5 and runner.failures == 0
    with pytest.raises(TypeError, match=r"predictions\[0\] must be a string"):
        module.compute(predictions=[None], references=["a"])
    module.add_batch(predictions=["a b c d"], references=["a b c d"])
    module.add_batch(predictions=["e f g h"], references=[["x", "e f g h"]])
    assert module.compute()["score"] == 0.0


def test_bit_parallel_distance_is_levenshtein():
    rng = random.Random(7)
    for _ in range(300):
        vocab = rng.choice([2, 5, 40])
        ref = [str(rng.randrange(vocab)) for _ in range(rng.randint(1, 70))]
        hyp = [str(rng.randrange(vocab)) for _ in range(rng.randint(0, 70))]
        masks = ter_module._reference_masks(tuple(ref))
        full = (1 << len(ref)) - 1
        vp, vn = ter_module._myers([masks.get(w, 0) for w in hyp], full, full, 0)
        assert len(hyp) + vp.bit_count() - vn.bit_count() == _levenshtein(hyp, ref)


def test_long_pair_memory_is_linear_in_the_beam():
    """Issue 29.7: TER on the README's 20,000-word pair took 3.2 GB (5,000 words: 243 MB): the beam-limited rows
    were stored full width. Only the beam's cells are kept now; the number stays sacrebleu's."""
    import tracemalloc

    rng = random.Random(7)
    words = [f"w{rng.randrange(400)}" for _ in range(2000)]
    hyp = [w if rng.random() > 0.3 else f"x{rng.randrange(400)}" for w in words]  # many edits: the beam binds
    ter_module.ter_edits.cache_clear()
    tracemalloc.start()
    ours = _ours(hyp, words)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 12 * 2**20, f"peak {peak / 2**20:.1f} MiB"  # full-width rows: 2,001 x 2,001 cells, 32 MiB and more
    assert ours == translation_edit_rate(hyp, words)[0]
