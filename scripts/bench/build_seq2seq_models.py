#!/usr/bin/env python3
"""Build the model of the bench's encoder-decoder section: Flan-T5-small's shape (d_model 512, 8 + 8 layers, 6 heads
of 64, gated-GELU FFN of 1024, an untied head) with seeded random weights and the tiny SentencePiece vocabulary of the
test fixtures (scripts/seq2seq/tiny_t5.py: 404 tokenizer ids, 416 model ids), so that the weights and the tokenizer
stay local. The layers, where the time goes, are Flan-T5-small's.

Writes OUT_ROOT/flan-t5-small-shaped/:
  hf/        the checkpoint lm-eval's seq2seq HF backend loads (config.json as the hub's Flan-T5 states it)
  config.json, generation_config.json, tokenizer.json, tokenizer_config.json
  onnx/      encoder_model.onnx, decoder_model.onnx, decoder_with_past_model.onnx and decoder_model_merged.onnx
             (scripts/seq2seq/export_onnx.py), with the side files copied beside them: transformers.js loads the
             folder (onnx/encoder_model.onnx and onnx/decoder_model_merged.onnx), mlrb-eval loads onnx/
  generation-reference.json
             the bench's prompts (ids of one length: no row is padded) and transformers' greedy continuation of
             each (torch, float32, EOS ignored), so the bench checks every peer's ids without Python

  /work/pyenv/bin/python scripts/bench/build_seq2seq_models.py [--out-root /work/models]
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
import warnings
from pathlib import Path

import torch

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / 'scripts' / 'seq2seq'))
from export_onnx import export_decoder, export_decoder_with_past, export_encoder, merge_decoders  # noqa: E402
from tiny_t5 import MODEL_VOCAB, train_tokenizer  # noqa: E402

warnings.filterwarnings('ignore')
NAME = 'flan-t5-small-shaped'
SHAPE = dict(d_model=512, d_kv=64, num_heads=6, d_ff=1024, num_layers=8, num_decoder_layers=8, feed_forward_proj='gated-gelu')
SEED = 41
PROMPT_TEXTS = (
    'Question: What is the capital of France? Answer with one word and explain why it is the capital.',
    'The cat sat on the mat and looked at the bird in the tree. The bird sang a happy song.',
    'Tom had a big red ball. He liked to kick it high in the sky with his best friend Sam.',
    'One day, a small dog found a shiny stone near the river. He picked it up with his mouth.',
    'In the morning the sun was bright and warm, so Mom said they could go to the beach.',
    'There was a tall tree in the garden. Every day a bird came to sit on its highest branch.',
    'Translate to German: The weather is nice today and we will go for a long walk together.',
    'Summarize: The committee reviewed every proposal and chose the simplest of them all.',
)
MAX_NEW = 64


def config_json() -> dict:
    return {
        'architectures': ['T5ForConditionalGeneration'], 'model_type': 't5', 'vocab_size': MODEL_VOCAB, **SHAPE,
        'relative_attention_num_buckets': 32, 'relative_attention_max_distance': 128, 'dropout_rate': 0.0, 'layer_norm_epsilon': 1e-6,
        'initializer_factor': 1.0, 'is_encoder_decoder': True, 'use_cache': True, 'pad_token_id': 0, 'eos_token_id': 1,
        'decoder_start_token_id': 0, 'n_positions': 512, 'tie_word_embeddings': False,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--out-root', type=Path, default=Path('/work/models'))
    out = ap.parse_args().out_root / NAME
    from transformers import T5Config, T5ForConditionalGeneration

    started = time.perf_counter()
    shutil.rmtree(out, ignore_errors=True)
    (out / 'onnx').mkdir(parents=True)
    with tempfile.TemporaryDirectory() as scratch:
        tokenizer = train_tokenizer(Path(scratch) / 'spm')
    torch.manual_seed(SEED)
    model = T5ForConditionalGeneration(T5Config(**config_json()))
    with torch.no_grad():
        model.lm_head.weight.normal_(0.0, SHAPE['d_model'] ** -0.5)
    model.config._attn_implementation = 'eager'
    model.eval()
    model.save_pretrained(str(out / 'hf'))
    tokenizer.save_pretrained(str(out / 'hf'))
    (out / 'hf' / 'config.json').write_text(json.dumps(config_json(), indent=2) + '\n')
    for side in ('config.json', 'generation_config.json', 'tokenizer.json', 'tokenizer_config.json'):
        shutil.copyfile(out / 'hf' / side, out / side)
        shutil.copyfile(out / 'hf' / side, out / 'onnx' / side)
    prompts = [tokenizer(text).input_ids for text in PROMPT_TEXTS]
    shortest = min(len(prompt) for prompt in prompts)
    prompts = [prompt[:shortest - 1] + [prompt[-1]] for prompt in prompts]  # one length, each still ending in </s>
    with torch.no_grad():
        greedy = model.generate(torch.tensor(prompts), attention_mask=torch.ones(len(prompts), shortest, dtype=torch.int64), do_sample=False,
                                max_new_tokens=MAX_NEW, min_new_tokens=MAX_NEW, eos_token_id=None)[:, 1:].tolist()
    onnx_dir = out / 'onnx'
    export_encoder(model, onnx_dir / 'encoder_model.onnx')
    export_decoder(model, onnx_dir / 'decoder_model.onnx', with_presents=True)
    export_decoder_with_past(model, onnx_dir / 'decoder_with_past_model.onnx')
    merge_decoders(onnx_dir / 'decoder_model.onnx', onnx_dir / 'decoder_with_past_model.onnx', onnx_dir / 'decoder_model_merged.onnx')
    reference = {'source': f'transformers {torch.__version__} greedy, float32', 'maxNewTokens': MAX_NEW, 'prompts': prompts, 'greedy': greedy}
    (out / 'generation-reference.json').write_text(json.dumps(reference) + '\n')
    print(json.dumps({'model': NAME, 'out': str(out), 'parameters': model.num_parameters(), 'prompt_tokens': shortest,
                      'seconds': round(time.perf_counter() - started, 1)}))


if __name__ == '__main__':
    main()
