"""Train a tiny, randomly initialised seq2seq model for a few steps and evaluate it with nlgmetrics, offline.

    python integration/transformers/train_tiny_seq2seq.py [--steps 40] [--metrics sacrebleu rouge ...]
                                                          [--batch-eval-metrics] [--output-dir DIR] [--json FILE]

Without ``--metrics`` it scores every self-contained metric (``nlgmetrics.registry.self_contained_metrics()``: the
ones that need no checkpoint, judge model or sources from you; COMET, BLEURT, MetricX and the LLM judge do).

Nothing comes from the Hugging Face hub: the tokenizer is a word-level vocabulary built from the data, the model a
1-layer BART built from a config with random weights; the data is nlgmetrics' bundled WMT17 sample (MT output ->
reference, as a toy "post-editing" task). The embedding metrics use the bundled offline encoder. The scores of a
model trained for a few steps are near zero; the point is the wiring: ``Seq2SeqTrainer`` with
``predict_with_generate=True`` and ``compute_metrics=make_compute_metrics(...)``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from importlib import resources

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import torch  # noqa: E402
from tokenizers import Tokenizer, models, pre_tokenizers, processors  # noqa: E402
from transformers import (  # noqa: E402
    BartConfig,
    BartForConditionalGeneration,
    DataCollatorForSeq2Seq,
    PreTrainedTokenizerFast,
    Seq2SeqTrainer,
    Seq2SeqTrainingArguments,
)

from nlgmetrics.integration.transformers import make_compute_metrics  # noqa: E402
from nlgmetrics.registry import self_contained_metrics  # noqa: E402
from nlgmetrics.resources import BUNDLED_ENCODER_ID  # noqa: E402

SPECIALS = ["<pad>", "<s>", "</s>", "<unk>"]


def load_pairs() -> list[tuple[str, str]]:
    """(source, target) pairs: nlgmetrics' bundled WMT17 sample, MT output -> reference."""
    sample = json.loads(resources.files("nlgmetrics").joinpath("data/demo_sample.json").read_text(encoding="utf-8"))
    references = [r if isinstance(r, str) else r[0] for r in sample["references"]]
    return list(zip(sample["predictions"], references))


def build_tokenizer(texts: list[str]) -> PreTrainedTokenizerFast:
    """A word-level tokenizer over the whitespace tokens of ``texts`` (built locally, nothing downloaded)."""
    words = sorted({word for text in texts for word in text.split()})
    vocab = {token: i for i, token in enumerate(SPECIALS + words)}
    core = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    core.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    core.post_processor = processors.TemplateProcessing(single="$A </s>", special_tokens=[("</s>", vocab["</s>"])])
    return PreTrainedTokenizerFast(
        tokenizer_object=core, pad_token="<pad>", bos_token="<s>", eos_token="</s>", unk_token="<unk>"
    )


def build_model(tokenizer: PreTrainedTokenizerFast, seed: int) -> BartForConditionalGeneration:
    """A 1-layer BART (d_model 32) with random weights."""
    torch.manual_seed(seed)
    config = BartConfig(
        vocab_size=len(tokenizer), d_model=32, encoder_layers=1, decoder_layers=1, encoder_attention_heads=2,
        decoder_attention_heads=2, encoder_ffn_dim=64, decoder_ffn_dim=64, max_position_embeddings=128,
        pad_token_id=tokenizer.pad_token_id, bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id,
        decoder_start_token_id=tokenizer.bos_token_id, forced_eos_token_id=tokenizer.eos_token_id,
        tie_word_embeddings=False,
    )
    model = BartForConditionalGeneration(config)
    model.generation_config.max_length = 48
    model.generation_config.num_beams = 1
    return model


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=40, help="training steps (default 40)")
    parser.add_argument("--metrics", nargs="+", default=None,
                        help="default: every self-contained metric (no checkpoint or sources needed)")
    parser.add_argument("--batch-eval-metrics", action="store_true", help="Trainer's batch_eval_metrics=True")
    parser.add_argument("--output-dir", default=None, help="Trainer's output_dir (default: a temporary folder)")
    parser.add_argument("--json", default=None, help="also write the evaluation metrics to this file")
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads (default 1)")
    parser.add_argument("--learning-rate", type=float, default=1e-2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)

    pairs = load_pairs()
    tokenizer = build_tokenizer([text for pair in pairs for text in pair])
    model = build_model(tokenizer, args.seed)
    features = [
        {"input_ids": tokenizer(source)["input_ids"], "labels": tokenizer(text_target=target)["input_ids"]}
        for source, target in pairs
    ]
    metrics = args.metrics or self_contained_metrics()
    compute_metrics = make_compute_metrics(
        tokenizer,
        metrics=metrics,
        # per-metric options: what evaluate.combine cannot pass
        metric_options={
            name: options
            for name, options in {
                "bleu": {"tokenizer": "13a"},
                "rouge": {"use_stemmer": True},
                "bertscore": {"model_type": BUNDLED_ENCODER_ID, "batch_size": 16},
                "moverscore": {"model_type": BUNDLED_ENCODER_ID, "batch_size": 16},
            }.items()
            if name in metrics
        },
    )

    with tempfile.TemporaryDirectory() as tmp:
        training_args = Seq2SeqTrainingArguments(
            output_dir=args.output_dir or tmp,
            max_steps=args.steps,
            per_device_train_batch_size=4,
            per_device_eval_batch_size=4,
            learning_rate=args.learning_rate,
            predict_with_generate=True,
            generation_max_length=48,
            batch_eval_metrics=args.batch_eval_metrics,
            eval_strategy="no",
            save_strategy="no",
            logging_strategy="no",
            report_to="none",
            use_cpu=True,
            disable_tqdm=True,
            seed=args.seed,
        )
        trainer = Seq2SeqTrainer(
            model=model,
            args=training_args,
            train_dataset=features,
            eval_dataset=features,
            data_collator=DataCollatorForSeq2Seq(tokenizer, model=model),
            processing_class=tokenizer,
            compute_metrics=compute_metrics,
        )
        trainer.train()
        results = trainer.evaluate()
    print(json.dumps(results, indent=1))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(results, handle, indent=1)
    return results


if __name__ == "__main__":
    main()
    sys.exit(0)
