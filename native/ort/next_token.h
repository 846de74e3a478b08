// The per-prompt bookkeeping every decoding loop shares: checking a generation request before any pass runs,
// and taking a prompt's next token from its row of logits (greedy or seeded sampling), which also decides
// whether the prompt has finished (EOS, or its max-new-tokens limit).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "../core/token_sampler.h"
#include "generation_request.h"

namespace mlrb {

struct PromptDecoding {
  std::vector<int32_t> generated;
  FinishReason finish = FinishReason::kRunning;
  std::optional<TokenRandom> random;  // set when the request samples
};

// Throws BAD_DATA naming the prompt for empty prompts or ids outside [0, vocab) (vocab <= 0: unchecked), and
// for settings out of range; INTERNAL when streams and prompts disagree.
void check_generation_request(const GenerationRequest& request, int64_t vocab);

// One PromptDecoding per prompt, each sampling prompt with its own random stream.
[[nodiscard]] std::vector<PromptDecoding> start_decoding(const GenerationRequest& request);

// Appends the token `row` picks for `prompt` and marks it finished on an EOS id or at its limit. Throws NUMERIC
// when the row holds NaN.
void take_next_token(std::span<const float> row, const GenerationRequest& request, size_t prompt, PromptDecoding& state, SamplerScratch& scratch);

}  // namespace mlrb
