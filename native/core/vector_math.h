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
using Floats8 = float __attribute__((vector_size(8 * sizeof(float))));
using Floats4 = float __attribute__((vector_size(4 * sizeof(float))));

MLRB_VECTOR_INLINE Floats splat(float value) { return Floats{} + value; }

MLRB_VECTOR_INLINE Floats load(const float* from) {
  Floats value;
  std::memcpy(&value, from, sizeof(value));  // unaligned load
  return value;
}

MLRB_VECTOR_INLINE void store(float* to, Floats value) { std::memcpy(to, &value, sizeof(value)); }

MLRB_VECTOR_INLINE Floats8 load8(const float* from) {
  Floats8 value;
  std::memcpy(&value, from, sizeof(value));
  return value;
}

MLRB_VECTOR_INLINE void store8(float* to, Floats8 value) { std::memcpy(to, &value, sizeof(value)); }

MLRB_VECTOR_INLINE Floats maximum(Floats a, Floats b) { return a > b ? a : b; }


// Halves folded onto each other (16 -> 8 -> 4 -> 2 -> 1 lanes) with register shuffles: a few
// instructions rather than sixteen dependent adds through memory.
template <typename Combine>
MLRB_VECTOR_INLINE float reduce(Floats value, Combine combine) {
  const Floats8 folded8 = combine(__builtin_shufflevector(value, value, 0, 1, 2, 3, 4, 5, 6, 7),
                                  __builtin_shufflevector(value, value, 8, 9, 10, 11, 12, 13, 14, 15));
  const Floats4 folded4 = combine(__builtin_shufflevector(folded8, folded8, 0, 1, 2, 3), __builtin_shufflevector(folded8, folded8, 4, 5, 6, 7));
  return combine(combine(folded4[0], folded4[2]), combine(folded4[1], folded4[3]));
}

MLRB_VECTOR_INLINE float sum(Floats value) {
  return reduce(value, [](auto a, auto b) { return a + b; });
}

MLRB_VECTOR_INLINE float max(Floats value) {
  return reduce(value, [](auto a, auto b) { return a > b ? a : b; });
}

// exp(x) for x <= 0 (softmax arguments after the max is subtracted), to within 2 ulp over
// [-87, 0]. Arguments below -87 (and NaN) give exp(-87) ≈ 1.6e-38 instead of a denormal or zero: beside the
// row's maximum, whose term is exactly 1, that is below float resolution. Cody–Waite range reduction to r in
// [-ln2/2, ln2/2], Cephes' degree-6 minimax polynomial for exp(r), then scaling by 2^n through the exponent bits.
MLRB_VECTOR_INLINE Floats exp_nonpositive(Floats x) {
  const Floats lowest = splat(-87.0F);
  const Floats zero = splat(0.0F);
  x = x > lowest ? x : lowest;  // NaN fails the comparison and becomes lowest: the int conversion needs a number
  x = x < zero ? x : zero;
  const Floats round_magic = splat(12582912.0F);  // 1.5 * 2^23: adding and subtracting it rounds to an integer
  const Floats n = (x * 1.44269504088896341F + round_magic) - round_magic;
  const Floats r = (x - n * 0.693359375F) - n * -2.12194440e-4F;
  Floats p = splat(1.9875691500e-4F);
  p = p * r + 1.3981999507e-3F;
  p = p * r + 8.3334519073e-3F;
  p = p * r + 4.1665795894e-2F;
  p = p * r + 1.6666665459e-1F;
  p = p * r + 5.0000001201e-1F;
  p = p * r * r + r + 1.0F;
  const Ints exponent = (__builtin_convertvector(n, Ints) + 127) << 23;
  return p * std::bit_cast<Floats>(exponent);
}

}  // namespace mlrb::vec
