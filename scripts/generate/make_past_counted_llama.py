"""Writes a variant of the Llama with-past fixture (no position_ids) whose position Range starts at the past length.

The decodeCache rewrite (native/graph/decode_cache.h) runs graphs exported with past through the fused
attention's cache by feeding them an empty past each pass. That is exact where positions are the past length
plus a Range(0, n) the rewrite moves to the decoded offset (the fixture's own form), not where a Range starts at
the past length itself: fed an empty past, such a graph would number every pass from 0. This variant makes the
fixture's Range(0, n) a Range(past, past + n) (its positions then count the past twice: only the rewrite's
refusal is tested on it), so the rewrite must decline it and generation keep feeding it its own past.

Run: /work/pyenv/bin/python scripts/generate/make_past_counted_llama.py   (reads and writes test/fixtures/generate/)
"""
from __future__ import annotations

from pathlib import Path

import onnx
from onnx import helper

FIXTURES = Path(__file__).resolve().parents[2] / 'test' / 'fixtures' / 'generate'


def main() -> None:
    model = onnx.load(str(FIXTURES / 'llama-past-nopositions.onnx'))
    graph = model.graph
    ranges = [node for node in graph.node if node.op_type == 'Range']
    if not ranges:
        raise SystemExit('expected a Range numbering positions')
    past_length = 'mlrb_fixture_past_length'
    index = list(graph.node).index(ranges[0])
    shape = helper.make_node('Shape', ['past_key_values.0.key'], [past_length + '_shape'], start=2, end=3)
    squeeze = helper.make_node('Squeeze', [past_length + '_shape'], [past_length])
    cast_start = helper.make_node('Cast', [past_length], [past_length + '_typed'], to=onnx.TensorProto.INT64)
    limit = helper.make_node('Add', [ranges[0].input[1], past_length + '_typed'], [past_length + '_limit'])
    for offset, node in enumerate([shape, squeeze, cast_start, limit]):
        graph.node.insert(index + offset, node)
    ranges[0].input[0] = past_length + '_typed'
    ranges[0].input[1] = past_length + '_limit'
    onnx.checker.check_model(model)
    onnx.save(model, str(FIXTURES / 'llama-past-counted.onnx'))


if __name__ == '__main__':
    main()
