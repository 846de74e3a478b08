#include "prompt_batch_run.h"

#include <algorithm>
#include <string>

#include "../core/error.h"

namespace mlrb {

PromptBatchRun::PromptBatchRun(GenerationRequest request, int64_t vocab) : request_(std::move(request)) {
  check_generation_request(request_, vocab);
  prompts_ = start_decoding(request_);
  for (size_t p = 0; p < prompts_.size(); ++p) live_.push_back(static_cast<int32_t>(p));
}

bool PromptBatchRun::finished() const {
  return std::all_of(prompts_.begin(), prompts_.end(), [](const PromptDecoding& state) { return state.finish != FinishReason::kRunning; });
}

void PromptBatchRun::stop(std::span<const int32_t> prompts) {
  for (const int32_t p : prompts) {
    if (p < 0 || static_cast<size_t>(p) >= prompts_.size()) throw Error("BAD_DATA", "stop(): no prompt " + std::to_string(p) + " in this run");
    if (prompts_[static_cast<size_t>(p)].finish == FinishReason::kRunning) prompts_[static_cast<size_t>(p)].finish = FinishReason::kStopped;
  }
}

StepOutput PromptBatchRun::step(int32_t steps) {
  StepOutput output;
  drop_finished_rows();
  output.prompts = live_;
  std::vector<size_t> generated_before;
  for (const int32_t p : live_) generated_before.push_back(prompts_[static_cast<size_t>(p)].generated.size());
  for (int32_t s = 0; s < steps; ++s) {
    drop_finished_rows();
    if (live_.empty()) break;
    forward();
  }
  output.token_offsets.push_back(0);
  for (size_t i = 0; i < output.prompts.size(); ++i) {
    const PromptDecoding& state = prompts_[static_cast<size_t>(output.prompts[i])];
    output.tokens.insert(output.tokens.end(), state.generated.begin() + static_cast<std::ptrdiff_t>(generated_before[i]), state.generated.end());
    output.token_offsets.push_back(static_cast<int32_t>(output.tokens.size()));
    output.finish.push_back(static_cast<uint8_t>(state.finish));
  }
  return output;
}

}  // namespace mlrb
