// RMSNorm exported as x * x -> ReduceMean -> ... is invisible to ONNX Runtime's SimplifiedLayerNormalization
// fusion, which looks for Pow(x, 2). Rewriting those squares (only where a ReduceMean reads them) lets ORT
// fuse each RMSNorm into one kernel; Pow(x, 2) is computed as x * x, so the values do not change.
#pragma once

#include <cstddef>
#include <vector>

#include "graph_view.h"
#include "proto_wire.h"

namespace mlrb::graph {

inline constexpr const char* kSquareExponent = "mlrb_square_exponent";

// Mul(x, x) nodes whose only reader is a ReduceMean.
[[nodiscard]] std::vector<size_t> find_rms_squares(const GraphView& view);

// The node as Pow(x, kSquareExponent), every other field verbatim.
[[nodiscard]] ProtoBuilder square_as_pow(const NodeView& node);

}  // namespace mlrb::graph
