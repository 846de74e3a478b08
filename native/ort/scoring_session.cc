#include "scoring_session.h"

#include <algorithm>
#include <thread>

#include "../core/error.h"
#include "../core/loglik_reduce.h"
#include "cuda_provider.h"
#include "cuda_scoring.h"
#include "float_logits.h"
#include "logits_check.h"
#include "ort_failure.h"
#include "rewritten_session.h"
#include "session_description.h"

namespace mlrb {

namespace {

// The CUDA provider's device; CUDA_VISIBLE_DEVICES picks the GPU.
constexpr int kCudaDevice = 0;

// past_key_values.{i}.key -> present.{i}.key (optimum), past_{i} -> present_{i} (ORT GPT-2 export).
std::string present_name_for(const InputPlan& plan) {
  const std::string& name = plan.tensor.name;
  if (plan.role == InputRole::kPastKeyValue) return "present." + name.substr(std::string("past_key_values.").size());
  return "present_" + name.substr(std::string("past_").size());
}

std::vector<std::string> match_present_outputs(const GraphSignature& signature) {
  std::vector<std::string> presents;
  for (const InputPlan& plan : signature.inputs) {
    if (plan.role != InputRole::kPastKeyValue && plan.role != InputRole::kPastStacked) continue;
    const std::string present = present_name_for(plan);
    const bool found = std::any_of(signature.graph_outputs.begin(), signature.graph_outputs.end(),
                                   [&](const TensorDescription& output) { return output.name == present; });
    if (!found) return {};
    presents.push_back(present);
  }
  return presents;
}

}  // namespace

ScoringSession::ScoringSession(OrtRuntime& runtime, const std::string& model_path, ScoringSessionOptions options)
    : model_path_(model_path), options_(std::move(options)) {
  const bool on_cuda = options_.provider == "cuda";
  if (!on_cuda && options_.provider != "cpu") {
    throw Error("CUDA_UNAVAILABLE", "provider '" + options_.provider + "' is not available; use 'cpu' or 'cuda'");
  }
  Ort::SessionOptions session_options;
  session_options.SetGraphOptimizationLevel(GraphOptimizationLevel::ORT_ENABLE_ALL);
  session_options.SetIntraOpNumThreads(options_.intra_op_threads);
  session_options.SetInterOpNumThreads(1);
  const std::string provider_caveat = on_cuda ? append_cuda_provider(session_options, runtime.info(), kCudaDevice) : std::string();
  OpenedSession opened;
  try {
    // The fused attention ops are CPU kernels: on CUDA they would move every layer's tensors to the host,
    // so passes emitting them are off there.
    opened = open_rewritten_session(runtime, model_path, session_options,
                                    RewriteRequest{options_.rewrites, !on_cuda, options_.read_root, options_.initializer_overrides});
  } catch (const Ort::Exception& error) {
    throw ort_failure(error, code_for_load_failure(error.GetOrtErrorCode()), "cannot load " + model_path);
  }
  session_ = std::move(opened.session);
  attention_fused_ = opened.attention_fused;
  decode_cache_ = opened.decode_cache;
  rewrites_ = std::move(opened.rewrites);
  signature_ = detect_signature(describe_inputs(*session_), describe_outputs(*session_), options_.kv_hints, opened.sliced_logits);
  present_outputs_ = match_present_outputs(signature_);
  const unsigned hardware = std::max(1U, std::thread::hardware_concurrency());
  reduction_threads_ = options_.intra_op_threads > 0 ? static_cast<size_t>(options_.intra_op_threads) : hardware;
  if (on_cuda) {
#ifdef MLRB_WITH_CUDA
    CudaScorerSetup device = make_cuda_scorer(kCudaDevice);
    device_scorer_ = std::move(device.scorer);
    provider_note_ = std::move(device.note);
#else
    provider_note_ = "CUDA provider; logits are copied to the host and reduced there (this build has no CUDA kernels)";
#endif
    provider_note_ += provider_caveat;
  }
}

std::vector<Ort::Value> ScoringSession::run(const BoundInputs& inputs, const std::vector<const char*>& outputs, const std::string& what) const {
  std::vector<Ort::Value> values;
  values.reserve(outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) values.emplace_back(nullptr);  // null values: ORT allocates every output
  run_into(inputs, outputs, values, what);
  return values;
}

void ScoringSession::run_into(const BoundInputs& inputs, const std::vector<const char*>& outputs, std::span<Ort::Value> into,
                              const std::string& what) const {
  if (into.size() != outputs.size()) throw Error("INTERNAL", "run_into needs one value per output name");
  try {
    session_->Run(Ort::RunOptions{nullptr}, inputs.names.data(), inputs.values.data(), inputs.values.size(), outputs.data(), into.data(),
                  outputs.size());
  } catch (const Ort::Exception& error) {
    throw ort_failure(error, "ORT_RUN", "forward pass failed on " + what + " for " + model_path_);
  }
}

BatchScores ScoringSession::score(const PackedBatch& batch, const KvPrefix* prefix) const {
  if (std::string problem = validate_packed_batch(batch, signature_.vocab_size); !problem.empty()) {
    throw Error("BAD_DATA", "invalid batch for " + model_path_ + ": " + problem);
  }
  const PaddedInputs padded = pad_rows(batch, options_.pad_token_id, prefix != nullptr ? prefix->length : 0);
  const LogitRows layout = plan_logit_rows(batch, padded.max_length, signature_.logits_sliced);
  const BoundInputs bound = bind_inputs(signature_, padded, layout.gather_positions, prefix);
  if (device_scorer_) return device_scorer_->score(*session_, signature_, DeviceBatch{batch, padded, layout, bound, prefix}, model_path_);
  std::vector<Ort::Value> outputs = run(bound, {signature_.logits_output.c_str()},
                                        "a batch of " + std::to_string(padded.rows) + " x " + std::to_string(padded.max_length) + " tokens");
  const Ort::Value& logits = outputs.front();
  const auto info = logits.GetTensorTypeAndShapeInfo();
  const int64_t vocab_size = checked_vocab_size(info, signature_, batch, padded, layout);
  BatchScores scores;
  scores.logliks.assign(batch.request_count(), 0.0);
  scores.greedy.assign(batch.request_count(), 0);
  scores.padded_tokens = padded.rows * padded.max_length;
  scores.logit_rows = layout.logit_rows;
  std::vector<float> widened;
  const float* logits_data = float_logits(logits, widened).data();
  const std::string problem =
      reduce_requests(logits_data, layout.logit_rows, vocab_size, batch, layout, RequestScores{scores.logliks, scores.greedy}, reduction_threads_);
  if (!problem.empty()) throw Error("NUMERIC", problem + " (model " + model_path_ + ")");
  return scores;
}

std::shared_ptr<const KvPrefix> ScoringSession::compute_prefix(std::span<const int32_t> tokens) const {
  if (!supports_prefix()) {
    throw Error("BAD_MODEL", model_path_ + " has no KV-cache inputs with matching present outputs, so a prefix cannot be reused");
  }
  if (tokens.empty()) throw Error("BAD_DATA", "a reused prefix needs at least one token");
  PackedBatch prefix_row;
  prefix_row.tokens.assign(tokens.begin(), tokens.end());
  prefix_row.row_offsets = {0, static_cast<int32_t>(tokens.size())};
  for (const int32_t id : tokens) {
    if (id < 0 || (signature_.vocab_size > 0 && id >= signature_.vocab_size)) {
      throw Error("BAD_DATA", "prefix token id " + std::to_string(id) + " is outside the model's vocabulary");
    }
  }
  const PaddedInputs padded = pad_rows(prefix_row, options_.pad_token_id);
  // A sliced graph still needs its positions input; one position keeps the unused head to one row.
  const std::vector<int64_t> one_position{static_cast<int64_t>(tokens.size()) - 1};
  const BoundInputs bound = bind_inputs(signature_, padded, one_position, nullptr);
  auto prefix = std::make_shared<KvPrefix>();
  prefix->length = static_cast<int64_t>(tokens.size());
  const std::string what = "a prefix of " + std::to_string(tokens.size()) + " tokens";
  if (device_scorer_) {
    // On the GPU the KV stays where ORT computed it; each batch broadcasts it there (cuda_scoring.h).
    prefix->values = device_scorer_->compute_prefix(*session_, bound, present_outputs_, "forward pass failed on " + what + " for " + model_path_);
    prefix->on_device = true;
    return prefix;
  }
  std::vector<const char*> names;
  for (const auto& present : present_outputs_) names.push_back(present.c_str());
  prefix->values = run(bound, names, what);
  return prefix;
}

}  // namespace mlrb
