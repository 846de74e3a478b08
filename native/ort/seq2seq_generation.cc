#include "seq2seq_generation.h"

#include <algorithm>

#include "../core/error.h"
#include "float_logits.h"
#include "generation_inputs.h"
#include "host_tensors.h"

namespace mlrb {

namespace {

// Axes of the tensors a generation keeps per row: states [rows, length, hidden], KV [rows, heads, length, dim].
constexpr int kStatesLengthAxis = 1;
constexpr int kKvLengthAxis = 2;

}  // namespace

Seq2SeqGenerationRun::Seq2SeqGenerationRun(std::shared_ptr<const Seq2SeqSession> session, GenerationRequest request)
    : PromptBatchRun(std::move(request), session->vocab_size()), session_(std::move(session)) {}

void Seq2SeqGenerationRun::drop_finished_rows() {
  std::vector<int64_t> keep;
  std::vector<int32_t> live;
  for (size_t r = 0; r < live_.size(); ++r) {
    if (prompts_[static_cast<size_t>(live_[r])].finish != FinishReason::kRunning) continue;
    keep.push_back(static_cast<int64_t>(r));
    live.push_back(live_[r]);
  }
  if (keep.size() == live_.size()) return;
  live_ = std::move(live);
  if (!encoder_) return;
  if (keep.empty()) {
    encoder_.reset();  // every prompt done: states and cache are no longer needed
    kv_.clear();
    return;
  }
  // The encoder length the remaining prompts need; the padding after it goes from states, mask and cross KV.
  int64_t length = 0;
  for (const int32_t p : live_) length = std::max(length, static_cast<int64_t>(request_.prompts[static_cast<size_t>(p)].size()));
  EncoderStates kept;
  kept.rows = static_cast<int64_t>(keep.size());
  kept.length = length;
  kept.hidden = gather_batch_rows(encoder_->hidden, 0, keep);
  if (length < encoder_->length) kept.hidden = position_range(kept.hidden, kStatesLengthAxis, 0, length);
  for (const int64_t row : keep) {
    const auto begin = encoder_->mask.begin() + row * encoder_->length;
    kept.mask.insert(kept.mask.end(), begin, begin + length);
  }
  for (size_t i = 0; i < kv_.size(); ++i) {
    kv_[i] = gather_batch_rows(kv_[i], 0, keep);
    const auto slot = static_cast<KvSlot>(i % kKvSlots);
    if ((slot == kCrossKey || slot == kCrossValue) && length < encoder_->length) kv_[i] = position_range(kv_[i], kKvLengthAxis, 0, length);
  }
  encoder_ = std::move(kept);
}

void Seq2SeqGenerationRun::forward() {
  if (!encoder_) {
    std::vector<std::vector<int32_t>> rows;
    for (const int32_t p : live_) rows.push_back(request_.prompts[static_cast<size_t>(p)]);
    encoder_ = session_->encode(rows);
  }
  DecoderPass pass;
  pass.rows = static_cast<int64_t>(live_.size());
  pass.encoder = &*encoder_;
  if (session_->uses_kv_cache()) {
    forward_with_cache(pass);
  } else {
    forward_recompute(pass);
  }
}

void Seq2SeqGenerationRun::forward_with_cache(DecoderPass& pass) {
  pass.length = 1;
  const bool first = kv_.empty();
  for (const int32_t p : live_) {
    const auto& generated = prompts_[static_cast<size_t>(p)].generated;
    pass.input_ids.push_back(first ? session_->options().decoder_start_token_id : generated.back());
  }
  if (first) {
    std::vector<Ort::Value> outputs = session_->run_first_decoder(pass, true);
    choose_tokens(outputs.front(), 1);
    for (size_t i = 1; i < outputs.size(); ++i) kv_.push_back(std::move(outputs[i]));
    return;
  }
  pass.past = kv_;
  std::vector<Ort::Value> outputs = session_->run_step_decoder(pass);
  choose_tokens(outputs.front(), 1);
  // The self-attention KV grew by this step's position; the cross-attention KV stays as the first pass left it.
  for (int layer = 0; layer < session_->layers(); ++layer) {
    kv_[static_cast<size_t>(layer) * kKvSlots + kSelfKey] = std::move(outputs[1 + 2 * static_cast<size_t>(layer)]);
    kv_[static_cast<size_t>(layer) * kKvSlots + kSelfValue] = std::move(outputs[2 + 2 * static_cast<size_t>(layer)]);
  }
}

void Seq2SeqGenerationRun::forward_recompute(DecoderPass& pass) {
  // Every live row has generated the same number of tokens: one unpadded decoder sequence each.
  pass.length = 1 + static_cast<int64_t>(prompts_[static_cast<size_t>(live_.front())].generated.size());
  for (const int32_t p : live_) {
    pass.input_ids.push_back(session_->options().decoder_start_token_id);
    const auto& generated = prompts_[static_cast<size_t>(p)].generated;
    pass.input_ids.insert(pass.input_ids.end(), generated.begin(), generated.end());
  }
  std::vector<Ort::Value> outputs = session_->run_first_decoder(pass, false);
  choose_tokens(outputs.front(), pass.length);
}

void Seq2SeqGenerationRun::choose_tokens(const Ort::Value& logits, int64_t length) {
  const std::vector<int64_t> shape = logits.GetTensorTypeAndShapeInfo().GetShape();
  const auto rows = static_cast<int64_t>(live_.size());
  if (shape.size() != 3 || shape[0] != rows || shape[1] != length || shape[2] < 1) {
    throw Error("BAD_MODEL", "the decoder returned logits of the wrong shape for a decoding pass of " + std::to_string(rows) + " x " +
                                 std::to_string(length) + " tokens");
  }
  const int64_t vocab = shape[2];
  const std::span<const float> all = float_logits(logits, widened_);
  for (size_t r = 0; r < live_.size(); ++r) {
    const auto prompt = static_cast<size_t>(live_[r]);
    const auto offset = static_cast<size_t>((static_cast<int64_t>(r) * length + length - 1) * vocab);
    take_next_token(all.subspan(offset, static_cast<size_t>(vocab)), request_, prompt, prompts_[prompt], scratch_);
  }
}

}  // namespace mlrb
