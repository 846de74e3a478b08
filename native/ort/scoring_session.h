// One ONNX Runtime session over a causal LM graph, and the forward pass that turns a packed batch into
// per-request log-likelihoods. It owns the session and its signature; callers own nothing ORT-shaped.
// At load the graph is rewritten where its patterns are found (ort/rewritten_session.h: the LM head runs
// only at scored positions, and on the CPU attention blocks are fused); graphs with KV-cache inputs can
// also score rows that continue a shared prefix whose KV was computed once (compute_prefix).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "../core/packed_batch.h"
#include "../graph/initializer_overrides.h"
#include "../graph/rewrite_pass.h"
#include "device_scorer.h"
#include "graph_signature.h"
#include "ort_library.h"
#include "scoring_session_inputs.h"

namespace mlrb {

struct ScoringSessionOptions {
  std::string provider = "cpu";  // "cpu" or "cuda" (ORT's CUDA execution provider, device 0)
  int intra_op_threads = 0;      // 0: ORT's default (one per physical core)
  KvHints kv_hints;
  int32_t pad_token_id = 0;
  // The load-time graph rewrites turned off or on, by pass name (graph/rewrite_passes.h); unnamed ones run.
  std::unordered_map<std::string, bool> rewrites;
  // A folder above the model's that its external data may resolve into (onnx/confined_open.h ReadScope).
  std::string read_root;
  // Initializers to replace in the loaded graph (the DRAM measurement's rebuilt rotary caches); empty: none.
  std::vector<graph::InitializerOverride> initializer_overrides;
};

struct BatchScores {
  std::vector<double> logliks;
  std::vector<uint8_t> greedy;
  int64_t padded_tokens = 0;  // rows * padded length: what the forward pass actually computed
  int64_t logit_rows = 0;     // rows of logits the model produced (rows * padded length when not sliced)
};

class ScoringSession {
 public:
  // Throws mlrb::Error: BAD_MODEL for unreadable or unsuitable graphs, ORT_RUN for other ORT failures.
  ScoringSession(OrtRuntime& runtime, const std::string& model_path, ScoringSessionOptions options);

  [[nodiscard]] const GraphSignature& signature() const { return signature_; }
  [[nodiscard]] const ScoringSessionOptions& options() const { return options_; }
  // What each load-time graph rewrite did, or why it did nothing, in the order they ran.
  [[nodiscard]] const std::vector<graph::PassOutcome>& rewrites() const { return rewrites_; }
  [[nodiscard]] bool attention_fused() const { return attention_fused_; }
  // The fused attention nodes keep a generation's keys and values (graph/decode_cache.h).
  [[nodiscard]] bool decode_cache() const { return decode_cache_; }
  // Where the forward pass and the reduction run; empty on the CPU provider.
  [[nodiscard]] const std::string& provider_note() const { return provider_note_; }
  // True when every past input has a matching present output, so a prefix's KV can be computed and reused.
  [[nodiscard]] bool supports_prefix() const { return !present_outputs_.empty(); }

  // Safe to call from a worker thread; ORT sessions allow concurrent Run calls. With a prefix, every row of
  // the batch continues it: row tokens follow the prefix's tokens.
  [[nodiscard]] BatchScores score(const PackedBatch& batch, const KvPrefix* prefix = nullptr) const;

  // Runs `tokens` once (batch 1) and keeps the KV of every layer. Throws BAD_MODEL without KV inputs.
  [[nodiscard]] std::shared_ptr<const KvPrefix> compute_prefix(std::span<const int32_t> tokens) const;

  // The present output matching each past input, in signature order; empty without KV-cache inputs.
  [[nodiscard]] const std::vector<std::string>& present_outputs() const { return present_outputs_; }

  // One forward pass over already bound inputs, returning the named outputs in host memory (ORT copies them
  // off the device on CUDA). Callers that need more than log-likelihoods (the generation engine) use it.
  // Throws ORT_RUN naming `what` and the model.
  [[nodiscard]] std::vector<Ort::Value> run(const BoundInputs& inputs, const std::vector<const char*>& outputs, const std::string& what) const;
  // The same pass writing each output into the matching value of `into`, memory the caller owns and reuses
  // (ort/reused_output.h); ORT refuses a value whose shape is not the output's. Host memory, CPU provider only.
  void run_into(const BoundInputs& inputs, const std::vector<const char*>& outputs, std::span<Ort::Value> into, const std::string& what) const;

 private:
  std::string model_path_;
  ScoringSessionOptions options_;
  std::unique_ptr<Ort::Session> session_;
  GraphSignature signature_;
  std::vector<graph::PassOutcome> rewrites_;
  bool attention_fused_ = false;
  bool decode_cache_ = false;
  std::string provider_note_;
  std::unique_ptr<DeviceScorer> device_scorer_;  // set on CUDA in CUDA builds: logits stay on the device
  std::vector<std::string> present_outputs_;     // present output for each past input, in signature order
  size_t reduction_threads_ = 1;
};

}  // namespace mlrb
