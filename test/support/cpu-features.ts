/**
 * Whether the fused attention rounds as this machine's ONNX Runtime does, for assertions that depend on it.
 * The kernel follows the rounding of one MLAS kernel family (native/core/cpu_features.h): where that is the
 * family MLAS runs on this CPU (AVX-512F or FMA3/AVX2), fused and unfused graphs agree bit for bit; on
 * other CPUs, or with MLRB_CPU_PATH forcing another family, they agree to float32 rounding.
 */
import { loadBinding } from '../../src/native/binding.js';

const cpu = loadBinding().buildInfo().cpu;

/** The kernel path in use is the one MLAS runs here, and one whose order the kernel reproduces. */
export const fusedRoundsAsOrt = cpu.kernelPath === cpu.mlasPath && cpu.kernelPath !== 'baseline';

/** e.g. 'bit for bit (avx2 path, as MLAS here)' or 'to float32 rounding (avx2 path, MLAS runs avx512 here)'. */
export const fusedAgreementLabel = fusedRoundsAsOrt
  ? `bit for bit (${cpu.kernelPath} path, as MLAS here)`
  : `to float32 rounding (${cpu.kernelPath} path, MLAS runs ${cpu.mlasPath} here)`;
