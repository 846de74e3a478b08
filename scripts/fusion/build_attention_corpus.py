"""Builds the attention-fusion corpus: small real exports of GPT-2, Llama and Phi, with transformers' logliks.

The CPU fusion (native/graph/cpu_fusion.cc) must recognise attention as real exporters write it, not only as
the hand-built test graphs do. Each architecture is a seeded random model from transformers (GPT-2 with its
Conv1D layout, Llama with grouped-query attention and rotary embeddings, Phi with partial rotary), exported by
torch.onnx.export in the ways users export them:

  torchscript-sdpa-opset14 / -opset18   attn_implementation 'sdpa' (the default), TorchScript exporter
  torchscript-eager-opset14 / -opset17  attn_implementation 'eager'
  dynamo                                the dynamo exporter (sdpa)

each without past (input_ids, attention_mask -> logits) and with past in optimum's convention
(past_key_values.{i}.key/value in, present.{i}.key/value out; see scripts/gpu/export_llama.py). The manifest
lists fixed requests (context and continuation token ids; some rows share a 36-token prefix so a with-past
graph's prefix reuse runs attention with keys = past + queries) and the log-likelihood and greedy flag of
each from the transformers model in float64, so the tests need no Python.

Run: /work/pyenv/bin/python scripts/fusion/build_attention_corpus.py   (writes test/fixtures/fusion/)
"""
from __future__ import annotations

import gzip
import json
import shutil
import sys
import tempfile
import traceback
import warnings
from pathlib import Path

import onnx
import torch
from transformers import GPT2Config, GPT2LMHeadModel, LlamaConfig, LlamaForCausalLM, PhiConfig, PhiForCausalLM

REPO = Path(__file__).resolve().parents[2]
# optimum's signatures, without and with past, as mlrb-eval's own export script defines them: one definition.
sys.path.insert(0, str(REPO / 'scripts' / 'gpu'))
from export_llama import LogitsOnly, LogitsWithPast, past_names  # noqa: E402

OUT = REPO / 'test' / 'fixtures' / 'fusion'
HIDDEN, HEADS, FFN, LAYERS, VOCAB, POSITIONS = 32, 4, 64, 2, 64, 64
KV_HEADS = {'gpt2': HEADS, 'llama': 2, 'phi': HEADS}
EXPORTS = {
    'torchscript-sdpa-opset14': ('sdpa', 14),
    'torchscript-sdpa-opset18': ('sdpa', 18),
    'torchscript-eager-opset14': ('eager', 14),
    'torchscript-eager-opset17': ('eager', 17),
    'dynamo': ('sdpa', None),  # the exporter picks its opset (20 with torch 2.13); the manifest records it
}
PAST_TRACE_LENGTH = 3  # not 0 or 1: tracing may specialise those sizes away

warnings.filterwarnings('ignore')


def build(arch: str, attention: str) -> torch.nn.Module:
    """The same weights whatever the attention implementation: the seed depends on the architecture only."""
    torch.manual_seed({'gpt2': 11, 'llama': 12, 'phi': 13}[arch])
    if arch == 'gpt2':
        config = GPT2Config(vocab_size=VOCAB, n_embd=HIDDEN, n_inner=FFN, n_layer=LAYERS, n_head=HEADS, n_positions=POSITIONS,
                            bos_token_id=0, eos_token_id=0)
        model = GPT2LMHeadModel(config)
    elif arch == 'llama':
        config = LlamaConfig(vocab_size=VOCAB, hidden_size=HIDDEN, intermediate_size=FFN, num_hidden_layers=LAYERS,
                             num_attention_heads=HEADS, num_key_value_heads=KV_HEADS['llama'], max_position_embeddings=POSITIONS,
                             tie_word_embeddings=False)
        model = LlamaForCausalLM(config)
    else:
        config = PhiConfig(vocab_size=VOCAB, hidden_size=HIDDEN, intermediate_size=FFN, num_hidden_layers=LAYERS,
                           num_attention_heads=HEADS, max_position_embeddings=POSITIONS, partial_rotary_factor=0.5,
                           tie_word_embeddings=False)
        model = PhiForCausalLM(config)
    # Random init is small (std 0.02): scaled up, attention weights are far from uniform, so a wrong mask,
    # scale or rotation moves the logliks well past the tests' tolerance.
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.add_(torch.randn_like(parameter) * (0.3 if parameter.dim() > 1 else 0.05))
            # Values a float16 can hold: the float32 graphs compute the same, and their low mantissa bytes
            # are zeros that gzip packs, so the fixtures take a third less space.
            parameter.copy_(parameter.half().float())
    model.config._attn_implementation = attention
    return model.eval()


def trace_inputs(arch: str, with_past: bool) -> tuple[tuple[torch.Tensor, ...], list[str], list[str]]:
    """Batch 2, 8 tokens, the second row right-padded, so the mask is traced as data."""
    generator = torch.Generator().manual_seed(5)
    ids = torch.randint(3, VOCAB, (2, 8), generator=generator)
    mask = torch.ones_like(ids)
    mask[1, 5:] = 0
    if not with_past:
        return (ids, mask), ['input_ids', 'attention_mask'], ['logits']
    past_in, present_out = past_names(LAYERS)
    head_dim = HIDDEN // HEADS
    past = tuple(torch.randn(2, KV_HEADS[arch], PAST_TRACE_LENGTH, head_dim, generator=generator) for _ in past_in)
    mask = torch.cat([torch.ones(2, PAST_TRACE_LENGTH, dtype=torch.int64), mask], dim=1)
    return (ids, mask, *past), ['input_ids', 'attention_mask', *past_in], ['logits', *present_out]


def export(model: torch.nn.Module, arch: str, exporter: str, with_past: bool, path: Path) -> int:
    """Writes the graph to `path`; returns its default-domain opset."""
    args, input_names, output_names = trace_inputs(arch, with_past)
    module = (LogitsWithPast if with_past else LogitsOnly)(model).eval()
    past_in, present_out = past_names(LAYERS)
    with torch.no_grad():
        if exporter == 'dynamo':
            batch, sequence = torch.export.Dim('batch_size', max=64), torch.export.Dim('sequence_length', max=POSITIONS)
            dynamic: dict = {'input_ids': {0: batch, 1: sequence}}
            if with_past:
                past = torch.export.Dim('past_sequence_length', max=POSITIONS)
                # The mask spans past + sequence; torch.export cannot add two Dims, so it gets its own.
                dynamic['attention_mask'] = {0: batch, 1: torch.export.Dim('total_sequence_length', max=2 * POSITIONS)}
                dynamic['past'] = tuple({0: batch, 2: past} for _ in past_in)
            else:
                dynamic['attention_mask'] = {0: batch, 1: sequence}
            program = torch.onnx.export(module, args, dynamo=True, input_names=input_names, output_names=output_names,
                                        dynamic_shapes=dynamic, external_data=False)
            program.save(str(path), external_data=False)
        else:
            total = 'past_sequence_length + sequence_length'
            axes = {'input_ids': {0: 'batch_size', 1: 'sequence_length'},
                    'attention_mask': {0: 'batch_size', 1: total if with_past else 'sequence_length'},
                    'logits': {0: 'batch_size', 1: 'sequence_length'}}
            if with_past:
                axes.update({name: {0: 'batch_size', 2: 'past_sequence_length'} for name in past_in})
                axes.update({name: {0: 'batch_size', 2: total} for name in present_out})
            torch.onnx.export(module, args, str(path), dynamo=False, opset_version=EXPORTS[exporter][1], input_names=input_names,
                              output_names=output_names, dynamic_axes=axes, do_constant_folding=True)
    proto = onnx.load(str(path))
    # Dynamo records a stack trace per node; dropping it keeps the fixtures small and changes no computation.
    for node in proto.graph.node:
        node.doc_string = ''
        del node.metadata_props[:]
    proto.graph.doc_string = ''
    onnx.save(proto, str(path))  # one self-contained file whatever the exporter did
    return next(entry.version for entry in proto.opset_import if entry.domain in ('', 'ai.onnx'))


def requests() -> list[dict]:
    """Rows of varied lengths (so batches pad), and four rows sharing a 36-token prefix: mlrb-eval runs a shared
    prefix of 32 tokens or more once and continues it with the past, so with-past graphs see past > 0."""
    generator = torch.Generator().manual_seed(2024)

    def tokens(count: int) -> list[int]:
        return torch.randint(3, VOCAB, (count,), generator=generator).tolist()

    rows = [{'context': tokens(length), 'continuation': tokens(continuation)}
            for length, continuation in ((1, 1), (5, 2), (12, 3), (20, 1), (27, 4), (41, 2), (9, 1), (3, 3))]
    prefix = tokens(36)
    rows += [{'context': prefix + tokens(extra), 'continuation': tokens(continuation)} for extra, continuation in ((0, 2), (3, 1), (7, 3), (1, 1))]
    return rows


def reference_scores(model: torch.nn.Module, rows: list[dict]) -> list[dict]:
    """lm-eval's loglikelihood per row, from the float64 transformers model run on the row alone."""
    model = model.double()
    scores = []
    with torch.no_grad():
        for row in rows:
            ids = torch.tensor([row['context'] + row['continuation']])
            logits = model(input_ids=ids, attention_mask=torch.ones_like(ids), use_cache=False).logits[0]
            first = len(row['context'])
            predicted = torch.log_softmax(logits[first - 1:-1], dim=-1)
            continuation = torch.tensor(row['continuation'])
            loglik = predicted.gather(1, continuation[:, None]).sum().item()
            greedy = bool((predicted.argmax(-1) == continuation).all())
            scores.append({'loglik': loglik, 'isGreedy': greedy})
    model.float()
    return scores


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for stale in OUT.glob('*.onnx.gz'):
        stale.unlink()
    rows = requests()
    manifest = {'generator': 'scripts/fusion/build_attention_corpus.py', 'torch': torch.__version__, 'onnx': onnx.__version__,
                'sizes': {'hidden': HIDDEN, 'heads': HEADS, 'ffn': FFN, 'layers': LAYERS, 'vocab': VOCAB, 'positions': POSITIONS},
                'kvHeads': KV_HEADS, 'requests': rows, 'reference': {}, 'models': [], 'skipped': []}
    scratch = Path(tempfile.mkdtemp(prefix='fusion-corpus-'))
    try:
        for arch in ('gpt2', 'llama', 'phi'):
            manifest['reference'][arch] = reference_scores(build(arch, 'eager'), rows)
            for exporter, (attention, _) in EXPORTS.items():
                model = build(arch, attention)
                for with_past in (False, True):
                    file = f'{arch}-{exporter}-{"past" if with_past else "nopast"}.onnx'
                    try:
                        opset = export(model, arch, exporter, with_past, scratch / file)
                    except Exception as error:  # noqa: BLE001 - an exporter that cannot export this is a recorded fact
                        manifest['skipped'].append({'arch': arch, 'exporter': exporter, 'withPast': with_past,
                                                    'why': f'{type(error).__name__}: {str(error)[:300]}'})
                        traceback.print_exc(limit=3)
                        continue
                    # mtime 0: the same export gives the same bytes, so a rebuild changes only what changed
                    with open(OUT / f'{file}.gz', 'wb') as target, gzip.GzipFile(fileobj=target, mode='wb', compresslevel=9, mtime=0) as packed:
                        packed.write((scratch / file).read_bytes())
                    manifest['models'].append({'file': f'{file}.gz', 'arch': arch, 'exporter': exporter, 'attention': attention,
                                               'opset': opset, 'withPast': with_past})
                    print(f'{file}: {(OUT / f"{file}.gz").stat().st_size // 1024} KiB')
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    (OUT / 'manifest.json').write_text(json.dumps(manifest, indent=1) + '\n')


if __name__ == '__main__':
    main()
