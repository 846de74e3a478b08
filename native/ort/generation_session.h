// Autoregressive decoding over a ScoringSession's graph: a batch of prompts in, one new token per live prompt
// per forward pass out, greedy or seeded sampling, until each prompt meets an EOS id, its max-new-tokens limit,
// or a stop the caller reports (stop strings are matched on decoded text, in JS).
//
// Three ways to run a step:
//   KV cache   graphs whose past inputs all have present outputs (where the fused cache does not apply). The prompts are prefilled once, left-padded
//              (padding masked, positions counted per row from 0, as transformers numbers a lone prompt), then
//              each pass feeds one token per row with the previous presents as past. Rows that finish are
//              gathered out of the cache, so the batch shrinks, and the leading padding columns no remaining
//              row attends to are cut from it (a long prompt's padding does not outlive it). A graph without position_ids (or without an
//              attention mask) numbers new tokens from its cache length, which is only right without padding:
//              there every prompt of a run must have the same length (the library groups them so).
//   fused cache  graphs whose attention the load-time rewrite fused and gave a decoding cache (graph/decode_cache.h):
//              the fused attention nodes keep the keys and values (core/cached_attention.h) and the graph takes one
//              position offset per pass, so every row feeds the same positions, unpadded. Prompts of several
//              lengths start together: the first pass feeds the shortest prompt's length from each, then one token
//              per row per pass, a longer prompt's remaining tokens (logits unread) beside the others' new ones
//              until it starts generating. Finished rows leave the cache with the batch. A graph with past inputs
//              goes this way too, fed an empty past: its Concat(past, new) then copies the new keys alone, not the
//              whole cache each pass as feeding the presents back does.
//   recompute  graphs without a usable past: every pass reruns each row's whole sequence, right-padded.
// Generation state lives here, across step() calls; only token ids cross to the caller.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "../core/attention_kv_cache.h"
#include "../core/token_sampler.h"
#include "generation_inputs.h"
#include "generation_request.h"
#include "prompt_batch_run.h"
#include "reused_output.h"
#include "scoring_session.h"

namespace mlrb {

class GenerationRun : public PromptBatchRun {
 public:
  // Throws BAD_DATA (naming the prompt) for empty prompts, ids outside the vocabulary, unequal lengths where
  // the graph cannot take padding, or settings out of range.
  GenerationRun(std::shared_ptr<const ScoringSession> session, GenerationRequest request);

  [[nodiscard]] bool uses_kv_cache() const override { return use_kv_ || fused_cache_ != nullptr; }

 private:
  void validate() const;
  void drop_finished_rows() override;
  void forward() override;
  void trim_shared_padding();
  // kv_[i] = replace(kv_[i], plan) for each past input's plan, in signature order (kv_'s order).
  template <class Replace>
  void replace_past(Replace replace);
  void forward_with_cache();
  void forward_with_fused_cache();
  void check_mask_over(const std::vector<int32_t>& prompt);
  [[nodiscard]] std::vector<Ort::Value> run_fused_pass(DecodeFeed& feed, RegisteredKvCache& cache, int64_t offset);
  void forward_recompute();
  // Where the logits of a pass over `rows` rows go: a view of logits_out_, or null (ORT allocates them).
  [[nodiscard]] Ort::Value logits_target(int64_t rows);
  // After the prefill: the buffers later passes write their logits (sliced heads) and presents into, sized from
  // the prefill's outputs and `new_positions` more cached positions at most; none on other providers.
  void reuse_outputs(const std::vector<Ort::Value>& prefill_outputs, int64_t new_positions);
  // Picks each live row's next token from the pass's logits (row r's at flat logits row `logit_rows[r]`; none where it is -1).
  void choose_tokens(const Ort::Value& logits, std::span<const int64_t> logit_rows);
  [[nodiscard]] std::string describe_pass(int64_t rows, int64_t length) const;

  std::shared_ptr<const ScoringSession> session_;
  bool use_kv_ = false;
  // KV-cache mode: presents of the last pass (signature past order) over kv_length_ positions; per row, how
  // many leading positions are padding (the mask is 0 there and 1 after: padding only ever leads), and its
  // next position.
  std::vector<Ort::Value> kv_;
  int64_t kv_length_ = 0;
  std::vector<int64_t> padding_;
  std::vector<int64_t> next_position_;
  // Fused-cache mode: the cache the attention nodes fill, and how many positions every row has fed.
  std::unique_ptr<RegisteredKvCache> fused_cache_;
  int64_t fused_length_ = 0;
  // Outputs reused across passes (reused_output.h): the logits, and two present sets taking turns; kv_set_ is
  // the set kv_ views (-1: kv_ owns its tensors, as after rows left).
  std::optional<ReusedOutput> logits_out_;
  std::vector<int64_t> logits_shape_;
  std::array<std::vector<ReusedOutput>, 2> present_sets_;
  // The graph's past inputs in signature order: kv_[i] and each present set's [i] are past_plans_[i]'s.
  std::vector<const InputPlan*> past_plans_;
  int kv_set_ = -1;
  SamplerScratch scratch_;
  std::vector<float> widened_row_;
};

}  // namespace mlrb
