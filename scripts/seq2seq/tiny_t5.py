"""The two tiny encoder-decoder models the seq2seq tests run, built the same way by every script that needs them.

  t5       T5 v1.0-shaped: ReLU feed-forward, the LM head tied to the embedding (config.json leaves
           tie_word_embeddings out, as t5-small's does), decoder outputs scaled by d_model ** -0.5
  flan-t5  Flan-T5-shaped: gated-GELU feed-forward, an untied head ("tie_word_embeddings": false, as
           google/flan-t5-* state it), no output scaling, and a layer more than t5 (T5Stack's cache in transformers 5.18 sizes
           itself by num_layers, so num_decoder_layers must equal it)

Both are float32 with seeded random weights, scaled up so that logits spread widely (greedy choices are far from
ties, so comparisons test the engine, not rounding) but not so far that float32 rounding moves logliks by 1e-4
(noise_scale). Their vocabulary is a SentencePiece Unigram model trained here
on the MMLU and BLiMP texts in ../shared/data with T5's settings (pad 0, </s> 1, <unk> 2, nmt_nfkc normalization,
extra ids), converted to a tokenizer.json the way transformers converts T5's (Precompiled normalizer, Metaspace,
a template that appends </s>). The model's vocabulary is larger than the tokenizer's, as T5's 32128 against 32100.

Nothing here is the product: scripts/seq2seq/build_fixtures.py writes the checkpoints and ONNX exports, and
scripts/seq2seq/record_lm_eval.py runs real lm-eval on them.
"""
from __future__ import annotations

import csv
import json
from pathlib import Path

import torch

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / 'shared'
FIXTURES = REPO / 'test' / 'fixtures' / 'seq2seq'
MODEL_NAMES = ('t5', 'flan-t5')
# 400 SentencePiece pieces + 4 extra ids = 404 tokenizer ids; the model's embedding is padded to 416.
SPM_VOCAB, EXTRA_IDS, MODEL_VOCAB = 400, 4, 416
# n_positions is what lm-eval's resolve_max_length reads first (t5-small and flan-t5 state 512); small here,
# so that MMLU contexts are cut from the left.
N_POSITIONS = 48
SHAPES = {
    't5': dict(d_model=16, d_kv=4, num_heads=4, d_ff=32, num_layers=2, num_decoder_layers=2, feed_forward_proj='relu'),
    'flan-t5': dict(d_model=16, d_kv=4, num_heads=4, d_ff=24, num_layers=3, num_decoder_layers=3, feed_forward_proj='gated-gelu'),
}
SEEDS = {'t5': 31, 'flan-t5': 32}


def corpus_lines(shared: Path = SHARED) -> list[str]:
    """The texts the tokenizer is trained on: MMLU dev questions and choices, and 20 BLiMP paradigms."""
    lines = []
    for path in sorted((shared / 'data' / 'mmlu' / 'dev').glob('*.csv')):
        with open(path, encoding='utf-8', newline='') as handle:
            lines += [' '.join(row[:5]) for row in csv.reader(handle)]
    for path in sorted((shared / 'data' / 'blimp').glob('*.jsonl'))[:20]:
        with open(path, encoding='utf-8') as handle:
            for line in handle:
                row = json.loads(line)
                lines += [row['sentence_good'], row['sentence_bad']]
    return lines


def train_tokenizer(scratch: Path):
    """A T5Tokenizer over a Unigram model trained on corpus_lines(), with T5's special ids."""
    import sentencepiece as spm
    from transformers import T5Tokenizer
    from transformers.convert_slow_tokenizer import import_protobuf

    scratch.mkdir(parents=True, exist_ok=True)
    corpus = scratch / 'corpus.txt'
    corpus.write_text('\n'.join(corpus_lines()), encoding='utf-8')
    spm.SentencePieceTrainer.train(input=str(corpus), model_prefix=str(scratch / 'tiny'), vocab_size=SPM_VOCAB, model_type='unigram',
                                   normalization_rule_name='nmt_nfkc', pad_id=0, eos_id=1, unk_id=2, bos_id=-1, character_coverage=1.0,
                                   num_threads=1, seed_sentencepiece_size=20000, minloglevel=2)
    proto = import_protobuf().ModelProto()
    proto.ParseFromString((scratch / 'tiny.model').read_bytes())
    vocab = [(piece.piece, piece.score) for piece in proto.pieces]
    return T5Tokenizer(vocab=vocab, extra_ids=EXTRA_IDS, _spm_precompiled_charsmap=proto.normalizer_spec.precompiled_charsmap)


def config_json(name: str) -> dict:
    """config.json as the hub's T5 files state it (transformers 5 would write tie_word_embeddings true for both)."""
    shape = SHAPES[name]
    config = {
        'architectures': ['T5ForConditionalGeneration'], 'model_type': 't5', 'vocab_size': MODEL_VOCAB, **shape,
        'relative_attention_num_buckets': 8, 'relative_attention_max_distance': 16, 'dropout_rate': 0.0, 'layer_norm_epsilon': 1e-6,
        'initializer_factor': 1.0, 'is_encoder_decoder': True, 'use_cache': True, 'pad_token_id': 0, 'eos_token_id': 1,
        'decoder_start_token_id': 0, 'n_positions': N_POSITIONS,
    }
    if name == 'flan-t5':
        config['tie_word_embeddings'] = False
    return config


def noise_scale(name: str, parameter_name: str, dims: int) -> float:
    """How much seeded noise each weight gets on top of T5's init. flan-t5's queries and keys get little: T5 does
    not scale q·k, and with its gated GELU and untied head, sharp random attention made float32 logliks wander
    from float64 by ~5e-4 (torch's as much as ONNX Runtime's), more than the 1e-4 the tests allow. Both models stay
    within ~3e-5 of float64 while greedy decoding still visits many tokens."""
    if dims == 1:
        return 0.05
    if name == 't5':
        return 0.4
    if 'DenseReluDense' in parameter_name:
        return 0.3
    if parameter_name.endswith(('.q.weight', '.k.weight')):
        return 0.1
    if parameter_name.endswith(('.v.weight', '.o.weight')):
        return 0.5
    return 0.4


def build_model(name: str):
    """The model config_json(name) describes, with its seeded weights; eager attention, eval mode."""
    from transformers import T5Config, T5ForConditionalGeneration

    torch.manual_seed(SEEDS[name])
    model = T5ForConditionalGeneration(T5Config(**config_json(name)))
    with torch.no_grad():
        if name == 'flan-t5':
            model.lm_head.weight = torch.nn.Parameter(torch.randn(MODEL_VOCAB, SHAPES[name]['d_model']))
        for parameter_name, parameter in model.named_parameters():
            parameter.add_(torch.randn_like(parameter) * noise_scale(name, parameter_name, parameter.dim()))
    model.config._attn_implementation = 'eager'
    return model.eval()


def save_checkpoint(name: str, tokenizer, folder: Path) -> None:
    """save_pretrained, then config.json rewritten as config_json(name): the files a hub repository holds."""
    model = build_model(name)
    folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(folder))
    tokenizer.save_pretrained(str(folder))
    (folder / 'config.json').write_text(json.dumps(config_json(name), indent=2) + '\n')
