"""Records how transformers resolves the architecture fields a config.json may leave out or null.

src/model/hf-config.ts is the one reader of a model's config.json for the edge checks and the scorer: it
applies each model_type's defaults (num_key_value_heads, head_dim, tie_word_embeddings, partial_rotary_factor,
n_inner ...). This script is its independent reference. For every case below transformers builds the causal
LM on the meta device and the figures are read from the modules it built, not from the config object: the key
projection's width over the attention's head_dim gives the KV heads actually used, the MLP's first projection
the intermediate size, and whether the LM head is the embedding tensor the tying. A config transformers
refuses is recorded as refused.

The base config states only the sizes with no meaningful class default (hidden, heads, layers, vocab, FFN
width); 16 heads differ from MistralConfig's 8 and Qwen2Config's 32 default KV heads, so a resolver that
falls back to the wrong one is caught.

Run: /work/pyenv/bin/python scripts/edge/hf_config_defaults.py   (writes test/fixtures/edge/hf-config-defaults.json)
"""
from __future__ import annotations

import json
import warnings
from pathlib import Path

import torch
import transformers
from transformers import AutoModelForCausalLM, CONFIG_MAPPING

OUT = Path(__file__).resolve().parents[2] / 'test' / 'fixtures' / 'edge' / 'hf-config-defaults.json'

warnings.filterwarnings('ignore')
transformers.logging.set_verbosity_error()

MODEL_TYPES = ['llama', 'mistral', 'qwen2', 'phi', 'gpt2', 'gpt_neox', 'opt']
GPT2_NAMES = {'hidden_size': 'n_embd', 'num_attention_heads': 'n_head', 'num_hidden_layers': 'n_layer',
              'intermediate_size': 'n_inner', 'max_position_embeddings': 'n_positions'}
OPT_NAMES = {'intermediate_size': 'ffn_dim'}


def base(model_type: str) -> dict[str, object]:
    fields: dict[str, object] = {'hidden_size': 128, 'num_attention_heads': 16, 'num_hidden_layers': 2,
                                 'vocab_size': 96, 'intermediate_size': 80, 'max_position_embeddings': 64}
    names = GPT2_NAMES if model_type == 'gpt2' else OPT_NAMES if model_type == 'opt' else {}
    return {'model_type': model_type, **{names.get(key, key): value for key, value in fields.items()}}


CASES: dict[str, dict[str, object]] = {
    'defaults': {},
    'kv-null': {'num_key_value_heads': None},
    'kv-4': {'num_key_value_heads': 4},
    'head-dim-16': {'head_dim': 16},
    'head-dim-null': {'head_dim': None},
    'tie-null': {'tie_word_embeddings': None},
}


def first_linear_out(module: torch.nn.Module) -> int:
    for child in module.modules():
        if isinstance(child, torch.nn.Linear):
            return child.out_features
        if type(child).__name__ == 'Conv1D':
            return child.nf
    raise RuntimeError(f'no projection in {type(module).__name__}')


def resolved(model_type: str, fields: dict[str, object]) -> dict[str, object]:
    config_class = CONFIG_MAPPING[model_type]
    try:
        config = config_class(**{key: value for key, value in fields.items() if key != 'model_type'})
        with torch.device('meta'):
            model = AutoModelForCausalLM.from_config(config)
    except Exception as error:  # transformers refuses the config: record that, not a guess
        return {'refused': type(error).__name__}
    layer = model.base_model.layers[0] if hasattr(model.base_model, 'layers') else (
        model.base_model.h[0] if hasattr(model.base_model, 'h') else model.base_model.decoder.layers[0])
    attention = getattr(layer, 'self_attn', None) or getattr(layer, 'attn', None) or getattr(layer, 'attention')
    heads = config.num_attention_heads
    head_dim = getattr(attention, 'head_dim', None) or config.hidden_size // heads
    key = getattr(attention, 'k_proj', None)
    kv_heads = key.out_features // head_dim if key is not None else heads  # fused QKV: one KV head per head
    mlp = getattr(layer, 'mlp', None)
    intermediate = first_linear_out(mlp) if mlp is not None else layer.fc1.out_features
    embedding = model.get_input_embeddings().weight
    return {
        'numKeyValueHeads': kv_heads,
        'headDim': head_dim,
        'intermediateSize': intermediate,
        'tieWordEmbeddings': model.get_output_embeddings().weight is embedding,
        'partialRotaryFactor': getattr(config, 'partial_rotary_factor', None),
        'maxPositions': config.max_position_embeddings,
    }


def main() -> None:
    records = []
    for model_type in MODEL_TYPES:
        for case, extra in CASES.items():
            config = {**base(model_type), **extra}
            records.append({'case': f'{model_type}/{case}', 'config': config, 'resolved': resolved(model_type, config)})
    OUT.write_text(json.dumps({'transformers': transformers.__version__, 'records': records}, indent=1) + '\n')
    print(f'wrote {len(records)} records to {OUT}')


if __name__ == '__main__':
    main()
