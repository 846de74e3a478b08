"""Writes single-mutation variants of an ONNX model, the kinds of damage a fuzzer found the load path
mishandled: an int64 constant changed (Slice axes, Reshape shapes), a node or initializer duplicated,
initializer dims or dtype that no longer match the data, an int attribute changed, an input rewired.
scripts/hostile/compare-fused-unfused.ts then loads each with and without CPU fusion.

Usage: mutate_model.py MODEL OUT_DIR [COUNT] [SEED]; OUT_DIR/index.txt lists file and mutation.
"""
import copy
import random
import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import AttributeProto, TensorProto, numpy_helper


def int64_constants(graph):
    found = [tensor for tensor in graph.initializer if tensor.data_type == TensorProto.INT64]
    for node in graph.node:
        if node.op_type == "Constant":
            found += [a.t for a in node.attribute if a.name == "value" and a.t.data_type == TensorProto.INT64]
    return [tensor for tensor in found if numpy_helper.to_array(tensor).size > 0]


def change_int_constant(graph, rng):
    tensor = rng.choice(int64_constants(graph))
    values = numpy_helper.to_array(tensor).copy()
    flat = values.reshape(-1)
    index = rng.randrange(flat.size)
    flat[index] = rng.choice([-9, -5, -2, -1, 0, 1, 2, 3, 5, 7, 9, 1 << 31])
    tensor.CopyFrom(numpy_helper.from_array(values, tensor.name))
    return f"int64 constant {tensor.name}[{index}] = {flat[index]}"


def duplicate_node(graph, rng):
    index = rng.randrange(len(graph.node))
    graph.node.insert(index + 1, copy.deepcopy(graph.node[index]))
    return f"node {graph.node[index].name} duplicated"


def duplicate_initializer(graph, rng):
    tensor = rng.choice(list(graph.initializer))
    graph.initializer.append(copy.deepcopy(tensor))
    return f"initializer {tensor.name} duplicated"


def lie_about_dims(graph, rng):
    tensor = rng.choice([t for t in graph.initializer if len(t.dims) > 0])
    axis = rng.randrange(len(tensor.dims))
    tensor.dims[axis] = max(0, tensor.dims[axis] + rng.choice([-1, 1, 2]))
    return f"initializer {tensor.name} dims {list(tensor.dims)}"


def change_dtype(graph, rng):
    tensor = rng.choice(list(graph.initializer))
    tensor.data_type = rng.choice([TensorProto.UINT8, TensorProto.INT8, TensorProto.INT16, TensorProto.INT32, TensorProto.FLOAT16, TensorProto.DOUBLE])
    return f"initializer {tensor.name} dtype {tensor.data_type}"


def change_int_attribute(graph, rng):
    node, attribute = rng.choice([(n, a) for n in graph.node for a in n.attribute if a.type == AttributeProto.INT])
    attribute.i = rng.choice([-3, -1, 0, 1, 2, 5])
    return f"attribute {node.name}.{attribute.name} = {attribute.i}"


def rewire_input(graph, rng):
    node = rng.choice([n for n in graph.node if n.input])
    values = [output for n in graph.node for output in n.output] + [t.name for t in graph.initializer]
    slot = rng.randrange(len(node.input))
    node.input[slot] = rng.choice(values)
    return f"input {slot} of {node.name} rewired to {node.input[slot]}"


MUTATIONS = [change_int_constant, duplicate_node, duplicate_initializer, lie_about_dims, change_dtype, change_int_attribute, rewire_input]


def main(model_path: str, out_dir: str, count: int, seed: int) -> None:
    base = onnx.load(model_path)
    rng = random.Random(seed)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    lines = []
    for index in range(count):
        model = copy.deepcopy(base)
        what = rng.choice(MUTATIONS)(model.graph, rng)
        name = f"mutant-{index:03d}.onnx"
        onnx.save(model, str(out / name))
        lines.append(f"{name}\t{what}")
    (out / "index.txt").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 60, int(sys.argv[4]) if len(sys.argv) > 4 else 1234)
