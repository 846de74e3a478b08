// How ONNX Runtime's CPU kernels (its MLAS library) order and round the float32 work of the attention
// nodes the fused kernel replaces: MatMul, Softmax, MatMul. The fused kernel (masked_attention.cc) follows
// the same steps so that fusing a graph does not change its numbers; float32 done in another order moves
// full-sentence logliks by up to ~1e-4, which is as far as ONNX Runtime's own float32 result is from a
// float64 evaluation (bench/RESULTS.md, "Exactness of the fused path").
//
// Facts about MLAS (ONNX Runtime 1.x, x86-64) that hold for its AVX-512 and its FMA3/AVX2 kernels alike:
//   - Softmax over a row: m = max (order-free); e_j = exp(x_j + (-m)) by the range reduction and
//     polynomial below; their sum; p_j = e_j * (1 / sum). Rows are split over threads whole, so the order
//     within a row never depends on the thread count.
//   - SGEMM: each output element is a chain of fused multiply-adds over k in order, starting from zero, in
//     blocks of K whose partial results are added to the output (gemm_depth_block below); alpha = 1
//     multiplies exactly. Threads split M and N, never K.
// What differs per kernel family is the exp's clamp and final scaling by 2^m, and the order of the softmax sum: the
// policies in ort_cpu_rounding_avx512.h and ort_cpu_rounding_avx2.h; core/cpu_features.h picks one per
// process as MLAS does. Heads wider than 128 remain an approximation on every path: SGEMM splits their
// Q·K products into K blocks while the kernel sums each in one chain.
#pragma once

#include <bit>
#include <cstdint>

#include "vector_math.h"

namespace mlrb::ort_cpu {

// exp's argument after range reduction, and what the polynomial makes of it; the scaling by 2^m is the
// kernel family's own.
struct ReducedExp {
  vec::Floats biased;      // m + 1.5·2^23: m (an integer, <= 0 for softmax arguments) sits in the low mantissa bits
  vec::Floats polynomial;  // ≈ exp(x - m·ln2), in [~0.7, ~1.42]
};

// The lowest argument each family's sum-of-exp kernel takes before clamping (MlasExpConstants): the
// AVX-512F kernel clamps at LowerRange, where m reaches -150 and VSCALEFPS still scales correctly; the
// FMA3/AVX2 kernel at LowerRangeSumExp, where m reaches -127 (x·(1/ln 2) rounds to -127.49999 there).
inline constexpr float kLowerRange = -103.9720840454F;
inline constexpr float kLowerRangeSumExp = -88.3762626647949F;

// For softmax arguments (x = score - row max <= 0): x clamped at `lower`, m = round(x / ln 2) by the
// 1.5·2^23 rounding bias, r = x - m·ln2 in two parts (Cody-Waite), a degree-6 polynomial in r. Every
// multiply-add is one fused operation, as in MLAS (the build keeps contraction on: -ffp-contract=fast).
MLRB_VECTOR_INLINE ReducedExp reduce_exp(vec::Floats x, float lower) {
  const vec::Floats lowest = vec::splat(lower);
  x = x > lowest ? x : lowest;
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
  return {biased, p};
}

// The bits of 2^(m + offset) from `biased`: its low mantissa bits hold m, and shifting them into the
// exponent field (modulo 2^32) and adding the biased exponent of 2^offset gives the float without a
// conversion. For m + offset = -127 the bits are those of +0.
MLRB_VECTOR_INLINE vec::Floats power_of_two(vec::Floats biased, uint32_t offset) {
  const vec::Bits exponent = (std::bit_cast<vec::Bits>(biased) << 23U) + ((127U + offset) << 23U);
  return std::bit_cast<vec::Floats>(exponent);
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
