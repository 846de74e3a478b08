#!/bin/sh
# Regenerates test/fixtures/hostile/tiny-{qdq,dynamic}-int8.onnx: the float tiny LM from the project's
# writer, quantized by onnxruntime.quantization. PYTHON names an interpreter with onnx and onnxruntime.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
float_model=$(cd "$root" && npx tsx scripts/hostile/write-float-tiny-lm.ts "$work")
"${PYTHON:-python3}" "$root/scripts/hostile/quantize_tiny_lm.py" "$float_model" "$root/test/fixtures/hostile"
