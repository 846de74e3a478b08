#!/usr/bin/env python3
"""Builds the fixtures of the no-quantization allow-list and the storage-based parameter count
(test/fixtures/edge/disguise/) and their manifest.

Each fixture is a tiny Llama (3 layers, hidden 16, random weights from transformers, TorchScript at opset 17) in
which layer 0's seven projection matrices are stored in another form and decoded in the graph, two or more ways
per class of disguise: an index into a table (Gather of a codebook, OneHot against a palette), comparison chains
(Equal/Less/Greater + Where), bool bit-planes, string tensors, low-bit types (float8, int4), quantized and integer
ops, and decoders in subgraphs and model-local functions. The honest fixtures must pass: a low-rank layer (x·A·B),
tied embeddings, an fp16 export, a layer that reuses another's weights, a vocabulary pruned through an id map, and
the clean export itself (its rotary inverse frequencies are a small stored constant).

Every fixture is run with onnxruntime and its logits are compared with a reference model: the clean export with
each disguised matrix replaced by the float values this script decoded in numpy (exact, 1e-4), or, where
activations are quantized too, the clean export (0.5). So each disguise decodes what it claims to, and each honest
model computes what the clean one does.

Fixtures are gzipped (.onnx.gz); the tests unpack them. The manifest's expectations come from what this script built, never from the TypeScript under test:
  verdict          pass / fail
  weights          per disguised matrix: the projection MatMul it replaces, the stored tensors this script wrote
                   for it, the class of disguise (the check's violation names: table-lookup, comparison, bool-data,
                   string-data, low-bit-storage, quantization-op, integer-codes, subgraph), and the reader: the node
                   where the decoded weight first meets an input-dependent value (found here by a breadth-first walk;
                   for a decoder inside a Loop body, the body node that reads the codes with the iteration number)
  storedElements   every stored element of every dtype, copies once (scripts/edge/stored_elements.py), and
  baseStoredElements  the same for the clean export: "% removed" of a model that only stores a layer another way is
                   (base - stored) / base, about 0 % (negative where the codes take more elements than the floats)
  floatElements    the float elements alone (what a float-only count saw: it made such a model look pruned)

Usage: /work/pyenv/bin/python scripts/edge/build_disguise_fixtures.py  (about a minute on two cores; needs torch,
transformers, onnx, onnxruntime, ml_dtypes)
"""
from __future__ import annotations

import gzip
import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

import ml_dtypes
import numpy as np
import onnx
import torch
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, str(Path(__file__).resolve().parent))
import build_quant_fixtures as quant  # noqa: E402  (the tiny export, graph helpers and onnxruntime runner)
import stored_elements  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / 'test' / 'fixtures' / 'edge' / 'disguise'
VOCAB = quant.VOCAB
LAYER = 'layers.0/'
DOMAIN = 'mlrb.disguise'


@dataclass
class Matrix:
    """One disguised projection: what replaced its stored float B input."""
    matmul: str
    tensors: list[str]
    violation: str
    decoded: np.ndarray
    reader: dict[str, str] | None = None  # set by the builder where the reader lies inside a subgraph


@dataclass
class Fixture:
    name: str
    klass: str
    description: str
    model: onnx.ModelProto
    reference: onnx.ModelProto
    verdict: str
    matrices: list[Matrix] = field(default_factory=list)
    tolerance: float = 1e-4


# ---- the tiny model ---------------------------------------------------------------------------------------

def tiny_llama(tied: bool = False, half: bool = False) -> onnx.ModelProto:
    from transformers import LlamaConfig, LlamaForCausalLM
    config = LlamaConfig(hidden_size=16, intermediate_size=32, num_hidden_layers=3, num_attention_heads=2,
                         num_key_value_heads=2, vocab_size=VOCAB, max_position_embeddings=quant.MAX_POSITIONS,
                         tie_word_embeddings=tied, attn_implementation='eager')
    torch.manual_seed(0)
    return quant.export(LlamaForCausalLM(config), half)


def copy_of(model: onnx.ModelProto) -> onnx.ModelProto:
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    return copy


def layer_matmuls(model: onnx.ModelProto) -> list[tuple[onnx.NodeProto, np.ndarray]]:
    return [(node, weight) for node, weight in quant.projection_matmuls(model) if node.name.startswith(LAYER)]


def drop_unused(model: onnx.ModelProto) -> None:
    """quant.drop_unused_initializers, counting what subgraphs read from the outer graph as used too."""
    def read_by(nodes) -> set[str]:
        names = set()
        for node in nodes:
            names |= set(node.input)
            for attribute in node.attribute:
                for graph in ([attribute.g] if attribute.HasField('g') else []) + list(attribute.graphs):
                    names |= read_by(graph.node)
        return names
    used = read_by(model.graph.node) | {output.name for output in model.graph.output}
    kept = [init for init in model.graph.initializer if init.name in used]
    del model.graph.initializer[:]
    model.graph.initializer.extend(kept)


def with_weights(model: onnx.ModelProto, weights: dict[str, np.ndarray]) -> onnx.ModelProto:
    """The model with the B input of the named MatMuls replaced by these float matrices (the reference)."""
    reference = copy_of(model)
    for node in reference.graph.node:
        if node.name in weights:
            name = f'{node.name}_reference'.replace('/', '_')
            quant.add_initializer(reference, name, weights[node.name].astype(np.float32))
            node.input[1] = name
    quant.drop_unused_initializers(reference)
    return reference


def uniform_codes(weight: np.ndarray, bits: int) -> tuple[np.ndarray, np.float32, np.float32]:
    """Codes 0 .. 2^bits - 1 on a uniform grid over the matrix's range: weight ≈ low + codes * step."""
    low, high = np.float32(weight.min()), np.float32(weight.max())
    step = np.float32((high - low) / (2 ** bits - 1))
    return np.round((weight - low) / step).astype(np.int64), low, step


def scalar(model: onnx.ModelProto, name: str, value: float) -> str:
    return quant.add_initializer(model, name, np.array(value, dtype=np.float32))


def int64s(model: onnx.ModelProto, name: str, values: list[int]) -> str:
    return quant.add_initializer(model, name, np.array(values, dtype=np.int64))


def affine(model: onnx.ModelProto, base: str, value: str, low: np.float32, step: np.float32) -> tuple[list[onnx.NodeProto], str]:
    """low + value * step, in float32."""
    nodes = [
        helper.make_node('Mul', [value, scalar(model, f'{base}_step', step)], [f'{base}_scaled'], name=f'{base}_scale'),
        helper.make_node('Add', [f'{base}_scaled', scalar(model, f'{base}_low', low)], [f'{base}_weight'], name=f'{base}_offset'),
    ]
    return nodes, f'{base}_weight'


# ---- disguises: each decoder(model, base name, float matrix) adds its stored tensors to the model and returns the
# nodes that decode one matrix, their output, the tensors it wrote and the decoded floats (and, for a decoder inside a
# Loop body, the body node that reads the codes)


def gather_codebook(model, base, weight):
    """4-bit codes stored uint8; the weight is Gather(codebook of 16 floats, codes)."""
    codes, low, step = uniform_codes(weight, 4)
    codebook = (low + np.arange(16, dtype=np.float32) * step).astype(np.float32)
    stored = quant.add_initializer(model, f'{base}_codes_u8', codes.astype(np.uint8))
    book = quant.add_initializer(model, f'{base}_codebook', codebook)
    nodes = [
        helper.make_node('Cast', [stored], [f'{base}_indices'], to=TensorProto.INT64, name=f'{base}_indices'),
        helper.make_node('Gather', [book, f'{base}_indices'], [f'{base}_weight'], axis=0, name=f'{base}_lookup'),
    ]
    return nodes, f'{base}_weight', [stored, book], codebook[codes]


def gather_vectors(model, base, weight):
    """Vector quantization: each run of 4 weights in a row is one of 16 stored 4-vectors (k-means), chosen by an
    int32 code; Gather(codebook [16, 4], codes [rows, cols / 4]) -> Reshape [rows, cols]."""
    rows, cols = weight.shape
    vectors = weight.reshape(-1, 4)
    rng = np.random.default_rng(3)
    centroids = vectors[rng.choice(len(vectors), 16, replace=False)].copy()
    for _ in range(20):
        assignment = ((vectors[:, None, :] - centroids[None]) ** 2).sum(-1).argmin(1)
        for index in range(16):
            if (assignment == index).any():
                centroids[index] = vectors[assignment == index].mean(0)
    assignment = ((vectors[:, None, :] - centroids[None]) ** 2).sum(-1).argmin(1)
    centroids = centroids.astype(np.float32)
    stored = quant.add_initializer(model, f'{base}_vector_codes', assignment.reshape(rows, cols // 4).astype(np.int32))
    book = quant.add_initializer(model, f'{base}_vector_codebook', centroids)
    shape = int64s(model, f'{base}_shape', [rows, cols])
    nodes = [
        helper.make_node('Gather', [book, stored], [f'{base}_runs'], axis=0, name=f'{base}_lookup'),
        helper.make_node('Reshape', [f'{base}_runs', shape], [f'{base}_weight'], name=f'{base}_reshape'),
    ]
    return nodes, f'{base}_weight', [stored, book], centroids[assignment].reshape(rows, cols)


def onehot_matmul(model, base, weight):
    """4-bit codes; OneHot(codes, 16) [rows, cols, 16] · palette [16, 1] -> Squeeze: a palette read by a one-hot."""
    codes, low, step = uniform_codes(weight, 4)
    palette = (low + np.arange(16, dtype=np.float32) * step).astype(np.float32)
    stored = quant.add_initializer(model, f'{base}_codes_i64', codes)
    book = quant.add_initializer(model, f'{base}_palette', palette.reshape(16, 1))
    nodes = [
        helper.make_node('OneHot', [stored, int64s(model, f'{base}_depth', [16]), quant.add_initializer(model, f'{base}_onoff', np.array([0, 1], dtype=np.float32))],
                         [f'{base}_onehot'], axis=-1, name=f'{base}_onehot'),
        helper.make_node('MatMul', [f'{base}_onehot', book], [f'{base}_column'], name=f'{base}_palette_matmul'),
        helper.make_node('Squeeze', [f'{base}_column', int64s(model, f'{base}_last', [-1])], [f'{base}_weight'], name=f'{base}_squeeze'),
    ]
    return nodes, f'{base}_weight', [stored, book], palette[codes]


def onehot_reducesum(model, base, weight):
    """4-bit codes stored int32; ReduceSum(OneHot(codes, 16) * palette [16], last axis)."""
    codes, low, step = uniform_codes(weight, 4)
    palette = (low + np.arange(16, dtype=np.float32) * step).astype(np.float32)
    stored = quant.add_initializer(model, f'{base}_codes_i32', codes.astype(np.int32))
    book = quant.add_initializer(model, f'{base}_palette', palette)
    depth = quant.add_initializer(model, f'{base}_depth', np.array([16], dtype=np.int32))  # onnxruntime's kernel for int32 codes
    nodes = [
        helper.make_node('OneHot', [stored, depth, quant.add_initializer(model, f'{base}_onoff', np.array([0, 1], dtype=np.float32))],
                         [f'{base}_onehot'], axis=-1, name=f'{base}_onehot'),
        helper.make_node('Mul', [f'{base}_onehot', book], [f'{base}_selected'], name=f'{base}_select'),
        helper.make_node('ReduceSum', [f'{base}_selected', int64s(model, f'{base}_last', [-1])], [f'{base}_weight'], keepdims=0, name=f'{base}_sum'),
    ]
    return nodes, f'{base}_weight', [stored, book], palette[codes]


def equal_where(model, base, weight):
    """3-bit codes stored int8; Where(Equal(codes, j), level_j, …) chained over the 8 levels."""
    codes, low, step = uniform_codes(weight, 3)
    levels = (low + np.arange(8, dtype=np.float32) * step).astype(np.float32)
    stored = quant.add_initializer(model, f'{base}_codes_i8', codes.astype(np.int8))
    nodes, previous = [], scalar(model, f'{base}_level7', levels[7])
    for level in range(7):
        code = quant.add_initializer(model, f'{base}_code{level}', np.array(level, dtype=np.int8))
        nodes += [
            helper.make_node('Equal', [stored, code], [f'{base}_is{level}'], name=f'{base}_equal{level}'),
            helper.make_node('Where', [f'{base}_is{level}', scalar(model, f'{base}_level{level}', levels[level]), previous], [f'{base}_chain{level}'], name=f'{base}_where{level}'),
        ]
        previous = f'{base}_chain{level}'
    return nodes, previous, [stored], levels[codes]


def less_where_float_codes(model, base, weight):
    """3-bit codes stored as small float16 integers (float storage); a thermometer decode: low plus one step for
    every threshold j - 0.5 the code exceeds, each step a Where(Less(threshold, code), step, 0)."""
    codes, low, step = uniform_codes(weight, 3)
    stored = quant.add_initializer(model, f'{base}_codes_f16', codes.astype(np.float16))
    nodes = [helper.make_node('Cast', [stored], [f'{base}_codes'], to=TensorProto.FLOAT, name=f'{base}_widen')]
    total = scalar(model, f'{base}_low', low)
    zero = scalar(model, f'{base}_zero', 0.0)
    step_name = scalar(model, f'{base}_step', step)
    for level in range(1, 8):
        nodes += [
            helper.make_node('Less', [scalar(model, f'{base}_threshold{level}', level - 0.5), f'{base}_codes'], [f'{base}_above{level}'], name=f'{base}_less{level}'),
            helper.make_node('Where', [f'{base}_above{level}', step_name, zero], [f'{base}_term{level}'], name=f'{base}_where{level}'),
            helper.make_node('Add', [total, f'{base}_term{level}'], [f'{base}_sum{level}'], name=f'{base}_add{level}'),
        ]
        total = f'{base}_sum{level}'
    decoded = np.zeros_like(weight, dtype=np.float32) + low
    for level in range(1, 8):
        decoded = (decoded + np.where(codes > level - 0.5, step, np.float32(0))).astype(np.float32)
    return nodes, total, [stored], decoded


def bitplanes_sum(model, base, weight):
    """4-bit codes as four bool planes [rows, cols]: sum of Cast(plane_b) * 2^b, then low + step * sum."""
    codes, low, step = uniform_codes(weight, 4)
    nodes, terms, written = [], [], []
    for bit in range(4):
        plane = quant.add_initializer(model, f'{base}_plane{bit}', ((codes >> bit) & 1).astype(bool))
        written.append(plane)
        nodes += [
            helper.make_node('Cast', [plane], [f'{base}_bit{bit}'], to=TensorProto.FLOAT, name=f'{base}_cast{bit}'),
            helper.make_node('Mul', [f'{base}_bit{bit}', scalar(model, f'{base}_weight{bit}', 2.0 ** bit)], [f'{base}_term{bit}'], name=f'{base}_place{bit}'),
        ]
        terms.append(f'{base}_term{bit}')
    nodes.append(helper.make_node('Sum', terms, [f'{base}_codes'], name=f'{base}_sum'))
    tail, output = affine(model, base, f'{base}_codes', low, step)
    return nodes + tail, output, written, (codes.astype(np.float32) * step + low).astype(np.float32)


def bitplanes_stacked(model, base, weight):
    """4-bit codes as one bool tensor [rows, cols, 4]: Cast · place values [4, 1] -> Reshape, then low + step * code."""
    codes, low, step = uniform_codes(weight, 4)
    planes = np.stack([((codes >> bit) & 1).astype(bool) for bit in range(4)], axis=-1)
    stored = quant.add_initializer(model, f'{base}_planes', planes)
    places = quant.add_initializer(model, f'{base}_places', np.array([[1], [2], [4], [8]], dtype=np.float32))
    nodes = [
        helper.make_node('Cast', [stored], [f'{base}_bits'], to=TensorProto.FLOAT, name=f'{base}_cast'),
        helper.make_node('MatMul', [f'{base}_bits', places], [f'{base}_code_column'], name=f'{base}_places'),
        helper.make_node('Reshape', [f'{base}_code_column', int64s(model, f'{base}_shape', list(weight.shape))], [f'{base}_codes'], name=f'{base}_reshape'),
    ]
    tail, output = affine(model, base, f'{base}_codes', low, step)
    return nodes + tail, output, [stored], (codes.astype(np.float32) * step + low).astype(np.float32)


def string_decimals(model, base, weight):
    """Each weight stored as its decimal text in a string tensor; Cast(string -> float)."""
    texts = np.array([f'{value:.9g}' for value in weight.ravel()], dtype=object).reshape(weight.shape)
    stored = f'{base}_decimals'
    model.graph.initializer.append(helper.make_tensor(stored, TensorProto.STRING, weight.shape, [text.encode() for text in texts.ravel()]))
    nodes = [helper.make_node('Cast', [stored], [f'{base}_weight'], to=TensorProto.FLOAT, name=f'{base}_parse')]
    return nodes, f'{base}_weight', [stored], np.array([np.float32(text) for text in texts.ravel()], dtype=np.float32).reshape(weight.shape)


def string_codes(model, base, weight):
    """4-bit codes stored as text ("0" … "15"); Cast(string -> int32) -> Cast(float), then low + step * code."""
    codes, low, step = uniform_codes(weight, 4)
    stored = f'{base}_code_texts'
    model.graph.initializer.append(helper.make_tensor(stored, TensorProto.STRING, weight.shape, [str(code).encode() for code in codes.ravel()]))
    nodes = [
        helper.make_node('Cast', [stored], [f'{base}_codes_i32'], to=TensorProto.INT32, name=f'{base}_parse'),
        helper.make_node('Cast', [f'{base}_codes_i32'], [f'{base}_codes'], to=TensorProto.FLOAT, name=f'{base}_cast'),
    ]
    tail, output = affine(model, base, f'{base}_codes', low, step)
    return nodes + tail, output, [stored], (codes.astype(np.float32) * step + low).astype(np.float32)


def float8_cast(model, base, weight):
    """float8 e4m3fn values of weight / scale; Cast(float) * scale (opset 19)."""
    scale = np.float32(np.abs(weight).max() / 448.0)
    values = (weight / scale).astype(ml_dtypes.float8_e4m3fn)
    stored = f'{base}_float8'
    model.graph.initializer.append(helper.make_tensor(stored, TensorProto.FLOAT8E4M3FN, weight.shape, values.view(np.uint8).tobytes(), raw=True))
    nodes = [
        helper.make_node('Cast', [stored], [f'{base}_unscaled'], to=TensorProto.FLOAT, name=f'{base}_cast'),
        helper.make_node('Mul', [f'{base}_unscaled', scalar(model, f'{base}_scale', scale)], [f'{base}_weight'], name=f'{base}_scale'),
    ]
    return nodes, f'{base}_weight', [stored], (values.astype(np.float32) * scale).astype(np.float32)


def int4_cast(model, base, weight):
    """Signed 4-bit values of weight / scale stored as int4 (two to a byte); Cast(float) * scale (opset 21)."""
    scale = np.float32(np.abs(weight).max() / 7.0)
    values = np.clip(np.round(weight / scale), -8, 7).astype(np.int8)
    stored = f'{base}_int4'
    model.graph.initializer.append(helper.make_tensor(stored, TensorProto.INT4, weight.shape, values.ravel().tolist()))
    nodes = [
        helper.make_node('Cast', [stored], [f'{base}_unscaled'], to=TensorProto.FLOAT, name=f'{base}_cast'),
        helper.make_node('Mul', [f'{base}_unscaled', scalar(model, f'{base}_scale', scale)], [f'{base}_weight'], name=f'{base}_scale'),
    ]
    return nodes, f'{base}_weight', [stored], (values.astype(np.float32) * scale).astype(np.float32)


def if_decoder(model, base, weight):
    """int8 codes decoded inside both branches of an If whose condition comes from attention_mask (always true)."""
    codes, low, step = uniform_codes(weight, 8)
    stored = quant.add_initializer(model, f'{base}_codes_u8', codes.astype(np.uint8))
    step_name, low_name = scalar(model, f'{base}_step', step), scalar(model, f'{base}_low', low)

    def branch(which: str) -> onnx.GraphProto:
        prefix = f'{base}_{which}'
        return helper.make_graph([
            helper.make_node('Cast', [stored], [f'{prefix}_codes'], to=TensorProto.FLOAT, name=f'{prefix}_cast'),
            helper.make_node('Mul', [f'{prefix}_codes', step_name], [f'{prefix}_scaled'], name=f'{prefix}_scale'),
            helper.make_node('Add', [f'{prefix}_scaled', low_name], [f'{prefix}_weight'], name=f'{prefix}_offset'),
        ], prefix, [], [helper.make_tensor_value_info(f'{prefix}_weight', TensorProto.FLOAT, list(weight.shape))])

    nodes = [
        helper.make_node('ReduceMax', ['attention_mask'], [f'{base}_mask_max'], keepdims=0, name=f'{base}_mask_max'),
        helper.make_node('GreaterOrEqual', [f'{base}_mask_max', int64s(model, f'{base}_zero', [0])], [f'{base}_always_vector'], name=f'{base}_always'),
        helper.make_node('Squeeze', [f'{base}_always_vector'], [f'{base}_always_true'], name=f'{base}_condition'),
        helper.make_node('If', [f'{base}_always_true'], [f'{base}_weight'], then_branch=branch('then'), else_branch=branch('else'), name=f'{base}_if'),
    ]
    return nodes, f'{base}_weight', [stored], (codes.astype(np.float32) * step + low).astype(np.float32)


def function_decoder(model, base, weight):
    """A model-local function (domain mlrb.disguise) whose body holds int8 codes and their scale as Constants and
    returns the weight; the main graph only calls it."""
    scale = np.float32(np.abs(weight).max() / 127.0)
    values = np.clip(np.round(weight / scale), -127, 127).astype(np.int8)
    op = f'Decode_{base}'
    codes, scale_name = f'{base}_function_codes', f'{base}_function_scale'
    body = [
        helper.make_node('Constant', [], [codes], value=numpy_helper.from_array(values, codes)),
        helper.make_node('Constant', [], [scale_name], value=numpy_helper.from_array(np.array(scale, dtype=np.float32), scale_name)),
        helper.make_node('Cast', [codes], ['unscaled'], to=TensorProto.FLOAT),
        helper.make_node('Mul', ['unscaled', scale_name], ['weight']),
    ]
    model.functions.append(helper.make_function(DOMAIN, op, [], ['weight'], body, [helper.make_opsetid('', 17)]))
    if all(entry.domain != DOMAIN for entry in model.opset_import):
        model.opset_import.append(helper.make_opsetid(DOMAIN, 1))
    nodes = [helper.make_node(op, [], [f'{base}_weight'], domain=DOMAIN, name=f'{base}_call')]
    # The Constant inside the function stores the codes; its output names them.
    return nodes, f'{base}_weight', [codes], (values.astype(np.float32) * scale).astype(np.float32)


def loop_decoder(model, base, weight, by_slice: bool = False):
    """A Loop over the matrix's rows whose body reads row i of int8 codes (Gather, or Slice [i, i+1)), casts and
    scales it; the rows come out as the Loop's scan output."""
    scale = np.float32(np.abs(weight).max() / 127.0)
    values = np.clip(np.round(weight / scale), -127, 127).astype(np.int8)
    stored = quant.add_initializer(model, f'{base}_codes_i8', values)
    scale_name = scalar(model, f'{base}_scale', scale)
    prefix = f'{base}_body'
    reader = f'{prefix}_row'
    if by_slice:
        one = int64s(model, f'{base}_one', [1])
        axes = int64s(model, f'{base}_axis0', [0])
        row = [
            helper.make_node('Unsqueeze', [f'{prefix}_i', axes], [f'{prefix}_start'], name=f'{prefix}_start'),
            helper.make_node('Add', [f'{prefix}_start', one], [f'{prefix}_end'], name=f'{prefix}_end'),
            helper.make_node('Slice', [stored, f'{prefix}_start', f'{prefix}_end', axes], [f'{prefix}_row_2d'], name=reader),
            helper.make_node('Squeeze', [f'{prefix}_row_2d', axes], [f'{prefix}_codes'], name=f'{prefix}_squeeze'),
        ]
    else:
        row = [helper.make_node('Gather', [stored, f'{prefix}_i'], [f'{prefix}_codes'], axis=0, name=reader)]
    body = helper.make_graph(row + [
        helper.make_node('Cast', [f'{prefix}_codes'], [f'{prefix}_unscaled'], to=TensorProto.FLOAT, name=f'{prefix}_cast'),
        helper.make_node('Mul', [f'{prefix}_unscaled', scale_name], [f'{prefix}_values'], name=f'{prefix}_scale'),
        helper.make_node('Identity', [f'{prefix}_condition'], [f'{prefix}_continue'], name=f'{prefix}_continue'),
    ], prefix, [helper.make_tensor_value_info(f'{prefix}_i', TensorProto.INT64, []), helper.make_tensor_value_info(f'{prefix}_condition', TensorProto.BOOL, [])],
        [helper.make_tensor_value_info(f'{prefix}_continue', TensorProto.BOOL, []), helper.make_tensor_value_info(f'{prefix}_values', TensorProto.FLOAT, [weight.shape[1]])])
    trips = quant.add_initializer(model, f'{base}_rows', np.array(weight.shape[0], dtype=np.int64))
    always = quant.add_initializer(model, f'{base}_true', np.array(True))
    nodes = [helper.make_node('Loop', [trips, always], [f'{base}_weight'], body=body, name=f'{base}_loop')]
    return nodes, f'{base}_weight', [stored], (values.astype(np.float32) * scale).astype(np.float32), {'opType': 'Slice' if by_slice else 'Gather', 'node': reader}


def integer_matmul(model, node, base, weight):
    """An integer op: activations rounded to int32 (x / sx), int8 weight codes cast to int32, MatMul in int32, the
    product cast back to float and scaled by sx * sw."""
    scale = np.float32(np.abs(weight).max() / 127.0)
    values = np.clip(np.round(weight / scale), -127, 127).astype(np.int8)
    activation_scale = np.float32(1 / 256)
    stored = quant.add_initializer(model, f'{base}_codes_i8', values)
    activations = node.input[0]
    output = node.output[0]
    nodes = [
        helper.make_node('Div', [activations, scalar(model, f'{base}_x_scale', activation_scale)], [f'{base}_x_scaled'], name=f'{base}_x_scale'),
        helper.make_node('Round', [f'{base}_x_scaled'], [f'{base}_x_rounded'], name=f'{base}_x_round'),
        helper.make_node('Cast', [f'{base}_x_rounded'], [f'{base}_x_int'], to=TensorProto.INT32, name=f'{base}_x_int'),
        helper.make_node('Cast', [stored], [f'{base}_w_int'], to=TensorProto.INT32, name=f'{base}_w_int'),
        helper.make_node('MatMul', [f'{base}_x_int', f'{base}_w_int'], [f'{base}_y_int'], name=f'{base}_int_matmul'),
        helper.make_node('Cast', [f'{base}_y_int'], [f'{base}_y_unscaled'], to=TensorProto.FLOAT, name=f'{base}_y_float'),
        helper.make_node('Mul', [f'{base}_y_unscaled', scalar(model, f'{base}_y_scale', activation_scale * scale)], [output], name=f'{base}_y_scale'),
    ]
    return nodes, [stored], (values.astype(np.float32) * scale).astype(np.float32), {'opType': 'MatMul', 'node': f'{base}_int_matmul'}


def qlinear_matmul(model, node, base, weight):
    """QLinearMatMul: activations quantized to uint8 with a fixed scale, uint8 weights with a zero point, the
    uint8 product dequantized."""
    low, high = float(weight.min()), float(weight.max())
    w_scale = np.float32((high - low) / 255)
    w_zero = np.uint8(np.clip(round(-low / w_scale), 0, 255))
    values = np.clip(np.round(weight / w_scale) + w_zero, 0, 255).astype(np.uint8)
    stored = quant.add_initializer(model, f'{base}_weight_u8', values)
    x_scale, x_zero = np.float32(8 / 255), np.uint8(128)
    y_scale, y_zero = np.float32(4 / 255), np.uint8(128)
    names = {key: quant.add_initializer(model, f'{base}_{key}', value) for key, value in [
        ('x_scale', np.array(x_scale)), ('x_zero', np.array(x_zero)), ('w_scale', np.array(w_scale)), ('w_zero', np.array(w_zero)),
        ('y_scale', np.array(y_scale)), ('y_zero', np.array(y_zero))]}
    nodes = [
        helper.make_node('QuantizeLinear', [node.input[0], names['x_scale'], names['x_zero']], [f'{base}_x_q'], name=f'{base}_quantize'),
        helper.make_node('QLinearMatMul', [f'{base}_x_q', names['x_scale'], names['x_zero'], stored, names['w_scale'], names['w_zero'], names['y_scale'], names['y_zero']],
                         [f'{base}_y_q'], name=f'{base}_qlinear'),
        helper.make_node('DequantizeLinear', [f'{base}_y_q', names['y_scale'], names['y_zero']], [node.output[0]], name=f'{base}_dequantize'),
    ]
    return nodes, [stored], ((values.astype(np.float32) - w_zero) * w_scale).astype(np.float32), {'opType': 'QLinearMatMul', 'node': f'{base}_qlinear'}


def disguise_layer(clean: onnx.ModelProto, decoder, violation: str, opset: int = 17) -> tuple[onnx.ModelProto, list[Matrix]]:
    """Layer 0's projections through `decoder`, which decodes the stored form into the MatMul's B input."""
    model = copy_of(clean)
    matrices: list[Matrix] = []
    for node, weight in layer_matmuls(model):
        base = node.name.removeprefix(LAYER).replace('/MatMul', '').replace('/', '_')
        made = decoder(model, base, weight)
        nodes, output, written, decoded = made[:4]
        quant.insert_before(model, node, nodes)
        node.input[1] = output
        matrices.append(Matrix(node.name, written, violation, decoded, made[4] if len(made) > 4 else None))
    drop_unused(model)
    return at_opset(model, opset), matrices


def replace_layer_ops(clean: onnx.ModelProto, replace, violation: str) -> tuple[onnx.ModelProto, list[Matrix]]:
    """Layer 0's projection MatMuls replaced by `replace`'s nodes (integer or quantized ops) that compute the product."""
    model = copy_of(clean)
    matrices: list[Matrix] = []
    for node, weight in layer_matmuls(model):
        base = node.name.removeprefix(LAYER).replace('/MatMul', '').replace('/', '_')
        nodes, written, decoded, reader = replace(model, node, base, weight)
        quant.insert_before(model, node, nodes)
        model.graph.node.remove(node)
        matrices.append(Matrix(node.name, written, violation, decoded, reader))
    quant.drop_unused_initializers(model)
    return model, matrices


def at_opset(model: onnx.ModelProto, opset: int) -> onnx.ModelProto:
    """The model at a newer default opset (float8 Cast needs 19, int4 Cast 21); ops whose form changed are converted."""
    if opset == 17:
        return model
    functions = list(model.functions)
    del model.functions[:]
    converted = onnx.version_converter.convert_version(model, opset)
    converted.functions.extend(functions)
    return converted


# ---- honest models ------------------------------------------------------------------------------------------

def low_rank(clean: onnx.ModelProto) -> tuple[onnx.ModelProto, onnx.ModelProto]:
    """Layer 0's projections factored at rank 4 (truncated SVD): x·A·B, two stored float matrices each."""
    model = copy_of(clean)
    products: dict[str, np.ndarray] = {}
    for node, weight in layer_matmuls(model):
        base = node.name.removeprefix(LAYER).replace('/MatMul', '').replace('/', '_')
        u, s, vt = np.linalg.svd(weight.astype(np.float64), full_matrices=False)
        a = (u[:, :4] * np.sqrt(s[:4])).astype(np.float32)
        b = (np.sqrt(s[:4])[:, None] * vt[:4]).astype(np.float32)
        first = quant.add_initializer(model, f'{base}_low_rank_a', a)
        second = quant.add_initializer(model, f'{base}_low_rank_b', b)
        quant.insert_before(model, node, [helper.make_node('MatMul', [node.input[0], first], [f'{base}_rank4'], name=f'{base}_low_rank')])
        node.input[0], node.input[1] = f'{base}_rank4', second
        products[node.name] = a.astype(np.float64) @ b.astype(np.float64)
    quant.drop_unused_initializers(model)
    return model, with_weights(clean, products)


def shared_layer(clean: onnx.ModelProto) -> tuple[onnx.ModelProto, onnx.ModelProto]:
    """Layer 1's projections read layer 0's stored matrices (cross-layer sharing); the reference stores copies."""
    model = copy_of(clean)
    first = {node.name.removeprefix('layers.0/'): node.input[1] for node, _ in layer_matmuls(model)}
    inits = quant.initializers(clean)
    copies: dict[str, np.ndarray] = {}
    for node in model.graph.node:
        if node.name.startswith('layers.1/') and node.name.removeprefix('layers.1/') in first:
            node.input[1] = first[node.name.removeprefix('layers.1/')]
            copies[node.name] = numpy_helper.to_array(inits[node.input[1]])
    quant.drop_unused_initializers(model)
    return model, with_weights(clean, copies)


KEPT_TOKENS = 48


def vocabulary_remap(clean: onnx.ModelProto) -> tuple[onnx.ModelProto, onnx.ModelProto]:
    """Vocabulary pruning that keeps the tokenizer: ids go through a stored int64 id map (dropped ids -> 0) into an
    embedding and LM head of the 48 kept tokens. Its reference is the clean model; feeds use kept ids only, and
    the logits are compared on the kept columns."""
    model = copy_of(clean)
    inits = quant.initializers(model)
    gather = next(node for node in model.graph.node if node.op_type == 'Gather' and node.input[1] == 'input_ids')
    head = next(node for node in model.graph.node if node.name == 'lm_head/MatMul')
    table = numpy_helper.to_array(inits[gather.input[0]])
    head_weight = numpy_helper.to_array(inits[head.input[1]])
    id_map = np.zeros(VOCAB, dtype=np.int64)
    id_map[:KEPT_TOKENS] = np.arange(KEPT_TOKENS)
    quant.add_initializer(model, 'kept_token_ids', id_map)
    quant.add_initializer(model, 'kept_embedding', table[:KEPT_TOKENS].copy())
    quant.add_initializer(model, 'kept_lm_head', head_weight[:, :KEPT_TOKENS].copy())
    quant.insert_before(model, gather, [helper.make_node('Gather', ['kept_token_ids', 'input_ids'], ['kept_ids'], axis=0, name='vocabulary_map')])
    gather.input[0], gather.input[1] = 'kept_embedding', 'kept_ids'
    head.input[1] = 'kept_lm_head'
    model.graph.output[0].type.tensor_type.shape.dim[2].dim_value = KEPT_TOKENS
    quant.drop_unused_initializers(model)
    return model, clean


# ---- checks and output --------------------------------------------------------------------------------------

def reader_of(model: onnx.ModelProto, value: str) -> dict[str, str]:
    """The first node (breadth first) that reads `value`'s data together with an input-dependent value."""
    op, _ = quant.meeting_reader(model, value)
    node = next(node for node in model.graph.node if value in node.input and node.op_type == op)
    return {'opType': op, 'node': node.name}


def float_elements(model: onnx.ModelProto) -> int:
    floats = (TensorProto.FLOAT, TensorProto.FLOAT16, TensorProto.BFLOAT16, TensorProto.DOUBLE)
    return int(sum(np.prod(tensor.dims) for tensor in model.graph.initializer if tensor.data_type in floats))


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    clean = tiny_llama()
    feeds = {'input_ids': np.random.default_rng(2).integers(0, KEPT_TOKENS, (1, quant.SEQ), dtype=np.int64),
             'attention_mask': np.ones((1, quant.SEQ), dtype=np.int64)}
    fixtures: list[Fixture] = []

    def disguised(name: str, klass: str, description: str, decoder, violation: str, opset: int = 17) -> None:
        model, matrices = disguise_layer(clean, decoder, violation, opset)
        reference = at_opset(with_weights(clean, {matrix.matmul: matrix.decoded for matrix in matrices}), opset)
        fixtures.append(Fixture(name, klass, description, model, reference, 'fail', matrices))

    def replaced(name: str, klass: str, description: str, replace, violation: str, tolerance: float) -> None:
        model, matrices = replace_layer_ops(clean, replace, violation)
        reference = with_weights(clean, {matrix.matmul: matrix.decoded for matrix in matrices})
        fixtures.append(Fixture(name, klass, description, model, reference, 'fail', matrices, tolerance))

    disguised('lookup-gather-codebook', 'table lookup', '4-bit codes (uint8) index a codebook of 16 floats: Gather(codebook, codes)', gather_codebook, 'table-lookup')
    disguised('lookup-gather-vectors', 'table lookup', 'vector quantization: int32 codes choose one of 16 stored 4-vectors, Gather -> Reshape', gather_vectors, 'table-lookup')
    disguised('palette-onehot-matmul', 'OneHot palette', 'OneHot(int64 codes, 16) · palette [16, 1]', onehot_matmul, 'table-lookup')
    disguised('palette-onehot-reducesum', 'OneHot palette', 'ReduceSum(OneHot(int32 codes, 16) * palette)', onehot_reducesum, 'table-lookup')
    disguised('compare-equal-where', 'comparison chain', 'int8 codes decoded by Where(Equal(codes, j), level_j, …) over 8 levels', equal_where, 'comparison')
    disguised('compare-less-where-float-codes', 'comparison chain', 'codes stored as float16 integers, a thermometer of Where(Less(j - 0.5, codes), step, 0)', less_where_float_codes, 'comparison')
    disguised('bitplanes-cast-sum', 'bool bit-planes', 'four bool planes per matrix: Sum(Cast(plane_b) * 2^b), then an affine map', bitplanes_sum, 'bool-data')
    disguised('bitplanes-stacked-matmul', 'bool bit-planes', 'one bool tensor [rows, cols, 4]: Cast · place values -> Reshape, then an affine map', bitplanes_stacked, 'bool-data')
    disguised('strings-decimal', 'string tensors', 'every weight as decimal text in a string tensor, Cast(string -> float)', string_decimals, 'string-data')
    disguised('strings-codes', 'string tensors', '4-bit codes as text, Cast(string -> int32) -> Cast(float), then an affine map', string_codes, 'string-data')
    disguised('lowbit-float8', 'low-bit types', 'float8 e4m3fn values and a scale, Cast(float) * scale (opset 19)', float8_cast, 'low-bit-storage', opset=19)
    disguised('lowbit-int4', 'low-bit types', 'int4 values (packed two to a byte) and a scale, Cast(float) * scale (opset 21)', int4_cast, 'low-bit-storage', opset=21)
    replaced('ops-qlinear-matmul', 'quantized and integer ops', 'QuantizeLinear -> QLinearMatMul(uint8 weights) -> DequantizeLinear', qlinear_matmul, 'quantization-op', 0.5)
    replaced('ops-integer-matmul', 'quantized and integer ops', 'activations rounded to int32, int8 weights cast to int32, an int32 MatMul, the product scaled back', integer_matmul, 'integer-codes', 0.5)
    disguised('subgraph-if-branches', 'decoder subgraph', 'uint8 codes decoded inside both branches of an If whose condition comes from attention_mask', if_decoder, 'subgraph')
    disguised('subgraph-local-function', 'decoder subgraph', 'a model-local function holds int8 codes as Constants and returns the weight', function_decoder, 'subgraph')
    disguised('subgraph-loop-gather', 'decoder subgraph', 'a Loop over rows: Gather(int8 codes, i) -> Cast -> Mul, rows as the scan output', loop_decoder, 'subgraph')
    disguised('subgraph-loop-slice', 'decoder subgraph', 'a Loop over rows: Slice(int8 codes, [i, i + 1)) -> Squeeze -> Cast -> Mul', lambda m, b, w: loop_decoder(m, b, w, by_slice=True), 'subgraph')

    fixtures.append(Fixture('honest-clean', 'honest', 'the clean export (rotary inverse frequencies are a small stored constant, positions computed on the fly)', clean, clean, 'pass'))
    fixtures.append(Fixture('honest-fp16', 'honest', 'the same model exported in half precision', tiny_llama(half=True), clean, 'pass', tolerance=0.05))
    tied = tiny_llama(tied=True)
    fixtures.append(Fixture('honest-tied-embeddings', 'honest', 'tied embeddings (TorchScript stores the head as the embedding transposed)', tied, tied, 'pass'))
    model, reference = low_rank(clean)
    fixtures.append(Fixture('honest-low-rank', 'honest', "layer 0's projections factored at rank 4: x·A·B", model, reference, 'pass'))
    model, reference = shared_layer(clean)
    fixtures.append(Fixture('honest-shared-layer', 'honest', "layer 1's projections read layer 0's stored matrices", model, reference, 'pass'))
    model, reference = vocabulary_remap(clean)
    fixtures.append(Fixture('honest-vocabulary-map', 'honest', 'vocabulary pruned to 48 tokens through a stored int64 id map read by Gather', model, reference, 'pass'))

    base_elements = stored_elements.stored_elements(clean)
    manifest = []
    for fixture in fixtures:
        onnx.checker.check_model(fixture.model, full_check=True)
        got, want = quant.logits(fixture.model, feeds), quant.logits(fixture.reference, feeds)
        difference = float(np.abs(got - want[..., :got.shape[-1]]).max())
        if difference > fixture.tolerance:
            raise SystemExit(f'{fixture.name}: logits differ from the reference by {difference} (> {fixture.tolerance})')
        weights = []
        for matrix in fixture.matrices:
            reader = matrix.reader or reader_of(fixture.model, next(node for node in fixture.model.graph.node if node.name == matrix.matmul).input[1])
            weights.append({'matmul': matrix.matmul, 'tensors': matrix.tensors, 'violation': matrix.violation, 'reader': reader})
        file = f'{fixture.name}.onnx.gz'
        # mtime 0: the same model gives the same bytes, so a rebuild changes only the fixtures that changed.
        (OUT / file).write_bytes(gzip.compress(fixture.model.SerializeToString(), mtime=0))
        elements = stored_elements.stored_elements(fixture.model)
        manifest.append({
            'file': file, 'class': fixture.klass, 'description': fixture.description, 'verdict': fixture.verdict, 'weights': weights,
            'storedElements': elements, 'baseStoredElements': base_elements, 'floatElements': float_elements(fixture.model),
            'maxLogitDifference': round(difference, 6),
        })
        print(f'{file:40s} {fixture.verdict}  stored {elements:6d} (base {base_elements})  |dlogits| {difference:.2e}  {os.path.getsize(OUT / file)} B')
    (OUT / 'manifest.json').write_text(json.dumps({'base': 'honest-clean.onnx.gz', 'fixtures': manifest}, indent=2) + '\n')


if __name__ == '__main__':
    main()
