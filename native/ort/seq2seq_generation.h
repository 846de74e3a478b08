// Decoding with an encoder-decoder model: each prompt is the encoder's input, read once; the decoder starts
// from decoder_start_token_id and adds one token per live prompt per pass (greedy or seeded sampling), until EOS,
// the max-new-tokens limit, or a stop the caller reports. transformers' generate() for T5 does the same.
//
//   KV cache   (the with-past and merged layouts) the first pass runs the decoder without past and keeps every
//              layer's presents: the cross-attention KV over the encoder states, computed once, and the
//              self-attention KV, which each later pass (the decoder with past, fed one token per row) extends
//              by one position.
//   recompute  (the no-past layout) every pass reruns the decoder over each row's whole sequence.
// Every live row has generated as many tokens as the others, so decoder rows need no padding. Prompts are
// right-padded for the encoder and masked; rows that finish leave the batch (states, mask and KV are gathered),
// and encoder padding no remaining prompt needs is cut off. Only token ids cross to the caller.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "prompt_batch_run.h"
#include "seq2seq_session.h"

namespace mlrb {

class Seq2SeqGenerationRun : public PromptBatchRun {
 public:
  // Throws BAD_DATA (naming the prompt) for empty prompts, ids outside the vocabulary or settings out of range.
  Seq2SeqGenerationRun(std::shared_ptr<const Seq2SeqSession> session, GenerationRequest request);

  [[nodiscard]] bool uses_kv_cache() const override { return session_->uses_kv_cache(); }

 private:
  void drop_finished_rows() override;
  void forward() override;
  void forward_with_cache(DecoderPass& pass);
  void forward_recompute(DecoderPass& pass);
  // Each live row's next token from the logits [rows, length, vocab], read at the last position.
  void choose_tokens(const Ort::Value& logits, int64_t length);

  std::shared_ptr<const Seq2SeqSession> session_;
  std::optional<EncoderStates> encoder_;  // of the live rows, once encoded
  std::vector<Ort::Value> kv_;            // KV-cache mode: per layer, the four tensors in KvSlot order, for the live rows
  SamplerScratch scratch_;
  std::vector<float> widened_;
};

}  // namespace mlrb
