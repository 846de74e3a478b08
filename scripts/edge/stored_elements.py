#!/usr/bin/env python3
"""Adds to test/fixtures/edge/pruning/manifest.json each fixture's stored parameter count, as the storage-based count
defines it, computed here with the onnx package: every stored element of every dtype (initializers and sparse
initializers of the graph and its subgraphs, Constant nodes in every form, model-local functions' Constants), with a
tensor holding the same bytes as an earlier one of the same dtype and shape (256 bytes or more) counted once.

Usage: /work/pyenv/bin/python scripts/edge/stored_elements.py   (seconds; needs onnx)
"""
from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import onnx
from onnx import numpy_helper

DIRECTORY = Path(__file__).resolve().parents[2] / 'test' / 'fixtures' / 'edge' / 'pruning'
SINGLE = {'value_int': 1, 'value_float': 1, 'value_string': 1}


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


if __name__ == '__main__':
    main()
