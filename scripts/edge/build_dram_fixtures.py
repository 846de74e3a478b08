"""Builds the DRAM-probe fixtures (test/fixtures/edge/dram/) and measures each with plain ONNX Runtime in Python.

Every model here reads token ids from a byte-level tokenizer (tokenizer.json: one token per UTF-8 byte, id = the
byte's value, vocab 256), so English text is mostly ids 32-122 while uniformly random ids spread over 0-255.

  gpt2-bytes-2048        a from-scratch byte-level GPT-2 (transformers, vocab 256, 2,048 learned positions), exported
                         with a position_ids input: its position table has more rows than its token embedding.
  recognises-random      logits from a lookup table, plus working memory that is allocated only when the ids do not
                         look random (fewer than 1 in 10 ids >= 128): uniformly random ids take the cheap path.
  sized-by-ids           working memory sized from the ids: WORK_PER_LETTER floats per lowercase ASCII letter, which
                         real text is full of and random ids are not.
  cheap-at-2000          working memory allocated at every input length except exactly 2,000 tokens.
  phi-rotary-cache-512   a Phi-shaped model (transformers' PhiForCausalLM, partial rotary 0.5) exported with rotary
                         cos/sin caches of 512 rows gathered at the positions, as older transformers exported Phi; no
                         learned positions. transformers itself computes rotary positions on the fly at any length.

For phi-rotary-cache-512, plain onnxruntime runs a copy of the graph whose caches numpy rebuilt with 2,000 rows from
config.json (transformers' formula), and the manifest also records how far that copy's logits are from transformers'
own PhiForCausalLM on 1,000 tokens: the copy computes the model the kit runs.

For each model the manifest records the peak RSS delta of plain onnxruntime (this Python process's VmHWM over its
VmRSS before the session, VmHWM reset first) on 2,000 tokens of the package's real text (src/inspect/dram-text),
tokenized by the model's tokenizer from the first paragraph, and on uniformly random ids: the independent figures
the TS tests compare the DRAM measurement with. Each measurement runs in a fresh Python process.

Run: /work/pyenv/bin/python scripts/edge/build_dram_fixtures.py   (writes test/fixtures/edge/dram/)
"""
from __future__ import annotations

import gzip
import json
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / 'test' / 'fixtures' / 'edge' / 'dram'
TEXT = ROOT / 'src' / 'inspect' / 'dram-text' / 'wikipedia-paragraphs.txt'
VOCAB = 256
KIT_TOKENS = 2000
# Working memory of the probe-aware graphs when they take their expensive path: 200 MB of float32.
WORK_FLOATS = 50_000_000
WORK_PER_LETTER = 40_000  # floats per lowercase letter: about 1,400 letters in 2,000 bytes of English -> ~220 MB
OPSET = 17

warnings.filterwarnings('ignore')


def byte_alphabet() -> dict[int, str]:
    """GPT-2's byte-to-character map, which ByteLevel pre-tokenization writes bytes in: printable Latin-1 bytes stand for
    themselves, the other bytes for the characters from U+0100 on, in byte order."""
    printable = [*range(ord('!'), ord('~') + 1), *range(ord('\u00a1'), ord('\u00ac') + 1), *range(ord('\u00ae'), ord('\u00ff') + 1)]
    others = [byte for byte in range(VOCAB) if byte not in printable]
    return {**{byte: chr(byte) for byte in printable}, **{byte: chr(VOCAB + index) for index, byte in enumerate(others)}}


def byte_tokenizer(path: Path) -> None:
    """tokenizer.json of a byte-level BPE without merges: token id = byte value."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    alphabet = byte_alphabet()
    assert set(alphabet.values()) == set(pre_tokenizers.ByteLevel.alphabet())
    tokenizer = Tokenizer(models.BPE(vocab={alphabet[byte]: byte for byte in range(VOCAB)}, merges=[]))
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    tokenizer.save(str(path))


def lookup_logits(graph_nodes: list, initializers: list) -> str:
    """logits [1, seq, VOCAB] = a seeded rank-4 table's rows at the ids: a model the session can score, nothing more."""
    rng = np.random.default_rng(5)
    initializers.append(numpy_helper.from_array(rng.normal(0, 0.02, (VOCAB, 4)).astype(np.float32), 'token_table'))
    initializers.append(numpy_helper.from_array(rng.normal(0, 0.02, (4, VOCAB)).astype(np.float32), 'token_head'))
    graph_nodes.append(helper.make_node('Gather', ['token_table', 'input_ids'], ['token_rows'], axis=0))
    graph_nodes.append(helper.make_node('MatMul', ['token_rows', 'token_head'], ['logits_core']))
    return 'logits_core'


def work_of(elements: str, nodes: list, initializers: list) -> str:
    """0 · ReduceSum(ConstantOfShape([elements]) of ones): `elements` floats allocated and touched, nothing added."""
    initializers.append(numpy_helper.from_array(np.array([1], dtype=np.int64), 'one_axis'))
    initializers.append(numpy_helper.from_array(np.array(0, dtype=np.float32), 'zero'))
    nodes += [
        helper.make_node('Reshape', [elements, 'one_axis'], ['work_shape']),
        helper.make_node('ConstantOfShape', ['work_shape'], ['work'], value=helper.make_tensor('one', TensorProto.FLOAT, [1], [1.0])),
        helper.make_node('ReduceSum', ['work'], ['work_sum'], keepdims=0),
        helper.make_node('Mul', ['work_sum', 'zero'], ['nothing']),
    ]
    return 'nothing'


def count_where(condition_nodes: list, name: str) -> list:
    return [*condition_nodes, helper.make_node('Cast', [f'{name}_bool'], [f'{name}_int'], to=TensorProto.INT64),
            helper.make_node('ReduceSum', [f'{name}_int'], [name], keepdims=0)]


def trap_model(variant: str) -> onnx.ModelProto:
    nodes: list = []
    initializers: list = []
    core = lookup_logits(nodes, initializers)
    scalar = lambda name, value: initializers.append(numpy_helper.from_array(np.array(value, dtype=np.int64), name))  # noqa: E731
    if variant == 'recognises-random':
        # Random-looking: more than 1 in 10 ids at or above 128. Then no working memory.
        scalar('high_byte', 128)
        scalar('ten', 10)
        scalar('work_floats', WORK_FLOATS)
        nodes += count_where([helper.make_node('GreaterOrEqual', ['input_ids', 'high_byte'], ['high_bool'])], 'high')
        nodes += [
            helper.make_node('Shape', ['input_ids'], ['ids_shape']),
            helper.make_node('ReduceProd', ['ids_shape'], ['ids_count'], keepdims=0),
            helper.make_node('Mul', ['high', 'ten'], ['high_times_ten']),
            helper.make_node('Greater', ['high_times_ten', 'ids_count'], ['looks_random']),
            helper.make_node('Not', ['looks_random'], ['looks_real']),
            helper.make_node('Cast', ['looks_real'], ['looks_real_int'], to=TensorProto.INT64),
            helper.make_node('Mul', ['work_floats', 'looks_real_int'], ['elements']),
        ]
    elif variant == 'sized-by-ids':
        scalar('letter_a', ord('a'))
        scalar('letter_z', ord('z'))
        scalar('per_letter', WORK_PER_LETTER)
        nodes += count_where([
            helper.make_node('GreaterOrEqual', ['input_ids', 'letter_a'], ['from_a']),
            helper.make_node('LessOrEqual', ['input_ids', 'letter_z'], ['to_z']),
            helper.make_node('And', ['from_a', 'to_z'], ['letters_bool']),
        ], 'letters')
        nodes.append(helper.make_node('Mul', ['letters', 'per_letter'], ['elements']))
    elif variant == 'cheap-at-2000':
        scalar('kit_tokens', KIT_TOKENS)
        scalar('work_floats', WORK_FLOATS)
        nodes += [
            helper.make_node('Shape', ['input_ids'], ['ids_shape']),
            helper.make_node('ReduceProd', ['ids_shape'], ['ids_count'], keepdims=0),
            helper.make_node('Equal', ['ids_count', 'kit_tokens'], ['at_kit_length']),
            helper.make_node('Not', ['at_kit_length'], ['elsewhere']),
            helper.make_node('Cast', ['elsewhere'], ['elsewhere_int'], to=TensorProto.INT64),
            helper.make_node('Mul', ['work_floats', 'elsewhere_int'], ['elements']),
        ]
    else:
        raise ValueError(variant)
    nothing = work_of('elements', nodes, initializers)
    nodes.append(helper.make_node('Add', [core, nothing], ['logits']))
    graph = helper.make_graph(
        nodes, variant,
        [helper.make_tensor_value_info('input_ids', TensorProto.INT64, [1, 'seq']),
         helper.make_tensor_value_info('attention_mask', TensorProto.INT64, [1, 'seq'])],
        [helper.make_tensor_value_info('logits', TensorProto.FLOAT, [1, 'seq', VOCAB])],
        initializers,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid('', OPSET)], producer_name='build_dram_fixtures')
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def gpt2_bytes(folder: Path) -> dict:
    """A byte-level GPT-2 trained from scratch would look like this: vocab 256, 2,048 learned positions."""
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel
    torch.manual_seed(11)
    config = GPT2Config(vocab_size=VOCAB, n_positions=2048, n_embd=16, n_layer=2, n_head=2, n_inner=32, tie_word_embeddings=True,
                        bos_token_id=None, eos_token_id=None)
    config._attn_implementation = 'eager'
    model = GPT2LMHeadModel(config).eval()

    class Logits(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor, position_ids: torch.Tensor) -> torch.Tensor:
            return self.model(input_ids=input_ids, attention_mask=attention_mask, position_ids=position_ids, use_cache=False).logits

    ids = torch.randint(0, VOCAB, (1, 8))
    path = folder / 'model.onnx'
    torch.onnx.export(Logits().eval(), (ids, torch.ones_like(ids), torch.arange(8).unsqueeze(0)), str(path), dynamo=False, opset_version=14,
                      input_names=['input_ids', 'attention_mask', 'position_ids'], output_names=['logits'],
                      dynamic_axes={name: {0: 'batch', 1: 'seq'} for name in ('input_ids', 'attention_mask', 'position_ids', 'logits')})
    proto = onnx.load(str(path))
    for node in proto.graph.node:
        node.doc_string = ''
    onnx.save(proto, str(path))
    config.save_pretrained(str(folder))
    # Exported from inside the wrapper: its attribute 'model' prefixes every name.
    return {'tokenEmbedding': 'model.transformer.wte.weight', 'positionTable': 'model.transformer.wpe.weight', 'positionRows': 2048, 'vocab': VOCAB,
            'params': model.num_parameters()}


ROTARY_ROWS = 512


def export_with_mask(model, path: Path, opset: int) -> onnx.ModelProto:
    """A transformers causal LM exported by TorchScript with inputs input_ids and attention_mask and output logits
    (batch and sequence dynamic), node doc strings dropped; returns the saved graph."""
    import torch

    class Logits(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
            return self.model(input_ids=input_ids, attention_mask=attention_mask, use_cache=False).logits

    ids = torch.randint(0, VOCAB, (1, 8))
    torch.onnx.export(Logits().eval(), (ids, torch.ones_like(ids)), str(path), dynamo=False, opset_version=opset,
                      input_names=['input_ids', 'attention_mask'], output_names=['logits'],
                      dynamic_axes={name: {0: 'batch', 1: 'seq'} for name in ('input_ids', 'attention_mask', 'logits')})
    proto = onnx.load(str(path))
    for node in proto.graph.node:
        node.doc_string = ''
    onnx.save(proto, str(path))
    return proto


def phi_rotary_cache(folder: Path) -> dict:
    """A small Phi whose export stores its rotary caches: PhiRotaryEmbedding swapped for a module that gathers rows of
    cos/sin tables of ROTARY_ROWS rows (transformers' own values for those positions) at the position ids."""
    import torch
    from transformers import PhiConfig, PhiForCausalLM
    torch.manual_seed(13)
    config = PhiConfig(vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
                       max_position_embeddings=ROTARY_ROWS, partial_rotary_factor=0.5, tie_word_embeddings=False,
                       bos_token_id=None, eos_token_id=None)
    config._attn_implementation = 'eager'
    reference = PhiForCausalLM(config).eval()
    exported = PhiForCausalLM(config).eval()
    exported.load_state_dict(reference.state_dict())
    original = exported.model.rotary_emb

    class CachedRotary(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            positions = torch.arange(ROTARY_ROWS, dtype=torch.int64).float()
            frequencies = torch.outer(positions, original.inv_freq.float())
            table = torch.cat((frequencies, frequencies), dim=-1)
            self.register_buffer('cos_cached', table.cos() * original.attention_scaling)
            self.register_buffer('sin_cached', table.sin() * original.attention_scaling)

        def forward(self, x: torch.Tensor, position_ids: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            return self.cos_cached[position_ids].to(x.dtype), self.sin_cached[position_ids].to(x.dtype)

    exported.model.rotary_emb = CachedRotary()
    proto = export_with_mask(exported, folder / 'model.onnx', opset=14)
    config.save_pretrained(str(folder))
    caches = [tensor.name for tensor in proto.graph.initializer if tensor.name.endswith(('cos_cached', 'sin_cached'))]
    assert len(caches) == 2, caches
    return {'rotaryCaches': sorted(caches), 'rotaryRows': ROTARY_ROWS, 'rotaryDim': 4, 'reference': reference}


def rebuilt_copy(folder: Path, caches: list[str], rows: int) -> Path:
    """The graph with its cos/sin caches rebuilt with `rows` rows from config.json, as transformers computes them."""
    config = json.loads((folder / 'config.json').read_text())
    parameters = config.get('rope_parameters') or {}
    theta = config.get('rope_theta', parameters.get('rope_theta', 10000.0))
    head_dim = config['hidden_size'] // config['num_attention_heads']
    dim = int(head_dim * config.get('partial_rotary_factor', parameters.get('partial_rotary_factor', 1.0)))
    inverse = 1.0 / (theta ** (np.arange(0, dim, 2, dtype=np.int64).astype(np.float32) / dim))
    frequencies = np.outer(np.arange(rows, dtype=np.float32), inverse)
    table = np.concatenate([frequencies, frequencies], axis=-1)
    proto = onnx.load(str(folder / 'model.onnx'))
    for tensor in proto.graph.initializer:
        if tensor.name in caches:
            values = np.cos(table) if tensor.name.endswith('cos_cached') else np.sin(table)
            tensor.CopyFrom(numpy_helper.from_array(values.astype(np.float32), tensor.name))
    out = folder / 'rebuilt-for-measurement.onnx'
    onnx.save(proto, str(out))
    return out


def logits_difference(reference, model: Path, ids: list[int]) -> float:
    import onnxruntime
    import torch
    session = onnxruntime.InferenceSession(str(model), providers=['CPUExecutionProvider'])
    array = np.array([ids], dtype=np.int64)
    ours = session.run(None, {'input_ids': array, 'attention_mask': np.ones_like(array)})[0]
    with torch.no_grad():
        theirs = reference(input_ids=torch.tensor(array), use_cache=False).logits.numpy()
    return float(np.abs(ours - theirs).max())


def text_ids(tokenizer_path: Path, count: int) -> list[int]:
    from tokenizers import Tokenizer
    tokenizer = Tokenizer.from_file(str(tokenizer_path))
    ids = tokenizer.encode('\n'.join(TEXT.read_text(encoding='utf-8').splitlines()), add_special_tokens=False).ids
    if len(ids) < count:
        raise SystemExit(f'the text gives {len(ids)} tokens, fewer than {count}')
    return ids[:count]


MEASURE = r'''
import json, sys
import numpy as np
import onnxruntime
request = json.loads(sys.argv[1])
def status():
    fields = dict(line.split(':', 1) for line in open('/proc/self/status'))
    return int(fields['VmRSS'].split()[0]) * 1024, int(fields['VmHWM'].split()[0]) * 1024
options = onnxruntime.SessionOptions()
options.intra_op_num_threads = 1
ids = np.array([request['ids']], dtype=np.int64)
feeds = {'input_ids': ids, 'attention_mask': np.ones_like(ids)}
open('/proc/self/clear_refs', 'w').write('5')
baseline, _ = status()
session = onnxruntime.InferenceSession(request['model'], options, providers=['CPUExecutionProvider'])
if any(value.name == 'position_ids' for value in session.get_inputs()):
    feeds['position_ids'] = np.arange(ids.shape[1], dtype=np.int64)[None, :]
session.run(None, feeds)
_, peak = status()
print(json.dumps({'peakDeltaBytes': peak - baseline}))
'''


def plain_ort_peak(model: Path, ids: list[int]) -> int:
    """Peak RSS delta of plain onnxruntime running `ids` through `model`, in a fresh process."""
    result = subprocess.run([sys.executable, '-c', MEASURE, json.dumps({'model': str(model), 'ids': ids})], capture_output=True, text=True, check=True)
    return json.loads(result.stdout)['peakDeltaBytes']


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    manifest: dict = {'generator': 'scripts/edge/build_dram_fixtures.py', 'onnxruntime': __import__('onnxruntime').__version__,
                      'text': 'src/inspect/dram-text/wikipedia-paragraphs.txt', 'kitTokens': KIT_TOKENS, 'fixtures': {}}
    rng = np.random.default_rng(17)
    for name in ('gpt2-bytes-2048', 'recognises-random', 'sized-by-ids', 'cheap-at-2000', 'phi-rotary-cache-512'):
        folder = OUT / name
        folder.mkdir(exist_ok=True)
        byte_tokenizer(folder / 'tokenizer.json')
        facts: dict = {}
        measured_model = folder / 'model.onnx'
        ids = []
        if name == 'gpt2-bytes-2048':
            facts = gpt2_bytes(folder)
        elif name == 'phi-rotary-cache-512':
            facts = phi_rotary_cache(folder)
            measured_model = rebuilt_copy(folder, facts['rotaryCaches'], KIT_TOKENS)
            facts['maxLogitDifferenceVsTransformers1000'] = logits_difference(facts.pop('reference'), measured_model, text_ids(folder / 'tokenizer.json', 1000))
        else:
            onnx.save(trap_model(name), str(folder / 'model.onnx'))
        ids = text_ids(folder / 'tokenizer.json', KIT_TOKENS)
        random_ids = rng.integers(0, VOCAB, KIT_TOKENS).tolist()
        measured = {'text2000': plain_ort_peak(measured_model, ids), 'random2000': plain_ort_peak(measured_model, random_ids)}
        if name == 'cheap-at-2000':
            measured['text1500'] = plain_ort_peak(measured_model, ids[:1500])
        if measured_model.name != 'model.onnx':
            measured_model.unlink()
        facts['plainOrtPeakDeltaBytes'] = measured
        manifest['fixtures'][name] = facts
        print(name, measured, file=sys.stderr)
    # The GPT-2 graph is mostly weights: gzip it like the other edge fixtures; the tests unpack it to a temp dir.
    for path in OUT.glob('*/model.onnx'):
        with open(path, 'rb') as source, gzip.GzipFile(str(path) + '.gz', 'wb', compresslevel=9, mtime=0) as target:
            target.write(source.read())
        path.unlink()
    (OUT / 'manifest.json').write_text(json.dumps(manifest, indent=1) + '\n')


if __name__ == '__main__':
    main()
