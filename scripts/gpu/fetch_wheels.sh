#!/usr/bin/env bash
# Download the wheels in WHEELS.txt into folder $1, for CPython 3.12 on manylinux x86_64 (the GPU box),
# from whatever index pip is configured with (set PIP_INDEX_URL to the local mirror to skip slow
# retries against pypi.org). --no-deps: dependencies are either already on the box or stubbed.
set -euo pipefail
dest="${1:?usage: fetch_wheels.sh DEST_DIR}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mkdir -p "$dest"
grep -vE '^\s*(#|$)' "$here/WHEELS.txt" | while read -r spec; do
  python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
    --platform any -d "$dest" "$spec"
done
ls -l "$dest"
du -sh "$dest"
