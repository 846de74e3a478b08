// Follows an attention block's probabilities from the Softmax to the MatMul with V through what exporters put
// in between:
//
//   Cast(to = float)                       transformers' eager attention: softmax(dtype=float32).to(q.dtype);
//                                          TorchScript writes two of them, dynamo none for float32 models
//   Where(IsNaN(p), 0, p)                  torch's scaled_dot_product_attention (both exporters): a row whose
//                                          every key is masked gives NaN probabilities, which become 0
//
// A Cast to float of float probabilities is the identity (the fused op takes float tensors only, so a graph
// in another type fails to load with it and keeps its own nodes). The NaN guard becomes the op's
// zero_nan_weights attribute.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "graph_view.h"

namespace mlrb::graph {

struct SoftmaxOutput {
  size_t weighted_sum = 0;  // the MatMul(probabilities, V)
  bool zero_nan_weights = false;
  std::vector<size_t> nodes;         // Casts and the guard's IsNaN and Where
  std::vector<std::string> dropped;  // the values between the Softmax and the MatMul, the Softmax's output included
};

[[nodiscard]] std::optional<SoftmaxOutput> match_softmax_output(const GraphView& view, const std::string& probabilities);

// A Cast to float read only by `value`'s reader, producing `value`: its input; else `value` itself. Some eager
// exports cast the scores before the Softmax too.
[[nodiscard]] std::string skip_float_cast(const GraphView& view, const std::string& value, std::vector<size_t>& nodes,
                                          std::vector<std::string>& dropped);

}  // namespace mlrb::graph
