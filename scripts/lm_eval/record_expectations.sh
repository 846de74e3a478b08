#!/usr/bin/env bash
# Re-records test/fixtures/lm-eval/ from lm-eval 0.4.13 itself (the wheel in .xa/whl/): the rows its make_table
# builds from our results file for the tiny fixture run, the task versions in its YAMLs, the requests and
# metrics its tasks build from the hub fixtures, and gsm8k's generate_until contexts, filters and exact_match.
# Run from the repo root; needs /work/pyenv/bin/python (pyyaml, numpy, jinja2, datasets) and node. Tests read
# the outputs without Python.
set -euo pipefail
python=${PYTHON:-/work/pyenv/bin/python}
target=${LMEVAL_TARGET:-/tmp/lmeval}
if [ ! -d "$target/lm_eval" ]; then
  PIP_INDEX_URL=file:///opt/pypi/simple "$python" -m pip install --quiet --no-deps --target "$target" .xa/whl/lm_eval-0.4.13-py3-none-any.whl
fi
out=test/fixtures/lm-eval
mkdir -p "$out"
results=$(mktemp --suffix=.json)
trap 'rm -f "$results"' EXIT
npx tsx scripts/lm_eval/tiny-results.ts "$results"
PYTHONPATH="$target:scripts/gpu/stubs" "$python" scripts/lm_eval/render_table.py "$results" "$out/tiny-run.make_table.json"
PYTHONPATH="$target:scripts/gpu/stubs" "$python" scripts/lm_eval/task_versions.py "$out/task-versions.json"
# `datasets` needs the real requests package, so this one runs without the requests stub.
PYTHONPATH="$target:scripts/lm_eval/stubs" "$python" scripts/lm_eval/task_requests.py "$out/task-requests.json"
PYTHONPATH="$target:scripts/lm_eval/stubs" "$python" scripts/lm_eval/record_gsm8k_expectations.py "$out/gsm8k-expectations.json"
