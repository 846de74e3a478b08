"""Builds the check-pruning fixtures from real exporters, with the facts a test needs to judge them.

Small random Phi, Llama and GPT-2 models (seeded) are pruned in torch by slicing their weights (so the widths
in the exported graph are real), then exported by torch.onnx.export: TorchScript at opset 14 (optimum's default
for Phi; LayerNorm is decomposed there) and 17, and the dynamo exporter; for GPT-2 and Llama also the opset-14
export after ONNX Runtime's transformer optimizer (fused Skip*LayerNormalization). The manifest records, per fixture,
what this script removed or faked, transformers' num_parameters() before and after, and the verdict that
check-pruning must reach. The TS tests compare against these facts, never against the code under test.

Run: /work/pyenv/bin/python scripts/edge/build_pruning_fixtures.py   (writes test/fixtures/edge/pruning/)
"""
from __future__ import annotations

import copy
import gzip
import json
import os
import sys
import traceback
import warnings
from pathlib import Path

import onnx
import torch
from transformers import GPT2Config, GPT2LMHeadModel, LlamaConfig, LlamaForCausalLM, PhiConfig, PhiForCausalLM

OUT = Path(__file__).resolve().parents[2] / 'test' / 'fixtures' / 'edge' / 'pruning'
HIDDEN, HEADS, FFN, LAYERS, VOCAB = 16, 4, 32, 3, 48
HEAD_DIM = HIDDEN // HEADS
# Llama gets grouped-query attention (2 query heads per key/value head); Phi and GPT-2 have one per head.
KV_HEADS = {'phi': HEADS, 'llama': 2, 'gpt2': HEADS}
SEQ = 8

warnings.filterwarnings('ignore')


def build(arch: str) -> torch.nn.Module:
    torch.manual_seed({'phi': 1, 'llama': 2, 'gpt2': 3}[arch])
    if arch == 'phi':
        config = PhiConfig(vocab_size=VOCAB, hidden_size=HIDDEN, intermediate_size=FFN, num_hidden_layers=LAYERS,
                           num_attention_heads=HEADS, max_position_embeddings=16, partial_rotary_factor=0.5,
                           tie_word_embeddings=False)
        model = PhiForCausalLM(config)
    elif arch == 'llama':
        config = LlamaConfig(vocab_size=VOCAB, hidden_size=HIDDEN, intermediate_size=FFN, num_hidden_layers=LAYERS,
                             num_attention_heads=HEADS, num_key_value_heads=KV_HEADS['llama'], max_position_embeddings=16,
                             tie_word_embeddings=False)
        model = LlamaForCausalLM(config)
    else:
        config = GPT2Config(vocab_size=VOCAB, n_embd=HIDDEN, n_inner=FFN, n_layer=LAYERS, n_head=HEADS, n_positions=16,
                            tie_word_embeddings=True)
        model = GPT2LMHeadModel(config)
    config._attn_implementation = 'eager'
    model.base_layers = list(range(LAYERS))  # which base layer each remaining block is
    # Random init leaves LayerNorm at ones/zeros; perturbing them makes every parameter carry information.
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.add_(torch.randn_like(parameter) * 0.02)
    return model.eval()


def layers_of(model: torch.nn.Module) -> torch.nn.ModuleList:
    return model.transformer.h if hasattr(model, 'transformer') else model.model.layers


def slice_linear(linear: torch.nn.Linear, keep: torch.Tensor, side: str) -> None:
    """Keeps output rows (side 'out') or input columns (side 'in') of a PyTorch Linear ([out, in])."""
    with torch.no_grad():
        if side == 'out':
            linear.weight = torch.nn.Parameter(linear.weight[keep].clone())
            if linear.bias is not None:
                linear.bias = torch.nn.Parameter(linear.bias[keep].clone())
            linear.out_features = len(keep)
        else:
            linear.weight = torch.nn.Parameter(linear.weight[:, keep].clone())
            linear.in_features = len(keep)


def slice_conv1d(conv: torch.nn.Module, keep: torch.Tensor, side: str) -> None:
    """GPT-2's Conv1D stores [in, out]."""
    with torch.no_grad():
        if side == 'out':
            conv.weight = torch.nn.Parameter(conv.weight[:, keep].clone())
            conv.bias = torch.nn.Parameter(conv.bias[keep].clone())
            conv.nf = len(keep)
        else:
            conv.weight = torch.nn.Parameter(conv.weight[keep].clone())


def head_channels(heads: list[int]) -> torch.Tensor:
    return torch.tensor([head * HEAD_DIM + offset for head in heads for offset in range(HEAD_DIM)])


def whole_groups(arch: str, heads: list[int]) -> list[int]:
    """Query heads to remove, widened to whole groups where key/value heads are shared (removing part of a
    group would leave a head count the grouping cannot divide)."""
    group = HEADS // KV_HEADS[arch]
    return sorted({member for head in heads for member in range(head // group * group, head // group * group + group)})


def prune_heads(model: torch.nn.Module, arch: str, layer: int, removed: list[int]) -> None:
    kept = [head for head in range(HEADS) if head not in removed]
    channels = head_channels(kept)
    block = layers_of(model)[layer]
    if arch == 'gpt2':
        attention = block.attn
        fused = torch.cat([channels + part * HIDDEN for part in range(3)])
        slice_conv1d(attention.c_attn, fused, 'out')
        slice_conv1d(attention.c_proj, channels, 'in')
        attention.num_heads = len(kept)
        attention.split_size = len(kept) * HEAD_DIM
        return
    attention = block.self_attn
    group = HEADS // KV_HEADS[arch]
    kv_channels = head_channels(sorted({head // group for head in kept}))
    slice_linear(attention.q_proj, channels, 'out')
    for name in ('k_proj', 'v_proj'):
        slice_linear(getattr(attention, name), kv_channels, 'out')
    slice_linear(attention.dense if arch == 'phi' else attention.o_proj, channels, 'in')


def prune_ffn(model: torch.nn.Module, arch: str, layer: int, removed: list[int]) -> None:
    keep = torch.tensor([channel for channel in range(FFN) if channel not in removed])
    mlp = layers_of(model)[layer].mlp
    if arch == 'gpt2':
        slice_conv1d(mlp.c_fc, keep, 'out')
        slice_conv1d(mlp.c_proj, keep, 'in')
    elif arch == 'phi':
        slice_linear(mlp.fc1, keep, 'out')
        slice_linear(mlp.fc2, keep, 'in')
    else:
        slice_linear(mlp.gate_proj, keep, 'out')
        slice_linear(mlp.up_proj, keep, 'out')
        slice_linear(mlp.down_proj, keep, 'in')


def remove_layer(model: torch.nn.Module, arch: str, layer: int) -> None:
    """Removes base layer `layer` (indices always name base layers, whatever was removed before)."""
    position = model.base_layers.index(layer)
    model.base_layers = [index for index in model.base_layers if index != layer]
    kept = [block for index, block in enumerate(layers_of(model)) if index != position]
    if arch == 'gpt2':
        model.transformer.h = torch.nn.ModuleList(kept)
        model.config.n_layer = len(kept)
    else:
        model.model.layers = torch.nn.ModuleList(kept)
    model.config.num_hidden_layers = len(kept)


def fake_heads(model: torch.nn.Module, arch: str, layer: int, heads: list[int], scale: float) -> None:
    """Query rows of `heads` replaced by zeros (scale 0) or by noise of that scale: kept, so not pruned."""
    channels = head_channels(heads)
    block = layers_of(model)[layer]
    with torch.no_grad():
        if arch == 'gpt2':
            weight, bias = block.attn.c_attn.weight, block.attn.c_attn.bias
            weight[:, channels] = torch.randn(HIDDEN, len(channels)) * scale
            bias[channels] = 0
        else:
            q = block.self_attn.q_proj
            q.weight[channels] = torch.randn(len(channels), HIDDEN) * scale
            if q.bias is not None:
                q.bias[channels] = 0


class LogitsOnly(torch.nn.Module):
    def __init__(self, model: torch.nn.Module) -> None:
        super().__init__()
        self.model = model

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        # An explicit all-ones mask keeps transformers off its packed-sequence probe (torch.diff), which
        # TorchScript cannot export; the graph is the same causal model either way.
        return self.model(input_ids=input_ids, attention_mask=torch.ones_like(input_ids), use_cache=False).logits


def export(model: torch.nn.Module, path: Path, exporter: str) -> None:
    ids = torch.randint(0, VOCAB, (1, SEQ))
    wrapped = LogitsOnly(model).eval()
    if exporter == 'ort-fused':
        # ONNX Runtime's transformer optimizer over the opset-14 export: SkipLayerNormalization (GPT-2) or
        # SkipSimplifiedLayerNormalization (Llama) swallow the residual Adds and the norms.
        from onnxruntime.transformers.optimizer import optimize_model
        unfused = path.with_suffix('.unfused.onnx')
        export(model, unfused, 'torchscript-opset14')
        optimize_model(str(unfused), model_type='gpt2', num_heads=0, hidden_size=0, opt_level=1).save_model_to_file(str(path))
        unfused.unlink()
    elif exporter == 'dynamo':
        batch, seq = torch.export.Dim('batch'), torch.export.Dim('seq', max=16)
        program = torch.onnx.export(wrapped, (ids,), dynamo=True, input_names=['input_ids'], output_names=['logits'],
                                    dynamic_shapes={'input_ids': {0: batch, 1: seq}}, external_data=False)
        program.save(str(path), external_data=False)
    else:
        opset = int(exporter.removeprefix('torchscript-opset'))
        torch.onnx.export(wrapped, (ids,), str(path), dynamo=False, opset_version=opset, input_names=['input_ids'],
                          output_names=['logits'], dynamic_axes={'input_ids': {0: 'batch', 1: 'seq'}, 'logits': {0: 'batch', 1: 'seq'}})
    proto = onnx.load(str(path))
    # Dynamo records a stack trace per node; dropping it keeps the fixtures small and changes no computation.
    for node in proto.graph.node:
        node.doc_string = ''
        del node.metadata_props[:]
    proto.graph.doc_string = ''
    onnx.save(proto, str(path))  # one self-contained file whatever the exporter did


def add_unused_initializer(path: Path) -> str:
    proto = onnx.load(str(path))
    name = 'unused.extra_weight'
    proto.graph.initializer.append(onnx.numpy_helper.from_array((torch.randn(HIDDEN, FFN) * 0.02).numpy(), name))
    onnx.save(proto, str(path))
    return name


def quantize(path: Path, out: Path) -> None:
    from onnxruntime.quantization import QuantType, quantize_dynamic
    quantize_dynamic(str(path), str(out), weight_type=QuantType.QInt8, op_types_to_quantize=['MatMul', 'Gemm'])


# Structural variants: (name, mutate, facts). Heads/channels/layers index the base model.
VARIANTS = {
    'pruned-heads': lambda m, a: (prune_heads(m, a, 0, whole_groups(a, [1])), prune_heads(m, a, 2, whole_groups(a, [0, 3]))),
    'pruned-ffn': lambda m, a: prune_ffn(m, a, 1, list(range(0, FFN, 2))),
    'pruned-layer': lambda m, a: remove_layer(m, a, 1),
    'pruned-all': lambda m, a: (prune_heads(m, a, 0, whole_groups(a, [2])), prune_ffn(m, a, 2, list(range(8))), remove_layer(m, a, 1)),
    'fake-zero-heads': lambda m, a: fake_heads(m, a, 1, [2], 0.0),
    'fake-noise-heads': lambda m, a: fake_heads(m, a, 1, [0, 3], 1e-12),
}
VERDICTS = {
    'pruned-heads': {'verdict': 'pass'}, 'pruned-ffn': {'verdict': 'pass'}, 'pruned-layer': {'verdict': 'pass'}, 'pruned-all': {'verdict': 'pass'},
    'fake-zero-heads': {'verdict': 'fail', 'fakeHeads': {1: 1}},
    'fake-noise-heads': {'verdict': 'fail', 'fakeHeads': {1: 2}},
}


def widths(model: torch.nn.Module, arch: str) -> dict:
    """What each remaining base layer holds, read from the torch modules after pruning."""
    heads, kv_heads, ffn = {}, {}, {}
    for base_layer, block in zip(model.base_layers, layers_of(model)):
        if arch == 'gpt2':
            heads[base_layer] = kv_heads[base_layer] = block.attn.c_attn.weight.shape[1] // 3 // HEAD_DIM
            ffn[base_layer] = block.mlp.c_fc.weight.shape[1]
        else:
            heads[base_layer] = block.self_attn.q_proj.out_features // HEAD_DIM
            kv_heads[base_layer] = block.self_attn.k_proj.out_features // HEAD_DIM
            ffn[base_layer] = (block.mlp.fc1 if arch == 'phi' else block.mlp.up_proj).out_features
    removed = [index for index in range(LAYERS) if index not in model.base_layers]
    return {'heads': heads, 'kvHeads': kv_heads, 'ffn': ffn, 'removedLayers': removed}


# Every variant at every exporter would not fit the size budget: Phi at opset 14 (the case that failed) gets
# them all, the others the combined pruning, a fake and the exporter-specific cases.
PLAN = {
    'phi': {
        'torchscript-opset14': ['pruned-heads', 'pruned-ffn', 'pruned-layer', 'fake-zero-heads', 'fake-noise-heads',
                                'unused-initializer', 'quantized'],
        'torchscript-opset17': ['pruned-all'],
        'dynamo': ['pruned-all', 'reexport'],
    },
    'llama': {
        'torchscript-opset14': ['pruned-all', 'fake-noise-heads'],
        'dynamo': ['pruned-all', 'reexport'],
        'ort-fused': ['pruned-all'],
    },
    'gpt2': {
        'torchscript-opset14': ['pruned-all', 'unused-initializer', 'quantized'],
        'dynamo': ['pruned-all', 'fake-zero-heads'],
        'ort-fused': ['pruned-all', 'fake-noise-heads'],
    },
}


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for stale in [*OUT.glob('*.onnx'), *OUT.glob('*.onnx.gz')]:
        stale.unlink()
    manifest = {'generator': 'scripts/edge/build_pruning_fixtures.py', 'torch': torch.__version__, 'onnx': onnx.__version__,
                'sizes': {'hidden': HIDDEN, 'heads': HEADS, 'headDim': HEAD_DIM, 'ffn': FFN, 'layers': LAYERS, 'vocab': VOCAB},
                'fixtures': [], 'skipped': []}
    for arch in ('phi', 'llama', 'gpt2'):
        base_model = build(arch)
        base_params = base_model.num_parameters()
        for exporter, variants in PLAN[arch].items():
            base_file = f'{arch}-{exporter}-base.onnx'
            try:
                export(base_model, OUT / base_file, exporter)
            except Exception as error:  # noqa: BLE001 - an exporter that cannot export this arch is a recorded fact
                manifest['skipped'].append({'arch': arch, 'exporter': exporter, 'why': f'{type(error).__name__}: {str(error)[:300]}'})
                traceback.print_exc(limit=2)
                continue
            common = {'arch': arch, 'exporter': exporter, 'base': base_file, 'baseParams': base_params, 'baseKvHeads': KV_HEADS[arch]}
            unpruned = {'params': base_params, **widths(base_model, arch), 'verdict': 'fail'}
            manifest['fixtures'].append({**common, 'variant': 'base', 'file': base_file, **unpruned, 'why': 'compared with itself: nothing removed'})
            for variant in variants:
                file = f'{arch}-{exporter}-{variant}.onnx'
                entry = {**common, 'variant': variant, 'file': file}
                if variant in VARIANTS:
                    model = copy.deepcopy(base_model)
                    model.base_layers = list(base_model.base_layers)
                    VARIANTS[variant](model, arch)
                    export(model, OUT / file, exporter)
                    entry.update(VERDICTS[variant], params=model.num_parameters(), **widths(model, arch))
                elif variant == 'unused-initializer':
                    export(base_model, OUT / file, exporter)
                    entry.update(unused=add_unused_initializer(OUT / file), **unpruned)
                elif variant == 'reexport':
                    if f'{arch}-torchscript-opset14-base.onnx' not in {fixture['file'] for fixture in manifest['fixtures']}:
                        continue
                    # The dynamo twin is compared with the TorchScript opset-14 base: the same weights, nothing pruned.
                    entry.update(base=f'{arch}-torchscript-opset14-base.onnx', file=base_file, **unpruned)
                elif variant == 'quantized':
                    quantize(OUT / base_file, OUT / file)
                    entry.update(**unpruned, quantized=True)
                manifest['fixtures'].append(entry)
    # Graph protos are mostly repeated names: gzip keeps the fixtures small; the tests unpack them to a temp dir.
    for path in OUT.glob('*.onnx'):
        with open(path, 'rb') as source, gzip.GzipFile(str(path) + '.gz', 'wb', compresslevel=9, mtime=0) as target:
            target.write(source.read())
        path.unlink()
    for entry in manifest['fixtures']:
        entry['file'] += '.gz'
        entry['base'] += '.gz'
    total = sum(path.stat().st_size for path in OUT.glob('*.onnx.gz'))
    manifest['totalBytes'] = total
    (OUT / 'manifest.json').write_text(json.dumps(manifest, indent=1) + '\n')
    print(f'{len(manifest["fixtures"])} fixtures, {total / 1e6:.2f} MB, skipped: {manifest["skipped"]}', file=sys.stderr)


if __name__ == '__main__':
    main()
