// Explicit SIMD for the attention kernel without intrinsics: a 16-float vector type, loads, stores,
// reductions and an exp, all portable C++ with GCC/Clang vector extensions.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

// Hot loops are compiled for AVX-512 and AVX2 as well as the baseline, and the loader picks the best
// clone for the CPU it runs on (GCC/Clang function multiversioning). Portable builds stay portable.
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(__APPLE__)
#define MLRB_VECTOR_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define MLRB_VECTOR_CLONES
#endif

// The helpers must be inlined into the cloned kernel so that they are compiled for its target; out of
// line they would be baseline code passing 64-byte vectors through memory.
#if defined(__GNUC__) || defined(__clang__)
#define MLRB_VECTOR_INLINE inline __attribute__((always_inline))
#else
#define MLRB_VECTOR_INLINE inline
#endif

namespace mlrb::vec {

// Sixteen floats as one value (GCC/Clang vector extensions): one AVX-512 register, two AVX2 registers or
// four SSE/NEON ones, depending on the clone being compiled. No intrinsics, so every target builds.
inline constexpr int kLanes = 16;
using Floats = float __attribute__((vector_size(kLanes * sizeof(float))));
using Ints = int32_t __attribute__((vector_size(kLanes * sizeof(int32_t))));
// Bit patterns: shifts and adds on them wrap modulo 2^32 (signed ones would overflow).
using Bits = uint32_t __attribute__((vector_size(kLanes * sizeof(uint32_t))));
using Floats8 = float __attribute__((vector_size(8 * sizeof(float))));
using Floats4 = float __attribute__((vector_size(4 * sizeof(float))));

MLRB_VECTOR_INLINE Floats splat(float value) {
  return Floats{} + value;
}

MLRB_VECTOR_INLINE Floats load(const float* from) {
  Floats value;
  std::memcpy(&value, from, sizeof(value));  // unaligned load
  return value;
}

MLRB_VECTOR_INLINE void store(float* to, Floats value) {
  std::memcpy(to, &value, sizeof(value));
}

MLRB_VECTOR_INLINE Floats maximum(Floats a, Floats b) {
  return a > b ? a : b;
}

// Halves folded onto each other (16 -> 8 -> 4 -> 2 -> 1 lanes) with register shuffles: a few
// instructions rather than sixteen dependent adds through memory.
template <typename Combine>
MLRB_VECTOR_INLINE float reduce(Floats value, Combine combine) {
  const Floats8 folded8 =
      combine(__builtin_shufflevector(value, value, 0, 1, 2, 3, 4, 5, 6, 7), __builtin_shufflevector(value, value, 8, 9, 10, 11, 12, 13, 14, 15));
  const Floats4 folded4 = combine(__builtin_shufflevector(folded8, folded8, 0, 1, 2, 3), __builtin_shufflevector(folded8, folded8, 4, 5, 6, 7));
  return combine(combine(folded4[0], folded4[2]), combine(folded4[1], folded4[3]));
}

MLRB_VECTOR_INLINE float sum(Floats value) {
  return reduce(value, [](auto a, auto b) { return a + b; });
}

MLRB_VECTOR_INLINE float max(Floats value) {
  return reduce(value, [](auto a, auto b) { return a > b ? a : b; });
}

// exp(x) for x <= 0 (softmax arguments after the max is subtracted) as 2^n · 2^f with t = x·log2(e),
// n = round(t), f = t - n in [-1/2, 1/2], and 2^f from its degree-7 Taylor series in f·ln 2 (truncation
// below 1e-8 relative). Rounding t costs up to |t|·2^-24 in the exponent, so the result's error grows
// with -x, but e^x·|x| never exceeds 1/e: next to a softmax sum of at least 1 every term is accurate to
// ~3e-8. Arguments below -87 (and NaN) give exp(-87) ≈ 1.6e-38 instead of a denormal or zero.
MLRB_VECTOR_INLINE Floats exp_nonpositive(Floats x) {
  const Floats lowest = splat(-87.0F);
  x = x > lowest ? x : lowest;                    // NaN fails the comparison and becomes lowest: the int conversion needs a number
  const Floats round_magic = splat(12582912.0F);  // 1.5 * 2^23: adding and subtracting it rounds to an integer
  const Floats t = x * 1.44269504088896341F;
  const Floats n = (t + round_magic) - round_magic;
  const Floats f = t - n;
  // ln(2)^k / k!, k = 7 .. 0
  Floats p = splat(1.5252733804059841e-5F);
  p = p * f + 1.5403530393381606e-4F;
  p = p * f + 1.3333558146428443e-3F;
  p = p * f + 9.6181291076284772e-3F;
  p = p * f + 5.5504108664821580e-2F;
  p = p * f + 2.4022650695910071e-1F;
  p = p * f + 6.9314718055994531e-1F;
  p = p * f + 1.0F;
  const Ints exponent = (__builtin_convertvector(n, Ints) + 127) << 23;
  return p * std::bit_cast<Floats>(exponent);
}

}  // namespace mlrb::vec
