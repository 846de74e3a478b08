// What the addon's NativeGeneration handle drives, whatever the model: a batch of prompts decoded a few
// passes at a time, one new token per live prompt per pass, until each meets EOS, its limit or a stop the
// caller reports. GenerationRun (causal graphs) and Seq2SeqGenerationRun (encoder-decoder) implement it.
#pragma once

#include <cstdint>
#include <span>

#include "generation_request.h"

namespace mlrb {

class DecodingRun {
 public:
  virtual ~DecodingRun() = default;
  [[nodiscard]] virtual bool uses_kv_cache() const = 0;
  [[nodiscard]] virtual bool finished() const = 0;
  // Runs up to `steps` forward passes. Not thread-safe: the caller serialises step() and stop().
  [[nodiscard]] virtual StepOutput step(int32_t steps) = 0;
  // Marks prompts as finished by a stop string; their rows leave the batch before the next pass.
  virtual void stop(std::span<const int32_t> prompts) = 0;
};

}  // namespace mlrb
