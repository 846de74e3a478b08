#include "token_sampler.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace mlrb {

namespace {

uint64_t splitmix64(uint64_t& state) {
  state += 0x9E3779B97F4A7C15ULL;
  uint64_t z = state;
  z = (z ^ (z >> 30U)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27U)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31U);
}

constexpr uint64_t rotate_left(uint64_t value, unsigned bits) {
  return (value << bits) | (value >> (64U - bits));
}

// Scoring's rule (loglik_reduce.cc): a row is usable when it holds no NaN and its largest value is finite.
// -Infinity entries are fine (masked tokens), +Infinity or a row of nothing but -Infinity are not: there is no
// distribution to pick from, and argmax would return token 0 for an all-+Infinity row as if it had been chosen.
bool usable(std::span<const float> logits) {
  if (logits.empty()) return false;
  float max = -std::numeric_limits<float>::infinity();
  for (const float value : logits) {
    if (std::isnan(value)) return false;
    max = std::max(max, value);
  }
  return std::isfinite(max);
}

}  // namespace

TokenRandom::TokenRandom(uint64_t seed, uint64_t stream) {
  // The stream id is mixed in through a second splitmix64 pass so neighbouring streams start far apart.
  uint64_t mixer = seed;
  uint64_t stream_mixer = stream ^ splitmix64(mixer);
  for (uint64_t& word : state_) word = splitmix64(stream_mixer);
}

uint64_t TokenRandom::next() {
  const uint64_t result = rotate_left(state_[1] * 5U, 7U) * 9U;
  const uint64_t shifted = state_[1] << 17U;
  state_[2] ^= state_[0];
  state_[3] ^= state_[1];
  state_[1] ^= state_[2];
  state_[0] ^= state_[3];
  state_[2] ^= shifted;
  state_[3] = rotate_left(state_[3], 45U);
  return result;
}

double TokenRandom::next_unit() {
  return static_cast<double>(next() >> 11U) * 0x1.0p-53;
}

int32_t argmax_token(std::span<const float> logits) {
  if (!usable(logits)) return -1;
  // max_element returns the first of equal maxima: the lowest id.
  return static_cast<int32_t>(std::max_element(logits.begin(), logits.end()) - logits.begin());
}

int32_t sample_token(std::span<const float> logits, const SamplingParams& params, TokenRandom& random, SamplerScratch& scratch) {
  if (!usable(logits)) return -1;
  const auto vocab = static_cast<int32_t>(logits.size());
  auto& candidates = scratch.candidates;
  candidates.resize(logits.size());
  for (int32_t id = 0; id < vocab; ++id) candidates[static_cast<size_t>(id)] = id;
  if (params.top_k > 0 && params.top_k < vocab) {
    const auto k = static_cast<std::ptrdiff_t>(params.top_k);
    const auto higher = [&](int32_t a, int32_t b) {
      const float la = logits[static_cast<size_t>(a)];
      const float lb = logits[static_cast<size_t>(b)];
      return la > lb || (la == lb && a < b);
    };
    std::nth_element(candidates.begin(), candidates.begin() + k - 1, candidates.end(), higher);
    candidates.resize(static_cast<size_t>(k));
    // Ascending ids, so the walk below does not depend on nth_element's arrangement.
    std::sort(candidates.begin(), candidates.end());
  }
  double max_logit = -INFINITY;
  for (const int32_t id : candidates) max_logit = std::max(max_logit, static_cast<double>(logits[static_cast<size_t>(id)]));
  auto& weights = scratch.weights;
  weights.resize(candidates.size());
  double total = 0.0;
  for (size_t i = 0; i < candidates.size(); ++i) {
    const double logit = logits[static_cast<size_t>(candidates[i])];
    weights[i] = std::isinf(logit) && logit < 0 ? 0.0 : std::exp((logit - max_logit) / params.temperature);
    total += weights[i];
  }
  const double target = random.next_unit() * total;
  double cumulative = 0.0;
  for (size_t i = 0; i < candidates.size(); ++i) {
    cumulative += weights[i];
    if (target < cumulative) return candidates[i];
  }
  // Rounding can leave target == total: the last token with any weight.
  for (size_t i = candidates.size(); i-- > 0;) {
    if (weights[i] > 0.0) return candidates[i];
  }
  return candidates.front();
}

}  // namespace mlrb
