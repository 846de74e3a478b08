// What an open ORT session declares (each input and output: name, element type, shape), and which ORT load
// failures mean a bad model file. Shared by every session kind: causal (scoring_session.h) and encoder-decoder
// (seq2seq_session.h).
#pragma once

#include <string>
#include <vector>

#include "graph_signature.h"
#include "ort_api.h"

namespace mlrb {

[[nodiscard]] std::vector<TensorDescription> describe_inputs(const Ort::Session& session);
[[nodiscard]] std::vector<TensorDescription> describe_outputs(const Ort::Session& session);

// BAD_MODEL for ORT's codes that mean an unreadable file or a malformed graph, ORT_RUN for anything else.
[[nodiscard]] std::string code_for_load_failure(OrtErrorCode code);

}  // namespace mlrb
