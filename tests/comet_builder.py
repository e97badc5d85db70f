"""COMET checkpoints of the real architectures with small random weights, built offline, in Unbabel's exact layout.

Two halves, because no venv holds both stacks:

- :func:`build_encoder` (our venv): a sentencepiece model trained on the given WMT17 text with XLM-R's fairseq
  layout (``<s>=0, <pad>=1, </s>=2, <unk>=3``, pieces offset by one, ``<mask>`` last), its ``tokenizer.json``
  (the oracle venv's protobuf cannot convert sentencepiece models) and an XLM-R ``config.json`` of the given size.
- :data:`ORACLE_SCRIPT` (the oracle venv, through ``tests/oracle_venv.run_oracle``): builds each checkpoint with
  unbabel-comet's own model class (``load_pretrained_weights=False``, encoder = that folder), draws random weights
  (layerwise-attention scalars and gamma too, so the mix is not uniform), saves ``hparams.yaml`` and
  ``checkpoints/model.ckpt`` as unbabel-comet's ``load_from_checkpoint`` reads them, then scores the samples with
  ``load_from_checkpoint(...).predict(..., gpus=0)`` and prints the scores; with ``"time": [{"half": bool}, ...]``
  it also times ``comet-score``'s own code path per variant (the benchmark); with ``"shapes": [{name, hparams}]``
  it builds each configuration on the meta device and returns its state_dict's names and shapes (published sizes).

The other encoder families: :func:`build_bert_encoder` (a WordPiece tokenizer trained on the text, a ``BertConfig``)
and :func:`build_minilm_encoder` (a ``BertConfig`` over an XLM-R tokenizer, which unbabel-comet loads from the hub id
``xlm-roberta-base``: :func:`fake_hub_cache` puts it in a Hugging Face cache for both sides).

Used by tests/test_comet.py and benchmarks/bench_comet.py.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any


_SIZE = {"hidden_size": 64, "num_hidden_layers": 3, "num_attention_heads": 4, "intermediate_size": 128}


def build_encoder(folder: Path, texts: Sequence[str], vocab_size: int = 1000, **config: Any) -> Path:
    """An XLM-R encoder folder (config.json, tokenizer.json, tokenizer_config.json, sentencepiece.bpe.model)."""
    import sentencepiece as spm
    from transformers import XLMRobertaConfig, XLMRobertaTokenizer
    from transformers.convert_slow_tokenizer import XLMRobertaConverter

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    model = folder / "sentencepiece.bpe.model"
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(list(texts)), model_prefix=str(folder / "sentencepiece.bpe"), vocab_size=vocab_size,
        model_type="unigram", unk_id=0, bos_id=1, eos_id=2, pad_id=-1, character_coverage=1.0, minloglevel=2,
        num_threads=2,
    )
    (folder / "sentencepiece.bpe.vocab").unlink(missing_ok=True)
    fairseq = {"<s>": 0, "<pad>": 1, "</s>": 2, "<unk>": 3}
    converted = XLMRobertaConverter(SimpleNamespace(vocab_file=str(model), convert_tokens_to_ids=fairseq.get)).converted()
    tokenizer = XLMRobertaTokenizer(tokenizer_object=converted, vocab_file=str(model))
    tokenizer.save_pretrained(folder)
    settings = {**_SIZE, "max_position_embeddings": 514, "layer_norm_eps": 1e-5, **config}
    XLMRobertaConfig(vocab_size=len(tokenizer), pad_token_id=1, bos_token_id=0, eos_token_id=2,
                     **settings).save_pretrained(folder)
    return folder


def build_bert_encoder(folder: Path, texts: Sequence[str], vocab_size: int = 1000, **config: Any) -> Path:
    """A BERT encoder folder: a cased WordPiece tokenizer trained on ``texts`` (tokenizer.json, vocab.txt,
    tokenizer_config.json, as bert-base-multilingual-cased ships them) and a ``BertConfig`` of the given size."""
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers
    from transformers import BertConfig, BertTokenizerFast

    folder = Path(folder)
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    tokenizer = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=False)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    trainer = trainers.WordPieceTrainer(vocab_size=vocab_size, special_tokens=specials)
    tokenizer.train_from_iterator(list(texts), trainer)
    cls, sep = tokenizer.token_to_id("[CLS]"), tokenizer.token_to_id("[SEP]")
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1", special_tokens=[("[CLS]", cls), ("[SEP]", sep)])
    tokenizer.decoder = decoders.WordPiece()
    BertTokenizerFast(tokenizer_object=tokenizer, do_lower_case=False).save_pretrained(folder)
    vocab = sorted(tokenizer.get_vocab().items(), key=lambda item: item[1])
    (folder / "vocab.txt").write_text("".join(f"{token}\n" for token, _ in vocab), encoding="utf-8")
    BertConfig(vocab_size=len(vocab), pad_token_id=0, **{**_SIZE, **config}).save_pretrained(folder)
    return folder


def build_minilm_encoder(folder: Path, xlmr: Path, **config: Any) -> Path:
    """A MiniLM encoder folder as microsoft/Multilingual-MiniLM-L12-H384's: a ``BertConfig`` whose vocabulary is
    the XLM-R tokenizer's in folder ``xlmr`` (unbabel-comet takes MiniLM's tokenizer from xlm-roberta-base)."""
    from transformers import BertConfig, XLMRobertaConfig

    vocab_size = XLMRobertaConfig.from_pretrained(xlmr).vocab_size
    BertConfig(vocab_size=vocab_size, pad_token_id=1, tokenizer_class="XLMRobertaTokenizer",
               **{**_SIZE, **config}).save_pretrained(folder)
    return Path(folder)


def fake_hub_cache(cache: Path, repo_id: str, source: Path) -> Path:
    """A Hugging Face hub cache (``HF_HUB_CACHE`` layout) holding the files of folder ``source`` as ``repo_id``'s
    main revision, so code that names a hub id finds it offline."""
    revision = "0" * 39 + "1"
    repo = Path(cache) / f"models--{repo_id.replace('/', '--')}"
    snapshot = repo / "snapshots" / revision
    snapshot.mkdir(parents=True)
    for path in Path(source).iterdir():
        if path.is_file():
            shutil.copy(path, snapshot / path.name)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(revision)
    return Path(cache)


def copy_checkpoint(source: Path, target: Path, **hparams: Any) -> Path:
    """A copy of checkpoint folder ``source`` with some hparams changed (bad-input tests)."""
    import yaml

    shutil.copytree(source, target)
    values = yaml.safe_load((target / "hparams.yaml").read_text())
    values.update(hparams)
    (target / "hparams.yaml").write_text(yaml.safe_dump(values))
    return target


ORACLE_SCRIPT = r'''
import itertools, json, os, sys, time, warnings
warnings.filterwarnings("ignore")
import logging
logging.disable(logging.WARNING)
import torch
torch.set_num_threads(int(os.environ.get("ORACLE_THREADS", "1")))
from comet.models import load_from_checkpoint, str2model

job = json.load(open(sys.argv[1]))
out = {}
for model_spec in job["models"]:
    folder = model_spec["folder"]
    ckpt = os.path.join(folder, "checkpoints", "model.ckpt")
    if not os.path.exists(ckpt):
        import pytorch_lightning as ptl, yaml
        torch.manual_seed(model_spec.get("seed", 0))
        hp = dict(model_spec["hparams"])
        model = str2model[hp.pop("class_identifier")](load_pretrained_weights=False, **hp)
        with torch.no_grad():
            for name, p in model.named_parameters():
                if name.startswith("layerwise_attention.scalar"):
                    p.normal_(0, 1.0)
                elif name == "layerwise_attention.gamma":
                    p.fill_(1.3)
                elif name.startswith("estimator") and p.dim() == 2:
                    p.normal_(0, 1.0 / p.shape[1] ** 0.5)
                elif "LayerNorm" in name and name.endswith("weight"):
                    p.normal_(1.0, 0.2)
                elif name.startswith("encoder"):
                    p.normal_(0, 0.05)
            for name, value in model_spec.get("fill", {}).items():  # weights a test sets (e.g. XCOMET's tag biases)
                dict(model.named_parameters())[name].copy_(torch.tensor(value))
        os.makedirs(os.path.dirname(ckpt), exist_ok=True)
        hparams = dict(model.hparams)
        torch.save({"state_dict": model.state_dict(), "hyper_parameters": hparams, "epoch": 0, "global_step": 0,
                    "pytorch-lightning_version": ptl.__version__}, ckpt)
        with open(os.path.join(folder, "hparams.yaml"), "w") as handle:
            yaml.safe_dump(hparams, handle)
    model = load_from_checkpoint(ckpt)
    scores = {}
    variants = model_spec.get("variants", {"": model_spec.get("keys", ["src", "mt", "ref"])})
    for (name, samples), (variant, keys) in itertools.product(
            ({} if job.get("time") else job.get("samples", {})).items(), variants.items()):
        samples = [{k: v for k, v in s.items() if k in keys} for s in samples]
        pred = model.predict(samples, batch_size=job.get("batch_size", 8), gpus=0, progress_bar=False)
        scores[variant + name] = [float(x) for x in pred.scores]
        for part in model_spec.get("metadata", []):  # e.g. XCOMET's mqm_scores, where predict gives them
            if part in pred.metadata.keys():
                scores[f"__{part}__{variant}{name}"] = pred.metadata[part]
    for run in model_spec.get("runs", []):
        # further passes over named sample sets: XCOMET's decoding_threshold, enable_context (comet-score
        # --enable-context), model.half() (comet-score's precision; last, it stays)
        model.decoding_threshold = run.get("threshold")
        model.use_context = False
        if run.get("context"):
            model.enable_context()
        if run.get("half"):
            model.eval()
            model.half()
        for name in run["samples"]:
            samples = [{k: v for k, v in s.items() if k in run.get("keys", ["src", "mt", "ref"])}
                       for s in {**job.get("samples", {}), **job.get("extra_samples", {})}[name]]
            pred = model.predict(samples, batch_size=job.get("batch_size", 8), gpus=0, progress_bar=False)
            scores[run["prefix"] + name] = [float(x) for x in pred.scores]
            if "metadata" in pred and "error_spans" in pred.metadata:
                scores[f"__error_spans__{run['prefix']}{name}"] = pred.metadata.error_spans
    for x, y in job.get("t_tests", []) if scores else []:
        # comet-compare's paired t-test: its segment scores as a float32 matrix, scipy's ttest_rel(x, y)
        import numpy as np
        from scipy import stats
        result = stats.ttest_rel(np.array(scores[x], dtype="float32"), np.array(scores[y], dtype="float32"))
        scores[f"__t_test__{x}__{y}"] = [float(result.statistic), float(result.pvalue)]
    for variant in job.get("time", []):
        # comet-score's code path (comet/cli/score.py, one GPU or CPU): load, eval(), half() (comet-score always
        # calls it), the sentence-embedding LRU cache on, then one predict call per system
        start = time.perf_counter()
        model = load_from_checkpoint(ckpt)
        model.eval()
        if variant["half"]:
            model.half()
        model.set_embedding_cache()
        loaded = time.perf_counter() - start
        cache = model.retrieve_sentence_embedding.cache_info()  # the LRU cache is shared by the class: count the delta
        start, cpu = time.perf_counter(), time.process_time()
        system_scores = {}
        for name, samples in job["samples"].items():
            pred = model.predict(samples, batch_size=job.get("batch_size", 8), gpus=0, progress_bar=False,
                                 accelerator="cpu")
            system_scores[name] = [float(x) for x in pred.scores]
        label = "half" if variant["half"] else "float32"
        after = model.retrieve_sentence_embedding.cache_info()
        scores[f"__cache_{label}__"] = {"hits": after.hits - cache.hits, "misses": after.misses - cache.misses}
        scores[f"__seconds_{label}__"] = time.perf_counter() - start
        scores[f"__cpu_seconds_{label}__"] = time.process_time() - cpu
        scores[f"__load_seconds_{label}__"] = loaded
        scores[f"__scores_{label}__"] = system_scores
    if model_spec.get("exec"):  # a test's own oracle code on this loaded model (tests/test_mbr.py: comet-mbr's code)
        exec(model_spec["exec"], {"model": model, "scores": scores, "job": job, "spec": model_spec})
    out[folder] = scores
for spec in job.get("shapes", []):
    # a published configuration built by unbabel-comet's own class on the meta device (no memory): its weights'
    # names and shapes, as its checkpoints hold them
    import inspect
    hp = dict(spec["hparams"])
    model_class = str2model[hp.pop("class_identifier")]
    accepted = inspect.signature(model_class.__init__).parameters  # as Lightning's load_from_checkpoint filters
    with torch.device("meta"):
        model = model_class(**{**{k: v for k, v in hp.items() if k in accepted}, "load_pretrained_weights": False})
    out["__shapes__" + spec["name"]] = {k: list(v.shape) for k, v in model.state_dict().items()}
    out["__parameters__" + spec["name"]] = sum(p.numel() for p in model.parameters())
print(json.dumps(out))
'''


def oracle_scores(job: dict, workdir: Path, timeout: int = 900, env: dict[str, str] | None = None) -> dict:
    """Run :data:`ORACLE_SCRIPT` on ``job`` (``models``: [{folder, hparams, seed, keys}], ``samples``: {name: [{src,
    mt, ref}]}) in the oracle venv (``env``: extra environment, e.g. ``HF_HUB_CACHE``); ``{folder: {sample name:
    scores}}``. A model may also give ``fill`` ({parameter name: value} set after the random draw), ``variants``
    ({prefix: keys}: each sample set scored once per key set, as ``prefix + name``), ``metadata`` (names of
    ``predict``'s metadata to return, as ``__name__prefix + sample name``) and ``runs`` (further passes, in order:
    [{prefix, samples: [names of samples or extra_samples], threshold, context, half, keys}], scored as ``prefix +
    name``, XCOMET's error spans as ``__error_spans__prefix + name``); ``extra_samples`` are scored by runs only."""
    from oracle_venv import run_oracle

    path = Path(workdir) / "oracle_job.json"
    path.write_text(json.dumps(job, ensure_ascii=False), encoding="utf-8")
    return run_oracle(ORACLE_SCRIPT, str(path), timeout=timeout, env=env)
