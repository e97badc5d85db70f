"""A tiny random Llama judge, built offline for the LLM-judge tests and benchmark.

The tokenizer is trained here with the ``tokenizers`` library (word-level, digits and letters split one by one, so
each scale digit and each pairwise label is one token) and carries a chat template. The model is a 2-layer Llama with
random weights; one residual dimension carries a constant that the output head uses to lift the digits 0-9 and the
letters A, B, C far above every other token, so its greedy answer is always one of them (a "judge" that answers on
the scale, with all of them among any server's top-20 logprobs) while their probabilities stay input-dependent.
"""

from __future__ import annotations

import atexit
import functools
import shutil
import tempfile
from pathlib import Path

CHAT_TEMPLATE = (
    "{% for m in messages %}<|{{ m['role'] }}|> {{ m['content'] }} <|end|> {% endfor %}"
    "{% if add_generation_prompt %}<|assistant|> {% endif %}"
)
_WORDS = (
    "the a an cat dog sat on mat is was of to and in it that answer response question reference source context "
    "score rate rating scale from 1 to 5 better worse which tie output only integer text quality good bad "
    "correct correctness faithful faithfulness relevant relevance coherent coherence fluent fluency summary "
    "translation candidate assistant first second judge evaluate"
).split()


def build_tiny_judge(folder: Path, seed: int = 0, init: float = 0.3, head_scale: float = 10.0,
                     lift: float = 10.0, constant: float = 8.0) -> Path:
    """Write the tiny judge (model, tokenizer, chat template) to ``folder`` and return it."""
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers, decoders, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    specials = ["<unk>", "<pad>", "<s>", "</s>", "<|system|>", "<|user|>", "<|assistant|>", "<|end|>"]
    tokenizer = Tokenizer(models.WordLevel(unk_token="<unk>"))
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence(
        [pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Digits(individual_digits=True),
         pre_tokenizers.Punctuation()]
    )
    tokenizer.decoder = decoders.WordPiece(prefix="##", cleanup=False)  # joins words with spaces
    corpus = [" ".join(_WORDS), "0 1 2 3 4 5 6 7 8 9", "A B C . , : ; ? ! ( ) { } [ ] - ' \""]
    trainer = trainers.WordLevelTrainer(special_tokens=specials, min_frequency=1)
    tokenizer.train_from_iterator(corpus, trainer=trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tokenizer, unk_token="<unk>", pad_token="<pad>", bos_token="<s>", eos_token="</s>"
    )
    fast.chat_template = CHAT_TEMPLATE
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    fast.save_pretrained(folder)

    torch.manual_seed(seed)
    config = LlamaConfig(
        vocab_size=len(fast), hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=2, max_position_embeddings=512, tie_word_embeddings=False, initializer_range=init,
        bos_token_id=fast.bos_token_id, eos_token_id=fast.eos_token_id, pad_token_id=fast.pad_token_id,
    )
    model = LlamaForCausalLM(config).eval()
    keep = [fast.convert_tokens_to_ids(t) for t in list("0123456789ABC")]
    with torch.no_grad():
        # residual dimension 0 holds a constant: set in every embedding, never written by a layer
        model.model.embed_tokens.weight[:, 0] = constant
        for layer in model.model.layers:
            layer.self_attn.o_proj.weight[0] = 0.0
            layer.mlp.down_proj.weight[0] = 0.0
        # the head reads it to lift the 13 answer tokens far above the rest (all of them in any top-20 logprobs)
        head = model.lm_head.weight
        scaled = head[keep] * head_scale
        head.zero_()
        head[keep] = scaled
        head[:, 0] = -lift
        head[keep, 0] = lift
        # centre the answer rows: remove the mean hidden direction (besides dimension 0), so which answer wins
        # depends on the input, not on one row that happens to align with every prompt's state
        prompts = [fast.apply_chat_template([{"role": "user", "content": f"{w} {v}"}], add_generation_prompt=True,
                                            return_tensors="pt", return_dict=True)
                   for w in _WORDS[:24] for v in ("1", "the cat")]
        states = torch.stack([model(**p, output_hidden_states=True).hidden_states[-1][0, -1] for p in prompts])
        mean = states.mean(0)
        mean[0] = 0.0
        unit = mean / mean.norm()
        rows = head[keep]
        head[keep] = rows - torch.outer(rows @ unit, unit)
    model.generation_config.do_sample = False
    model.save_pretrained(folder)
    return folder


@functools.cache
def tiny_judge_folder() -> str:
    """The tiny judge, built once per process into a temporary folder (removed at exit)."""
    folder = tempfile.mkdtemp(prefix="nlgmetrics-tiny-judge-")
    atexit.register(shutil.rmtree, folder, True)
    return str(build_tiny_judge(Path(folder)))
