#!/usr/bin/env python3
"""Adds to test/fixtures/edge/pruning/manifest.json (each fixture and its base) and to
test/fixtures/edge/phi-fp16-mask/facts.json the stored parameter count, as the storage-based count defines it, computed here with the onnx package and numpy: every stored element of every dtype (initializers and
sparse initializers of the graph and its subgraphs, Constant nodes in every form, model-local functions' Constants),
with a copy counted once:
- a tensor holding the same bytes as an earlier one of the same dtype and shape (256 bytes or more);
- a tied LM head an exporter stored apart: a 2-D tensor holding the token embedding's values (the table that
  input_ids index) in its own or the transposed layout, or, quantized to int8/uint8, correlating with them at 0.999
  or more (Pearson, as a quantizer's scale and zero point leave them).

Usage: /work/pyenv/bin/python scripts/edge/stored_elements.py   (seconds; needs onnx)
"""
from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import onnx
from onnx import numpy_helper

EDGE = Path(__file__).resolve().parents[2] / 'test' / 'fixtures' / 'edge'
DIRECTORY = EDGE / 'pruning'
SINGLE = {'value_int': 1, 'value_float': 1, 'value_string': 1}
QUANTIZED_COPY_CORRELATION = 0.999


def constant_elements(attribute: onnx.AttributeProto) -> tuple[int, bytes | None]:
    if attribute.name == 'value':
        array = numpy_helper.to_array(attribute.t)
        return array.size, (array.dtype.str + str(array.shape)).encode() + array.tobytes()
    if attribute.name == 'sparse_value':
        return int(np.prod(attribute.sparse_tensor.dims)), None
    if attribute.name in ('value_ints', 'value_floats', 'value_strings'):
        return len(getattr(attribute, attribute.name[len('value_'):])), None
    return SINGLE.get(attribute.name, 0), None


def graph_tensors(graph: onnx.GraphProto):
    for tensor in graph.initializer:
        array = numpy_helper.to_array(tensor)
        yield array.size, (array.dtype.str + str(array.shape)).encode() + array.tobytes()
    for sparse in graph.sparse_initializer:
        yield int(np.prod(sparse.dims)), None
    yield from node_tensors(graph.node)


def node_tensors(nodes):
    for node in nodes:
        for attribute in node.attribute:
            if node.op_type == 'Constant' and node.domain in ('', 'ai.onnx'):
                yield constant_elements(attribute)
            for sub in ([attribute.g] if attribute.HasField('g') else []) + list(attribute.graphs):
                yield from graph_tensors(sub)


def token_embedding(graph: onnx.GraphProto) -> np.ndarray | None:
    """The initializer a Gather reads rows of with input_ids as the indices (reshaped or cast on the way)."""
    initializers = {tensor.name: tensor for tensor in graph.initializer}
    ids = {'input_ids'}
    for node in graph.node:  # nodes are in topological order
        if node.op_type in ('Cast', 'Reshape', 'Unsqueeze', 'Squeeze', 'Flatten', 'Identity') and node.input[0] in ids:
            ids.add(node.output[0])
    for node in graph.node:
        if node.op_type == 'Gather' and node.input[1] in ids and node.input[0] in initializers:
            return numpy_helper.to_array(initializers[node.input[0]])
    return None


def copies_embedding(embedding: np.ndarray, tensor: onnx.TensorProto) -> bool:
    if tensor.data_type not in (onnx.TensorProto.FLOAT, onnx.TensorProto.FLOAT16, onnx.TensorProto.INT8, onnx.TensorProto.UINT8):
        return False
    array = numpy_helper.to_array(tensor)
    if array.ndim != 2 or embedding.ndim != 2 or array.size != embedding.size or array is embedding:
        return False
    layouts = [layout for layout in (array, array.T) if layout.shape == embedding.shape]
    if array.dtype in (np.int8, np.uint8):
        return any(np.corrcoef(embedding.astype(np.float64).ravel(), layout.astype(np.float64).ravel())[0, 1] >= QUANTIZED_COPY_CORRELATION for layout in layouts)
    return any(np.array_equal(embedding, layout) for layout in layouts)


def stored_elements(model: onnx.ModelProto) -> int:
    seen: set[bytes] = set()
    total = 0
    tensors = list(graph_tensors(model.graph))
    for function in model.functions:
        tensors.extend(node_tensors(function.node))
    for elements, content in tensors:
        if content is not None and len(content) >= 256:
            if content in seen:
                continue
            seen.add(content)
        total += elements
    embedding = token_embedding(model.graph)
    if embedding is not None:
        embedding_bytes = embedding.tobytes()
        # The embedding itself, or a byte-identical copy of it (already counted once above), is no head copy.
        heads = [tensor for tensor in model.graph.initializer
                 if numpy_helper.to_array(tensor).tobytes() != embedding_bytes and copies_embedding(embedding, tensor)]
        total -= sum(int(np.prod(head.dims)) for head in heads[:1])
    return total


def main() -> None:
    path = DIRECTORY / 'manifest.json'
    manifest = json.loads(path.read_text())
    cache: dict[str, int] = {}
    def count(file: str) -> int:
        if file not in cache:
            cache[file] = stored_elements(onnx.load_from_string(gzip.decompress((DIRECTORY / file).read_bytes())))
        return cache[file]
    for fixture in manifest['fixtures']:
        fixture['storedElements'] = count(fixture['file'])
        fixture['baseStoredElements'] = count(fixture['base'])
    path.write_text(json.dumps(manifest, indent=2) + '\n')
    # transformers' count is `parameters`; what the export stores besides (its constants) is in this one.
    facts_path = EDGE / 'phi-fp16-mask' / 'facts.json'
    facts = json.loads(facts_path.read_text())
    facts['stored_elements'] = stored_elements(onnx.load(str(EDGE / 'phi-fp16-mask' / 'model.onnx')))
    facts_path.write_text(json.dumps(facts, indent=2) + '\n')


if __name__ == '__main__':
    main()
