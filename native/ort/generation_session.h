// Autoregressive decoding over a ScoringSession's graph: a batch of prompts in, one new token per live prompt
// per forward pass out, greedy or seeded sampling, until each prompt meets an EOS id, its max-new-tokens limit,
// or a stop the caller reports (stop strings are matched on decoded text, in JS).
//
// Three ways to run a step:
//   KV cache   graphs whose past inputs all have present outputs. The prompts are prefilled once, left-padded
//              (padding masked, positions counted per row from 0, as transformers numbers a lone prompt), then
//              each pass feeds one token per row with the previous presents as past. Rows that finish are
//              gathered out of the cache, so the batch shrinks, and the leading padding columns no remaining
//              row attends to are cut from it (a long prompt's padding does not outlive it). A graph without position_ids (or without an
//              attention mask) numbers new tokens from its cache length, which is only right without padding:
//              there every prompt of a run must have the same length (the library groups them so).
//   fused cache  graphs without past inputs whose attention the load-time rewrite fused and gave a decoding
//              cache (graph/decode_cache.h), when a run's prompts have one length: the prompts are fed once,
//              then one token per row per pass, with the position offset; the fused attention nodes keep
//              the keys and values (core/cached_attention.h). Finished rows leave the cache with the batch.
//   recompute  graphs without a usable past: every pass reruns each row's whole sequence, right-padded.
// Generation state lives here, across step() calls; only token ids cross to the caller.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "../core/attention_kv_cache.h"
#include "../core/token_sampler.h"
#include "scoring_session.h"

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
  std::optional<SamplingRequest> sampling;    // absent: greedy
};

// What one step(n) call produced, for the prompts that were still running when it began (ascending).
struct StepOutput {
  std::vector<int32_t> prompts;
  std::vector<int32_t> token_offsets;  // prompts.size() + 1: prompt i's new ids are tokens[offsets[i], offsets[i+1])
  std::vector<int32_t> tokens;
  std::vector<uint8_t> finish;         // FinishReason of each prompt after the call
};

class GenerationRun {
 public:
  // Throws BAD_DATA (naming the prompt) for empty prompts, ids outside the vocabulary, unequal lengths where
  // the graph cannot take padding, or settings out of range.
  GenerationRun(std::shared_ptr<const ScoringSession> session, GenerationRequest request);

  [[nodiscard]] bool uses_kv_cache() const { return use_kv_ || fused_cache_ != nullptr; }
  [[nodiscard]] bool finished() const;
  // Runs up to `steps` forward passes (fewer once every prompt has finished). Not thread-safe: the caller
  // serialises step() and stop().
  [[nodiscard]] StepOutput step(int32_t steps);
  // Marks prompts as finished by a stop string; their rows leave the batch before the next pass.
  void stop(std::span<const int32_t> prompts);

 private:
  struct PromptState {
    std::vector<int32_t> generated;
    FinishReason finish = FinishReason::kRunning;
    std::optional<TokenRandom> random;
  };

  void validate() const;
  void drop_finished_rows();
  void trim_shared_padding();
  // kv_[i] = replace(kv_[i], plan) for each past input's plan, in signature order (kv_'s order).
  template <class Replace>
  void replace_past(Replace replace);
  void forward_with_cache();
  void forward_with_fused_cache();
  void forward_recompute();
  // Picks each live row's next token from the pass's logits (row r's at flat logits row `logit_rows[r]`).
  void choose_tokens(const Ort::Value& logits, std::span<const int64_t> logit_rows);
  [[nodiscard]] std::string describe_pass(int64_t rows, int64_t length) const;

  std::shared_ptr<const ScoringSession> session_;
  GenerationRequest request_;
  bool use_kv_ = false;
  std::vector<PromptState> prompts_;
  std::vector<int32_t> live_;  // the prompt of each batch row
  // KV-cache mode: presents of the last pass (signature past order) over kv_length_ positions; per row, how
  // many leading positions are padding (the mask is 0 there and 1 after: padding only ever leads), and its
  // next position.
  std::vector<Ort::Value> kv_;
  int64_t kv_length_ = 0;
  std::vector<int64_t> padding_;
  std::vector<int64_t> next_position_;
  // Fused-cache mode: the cache the attention nodes fill, and how many positions each row has fed.
  std::unique_ptr<RegisteredKvCache> fused_cache_;
  int64_t fused_length_ = 0;
  SamplerScratch scratch_;
  std::vector<float> widened_row_;
};

}  // namespace mlrb
