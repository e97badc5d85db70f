"""COMET: parity with unbabel-comet 2.2.7 (the oracle venv) on checkpoints of the real architectures with small random
weights (tests/comet_builder.py), on real WMT17 en-de text, for each encoder family (XLM-R; MiniLM: BERT layers over
XLM-R's tokenizer; BERT: WordPiece, token types); caching, truncation and bad input."""

from __future__ import annotations

import gzip
import json
import re
import shutil
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from comet_builder import (  # noqa: E402
    build_bert_encoder,
    build_encoder,
    build_minilm_encoder,
    copy_checkpoint,
    fake_hub_cache,
    oracle_scores,
)
from conftest import DATA  # noqa: E402

N = 48  # segments per system
SYSTEMS = ("C-3MA.4959", "uedin-nmt.4722")
MAX_POSITIONS = 66  # a small encoder limit, so real WMT17 sentences get truncated (62 tokens) in both implementations

ESTIMATOR = {  # wmt22-comet-da's architecture: regression estimator, sparsemax mix, avg pooling
    "class_identifier": "regression_metric", "encoder_model": "XLM-RoBERTa", "hidden_sizes": [48, 16],
    "layer": "mix", "layer_transformation": "sparsemax", "layer_norm": False, "pool": "avg", "dropout": 0.1,
    "activations": "Tanh", "final_activation": None,
}
KIWI = {  # wmt22-cometkiwi-da's architecture: unified model on [mt, src], here with the layer-norm and softmax options
    "class_identifier": "unified_metric", "encoder_model": "XLM-RoBERTa", "hidden_sizes": [48, 16],
    "sent_layer": "mix", "layer_transformation": "softmax", "layer_norm": True, "word_layer": 3,
    "input_segments": ["mt", "src"], "dropout": 0.1, "activations": "Tanh", "final_activation": "Sigmoid",
}
UNIFIED3 = {  # the unified model on [mt, src, ref] (XCOMET's scoring path): mean over three joint inputs
    **KIWI, "input_segments": ["mt", "src", "ref"], "layer_transformation": "sparsemax", "layer_norm": False,
    "final_activation": None,
}
XCOMET = {  # XCOMET-XL's architecture on the small XLM-R: unified heads plus a word-level tagger on word_layer
    "class_identifier": "xcomet_metric", "encoder_model": "XLM-RoBERTa", "hidden_sizes": [48, 16],
    "sent_layer": "mix", "layer_transformation": "sparsemax", "layer_norm": False, "word_layer": 3,
    "dropout": 0.1, "activations": "Tanh", "final_activation": None,
}
XCOMET_ORACLE = {
    # set weights: a sparsemax mix of layers 0-2 (word_layer 3 lies above it, so the encoder keeps a block the mix
    # drops), an "O" tag bias giving a few error spans per segment (MQM scores spread over 0..1), and a regression
    # head whose scores straddle 1 (XCOMET clamps them there)
    "fill": {**{f"layerwise_attention.scalar_parameters.{i}": [v] for i, v in enumerate([0.3, 0.8, 0.6, -3.0])},
             "hidden2tag.bias": [1.5, 0.0, 0.0, 0.4], "estimator.ff.6.weight": [[2.0, -2.0] * 8],
             "estimator.ff.6.bias": [-4.93]},
    "variants": {"": ["src", "mt", "ref"], "qe:": ["src", "mt"], "ref:": ["mt", "ref"]},
    "metadata": ["mqm_scores", "error_spans", "src_scores", "ref_scores", "unified_scores"],
    # the span samples (WMT17 + CJK) with argmax decoding and two decoding thresholds, then comet-score's half()
    "runs": [{"prefix": "", "samples": ["spans"]}, {"prefix": "t0.3:", "samples": ["spans"], "threshold": 0.3},
             {"prefix": "t0.6:", "samples": ["spans"], "threshold": 0.6},
             {"prefix": "half:", "samples": ["half"], "half": True}],
}
THRESHOLDS = {"": None, "t0.3:": 0.3, "t0.6:": 0.6}

#: hand-written Chinese and Japanese translations (mt, ref) of short English sources: XCOMET's character offsets on
#: text without spaces (the test tokenizer is trained on them too, so their characters are pieces, not <unk>)
CJK = [("The fire could be stopped.", "火势得到了控制。", "大火被扑灭了。"),
       ("Schools and kindergartens were opened.", "学校和幼儿园开放了。", "学校和幼儿园都开学了。"),
       ("The cat sat on the mat.", "猫坐在垫子上。", "那只猫坐在垫子上。"),
       ("Tokyo is a large city.", "東京は大きな都市です。", "東京は大都市だ。"),
       ("The weather is nice today, let us walk in the park.", "今天天气很好，我们去公园散步吧。",
        "今天天气不错，我们去公园走走吧。"),
       ("I will arrive tomorrow morning at 9.", "明日の朝9時に到着します。", "明朝9時に着く予定です。"),
       ("Beijing, Shanghai and Guangzhou", "北京 上海 广州", "北京、上海和广州")]
N_SPANS = 24  # WMT17 segments of the span samples, besides CJK
N_CONTEXT, DOCUMENT = 16, 8  # consecutive WMT17 lines scored with document context, as documents of 8 lines
N_HALF = 16  # WMT17 segments scored in half precision (float16 on the CPU is slow)
#: the runs of the other models: document context (wmt22-comet-da's architecture), comet-score's model.half()
RUNS = {"estimator": [{"prefix": "ctx:", "samples": ["context"], "context": True},
                      {"prefix": "half:", "samples": ["half"], "half": True}],
        "kiwi": [{"prefix": "half:", "samples": ["half"], "half": True, "keys": ["src", "mt"]}]}

MINILM = {  # eamt22-cometinho-da's family: BERT layers over XLM-R's tokenizer; softmax mix with layer norm
    **ESTIMATOR, "encoder_model": "MiniLM", "layer_transformation": "softmax", "layer_norm": True,
}
BERT = {**ESTIMATOR, "encoder_model": "BERT", "pool": "max"}  # WordPiece; its sparsemax mix reads layer 0 alone
BERT_KIWI = {**KIWI, "encoder_model": "BERT"}  # joint [CLS] mt [SEP] src [SEP] with token types 0 then 1
FAMILIES = {"minilm": MINILM, "bert": BERT, "bert_kiwi": BERT_KIWI}


N_SPECIAL = 12  # segments with special tokens written in their text


def _special_samples(sources, reference, outputs):
    """WMT17 triples with special tokens written in the text, as a generation decoded without skipping special
    tokens gives them: ``<pad>`` (the pad id: XLM-R, MiniLM), ``[PAD]`` (BERT's pad id), and ``</s>``, ``<s>``,
    ``<mask>``, ``<unk>``, ``[SEP]`` (tokens like any other to both implementations)."""
    rows = []
    for i in range(N_SPECIAL):
        s, m, r = sources[i], outputs[i], reference[i]
        if i % 6 == 0:
            m = m + "</s><pad><pad><pad>"
        elif i % 6 == 1:
            m, s = "<pad> " + m, s + " <pad>"
        elif i % 6 == 2:
            m, r = m.replace(" ", " <pad> ", 2), "<s> " + r
        elif i % 6 == 3:
            m, r = m + " <mask>", r.replace(" ", " <unk> ", 1)
        elif i % 6 == 4:
            m = "<pad>"
        else:
            m, r = "[PAD] " + m.replace(" ", " [PAD] ", 1) + " [SEP] x", r + "<pad>"
        rows.append({"src": s, "mt": m, "ref": r})
    return rows


# -- published configurations: hparams.yaml of the hub checkpoints and their encoders' config.json ------------------
_COMMON = {"activations": "Tanh", "batch_size": 16, "dropout": 0.1, "encoder_learning_rate": 1.0e-06,
           "final_activation": None, "keep_embeddings_frozen": True, "layerwise_decay": 0.95,
           "learning_rate": 1.5e-05, "loss": "mse", "nr_frozen_epochs": 0.3, "optimizer": "AdamW", "pool": "avg",
           "warmup_steps": 0}
PUBLISHED = {  # name -> (hparams.yaml values, encoder config.json values)
    "wmt22-comet-da": (
        {**_COMMON, "class_identifier": "regression_metric", "encoder_model": "XLM-RoBERTa",
         "pretrained_model": "xlm-roberta-large", "hidden_sizes": [3072, 1024], "layer": "mix", "layer_norm": False,
         "layer_transformation": "sparsemax"},
        "xlm-roberta-large"),
    "wmt22-cometkiwi-da": (
        {**_COMMON, "class_identifier": "unified_metric", "encoder_model": "XLM-RoBERTa",
         "pretrained_model": "microsoft/infoxlm-large", "hidden_sizes": [3072, 1024], "layer": "mix",
         "sent_layer": "mix", "word_layer": 24, "layer_norm": False, "layer_transformation": "sparsemax",
         "input_segments": ["mt", "src"], "word_level_training": False, "loss_lambda": 0.65},
        "infoxlm-large"),
    "XCOMET-XL": (
        {**_COMMON, "batch_size": 8, "class_identifier": "xcomet_metric", "encoder_model": "XLM-RoBERTa-XL",
         "pretrained_model": "facebook/xlm-roberta-xl", "hidden_sizes": [2560, 1280], "layer": "mix",
         "sent_layer": "mix", "word_layer": 36, "layer_norm": False, "layer_transformation": "sparsemax",
         "input_segments": ["mt", "src", "ref"], "word_level_training": True, "loss_lambda": 0.055,
         "error_labels": ["minor", "major", "critical"], "cross_entropy_weights": [0.08, 0.486, 0.505, 0.533]},
        "xlm-roberta-xl"),
}
_XLMR_LARGE = {"hidden_size": 1024, "num_hidden_layers": 24, "num_attention_heads": 16, "intermediate_size": 4096,
               "vocab_size": 250002, "max_position_embeddings": 514, "type_vocab_size": 1, "layer_norm_eps": 1e-05,
               "pad_token_id": 1, "bos_token_id": 0, "eos_token_id": 2, "hidden_act": "gelu"}
ENCODER_CONFIGS = {  # the hub's config.json of each encoder (shape-relevant values)
    "xlm-roberta-large": ("XLMRobertaConfig", _XLMR_LARGE),
    "infoxlm-large": ("XLMRobertaConfig", _XLMR_LARGE),  # microsoft/infoxlm-large: XLM-R large's shapes
    "xlm-roberta-xl": ("XLMRobertaXLConfig", {**_XLMR_LARGE, "hidden_size": 2560, "num_hidden_layers": 36,
                                              "num_attention_heads": 32, "intermediate_size": 10240,
                                              "vocab_size": 250880}),
}
PUBLISHED_SIZES = {"wmt22-comet-da": (0.55e9, 0.6e9), "wmt22-cometkiwi-da": (0.55e9, 0.6e9),  # ~580M, ~565M
                   "XCOMET-XL": (3.4e9, 3.6e9)}  # parameters, as the model cards give them (3.5B)


def _published_encoders(work, tokenizer_folder):
    """A folder per published encoder: its config.json (values above) and the small test tokenizer (the shapes
    come from the config)."""
    import transformers

    folders = {}
    for name, (config_class, values) in ENCODER_CONFIGS.items():
        folder = work / f"published-{name}"
        getattr(transformers, config_class)(**values).save_pretrained(folder)
        for path in tokenizer_folder.iterdir():
            if path.name != "config.json":
                shutil.copy(path, folder / path.name)
        folders[name] = folder
    return folders


def _load_wmt():
    with gzip.open(DATA / "wmt17_ende_16systems_every10th.json.gz", "rt", encoding="utf-8") as handle:
        targets = json.load(handle)
    with gzip.open(DATA / "wmt17_ende_source_every10th.json.gz", "rt", encoding="utf-8") as handle:
        sources = json.load(handle)
    assert sources["lines"] == targets["lines"]
    return sources["source"][:N], targets["reference"][:N], {name: targets["systems"][name][:N] for name in SYSTEMS}


def _span_samples(wmt):
    """XCOMET's span samples: WMT17 triples whose translation ends in a word (final punctuation and quotes cut, as
    in headlines: the test tagger tags a final full stop O, so spans would never reach the end), and the CJK ones."""
    sources, reference, systems = wmt
    rows = [{"src": s, "mt": m.rstrip('.!?" '), "ref": r}
            for s, m, r in zip(sources, systems[SYSTEMS[0]], reference)][:N_SPANS]
    return rows + [{"src": s, "mt": m, "ref": r} for s, m, r in CJK]


def _context_samples():
    """Consecutive WMT17 lines (en-de reference and C-3MA; English de-en references as sources), each preceded by up
    to two previous lines of its document (documents of 8 lines), as comet-score --enable-context reads them."""
    from learned_checkpoints import wmt17_lines

    from nlgmetrics.learned.comet import with_context

    english = json.loads((DATA / "wmt17_deen_150.json").read_text(encoding="utf-8"))["references"][:N_CONTEXT]
    plain = {"src": english, "mt": wmt17_lines("newstest2017.C-3MA.4959.en-de")[:N_CONTEXT],
             "ref": wmt17_lines()[:N_CONTEXT]}
    documents = [i // DOCUMENT for i in range(N_CONTEXT)]
    texts = {key: with_context(lines, documents) for key, lines in plain.items()}
    return [{"src": s, "mt": m, "ref": r} for s, m, r in zip(texts["src"], texts["mt"], texts["ref"])]


@pytest.fixture(scope="session")
def wmt():
    return _load_wmt()


@pytest.fixture(scope="session")
def built(tmp_path_factory, wmt):
    """The encoder folders, the checkpoints and unbabel-comet's scores for both systems (one oracle run). MiniLM's
    tokenizer is the hub's ``xlm-roberta-base`` in unbabel-comet: here the XLM-R tokenizer in a fake hub cache
    (``hub``), which the MiniLM test gives our side too."""
    sources, reference, systems = wmt
    work = tmp_path_factory.mktemp("comet")
    with gzip.open(DATA / "wmt17_ende_16systems_every10th.json.gz", "rt", encoding="utf-8") as handle:
        corpus = json.load(handle)
    with gzip.open(DATA / "wmt17_ende_source_every10th.json.gz", "rt", encoding="utf-8") as handle:
        corpus_sources = json.load(handle)["source"]
    texts = corpus["reference"] + corpus_sources + [line for name in list(corpus["systems"])[:4]
                                                    for line in corpus["systems"][name]]
    texts += [text for _, mt, ref in CJK for text in (mt, ref)]
    encoder = build_encoder(work / "xlmr-tiny", texts, vocab_size=1000, max_position_embeddings=MAX_POSITIONS)
    hub = fake_hub_cache(work / "hub", "xlm-roberta-base", encoder)
    minilm = build_minilm_encoder(work / "minilm-tiny", encoder, max_position_embeddings=MAX_POSITIONS)
    bert = build_bert_encoder(work / "bert-tiny", texts, vocab_size=1000, max_position_embeddings=MAX_POSITIONS)
    # the same tokenizer as older BERT folders ship it: vocab.txt and tokenizer_config.json, no tokenizer.json
    bert_vocab = shutil.copytree(bert, work / "bert-vocab-tiny", ignore=shutil.ignore_patterns("tokenizer.json"))
    specs = {"estimator": (ESTIMATOR, encoder), "kiwi": (KIWI, encoder), "unified3": (UNIFIED3, encoder),
             "minilm": (MINILM, minilm), "bert": (BERT, bert), "bert_kiwi": (BERT_KIWI, bert_vocab),
             "xcomet": (XCOMET, encoder)}
    models = {name: work / f"{name}-tiny" for name in specs}
    extra = {"xcomet": XCOMET_ORACLE, **{name: {"runs": runs} for name, runs in RUNS.items()}}
    job = {
        "models": [{"folder": str(models[name]), "hparams": {**hparams, "pretrained_model": str(folder)}, "seed": i,
                    **extra.get(name, {})} for i, (name, (hparams, folder)) in enumerate(specs.items())],
        "samples": {**{system: [{"src": s, "mt": m, "ref": r} for s, m, r in zip(sources, outputs, reference)]
                       for system, outputs in systems.items()},
                    "specials": _special_samples(sources, reference, systems[SYSTEMS[0]])},
        "extra_samples": {"spans": _span_samples(wmt), "context": _context_samples(),
                          "half": [{"src": s, "mt": m, "ref": r} for s, m, r in
                                   zip(sources[:N_HALF], systems[SYSTEMS[0]], reference)]},
        "batch_size": 8, "t_tests": [list(SYSTEMS)],
    }
    published = _published_encoders(work, encoder)
    job["shapes"] = [{"name": name, "hparams": {**hparams, "pretrained_model": str(published[encoder_name])}}
                     for name, (hparams, encoder_name) in PUBLISHED.items()]
    scores = oracle_scores(job, work, timeout=2400, env={"HF_HUB_CACHE": str(hub)})  # minutes when the machine is busy
    return {"encoder": encoder, "models": models, "oracle": {name: scores[str(folder)] for name, folder in
                                                             models.items()}, "work": work, "hub": hub,
            "published": published, "shapes": {name: scores["__shapes__" + name] for name in PUBLISHED},
            "parameters": {name: scores["__parameters__" + name] for name in PUBLISHED}}


def _score(built, name, system, wmt, **kwargs):
    from nlgmetrics.learned.comet import compute_comet

    sources, reference, systems = wmt
    refs = kwargs.pop("references", reference)
    srcs = kwargs.pop("sources", sources)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return compute_comet(systems[system], refs, sources=srcs, model=str(built["models"][name]), batch_size=8,
                             **kwargs)


@pytest.mark.parametrize("name", ["estimator", "kiwi", "unified3", *FAMILIES])
def test_segment_scores_equal_unbabel_comet(built, wmt, name, monkeypatch):
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(built["hub"]))  # MiniLM's xlm-roberta-base tokenizer
    for system in SYSTEMS:
        references = None if name in ("kiwi", "bert_kiwi") else wmt[1]
        result = _score(built, name, system, wmt, references=references)
        expected = built["oracle"][name][system]
        assert len(result["scores"]) == N
        assert max(abs(a - b) for a, b in zip(result["scores"], expected)) < 1e-5
        assert result["mean_score"] == pytest.approx(sum(expected) / N, abs=1e-6)
        assert max(expected) - min(expected) > 1e-3  # the random model tells segments apart


@pytest.mark.parametrize("name", ["estimator", "kiwi", "unified3", *FAMILIES, "xcomet"])
@pytest.mark.parametrize("packed", [True, False], ids=["packed", "padded"])
def test_special_tokens_written_in_the_text_equal_unbabel_comet(built, wmt, name, packed, monkeypatch):
    """``<pad>``/``[PAD]`` in a text is the pad id: padding to pooling and joint inputs, a token to the encoder (with
    XLM-R's padding position); ``<s>``, ``</s>``, ``<mask>``, ``<unk>``, ``[SEP]`` are tokens. Every family, both
    forwards, XCOMET with src+ref, src only and ref only."""
    from huggingface_hub import constants

    from nlgmetrics.embed.cache import get_cache
    from nlgmetrics.learned.comet import compute_comet, load_comet

    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(built["hub"]))
    samples = _special_samples(*wmt[:2], wmt[2][SYSTEMS[0]])
    comet = load_comet(str(built["models"][name]))
    assert comet.packed
    assert sum(comet.pad_id in row for row in comet.token_ids([x["mt"] for x in samples])[0]) >= 2  # pad ids in mt
    monkeypatch.setattr(comet, "packed", packed)
    given = {"xcomet": ["src+ref", "src", "ref"], "kiwi": ["src"], "bert_kiwi": ["src"]}.get(name, ["src+ref"])
    get_cache().clear()
    try:
        for inputs in given:
            prefix = {"src+ref": "", "src": "qe:", "ref": "ref:"}[inputs] if name == "xcomet" else ""
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                scores = compute_comet([x["mt"] for x in samples],
                                       [x["ref"] for x in samples] if "ref" in inputs else None,
                                       sources=[x["src"] for x in samples] if "src" in inputs else None,
                                       model=str(built["models"][name]), batch_size=8)["scores"]
            expected = built["oracle"][name][prefix + "specials"]
            assert max(abs(a - b) for a, b in zip(scores, expected)) < 1e-5, (inputs, scores, expected)
    finally:
        get_cache().clear()


@pytest.mark.parametrize("name", ["estimator", "unified3", "minilm", "bert_kiwi", "xcomet"])
def test_padded_forward_equals_unbabel_comet_too(built, wmt, name, monkeypatch):
    """Encoders the padding-free forward does not take (XLM-R XL) run padded batches, pad positions dropped before
    the mix and pooling: the same scores (layer norm, avg pooling, joint sequences with BERT's token types)."""
    from huggingface_hub import constants

    from nlgmetrics.embed.cache import get_cache
    from nlgmetrics.learned.comet import load_comet

    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(built["hub"]))
    comet = load_comet(str(built["models"][name]))
    assert comet.packed
    monkeypatch.setattr(comet, "packed", False)
    get_cache().clear()
    try:
        result = _score(built, name, SYSTEMS[0], wmt, references=None if name == "bert_kiwi" else wmt[1])
    finally:
        get_cache().clear()
    assert max(abs(a - b) for a, b in zip(result["scores"], built["oracle"][name][SYSTEMS[0]])) < 1e-5


def test_a_mix_of_the_embeddings_alone_keeps_one_encoder_block(built):
    """The BERT checkpoint's sparsemax mix is one-hot on layer 0: the encoder is cut to one block, not to none
    (transformers 5 returns no hidden states from an encoder without blocks); the parity test checks its scores."""
    from nlgmetrics.learned.comet import load_comet

    comet = load_comet(str(built["models"]["bert"]))
    assert comet.mix.weights().tolist() == [1.0] and len(comet.encoder.encoder.layer) == 1


def test_estimator_reuses_source_and_reference_embeddings_across_systems(built, wmt):
    from nlgmetrics.embed.cache import get_cache

    cache = get_cache()
    cache.clear()
    first = _score(built, "estimator", SYSTEMS[0], wmt)
    misses = cache.misses
    assert misses == len(set(wmt[0]) | set(wmt[1]) | set(wmt[2][SYSTEMS[0]]))
    second = _score(built, "estimator", SYSTEMS[1], wmt)
    new_outputs = set(wmt[2][SYSTEMS[1]]) - set(wmt[0]) - set(wmt[1]) - set(wmt[2][SYSTEMS[0]])
    assert cache.misses - misses == len(new_outputs)  # sources and references came from the cache
    again = _score(built, "estimator", SYSTEMS[0], wmt)
    assert again["scores"] == first["scores"] and second["scores"] != first["scores"]


def test_truncation_is_counted_once_per_text(built, wmt):
    import sentencepiece as spm

    from nlgmetrics.learned.comet import compute_comet

    sp = spm.SentencePieceProcessor(model_file=str(built["encoder"] / "sentencepiece.bpe.model"))
    sources, reference, systems = wmt
    texts = set(sources) | set(reference) | set(systems[SYSTEMS[0]])
    too_long = sum(len(sp.encode(text)) + 2 > MAX_POSITIONS - 4 for text in texts)
    assert too_long > 5
    with pytest.warns(UserWarning, match=rf"COMET: {too_long} text\(s\) longer than the encoder takes \(62 tokens\)"):
        compute_comet(systems[SYSTEMS[0]], reference, sources=sources, model=str(built["models"]["estimator"]))


def test_bootstrap_interval_and_signature(built, wmt):
    from nlgmetrics.signature import weights_digest

    result = _score(built, "estimator", SYSTEMS[0], wmt, n_bootstrap=200)
    assert result["mean_score_ci_low"] < result["mean_score"] < result["mean_score_ci_high"]
    parts = dict(part.split(":", 1) for part in result["signature"].split("|"))
    assert parts["model"] == "estimator-tiny" and parts["refs"] == "yes" and parts["dtype"] == "float32"
    assert parts["weights"] == weights_digest(built["models"]["estimator"]) and parts["bs"] == "200"


def test_missing_sources_and_references_are_named(built, wmt):
    from nlgmetrics.learned.comet import compute_comet

    sources, reference, systems = wmt
    model = str(built["models"]["estimator"])
    with pytest.raises(ValueError, match="COMET needs sources"):
        compute_comet(systems[SYSTEMS[0]], reference, model=model)
    with pytest.raises(ValueError, match="needs references"):
        compute_comet(systems[SYSTEMS[0]], None, sources=sources, model=model)
    with pytest.raises(ValueError, match="2 predictions but 1 sources"):
        compute_comet(["a", "b"], ["a", "b"], sources=["x"], model=model)
    with pytest.raises(ValueError, match="COMET needs sources"):  # XCOMET scores from references, not from nothing
        compute_comet(systems[SYSTEMS[0]], None, model=str(built["models"]["xcomet"]))
    with pytest.raises(ValueError, match="COMET needs sources"):  # COMET-Kiwi reads no references
        compute_comet(systems[SYSTEMS[0]], reference, model=str(built["models"]["kiwi"]))
    with pytest.raises(ValueError, match=r"one reference per prediction; references\[0\] has 2"):
        compute_comet(["a"], [["a", "b"]], sources=["x"], model=model)


def test_reference_free_model_warns_that_references_are_unused(built, wmt):
    sources, reference, systems = wmt
    with pytest.warns(UserWarning, match="reference-free .* references are not used"):
        with_refs = _score_warn(built, "kiwi", wmt, reference)
    assert with_refs["scores"] == _score(built, "kiwi", SYSTEMS[0], wmt, references=None)["scores"]


def _score_warn(built, name, wmt, references):
    from nlgmetrics.learned.comet import compute_comet

    sources, _, systems = wmt
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="COMET: .* truncated")
        return compute_comet(systems[SYSTEMS[0]], references, sources=sources, model=str(built["models"][name]))


def test_a_folder_that_is_not_a_checkpoint(tmp_path):
    from nlgmetrics.learned.comet import compute_comet

    (tmp_path / "notes.txt").write_text("hello")
    with pytest.raises(ValueError, match="is not a COMET checkpoint folder: Unbabel's layout is hparams.yaml"):
        compute_comet(["a"], ["a"], sources=["a"], model=str(tmp_path))
    with pytest.raises(ValueError, match="not in the Hugging Face cache and the hub is offline"):
        compute_comet(["a"], ["a"], sources=["a"], model="Unbabel/no-such-comet")
    broken = tmp_path / "broken"
    (broken / "checkpoints").mkdir(parents=True)
    (broken / "hparams.yaml").write_text("class_identifier: regression_metric\n")
    (broken / "checkpoints" / "model.ckpt").write_bytes(b"not a torch file")
    with pytest.raises(ValueError, match="cannot be read as a PyTorch checkpoint"):
        compute_comet(["a"], ["a"], sources=["a"], model=str(broken))


def test_an_encoder_not_found_offline_says_how_to_point_at_a_folder(built, wmt, tmp_path):
    from nlgmetrics.learned.comet import compute_comet

    moved = copy_checkpoint(built["models"]["estimator"], tmp_path / "ckpt", pretrained_model="xlm-roberta-large")
    from nlgmetrics.learned.locate import CheckpointError

    with pytest.raises(CheckpointError, match=re.escape("needs the config of its encoder 'xlm-roberta-large'")
                       + ".*encoder='/path/to/xlm-roberta-large'"):
        compute_comet(["a"], ["a"], sources=["a"], model=str(moved))
    scored = compute_comet(wmt[2][SYSTEMS[0]][:4], wmt[1][:4], sources=wmt[0][:4], model=str(moved),
                           encoder=str(built["encoder"]))
    assert scored["scores"] == pytest.approx(built["oracle"]["estimator"][SYSTEMS[0]][:4], abs=1e-5)


@pytest.mark.parametrize("given", ["src+ref", "src", "ref"])
def test_xcomet_scores_equal_unbabel_comet(built, wmt, given):
    """XCOMET with source and reference (three inputs), source only (QE) and reference only (one input each):
    clamped regression scores plus 0.22 x the MQM score of the decoded error spans."""
    from nlgmetrics.learned.comet import load_comet

    sources, reference, systems = wmt
    prefix = {"src+ref": "", "src": "qe:", "ref": "ref:"}[given]
    oracle = built["oracle"]["xcomet"]
    comet = load_comet(str(built["models"]["xcomet"]))
    assert len(comet.mix.weights()) == 3 and len(comet.encoder.encoder.layer) == 3  # word_layer 3 kept
    for system in SYSTEMS:
        scores = _score(built, "xcomet", system, wmt, references=reference if "ref" in given else None,
                        sources=sources if "src" in given else None)["scores"]
        expected = oracle[prefix + system]
        assert max(abs(a - b) for a, b in zip(scores, expected)) < 1e-5
        # and unbabel-comet's metadata.error_spans, text, severity and character offsets exactly
        ours = _score(built, "xcomet", system, wmt, references=reference if "ref" in given else None,
                      sources=sources if "src" in given else None)["error_spans"]
        assert_spans_equal(ours, oracle[f"__error_spans__{prefix}{system}"])
        # the tagger predicts a mix of tags: a few error spans per segment, MQM scores spread over 0..1 (a wrong
        # span or severity moves a score by >= 0.22 x 0.04, far above the tolerance)
        mqm = oracle[f"__mqm_scores__{prefix}{system}"]
        spans = oracle[f"__error_spans__{prefix}{system}"]
        assert 1.0 in mqm and min(mqm) < 0.5 and len(set(mqm)) > 5
        assert N < sum(map(len, spans)) < 6 * N
        assert {span["severity"] for segment in spans for span in segment} == {"minor", "major", "critical"}
    regression = [oracle[f"__{part}_scores__{SYSTEMS[0]}"] for part in ("src", "ref", "unified")]
    assert all(0 < sum(s > 1 for s in scores) < N for scores in regression)  # the clamp at 1 is exercised


def assert_spans_equal(ours, theirs, confidence=1e-5):
    """Error spans as unbabel-comet gives them: the same keys in its order, the same text, severity and character
    offsets, the confidence (a mean of float32 probabilities) to ``confidence``."""
    assert len(ours) == len(theirs)
    for segment, expected in zip(ours, theirs):
        assert [{k: v for k, v in span.items() if k != "confidence"} for span in segment] == [
            {k: v for k, v in span.items() if k != "confidence"} for span in expected]
        assert all(list(span) == ["text", "confidence", "severity", "start", "end"] for span in segment)
        assert all(abs(a["confidence"] - b["confidence"]) <= confidence for a, b in zip(segment, expected))


def test_xcomet_spans_reach_the_end_of_the_text(built, wmt):
    """Among the span samples' spans (checked equal to unbabel-comet's below) are spans that end at the mt's last
    character (the run closed by an O tag on </s>): several with argmax decoding, some over the thresholds."""
    texts = [x["mt"] for x in _span_samples(wmt)]
    at_end = {prefix: sum(any(s["end"] == len(mt) for s in segment) for mt, segment in
                          zip(texts, built["oracle"]["xcomet"][f"__error_spans__{prefix}spans"]))
              for prefix in THRESHOLDS}
    assert at_end[""] >= 3 and at_end["t0.3:"] + at_end["t0.6:"] >= 1, at_end


@pytest.mark.parametrize("prefix", list(THRESHOLDS))
def test_xcomet_decoding_threshold_and_cjk_equal_unbabel_comet(built, wmt, prefix):
    """XCOMET's decoding_threshold (argmax, 0.3, 0.6) on WMT17 and Chinese/Japanese translations: scores (the MQM
    part follows the spans) and spans equal unbabel-comet's; offsets count characters, not bytes."""
    from nlgmetrics.learned.comet import compute_comet

    samples = _span_samples(wmt)
    model = str(built["models"]["xcomet"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = compute_comet([x["mt"] for x in samples], [x["ref"] for x in samples],
                               sources=[x["src"] for x in samples], model=model, batch_size=8,
                               decoding_threshold=THRESHOLDS[prefix])
    oracle = built["oracle"]["xcomet"]
    assert max(abs(a - b) for a, b in zip(result["scores"], oracle[prefix + "spans"])) < 1e-5
    assert_spans_equal(result["error_spans"], oracle[f"__error_spans__{prefix}spans"])
    cjk = result["error_spans"][N_SPANS:]
    assert sum(map(len, cjk)) >= 3
    for (_, mt, _), segment in zip(CJK, cjk):
        for span in segment:  # characters: a span of CJK text lies inside the mt's length in characters
            assert 0 <= span["start"] < span["end"] <= len(mt) and mt[span["start"]:span["end"]].strip()
    if prefix:
        argmax = oracle["__error_spans__spans"]
        assert result["error_spans"] != argmax and f"threshold:{THRESHOLDS[prefix]:g}" in result["signature"]
    else:
        assert "threshold:argmax" in result["signature"]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            zero = compute_comet([x["mt"] for x in samples], [x["ref"] for x in samples],
                                 sources=[x["src"] for x in samples], model=model, decoding_threshold=0)
        assert zero["error_spans"] == result["error_spans"]  # 0 is argmax, as unbabel-comet's `if threshold:`


def test_error_spans_at_every_entry_point(built, wmt, tmp_path, capsys):
    """XCOMET's error spans wherever per-segment details come back: the core (above), the evaluate module with
    return_details=True (HF's keys alone otherwise), the CLI's JSON, and the per-sample details the Inspect scorer
    puts in Score.metadata and the lighteval metric in doc.specific (nlgmetrics.integration.samplewise)."""
    import evaluate

    from nlgmetrics.cli import main
    from nlgmetrics.integration.samplewise import SampleText, details, score_batch_details, score_sample

    sources, reference, systems = wmt
    n, model = 6, str(built["models"]["xcomet"])
    hyps, refs, srcs = systems[SYSTEMS[0]][:n], reference[:n], sources[:n]
    expected = built["oracle"]["xcomet"][f"__error_spans__{SYSTEMS[0]}"][:n]
    expected_ref = built["oracle"]["xcomet"][f"__error_spans__ref:{SYSTEMS[0]}"][:n]
    assert sum(map(len, expected)) > n  # spans to compare
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module = evaluate.load("./metrics/comet", model)
        assert sorted(module.compute(sources=srcs, predictions=hyps, references=refs)) == ["mean_score", "scores"]
        detailed = module.compute(sources=srcs, predictions=hyps, references=refs, return_details=True)
        assert_spans_equal(detailed["error_spans"], expected)
        assert detailed["signature"].startswith("model:xcomet-tiny|weights:") and "|refs:yes|" in detailed["signature"]
        with pytest.raises(TypeError, match="return_details must be True or False"):
            module.compute(sources=srcs, predictions=hyps, references=refs, return_details="yes")

        paths = {}
        for label, lines in (("src", srcs), ("ref", refs), ("hyp", hyps)):
            paths[label] = str(tmp_path / label)
            (tmp_path / label).write_text("\n".join(lines) + "\n", encoding="utf-8")
        assert main(["score", "-m", "comet", "-p", paths["hyp"], "-r", paths["ref"], "-s", paths["src"],
                     "-o", f"model={model}", "-f", "json"]) == 0
        assert_spans_equal(json.loads(capsys.readouterr().out)["error_spans"], expected)
        assert main(["score", "-m", "comet", "-p", paths["hyp"], "-r", paths["ref"], "-s", paths["src"],
                     "-o", f"model={model}", "-f", "csv"]) == 0
        import csv

        rows = {key: value for _, key, value in csv.reader(capsys.readouterr().out.splitlines())}
        assert_spans_equal([json.loads(rows[f"error_spans[{i}]"]) for i in range(n)], expected)  # JSON cells

        samples = [SampleText(h, r, s) for h, r, s in zip(hyps, refs, srcs)]
        values, extra = score_batch_details("comet", {"model": model}, samples)
        assert [v["comet"] for v in values] == pytest.approx(built["oracle"]["xcomet"][SYSTEMS[0]][:n], abs=1e-5)
        assert_spans_equal([d["error_spans"] for d in extra], expected)
        alone, result = score_sample("comet", {"model": model}, SampleText(hyps[0], refs[0]))  # no source
        assert_spans_equal([details("comet", result)["error_spans"]], expected_ref[:1])
        plain = score_sample("comet", {"model": str(built["models"]["estimator"])}, SampleText(hyps[0], refs[0],
                                                                                              srcs[0]))[1]
        assert details("comet", plain) == {}  # no spans from other checkpoints


def test_xcomet_decode_spans_rules():
    """Spans are runs of error tags closed by O, with their first tag's severity; an open run at the end is dropped
    (unbabel-comet's decode); the penalty is capped at 25; a threshold tags by the error probabilities' sum."""
    from nlgmetrics.learned.comet import decode_spans, mqm_scores

    rows = {0: [0.7, 0.12, 0.1, 0.08], 1: [0.1, 0.6, 0.2, 0.1], 2: [0.2, 0.1, 0.5, 0.2], 3: [0.2, 0.1, 0.2, 0.5],
            4: [0.9, 0.04, 0.03, 0.03]}

    def spans(tags, threshold=None):
        probs = torch.tensor([rows[t] for t in tags])
        offsets = [(2 * i, 2 * i + 1) for i in range(len(tags))]
        return decode_spans(probs, list(range(len(tags))), offsets, threshold, lambda ids: ",".join(map(str, ids)))

    assert spans([0, 0, 0]) == []
    found = spans([0, 1, 3, 0, 2, 0])
    assert [(s["text"], s["severity"], s["start"], s["end"]) for s in found] == [("1,2", "minor", 2, 5),
                                                                                  ("4", "major", 8, 9)]
    assert found[0]["confidence"] == pytest.approx(0.55)
    assert [s["severity"] for s in spans([0, 2, 0, 3, 3])] == ["major"]  # the critical run never closes
    assert mqm_scores([found, spans([0, 3, 0] * 4), []]).tolist() == pytest.approx([1 - 6 / 25, 0.0, 1.0])
    assert [s["severity"] for s in spans([0, 0, 0], threshold=0.25)] == []  # closed by no O: dropped
    assert spans([0, 0, 1, 4], threshold=0.25)[0]["text"] == "0,1,2"  # 0.3 > 0.25: errors, their likeliest kind
    assert spans([1, 0], threshold=0.95) == []


@pytest.mark.parametrize("name", ["estimator", "kiwi", "xcomet"])
def test_half_precision_reproduces_comet_score(built, wmt, name):
    """precision="half" is comet-score's path (model.half() before scoring; unbabel-comet's Python predict() stays
    float32): float16 weights and float16 arithmetic where unbabel-comet keeps it (the mix, the head; the average
    pool divided in float32; XCOMET's MQM term in float32). float16 rounds a score s in steps of
    2^(floor(log2|s|) - 10): ours is within two steps of comet-score's for every segment, and on average much
    nearer to it than unbabel-comet's own float32 scores are."""
    import math

    from nlgmetrics.embed.cache import get_cache

    sources, reference, systems = wmt
    get_cache().clear()
    references = None if name == "kiwi" else reference[:N_HALF]
    texts = (sources[:N_HALF], references, {SYSTEMS[0]: systems[SYSTEMS[0]][:N_HALF]})
    result = _score(built, name, SYSTEMS[0], texts, references=references, precision="half")
    half, float32 = built["oracle"][name]["half:half"], built["oracle"][name][SYSTEMS[0]][:N_HALF]
    steps = [abs(a - b) / 2 ** (math.floor(math.log2(abs(b))) - 10) for a, b in zip(result["scores"], half)]
    assert max(steps) <= 2, max(steps)
    ours_to_half = np.mean(np.abs(np.subtract(result["scores"], half)))
    assert ours_to_half < np.mean(np.abs(np.subtract(float32, half))) / 2
    assert result["signature"].startswith(f"model:{name}-tiny|weights:") and "|precision:half|" in result["signature"]
    if name == "xcomet":  # comet-score's error spans (confidence: a float16 mean)
        assert_spans_equal(result["error_spans"], built["oracle"][name]["__error_spans__half:half"],
                           confidence=2e-3)


def test_half_precision_is_not_autocast(built, wmt):
    from nlgmetrics.learned.comet import compute_comet

    with pytest.raises(ValueError, match="precision='half' computes in float16 throughout"):
        compute_comet(["a"], ["a"], sources=["a"], model=str(built["models"]["estimator"]), precision="half",
                      dtype="bfloat16")
    with pytest.raises(ValueError, match="precision must be one of 'float32', 'half'"):
        compute_comet(["a"], ["a"], sources=["a"], model=str(built["models"]["estimator"]), precision="fp16")


def test_document_context_equals_unbabel_comet(built, wmt):
    """enable_context (comet-score --enable-context): texts carry up to two previous sentences of their document
    before </s> (with_context); the estimator pools only the last sentence. Equal to unbabel-comet's."""
    from nlgmetrics.learned.comet import compute_comet, load_comet

    samples = _context_samples()
    texts = {key: [x[key] for x in samples] for key in ("src", "mt", "ref")}
    model = str(built["models"]["estimator"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        context = compute_comet(texts["mt"], texts["ref"], sources=texts["src"], model=model, enable_context=True)
        plain = compute_comet(texts["mt"], texts["ref"], sources=texts["src"], model=model)
    assert max(abs(a - b) for a, b in zip(context["scores"], built["oracle"]["estimator"]["ctx:context"])) < 1e-5
    # a row whose texts keep two separators after truncation (62 tokens here) pools less than the whole text, the
    # others (a document's first line; a context too long to leave its last sentence) score as without the flag
    comet = load_comet(model)
    separators = {key: [row.count(comet.tokenizer.sep_token_id) for row in comet.token_ids(values)[0]]
                  for key, values in texts.items()}
    pooled_less = [any(separators[key][i] > 1 for key in texts) for i in range(N_CONTEXT)]
    assert 0 < sum(pooled_less) < N_CONTEXT
    for a, b, less in zip(context["scores"], plain["scores"], pooled_less):
        assert abs(a - b) > 1e-4 if less else abs(a - b) < 1e-6  # other batches: equal up to float32 sums
    assert "|context:yes|" in context["signature"] and "context" not in plain["signature"]
    for name in ("kiwi", "bert"):  # a unified model, max pooling: unbabel-comet ignores the flag; we refuse it
        with pytest.raises(ValueError, match="enable_context applies to estimator checkpoints with average pooling"):
            compute_comet(["a"], ["a"], sources=["a"], model=str(built["models"][name]), enable_context=True)


def test_with_context_joins_previous_sentences_of_a_document():
    from nlgmetrics.learned.comet import with_context

    texts = ["A.", "B.", "C.", "D.", "E."]
    assert with_context(texts, [1, 1, 1, 1, 2]) == ["A.", "A. </s> B.", "A. </s> B. </s> C.", "B. </s> C. </s> D.",
                                                    "E."]
    assert with_context(texts, [1] * 5, window=1, separator="[SEP]")[1] == "A. [SEP] B."
    with pytest.raises(ValueError, match="got 5 texts but 2 document ids"):
        with_context(texts, [1, 2])


def test_decoding_threshold_is_checked(built):
    from nlgmetrics.learned.comet import compute_comet

    with pytest.raises(ValueError, match=r"decoding_threshold must be a finite number in \[0, 1\]"):
        compute_comet(["a"], ["a"], sources=["a"], model=str(built["models"]["xcomet"]), decoding_threshold=1.5)
    with pytest.raises(ValueError, match="decoding_threshold applies to XCOMET's error spans"):
        compute_comet(["a"], ["a"], sources=["a"], model=str(built["models"]["estimator"]), decoding_threshold=0.5)


def test_xcomet_error_labels_must_be_unbabels(built, tmp_path):
    from nlgmetrics.learned.comet import compute_comet

    other = copy_checkpoint(built["models"]["xcomet"], tmp_path / "xcomet", error_labels=["minor", "major"])
    with pytest.raises(ValueError, match=r"error_labels must be \[minor, major, critical\]"):
        compute_comet(["a"], ["a"], sources=["a"], model=str(other))


def test_cli_scores_with_sources(built, wmt, tmp_path, capsys):
    from nlgmetrics.cli import main

    sources, reference, systems = wmt
    paths = {}
    for label, lines in (("src", sources), ("ref", reference), ("hyp", systems[SYSTEMS[0]])):
        paths[label] = tmp_path / label
        paths[label].write_text("\n".join(lines) + "\n", encoding="utf-8")
    model = f"model={built['models']['estimator']}"
    assert main(["score", "-m", "comet", "-p", str(paths["hyp"]), "-r", str(paths["ref"]), "-s", str(paths["src"]),
                 "-o", model, "-f", "json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["scores"] == pytest.approx(built["oracle"]["estimator"][SYSTEMS[0]], abs=1e-5)
    assert main(["score", "-m", "comet", "-p", str(paths["hyp"]), "-r", str(paths["ref"]), "-o", model]) == 2
    assert "needs sources" in capsys.readouterr().err.lower()
    kiwi = f"model={built['models']['kiwi']}"
    assert main(["score", "-m", "comet", "-p", str(paths["hyp"]), "-s", str(paths["src"]), "-o", kiwi,
                 "-f", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["scores"] == pytest.approx(built["oracle"]["kiwi"][SYSTEMS[0]],
                                                                          abs=1e-5)


def test_evaluate_module_is_hf_comet_with_a_local_checkpoint(built, wmt):
    import evaluate

    sources, reference, systems = wmt
    hyps, expected = systems[SYSTEMS[0]][:6], built["oracle"]["estimator"][SYSTEMS[0]][:6]
    comet = evaluate.load("./metrics/comet", str(built["models"]["estimator"]))
    assert list(comet.features) == ["sources", "predictions", "references"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = comet.compute(sources=sources[:6], predictions=hyps, references=reference[:6], gpus=0,
                               progress_bar=False)
        assert sorted(result) == ["mean_score", "scores"]  # HF's keys, nothing else
        assert comet.compute(sources=sources[:6], predictions=hyps, references=reference[:6],
                             distributed="auto") == result  # no process group: one process
        assert result["scores"] == pytest.approx(expected, abs=1e-5)
        assert result["mean_score"] == pytest.approx(sum(expected) / 6, abs=1e-6)
        extra = comet.compute(sources=sources[:6], predictions=hyps, references=reference[:6], return_signature=True,
                              n_bootstrap=50)
        assert {"signature", "mean_score_ci_low", "mean_score_ci_high"} <= set(extra)
        comet.add_batch(sources=sources[:3], predictions=hyps[:3], references=reference[:3])
        comet.add(source=sources[3], prediction=hyps[3], reference=reference[3])
        gathered = comet.compute(sources=sources[4:6], predictions=hyps[4:6], references=reference[4:6])
        assert gathered["scores"] == pytest.approx(result["scores"], abs=1e-6)
        default_model = evaluate.load("./metrics/comet").compute(
            sources=sources[:6], predictions=hyps, references=reference[:6], model=str(built["models"]["estimator"]))
        assert default_model["scores"] == pytest.approx(expected, abs=1e-5)
    with pytest.raises(ValueError, match="COMET needs sources"):
        comet.compute(predictions=hyps, references=reference[:6])


def test_evaluate_module_reference_free_config_has_no_references_input(built, wmt):
    import evaluate

    sources, reference, systems = wmt
    hyps, expected = systems[SYSTEMS[0]][:6], built["oracle"]["kiwi"][SYSTEMS[0]][:6]
    kiwi = evaluate.load("./metrics/comet", str(built["models"]["kiwi"]))
    assert list(kiwi.features) == ["sources", "predictions"]
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="COMET: .* truncated")
        assert kiwi.compute(sources=sources[:6], predictions=hyps)["scores"] == pytest.approx(expected, abs=1e-5)
        kiwi.add_batch(sources=sources[:6], predictions=hyps)
        assert kiwi.compute()["scores"] == pytest.approx(expected, abs=1e-5)
        with pytest.warns(UserWarning, match="references are not used"):
            kiwi.compute(sources=sources[:6], predictions=hyps, references=reference[:6])


def test_compare_gives_bootstrap_and_comet_compares_paired_t_test(built, wmt):
    from nlgmetrics.comparison import compare

    sources, reference, systems = wmt
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rows = compare({name: systems[name] for name in SYSTEMS}, reference, ["comet"], sources=sources,
                       metric_options={"comet": {"model": str(built["models"]["estimator"])}}, n_resamples=200)
    base, other = rows
    oracle = built["oracle"]["estimator"]
    assert base["baseline"] and base["t_statistic"] is None
    assert base["score"] == pytest.approx(sum(oracle[SYSTEMS[0]]) / N, abs=1e-6)
    assert other["score"] == pytest.approx(sum(oracle[SYSTEMS[1]]) / N, abs=1e-6)
    statistic, p_value = oracle[f"__t_test__{SYSTEMS[0]}__{SYSTEMS[1]}"]
    # t = mean(d) / (sd(d) / sqrt(N)) of the differences d: segment scores within 1e-6 of the oracle's move mean(d)
    # by at most 2e-6, t by 2e-6 sqrt(N) / sd(d) (a near-zero t is the most sensitive, relatively)
    spread = float(np.std(np.subtract(oracle[SYSTEMS[0]], oracle[SYSTEMS[1]]), ddof=1))
    assert other["t_statistic"] == pytest.approx(statistic, rel=1e-4, abs=2e-6 * N**0.5 / spread)
    assert other["t_p_value"] == pytest.approx(p_value, rel=1e-4, abs=1e-9)
    assert 0 < other["p_value"] <= 1 and base["ci_low"] <= base["mean"] <= base["ci_high"]


def test_paired_t_test_is_defined_where_scipy_is_not():
    import numpy as np

    from nlgmetrics.comparison import _paired_t_test

    same = np.array([1.0, 2.0, 3.0])
    assert _paired_t_test(same, same) == {"t_statistic": 0.0, "t_p_value": 1.0}
    assert _paired_t_test(same, same - 0.5) == {"t_statistic": None, "t_p_value": 0.0}


def _word_tokenizer(texts):
    """A tokenizer class over the words of ``texts`` (id = word index + 1, pad 0) for the Trainer adapter, and the
    function giving label ids padded with -100, as Trainer passes them."""
    import numpy as np

    words = sorted({w for text in texts for w in text.split()})

    class Tokenizer:
        pad_token_id = 0

        def batch_decode(self, ids, skip_special_tokens=True):
            return [" ".join(words[i - 1] for i in row if i > 0) for row in ids]

    def ids(batch):
        rows = [[words.index(w) + 1 for w in text.split()] for text in batch]
        width = max(map(len, rows))
        return np.array([row + [-100] * (width - len(row)) for row in rows])

    return Tokenizer, ids


def test_adapters_pass_sources_to_comet(built, wmt):
    """Trainer (sources given as a list), lm-eval (source_separator in the target) and Ray (a source column)."""
    import numpy as np

    from nlgmetrics.integration.lm_eval import score_corpus
    from nlgmetrics.integration.transformers import make_compute_metrics

    sources, reference, systems = wmt
    hyps, model = systems[SYSTEMS[0]][:6], str(built["models"]["estimator"])
    expected = built["oracle"]["estimator"][SYSTEMS[0]][:6]
    options = {"comet": {"model": model}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Tokenizer, ids = _word_tokenizer(hyps + reference[:6])

        decoded = Tokenizer().batch_decode(ids(hyps))
        trainer = make_compute_metrics(Tokenizer(), ["comet"], options, sources=sources[:6])
        assert trainer.metric_options["comet"]["distributed"] == "auto"  # sharded under DDP
        flat = trainer((ids(hyps), ids(reference[:6])))
        direct = _score(built, "estimator", SYSTEMS[0], (sources[:6], reference[:6], {SYSTEMS[0]: decoded}))
        assert flat["comet"] == pytest.approx(direct["mean_score"], abs=1e-7)

        items = [(f"{s}\t{r}", h, json.dumps({"model": model, "source_separator": "\t"}))
                 for s, r, h in zip(sources[:6], reference[:6], hyps)]
        assert score_corpus("comet", items)["comet"] == pytest.approx(sum(expected) / 6, abs=1e-6)

        pytest.importorskip("ray")
        from nlgmetrics.integration.ray_data import MetricScorer

        batch = {"prediction": np.array(hyps, dtype=object), "reference": np.array(reference[:6], dtype=object),
                 "src": np.array(sources[:6], dtype=object)}
        scored = MetricScorer(["comet"], source_column="src", metric_options=options)(batch)
        assert scored["comet"].tolist() == pytest.approx(expected, abs=1e-5)


# -- torch.distributed: two CPU ranks on gloo share the encoding --------------------------------------------------
N_DDP = 20  # triples both ranks score
WORLD = 2


def _ddp_worker(rank: int, models: dict, sources: list, hyps: list, refs: list) -> dict:
    """One rank: warm part of the cache on rank 0 only, score each model sharded, then with different inputs."""
    from nlgmetrics.embed.cache import get_cache
    from nlgmetrics.learned import comet as comet_module

    keys: list[str] = []  # what this rank's shard held
    rows: list[int] = []  # how many sequences this rank's encoder ran
    original_sharded, original_encode = comet_module.encode_sharded, comet_module.Comet._encode

    def sharded(namespace, missing, costs, compute):
        return original_sharded(namespace, missing, costs, lambda todo: keys.extend(todo) or compute(todo))

    def encode(self, batch_rows, *args, **kwargs):
        rows.append(len(batch_rows))
        return original_encode(self, batch_rows, *args, **kwargs)

    comet_module.encode_sharded, comet_module.Comet._encode = sharded, encode
    out: dict = {}
    warnings.simplefilter("ignore")
    get_cache().clear()
    for name, model in models.items():
        references = None if name == "kiwi" else refs
        if rank == 0:  # an uneven cache: rank 0 already holds some texts, rank 1 none
            comet_module.compute_comet(hyps[:5], None if references is None else references[:5],
                                       sources=sources[:5], model=model, batch_size=8)
        keys.clear(), rows.clear()
        out[name] = comet_module.compute_comet(hyps, references, sources=sources, model=model, batch_size=8,
                                               distributed=True)
        out[f"{name}_keys"], out[f"{name}_rows"] = list(keys), sum(rows)
    try:  # different inputs on the ranks: a clear error on every rank, never a mix of results
        comet_module.compute_comet(hyps[:4] if rank else hyps[4:8], refs[:4], sources=sources[:4],
                                   model=models["estimator"], distributed="auto")
    except ValueError as exc:
        out["mismatch_error"] = str(exc)
    return out


@pytest.fixture(scope="module")
def ddp_ranks(built, wmt):
    from gloo_ranks import run_ranks

    sources, reference, systems = wmt
    triples = sources[:N_DDP], systems[SYSTEMS[0]][:N_DDP], reference[:N_DDP]
    models = {name: str(built["models"][name]) for name in ("estimator", "kiwi", "xcomet")}
    return triples, models, run_ranks(_ddp_worker, WORLD, models, *triples)


@pytest.mark.parametrize("name", ["estimator", "kiwi", "xcomet"])
def test_distributed_ranks_share_the_encoding_and_return_one_process_scores(ddp_ranks, name):
    from nlgmetrics.embed.cache import get_cache
    from nlgmetrics.learned.comet import compute_comet

    (sources, hyps, refs), models, ranks = ddp_ranks
    references = None if name == "kiwi" else refs
    get_cache().clear()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        single = compute_comet(hyps, references, sources=sources, model=models[name], batch_size=8)
    for result in ranks:
        assert max(abs(a - b) for a, b in zip(result[name]["scores"], single["scores"])) <= 1e-6
        assert len(result[name]["scores"]) == N_DDP
        assert abs(result[name]["mean_score"] - single["mean_score"]) <= 1e-6
    assert ranks[0][name] == ranks[1][name]  # rank 0's scores on every rank
    done = [result[f"{name}_keys"] for result in ranks]
    if name == "estimator":  # sentence embeddings: every distinct text once over the ranks
        assert sorted(done[0] + done[1]) == sorted(set(sources) | set(hyps) | set(refs))
    elif name == "kiwi":  # joint (mt, src) sequences
        assert len(done[0] + done[1]) == len(set(done[0] + done[1])) == len(set(zip(hyps, sources)))
    else:  # XCOMET: (mt, src), (mt, ref), (mt, src, ref), each with its mt tags
        expected = len(set(zip(hyps, sources))) + len(set(zip(hyps, refs))) + len(set(zip(hyps, sources, refs)))
        assert len(done[0] + done[1]) == len(set(done[0] + done[1])) == expected
    assert all(0 < len(keys) < len(done[0]) + len(done[1]) for keys in done)  # a strict share each
    assert [result[f"{name}_rows"] for result in ranks] == [len(keys) for keys in done]  # and nothing else encoded


def test_distributed_different_inputs_raise_on_every_rank(ddp_ranks):
    for result in ddp_ranks[2]:
        assert "same predictions and references on every rank" in result["mismatch_error"]


def test_distributed_option_without_a_process_group(built, wmt):
    plain = _score(built, "estimator", SYSTEMS[0], wmt)
    assert _score(built, "estimator", SYSTEMS[0], wmt, distributed="auto")["scores"] == plain["scores"]
    with pytest.raises(ValueError, match="init_process_group"):
        _score(built, "estimator", SYSTEMS[0], wmt, distributed=True)
    with pytest.raises(ValueError, match="False, True or 'auto'"):
        _score(built, "estimator", SYSTEMS[0], wmt, distributed="yes")


def test_reference_only_xcomet_at_every_entry_point(built, wmt, tmp_path, capsys):
    """XCOMET scores (mt, ref) without sources wherever compute_comet does: CLI score and compare, compare(),
    Trainer, lm-eval and Ray; a checkpoint that needs sources is still refused before any work (the spec reads
    its hparams.yaml)."""
    import numpy as np

    from nlgmetrics.cli import main
    from nlgmetrics.comparison import compare
    from nlgmetrics.integration.lm_eval import score_corpus
    from nlgmetrics.integration.transformers import make_compute_metrics
    from nlgmetrics.registry import get_spec

    _, reference, systems = wmt
    n = 6
    hyps, other, refs = systems[SYSTEMS[0]][:n], systems[SYSTEMS[1]][:n], reference[:n]
    model = str(built["models"]["xcomet"])
    expected = built["oracle"]["xcomet"]["ref:" + SYSTEMS[0]][:n]
    expected_other = built["oracle"]["xcomet"]["ref:" + SYSTEMS[1]][:n]
    spec = get_spec("comet")
    assert spec.input_arguments(None, True, {"model": model}) == {"sources": None}
    with pytest.raises(ValueError, match=r"comet \(checkpoint estimator-tiny\) needs sources"):
        spec.input_arguments(None, True, {"model": str(built["models"]["estimator"])})
    with pytest.raises(ValueError, match=r"comet \(checkpoint estimator-tiny\) needs references"):
        spec.input_arguments(["s"], False, {"model": str(built["models"]["estimator"])})
    paths = {}
    for label, lines in (("ref", refs), ("hyp", hyps), ("other", other)):
        paths[label] = str(tmp_path / label)
        (tmp_path / label).write_text("\n".join(lines) + "\n", encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(["score", "-m", "comet", "-p", paths["hyp"], "-r", paths["ref"], "-o", f"model={model}",
                     "-f", "json"]) == 0
        assert json.loads(capsys.readouterr().out)["scores"] == pytest.approx(expected, abs=1e-5)
        assert main(["compare", "-b", paths["hyp"], paths["other"], "-r", paths["ref"], "-m", "comet",
                     "-o", f"comet.model={model}", "--n-resamples", "20", "-f", "json"]) == 0
        rows = json.loads(capsys.readouterr().out)
        assert [row["score"] for row in rows] == pytest.approx([np.mean(expected), np.mean(expected_other)],
                                                               abs=1e-6)
        rows = compare({"a": hyps, "b": other}, refs, ["comet"], metric_options={"comet": {"model": model}},
                       n_resamples=20)
        assert [row["score"] for row in rows] == pytest.approx([np.mean(expected), np.mean(expected_other)],
                                                               abs=1e-6)
        with pytest.raises(ValueError, match="needs sources"):
            compare({"a": hyps, "b": other}, refs, ["comet"],
                    metric_options={"comet": {"model": str(built["models"]["estimator"])}})

        Tokenizer, ids = _word_tokenizer(hyps + refs)

        trainer = make_compute_metrics(Tokenizer(), ["comet"], {"comet": {"model": model}})
        decoded = Tokenizer().batch_decode(ids(hyps))
        direct = _score(built, "xcomet", SYSTEMS[0], (None, refs, {SYSTEMS[0]: decoded}), sources=None)
        assert trainer((ids(hyps), ids(refs)))["comet"] == pytest.approx(direct["mean_score"], abs=1e-7)
        with pytest.raises(ValueError, match="needs sources"):
            make_compute_metrics(Tokenizer(), ["comet"], {"comet": {"model": str(built["models"]["estimator"])}})

        items = [(r, h, json.dumps({"model": model})) for r, h in zip(refs, hyps)]
        assert score_corpus("comet", items)["comet"] == pytest.approx(np.mean(expected), abs=1e-6)

        pytest.importorskip("ray")
        from nlgmetrics.integration.ray_data import MetricScorer

        batch = {"prediction": np.array(hyps, dtype=object), "reference": np.array(refs, dtype=object)}
        scored = MetricScorer(["comet"], metric_options={"comet": {"model": model}})(batch)
        assert scored["comet"].tolist() == pytest.approx(expected, abs=1e-5)


def test_max_pooling_gives_no_beta_warning(built, wmt):
    """The BERT checkpoint pools with max: torch's "index_reduce() is in beta" note must not reach users (other
    warnings still do: the truncation count)."""
    from nlgmetrics.embed.cache import get_cache
    from nlgmetrics.learned.comet import compute_comet

    sources, reference, systems = wmt
    get_cache().clear()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        compute_comet(systems[SYSTEMS[0]], reference, sources=sources, model=str(built["models"]["bert"]))
    messages = [str(w.message) for w in caught]
    assert not [m for m in messages if "beta" in m]
    assert any("truncated" in m for m in messages)


@pytest.mark.parametrize("name", list(PUBLISHED))
def test_published_configurations_have_unbabels_weights(built, name, tmp_path):
    """wmt22-comet-da, wmt22-cometkiwi-da and XCOMET-XL at their published sizes (hparams.yaml and encoder
    config.json as on the hub): the model our loader builds from them, on the meta device, uses exactly the weights,
    with the same shapes, that unbabel-comet's own class holds (built there on the meta device); an edited size is
    refused before anything is allocated."""
    import transformers

    from nlgmetrics.learned.comet import ENCODER_FAMILIES, check_weights, comet_modules, unused_weights
    from nlgmetrics.learned.locate import CheckpointError

    hparams, encoder_name = PUBLISHED[name]
    family = ENCODER_FAMILIES[hparams["encoder_model"]]
    config = getattr(transformers, family.config_class).from_pretrained(built["published"][encoder_name])
    model_class = getattr(transformers, family.model_class)
    state = {k: torch.empty(shape, device="meta") for k, shape in built["shapes"][name].items()}
    with torch.device("meta"):
        modules = comet_modules(hparams, config, model_class)
    check_weights(tmp_path / "model.ckpt", state, modules, unused_weights(hparams["class_identifier"]))
    used = sum(p.numel() for module in modules.values() for p in module.parameters())
    assert used == built["parameters"][name]  # unbabel-comet's own count
    assert PUBLISHED_SIZES[name][0] < used < PUBLISHED_SIZES[name][1]
    edited = {**hparams, "hidden_sizes": [4_000_000]}
    with torch.device("meta"):
        modules = comet_modules(edited, config, model_class)
    with pytest.raises(CheckpointError, match=r"model.ckpt: the weights do not match .* with another shape "
                                              r"\(e.g. estimator.ff.0.weight \[\d+, \d+\] \(the model's \[4000000, "):
        check_weights(tmp_path / "model.ckpt", state, modules, unused_weights(hparams["class_identifier"]))


class PickledPayload:
    """An object in a checkpoint: loading it needs unpickling code, which weights_only loading refuses."""


def _save_state(folder, state):
    torch.save({"state_dict": state}, folder / "checkpoints" / "model.ckpt")


def test_loading_is_strict_and_bounded(built, wmt, tmp_path):
    """The weights the model uses equal those the checkpoint holds (after the known unused entries), hparams sizes
    are checked against the weights before anything is allocated, and broken files are one CheckpointError naming
    the file and the fix (never a raw torch/yaml/TypeError, never advice to load pickles)."""
    import resource

    from nlgmetrics.learned.comet import compute_comet
    from nlgmetrics.learned.locate import CheckpointError

    source = built["models"]["estimator"]
    state = torch.load(source / "checkpoints" / "model.ckpt", weights_only=True)["state_dict"]

    def score(folder):
        compute_comet(["a"], ["a"], sources=["a"], model=str(folder))

    extra = copy_checkpoint(source, tmp_path / "extra")
    _save_state(extra, {**state, "estimator.projection.weight": torch.zeros(2, 2)})
    with pytest.raises(CheckpointError, match=r"1 weight\(s\) in the checkpoint but not used by the model \(e.g. "
                                              r"estimator.projection.weight\)"):
        score(extra)
    missing = copy_checkpoint(source, tmp_path / "missing")
    _save_state(missing, {k: v for k, v in state.items() if k != "layerwise_attention.gamma"})
    with pytest.raises(CheckpointError, match=r"1 weight\(s\) missing from the checkpoint \(e.g. "
                                              r"layerwise_attention.gamma\)"):
        score(missing)
    tolerated = copy_checkpoint(source, tmp_path / "tolerated")  # what older unbabel-comet checkpoints also hold
    _save_state(tolerated, {**state, "encoder.model.embeddings.position_ids": torch.arange(66).unsqueeze(0),
                            "encoder.model.pooler.dense.weight": torch.zeros(64, 64)})
    sample = wmt[2][SYSTEMS[0]][:3], wmt[1][:3], wmt[0][:3]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert compute_comet(sample[0], sample[1], sources=sample[2], model=str(tolerated))["scores"] == \
            pytest.approx(built["oracle"]["estimator"][SYSTEMS[0]][:3], abs=1e-5)

    huge = copy_checkpoint(source, tmp_path / "huge", hidden_sizes=[4_000_000])
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(CheckpointError, match="with another shape"):
        score(huge)
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 200_000  # KiB: nothing near 3.3 GB

    for key, value, what in (("hidden_sizes", "3072", "a list of positive integers"), ("dropout", [0.1], "a number"),
                             ("layer_norm", "no", "true or false"), ("input_segments", ["src", "mt"], "mt, src, ref"),
                             ("activations", "Linear", "not a torch.nn activation")):
        bad = copy_checkpoint(source, tmp_path / f"bad-{key}", **{key: value})
        with pytest.raises(CheckpointError, match=re.escape(what)):
            score(bad)
    nested = copy_checkpoint(source, tmp_path / "nested")
    (nested / "hparams.yaml").write_text("class_identifier: regression_metric\nx: " + "[" * 5000 + "]" * 5000)
    with pytest.raises(CheckpointError, match="hparams.yaml is not valid YAML"):
        score(nested)

    truncated = copy_checkpoint(source, tmp_path / "truncated")
    ckpt = truncated / "checkpoints" / "model.ckpt"
    ckpt.write_bytes(ckpt.read_bytes()[: ckpt.stat().st_size // 2])
    with pytest.raises(CheckpointError, match=r"model.ckpt cannot be read as a PyTorch checkpoint .* download it"):
        score(truncated)

    pickled = copy_checkpoint(source, tmp_path / "pickled")
    torch.save({"state_dict": state, "extra": PickledPayload()}, pickled / "checkpoints" / "model.ckpt")
    with pytest.raises(CheckpointError, match="holds pickled Python objects") as caught:
        score(pickled)
    assert "weights_only=False" not in str(caught.value)


def test_tokenizer_state_stored_in_the_encoder_folder_is_ignored(built, wmt, tmp_path):
    """An encoder folder whose tokenizer.json stores padding and truncation (as converters and save_pretrained after
    a padded call leave it) scores as the clean folder: the one tokenizer rule (embed.encoder.without_stored_state)."""
    from nlgmetrics.learned.comet import compute_comet

    stateful = shutil.copytree(built["encoder"], tmp_path / "encoder-with-state")
    data = json.loads((stateful / "tokenizer.json").read_text(encoding="utf-8"))
    data["padding"] = {"strategy": "BatchLongest", "direction": "Right", "pad_to_multiple_of": None, "pad_id": 1,
                       "pad_type_id": 0, "pad_token": "<pad>"}
    data["truncation"] = {"direction": "Right", "max_length": 8, "strategy": "LongestFirst", "stride": 0}
    (stateful / "tokenizer.json").write_text(json.dumps(data), encoding="utf-8")
    sources, reference, systems = wmt
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scored = compute_comet(systems[SYSTEMS[0]][:6], reference[:6], sources=sources[:6], batch_size=3,
                               model=str(built["models"]["estimator"]), encoder=str(stateful))
    assert scored["scores"] == pytest.approx(built["oracle"]["estimator"][SYSTEMS[0]][:6], abs=1e-5)
