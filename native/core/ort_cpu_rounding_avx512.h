// The softmax rounding of MLAS's AVX-512F kernels (MlasComputeSumExpF32KernelAvx512F), which ONNX Runtime
// runs where the CPU has AVX-512F and the OS saves its registers (core/cpu_features.h).
#pragma once

#include "ort_cpu_rounding.h"
#include "ort_cpu_rounding_avx2.h"
#include "vector_math.h"

namespace mlrb::ort_cpu {

struct Avx512Rounding {
  // One 16-lane accumulator: e_j adds into lane j mod 16, in order of j (a short last vector adds only its
  // own lanes).
  static constexpr int kSumLanes = 16;

  // Clamped at -103.97 and p · 2^m rounded once, as VSCALEFPS does: 2^(m + 64) is a normal float for
  // every m >= -150, so the first product is exact; only the second one (by 2^-64) can round, into the
  // subnormal range (or to 0 below 2^-150).
  MLRB_VECTOR_INLINE static vec::Floats exp(vec::Floats x) {
    const ReducedExp reduced = reduce_exp(x, kLowerRange);
    return (reduced.polynomial * power_of_two(reduced.biased, 64)) * 0x1p-64F;
  }

  // The lanes folded as the kernel folds its register: lane i + 8 onto lane i (the upper 256 bits onto the
  // lower), then those 8 as the AVX2 kernel folds its register.
  MLRB_VECTOR_INLINE static vec::Floats fold(const vec::Floats (&partial)[kSumLanes]) {
    vec::Floats pairs[Avx2Rounding::kSumLanes];
    for (int i = 0; i < Avx2Rounding::kSumLanes; ++i) pairs[i] = partial[i + Avx2Rounding::kSumLanes] + partial[i];
    return Avx2Rounding::fold(pairs);
  }
};

}  // namespace mlrb::ort_cpu
