// The softmax rounding of MLAS's FMA3/AVX2 kernels (MlasComputeSumExpF32KernelFma3), which ONNX Runtime
// runs where the CPU has FMA3 and AVX2 but not a usable AVX-512F (core/cpu_features.h). The fused kernel
// also keeps this order where MLAS runs neither family (KernelPath::kBaseline), without claiming its bits.
#pragma once

#include "ort_cpu_rounding.h"
#include "vector_math.h"

namespace mlrb::ort_cpu {

struct Avx2Rounding {
  // One 8-lane accumulator: e_j adds into lane j mod 8, in order of j (the 24-element main loop adds its
  // three vectors one after another; a short last vector adds zeros in its unused lanes).
  static constexpr int kSumLanes = 8;

  // Clamped at -88.376 and p times 2^m built directly in the exponent field: one rounding, into the
  // subnormal range only for m = -126 (p < 1). At m = -127 (arguments below about -87.68) the bits are
  // those of +0, so the term is exactly 0 where the AVX-512 kernel still gives a subnormal.
  MLRB_VECTOR_INLINE static vec::Floats exp(vec::Floats x) {
    const ReducedExp reduced = reduce_exp(x, kLowerRangeSumExp);
    return reduced.polynomial * power_of_two(reduced.biased, 0);
  }

  // The lanes folded as the kernel folds its register: two horizontal adds within each 128-bit half, then
  // the two halves' results: ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7)).
  MLRB_VECTOR_INLINE static vec::Floats fold(const vec::Floats (&partial)[kSumLanes]) {
    const vec::Floats low = (partial[0] + partial[1]) + (partial[2] + partial[3]);
    const vec::Floats high = (partial[4] + partial[5]) + (partial[6] + partial[7]);
    return low + high;
  }
};

}  // namespace mlrb::ort_cpu
