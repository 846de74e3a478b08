"""Builds lineage fixtures for transforms that keep a model derived from its base (test/fixtures/edge/lineage-transforms/):

  slicegpt          SliceGPT (Ashkboos et al., ICLR 2024) applied to the lineage base (build_lineage_fixtures.py): each
                    LayerNorm folded into the projections that read it, the residual stream centred, every layer's input
                    rotated by its own orthogonal basis (the principal directions of that input on calibration tokens),
                    the residual carried from one basis to the next by a shortcut matrix, then the least-variance 25 % of
                    the hidden dimensions sliced off (hidden 64 -> 48), and fine-tuning noise (5 % of each weight's std).
  shared-layer      the base with layer 1 replaced by layer 0's module: the export reads layer 0's tensors twice.
  shared-layer-copy the base with layer 1 replaced by a copy of layer 0, fine-tuned apart (noise of 1 % of each weight's
                    std): its own tensors, close to layer 0's.
  tied-head         the base with its LM head tied to the token embedding.
  rotated-unrelated an unrelated model (another seed, the base's shape) put through the same SliceGPT transform: rotation
                    must not make an unrelated model pass for a derived one.

The transform is written here from the paper's description; with no slicing it reproduces the base's logits (checked
below, to 1e-4), so the rotation itself is exact. The manifest records, per fixture, which base layer each layer came
from and whether it derives from the base.

Run: /work/pyenv/bin/python scripts/edge/build_lineage_transform_fixtures.py   (writes test/fixtures/edge/lineage-transforms/)
"""
from __future__ import annotations

import copy
import gzip
import json
import sys
from pathlib import Path

import onnx
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from build_lineage_fixtures import HIDDEN, LAYERS, NOISE, SEQ, VOCAB, build  # noqa: E402

OUT = Path(__file__).resolve().parents[2] / 'test' / 'fixtures' / 'edge' / 'lineage-transforms'
KEPT = 48  # SliceGPT at 25 % sparsity: 64 -> 48 hidden dimensions
CALIBRATION_BATCHES = 16


def rms_normalize(x: torch.Tensor, width: int, eps: float) -> torch.Tensor:
    """LayerNorm of a centred stream without its affine part: x / sqrt(|x|^2 / width + eps), width the base's hidden size."""
    return x / torch.sqrt(x.pow(2).sum(-1, keepdim=True) / width + eps)


class SlicedPhi(torch.nn.Module):
    """A Phi whose layers read and write rotated (and sliced) bases, joined by shortcut matrices on the residual."""

    def __init__(self, base, rotations: list[torch.Tensor], kept: int) -> None:
        super().__init__()
        config = base.config
        self.width, self.eps = config.hidden_size, config.layer_norm_eps
        bases = [rotation[:, :kept] for rotation in rotations]  # columns: the kept principal directions, largest first
        centre = torch.eye(config.hidden_size) - 1.0 / config.hidden_size
        model = copy.deepcopy(base).float()
        with torch.no_grad():
            self.embed = torch.nn.Parameter((model.model.embed_tokens.weight @ centre) @ bases[0])
            self.rotary = model.model.rotary_emb
            self.attention = torch.nn.ModuleList()
            self.mlp = torch.nn.ModuleList()
            self.shortcut = torch.nn.ParameterList()
            for layer, block in enumerate(model.model.layers):
                norm = block.input_layernorm
                for linear in (block.self_attn.q_proj, block.self_attn.k_proj, block.self_attn.v_proj, block.mlp.fc1):
                    folded = linear.weight * norm.weight  # the LayerNorm's scale, folded in
                    linear.bias = torch.nn.Parameter(linear.bias + linear.weight @ norm.bias)
                    linear.weight = torch.nn.Parameter(folded @ bases[layer])
                    linear.in_features = kept
                for linear in (block.self_attn.dense, block.mlp.fc2):
                    linear.weight = torch.nn.Parameter(bases[layer + 1].T @ (centre @ linear.weight))
                    linear.bias = torch.nn.Parameter(bases[layer + 1].T @ (centre @ linear.bias))
                    linear.out_features = kept
                self.attention.append(block.self_attn)
                self.mlp.append(block.mlp)
                self.shortcut.append(torch.nn.Parameter(bases[layer].T @ bases[layer + 1]))
            final, head = model.model.final_layernorm, model.lm_head
            self.head = torch.nn.Linear(kept, head.out_features)
            self.head.weight = torch.nn.Parameter((head.weight * final.weight) @ bases[-1])
            self.head.bias = torch.nn.Parameter(head.bias + head.weight @ final.bias)

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        x = self.embed[input_ids]
        length = input_ids.shape[1]
        positions = torch.arange(length, device=input_ids.device).unsqueeze(0)
        rotary = self.rotary(x, positions)
        mask = torch.full((length, length), float('-inf'), dtype=x.dtype).triu(1)[None, None]
        for attention, mlp, shortcut in zip(self.attention, self.mlp, self.shortcut):
            h = rms_normalize(x, self.width, self.eps)
            attended, _ = attention(h, rotary, mask)
            x = attended + mlp(h) + x @ shortcut  # as SliceGPT's Phi layer: the block's outputs plus the rotated residual
        return self.head(rms_normalize(x, self.width, self.eps))


def residual_bases(model, hidden: int) -> list[torch.Tensor]:
    """Each layer's input (and the final norm's input) on calibration tokens, centred; its principal directions."""
    captured: list[list[torch.Tensor]] = [[] for _ in range(LAYERS + 1)]
    hooks = [block.register_forward_pre_hook(lambda _module, args, index=index: captured[index].append(args[0].detach()))
             for index, block in enumerate(model.model.layers)]
    hooks.append(model.model.final_layernorm.register_forward_pre_hook(lambda _module, args: captured[LAYERS].append(args[0].detach())))
    generator = torch.Generator().manual_seed(3)
    with torch.no_grad():
        for _ in range(CALIBRATION_BATCHES):
            model(input_ids=torch.randint(0, VOCAB, (4, 32), generator=generator), use_cache=False)
    for hook in hooks:
        hook.remove()
    rotations = []
    for inputs in captured:
        stream = torch.cat([batch.reshape(-1, hidden) for batch in inputs]).double()
        stream = stream - stream.mean(-1, keepdim=True)
        _, vectors = torch.linalg.eigh(stream.T @ stream)
        rotations.append(vectors.flip(-1).float())  # largest eigenvalue first
    return rotations


def slicegpt(base, kept: int, noise_seed: int | None) -> SlicedPhi:
    sliced = SlicedPhi(base, residual_bases(base.float(), HIDDEN), kept).eval()
    if noise_seed is not None:
        torch.manual_seed(noise_seed)
        with torch.no_grad():
            for parameter in sliced.parameters():
                if parameter.numel() > 1 and parameter.std() > 0:
                    parameter.add_(torch.randn_like(parameter) * parameter.std() * NOISE)
    return sliced


class Logits(torch.nn.Module):
    def __init__(self, model: torch.nn.Module, hf: bool) -> None:
        super().__init__()
        self.model, self.hf = model, hf

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        if not self.hf:
            return self.model(input_ids)
        return self.model(input_ids=input_ids, attention_mask=torch.ones_like(input_ids), use_cache=False).logits


def export(model: torch.nn.Module, path: Path, hf: bool) -> None:
    ids = torch.randint(0, VOCAB, (1, SEQ))
    torch.onnx.export(Logits(copy.deepcopy(model).half(), hf).eval(), (ids,), str(path), dynamo=False, opset_version=17,
                      input_names=['input_ids'], output_names=['logits'],
                      dynamic_axes={'input_ids': {0: 'batch', 1: 'seq'}, 'logits': {0: 'batch', 1: 'seq'}})
    proto = onnx.load(str(path))
    for node in proto.graph.node:
        node.doc_string = ''
    onnx.save(proto, str(path))
    with open(path, 'rb') as source, gzip.GzipFile(str(path) + '.gz', 'wb', compresslevel=9, mtime=0) as target:
        target.write(source.read())
    path.unlink()


def logits_gap(base, other: torch.nn.Module) -> float:
    ids = torch.randint(0, VOCAB, (2, SEQ), generator=torch.Generator().manual_seed(9))
    with torch.no_grad():
        reference = base.float()(input_ids=ids, use_cache=False).logits
        return float((other(ids) - reference).abs().max() / reference.abs().max())


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for stale in OUT.glob('*.onnx.gz'):
        stale.unlink()
    base = build(1)
    exact = logits_gap(base, SlicedPhi(base, residual_bases(base.float(), HIDDEN), HIDDEN).eval())
    assert exact < 1e-4, f'the unsliced rotation changed the logits by {exact}'
    fixtures: dict = {}
    sliced = slicegpt(base, KEPT, noise_seed=21)
    export(sliced, OUT / 'slicegpt.onnx', hf=False)
    fixtures['slicegpt'] = {'file': 'slicegpt.onnx.gz', 'derived': True, 'hidden': KEPT, 'baseLayers': list(range(LAYERS)),
                            'rotationLogitsGap': exact, 'slicedLogitsGap': logits_gap(base, sliced)}
    shared = copy.deepcopy(base)
    shared.model.layers[1] = shared.model.layers[0]
    export(shared, OUT / 'shared-layer.onnx', hf=True)
    fixtures['shared-layer'] = {'file': 'shared-layer.onnx.gz', 'derived': True, 'baseLayers': [0, 0, 2, 3]}
    copied = copy.deepcopy(base)
    copied.model.layers[1] = copy.deepcopy(copied.model.layers[0])
    torch.manual_seed(23)
    with torch.no_grad():  # (identical values would be one initializer again: the exporter deduplicates them)
        for parameter in copied.model.layers[1].parameters():
            parameter.add_(torch.randn_like(parameter) * parameter.std() * 0.01)
    export(copied, OUT / 'shared-layer-copy.onnx', hf=True)
    fixtures['shared-layer-copy'] = {'file': 'shared-layer-copy.onnx.gz', 'derived': True, 'baseLayers': [0, 0, 2, 3]}
    tied = copy.deepcopy(base)
    tied.lm_head.weight = tied.model.embed_tokens.weight
    export(tied, OUT / 'tied-head.onnx', hf=True)
    fixtures['tied-head'] = {'file': 'tied-head.onnx.gz', 'derived': True, 'baseLayers': list(range(LAYERS))}
    unrelated = slicegpt(build(2), KEPT, noise_seed=None)
    export(unrelated, OUT / 'rotated-unrelated.onnx', hf=False)
    fixtures['rotated-unrelated'] = {'file': 'rotated-unrelated.onnx.gz', 'derived': False, 'seed': 2}
    for path in OUT.glob('*'):
        path.chmod(0o644)
    manifest = {'generator': 'scripts/edge/build_lineage_transform_fixtures.py', 'torch': torch.__version__, 'onnx': onnx.__version__,
                'base': '../lineage/base.onnx.gz (with ../lineage/base.onnx.data)', 'noiseOfStd': NOISE, 'fixtures': fixtures}
    (OUT / 'manifest.json').write_text(json.dumps(manifest, indent=1) + '\n')
    print(json.dumps(fixtures, indent=1), file=sys.stderr)


if __name__ == '__main__':
    main()
