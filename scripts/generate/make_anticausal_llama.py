"""Writes a hostile variant of the Llama no-past generation fixture whose attention mask is not causal.

The decodeCache rewrite (native/graph/decode_cache.h) lets fused attention keep a no-past graph's keys and
values, carrying each cached key's mask value over to later queries. That is exact only for causal masks with
per-key values; the fused op checks each pass's mask and refuses any other form. This variant turns the
export's causal comparison (key position <= query position) into key position >= query position, a valid
graph whose every query sees the keys after it, so decoding with the cache must fail with a clear error
rather than produce ids the graph does not mean.

Run: /work/pyenv/bin/python scripts/generate/make_anticausal_llama.py   (reads and writes test/fixtures/generate/)
"""
from __future__ import annotations

from pathlib import Path

import onnx

FIXTURES = Path(__file__).resolve().parents[2] / 'test' / 'fixtures' / 'generate'


def main() -> None:
    model = onnx.load(str(FIXTURES / 'llama-nopast.onnx'))
    comparisons = [node for node in model.graph.node if node.op_type == 'LessOrEqual']
    if len(comparisons) != 1:
        raise SystemExit(f'expected one LessOrEqual (the causal comparison), found {len(comparisons)}')
    comparisons[0].op_type = 'GreaterOrEqual'
    onnx.checker.check_model(model)
    onnx.save(model, str(FIXTURES / 'llama-anticausal.onnx'))


if __name__ == '__main__':
    main()
