// The seam between ScoringSession and an accelerator's scoring path. A session on the CUDA provider in a
// CUDA build holds one (ort/cuda_scoring.h): it runs the forward pass with IO binding so the logits stay
// on the device and reduces them there. Plain C++, so the CPU-only build compiles the session unchanged.
#pragma once

#include <string>
#include <vector>

#include "../core/packed_batch.h"
#include "graph_signature.h"
#include "ort_api.h"
#include "scoring_session_inputs.h"

namespace mlrb {

struct BatchScores;

// One forward pass, prepared as for the host path: the host tensors in `inputs` are what the device path
// uploads. An empty past stays on the host (it has no bytes); a prefix computed on the device is broadcast
// there, and its inputs in `inputs` are empty values.
struct DeviceBatch {
  const PackedBatch& batch;
  const PaddedInputs& padded;
  const LogitRows& layout;
  const BoundInputs& inputs;
  const KvPrefix* prefix = nullptr;
};

class DeviceScorer {
 public:
  virtual ~DeviceScorer() = default;
  // Thread-safe: concurrent calls each use their own stream and buffers. Throws mlrb::Error with the same
  // codes and messages as the host path (ORT_RUN, BAD_MODEL, BAD_DATA, NUMERIC), plus OOM.
  [[nodiscard]] virtual BatchScores score(Ort::Session& session, const GraphSignature& signature, const DeviceBatch& batch,
                                          const std::string& model_path) const = 0;
  // Runs a batch-1 prefix and returns the named present outputs in device memory, in order. `failure`
  // starts the message of an error (ORT_RUN, or OOM).
  [[nodiscard]] virtual std::vector<Ort::Value> compute_prefix(Ort::Session& session, const BoundInputs& inputs,
                                                               const std::vector<std::string>& outputs, const std::string& failure) const = 0;
};

}  // namespace mlrb
