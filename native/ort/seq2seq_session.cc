#include "seq2seq_session.h"

#include <algorithm>
#include <filesystem>
#include <thread>

#include "../core/error.h"
#include "../core/loglik_reduce.h"
#include "../graph/rewrite_passes.h"
#include "cuda_provider.h"
#include "element_types.h"
#include "float_logits.h"
#include "generation_inputs.h"
#include "host_tensors.h"
#include "ort_failure.h"
#include "rewritten_session.h"
#include "session_description.h"

namespace mlrb {

namespace {

constexpr int kCudaDevice = 0;

std::string file_name(const std::string& path) {
  return std::filesystem::path(path).filename().string();
}

// Every load-time rewrite off: they match causal LM graphs (an attention block fed by a causal mask, an LM head
// read at scored positions), and the encoder-decoder graphs run as exported.
RewriteRequest plain_load(bool cpu_provider, const std::string& read_root) {
  RewriteRequest request{{}, cpu_provider, read_root, {}};
  for (const graph::RewritePass* pass : graph::load_time_passes()) request.switches.emplace(std::string(pass->name), false);
  return request;
}

// The decoder input of each request: decoder_start_token_id, then its continuation less the last token (the
// labels shifted right, as T5 builds decoder_input_ids from lm-eval's labels). One row per request.
PackedBatch decoder_rows(const PackedBatch& batch, int32_t start_token) {
  PackedBatch rows;
  rows.targets = batch.targets;
  rows.target_offsets = batch.target_offsets;
  rows.row_offsets.push_back(0);
  for (size_t request = 0; request < batch.request_count(); ++request) {
    const int32_t begin = batch.target_offsets[request];
    const int32_t end = batch.target_offsets[request + 1];
    if (end > begin) {
      rows.tokens.push_back(start_token);
      rows.tokens.insert(rows.tokens.end(), batch.targets.begin() + begin, batch.targets.begin() + end - 1);
    }
    rows.row_offsets.push_back(static_cast<int32_t>(rows.tokens.size()));
    rows.request_rows.push_back(static_cast<int32_t>(request));
  }
  return rows;
}

// What the packed layout must satisfy beyond validate_packed_batch's rules for the decoder rows.
std::string check_encoder_rows(const PackedBatch& batch, int64_t vocab_size) {
  PackedBatch encoder_rows;
  encoder_rows.tokens = batch.tokens;
  encoder_rows.row_offsets = batch.row_offsets;
  encoder_rows.target_offsets = {0};
  if (std::string problem = validate_packed_batch(encoder_rows, vocab_size); !problem.empty()) return problem;
  if (batch.target_offsets.size() != batch.request_count() + 1) return "target offsets need one entry per request plus one";
  if (batch.request_count() == 0) return "the batch has no requests";
  if (!batch.request_ends.empty() && batch.request_ends.size() != batch.request_count()) return "request ends need one entry per request";
  for (size_t request = 0; request < batch.request_count(); ++request) {
    const int32_t row = batch.request_rows[request];
    if (row < 0 || static_cast<size_t>(row) >= batch.row_count()) {
      return "request " + std::to_string(request) + " points at row " + std::to_string(row) + ", which does not exist";
    }
    if (!batch.request_ends.empty() && batch.request_ends[request] != batch.row_length(static_cast<size_t>(row))) {
      return "request " + std::to_string(request) + " ends at position " + std::to_string(batch.request_ends[request]) +
             "; an encoder-decoder request reads its whole encoder row of " + std::to_string(batch.row_length(static_cast<size_t>(row)));
    }
  }
  return {};
}

// The encoder states of the rows `keep` (in that order, repeats allowed): one copy per request of its context's.
EncoderStates select_rows(const EncoderStates& states, std::span<const int64_t> keep) {
  EncoderStates selected;
  selected.rows = static_cast<int64_t>(keep.size());
  selected.length = states.length;
  selected.hidden = gather_batch_rows(states.hidden, 0, keep);
  selected.mask.reserve(keep.size() * static_cast<size_t>(states.length));
  for (const int64_t row : keep) {
    const auto begin = states.mask.begin() + row * states.length;
    selected.mask.insert(selected.mask.end(), begin, begin + states.length);
  }
  return selected;
}

}  // namespace

Seq2SeqSession::Seq2SeqSession(OrtRuntime& runtime, const Seq2SeqFiles& files, Seq2SeqOptions options)
    : model_name_(std::filesystem::path(files.decoder).parent_path().string()), options_(std::move(options)) {
  const bool on_cuda = options_.provider == "cuda";
  if (!on_cuda && options_.provider != "cpu") {
    throw Error("CUDA_UNAVAILABLE", "provider '" + options_.provider + "' is not available; use 'cpu' or 'cuda'");
  }
  const auto open = [&](const std::string& file) {
    Ort::SessionOptions session_options;
    session_options.SetGraphOptimizationLevel(GraphOptimizationLevel::ORT_ENABLE_ALL);
    session_options.SetIntraOpNumThreads(options_.intra_op_threads);
    session_options.SetInterOpNumThreads(1);
    if (on_cuda) static_cast<void>(append_cuda_provider(session_options, runtime.info(), kCudaDevice));
    try {
      return std::move(open_rewritten_session(runtime, file, session_options, plain_load(!on_cuda, options_.read_root)).session);
    } catch (const Ort::Exception& error) {
      throw ort_failure(error, code_for_load_failure(error.GetOrtErrorCode()), "cannot load " + file);
    }
  };
  encoder_ = open(files.encoder);
  encoder_signature_ = detect_encoder_signature(describe_inputs(*encoder_), describe_outputs(*encoder_), files.encoder);
  decoder_ = open(files.decoder);
  decoder_signature_ = detect_decoder_signature(describe_inputs(*decoder_), describe_outputs(*decoder_), files.decoder);
  const std::string decoder_name = file_name(files.decoder);
  if (!decoder_signature_.has_encoder_hidden_states) {
    throw Error("BAD_MODEL", files.decoder + " has no encoder_hidden_states input: the first decoder pass must read the encoder's output");
  }
  for (const DecoderInput& input : decoder_signature_.inputs) {
    if (input.role == DecoderRole::kEncoderHiddenStates && input.tensor.type != encoder_signature_.hidden_type) {
      throw Error("BAD_MODEL", files.decoder + " reads encoder_hidden_states as " + element_type_name(input.tensor.type) + " but " +
                                   file_name(files.encoder) + " writes " + element_type_name(encoder_signature_.hidden_type));
    }
  }
  merged_ = decoder_signature_.has_use_cache_branch;
  if (decoder_signature_.has_past_inputs && !merged_) {
    throw Error("BAD_MODEL", files.decoder +
                                 " has past_key_values inputs but no use_cache_branch: it is a decoder-with-past graph, which "
                                 "needs decoder_model.onnx beside it for the first step");
  }
  description_ = file_name(files.encoder) + " + " + decoder_name;
  if (!files.decoder_with_past.empty()) {
    if (merged_) throw Error("BAD_MODEL", files.decoder + " is a merged decoder; a separate decoder with past cannot go with it");
    decoder_with_past_ = open(files.decoder_with_past);
    step_signature_ = detect_decoder_signature(describe_inputs(*decoder_with_past_), describe_outputs(*decoder_with_past_), files.decoder_with_past);
    if (!step_signature_.has_past_inputs || step_signature_.has_use_cache_branch) {
      throw Error("BAD_MODEL",
                  files.decoder_with_past + " should take past_key_values.{i}.decoder/encoder.key/value inputs (and no use_cache_branch)");
    }
    if (!decoder_signature_.has_presents(true)) {
      throw Error("BAD_MODEL", files.decoder + " has no present.{i}.decoder/encoder.key/value outputs, so " + file_name(files.decoder_with_past) +
                                   " has no past to start from (export both decoders with past: optimum's text2text-generation-with-past)");
    }
    description_ += " + " + file_name(files.decoder_with_past);
  } else if (merged_) {
    step_signature_ = decoder_signature_;
  }
  if (decoder_with_past_ || merged_) {
    if (step_signature_.layers != decoder_signature_.layers || !step_signature_.has_presents(false) || !decoder_signature_.has_presents(true)) {
      throw Error("BAD_MODEL", "the decoders of " + model_name_ + " do not agree on their layers' past inputs and present outputs");
    }
    uses_kv_cache_ = true;
  }
  const unsigned hardware = std::max(1U, std::thread::hardware_concurrency());
  reduction_threads_ = options_.intra_op_threads > 0 ? static_cast<size_t>(options_.intra_op_threads) : hardware;
}

int64_t Seq2SeqSession::kv_dimension(const TensorDescription& tensor, size_t axis, int64_t hint, const char* what) const {
  if (axis < tensor.shape.size() && tensor.shape[axis] > 0) return tensor.shape[axis];
  if (hint > 0) return hint;
  throw Error("BAD_MODEL", "the past input " + tensor.name + " of " + model_name_ + " leaves " + what + " symbolic and config.json does not give it");
}

EncoderStates Seq2SeqSession::encode(std::span<const std::vector<int32_t>> rows) const {
  EncoderStates states;
  states.rows = static_cast<int64_t>(rows.size());
  for (const auto& row : rows) states.length = std::max(states.length, static_cast<int64_t>(row.size()));
  std::vector<int64_t> ids(static_cast<size_t>(states.rows * states.length), options_.pad_token_id);
  states.mask.assign(ids.size(), 0);
  for (size_t r = 0; r < rows.size(); ++r) {
    for (size_t i = 0; i < rows[r].size(); ++i) {
      ids[r * static_cast<size_t>(states.length) + i] = rows[r][i];
      states.mask[r * static_cast<size_t>(states.length) + i] = 1;
    }
  }
  const std::vector<int64_t> shape{states.rows, states.length};
  std::vector<const char*> names{encoder_signature_.input_ids.name.c_str()};
  std::vector<Ort::Value> values;
  values.push_back(owned_ids(ids, shape, encoder_signature_.input_ids.type));
  if (encoder_signature_.has_attention_mask) {
    names.push_back(encoder_signature_.attention_mask.name.c_str());
    values.push_back(owned_ids(states.mask, shape, encoder_signature_.attention_mask.type));
  }
  const char* output = encoder_signature_.hidden_output.c_str();
  try {
    std::vector<Ort::Value> outputs = encoder_->Run(Ort::RunOptions{nullptr}, names.data(), values.data(), values.size(), &output, 1);
    states.hidden = std::move(outputs.front());
  } catch (const Ort::Exception& error) {
    throw ort_failure(error, "ORT_RUN",
                      "the encoder failed on " + std::to_string(states.rows) + " x " + std::to_string(states.length) + " tokens for " + model_name_);
  }
  const std::vector<int64_t> hidden_shape = states.hidden.GetTensorTypeAndShapeInfo().GetShape();
  if (hidden_shape.size() != 3 || hidden_shape[0] != states.rows || hidden_shape[1] != states.length) {
    throw Error("BAD_MODEL", "the encoder of " + model_name_ + " returned last_hidden_state of the wrong shape for " + std::to_string(states.rows) +
                                 " x " + std::to_string(states.length) + " tokens");
  }
  return states;
}

std::vector<Ort::Value> Seq2SeqSession::run_decoder(Ort::Session& session, const DecoderSignature& signature, const DecoderPass& pass,
                                                    bool use_cache_branch, const std::vector<const char*>& outputs, const std::string& what) const {
  const EncoderStates& encoder = *pass.encoder;
  if (encoder.rows != pass.rows)
    throw Error("INTERNAL", "a decoder pass has " + std::to_string(pass.rows) + " rows but its encoder states " + std::to_string(encoder.rows));
  std::vector<const char*> names;
  std::vector<Ort::Value> values;
  for (const DecoderInput& input : signature.inputs) {
    names.push_back(input.tensor.name.c_str());
    switch (input.role) {
      case DecoderRole::kInputIds: values.push_back(owned_ids(pass.input_ids, {pass.rows, pass.length}, input.tensor.type)); break;
      case DecoderRole::kEncoderAttentionMask: values.push_back(owned_ids(encoder.mask, {encoder.rows, encoder.length}, input.tensor.type)); break;
      case DecoderRole::kEncoderHiddenStates: values.push_back(tensor_view(const_cast<Ort::Value&>(encoder.hidden))); break;
      case DecoderRole::kUseCacheBranch: values.push_back(owned_flag(use_cache_branch)); break;
      case DecoderRole::kPast:
        if (pass.past.empty()) {
          values.push_back(empty_kv(input.tensor.type, pass.rows, kv_dimension(input.tensor, 1, options_.num_heads, "the head count"),
                                    kv_dimension(input.tensor, 3, options_.head_dim, "the head size")));
        } else {
          values.push_back(tensor_view(pass.past[static_cast<size_t>(input.layer) * kKvSlots + input.slot]));
        }
        break;
    }
  }
  try {
    return session.Run(Ort::RunOptions{nullptr}, names.data(), values.data(), values.size(), outputs.data(), outputs.size());
  } catch (const Ort::Exception& error) {
    throw ort_failure(error, "ORT_RUN",
                      what + " failed on " + std::to_string(pass.rows) + " x " + std::to_string(pass.length) + " tokens for " + model_name_);
  }
}

std::vector<Ort::Value> Seq2SeqSession::run_first_decoder(const DecoderPass& pass, bool with_presents) const {
  std::vector<const char*> outputs{decoder_signature_.logits_output.c_str()};
  if (with_presents) {
    for (const auto& layer : decoder_signature_.presents) {
      for (const std::string& name : layer) outputs.push_back(name.c_str());
    }
  }
  return run_decoder(*decoder_, decoder_signature_, pass, false, outputs, "the decoder");
}

std::vector<Ort::Value> Seq2SeqSession::run_step_decoder(const DecoderPass& pass) const {
  if (!uses_kv_cache_) throw Error("INTERNAL", model_name_ + " has no decoder with past");
  std::vector<const char*> outputs{step_signature_.logits_output.c_str()};
  for (const auto& layer : step_signature_.presents) {
    outputs.push_back(layer[kSelfKey].c_str());
    outputs.push_back(layer[kSelfValue].c_str());
  }
  Ort::Session& session = decoder_with_past_ ? *decoder_with_past_ : *decoder_;
  return run_decoder(session, step_signature_, pass, true, outputs, "the decoder with past");
}

BatchScores Seq2SeqSession::score(const PackedBatch& batch) const {
  const int64_t vocab = vocab_size();
  if (std::string problem = check_encoder_rows(batch, vocab); !problem.empty())
    throw Error("BAD_DATA", "invalid batch for " + model_name_ + ": " + problem);
  const PackedBatch decoder = decoder_rows(batch, options_.decoder_start_token_id);
  if (std::string problem = validate_packed_batch(decoder, vocab); !problem.empty()) {
    throw Error("BAD_DATA", "invalid batch for " + model_name_ + ": " + problem);
  }
  std::vector<std::vector<int32_t>> rows;
  for (size_t row = 0; row < batch.row_count(); ++row) {
    rows.emplace_back(batch.tokens.begin() + batch.row_offsets[row], batch.tokens.begin() + batch.row_offsets[row + 1]);
  }
  const EncoderStates states = encode(rows);
  const std::vector<int64_t> request_rows(batch.request_rows.begin(), batch.request_rows.end());
  const EncoderStates per_request = select_rows(states, request_rows);

  DecoderPass pass;
  pass.rows = static_cast<int64_t>(decoder.row_count());
  pass.length = decoder.max_row_length();
  pass.encoder = &per_request;
  pass.input_ids.assign(static_cast<size_t>(pass.rows * pass.length), options_.pad_token_id);
  for (size_t row = 0; row < decoder.row_count(); ++row) {
    std::copy(decoder.tokens.begin() + decoder.row_offsets[row], decoder.tokens.begin() + decoder.row_offsets[row + 1],
              pass.input_ids.begin() + static_cast<int64_t>(row) * pass.length);
  }
  std::vector<Ort::Value> outputs = run_first_decoder(pass, false);
  const auto info = outputs.front().GetTensorTypeAndShapeInfo();
  const std::vector<int64_t> shape = info.GetShape();
  if (shape.size() != 3 || shape[0] != pass.rows || shape[1] != pass.length || shape[2] < 1 || (vocab > 0 && shape[2] != vocab)) {
    throw Error("BAD_MODEL", "the decoder of " + model_name_ + " returned logits of the wrong shape for " + std::to_string(pass.rows) + " x " +
                                 std::to_string(pass.length) + " tokens");
  }
  if (vocab <= 0) {
    // The graph left the vocabulary symbolic, so targets are checked against the logits it returned.
    if (std::string problem = validate_packed_batch(decoder, shape[2]); !problem.empty())
      throw Error("BAD_DATA", "invalid batch for " + model_name_ + ": " + problem);
  }
  LogitRows layout;
  layout.logit_rows = pass.rows * pass.length;
  for (int64_t row = 0; row < pass.rows; ++row) layout.request_first_row.push_back(row * pass.length);
  BatchScores scores;
  scores.logliks.assign(batch.request_count(), 0.0);
  scores.greedy.assign(batch.request_count(), 0);
  scores.padded_tokens = states.rows * states.length + pass.rows * pass.length;
  scores.logit_rows = layout.logit_rows;
  std::vector<float> widened;
  const std::span<const float> logits = float_logits(outputs.front(), widened);
  const std::string problem =
      reduce_requests(logits.data(), layout.logit_rows, shape[2], decoder, layout, RequestScores{scores.logliks, scores.greedy}, reduction_threads_);
  if (!problem.empty()) throw Error("NUMERIC", problem + " (model " + model_name_ + ")");
  return scores;
}

}  // namespace mlrb
