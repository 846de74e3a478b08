// How big a graph any native reader accepts: a cap on nodes and on initializers, counted over the main
// graph, every subgraph (If / Loop / Scan bodies) and every model-local function, before anything else is
// built from the file. ONNX Runtime's load time grows faster than linearly in the node count (measured with
// optimizations off, as the original-graph check loads: 100,000 Identity nodes 5.7 s, 300,000 20 s), so a
// 30 MB file of a million trivial nodes would hold a scoring load for many minutes; with the caps it is a
// BAD_MODEL naming the limit after one pass over the file's metadata.
//
// The caps are far above real language models. A dynamo export spends ~60 nodes on a Llama layer
// (stories260K: 311 nodes for 5 layers), a TorchScript export a few hundred with its shape arithmetic, so
// a 70B model (80 layers) has 5,000–30,000 nodes; a mixture of experts unrolled per expert (8 experts × 32
// layers) stays under 100,000. Initializers follow the weights: ~10 per layer, three times that quantized.
#pragma once

#include <cstdint>
#include <string>

#include "proto_wire.h"

namespace mlrb::onnx {

inline constexpr uint64_t kMaxGraphNodes = 300'000;
inline constexpr uint64_t kMaxGraphInitializers = 300'000;

struct GraphSize {
  uint64_t nodes = 0;
  uint64_t initializers = 0;  // dense and sparse initializers; a Constant node counts as a node
};

// Counts a serialized ModelProto's nodes and initializers, stopping as soon as either passes its cap.
// Throws MalformedProto for bytes that are not a message (the callers report that their own way).
[[nodiscard]] GraphSize count_graph(Bytes model);

// Throws mlrb::Error(BAD_MODEL) naming `path`, the count and the cap when the model is over either cap.
void check_graph_budget(Bytes model, const std::string& path);

}  // namespace mlrb::onnx
