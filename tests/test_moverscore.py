"""MoverScore: parity with an independent per-pair exact-EMD oracle of the v2 semantics (written here, on its own
model loading, one text per forward pass, v2's joined [reference; prediction] problem and ot.emd2), every option,
defined results on bad input, the shared cache, and the evaluate module."""

from __future__ import annotations

import html
import math
import string
import warnings
from collections import Counter, defaultdict

import numpy as np
import ot
import pytest
import torch

from nlgmetrics.resources import BUNDLED_ENCODER_ID, bundled_encoder_path
from nlgmetrics.semantic.moverscore import MoverScorer, compute_moverscore, idf_array, idf_dict

pytestmark = pytest.mark.skipif(bundled_encoder_path() is None, reason="bundled MiniLM encoder not installed")

N_PAIRS = 24
PARITY = 1e-5


# -- the oracle -----------------------------------------------------------------------------------------------------
class Oracle:
    """MoverScore v2 (moverscore 1.0.3 word_mover_score) re-derived per pair, with ot.emd2 in place of pyemd."""

    def __init__(self, layer: int | None = None):
        from transformers import AutoModel, AutoTokenizer

        path = bundled_encoder_path()
        self.tok = AutoTokenizer.from_pretrained(path, use_fast=False)
        self.model = AutoModel.from_pretrained(path).eval()
        self.layer = layer
        self._emb: dict = {}

    def tokens(self, text):
        return ["[CLS]"] + self.tok.tokenize(text)[: self.tok.model_max_length - 2] + ["[SEP]"]

    def ids(self, text):
        return self.tok.convert_tokens_to_ids(self.tokens(text))

    def embed(self, text):
        key = (text, self.layer)
        if key not in self._emb:
            ids = torch.tensor([self.ids(text)])
            with torch.no_grad():
                out = self.model(input_ids=ids, output_hidden_states=True)
            hidden = out.hidden_states[-1 if self.layer is None else self.layer]
            self._emb[key] = hidden[0].double().numpy()
        return self._emb[key]

    def idf(self, corpus):
        df = Counter()
        for text in corpus:
            df.update(set(self.ids(text)))
        table = defaultdict(lambda: math.log(len(corpus) + 1))
        table.update({i: math.log((len(corpus) + 1) / (c + 1)) for i, c in df.items()})
        return table

    def weights(self, text, idf, stop_words, remove_subwords):
        out = []
        for tok, i in zip(self.tokens(text), self.ids(text)):
            dropped = tok in stop_words or tok in set(string.punctuation) or (remove_subwords and "##" in tok)
            out.append(0.0 if dropped else (idf[i] if idf is not None else 1.0))
        return np.array(out)

    def pair(self, pred, ref, idf_pred=None, idf_ref=None, *, stop_words=(), remove_subwords=True,
             distance="euclidean", relaxed=False):
        """1 - transport cost on the joined token set, or None when a side has no mass."""
        w_ref = self.weights(ref, idf_ref, stop_words, remove_subwords)
        w_hyp = self.weights(pred, idf_pred, stop_words, remove_subwords)
        if w_ref.sum() == 0 or w_hyp.sum() == 0:
            return None
        raw = np.concatenate([self.embed(ref), self.embed(pred)])
        raw = raw / (np.linalg.norm(raw, axis=1, keepdims=True) + 1e-30)
        if distance == "euclidean":
            dst = np.linalg.norm(raw[:, None, :] - raw[None, :, :], axis=-1)
        else:
            dst = 1.0 - raw @ raw.T
        n = len(w_ref)
        c1 = np.zeros(len(raw))
        c2 = np.zeros(len(raw))
        c1[:n] = w_ref / w_ref.sum()
        c2[n:] = w_hyp / w_hyp.sum()
        if relaxed:
            block = dst[:n, n:][c1[:n] > 0]
            return 1.0 - float((c2[n:] * block.min(axis=0)).sum())
        return 1.0 - float(ot.emd2(c1, c2, dst))

    def corpus(self, preds, refs, idf=True, **kw):
        ip = self.idf(preds) if idf else None
        ir = self.idf(refs) if idf else None
        return [self.pair(p, r, ip, ir, **kw) for p, r in zip(preds, refs)]


@pytest.fixture(scope="module")
def oracle():
    return Oracle()


@pytest.fixture(scope="module")
def pairs(wmt17_deen):
    refs = [html.unescape(t) for t in wmt17_deen["references"][:N_PAIRS]]
    preds = [html.unescape(t) for t in wmt17_deen["systems"]["online-B.0"][:N_PAIRS]]
    return preds, refs


def _ms(preds, refs, **kw):
    return compute_moverscore(preds, refs, model_type=BUNDLED_ENCODER_ID, **kw)


def _assert_parity(ours, theirs, tol=PARITY):
    assert len(ours) == len(theirs)
    for k, (a, b) in enumerate(zip(ours, theirs)):
        assert b is not None, k
        assert abs(a - b) <= tol, (k, a, b)


# -- parity ---------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("idf", [True, False])
def test_parity_with_oracle_on_wmt17(oracle, pairs, idf):
    preds, refs = pairs
    result = _ms(preds, refs, idf=idf)
    _assert_parity(result["scores"], oracle.corpus(preds, refs, idf=idf))
    assert result["moverscore"] == pytest.approx(np.mean(result["scores"]), abs=1e-12)
    np.testing.assert_allclose(result["distances"], 1 - np.array(result["scores"]), atol=1e-12)
    assert 0.2 < result["moverscore"] < 0.9  # real, non-degenerate values


def test_parity_options(oracle, pairs):
    preds, refs = pairs
    preds, refs = preds[:12], refs[:12]
    stops = ["the", "a", "of", "to", "in", "and", "is"]
    cases = [
        ({"stop_words": stops}, {"stop_words": set(stops)}),
        ({"remove_subwords": False}, {"remove_subwords": False}),
        ({"distance": "cosine"}, {"distance": "cosine"}),
        ({"relaxed": True}, {"relaxed": True}),
    ]
    for ours_kw, oracle_kw in cases:
        _assert_parity(_ms(preds, refs, **ours_kw)["scores"], oracle.corpus(preds, refs, **oracle_kw))
    assert _ms(preds, refs, stop_words=stops)["scores"] != _ms(preds, refs)["scores"]


def test_parity_other_layer(pairs):
    preds, refs = pairs
    preds, refs = preds[:8], refs[:8]
    _assert_parity(_ms(preds, refs, num_layers=3)["scores"], Oracle(layer=3).corpus(preds, refs))
    with pytest.raises(ValueError, match="num_layers"):
        _ms(preds, refs, num_layers=7)


def test_relaxed_is_one_sided_lower_bound(pairs):
    preds, refs = pairs
    exact = _ms(preds, refs)["distances"]
    relaxed = _ms(preds, refs, relaxed=True)["distances"]
    assert all(r <= e + 1e-12 for r, e in zip(relaxed, exact))
    assert any(r < e - 1e-3 for r, e in zip(relaxed, exact))


@pytest.mark.filterwarnings("ignore:Sinkhorn stopped")
def test_sinkhorn_close_to_exact(pairs):
    preds, refs = pairs
    preds, refs = preds[:8], refs[:8]
    exact = np.array(_ms(preds, refs)["scores"])
    result = _ms(preds, refs, solver="sinkhorn", reg=0.01)
    assert "sinkhorn-reg0.01" in result["hashcode"]
    gap = exact - np.array(result["scores"])
    assert gap.max() < 3e-3 and gap.min() > -1e-9  # the entropic plan is feasible: never below the EMD


def test_n_gram_units(oracle, pairs):
    """n_gram=2: windows of two consecutive kept tokens, mass = summed weights, embedding = weighted mean."""
    preds, refs = pairs
    preds, refs = preds[:6], refs[:6]
    ours = _ms(preds, refs, n_gram=2, idf=False)["scores"]
    for pred, ref, score in zip(preds, refs, ours):
        clouds = []
        for text in (ref, pred):
            emb = oracle.embed(text)
            emb = emb / np.linalg.norm(emb, axis=1, keepdims=True)
            kept = [k for k, t in enumerate(oracle.tokens(text)) if t not in string.punctuation and "##" not in t]
            units = np.array([emb[kept[s : s + 2]].mean(0) for s in range(len(kept) - 1)])
            clouds.append(units / np.linalg.norm(units, axis=1, keepdims=True))
        x, y = clouds
        cost = ot.emd2(np.full(len(x), 1 / len(x)), np.full(len(y), 1 / len(y)),
                       np.linalg.norm(x[:, None] - y[None], axis=-1))
        assert score == pytest.approx(1 - cost, abs=PARITY)
    assert ours != _ms(preds, refs, idf=False)["scores"]


def test_several_references(oracle, pairs):
    preds, refs = pairs
    preds = preds[:5]
    groups = [[refs[i], refs[i + 5]] for i in range(5)]
    singles = np.array([[oracle.pair(p, g[j]) for j in range(2)] for p, g in zip(preds, groups)])
    for mode, expected in (("max", singles.max(1)), ("mean", singles.mean(1))):
        got = _ms(preds, groups, idf=False, multi_ref=mode)
        _assert_parity(got["scores"], list(expected))
        assert f"multiref-{mode}" in got["hashcode"] or mode == "max"
    weights = [[1.0, 3.0]] * 5
    got = _ms(preds, groups, idf=False, ref_weights=weights)["scores"]
    _assert_parity(got, list((singles[:, 0] + 3 * singles[:, 1]) / 4))
    # idf on: the reference corpus is all references, flattened
    ir = oracle.idf([r for g in groups for r in g])
    ip = oracle.idf(preds)
    want = [max(oracle.pair(p, r, ip, ir) for r in g) for p, g in zip(preds, groups)]
    _assert_parity(_ms(preds, groups)["scores"], want)
    with pytest.raises(ValueError, match="ref_weights"):
        _ms(preds, groups, ref_weights=[[1.0]] * 5)
    with pytest.raises(ValueError, match="multi_ref"):
        _ms(preds, groups, multi_ref="min")


def test_long_text_is_truncated_as_v2(oracle):
    long_ref = " ".join(f"word{i % 53} is here" for i in range(140))  # about 560 wordpieces
    preds = ["word1 is here and word2 is there", "nothing of the sort"]
    refs = [long_ref, "something of the sort"]
    _assert_parity(_ms(preds, refs, idf=False)["scores"], oracle.corpus(preds, refs, idf=False))
    windowed = _ms(preds, refs, idf=False, long_text="window")
    assert math.isfinite(windowed["scores"][0]) and "long-window" in windowed["hashcode"]


def test_chunked_scoring_equals_one_pass(oracle, pairs, monkeypatch):
    """Streams longer than PAIR_CHUNK pairs are embedded and solved chunk by chunk with the corpus idf taken from the
    tokenizer: the same numbers as one pass (here with chunks of 7 pairs, a long truncated text and a repeat)."""
    import nlgmetrics.semantic.moverscore as ms

    preds, refs = pairs
    long_ref = " ".join(f"word{i % 53} is here" for i in range(140))
    preds, refs = list(preds) + ["word1 is here", preds[0]], list(refs) + [long_ref, refs[0]]
    one_pass = {idf: _ms(preds, refs, idf=idf)["scores"] for idf in (True, False)}
    monkeypatch.setattr(ms, "PAIR_CHUNK", 7)
    from nlgmetrics.embed import get_cache

    for idf in (True, False):
        get_cache().clear()
        chunked = _ms(preds, refs, idf=idf)["scores"]
        _assert_parity(chunked, one_pass[idf], tol=1e-6)  # batch composition: float32 noise only
        _assert_parity(chunked, oracle.corpus(preds, refs, idf=idf))


# -- defined results, bad input ---------------------------------------------------------------------------------------
def test_zero_mass_texts_score_zero_with_warning():
    with pytest.warns(UserWarning, match="zero mass"):
        result = _ms(["...", "a cat sat on the mat"], ["a cat sat on a mat", "!!"])
    assert result["scores"] == [0.0, 0.0] and result["distances"] == [1.0, 1.0]
    with pytest.warns(UserWarning, match="idf=False"):
        single = _ms(["a cat"], ["a dog"])  # idf over one text: every id has df = N, idf 0
    assert single["scores"] == [0.0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ok = _ms(["a cat"], ["a dog"], idf=False)
    assert 0 < ok["scores"][0] < 1


def test_identical_and_empty_texts_are_finite():
    same = _ms(["the cat sat on the mat", "a dog ran home"], ["the cat sat on the mat", "the dog ran away"], idf=False)
    assert same["scores"][0] == pytest.approx(1.0, abs=1e-6)  # (with idf the two sides' corpora weigh it apart)
    result = _ms(["", "   ", "猫坐在垫子上。", "I ❤️ 🐍"], ["a reference", "", "猫坐在垫子上了。", "I ❤️ python"], idf=False)
    assert all(math.isfinite(s) for s in result["scores"] + result["distances"] + [result["moverscore"]])


@pytest.mark.parametrize(
    "options, match",
    [
        ({"distance": "manhattan"}, "distance"),
        ({"solver": "pyemd"}, "solver"),
        ({"reg": 0}, "reg"),
        ({"n_gram": 0}, "n_gram"),
        ({"stop_words": "the"}, "stop_words"),
        ({"long_text": "drop"}, "long_text"),
        ({"idf": "yes"}, "idf"),
    ],
)
def test_bad_options(options, match):
    with pytest.raises((ValueError, TypeError), match=match):
        _ms(["a"], ["b"], **options)


def test_bad_pairs():
    with pytest.raises(ValueError, match="no examples"):
        _ms([], [])
    with pytest.raises(ValueError, match="2 predictions but 1 references"):
        _ms(["a", "b"], ["a"])
    with pytest.raises(TypeError, match=r"predictions\[0\]"):
        _ms([None], ["a"])


# -- pieces -------------------------------------------------------------------------------------------------------
def test_idf_dict_definition():
    table = idf_dict([[1, 2, 2], [2, 3]])
    assert table[2] == pytest.approx(math.log(3 / 3))
    assert table[1] == pytest.approx(math.log(3 / 2))
    assert table[99] == pytest.approx(math.log(3))
    dense = idf_array([[1, 2, 2], [2, 3]], 100)
    assert all(dense[i] == pytest.approx(table[i]) for i in (1, 2, 3, 99))


def test_given_idf_pair_replaces_the_corpus_idf(pairs):
    """idf=(prediction idf, reference idf), as dicts or arrays, gives what idf=True computes from the same corpora;
    other idfs give other scores; malformed ones are clear errors."""
    preds, refs = pairs[0][:8], pairs[1][:8]
    scorer = MoverScorer(BUNDLED_ENCODER_ID)
    ids = scorer.token_ids(preds + refs)
    by_side = [idf_dict(ids[t] for t in preds), idf_dict(ids[t] for t in refs)]
    size = len(scorer.encoder.tokenizer)
    arrays = [idf_array((ids[t] for t in side), size) for side in (preds, refs)]
    corpus = _ms(preds, refs)
    for given in (tuple(by_side), arrays):
        out = _ms(preds, refs, idf=given)
        assert out["scores"] == pytest.approx(corpus["scores"], abs=1e-9)
        assert "idf-given" in out["hashcode"] and "idf-given" not in corpus["hashcode"]
    larger = idf_dict(ids[t] for t in preds + refs)  # one idf over both sides: a different weighting
    assert max(abs(a - b) for a, b in zip(_ms(preds, refs, idf=(larger, larger))["scores"], corpus["scores"])) > 1e-4
    with pytest.raises(TypeError, match="pair"):
        _ms(preds, refs, idf=by_side[0])
    with pytest.raises(ValueError, match="defaultdict"):
        _ms(preds, refs, idf=(dict(idf_dict(ids[t] for t in preds[:2])), by_side[1]))  # ids of preds[2:] missing
    with pytest.raises(ValueError, match="whole vocabulary"):
        _ms(preds, refs, idf=(arrays[0][:100], arrays[1]))


def test_shares_the_embedding_cache_with_bertscore(pairs):
    """Texts that fit the model are cached under the engine's default namespace, which BERTScore uses too."""
    from nlgmetrics.embed import get_cache, get_encoder

    preds, refs = pairs
    _ms(preds[:4], refs[:4])
    encoder = get_encoder(BUNDLED_ENCODER_ID)
    namespace = encoder.namespace(encoder.num_hidden_layers, "window")
    assert all(get_cache().get(namespace, t) is not None for t in preds[:4] + refs[:4])


def test_alignment_flow(pairs):
    scorer = MoverScorer(BUNDLED_ENCODER_ID, idf=False)
    pred, ref = pairs[0][0], pairs[1][0]
    al = scorer.alignment(pred, ref)
    flow = al["flow"]
    assert flow.shape == (len(al["reference_tokens"]), len(al["prediction_tokens"]))
    np.testing.assert_allclose(flow.sum(1), al["reference_mass"], atol=1e-12)
    np.testing.assert_allclose(flow.sum(0), al["prediction_mass"], atol=1e-12)
    assert al["score"] == pytest.approx(_ms([pred], [ref], idf=False)["scores"][0], abs=1e-9)


# -- the evaluate module ----------------------------------------------------------------------------------------------
def test_evaluate_module_end_to_end(pairs):
    import evaluate

    module = evaluate.load("./metrics/moverscore")
    preds, refs = pairs
    preds, refs = preds[:6], refs[:6]
    got = module.compute(predictions=preds, references=refs, model_type=BUNDLED_ENCODER_ID)
    want = _ms(preds, refs)
    assert got["scores"] == pytest.approx(want["scores"], abs=1e-12) and got["hashcode"] == want["hashcode"]
    mixed = module.compute(predictions=preds[:2], references=[refs[0], [refs[1], refs[2]]], idf=False)
    assert len(mixed["scores"]) == 2
    for p, r in zip(preds[:3], refs[:3]):
        module.add(prediction=p, reference=r)
    assert module.compute(idf=False)["scores"] == pytest.approx(_ms(preds[:3], refs[:3], idf=False)["scores"])


def test_evaluate_module_docstring_examples():
    import doctest
    import importlib.util

    from conftest import REPO

    spec = importlib.util.spec_from_file_location("moverscore_module", REPO / "metrics" / "moverscore" / "moverscore.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    import evaluate

    parser = doctest.DocTestParser()
    test = parser.get_doctest(module._KWARGS_DESCRIPTION, {"evaluate": evaluate}, "moverscore", None, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    assert runner.failures == 0 and runner.tries >= 8


# -- alignment pictures -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("metric", ["moverscore", "bertscore"])
def test_plot_alignment_writes_png(tmp_path, metric):
    pytest.importorskip("matplotlib")
    from nlgmetrics.semantic.alignment_plot import alignment_matrix, plot_alignment

    pred, ref = "they have air conditioning and new toilets .", "they are now equipped with air conditioning ."
    out = plot_alignment(pred, ref, tmp_path / f"{metric}.png", metric=metric, model_type=BUNDLED_ENCODER_ID)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    data = alignment_matrix(pred, ref, metric=metric, model_type=BUNDLED_ENCODER_ID)
    assert data["matrix"].shape == (len(data["reference_tokens"]), len(data["prediction_tokens"]))
    if metric == "moverscore":
        assert data["matrix"].sum() == pytest.approx(1.0) and data["reference_tokens"][0] == "[CLS]"
        assert data["score"] == pytest.approx(_ms([pred], [ref], idf=False)["scores"][0], abs=1e-9)
    else:
        assert "[CLS]" not in data["reference_tokens"] and np.abs(data["matrix"]).max() <= 1 + 1e-9
    with pytest.raises(ValueError, match="metric"):
        alignment_matrix(pred, ref, metric="bleu")


# -- hardening: long texts, odd input ---------------------------------------------------------------------------------
LONG_REF = " ".join(f"word{i % 53} is here" for i in range(140))  # about 560 wordpieces, ~420 with mass


def test_exact_transport_past_its_limit_is_refused_before_embedding(monkeypatch):
    from nlgmetrics.transport import exact

    monkeypatch.setattr(exact, "MAX_ENTRIES", 100_000)  # ~ 316 x 316 tokens with mass
    monkeypatch.setattr(MoverScorer, "embed", lambda *a, **k: pytest.fail("embedded before the size check"))
    with pytest.raises(ValueError, match=r"exact solver's limit of 100,000.*relaxed=True.*solver='sinkhorn'.*"
                                         r"long_text='truncate'"):
        _ms([LONG_REF.replace("here", "there")], [LONG_REF], idf=False, long_text="window")


def test_window_mode_past_the_exact_limit_runs_relaxed(monkeypatch):
    from nlgmetrics.transport import exact

    pred = LONG_REF.replace("here", "there")
    whole = _ms([pred], [LONG_REF], idf=False, long_text="window", relaxed=True)["scores"]
    truncated = _ms([pred], [LONG_REF], idf=False)  # v2's cut at 512 tokens
    monkeypatch.setattr(exact, "MAX_ENTRIES", 100_000)
    from nlgmetrics import transport

    monkeypatch.setattr(transport, "CHUNK_ENTRIES", 5_000)  # the pair's costs in blocks of columns
    blocked = _ms([pred], [LONG_REF], idf=False, long_text="window", relaxed=True)["scores"]
    assert blocked == pytest.approx(whole, abs=1e-9) and 0 < blocked[0] < 1
    assert blocked != truncated["scores"]  # every token counted, not the first 512


def test_memory_warning_when_the_estimate_exceeds_what_is_available(monkeypatch):
    from nlgmetrics import semantic

    monkeypatch.setattr(semantic, "available_memory", lambda: 1000)
    with pytest.warns(UserWarning, match="MoverScore .*needs an estimated"):
        out = _ms(["a cat sat on the mat"], ["a cat sat on a mat"], idf=False)
    assert 0 < out["scores"][0] <= 1


def test_lone_surrogates_are_replaced_with_one_warning():
    with pytest.warns(UserWarning, match="MoverScore: 2 text"):
        odd = _ms(["\ud800 cat sat", "a dog"], ["the cat sat", "a \udcff dog"], idf=False)
    plain = _ms(["\ufffd cat sat", "a dog"], ["the cat sat", "a \ufffd dog"], idf=False)
    assert odd["scores"] == plain["scores"]
    scorer = MoverScorer(BUNDLED_ENCODER_ID, idf=False)
    with pytest.warns(UserWarning, match="1 text"):
        flow = scorer.alignment("\ud800 cat", "a cat")
    assert math.isfinite(flow["score"])


def test_numpy_and_pandas_inputs(pairs):
    pd = pytest.importorskip("pandas")
    preds, refs = pairs
    ours = _ms(np.array(preds[:4]), pd.Series(refs[:4]), idf=False)
    assert ours["scores"] == _ms(preds[:4], refs[:4], idf=False)["scores"]
