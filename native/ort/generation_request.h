// What a decoding run is asked for and what each step gives back, whatever the model (a causal graph,
// generation_session.h, or an encoder-decoder, seq2seq_generation.h): prompts as token ids, limits, EOS ids and
// sampling settings in; per step, the new ids of the prompts still running and why each has finished.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "../core/token_sampler.h"

namespace mlrb {

enum class FinishReason : uint8_t { kRunning = 0, kEos = 1, kMaxNewTokens = 2, kStopped = 3 };

struct SamplingRequest {
  SamplingParams params;
  uint64_t seed = 0;
};

struct GenerationRequest {
  std::vector<std::vector<int32_t>> prompts;  // each non-empty
  std::vector<uint64_t> streams;              // per prompt: its random stream (the caller's prompt index)
  int32_t max_new_tokens = 1;                 // >= 1
  std::vector<int32_t> eos_token_ids;
  std::optional<SamplingRequest> sampling;  // absent: greedy
};

// What one step(n) call produced, for the prompts that were still running when it began (ascending).
struct StepOutput {
  std::vector<int32_t> prompts;
  std::vector<int32_t> token_offsets;  // prompts.size() + 1: prompt i's new ids are tokens[offsets[i], offsets[i+1])
  std::vector<int32_t> tokens;
  std::vector<uint8_t> finish;  // FinishReason of each prompt after the call
};

}  // namespace mlrb
