// How ONNX Runtime's CPU kernels (its MLAS library) order and round the float32 work of the attention
// nodes the fused kernel replaces: MatMul, Softmax, MatMul. The fused kernel (masked_attention.cc) follows
// the same steps so that fusing a graph does not change its numbers; float32 done in another order moves
// full-sentence logliks by up to ~1e-4, which is as far as ONNX Runtime's own float32 result is from a
// float64 evaluation (bench/RESULTS.md, "Exactness of the fused path").
//
// Facts about MLAS used here (ONNX Runtime 1.x, x86-64):
//   - Softmax over a row: m = max; e_j = exp(x_j - m) by the range reduction and polynomial below; the
//     AVX-512 kernel sums e_j into one 16-lane accumulator (element j into lane j mod 16, in order of j) and
//     folds the lanes as lanes (i, i + 8), then pairs, then halves; p_j = e_j * (1 / sum).
//   - SGEMM: each output element is a chain of fused multiply-adds over k in order, starting from zero, in
//     blocks of K whose partial results are added to the output (gemm_depth_block below).
// Where a CPU lacks AVX-512 or FMA, MLAS uses narrower kernels that sum in another order: results then
// agree to float32 rounding rather than bit for bit. So do heads wider than 128, whose Q·K products SGEMM
// splits into K blocks while the kernel sums each in one chain.
#pragma once

#include <bit>
#include <cstdint>

#include "vector_math.h"

namespace mlrb::ort_cpu {

// Lanes of MLAS's AVX-512 softmax accumulator.
inline constexpr int kSumLanes = 16;

// exp(x) for softmax arguments (x = score - row max <= 0): x clamped at -88.376, m = round(x / ln 2) by the
// 1.5·2^23 rounding bias, r = x - m·ln2 in two parts (Cody-Waite), a degree-6 polynomial in r, times 2^m.
// Every multiply-add is one fused operation, as in MLAS (the build keeps contraction on: -ffp-contract=fast).
MLRB_VECTOR_INLINE vec::Floats softmax_exp(vec::Floats x) {
  const vec::Floats lower = vec::splat(-88.3762626647949F);
  x = x > lower ? x : lower;
  const vec::Floats rounding_bias = vec::splat(12582912.0F);
  const vec::Floats biased = x * 1.44269504088896341F + rounding_bias;
  const vec::Floats m = biased - rounding_bias;
  vec::Floats r = m * -6.93145752e-1F + x;
  r = m * -1.42860677e-6F + r;
  vec::Floats p = vec::splat(0x1.694000p-10F);
  p = p * r + 0x1.125edcp-7F;
  p = p * r + 0x1.555b5ap-5F;
  p = p * r + 0x1.555450p-3F;
  p = p * r + 0x1.fffff6p-2F;
  p = p * r + 1.0F;
  p = p * r + 1.0F;
  // p · 2^m rounded once, as VSCALEFPS does: m >= -128 here, so 2^(m + 64) is a normal float and the
  // first product exact; only the second one (by 2^-64) can round, into the subnormal range. biased holds m
  // in its low mantissa bits, so shifting them into the exponent field (modulo 2^32) and adding the offset
  // gives the bits of 2^(m + 64) without a conversion.
  const vec::Ints exponent = (std::bit_cast<vec::Ints>(biased) << 23) + ((127 + 64) << 23);
  return (p * std::bit_cast<vec::Floats>(exponent)) * 0x1p-64F;
}

// The 16 lane partial sums of one softmax row folded as MLAS folds its accumulator. partial[i] holds, per
// query (vector lane), the sum of e_j over keys j = i (mod 16) in order of j.
MLRB_VECTOR_INLINE vec::Floats fold_sum_lanes(const vec::Floats (&partial)[kSumLanes]) {
  vec::Floats pairs[8];
  for (int i = 0; i < 8; ++i) pairs[i] = partial[i + 8] + partial[i];
  const vec::Floats low = (pairs[0] + pairs[1]) + (pairs[2] + pairs[3]);
  const vec::Floats high = (pairs[4] + pairs[5]) + (pairs[6] + pairs[7]);
  return low + high;
}

// SGEMM's K block for a product with `columns` output columns (the head dimension of P·V) and inner
// dimension `depth`: the default 128 x 128 panel doubles along K while it halves along N, down to 16
// columns, when N is below K (else it only shrinks K's stride to K or more: one block).
constexpr int64_t gemm_depth_block(int64_t columns, int64_t depth) {
  if (columns >= depth) return depth > 0 ? depth : 1;
  int64_t stride_n = 128, stride_k = 128;
  while (stride_n > 16 && stride_n / 2 >= columns) {
    stride_n /= 2;
    stride_k *= 2;
  }
  return stride_k;
}

}  // namespace mlrb::ort_cpu
