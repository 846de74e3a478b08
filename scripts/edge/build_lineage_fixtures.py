"""Builds the lineage fixtures: a base, pruned-and-fine-tuned copies of it, and an unrelated model of the pruned shape.

A small seeded Phi (hidden 64, 4 heads of 16, FFN 256, 4 layers) is the base. 'pruned-finetuned' has heads, FFN
channels and base layer 2 removed by slicing its weights in torch; 'pruned-hidden' also drops every fourth hidden
channel (width pruning) and layer 1's whole attention. Both are fine-tuned for a few Adam steps and perturbed by noise
of 5 % of each weight's std, as agents fine-tune after pruning. The unrelated model has the pruned model's exact shape
but comes from another seed. The base is written as ONNX with external data and as a sharded Hugging Face safetensors
folder (save_pretrained, bf16); the ONNX models are fp16 and gzipped to keep the fixtures small. The manifest records
which base layers, hidden channels, heads and FFN channels each pruned model kept: the truth the TS tests compare
lineage against.

Run: /work/pyenv/bin/python scripts/edge/build_lineage_fixtures.py   (writes test/fixtures/edge/lineage/)
     --scale OUT_DIR LAYERS writes a Phi-2-width base and pruned copy for timing lineage (not committed).
"""
from __future__ import annotations

import copy
import gzip
import json
import shutil
import sys
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import onnx
import torch
from transformers import PhiConfig, PhiForCausalLM

sys.path.insert(0, str(Path(__file__).resolve().parent))
from build_pruning_fixtures import LogitsOnly, slice_linear  # noqa: E402

OUT = Path(__file__).resolve().parents[2] / 'test' / 'fixtures' / 'edge' / 'lineage'
HIDDEN, HEADS, FFN, LAYERS, VOCAB = 64, 4, 256, 4, 32
HEAD_DIM = HIDDEN // HEADS
SEQ = 8
NOISE = 0.05  # of each weight's std: what a short fine-tune moves


@dataclass(frozen=True)
class Plan:
    """What pruning removes, by base index: heads and FFN channels per base layer, one whole layer, hidden channels."""
    heads: dict[int, list[int]]
    channels: dict[int, list[int]]
    removed_layer: int
    hidden: list[int] = field(default_factory=list)
    # Base layers whose whole attention block is dropped (the FFN stays), as attention-drop pruning does.
    attention_dropped: list[int] = field(default_factory=list)


# Heads, channels and layer 2; the width variant also drops every fourth hidden channel (Minitron-style) and layer 1's attention.
PLANS = {
    'pruned-finetuned': Plan(heads={0: [1], 1: [0, 3], 3: []},
                             channels={0: list(range(1, FFN, 4)), 1: list(range(100, 164)),
                                       3: sorted(torch.randperm(FFN, generator=torch.Generator().manual_seed(7))[:32].tolist())},
                             removed_layer=2),
    'pruned-hidden': Plan(heads={0: [2], 1: list(range(HEADS)), 3: [0, 1]}, channels={0: [], 1: list(range(128)), 3: list(range(0, FFN, 2))},
                          removed_layer=2, hidden=list(range(3, HIDDEN, 4)), attention_dropped=[1]),
}

warnings.filterwarnings('ignore')


def build(seed: int, hidden: int = HIDDEN, heads: int = HEADS, ffn: int = FFN, layers: int = LAYERS, vocab: int = VOCAB) -> PhiForCausalLM:
    torch.manual_seed(seed)
    config = PhiConfig(vocab_size=vocab, hidden_size=hidden, intermediate_size=ffn, num_hidden_layers=layers,
                       num_attention_heads=heads, max_position_embeddings=32, partial_rotary_factor=0.5, tie_word_embeddings=False)
    config._attn_implementation = 'eager'
    return PhiForCausalLM(config).eval()


def channels_of(heads: list[int], head_dim: int) -> torch.Tensor:
    return torch.tensor([head * head_dim + offset for head in heads for offset in range(head_dim)])


def slice_vector(module: torch.nn.Module, name: str, keep: torch.Tensor) -> None:
    with torch.no_grad():
        setattr(module, name, torch.nn.Parameter(getattr(module, name)[keep].clone()))


class NoAttention(torch.nn.Module):
    """An attention block that was dropped: it adds nothing to the residual stream and holds no weights."""

    def forward(self, hidden_states: torch.Tensor, **_: object) -> tuple[torch.Tensor, None]:
        return torch.zeros_like(hidden_states), None


def prune_hidden(model: PhiForCausalLM, keep: torch.Tensor) -> None:
    """Width pruning: the kept hidden channels of the embedding, every norm and every projection's hidden side."""
    with torch.no_grad():
        model.model.embed_tokens.weight = torch.nn.Parameter(model.model.embed_tokens.weight[:, keep].clone())
    for norm in [model.model.final_layernorm, *(block.input_layernorm for block in model.model.layers)]:
        slice_vector(norm, 'weight', keep)
        slice_vector(norm, 'bias', keep)
        norm.normalized_shape = (len(keep),)
    for block in model.model.layers:
        attention = [] if isinstance(block.self_attn, NoAttention) else [block.self_attn]
        for linear in [*(part for module in attention for part in (module.q_proj, module.k_proj, module.v_proj)), block.mlp.fc1]:
            slice_linear(linear, keep, 'in')
        for linear in [*(module.dense for module in attention), block.mlp.fc2]:
            slice_linear(linear, keep, 'out')
    slice_linear(model.lm_head, keep, 'in')
    model.config.hidden_size = len(keep)


def prune(model: PhiForCausalLM, plan: Plan) -> PhiForCausalLM:
    """Slices the kept heads and channels out of every layer and drops the plan's layer (indices name base layers)."""
    pruned = copy.deepcopy(model)
    config = model.config
    head_dim = config.hidden_size // config.num_attention_heads
    kept_blocks = []
    for layer, block in enumerate(pruned.model.layers):
        if layer == plan.removed_layer:
            continue
        heads = [head for head in range(config.num_attention_heads) if head not in plan.heads[layer]]
        attention = block.self_attn
        if layer in plan.attention_dropped:
            block.self_attn = NoAttention()
        else:
            for name in ('q_proj', 'k_proj', 'v_proj'):
                slice_linear(getattr(attention, name), channels_of(heads, head_dim), 'out')
            slice_linear(attention.dense, channels_of(heads, head_dim), 'in')
        channels = torch.tensor([channel for channel in range(config.intermediate_size) if channel not in plan.channels[layer]])
        slice_linear(block.mlp.fc1, channels, 'out')
        slice_linear(block.mlp.fc2, channels, 'in')
        kept_blocks.append(block)
    pruned.model.layers = torch.nn.ModuleList(kept_blocks)
    pruned.config.num_hidden_layers = len(kept_blocks)
    if plan.hidden:
        prune_hidden(pruned, torch.tensor([channel for channel in range(config.hidden_size) if channel not in plan.hidden]))
    return pruned


def fine_tune(model: PhiForCausalLM, seed: int) -> None:
    """A few Adam steps of next-token loss on random tokens, then noise of NOISE x each weight's std."""
    torch.manual_seed(seed)
    model.train()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
    for _ in range(5):
        ids = torch.randint(0, VOCAB, (4, SEQ))
        loss = model(input_ids=ids, labels=ids, use_cache=False).loss
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    model.eval()
    with torch.no_grad():
        for parameter in model.parameters():
            if parameter.numel() > 1 and parameter.std() > 0:
                parameter.add_(torch.randn_like(parameter) * parameter.std() * NOISE)


def export(model: PhiForCausalLM, path: Path, external_data: bool) -> None:
    ids = torch.randint(0, VOCAB, (1, SEQ))
    torch.onnx.export(LogitsOnly(copy.deepcopy(model).half()).eval(), (ids,), str(path), dynamo=False, opset_version=17,
                      input_names=['input_ids'], output_names=['logits'],
                      dynamic_axes={'input_ids': {0: 'batch', 1: 'seq'}, 'logits': {0: 'batch', 1: 'seq'}})
    proto = onnx.load(str(path))
    if external_data:
        onnx.save(proto, str(path), save_as_external_data=True, all_tensors_to_one_file=True, location=path.name + '.data', size_threshold=1024)
    else:
        onnx.save(proto, str(path))


def kept_units(model: PhiForCausalLM, base: PhiForCausalLM, plan: Plan) -> list[dict]:
    """The truth, per remaining layer in order: its base layer and the base heads and channels it kept."""
    config = base.config
    head_dim = config.hidden_size // config.num_attention_heads
    layers = [layer for layer in range(config.num_hidden_layers) if layer != plan.removed_layer]
    truth = []
    for position, layer in enumerate(layers):
        block = model.model.layers[position]
        heads = [head for head in range(config.num_attention_heads) if head not in plan.heads[layer]]
        channels = [channel for channel in range(config.intermediate_size) if channel not in plan.channels[layer]]
        attention_heads = 0 if isinstance(block.self_attn, NoAttention) else block.self_attn.q_proj.out_features // head_dim
        assert attention_heads == len(heads) and block.mlp.fc1.out_features == len(channels)
        truth.append({'baseLayer': layer, 'heads': heads, 'ffnChannels': channels})
    return truth


def main() -> None:
    if OUT.exists():
        shutil.rmtree(OUT)
    OUT.mkdir(parents=True)
    base = build(1)
    export(base, OUT / 'base.onnx', external_data=True)
    base.to(torch.bfloat16).save_pretrained(OUT / 'base-hf', max_shard_size='250KB')
    (OUT / 'base-config.json').write_text((OUT / 'base-hf' / 'config.json').read_text())
    fixtures = {'base': {'onnx': 'base.onnx.gz', 'externalData': 'base.onnx.data', 'safetensors': 'base-hf', 'config': 'base-config.json',
                         'params': base.num_parameters()}}
    for seed, (name, plan) in enumerate(PLANS.items(), start=11):
        pruned = prune(base, plan)
        fine_tune(pruned, seed)
        export(pruned, OUT / f'{name}.onnx', external_data=False)
        kept_hidden = [channel for channel in range(HIDDEN) if channel not in plan.hidden]
        fixtures[name] = {'file': f'{name}.onnx.gz', 'derived': True, 'params': pruned.num_parameters(), 'removedLayers': [plan.removed_layer],
                          'hiddenChannels': kept_hidden, 'layers': kept_units(pruned, base, plan)}
    # Same shape as the pruned model, different weights: what an agent training from scratch would hand in.
    unrelated = prune(build(2), PLANS['pruned-finetuned'])
    fine_tune(unrelated, 2)
    export(unrelated, OUT / 'unrelated.onnx', external_data=False)
    fixtures['unrelated'] = {'file': 'unrelated.onnx.gz', 'derived': False, 'params': unrelated.num_parameters(), 'seed': 2}
    # Graph protos are mostly repeated names: gzip (mtime 0, reproducible) keeps them small; the tests unpack them.
    for path in OUT.glob('*.onnx'):
        with open(path, 'rb') as source, gzip.GzipFile(str(path) + '.gz', 'wb', compresslevel=9, mtime=0) as target:
            target.write(source.read())
        path.unlink()
    for path in OUT.rglob('*'):
        if path.is_file():
            path.chmod(0o644)  # torch and onnx write weights 0600
    shards = sorted(path.name for path in (OUT / 'base-hf').glob('*.safetensors'))
    total = sum(path.stat().st_size for path in OUT.rglob('*') if path.is_file())
    manifest = {
        'generator': 'scripts/edge/build_lineage_fixtures.py', 'torch': torch.__version__, 'onnx': onnx.__version__,
        'sizes': {'hidden': HIDDEN, 'heads': HEADS, 'headDim': HEAD_DIM, 'ffn': FFN, 'layers': LAYERS, 'vocab': VOCAB},
        'noiseOfStd': NOISE, 'safetensorsShards': shards, 'fixtures': fixtures,
        'totalBytes': total,
    }
    (OUT / 'manifest.json').write_text(json.dumps(manifest, indent=1) + '\n')
    print(f'{total / 1e6:.2f} MB, shards {shards}', file=sys.stderr)


def scale(out: Path, layers: int) -> None:
    """Phi-2's width (hidden 2560, 32 heads, FFN 10240, vocab 51200) at `layers` layers, for timing lineage: the base
    as a safetensors checkpoint (fp16) and as ONNX, a copy with 8 heads and 2,560 FFN channels per layer and layer 1
    removed, then noise of NOISE x std (no optimizer steps: they would take minutes at this width), and the truth."""
    out.mkdir(parents=True, exist_ok=True)
    base = build(1, hidden=2560, heads=32, ffn=10240, layers=layers, vocab=51200)
    draw = torch.Generator().manual_seed(5)
    plan = Plan(heads={layer: sorted(torch.randperm(32, generator=draw)[:8].tolist()) for layer in range(layers)},
                channels={layer: sorted(torch.randperm(10240, generator=draw)[:2560].tolist()) for layer in range(layers)}, removed_layer=1)
    pruned = prune(base, plan)
    with torch.no_grad():
        for parameter in pruned.parameters():
            if parameter.numel() > 1 and parameter.std() > 0:
                parameter.add_(torch.randn_like(parameter) * parameter.std() * NOISE)
    base.half().save_pretrained(out / 'base-hf')
    export(base, out / 'base.onnx', external_data=True)
    export(pruned, out / 'pruned.onnx', external_data=True)
    truth = {'removedLayers': [plan.removed_layer], 'layers': kept_units(pruned, base, plan)}
    (out / 'truth.json').write_text(json.dumps(truth) + '\n')


if __name__ == '__main__':
    if len(sys.argv) == 4 and sys.argv[1] == '--scale':
        scale(Path(sys.argv[2]), int(sys.argv[3]))  # --scale OUT_DIR LAYERS (about 1.2 GB per layer, base and pruned)
    else:
        main()
