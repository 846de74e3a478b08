/**
 * Scalar models of ONNX Runtime's float32 softmax over one row as its MLAS library computes it on x86-64,
 * one per kernel family, written from what its kernels do (ONNX Runtime 1.30; the README's Design item
 * "The fused kernel rounds as the MLAS kernels of the CPU it runs on" lists the sources): the row max;
 * e_j = exp(x_j + (-max)) by MLAS's range reduction and polynomial; their sum in a SIMD register of 16
 * (AVX-512F) or 8 (FMA3/AVX2) lanes, element j into lane j mod lanes, folded as the kernel folds it; then
 * p_j = e_j · (1 / sum). The families differ in the lanes and in the exp's clamp and last step, p · 2^m:
 * the AVX-512F kernel clamps at -103.97 and VSCALEFPS rounds once (subnormal results included), while the
 * AVX2 kernel clamps at -88.38 and builds 2^m in a float's exponent field, which for m = -127 is the bit
 * pattern of +0. Shares no code with the fused kernel (native/core/ort_cpu_rounding*.h); tests hold each
 * to the other.
 */
import { floatFromBits, fmaf32 } from './float32.js';

export type MlasKernelFamily = 'avx512' | 'avx2';

const fround = Math.fround;

/** 0x1.<hex>p<exponent> as a number (JS has no hex float literals). */
function hexFloat(fraction: string, exponent: number): number {
  return (1 + Number.parseInt(fraction, 16) / 16 ** fraction.length) * 2 ** exponent;
}

// MlasExpConstants (compute.cpp), each a float32. The AVX-512F sum-of-exp kernel clamps its argument at
// LowerRange, the FMA3/AVX2 one at LowerRangeSumExp.
const LOWER_RANGE = { avx512: fround(-103.9720840454), avx2: fround(-88.3762626647949) };
const ROUNDING_BIAS = fround(12582912); // 1.5 · 2^23
// biome-ignore lint/suspicious/noApproximativeNumericConstant: MLAS's own literal, kept digit for digit
// biome-ignore lint/correctness/noPrecisionLoss: fround takes it to float32 as MLAS's compiler does
const LOG2_RECIPROCAL = fround(1.44269504088896341);
const LOG2_HIGH = fround(-6.93145752e-1);
const LOG2_LOW = fround(-1.42860677e-6);
const POLYNOMIAL = [hexFloat('694000', -10), hexFloat('125edc', -7), hexFloat('555b5a', -5), hexFloat('555450', -3), hexFloat('fffff6', -2), 1, 1];

/** exp(x) for x = score - max as MLAS's sum-of-exp kernels compute it. */
export function mlasExp(x: number, family: MlasKernelFamily): number {
  const clamped = Math.max(x, LOWER_RANGE[family]);
  const biased = fmaf32(clamped, LOG2_RECIPROCAL, ROUNDING_BIAS);
  const m = fround(biased - ROUNDING_BIAS);
  let r = fmaf32(m, LOG2_HIGH, clamped);
  r = fmaf32(m, LOG2_LOW, r);
  let p = POLYNOMIAL[0] as number;
  for (const coefficient of POLYNOMIAL.slice(1)) p = fmaf32(p, r, coefficient);
  if (family === 'avx512') return fround(p * 2 ** m); // m >= -150: the double product is exact; one rounding to float32
  const scale = floatFromBits(((m + 127) << 23) >>> 0); // m >= -127: 2^m for m >= -126, +0 for m = -127
  return fround(p * scale);
}

/** The lane sums folded as the kernel's reduction folds its register. */
function foldLanes(lanes: readonly number[], family: MlasKernelFamily): number {
  const eight = family === 'avx512' ? Array.from({ length: 8 }, (_, i) => fround((lanes[i] as number) + (lanes[i + 8] as number))) : [...lanes];
  const pair = (i: number): number => fround((eight[i] as number) + (eight[i + 1] as number));
  return fround(fround(pair(0) + pair(2)) + fround(pair(4) + pair(6)));
}

/** Softmax of one float32 row, as MLAS's kernels of `family` round it. */
export function mlasSoftmax(row: ArrayLike<number>, family: MlasKernelFamily): Float32Array {
  let maximum = -Infinity;
  for (let j = 0; j < row.length; j++) maximum = Math.max(maximum, row[j] as number);
  const negativeMaximum = -maximum;
  const exps = Array.from(row, (value) => mlasExp(fround(value + negativeMaximum), family));
  const lanes = new Array<number>(family === 'avx512' ? 16 : 8).fill(0);
  exps.forEach((value, j) => {
    lanes[j % lanes.length] = fround((lanes[j % lanes.length] as number) + value);
  });
  const inverse = fround(1 / foldLanes(lanes, family));
  return Float32Array.from(exps, (value) => fround(value * inverse));
}
