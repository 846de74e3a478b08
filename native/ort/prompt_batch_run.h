// What every decoding run does the same way, whatever its model: the request checked and each prompt's state set up,
// step(n) (drop the finished rows, run a pass, until n passes or no prompt is left; return the new ids), stop() and
// finished(). A run says how to shed finished rows from its batch and how to run one pass.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "decoding_run.h"
#include "generation_request.h"
#include "next_token.h"

namespace mlrb {

class PromptBatchRun : public DecodingRun {
 public:
  [[nodiscard]] bool finished() const override;
  // Runs up to `steps` forward passes (fewer once every prompt has finished). Not thread-safe: the caller
  // serialises step() and stop().
  [[nodiscard]] StepOutput step(int32_t steps) override;
  // Marks prompts as finished by a stop string; their rows leave the batch before the next pass.
  void stop(std::span<const int32_t> prompts) override;

 protected:
  // Throws BAD_DATA (check_generation_request) for a request no model can run; `vocab` <= 0: ids unchecked.
  PromptBatchRun(GenerationRequest request, int64_t vocab);

  // Removes the rows whose prompt has finished from live_ and from whatever the run keeps per row.
  virtual void drop_finished_rows() = 0;
  // One pass over the live rows, each taking its next token (take_next_token).
  virtual void forward() = 0;

  GenerationRequest request_;
  std::vector<PromptDecoding> prompts_;
  std::vector<int32_t> live_;  // the prompt of each batch row
};

}  // namespace mlrb
