// Picks the next token from one row of logits: greedy (argmax) or seeded sampling with temperature and
// top-k. Plain C++, no ONNX Runtime types.
//
// Sampling must give the same tokens on every platform and standard library, so the random stream is a
// xoshiro256** generator of our own (std:: distributions are implementation-defined) and a uniform draw is
// turned into a token by walking the cumulative distribution in ascending token order, in double.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace mlrb {

// xoshiro256** (Blackman & Vigna), its state filled from (seed, stream) by splitmix64: one independent stream
// per prompt, so a prompt's samples depend on its seed and stream id only, never on its batch neighbours.
class TokenRandom {
 public:
  TokenRandom(uint64_t seed, uint64_t stream);
  // A uniform double in [0, 1) from the top 53 bits of the next output.
  [[nodiscard]] double next_unit();

 private:
  uint64_t next();
  uint64_t state_[4] = {};
};

struct SamplingParams {
  double temperature = 1.0;  // > 0
  int32_t top_k = 0;         // 0: the whole vocabulary
};

// The index of the largest logit, the lowest one on ties (torch.argmax's rule). -1 when the row is not
// usable: a NaN, a +Infinity, or no finite logit at all (as scoring refuses such a row with NUMERIC).
[[nodiscard]] int32_t argmax_token(std::span<const float> logits);

// Reusable buffers, so sampling a row costs no allocation once they have grown.
struct SamplerScratch {
  std::vector<int32_t> candidates;
  std::vector<double> weights;
};

// Draws a token from softmax(logits / temperature) restricted to the top_k largest logits (ties at the k-th
// value broken towards lower ids). -1 when the row is not usable, as for argmax_token.
[[nodiscard]] int32_t sample_token(std::span<const float> logits, const SamplingParams& params, TokenRandom& random, SamplerScratch& scratch);

}  // namespace mlrb
