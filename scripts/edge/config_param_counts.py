"""Writes Hugging Face config.json files and transformers' own parameter counts for them.

check-pruning --base config.json counts the base from the config alone, with one formula per architecture
(src/inspect/config/parameters.ts). This script is its independent reference: every config below is built by
transformers on the meta device (no weights allocated, so 7B shapes cost nothing) and the figures recorded are
model.num_parameters() (tied tensors counted once) and the parameters of one decoder layer.

Phi-2's config is written from its published facts; the others are small and medium variants chosen to reach
every branch of the formulas: tied and untied heads, grouped-query attention, head_dim overrides, bias flags
on and off, GPT-2 cross-attention, OPT's word-embedding projection and post-norm layout, and T5's encoder-decoder.

Run: /work/pyenv/bin/python scripts/edge/config_param_counts.py   (writes test/fixtures/edge/configs/)
"""
from __future__ import annotations

import json
import warnings
from pathlib import Path

import torch
import transformers
from transformers import AutoConfig, AutoModelForCausalLM

OUT = Path(__file__).resolve().parents[2] / 'test' / 'fixtures' / 'edge' / 'configs'
PHI2_PARAMETERS = 2_779_683_840  # microsoft/phi-2 as transformers reports it

warnings.filterwarnings('ignore')
transformers.logging.set_verbosity_error()  # small vocabularies make it warn about default token ids

PHI2 = {
    'architectures': ['PhiForCausalLM'], 'model_type': 'phi', 'attention_dropout': 0.0, 'bos_token_id': 50256,
    'embd_pdrop': 0.0, 'eos_token_id': 50256, 'hidden_act': 'gelu_new', 'hidden_size': 2560,
    'initializer_range': 0.02, 'intermediate_size': 10240, 'layer_norm_eps': 1e-05, 'max_position_embeddings': 2048,
    'num_attention_heads': 32, 'num_hidden_layers': 32, 'num_key_value_heads': 32, 'partial_rotary_factor': 0.4,
    'qk_layernorm': False, 'resid_pdrop': 0.1, 'rope_scaling': None, 'rope_theta': 10000.0,
    'tie_word_embeddings': False, 'torch_dtype': 'float16', 'use_cache': True, 'vocab_size': 51200,
}


def small(model_type: str, **fields: object) -> dict[str, object]:
    base = {'model_type': model_type, 'vocab_size': 96, 'hidden_size': 32, 'num_hidden_layers': 3,
            'num_attention_heads': 4, 'intermediate_size': 80, 'max_position_embeddings': 64}
    return {**base, **fields}


CONFIGS: dict[str, dict[str, object]] = {
    'phi-2': PHI2,
    'phi-small-tied-gqa-qk-norm': small('phi', num_key_value_heads=2, tie_word_embeddings=True, qk_layernorm=True,
                                        partial_rotary_factor=0.5),
    'phi-medium': {'architectures': ['PhiForCausalLM'], 'model_type': 'phi', 'hidden_size': 2048, 'intermediate_size': 8192,
                   'num_attention_heads': 32, 'num_hidden_layers': 24, 'vocab_size': 51200,
                   'max_position_embeddings': 2048, 'partial_rotary_factor': 0.5},
    'llama-small-tied-gqa': small('llama', num_key_value_heads=2, tie_word_embeddings=True),
    'llama-small-biases-head-dim': small('llama', num_key_value_heads=1, head_dim=16, attention_bias=True, mlp_bias=True),
    'llama-medium-gqa': {'architectures': ['LlamaForCausalLM'], 'hidden_size': 2048, 'intermediate_size': 5632,
                         'num_attention_heads': 32, 'num_key_value_heads': 4, 'num_hidden_layers': 22, 'vocab_size': 32000,
                         'max_position_embeddings': 2048, 'tie_word_embeddings': False},
    # num_key_value_heads absent: MistralConfig then has 8, not num_attention_heads.
    'mistral-small-default-kv': small('mistral', num_attention_heads=16, hidden_size=64),
    'mistral-small-head-dim-tied': small('mistral', num_key_value_heads=2, head_dim=12, tie_word_embeddings=True),
    'mistral-medium': {'model_type': 'mistral', 'hidden_size': 4096, 'intermediate_size': 14336, 'num_attention_heads': 32,
                       'num_key_value_heads': 8, 'num_hidden_layers': 32, 'vocab_size': 32000,
                       'max_position_embeddings': 32768},
    'qwen2-small-tied': small('qwen2', num_key_value_heads=2, tie_word_embeddings=True),
    'qwen2-small-untied': small('qwen2', num_key_value_heads=4, tie_word_embeddings=False),
    'qwen2-medium-tied': {'architectures': ['Qwen2ForCausalLM'], 'model_type': 'qwen2', 'hidden_size': 896,
                          'intermediate_size': 4864, 'num_attention_heads': 14, 'num_key_value_heads': 2,
                          'num_hidden_layers': 24, 'vocab_size': 151936, 'max_position_embeddings': 32768,
                          'tie_word_embeddings': True},
    'gpt2-small-tied': {'model_type': 'gpt2', 'vocab_size': 96, 'n_embd': 32, 'n_layer': 3, 'n_head': 4, 'n_positions': 64},
    'gpt2-small-untied-inner': {'model_type': 'gpt2', 'vocab_size': 96, 'n_embd': 32, 'n_layer': 2, 'n_head': 4,
                                'n_positions': 40, 'n_inner': 72, 'tie_word_embeddings': False},
    'gpt2-small-cross-attention': {'model_type': 'gpt2', 'vocab_size': 96, 'n_embd': 32, 'n_layer': 2, 'n_head': 4,
                                   'n_positions': 40, 'add_cross_attention': True},
    'gpt2-medium': {'architectures': ['GPT2LMHeadModel'], 'model_type': 'gpt2', 'vocab_size': 50257, 'n_embd': 768,
                    'n_layer': 12, 'n_head': 12, 'n_positions': 1024, 'n_ctx': 1024},
    'gpt_neox-small': small('gpt_neox'),
    'gpt_neox-small-tied-no-bias': small('gpt_neox', tie_word_embeddings=True, attention_bias=False),
    'gpt_neox-medium': {'architectures': ['GPTNeoXForCausalLM'], 'model_type': 'gpt_neox', 'hidden_size': 768,
                        'intermediate_size': 3072, 'num_attention_heads': 12, 'num_hidden_layers': 12,
                        'vocab_size': 50304, 'max_position_embeddings': 2048, 'rotary_pct': 0.25,
                        'tie_word_embeddings': False},
    'opt-small': {'model_type': 'opt', 'vocab_size': 96, 'hidden_size': 32, 'num_hidden_layers': 3,
                  'num_attention_heads': 4, 'ffn_dim': 80, 'max_position_embeddings': 64},
    'opt-small-projected-post-norm': {'model_type': 'opt', 'vocab_size': 96, 'hidden_size': 32, 'word_embed_proj_dim': 16,
                                      'num_hidden_layers': 2, 'num_attention_heads': 4, 'ffn_dim': 48,
                                      'max_position_embeddings': 40, 'do_layer_norm_before': False},
    'opt-small-no-bias-no-affine-untied': {'model_type': 'opt', 'vocab_size': 96, 'hidden_size': 32, 'num_hidden_layers': 2,
                                           'num_attention_heads': 4, 'ffn_dim': 48, 'max_position_embeddings': 40,
                                           'enable_bias': False, 'layer_norm_elementwise_affine': False,
                                           'tie_word_embeddings': False},
    'opt-medium': {'architectures': ['OPTForCausalLM'], 'model_type': 'opt', 'vocab_size': 50272, 'hidden_size': 768,
                   'num_hidden_layers': 12, 'num_attention_heads': 12, 'ffn_dim': 3072, 'max_position_embeddings': 2048,
                   'word_embed_proj_dim': 768, 'do_layer_norm_before': True},
    # Phi3Config's default pad_token_id (32000) must lie inside the vocabulary.
    'phi3-small-gqa': small('phi3', num_key_value_heads=2, pad_token_id=0),
    'phi3-small-tied-head-dim': small('phi3', head_dim=12, tie_word_embeddings=True, pad_token_id=0),
    'phi3-medium': {'architectures': ['Phi3ForCausalLM'], 'model_type': 'phi3', 'hidden_size': 3072,
                    'intermediate_size': 8192, 'num_attention_heads': 32, 'num_key_value_heads': 32,
                    'num_hidden_layers': 32, 'vocab_size': 32064, 'max_position_embeddings': 4096,
                    'tie_word_embeddings': False},
    # T5 (encoder-decoder): tied and scaled (t5's layout), gated and untied with d_kv apart from d_model / heads and
    # more decoder than encoder layers, and google/flan-t5-small's published config (76,961,152 parameters).
    't5-small-tied': {'model_type': 't5', 'vocab_size': 96, 'd_model': 32, 'd_kv': 8, 'num_heads': 4, 'd_ff': 64, 'num_layers': 2,
                      'relative_attention_num_buckets': 8},
    't5-small-gated-untied-uneven': {'model_type': 't5', 'vocab_size': 96, 'd_model': 32, 'd_kv': 12, 'num_heads': 4, 'd_ff': 48,
                                     'num_layers': 2, 'num_decoder_layers': 3, 'feed_forward_proj': 'gated-gelu',
                                     'tie_word_embeddings': False},
    'flan-t5-small': {'architectures': ['T5ForConditionalGeneration'], 'model_type': 't5', 'vocab_size': 32128, 'd_model': 512,
                      'd_kv': 64, 'num_heads': 6, 'd_ff': 1024, 'num_layers': 8, 'num_decoder_layers': 8,
                      'feed_forward_proj': 'gated-gelu', 'relative_attention_num_buckets': 32, 'n_positions': 512,
                      'is_encoder_decoder': True, 'decoder_start_token_id': 0, 'tie_word_embeddings': False},
}
FLAN_T5_SMALL_PARAMETERS = 76_961_152  # google/flan-t5-small as transformers reports it loaded

# Configs that name only their class (as some exports do) are identified by it, like AutoConfig does by model_type.
MODEL_TYPE_OF_CLASS = {'LlamaForCausalLM': 'llama'}


def decoder_layers(model: torch.nn.Module, count: int) -> torch.nn.ModuleList:
    lists = [module for module in model.modules() if isinstance(module, torch.nn.ModuleList) and len(module) == count]
    if len(lists) != 1:
        raise RuntimeError(f'expected one ModuleList of {count} decoder layers, found {len(lists)}')
    return lists[0]


def widths(config: object, layer: torch.nn.Module) -> dict[str, int]:
    """The widths transformers settled on after its defaults (Mistral's 8 KV heads, GPT-2's 4 x hidden FFN)."""
    hidden = config.hidden_size
    heads = config.num_attention_heads
    head_dims = {value for module in layer.modules() for key in ('head_dim', 'head_size')  # GPT-NeoX says head_size
                 if isinstance(value := getattr(module, key, None), int)}
    if len(head_dims) != 1:
        raise RuntimeError(f'expected one head_dim in a decoder layer, found {head_dims}')
    if config.model_type == 'gpt2':
        intermediate = config.n_inner or 4 * hidden  # GPT2Block's rule
    else:
        intermediate = getattr(config, 'intermediate_size', None) or config.ffn_dim  # OPT says ffn_dim
    return {'hidden': hidden, 'heads': heads, 'kvHeads': getattr(config, 'num_key_value_heads', None) or heads,
            'headDim': head_dims.pop(), 'intermediate': intermediate, 'layerCount': config.num_hidden_layers,
            'vocab': config.vocab_size}


def count_t5(config_json: dict[str, object]) -> dict[str, object]:
    """T5ForConditionalGeneration: transformers 5's T5Config ties the head in memory whatever the file says, but
    from_pretrained keeps a checkpoint's own head (scripts/seq2seq/record_lm_eval.py shows it), so a config stating
    tie_word_embeddings false gets a separate head here, as its checkpoint would. A "layer" is an encoder layer plus
    a decoder layer (the second of each: the first also holds the relative-position bias)."""
    from transformers import AutoModelForSeq2SeqLM

    fields = dict(config_json)
    fields.pop('model_type')
    config = AutoConfig.for_model('t5', **fields)
    with torch.device('meta'):
        model = AutoModelForSeq2SeqLM.from_config(config)
        if config_json.get('tie_word_embeddings') is False:
            model.lm_head.weight = torch.nn.Parameter(torch.empty(config.vocab_size, config.d_model))
    layer = [model.encoder.block[1], model.decoder.block[1]]
    return {
        'class': type(model).__name__,
        'num_parameters': model.num_parameters(),
        'layer_parameters': sum(parameter.numel() for block in layer for parameter in block.parameters()),
        'widths': {'hidden': config.d_model, 'heads': config.num_heads, 'kvHeads': config.num_heads, 'headDim': config.d_kv,
                   'intermediate': config.d_ff, 'layerCount': config.num_layers, 'vocab': config.vocab_size},
    }


def count(config_json: dict[str, object]) -> dict[str, object]:
    if config_json.get('model_type') == 't5':
        return count_t5(config_json)
    fields = dict(config_json)
    model_type = fields.pop('model_type', None) or MODEL_TYPE_OF_CLASS[fields['architectures'][0]]
    config = AutoConfig.for_model(model_type, **fields)
    with torch.device('meta'):
        model = AutoModelForCausalLM.from_config(config)
    layers = decoder_layers(model, config.num_hidden_layers)
    return {
        'class': type(model).__name__,
        'num_parameters': model.num_parameters(),
        'layer_parameters': sum(parameter.numel() for parameter in layers[0].parameters()),
        'widths': widths(config, layers[0]),
    }


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    expected: dict[str, dict[str, object]] = {}
    for name, config_json in CONFIGS.items():
        (OUT / f'{name}.json').write_text(json.dumps(config_json, indent=2) + '\n')
        expected[name] = count(config_json)
        print(f'{name:40s} {expected[name]["class"]:24s} {expected[name]["num_parameters"]:>15,}')
    if expected['flan-t5-small']['num_parameters'] != FLAN_T5_SMALL_PARAMETERS:
        raise SystemExit(f'flan-t5-small counts {expected["flan-t5-small"]["num_parameters"]:,}, not {FLAN_T5_SMALL_PARAMETERS:,}')
    if expected['phi-2']['num_parameters'] != PHI2_PARAMETERS:
        raise SystemExit(f'phi-2 counts {expected["phi-2"]["num_parameters"]:,}, not {PHI2_PARAMETERS:,}')
    manifest = {'transformers': transformers.__version__, 'torch': torch.__version__, 'counts': expected}
    (OUT / 'expected-counts.json').write_text(json.dumps(manifest, indent=2) + '\n')


if __name__ == '__main__':
    main()
