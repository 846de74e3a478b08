/**
 * What the test machine's CPU offers, for assertions that depend on it. The fused attention kernel rounds
 * as ONNX Runtime's AVX-512 softmax kernel does (native/core/ort_cpu_rounding.h), so only there are fused
 * and unfused graphs bit for bit equal; elsewhere they agree to float32 rounding.
 */
import { existsSync, readFileSync } from 'node:fs';

function cpuFlags(): Set<string> {
  if (!existsSync('/proc/cpuinfo')) return new Set();
  const flagsLine = readFileSync('/proc/cpuinfo', 'utf8').split('\n').find((line) => line.startsWith('flags'));
  return new Set((flagsLine?.split(':')[1] ?? '').trim().split(/\s+/));
}

const flags = cpuFlags();

/** x86-64 with AVX-512F and FMA: ONNX Runtime's MLAS picks its AVX-512 kernels. */
export const cpuHasAvx512 = process.arch === 'x64' && flags.has('avx512f') && flags.has('fma');
