#!/usr/bin/env python3
"""Records the parameters of each encoder-decoder fixture export counted from storage, the reference for
`inspect`'s count (test/inspect/graph/seq2seq-parameters.native.test.ts), computed here with onnx and numpy, and ties the count
to transformers' num_parameters() of the checkpoint the export was made from (test/fixtures/seq2seq/NAME/hf).

The count: every stored element of every graph of the export (initializers and sparse initializers of each graph
and its subgraphs, Constant nodes in every form), a tensor counted once where it repeats another:
- the same dtype, shape and bytes as an earlier tensor of any graph of the export (graphs in the order encoder,
  decoder, decoder with past), the tensor 256 bytes or more or the earlier one of the same name;
- a graph's LM head stored as its token embedding transposed (a tied head the exporter folded): the table a Gather
  reads with the ids as indices, and another 2-D float tensor of the graph holding its values transposed.
Only plainly stored payloads (raw_data or external) are compared, as the count compares them.

The tie to transformers: each tensor counted is matched by its values (own or transposed layout) to the
checkpoint's parameters (model.named_parameters(), a tied pair once); every parameter must be held by exactly one
counted tensor, so those tensors' elements are num_parameters(). The rest are what no checkpoint has — shape
constants, the layer norms' epsilon — written as `otherElements`; storedElements = numParameters + otherElements.

Run from the repo root: /work/pyenv/bin/python scripts/seq2seq/stored_parameters.py   (seconds)
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnx
import torch
from onnx import numpy_helper
from transformers import T5ForConditionalGeneration

FIXTURES = Path(__file__).resolve().parents[2] / 'test' / 'fixtures' / 'seq2seq'
LAYOUTS = {'nopast': ['encoder_model.onnx', 'decoder_model.onnx'],
           'past': ['encoder_model.onnx', 'decoder_model.onnx', 'decoder_with_past_model.onnx'],
           'merged': ['encoder_model.onnx', 'decoder_model_merged.onnx']}
MIN_COPY_BYTES = 256
SINGLE = ('value_int', 'value_float', 'value_string')


class Stored:
    def __init__(self, graph: str, name: str, elements: int, array: np.ndarray | None, plain: bool):
        self.graph, self.name, self.elements, self.array, self.plain = graph, name, elements, array, plain


def plain(tensor: onnx.TensorProto) -> bool:
    return tensor.HasField('raw_data') or tensor.data_location == onnx.TensorProto.EXTERNAL


def walk(graph: onnx.GraphProto, file: str, base: Path):
    for tensor in graph.initializer:
        array = numpy_helper.to_array(tensor, base_dir=str(base))
        yield Stored(file, tensor.name, array.size, array, plain(tensor))
    for sparse in graph.sparse_initializer:
        yield Stored(file, sparse.values.name, int(np.prod(sparse.dims)), None, False)
    for node in graph.node:
        for attribute in node.attribute:
            if node.op_type == 'Constant' and node.domain in ('', 'ai.onnx'):
                if attribute.name == 'value':
                    array = numpy_helper.to_array(attribute.t)
                    yield Stored(file, node.output[0], array.size, array, plain(attribute.t))
                elif attribute.name == 'sparse_value':
                    yield Stored(file, node.output[0], int(np.prod(attribute.sparse_tensor.dims)), None, False)
                elif attribute.name in SINGLE:
                    yield Stored(file, node.output[0], 1, None, False)
                else:
                    yield Stored(file, node.output[0], len(getattr(attribute, attribute.name[len('value_'):])), None, False)
            for sub in ([attribute.g] if attribute.HasField('g') else []) + list(attribute.graphs):
                yield from walk(sub, file, base)


def nodes(graph: onnx.GraphProto):
    for node in graph.node:
        yield node
        for attribute in node.attribute:
            for sub in ([attribute.g] if attribute.HasField('g') else []) + list(attribute.graphs):
                yield from nodes(sub)


def token_embedding_name(graph: onnx.GraphProto) -> str | None:
    """The table a Gather reads rows of with input_ids (cast or reshaped on the way) as the indices, in any subgraph."""
    ids = {'input_ids'}
    every = list(nodes(graph))
    for node in every:
        if node.op_type in ('Cast', 'Reshape', 'Unsqueeze', 'Squeeze', 'Flatten', 'Identity') and node.input and node.input[0] in ids:
            ids.add(node.output[0])
    return next((node.input[0] for node in every if node.op_type == 'Gather' and node.input[1] in ids), None)


def count(folder: Path, files: list[str]) -> tuple[list[Stored], list[tuple[str, str]]]:
    tensors: list[Stored] = []
    copies: list[tuple[str, str]] = []
    kept: list[Stored] = []
    for file in files:
        model = onnx.load(str(folder / file), load_external_data=False)
        in_graph = list(walk(model.graph, file, folder))
        for tensor in in_graph:
            original = None
            if tensor.plain and tensor.array is not None:
                original = next((earlier for earlier in kept if earlier.plain and earlier.array is not None
                                 and earlier.array.dtype == tensor.array.dtype and earlier.array.shape == tensor.array.shape
                                 and (tensor.array.nbytes >= MIN_COPY_BYTES or earlier.name == tensor.name)
                                 and earlier.array.tobytes() == tensor.array.tobytes()), None)
            if original is None:
                kept.append(tensor)
            else:
                copies.append((f'{file}/{tensor.name}', f'{original.graph}/{original.name}'))
        table_name = token_embedding_name(model.graph)
        table = next((tensor for tensor in in_graph if tensor.name == table_name and tensor.array is not None), None)
        if table is not None and table.array.ndim == 2:
            for tensor in [t for t in kept if t.graph == file and t is not table and t.array is not None and t.array.ndim == 2]:
                if tensor.array.shape == table.array.T.shape and np.array_equal(tensor.array, table.array.T):
                    kept.remove(tensor)
                    copies.append((f'{file}/{tensor.name}', f'{file}/{table.name} (transposed)'))
        tensors.extend(in_graph)
    return kept, copies


def tie_to_checkpoint(kept: list[Stored], model: T5ForConditionalGeneration) -> int:
    """Elements of counted tensors that hold a checkpoint parameter; asserts each parameter is held exactly once."""
    held = {name: 0 for name, _ in model.named_parameters()}
    matched = 0
    for tensor in kept:
        if tensor.array is None or tensor.array.dtype != np.float32:
            continue
        owners = [name for name, parameter in model.named_parameters()
                  if parameter.numel() == tensor.array.size and any(
                      layout.shape == tuple(parameter.shape) and np.array_equal(layout, parameter.detach().numpy())
                      for layout in (tensor.array, tensor.array.T))]
        assert len(owners) <= 1, f'{tensor.graph}/{tensor.name} holds several parameters {owners}'
        if owners:
            held[owners[0]] += 1
            matched += tensor.array.size
    unheld = {name: times for name, times in held.items() if times != 1}
    assert not unheld, f'parameters not held exactly once: {unheld}'
    assert matched == model.num_parameters(), (matched, model.num_parameters())
    return matched


def main() -> None:
    torch.manual_seed(0)
    out: dict = {}
    for name in ('t5', 'flan-t5'):
        model = T5ForConditionalGeneration.from_pretrained(FIXTURES / name / 'hf').eval()
        entry: dict = {'numParameters': model.num_parameters(), 'layouts': {}}
        for layout, files in LAYOUTS.items():
            kept, copies = count(FIXTURES / name / layout, files)
            stored = sum(tensor.elements for tensor in kept)
            checkpoint = tie_to_checkpoint(kept, model)
            entry['layouts'][layout] = {'storedElements': stored, 'otherElements': stored - checkpoint, 'copies': len(copies)}
            print(name, layout, 'stored', stored, '= num_parameters', checkpoint, '+ other', stored - checkpoint, f'({len(copies)} copies)')
        out[name] = entry
    (FIXTURES / 'expectations' / 'stored-parameters.json').write_text(json.dumps(out, indent=1) + '\n')


if __name__ == '__main__':
    main()
