"""Records transformers' greedy generations for small random-weight causal LMs, and exports those models to ONNX.

The generation engine (native/ort/generation_session.h) must produce, token for token, what transformers'
`generate(do_sample=False)` produces. This script builds two seeded random models in float32 (GPT-2 with its
absolute positions, Llama with grouped-query attention and rotary embeddings; 2 layers, a 512-id vocabulary so
the stories260K tokenizer can decode their ids), exports each with torch.onnx.export (TorchScript, opset 17,
eager attention) three ways:

  nopast           input_ids, attention_mask -> logits                         (the engine recomputes each step)
  past             input_ids, attention_mask, position_ids, past_key_values.{i}.key/value
                   -> logits, present.{i}.key/value                            (optimum's with-past signature)
  past-nopositions as past without position_ids: the graph numbers new tokens from its cache length

and records, for prompts of several lengths (batch 1 each, as transformers runs them):
  greedy     generate(do_sample=False, max_new_tokens=MAX_NEW) with no EOS: the ids, and the smallest gap between
             the best and second-best logit along the way (how far the comparison is from a tie)
  eos        the same with an EOS id that the greedy run of one prompt produces part-way, so that prompt stops
  firstLogits  the float32 logits of the first generated position of prompt 0, for the sampling tests

Run: /work/pyenv/bin/python scripts/generate/record_greedy_expectations.py   (writes test/fixtures/generate/)
"""
from __future__ import annotations

import json
import shutil
import sys
import warnings
from pathlib import Path

import onnx
import torch
from transformers import GPT2Config, GPT2LMHeadModel, LlamaConfig, LlamaForCausalLM

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / 'scripts' / 'gpu'))
from export_llama import LogitsOnly, LogitsWithPast, past_names  # noqa: E402

OUT = REPO / 'test' / 'fixtures' / 'generate'
# The stories260K tokenizer (512 ids, MIT, see its LICENSE) decodes the fixtures' ids in the stop-string tests.
TOKENIZER_SOURCE = REPO.parent / 'shared' / 'models' / 'stories260K'
HIDDEN, HEADS, FFN, LAYERS, VOCAB, POSITIONS = 32, 4, 64, 2, 512, 128
KV_HEADS = {'gpt2': HEADS, 'llama': 2}
MAX_NEW = 16
PROMPT_LENGTHS = [1, 4, 9, 17, 6, 2]
PAST_TRACE_LENGTH = 3  # not 0 or 1: tracing may specialise those sizes away

warnings.filterwarnings('ignore')


def build(arch: str) -> torch.nn.Module:
    torch.manual_seed({'gpt2': 21, 'llama': 22}[arch])
    if arch == 'gpt2':
        config = GPT2Config(vocab_size=VOCAB, n_embd=HIDDEN, n_inner=FFN, n_layer=LAYERS, n_head=HEADS, n_positions=POSITIONS,
                            bos_token_id=1, eos_token_id=2)
        model = GPT2LMHeadModel(config)
    else:
        config = LlamaConfig(vocab_size=VOCAB, hidden_size=HIDDEN, intermediate_size=FFN, num_hidden_layers=LAYERS,
                             num_attention_heads=HEADS, num_key_value_heads=KV_HEADS['llama'], max_position_embeddings=POSITIONS,
                             tie_word_embeddings=False, bos_token_id=1, eos_token_id=2)
        model = LlamaForCausalLM(config)
    # Scaled-up random weights: logits spread widely, so greedy choices are far from ties and the comparison
    # tests the engine, not float rounding.
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.add_(torch.randn_like(parameter) * (0.3 if parameter.dim() > 1 else 0.05))
    model.config._attn_implementation = 'eager'
    return model.eval()


class LogitsWithPastAndPositions(LogitsWithPast):
    """optimum's with-past signature with explicit position_ids, so left-padded rows number their tokens from 0."""

    def forward(self, input_ids, attention_mask, position_ids, *past):
        from transformers import DynamicCache

        cache = DynamicCache()
        for i in range(self.n_layers):
            cache.update(past[2 * i], past[2 * i + 1], i)
        out = self.model(input_ids=input_ids, attention_mask=attention_mask, position_ids=position_ids, past_key_values=cache,
                         use_cache=True)
        presents = []
        for layer in out.past_key_values.layers:
            presents += [layer.keys, layer.values]
        return (out.logits, *presents)


def export(model: torch.nn.Module, arch: str, variant: str, path: Path) -> None:
    generator = torch.Generator().manual_seed(5)
    ids = torch.randint(3, VOCAB, (2, 8), generator=generator)
    mask = torch.ones_like(ids)
    mask[1, :3] = 0
    past_in, present_out = past_names(LAYERS)
    total = 'past_sequence_length + sequence_length'
    axes = {'input_ids': {0: 'batch_size', 1: 'sequence_length'}, 'logits': {0: 'batch_size', 1: 'sequence_length'}}
    if variant == 'nopast':
        module, args, names, outputs = LogitsOnly(model), (ids, mask), ['input_ids', 'attention_mask'], ['logits']
        axes['attention_mask'] = {0: 'batch_size', 1: 'sequence_length'}
    else:
        head_dim = HIDDEN // HEADS
        past = tuple(torch.randn(2, KV_HEADS[arch], PAST_TRACE_LENGTH, head_dim, generator=generator) for _ in past_in)
        mask = torch.cat([torch.ones(2, PAST_TRACE_LENGTH, dtype=torch.int64), mask], dim=1)
        axes['attention_mask'] = {0: 'batch_size', 1: total}
        axes.update({name: {0: 'batch_size', 2: 'past_sequence_length'} for name in past_in})
        axes.update({name: {0: 'batch_size', 2: total} for name in present_out})
        outputs = ['logits', *present_out]
        if variant == 'past':
            positions = (torch.arange(8) + PAST_TRACE_LENGTH).repeat(2, 1)
            module, args = LogitsWithPastAndPositions(model), (ids, mask, positions, *past)
            names = ['input_ids', 'attention_mask', 'position_ids', *past_in]
            axes['position_ids'] = {0: 'batch_size', 1: 'sequence_length'}
        else:
            module, args, names = LogitsWithPast(model), (ids, mask, *past), ['input_ids', 'attention_mask', *past_in]
    with torch.no_grad():
        torch.onnx.export(module.eval(), args, str(path), dynamo=False, opset_version=17, input_names=names, output_names=outputs,
                          dynamic_axes=axes, do_constant_folding=True)
    proto = onnx.load(str(path))
    for node in proto.graph.node:
        node.doc_string = ''
    onnx.save(proto, str(path))


def greedy(model: torch.nn.Module, prompt: list[int], eos: int | None) -> tuple[list[int], float]:
    """transformers' greedy ids (the prompt cut off), and the smallest top-1 / top-2 logit gap on the way."""
    model.generation_config.eos_token_id = eos
    model.generation_config.pad_token_id = 0
    with torch.no_grad():
        out = model.generate(torch.tensor([prompt]), attention_mask=torch.ones(1, len(prompt), dtype=torch.int64), do_sample=False,
                             max_new_tokens=MAX_NEW, output_scores=True, return_dict_in_generate=True, eos_token_id=eos)
    ids = out.sequences[0, len(prompt):].tolist()
    gaps = [float((s[0].topk(2).values[0] - s[0].topk(2).values[1]).item()) for s in out.scores]
    return ids, min(gaps)


def first_logits(model: torch.nn.Module, prompt: list[int]) -> list[float]:
    with torch.no_grad():
        logits = model(input_ids=torch.tensor([prompt])).logits[0, -1]
    return [float(x) for x in logits]


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    generator = torch.Generator().manual_seed(7)
    prompts = [torch.randint(3, VOCAB, (n,), generator=generator).tolist() for n in PROMPT_LENGTHS]
    manifest: dict = {'maxNewTokens': MAX_NEW, 'prompts': prompts, 'models': {}}
    for arch in ('gpt2', 'llama'):
        model = build(arch)
        # transformers' runs first, on the model as built: tracing for export leaves state behind on the module
        # (seen with GPT-2 small: generate() after an export gave other ids than before it).
        runs = [greedy(model, prompt, None) for prompt in prompts]
        # EOS: the 4th token of the longest prompt's run (a token that is not also earlier in that run), so one
        # prompt provably stops part-way; other prompts stop wherever they produce it too.
        longest = max(range(len(prompts)), key=lambda i: len(prompts[i]))
        candidates = [t for k, t in enumerate(runs[longest][0]) if k >= 3 and t not in runs[longest][0][:k]]
        eos = candidates[0]
        eos_runs = [greedy(model, prompt, eos)[0] for prompt in prompts]
        manifest['models'][arch] = {
            'kvHeads': KV_HEADS[arch],
            'headDim': HIDDEN // HEADS,
            'greedy': [ids for ids, _ in runs],
            'minTopGap': min(gap for _, gap in runs),
            'eosTokenId': eos,
            'eosGreedy': eos_runs,
            'firstLogits': first_logits(model, prompts[0]),
        }
        files = {}
        for variant in ('nopast', 'past', 'past-nopositions'):
            file = f'{arch}-{variant}.onnx'
            export(model, arch, variant, OUT / file)
            files[variant] = file
        manifest['models'][arch]['files'] = files
        print(arch, 'min top-1/top-2 gap', manifest['models'][arch]['minTopGap'], 'eos', eos, file=sys.stderr)
    for name in ('tokenizer.json', 'tokenizer_config.json', 'LICENSE'):
        if (TOKENIZER_SOURCE / name).exists():
            shutil.copyfile(TOKENIZER_SOURCE / name, OUT / ('tokenizer-LICENSE' if name == 'LICENSE' else name))
    (OUT / 'expectations.json').write_text(json.dumps(manifest, indent=1) + '\n')


if __name__ == '__main__':
    main()
