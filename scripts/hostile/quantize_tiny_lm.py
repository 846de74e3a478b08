"""Quantizes the float tiny LM to int8 with onnxruntime.quantization, two ways:

- tiny-qdq-int8.onnx: static QDQ (QuantizeLinear -> DequantizeLinear before each weight MatMul, activations
  calibrated on random token rows). The attention MatMuls are left in float so that the attention blocks
  still match the CPU fusion's pattern: the fixture tests that the fusion declines quantized graphs.
- tiny-dynamic-int8.onnx: dynamic quantization (DynamicQuantizeLinear + MatMulInteger).

Usage: quantize_tiny_lm.py FLOAT_MODEL OUT_DIR
"""
import sys
from pathlib import Path

import numpy as np
import onnx
from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_dynamic, quantize_static

VOCAB = 64  # the fixture's vocabulary (write-float-tiny-lm.ts)


class RandomRows(CalibrationDataReader):
    def __init__(self) -> None:
        rng = np.random.default_rng(0)
        self.rows = iter(
            {"input_ids": rng.integers(4, VOCAB, (1, 24)).astype(np.int64), "attention_mask": np.ones((1, 24), np.int64)}
            for _ in range(8)
        )

    def get_next(self):
        return next(self.rows, None)


def main(float_model: str, out_dir: str) -> None:
    out = Path(out_dir)
    model = onnx.load(float_model)
    weights = {tensor.name for tensor in model.graph.initializer}
    attention_matmuls = [node.name for node in model.graph.node if node.op_type == "MatMul" and node.input[1] not in weights]
    quantize_static(
        float_model,
        str(out / "tiny-qdq-int8.onnx"),
        RandomRows(),
        quant_format=QuantFormat.QDQ,
        activation_type=QuantType.QInt8,
        weight_type=QuantType.QInt8,
        op_types_to_quantize=["MatMul"],
        nodes_to_exclude=attention_matmuls,
    )
    quantize_dynamic(float_model, str(out / "tiny-dynamic-int8.onnx"), weight_type=QuantType.QInt8)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
