// Which graphs the CPU fusion (cpu_fusion.h) leaves alone although their attention blocks would match:
// those where it cannot promise the unfused graph's numbers (within 1e-4). Its kernel rounds as ONNX
// Runtime's float32 kernels do, but quantized graphs are another matter: ORT's optimizer rewrites them with
// QDQ / integer fusions that look at the nodes around attention, and dynamic quantization scales a tensor
// by its maximum over every row it holds, so the last-block pruning (rows dropped) changes the scales
// (a fuzzed int8 model moved by 0.45 nats). Subgraphs and model-local functions are not inspected by the
// matcher, so a graph that has them is not fused either.
#pragma once

#include <optional>
#include <string>

#include "graph_rewrite.h"
#include "graph_view.h"

namespace mlrb::graph {

// Why the fusion must not touch this model, or nullopt when nothing stands against it.
[[nodiscard]] std::optional<std::string> fusion_hazard(const ModelParts& model, const GraphView& graph);

}  // namespace mlrb::graph
