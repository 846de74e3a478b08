// The ONNX Runtime sessions of one encoder-decoder model (optimum's T5 exports), and the scoring pass that turns
// a packed batch into per-request log-likelihoods as lm-eval's seq2seq backend computes them: the encoder reads
// the context, the decoder reads decoder_start_token_id followed by the continuation less its last token, and
// the continuation's log-probabilities are summed. The sibling of ScoringSession for causal graphs; it shares its
// batch layout, reduction and result types.
//
// Three layouts, told apart by the files given and checked against their graphs:
//   no past   encoder + decoder (logits only): scoring; generation reruns the decoder over its whole sequence
//   with past encoder + decoder (with present outputs) + decoder with past: generation keeps the self-attention
//             KV (it grows by a position per step) and the cross-attention KV (computed once, by the first pass)
//   merged    encoder + a decoder whose use_cache_branch input picks either of the two decoders above
//
// In a PackedBatch for this session the rows are encoder inputs and each request reads one row: the choices of
// one document share their context, so the encoder runs once for all of them. request_ends, if given, must be
// the rows' lengths (a request always scores its whole continuation).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "../core/packed_batch.h"
#include "ort_library.h"
#include "scoring_session.h"
#include "seq2seq_signature.h"

namespace mlrb {

struct Seq2SeqFiles {
  std::string encoder;
  std::string decoder;            // decoder_model.onnx, or decoder_model_merged.onnx
  std::string decoder_with_past;  // "" when the layout has none
};

struct Seq2SeqOptions {
  std::string provider = "cpu";  // "cpu" or "cuda"
  int intra_op_threads = 0;
  std::string read_root;  // as ScoringSessionOptions::read_root
  int32_t decoder_start_token_id = 0;
  int32_t pad_token_id = 0;
  // config.json's head count and head size, for KV dimensions a graph leaves symbolic (-1: unknown).
  int64_t num_heads = -1;
  int64_t head_dim = -1;
};

// Encoder outputs for a set of rows, right-padded to one length, with the mask that marks real tokens.
struct EncoderStates {
  int64_t rows = 0;
  int64_t length = 0;
  Ort::Value hidden{nullptr};  // [rows, length, hidden]
  std::vector<int64_t> mask;   // [rows, length]
};

// One decoder pass over `rows` rows of `length` new tokens each.
struct DecoderPass {
  int64_t rows = 0;
  int64_t length = 0;
  std::vector<int64_t> input_ids;          // [rows, length]
  const EncoderStates* encoder = nullptr;  // rows must match
  // Per layer, the four KV tensors in KvSlot order; empty: the first pass (no past).
  std::span<Ort::Value> past;
};

class Seq2SeqSession {
 public:
  // Throws mlrb::Error: BAD_MODEL for unreadable graphs or ones this engine cannot feed, ORT_RUN otherwise.
  Seq2SeqSession(OrtRuntime& runtime, const Seq2SeqFiles& files, Seq2SeqOptions options);

  [[nodiscard]] const Seq2SeqOptions& options() const { return options_; }
  [[nodiscard]] const EncoderSignature& encoder_signature() const { return encoder_signature_; }
  [[nodiscard]] const DecoderSignature& decoder_signature() const { return decoder_signature_; }
  [[nodiscard]] int64_t vocab_size() const { return decoder_signature_.vocab_size; }
  [[nodiscard]] int layers() const { return decoder_signature_.layers; }
  // Generation keeps KV between steps: the first decoder emits self- and cross-attention presents and a
  // decoder with past inputs exists (a separate file or the merged decoder's other branch).
  [[nodiscard]] bool uses_kv_cache() const { return uses_kv_cache_; }
  [[nodiscard]] const std::string& description() const { return description_; }

  // Safe to call from several worker threads at once (ORT sessions allow concurrent Run calls).
  [[nodiscard]] BatchScores score(const PackedBatch& batch) const;

  // The encoder over `rows` (each non-empty), right-padded with the pad id and masked.
  [[nodiscard]] EncoderStates encode(std::span<const std::vector<int32_t>> rows) const;
  // The first decoder pass (no past): logits, then the presents in (layer, slot) order when `with_presents`.
  [[nodiscard]] std::vector<Ort::Value> run_first_decoder(const DecoderPass& pass, bool with_presents) const;
  // A pass after `pass.past`: logits, then the self-attention presents in (layer, slot) order.
  [[nodiscard]] std::vector<Ort::Value> run_step_decoder(const DecoderPass& pass) const;

 private:
  [[nodiscard]] std::vector<Ort::Value> run_decoder(Ort::Session& session, const DecoderSignature& signature, const DecoderPass& pass,
                                                    bool use_cache_branch, const std::vector<const char*>& outputs, const std::string& what) const;
  [[nodiscard]] int64_t kv_dimension(const TensorDescription& tensor, size_t axis, int64_t hint, const char* what) const;

  std::string model_name_;
  Seq2SeqOptions options_;
  std::unique_ptr<Ort::Session> encoder_;
  std::unique_ptr<Ort::Session> decoder_;
  std::unique_ptr<Ort::Session> decoder_with_past_;  // null for the no-past and merged layouts
  EncoderSignature encoder_signature_;
  DecoderSignature decoder_signature_;
  DecoderSignature step_signature_;  // of decoder_with_past_, or of the merged decoder
  bool merged_ = false;
  bool uses_kv_cache_ = false;
  std::string description_;
  size_t reduction_threads_ = 1;
};

}  // namespace mlrb
