"""Writes a Phi-2-width model for the edge-track scale check (issue 12): hidden 2560, 32 heads, FFN 10240,
vocab 51200, LAYERS layers (default 2), fp16, exported by torch.onnx.export (TorchScript, opset 14, optimum's
default for Phi) with external data, plus Phi-2's facts for that depth from transformers itself:
num_parameters() of the model and the % removed against Phi-2's 2,779,683,840. check-pruning /
check-track against Phi-2's config.json must give exactly these figures.

Run: /work/pyenv/bin/python scripts/edge/phi2_width_model.py OUT_DIR [--layers 2]   (about 1.3 GB for 2 layers)
     --tiny writes the same export at hidden 64, 4 heads, FFN 256, vocab 512 (the committed test fixture
     test/fixtures/edge/phi-fp16-mask: fp16 TorchScript casts the residual stream, and the mask is an input).
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import onnx
import torch
from transformers import PhiConfig, PhiForCausalLM

PHI2_PARAMETERS = 2_779_683_840


class LogitsOnly(torch.nn.Module):
    """input_ids, attention_mask -> logits at every position: keyword arguments, so the tracer never takes
    transformers' other forward arguments (logits_to_keep, …) for graph inputs."""

    def __init__(self, model: torch.nn.Module) -> None:
        super().__init__()
        self.model = model

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        return self.model(input_ids=input_ids, attention_mask=attention_mask, use_cache=False).logits


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument('out', type=Path)
    parser.add_argument('--layers', type=int, default=2)
    parser.add_argument('--tiny', action='store_true')
    args = parser.parse_args()
    out, layers = args.out, args.layers
    out.mkdir(parents=True, exist_ok=True)
    vocab, hidden, heads, ffn = (512, 64, 4, 256) if args.tiny else (51200, 2560, 32, 10240)
    config = PhiConfig(vocab_size=vocab, hidden_size=hidden, intermediate_size=ffn, num_hidden_layers=layers,
                       num_attention_heads=heads, num_key_value_heads=heads, partial_rotary_factor=0.4,
                       max_position_embeddings=2048, layer_norm_eps=1e-5, hidden_act='gelu_new',
                       tie_word_embeddings=False, use_cache=False)
    torch.manual_seed(0)
    started = time.time()
    model = PhiForCausalLM(config)
    # Fresh models have all-zero biases and all-one norm weights, which the exporter stores once and shares
    # (deduplicated initializers); trained weights differ, so they are drawn at random as training leaves them.
    with torch.no_grad():
        for name, parameter in model.named_parameters():
            if parameter.dim() == 1:
                parameter.copy_((1.0 if 'layernorm' in name and name.endswith('weight') else 0.0) + 0.02 * torch.randn_like(parameter))
    model = model.to(torch.float16).eval()
    parameters = model.num_parameters()
    ids = torch.randint(0, vocab, (1, 8))
    mask = torch.ones_like(ids)
    onnx_path = out / 'model.onnx'
    with torch.no_grad():
        torch.onnx.export(LogitsOnly(model), (ids, mask), str(onnx_path), input_names=['input_ids', 'attention_mask'],
                          output_names=['logits'], opset_version=14, dynamo=False,
                          dynamic_axes={'input_ids': {0: 'batch', 1: 'sequence'}, 'attention_mask': {0: 'batch', 1: 'sequence'},
                                        'logits': {0: 'batch', 1: 'sequence'}})
    # One external-data file, as exporters write models over 2 GB and as the edge kit's models come.
    proto = onnx.load(str(onnx_path))
    onnx.save_model(proto, str(onnx_path), save_as_external_data=True, all_tensors_to_one_file=True,
                    location='model.onnx.data', size_threshold=1024)
    facts = {
        'layers': layers, 'hidden': hidden, 'heads': heads, 'ffn': ffn, 'vocab': vocab, 'dtype': 'float16', 'opset': 14, 'parameters': parameters,
        'phi2_parameters': PHI2_PARAMETERS, 'params_removed': PHI2_PARAMETERS - parameters,
        'percent_removed': 100 * (PHI2_PARAMETERS - parameters) / PHI2_PARAMETERS,
    }
    print(f'built and exported in {time.time() - started:.1f} s')
    (out / 'facts.json').write_text(json.dumps(facts, indent=2) + '\n')
    print(json.dumps(facts))


if __name__ == '__main__':
    main()
