#include "generation_session.h"

#include <algorithm>

#include "../core/error.h"
#include "../graph/decode_cache.h"
#include "generation_inputs.h"
#include "next_token.h"

namespace mlrb {

namespace {

bool has_role(const GraphSignature& signature, InputRole role) {
  return std::any_of(signature.inputs.begin(), signature.inputs.end(), [&](const InputPlan& plan) { return plan.role == role; });
}

// Positions of padded slots: transformers' cumsum(mask) - 1 with padding set to 1. Masked, so any value works;
// this one keeps position embeddings in range.
constexpr int64_t kPaddingPosition = 1;

// One row of logits as floats, widening half-precision outputs.
std::span<const float> logit_row(const Ort::Value& logits, int64_t flat_row, int64_t vocab, std::vector<float>& widened) {
  const auto type = logits.GetTensorTypeAndShapeInfo().GetElementType();
  const auto offset = static_cast<size_t>(flat_row * vocab);
  const auto width = static_cast<size_t>(vocab);
  if (type == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT) return {logits.GetTensorData<float>() + offset, width};
  widened.resize(width);
  if (type == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16) {
    const auto* source = logits.GetTensorData<Ort::Float16_t>() + offset;
    for (size_t i = 0; i < width; ++i) widened[i] = source[i].ToFloat();
  } else {
    const auto* source = logits.GetTensorData<Ort::BFloat16_t>() + offset;
    for (size_t i = 0; i < width; ++i) widened[i] = source[i].ToFloat();
  }
  return widened;
}

// Where each row's next-token logits sit in the logits output: a sliced head computed only the gathered
// positions, one per row in row order; a full head computed [rows, length] of them.
std::vector<int64_t> logit_rows_of(const GraphSignature& signature, const DecodeFeed& feed) {
  if (!signature.logits_sliced) return feed.logit_positions;
  std::vector<int64_t> rows(static_cast<size_t>(feed.rows));
  for (int64_t r = 0; r < feed.rows; ++r) rows[static_cast<size_t>(r)] = r;
  return rows;
}

}  // namespace

GenerationRun::GenerationRun(std::shared_ptr<const ScoringSession> session, GenerationRequest request)
    : PromptBatchRun(std::move(request), session->signature().vocab_size), session_(std::move(session)) {
  // Every graph the rewrite gave a decoding cache decodes on it, prompts of any lengths (staggered:
  // forward_with_fused_cache). A graph with past inputs too: fed an empty past, its Concat(past, new) copies only
  // the new keys, where its own cache would copy every cached key and value each pass.
  const bool fused = session_->decode_cache();
  use_kv_ = session_->supports_prefix() && !fused;
  validate();
  for (const InputPlan& plan : session_->signature().inputs) {
    if (is_past_input(plan)) past_plans_.push_back(&plan);
  }
  if (fused) {
    size_t longest = 0;
    for (const auto& prompt : request_.prompts) longest = std::max(longest, prompt.size());
    fused_cache_ = std::make_unique<RegisteredKvCache>(static_cast<int64_t>(longest) + request_.max_new_tokens);
  }
}

// The one rule beyond check_generation_request: a graph that numbers positions from its cache takes no padding.
void GenerationRun::validate() const {
  const auto& prompts = request_.prompts;
  const GraphSignature& signature = session_->signature();
  const bool takes_padding = has_role(signature, InputRole::kPositionIds) && has_role(signature, InputRole::kAttentionMask);
  if (use_kv_ && !takes_padding) {
    for (size_t p = 1; p < prompts.size(); ++p) {
      if (prompts[p].size() != prompts[0].size()) {
        throw Error("BAD_DATA",
                    "this graph has KV-cache inputs but no position_ids (or attention_mask) input, so it numbers new tokens "
                    "from its cache length and cannot take padded prompts; prompt 0 has " +
                        std::to_string(prompts[0].size()) + " tokens, prompt " + std::to_string(p) + " has " + std::to_string(prompts[p].size()) +
                        " (batch prompts of equal length)");
      }
    }
  }
}

void GenerationRun::forward() {
  if (use_kv_) {
    forward_with_cache();
  } else if (fused_cache_ != nullptr) {
    forward_with_fused_cache();
  } else {
    forward_recompute();
  }
}

template <class Replace>
void GenerationRun::replace_past(Replace replace) {
  for (size_t i = 0; i < past_plans_.size(); ++i) kv_[i] = replace(kv_[i], *past_plans_[i]);
  kv_set_ = -1;
}

void GenerationRun::drop_finished_rows() {
  std::vector<int64_t> keep;
  for (size_t r = 0; r < live_.size(); ++r) {
    if (prompts_[static_cast<size_t>(live_[r])].finish == FinishReason::kRunning) keep.push_back(static_cast<int64_t>(r));
  }
  if (keep.size() == live_.size()) return;
  std::vector<int32_t> live;
  std::vector<int64_t> positions;
  std::vector<int64_t> padding;
  for (const int64_t r : keep) {
    live.push_back(live_[static_cast<size_t>(r)]);
    if (!kv_.empty()) {
      positions.push_back(next_position_[static_cast<size_t>(r)]);
      padding.push_back(padding_[static_cast<size_t>(r)]);
    }
  }
  live_ = std::move(live);
  if (fused_cache_ != nullptr) fused_cache_->cache().keep_entries(keep);
  next_position_ = std::move(positions);
  padding_ = std::move(padding);
  if (kv_.empty()) return;
  if (keep.empty()) {
    kv_.clear();  // every prompt done: the cache is no longer needed
    return;
  }
  replace_past([&](const Ort::Value& past, const InputPlan& plan) { return gather_batch_rows(past, plan.batch_axis, keep); });
  trim_shared_padding();
}

// Padding columns that every remaining row masks are attended by no one: they go, so a batch whose longest
// prompts have finished stops paying for their padding in every later pass. Each row's positions are fed
// explicitly (position_ids), so nothing is renumbered; graphs that number positions from the cache length
// never see padding (validate()), so for them there is nothing to cut.
void GenerationRun::trim_shared_padding() {
  if (padding_.empty()) return;
  const int64_t shared = *std::min_element(padding_.begin(), padding_.end());
  if (shared == 0) return;
  replace_past([&](const Ort::Value& past, const InputPlan& plan) { return drop_leading_positions(past, plan.sequence_axis, shared); });
  for (int64_t& row_padding : padding_) row_padding -= shared;
  kv_length_ -= shared;
}

void GenerationRun::forward_with_cache() {
  const auto rows = static_cast<int64_t>(live_.size());
  DecodeFeed feed;
  feed.rows = rows;
  const bool prefill = kv_.empty();
  if (prefill) {
    // Left padding: every row's last prompt token sits at the same slot, so each next token is read there and
    // the new tokens that follow line up in one column per step.
    int64_t longest = 0;
    for (const int32_t p : live_) longest = std::max(longest, static_cast<int64_t>(request_.prompts[static_cast<size_t>(p)].size()));
    feed.length = longest;
    feed.past_length = 0;
    for (const int32_t p : live_) {
      const auto& prompt = request_.prompts[static_cast<size_t>(p)];
      const int64_t padding = longest - static_cast<int64_t>(prompt.size());
      for (int64_t i = 0; i < longest; ++i) {
        const bool real = i >= padding;
        feed.input_ids.push_back(real ? prompt[static_cast<size_t>(i - padding)] : session_->options().pad_token_id);
        feed.attention_mask.push_back(real ? 1 : 0);
        feed.position_ids.push_back(real ? i - padding : kPaddingPosition);
      }
      padding_.push_back(padding);
      next_position_.push_back(static_cast<int64_t>(prompt.size()));
    }
  } else {
    feed.length = 1;
    feed.past_length = kv_length_;
    feed.attention_mask.reserve(static_cast<size_t>(rows * (kv_length_ + 1)));
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t padding = padding_[static_cast<size_t>(r)];
      feed.input_ids.push_back(prompts_[static_cast<size_t>(live_[static_cast<size_t>(r)])].generated.back());
      feed.attention_mask.insert(feed.attention_mask.end(), static_cast<size_t>(padding), 0);
      feed.attention_mask.insert(feed.attention_mask.end(), static_cast<size_t>(kv_length_ + 1 - padding), 1);
      feed.position_ids.push_back(next_position_[static_cast<size_t>(r)]);
    }
  }
  for (int64_t r = 0; r < rows; ++r) feed.logit_positions.push_back(r * feed.length + feed.length - 1);
  const BoundInputs bound = bind_decode_inputs(session_->signature(), feed, kv_);
  std::vector<const char*> names{session_->signature().logits_output.c_str()};
  for (const std::string& present : session_->present_outputs()) names.push_back(present.c_str());
  std::vector<Ort::Value> outputs;
  outputs.push_back(logits_target(rows));
  // The set the last pass's presents (this pass's past) are not in; the prefill lets ORT allocate them.
  const int present_set = prefill || present_sets_[0].empty() ? -1 : (kv_set_ == 0 ? 1 : 0);
  for (size_t i = 0; i < kv_.size() && present_set >= 0; ++i) {
    std::vector<int64_t> shape = kv_[i].GetTensorTypeAndShapeInfo().GetShape();
    shape[static_cast<size_t>(past_plans_[i]->sequence_axis)] += feed.length;
    outputs.push_back(present_sets_[static_cast<size_t>(present_set)][i].view(shape));
  }
  while (outputs.size() < names.size()) outputs.emplace_back(nullptr);  // null values: ORT allocates those outputs
  session_->run_into(bound, names, outputs, describe_pass(rows, feed.length));
  choose_tokens(outputs.front(), logit_rows_of(session_->signature(), feed));
  if (prefill) reuse_outputs(outputs, request_.max_new_tokens);
  kv_.clear();
  for (size_t i = 1; i < outputs.size(); ++i) kv_.push_back(std::move(outputs[i]));
  kv_set_ = present_set;
  kv_length_ = feed.past_length + feed.length;
  // The prefill set each row's next position to its prompt length; a decoding pass fed one token more.
  if (!prefill) {
    for (auto& position : next_position_) ++position;
  }
}

// Every row feeds the same positions [fused_length_, fused_length_ + length) in a pass, so the graph's one
// position offset is right for all of them and nothing is padded: prompts of several lengths start together,
// the first pass feeds as many tokens as the shortest prompt has, and a longer prompt's remaining tokens go in
// one per pass beside the other rows' new tokens (its logits unread) until its own first new token. Only the
// first pass feeds more than one token: a graph may number its mask's keys from 0 over the fed tokens (GPT-2's
// exports do), which is causal only at offset 0 (the op would refuse such a block, not decode it wrongly).
void GenerationRun::forward_with_fused_cache() {
  const auto rows = static_cast<int64_t>(live_.size());
  const auto prompt_length = [&](int64_t r) {
    return static_cast<int64_t>(request_.prompts[static_cast<size_t>(live_[static_cast<size_t>(r)])].size());
  };
  DecodeFeed feed;
  feed.rows = rows;
  feed.length = 1;
  if (fused_length_ == 0) {
    int64_t longest = 0;
    feed.length = prompt_length(0);
    for (int64_t r = 1; r < rows; ++r) {
      feed.length = std::min(feed.length, prompt_length(r));
      if (prompt_length(r) > prompt_length(longest)) longest = r;
    }
    if (feed.length < prompt_length(longest)) check_mask_over(request_.prompts[static_cast<size_t>(live_[static_cast<size_t>(longest)])]);
  }
  for (int64_t r = 0; r < rows; ++r) {
    const auto prompt = static_cast<size_t>(live_[static_cast<size_t>(r)]);
    const int64_t length = prompt_length(r);
    for (int64_t position = fused_length_; position < fused_length_ + feed.length; ++position) {
      feed.input_ids.push_back(position < length ? request_.prompts[prompt][static_cast<size_t>(position)]
                                                 : prompts_[prompt].generated[static_cast<size_t>(position - length)]);
    }
    feed.logit_positions.push_back(r * feed.length + feed.length - 1);
  }
  std::vector<Ort::Value> outputs = run_fused_pass(feed, *fused_cache_, fused_length_);
  std::vector<int64_t> logit_rows = logit_rows_of(session_->signature(), feed);
  for (int64_t r = 0; r < rows; ++r) {
    if (fused_length_ + feed.length < prompt_length(r)) logit_rows[static_cast<size_t>(r)] = -1;  // a row still inside its prompt takes no token
  }
  choose_tokens(outputs.front(), logit_rows);
  if (fused_length_ == 0) reuse_outputs(outputs, 0);
  fused_length_ += feed.length;
}

// The fused op checks each pass's mask over the rows it is fed (core/cached_attention.h), and a staggered
// batch's passes may all be one token wide, where any mask looks causal. So the longest prompt goes through
// once alone, into a cache of its own that is dropped, before the batch relies on the cache: a mask that is
// not causal with per-key values over those positions is refused there.
void GenerationRun::check_mask_over(const std::vector<int32_t>& prompt) {
  DecodeFeed feed;
  feed.rows = 1;
  feed.length = static_cast<int64_t>(prompt.size());
  feed.input_ids.assign(prompt.begin(), prompt.end());
  feed.logit_positions.push_back(feed.length - 1);
  RegisteredKvCache probe(feed.length);
  static_cast<void>(run_fused_pass(feed, probe, 0));
}

// `feed` holds input_ids and logit_positions; every token is real and at position offset + its column.
std::vector<Ort::Value> GenerationRun::run_fused_pass(DecodeFeed& feed, RegisteredKvCache& cache, int64_t offset) {
  feed.past_length = 0;  // the graph has no past input: its mask covers the fed tokens, the cache the rest
  feed.attention_mask.assign(feed.input_ids.size(), 1);
  feed.position_ids.clear();
  for (int64_t r = 0; r < feed.rows; ++r) {
    for (int64_t i = 0; i < feed.length; ++i) feed.position_ids.push_back(offset + i);
  }
  BoundInputs bound = bind_decode_inputs(session_->signature(), feed, {});
  const Ort::MemoryInfo memory = Ort::MemoryInfo::CreateCpu(OrtArenaAllocator, OrtMemTypeDefault);
  int64_t cache_id = cache.id();
  const int64_t one = 1;
  bound.names.push_back(graph::kDecodeCacheInput);
  bound.values.push_back(Ort::Value::CreateTensor<int64_t>(memory, &cache_id, 1, &one, 1));
  bound.names.push_back(graph::kPositionOffsetInput);
  bound.values.push_back(Ort::Value::CreateTensor<int64_t>(memory, &offset, 1, nullptr, 0));
  std::vector<Ort::Value> outputs;
  outputs.push_back(logits_target(feed.rows));
  session_->run_into(bound, {session_->signature().logits_output.c_str()}, outputs, describe_pass(feed.rows, feed.length));
  return outputs;
}

void GenerationRun::forward_recompute() {
  const auto rows = static_cast<int64_t>(live_.size());
  DecodeFeed feed;
  feed.rows = rows;
  std::vector<int64_t> lengths;
  for (const int32_t p : live_) {
    lengths.push_back(static_cast<int64_t>(request_.prompts[static_cast<size_t>(p)].size() + prompts_[static_cast<size_t>(p)].generated.size()));
  }
  feed.length = *std::max_element(lengths.begin(), lengths.end());
  // Right padding: each row's tokens keep positions 0..n-1 whether or not the graph takes position_ids, and
  // the causal mask keeps the padding after them out of every position that is read.
  for (int64_t r = 0; r < rows; ++r) {
    const auto& prompt = request_.prompts[static_cast<size_t>(live_[static_cast<size_t>(r)])];
    const auto& generated = prompts_[static_cast<size_t>(live_[static_cast<size_t>(r)])].generated;
    const int64_t length = lengths[static_cast<size_t>(r)];
    for (int64_t i = 0; i < feed.length; ++i) {
      const bool real = i < length;
      int64_t id = session_->options().pad_token_id;
      if (real) id = static_cast<size_t>(i) < prompt.size() ? prompt[static_cast<size_t>(i)] : generated[static_cast<size_t>(i) - prompt.size()];
      feed.input_ids.push_back(id);
      feed.attention_mask.push_back(real ? 1 : 0);
      feed.position_ids.push_back(real ? i : kPaddingPosition);
    }
    feed.logit_positions.push_back(r * feed.length + length - 1);
  }
  const BoundInputs bound = bind_decode_inputs(session_->signature(), feed, {});
  std::vector<Ort::Value> outputs = session_->run(bound, {session_->signature().logits_output.c_str()}, describe_pass(rows, feed.length));
  choose_tokens(outputs.front(), logit_rows_of(session_->signature(), feed));
}

Ort::Value GenerationRun::logits_target(int64_t rows) {
  if (!logits_out_) return Ort::Value(nullptr);
  std::vector<int64_t> shape = logits_shape_;
  shape.front() = rows;  // a sliced head's first axis is its gathered positions, one per row
  return logits_out_->view(shape);
}

void GenerationRun::reuse_outputs(const std::vector<Ort::Value>& prefill_outputs, int64_t new_positions) {
  // ORT copies outputs off the device into host memory the caller lends only at a cost; CUDA keeps its own.
  if (session_->options().provider != "cpu") return;
  const auto capacity_of = [](const std::vector<int64_t>& shape) {
    size_t count = 1;
    for (const int64_t dimension : shape) count *= static_cast<size_t>(dimension);
    return count;
  };
  const Ort::Value& logits = prefill_outputs.front();
  const auto logits_info = logits.GetTensorTypeAndShapeInfo();
  logits_shape_ = logits_info.GetShape();
  // Rows only leave a run, so the prefill's rows bound every later pass.
  if (session_->signature().logits_sliced && !logits_shape_.empty()) logits_out_.emplace(logits_info.GetElementType(), capacity_of(logits_shape_));
  if (new_positions == 0 || past_plans_.size() + 1 != prefill_outputs.size()) return;
  for (auto& set : present_sets_) {
    for (size_t i = 0; i < past_plans_.size(); ++i) {
      const auto info = prefill_outputs[i + 1].GetTensorTypeAndShapeInfo();
      std::vector<int64_t> longest = info.GetShape();
      longest[static_cast<size_t>(past_plans_[i]->sequence_axis)] += new_positions;
      set.emplace_back(info.GetElementType(), capacity_of(longest));
    }
  }
}

void GenerationRun::choose_tokens(const Ort::Value& logits, std::span<const int64_t> logit_rows) {
  const auto info = logits.GetTensorTypeAndShapeInfo();
  const std::vector<int64_t> shape = info.GetShape();
  const int64_t vocab = shape.empty() ? 0 : shape.back();
  const auto total_rows = vocab > 0 ? static_cast<int64_t>(info.GetElementCount()) / vocab : 0;
  // A sliced head computes the one position each row reads, prefill and decoding pass alike; more rows would mean
  // the graph ran its LM head over positions nobody reads.
  if (session_->signature().logits_sliced && total_rows != static_cast<int64_t>(live_.size())) {
    throw Error("INTERNAL", "the sliced LM head returned " + std::to_string(total_rows) + " rows of logits for " + std::to_string(live_.size()) +
                                " decoding rows");
  }
  for (size_t r = 0; r < live_.size(); ++r) {
    const auto prompt = static_cast<size_t>(live_[r]);
    if (logit_rows[r] < 0) continue;  // the row fed prompt tokens only (forward_with_fused_cache)
    if (logit_rows[r] >= total_rows) throw Error("INTERNAL", "the logits output has too few rows for the decoding batch");
    take_next_token(logit_row(logits, logit_rows[r], vocab, widened_row_), request_, prompt, prompts_[prompt], scratch_);
  }
}

std::string GenerationRun::describe_pass(int64_t rows, int64_t length) const {
  return std::string(uses_kv_cache() ? "a decoding pass" : "a recompute pass") + " of " + std::to_string(rows) + " x " + std::to_string(length) +
         " tokens";
}

}  // namespace mlrb
