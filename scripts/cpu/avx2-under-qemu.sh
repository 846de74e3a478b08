#!/usr/bin/env bash
# Runs the fused attention's AVX2-path checks on an emulated AVX2-only CPU: QEMU user mode with -cpu Haswell
# offers FMA3 and AVX2 but no AVX-512, so ONNX Runtime's MLAS picks its FMA3/AVX2 kernels there and the
# bit-for-bit assertions of these tests hold against the real kernels, not only against our scalar model
# of them. For AVX-512 machines, where the AVX2 path cannot otherwise meet MLAS's AVX2 kernels.
#   needs: qemu-user >= 7.2 (the first release whose TCG emulates AVX2 and FMA3), the addon built
#   usage: scripts/cpu/avx2-under-qemu.sh [extra vitest arguments]     (slow: minutes, not seconds)
# Tests run in worker threads (--pool threads): forked workers would exec node outside the emulator.
# MLRB_CPU_PATH is set here because a worker thread's process.env does not reach the addon's getenv.
set -euo pipefail
if ! command -v qemu-x86_64 >/dev/null; then
  echo "avx2-under-qemu: qemu-x86_64 not found (Debian/Ubuntu: apt-get install qemu-user)" >&2
  exit 2
fi
cd "$(dirname "$0")/../.."
MLRB_CPU_PATH=avx2 exec qemu-x86_64 -cpu Haswell "$(command -v node)" node_modules/vitest/vitest.mjs run --pool threads \
  --testTimeout 1800000 test/native/kernel-rounding.native.test.ts test/native/forced-kernel-path.native.test.ts "$@"
