#!/usr/bin/env bash
# Fuzzes the native readers and rewrites for SECONDS (default 60) from the seed corpus: the generated seeds in
# native/fuzz/corpus plus the exporters' graphs the tests use. Builds the target first if needed. A finding
# exits non-zero with the input saved under build-fuzz/artifacts (replay: build-fuzz/onnx_fuzz FILE).
#   native/fuzz/run.sh [SECONDS] [SEED]
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds="${1:-60}"
seed="${2:-1}"
# (Re)built when missing or older than any native source or native/sources.json.
if [ ! -x build-fuzz/onnx_fuzz ] || [ -n "$(find native \( -name '*.cc' -o -name '*.h' -o -name sources.json \) -newer build-fuzz/onnx_fuzz -print -quit)" ]; then
  native/fuzz/build.sh build-fuzz
fi
corpus=(native/fuzz/corpus test/fixtures/hostile test/fixtures/edge/quant test/fixtures/edge/phi-fp16-mask/model.onnx)
mkdir -p build-fuzz/artifacts
if build-fuzz/onnx_fuzz -help=1 2>&1 | grep -q libFuzzer; then
  # libFuzzer: the corpus folder it grows is a copy, so the committed seeds stay as they are.
  # libFuzzer runs file arguments once instead of fuzzing, so every seed goes into that one folder.
  mkdir -p build-fuzz/corpus
  find "${corpus[@]}" -name '*.onnx' -type f -exec cp -n {} build-fuzz/corpus/ \;
  build-fuzz/onnx_fuzz -max_total_time="$seconds" -seed="$seed" -timeout=20 -rss_limit_mb=4096 \
    -artifact_prefix=build-fuzz/artifacts/ build-fuzz/corpus
else
  build-fuzz/onnx_fuzz --seconds "$seconds" --seed "$seed" --timeout-seconds 20 --artifacts build-fuzz/artifacts "${corpus[@]}"
fi
