#!/usr/bin/env python3
"""Builds the fixtures of the no-quantization check (test/fixtures/edge/quant/) and their manifest.

Each fixture is a tiny causal LM with random weights (Llama, or GPT-2 where Gemm and a learned position
embedding matter), exported with TorchScript at opset 17, then edited with the `onnx` helper API into one
variant: clean fp32 / fp16, the three onnxruntime quantizers, and the evasions the graph-only check missed
(int8 stored flat and reshaped, int8 packed four to an int32 and unpacked with bit ops, an int8 embedding
table, and int8 weights made to look input-dependent). Every variant is run with onnxruntime against the
clean model's logits, so a fixture is a model that works, not just a graph that parses.

The manifest's expectations come from what this script built, never from the TypeScript under test:
  verdict              pass / fail
  dataFlowTensors      integer tensors weights are made of (the ones this script wrote, or the ones
                       onnxruntime's quantizer fed to its ops), each with the op type of the node where
                       its values first meet an input-dependent value (the allow-list's weight reader)
  dataFlowPaths        for the chains this script wrote, the op types from the tensor to that reader
  quantizationOps      op types of the quantization nodes present
  integerValueShare    bytes of integer tensors that carry values into the float computation (or choose
                       table rows as Gather indices; not shapes or mask conditions) over the stored tensor
                       bytes held at run time
  storageTensors       those integer tensors
  storageVerdict       that share against the check's 10% threshold

Usage: /work/pyenv/bin/python scripts/edge/build_quant_fixtures.py  (about 20 s on two cores; needs torch, transformers, onnx, onnxruntime)
"""
from __future__ import annotations

import json
import os
import re
import tempfile
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import torch
from onnx import TensorProto, helper, numpy_helper

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / 'test' / 'fixtures' / 'edge' / 'quant'
SEQ = 8
MAX_POSITIONS = 64
VOCAB = 64
# The TypeScript check's threshold (src/inspect/quantization-storage.ts); the manifest states the verdict it implies.
STORAGE_SHARE_LIMIT = 0.10
# Integer tensors smaller than this are shape / axis / index constants, never weight storage (same rule as the check).
MIN_SOURCE_ELEMENTS = 16
# The allow-list's size rule for constants (src/inspect/weight-provenance.ts), stated in the manifest.
SMALL_CONSTANT = {'floatElements': 256, 'otherElements': 64}

torch.manual_seed(0)
np.random.seed(0)


@dataclass
class Fixture:
    name: str
    description: str
    model: onnx.ModelProto
    verdict: str
    # Integer tensors that become weights, each with the op that reads it as one (MatMul, Gather, DequantizeLinear …).
    readers: dict[str, str] = field(default_factory=dict)
    # Integer tensors whose values reach float computation, as this script built them.
    value_tensors: list[str] = field(default_factory=list)
    # The op types from each tensor to its reader, where this script wrote that chain itself.
    paths: dict[str, list[str]] = field(default_factory=dict)
    # Largest acceptable max-abs logits difference from the clean model (quantization error of a tiny model).
    tolerance: float = 1e-4


class _CausalLmOnly(torch.nn.Module):
    def __init__(self, model: torch.nn.Module):
        super().__init__()
        self.model = model

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        return self.model(input_ids=input_ids, attention_mask=attention_mask, use_cache=False, return_dict=False)[0]


def export(model: torch.nn.Module, half: bool = False) -> onnx.ModelProto:
    model.eval()
    if half:
        model.half()
    ids = torch.randint(0, VOCAB, (1, SEQ))
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, 'model.onnx')
        torch.onnx.export(
            _CausalLmOnly(model), (ids, torch.ones_like(ids)), path, input_names=['input_ids', 'attention_mask'],
            output_names=['logits'], opset_version=17, dynamo=False,
            dynamic_axes={'input_ids': {0: 'batch', 1: 'sequence'}, 'attention_mask': {0: 'batch', 1: 'sequence'},
                          'logits': {0: 'batch', 1: 'sequence'}})
        exported = onnx.load(path)
    return compact_names(exported)


def compact_names(model: onnx.ModelProto) -> onnx.ModelProto:
    """Short value names and node names without the wrapper's prefix: the fixtures stay a few tens of KB, and
    the node names the check reports (layers.0/self_attn/q_proj/MatMul) still say where a node sits."""
    keep = {value.name for value in [*model.graph.input, *model.graph.output]} | {init.name for init in model.graph.initializer}
    renamed: dict[str, str] = {}
    for node in model.graph.node:
        node.doc_string = ''
        # Constant nodes are reported by their output (the tensor), never by name.
        node.name = '' if node.op_type == 'Constant' else re.sub(r'^/model(/model)?/', '', node.name)
        for index, name in enumerate(node.output):
            if name not in keep:
                renamed[name] = renamed.get(name, f'v{len(renamed)}')
                node.output[index] = renamed[name]
        for index, name in enumerate(node.input):
            node.input[index] = renamed.get(name, name)
    return model


def tiny_llama(half: bool = False) -> onnx.ModelProto:
    from transformers import LlamaConfig, LlamaForCausalLM
    config = LlamaConfig(hidden_size=16, intermediate_size=32, num_hidden_layers=2, num_attention_heads=2,
                         num_key_value_heads=2, vocab_size=VOCAB, max_position_embeddings=MAX_POSITIONS,
                         tie_word_embeddings=False, attn_implementation='eager')
    torch.manual_seed(0)
    return export(LlamaForCausalLM(config), half)


def tiny_gpt2() -> onnx.ModelProto:
    from transformers import GPT2Config, GPT2LMHeadModel
    config = GPT2Config(n_embd=16, n_layer=2, n_head=2, vocab_size=VOCAB, n_positions=MAX_POSITIONS,
                        bos_token_id=0, eos_token_id=0, attn_implementation='eager')
    torch.manual_seed(0)
    return export(GPT2LMHeadModel(config))


# ---- graph editing helpers ------------------------------------------------------------------------------

def initializers(model: onnx.ModelProto) -> dict[str, onnx.TensorProto]:
    return {init.name: init for init in model.graph.initializer}


def projection_matmuls(model: onnx.ModelProto) -> list[tuple[onnx.NodeProto, np.ndarray]]:
    """MatMul nodes whose B is a stored float matrix: the projections and the LM head (not rotary or attention)."""
    inits = initializers(model)
    found = []
    for node in model.graph.node:
        if node.op_type == 'MatMul' and node.input[1] in inits:
            weight = numpy_helper.to_array(inits[node.input[1]])
            if weight.ndim == 2 and weight.dtype == np.float32:
                found.append((node, weight))
    return found


def int8_per_column(weight: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    scale = np.maximum(np.abs(weight).max(axis=0), 1e-8) / 127.0
    return np.clip(np.round(weight / scale), -127, 127).astype(np.int8), scale.astype(np.float32)


def insert_before(model: onnx.ModelProto, consumer: onnx.NodeProto, nodes: list[onnx.NodeProto]) -> None:
    index = list(model.graph.node).index(consumer)
    for offset, node in enumerate(nodes):
        model.graph.node.insert(index + offset, node)


def drop_unused_initializers(model: onnx.ModelProto) -> None:
    used = {name for node in model.graph.node for name in node.input}
    for node in [n for n in model.graph.node if n.op_type == 'Constant' and n.output[0] not in used]:
        model.graph.node.remove(node)
    kept = [init for init in model.graph.initializer if init.name in used]
    del model.graph.initializer[:]
    model.graph.initializer.extend(kept)


def add_initializer(model: onnx.ModelProto, name: str, array: np.ndarray) -> str:
    model.graph.initializer.append(numpy_helper.from_array(array, name))
    return name


def graph_input_dependent_zero(model: onnx.ModelProto) -> str:
    """A float scalar 0 computed from attention_mask: adding it makes a value input-dependent and changes nothing."""
    add_initializer(model, 'disguise_zero', np.array(0.0, dtype=np.float32))
    model.graph.node.insert(0, helper.make_node('ReduceMin', ['attention_mask'], ['disguise_min'], keepdims=0, name='disguise_reduce'))
    model.graph.node.insert(1, helper.make_node('Cast', ['disguise_min'], ['disguise_min_float'], to=TensorProto.FLOAT, name='disguise_cast'))
    model.graph.node.insert(2, helper.make_node('Mul', ['disguise_min_float', 'disguise_zero'], ['disguise_value'], name='disguise_mul'))
    return 'disguise_value'


# ---- evasions -------------------------------------------------------------------------------------------

def int8_flat_reshape(model: onnx.ModelProto, disguise: bool = False) -> list[str]:
    """Each projection becomes int8 stored 1-D, then Reshape -> Cast -> Mul(scale) -> MatMul."""
    zero = graph_input_dependent_zero(model) if disguise else None
    written = []
    for node, weight in projection_matmuls(model):
        base = node.name.strip('/').replace('/', '_')
        quantized, scale = int8_per_column(weight)
        flat = add_initializer(model, f'{base}_int8_flat', quantized.reshape(-1))
        shape = add_initializer(model, f'{base}_shape', np.array(weight.shape, dtype=np.int64))
        scale_name = add_initializer(model, f'{base}_scale', scale)
        steps = [
            helper.make_node('Reshape', [flat, shape], [f'{base}_int8'], name=f'{base}_reshape'),
            helper.make_node('Cast', [f'{base}_int8'], [f'{base}_float'], to=TensorProto.FLOAT, name=f'{base}_cast'),
            helper.make_node('Mul', [f'{base}_float', scale_name], [f'{base}_weight'], name=f'{base}_scale_mul'),
        ]
        if zero is not None:
            steps.append(helper.make_node('Add', [f'{base}_weight', zero], [f'{base}_weight_disguised'], name=f'{base}_disguise'))
        insert_before(model, node, steps)
        node.input[1] = steps[-1].output[0]
        written.append(flat)
    drop_unused_initializers(model)
    return written


def int8_packed_int32(model: onnx.ModelProto) -> list[str]:
    """Each projection becomes int8 (offset to uint8) packed four to an int32, unpacked by BitShift and Mod."""
    shifts = add_initializer(model, 'unpack_shifts', np.array([0, 8, 16, 24], dtype=np.uint32))
    byte_modulus = add_initializer(model, 'unpack_byte', np.array(256, dtype=np.uint32))
    offset = add_initializer(model, 'unpack_offset', np.array(128.0, dtype=np.float32))
    written = []
    for node, weight in projection_matmuls(model):
        base = node.name.strip('/').replace('/', '_')
        quantized, scale = int8_per_column(weight)
        as_bytes = (quantized.astype(np.int16) + 128).astype(np.uint8).reshape(-1)
        packed = add_initializer(model, f'{base}_packed_int32', as_bytes.view('<i4').copy())
        shape = add_initializer(model, f'{base}_shape', np.array(weight.shape, dtype=np.int64))
        axes = add_initializer(model, f'{base}_axes', np.array([1], dtype=np.int64))
        scale_name = add_initializer(model, f'{base}_scale', scale)
        steps = [
            helper.make_node('Cast', [packed], [f'{base}_u32'], to=TensorProto.UINT32, name=f'{base}_as_u32'),
            helper.make_node('Unsqueeze', [f'{base}_u32', axes], [f'{base}_u32_col'], name=f'{base}_column'),
            helper.make_node('BitShift', [f'{base}_u32_col', shifts], [f'{base}_shifted'], direction='RIGHT', name=f'{base}_shift'),
            helper.make_node('Mod', [f'{base}_shifted', byte_modulus], [f'{base}_bytes'], name=f'{base}_low_byte'),
            helper.make_node('Cast', [f'{base}_bytes'], [f'{base}_bytes_float'], to=TensorProto.FLOAT, name=f'{base}_cast'),
            helper.make_node('Sub', [f'{base}_bytes_float', offset], [f'{base}_centred'], name=f'{base}_centre'),
            helper.make_node('Reshape', [f'{base}_centred', shape], [f'{base}_matrix'], name=f'{base}_reshape'),
            helper.make_node('Mul', [f'{base}_matrix', scale_name], [f'{base}_weight'], name=f'{base}_scale_mul'),
        ]
        insert_before(model, node, steps)
        node.input[1] = f'{base}_weight'
        written.append(packed)
    drop_unused_initializers(model)
    return written


def int8_embedding(model: onnx.ModelProto) -> list[str]:
    """The token embedding table stored int8 with one scale: Gather(int8) -> Cast -> Mul."""
    inits = initializers(model)
    gather = next(n for n in model.graph.node if n.op_type == 'Gather' and 'embed_tokens' in n.input[0])
    table = numpy_helper.to_array(inits[gather.input[0]])
    scale = np.float32(np.abs(table).max() / 127.0)
    quantized = np.clip(np.round(table / scale), -127, 127).astype(np.int8)
    name = add_initializer(model, 'embed_tokens_int8', quantized)
    add_initializer(model, 'embed_tokens_scale', np.array(scale, dtype=np.float32))
    gathered = gather.output[0]
    gather.input[0] = name
    gather.output[0] = 'embed_int8_rows'
    index = list(model.graph.node).index(gather)
    model.graph.node.insert(index + 1, helper.make_node('Cast', ['embed_int8_rows'], ['embed_rows_float'], to=TensorProto.FLOAT, name='embed_cast'))
    model.graph.node.insert(index + 2, helper.make_node('Mul', ['embed_rows_float', 'embed_tokens_scale'], [gathered], name='embed_scale_mul'))
    drop_unused_initializers(model)
    return [name]


# ---- legitimate integer tensors ------------------------------------------------------------------------

def sequence_slice_end(model: onnx.ModelProto, prefix: str) -> str:
    """[sequence length] from Shape(input_ids): an input-dependent Slice end."""
    add_initializer(model, f'{prefix}_one', np.array([1], dtype=np.int64))
    add_initializer(model, f'{prefix}_two', np.array([2], dtype=np.int64))
    model.graph.node.insert(0, helper.make_node('Shape', ['input_ids'], [f'{prefix}_ids_shape'], name=f'{prefix}_shape'))
    model.graph.node.insert(1, helper.make_node('Slice', [f'{prefix}_ids_shape', f'{prefix}_one', f'{prefix}_two'], [f'{prefix}_len'], name=f'{prefix}_len'))
    return f'{prefix}_len'


def gpt2_legit_integers(model: onnx.ModelProto) -> str:
    """A position-id buffer sliced to the sequence and read as Gather indices, and a uint8 causal table used
    as a Where condition before each Softmax: integer tensors that are indices and masks, never weights."""
    inits = initializers(model)
    wpe = next(n for n in model.graph.node if n.op_type == 'Gather' and n.input[0] in inits and 'wpe' in n.input[0])
    length = sequence_slice_end(model, 'legit')
    add_initializer(model, 'position_ids_buffer', np.arange(MAX_POSITIONS, dtype=np.int64))
    add_initializer(model, 'legit_zero', np.array([0], dtype=np.int64))
    add_initializer(model, 'legit_axes_rows_cols', np.array([0, 1], dtype=np.int64))
    add_initializer(model, 'causal_table_u8', np.tril(np.ones((MAX_POSITIONS, MAX_POSITIONS), dtype=np.uint8)))
    add_initializer(model, 'masked_score', np.array(-1e9, dtype=np.float32))
    head = [
        helper.make_node('Slice', ['position_ids_buffer', 'legit_zero', length], ['legit_positions'], name='legit_positions_slice'),
        helper.make_node('Unsqueeze', ['legit_positions', 'legit_zero'], ['legit_position_ids'], name='legit_positions_row'),
        helper.make_node('Concat', [length, length], ['legit_square_end'], axis=0, name='legit_square_end'),
        helper.make_node('Concat', ['legit_zero', 'legit_zero'], ['legit_square_start'], axis=0, name='legit_square_start'),
        helper.make_node('Slice', ['causal_table_u8', 'legit_square_start', 'legit_square_end', 'legit_axes_rows_cols'], ['legit_causal_u8'], name='legit_causal_slice'),
        helper.make_node('Cast', ['legit_causal_u8'], ['legit_causal'], to=TensorProto.BOOL, name='legit_causal_bool'),
    ]
    for offset, node in enumerate(head):
        model.graph.node.insert(2 + offset, node)
    wpe.input[1] = 'legit_position_ids'
    for index, softmax in enumerate([n for n in model.graph.node if n.op_type == 'Softmax']):
        scores = softmax.input[0]
        masked = f'legit_masked_scores_{index}'
        insert_before(model, softmax, [helper.make_node('Where', ['legit_causal', scores, 'masked_score'], [masked], name=f'legit_mask_{index}')])
        softmax.input[0] = masked
    drop_unused_initializers(model)
    return 'position_ids_buffer'  # its values choose position-table rows


def llama_position_buffer(model: onnx.ModelProto) -> str:
    """Every arange(0, n) of the graph becomes a Slice of a stored int64 position buffer, as models that register
    a position_ids buffer do; the rotary MatMul then reads positions that came from an integer tensor."""
    consts = {n.output[0]: numpy_helper.to_array(n.attribute[0].t) for n in model.graph.node if n.op_type == 'Constant' and n.attribute[0].t.dims == []}
    add_initializer(model, 'position_ids_buffer', np.arange(MAX_POSITIONS, dtype=np.int64))
    add_initializer(model, 'buffer_start', np.array([0], dtype=np.int64))
    add_initializer(model, 'buffer_axes', np.array([0], dtype=np.int64))
    replaced = 0
    for node in list(model.graph.node):
        if node.op_type != 'Range':
            continue
        start, limit, delta = node.input
        if consts.get(start, None) != 0 or consts.get(delta, None) != 1:
            raise SystemExit(f'Range {node.name} is not arange(0, n); the fixture assumes it is')
        end = f'{node.name}_buffer_end'.replace('/', '_')
        index = list(model.graph.node).index(node)
        model.graph.node.remove(node)
        model.graph.node.insert(index, helper.make_node('Unsqueeze', [limit, 'buffer_axes'], [end], name=f'{end}_node'))
        model.graph.node.insert(index + 1, helper.make_node('Slice', ['position_ids_buffer', 'buffer_start', end], [node.output[0]], name=f'{node.name}_as_buffer_slice'))
        replaced += 1
    if replaced == 0:
        raise SystemExit('no Range in the exported Llama')
    drop_unused_initializers(model)
    return 'position_ids_buffer'


# ---- onnxruntime quantizers -----------------------------------------------------------------------------

def save_temp(model: onnx.ModelProto, directory: str, name: str) -> str:
    path = os.path.join(directory, name)
    onnx.save(model, path)
    return path


class _RandomTokens:
    """A small random calibration set for quantize_static."""

    def __init__(self) -> None:
        rng = np.random.default_rng(1)
        self.batches = iter([{'input_ids': rng.integers(0, VOCAB, (1, SEQ), dtype=np.int64),
                              'attention_mask': np.ones((1, SEQ), dtype=np.int64)} for _ in range(4)])

    def get_next(self):
        return next(self.batches, None)


def ort_quantized(clean: onnx.ModelProto, how: str) -> onnx.ModelProto:
    from onnxruntime.quantization import QuantFormat, QuantType, quantize_dynamic, quantize_static
    with tempfile.TemporaryDirectory() as tmp:
        source = save_temp(clean, tmp, 'clean.onnx')
        target = os.path.join(tmp, 'quantized.onnx')
        if how == 'dynamic':
            quantize_dynamic(source, target, weight_type=QuantType.QInt8)
        elif how == 'qdq':
            quantize_static(source, target, _RandomTokens(), quant_format=QuantFormat.QDQ, op_types_to_quantize=['MatMul'])
        else:
            from onnxruntime.quantization.matmul_nbits_quantizer import DefaultWeightOnlyQuantConfig, MatMulNBitsQuantizer
            quantizer = MatMulNBitsQuantizer(onnx.load(source), algo_config=DefaultWeightOnlyQuantConfig(block_size=16, is_symmetric=False))
            quantizer.process()
            quantizer.model.save_model_to_file(target)
        return onnx.load(target)


def integer_inputs_of_quantization_ops(model: onnx.ModelProto) -> dict[str, str]:
    """Integer initializers (big enough to be weights) that the quantizer handed to its quantization ops, directly
    or, for an embedding, as the table of a Gather whose rows a quantization op reads; each with that reader's op."""
    inits = initializers(model)
    quantization_ops = {'DequantizeLinear', 'MatMulInteger', 'MatMulNBits', 'DynamicQuantizeMatMul', 'QLinearMatMul'}
    gathered_from = {node.output[0]: node.input[0] for node in model.graph.node if node.op_type == 'Gather'}
    readers: dict[str, str] = {}
    for node in model.graph.node:
        if node.op_type not in quantization_ops:
            continue
        for read in node.input:
            name = gathered_from.get(read, read)
            init = inits.get(name)
            if init is not None and init.data_type not in (TensorProto.FLOAT, TensorProto.FLOAT16) and np.prod(init.dims) >= MIN_SOURCE_ELEMENTS:
                readers.setdefault(name, 'Gather' if name != read else node.op_type)
    return readers


# ---- checks and output ----------------------------------------------------------------------------------

def logits(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> np.ndarray:
    session = ort.InferenceSession(model.SerializeToString(), providers=['CPUExecutionProvider'])
    return session.run(['logits'], feeds)[0].astype(np.float32)


RE_PRESENTING_OPS = {'Cast', 'Transpose', 'Reshape', 'Identity', 'Squeeze', 'Unsqueeze', 'Flatten'}


def input_dependent(model: onnx.ModelProto) -> set[str]:
    """Every value computed from a graph input, through any input of any node."""
    initializers = {init.name for init in model.graph.initializer}
    dependent = {value.name for value in model.graph.input if value.name not in initializers}
    grew = True
    while grew:
        grew = False
        for node in model.graph.node:
            if any(name in dependent for name in node.input) and not set(node.output) <= dependent:
                dependent |= {name for name in node.output if name}
                grew = True
    return dependent


def meeting_reader(model: onnx.ModelProto, tensor: str) -> tuple[str, list[str]]:
    """Where a stored tensor's values first meet an input-dependent value: breadth first through nodes that read only
    input-independent values, to the first node that also reads an input-dependent one. Its op type, and the op types
    from the tensor to it."""
    dependent = input_dependent(model)
    queue, seen = deque([(tensor, [])]), {tensor}
    while queue:
        value, path = queue.popleft()
        for node in model.graph.node:
            if value not in node.input:
                continue
            ops = path + [node.op_type]
            if any(name in dependent for name in node.input):
                return node.op_type, ops
            for output in node.output:
                if output and output not in seen:
                    seen.add(output)
                    queue.append((output, ops))
    raise SystemExit(f'{tensor} never meets an input-dependent value')


def held_at_run_time(model: onnx.ModelProto, name: str, dependent: set[str]) -> bool:
    """An output, or read by a node that also reads an input-dependent value (onnxruntime cannot fold it), directly or
    after ops that only re-present the tensor. Tensors read by nothing or only by constant computation are dropped or
    folded at load."""
    if name in {output.name for output in model.graph.output}:
        return True
    for node in model.graph.node:
        if name not in node.input:
            continue
        if any(value in dependent for value in node.input):
            return True
        if node.op_type in RE_PRESENTING_OPS and any(held_at_run_time(model, output, dependent) for output in node.output if output):
            return True
    return False


def stored_bytes(model: onnx.ModelProto, value_tensors: list[str]) -> dict[str, int]:
    """Bytes of each stored tensor held at run time; the integer tensors that carry values always count."""
    sizes = {init.name: numpy_helper.to_array(init).nbytes for init in model.graph.initializer}
    for node in model.graph.node:
        if node.op_type == 'Constant' and node.attribute[0].name == 'value':
            sizes[node.output[0]] = numpy_helper.to_array(node.attribute[0].t).nbytes
    dependent = input_dependent(model)
    return {name: size for name, size in sizes.items() if name in value_tensors or held_at_run_time(model, name, dependent)}


def quantization_ops(model: onnx.ModelProto) -> list[str]:
    names = {'QuantizeLinear', 'DequantizeLinear', 'DynamicQuantizeLinear', 'MatMulInteger', 'MatMulNBits'}
    return sorted({node.op_type for node in model.graph.node if node.op_type in names})


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    feeds = {'input_ids': np.random.default_rng(2).integers(0, VOCAB, (1, SEQ), dtype=np.int64),
             'attention_mask': np.ones((1, SEQ), dtype=np.int64)}
    llama = tiny_llama()
    gpt2 = tiny_gpt2()

    def edited(base: onnx.ModelProto, edit) -> tuple[onnx.ModelProto, list[str]]:
        copy = onnx.ModelProto()
        copy.CopyFrom(base)
        return copy, edit(copy)

    fixtures: list[tuple[Fixture, onnx.ModelProto]] = []
    fixtures.append((Fixture('llama-fp32', 'clean Llama, fp32 weights', llama, 'pass'), llama))
    fixtures.append((Fixture('llama-fp16', 'clean Llama exported in half precision', tiny_llama(half=True), 'pass', tolerance=0.05), llama))
    gpt2_ints, position_buffer = edited(gpt2, gpt2_legit_integers)
    fixtures.append((Fixture('gpt2-legit-integers', 'clean GPT-2 (Gemm) with an int64 position-id buffer read as Gather indices and a uint8 causal table used as a Where condition', gpt2_ints, 'pass',
                             value_tensors=[position_buffer]), gpt2))
    buffered, buffer = edited(llama, llama_position_buffer)
    fixtures.append((Fixture('llama-position-buffer', 'clean Llama whose positions are a Slice of an int64 buffer (sliced to the input length) feeding the rotary MatMul', buffered, 'pass', value_tensors=[buffer]), llama))
    for how, op_note in [('dynamic', 'quantize_dynamic (MatMulInteger)'), ('qdq', 'quantize_static QDQ'), ('nbits', 'MatMulNBitsQuantizer 4-bit')]:
        quantized = ort_quantized(llama, how)
        sources = integer_inputs_of_quantization_ops(quantized)
        readers = {name: meeting_reader(quantized, name)[0] for name in sources}
        fixtures.append((Fixture(f'llama-ort-{how}', f'onnxruntime.quantization {op_note}', quantized, 'fail', readers, list(readers), tolerance=0.5), llama))

    def evasion(name: str, description: str, edit, reader: str, path: list[str]) -> None:
        model, names = edited(llama, edit)
        for tensor in names:
            if meeting_reader(model, tensor) != (reader, path):
                raise SystemExit(f'{name}: {tensor} meets the input at {meeting_reader(model, tensor)}, not {(reader, path)} as written')
        fixtures.append((Fixture(name, description, model, 'fail', {tensor: reader for tensor in names}, names, {tensor: path for tensor in names}, tolerance=0.05), llama))

    evasion('llama-int8-flat-reshape', 'int8 weights stored 1-D, Reshape -> Cast -> Mul(scale) -> MatMul', int8_flat_reshape,
            'MatMul', ['Reshape', 'Cast', 'Mul', 'MatMul'])
    evasion('llama-int8-packed-int32', 'int8 weights packed four to an int32, unpacked by Cast(uint32) -> BitShift -> Mod -> Cast -> Sub -> Reshape -> Mul -> MatMul',
            int8_packed_int32, 'MatMul', ['Cast', 'Unsqueeze', 'BitShift', 'Mod', 'Cast', 'Sub', 'Reshape', 'Mul', 'MatMul'])
    evasion('llama-int8-embedding', 'token embedding stored int8: Gather(int8 table) -> Cast -> Mul(scale)', int8_embedding,
            'Gather', ['Gather'])
    evasion('llama-int8-input-dependent', 'int8 flat weights with 0 * f(attention_mask) added, so the weights look input-dependent: they meet the input at the Add',
            lambda m: int8_flat_reshape(m, disguise=True), 'Add', ['Reshape', 'Cast', 'Mul', 'Add'])

    manifest = []
    for fixture, reference in fixtures:
        onnx.checker.check_model(fixture.model)
        difference = float(np.abs(logits(fixture.model, feeds) - logits(reference, feeds)).max())
        if difference > fixture.tolerance:
            raise SystemExit(f'{fixture.name}: logits differ from the clean model by {difference} (> {fixture.tolerance})')
        sizes = stored_bytes(fixture.model, fixture.value_tensors)
        share = sum(sizes[name] for name in fixture.value_tensors) / sum(sizes.values())
        storage_verdict = 'fail' if share > STORAGE_SHARE_LIMIT else 'pass'
        if fixture.verdict == 'pass' and storage_verdict == 'fail':
            raise SystemExit(f'{fixture.name}: a clean fixture over the storage limit ({share:.3f})')
        file = f'{fixture.name}.onnx'
        onnx.save(fixture.model, OUT / file)
        manifest.append({
            'file': file, 'description': fixture.description, 'verdict': fixture.verdict,
            'dataFlowTensors': dict(sorted(fixture.readers.items())), 'dataFlowPaths': fixture.paths, 'quantizationOps': quantization_ops(fixture.model),
            'integerValueShare': round(share, 4), 'storageTensors': sorted(fixture.value_tensors), 'storageVerdict': storage_verdict,
            'maxLogitDifference': round(difference, 6),
        })
        print(f'{file:36s} {fixture.verdict}  share {share:.3f}  |dlogits| {difference:.2e}  {os.path.getsize(OUT / file)} B')
    (OUT / 'manifest.json').write_text(json.dumps({'storageShareLimit': STORAGE_SHARE_LIMIT, 'minSourceElements': MIN_SOURCE_ELEMENTS,
                                                   'smallConstant': SMALL_CONSTANT, 'fixtures': manifest}, indent=2) + '\n')


if __name__ == '__main__':
    main()
