#!/usr/bin/env bash
# Builds the native fuzz target with AddressSanitizer and UndefinedBehaviorSanitizer: under clang with
# libFuzzer (coverage-guided), else under g++ with standalone_driver.cc. The sources are native/sources.json's
# "core" list (the readers and rewrites, no ORT or N-API), so the target fuzzes exactly what the addon runs.
#   native/fuzz/build.sh [OUT_DIR]        -> OUT_DIR/onnx_fuzz (default build-fuzz/)
set -euo pipefail
cd "$(dirname "$0")/../.."
out="${1:-build-fuzz}"
mkdir -p "$out"
mapfile -t sources < <(node -e 'for (const s of require("./native/sources.json").core) console.log(s)')
flags=(-std=c++20 -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined -pthread)
if command -v clang++ >/dev/null 2>&1; then
  clang++ "${flags[@]}" -fsanitize=fuzzer native/fuzz/onnx_fuzz_target.cc "${sources[@]}" -o "$out/onnx_fuzz"
  echo "built $out/onnx_fuzz (clang++, libFuzzer)"
else
  g++ "${flags[@]}" native/fuzz/onnx_fuzz_target.cc native/fuzz/standalone_driver.cc "${sources[@]}" -o "$out/onnx_fuzz"
  echo "built $out/onnx_fuzz (g++, standalone mutation driver)"
fi
