#include "next_token.h"

#include <algorithm>
#include <string>

#include "../core/error.h"

namespace mlrb {

void check_generation_request(const GenerationRequest& request, int64_t vocab) {
  const auto& prompts = request.prompts;
  if (prompts.empty()) throw Error("BAD_DATA", "generation needs at least one prompt");
  if (request.streams.size() != prompts.size()) throw Error("INTERNAL", "one random stream per prompt is needed");
  if (request.max_new_tokens < 1) throw Error("BAD_DATA", "maxNewTokens must be at least 1, got " + std::to_string(request.max_new_tokens));
  if (request.sampling && !(request.sampling->params.temperature > 0.0)) {
    throw Error("BAD_DATA", "temperature must be > 0, got " + std::to_string(request.sampling->params.temperature));
  }
  if (request.sampling && request.sampling->params.top_k < 0) throw Error("BAD_DATA", "topK must be >= 0");
  for (size_t p = 0; p < prompts.size(); ++p) {
    if (prompts[p].empty()) throw Error("BAD_DATA", "prompt " + std::to_string(p) + " is empty; a prompt needs at least one token");
    for (size_t i = 0; i < prompts[p].size(); ++i) {
      const int32_t id = prompts[p][i];
      if (id < 0 || (vocab > 0 && id >= vocab)) {
        throw Error("BAD_DATA", "prompt " + std::to_string(p) + " token " + std::to_string(i) + " is id " + std::to_string(id) +
                                    ", outside the model's vocabulary [0, " + std::to_string(vocab) + ")");
      }
    }
  }
}

std::vector<PromptDecoding> start_decoding(const GenerationRequest& request) {
  std::vector<PromptDecoding> states(request.prompts.size());
  if (request.sampling) {
    for (size_t p = 0; p < states.size(); ++p) states[p].random.emplace(request.sampling->seed, request.streams[p]);
  }
  return states;
}

void take_next_token(std::span<const float> row, const GenerationRequest& request, size_t prompt, PromptDecoding& state, SamplerScratch& scratch) {
  const int32_t token = request.sampling ? sample_token(row, request.sampling->params, *state.random, scratch) : argmax_token(row);
  if (token < 0) {
    throw Error("NUMERIC", "the logits for prompt " + std::to_string(prompt) + " at new token " + std::to_string(state.generated.size()) +
                               " hold NaN or +Infinity, or no finite value");
  }
  state.generated.push_back(token);
  if (std::find(request.eos_token_ids.begin(), request.eos_token_ids.end(), token) != request.eos_token_ids.end()) {
    state.finish = FinishReason::kEos;
  } else if (static_cast<int32_t>(state.generated.size()) >= request.max_new_tokens) {
    state.finish = FinishReason::kMaxNewTokens;
  }
}

}  // namespace mlrb
