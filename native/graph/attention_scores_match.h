// Finds the score computation of an attention block, in the scalings exporters write:
//
//   MatMul(Q, Kᵀ)                              then optionally Mul(·, c) or Div(·, c)
//       hand-built graphs; transformers' eager attention (TorchScript and dynamo): scores · 1/√d
//   MatMul(Mul(Q, a), Mul(Kᵀ, b))              torch's scaled_dot_product_attention as both exporters
//       decompose it: Q and K each scaled by √(1/√d) before the product
//
// with Kᵀ in any form of key_transpose_match.h. Every scale becomes the op's one `scale`, applied to each dot
// product: ONNX Runtime runs the unfused graph that way too (it folds scalar Muls around a MatMul into
// FusedMatMul's alpha, the float product of the scales), so fused and unfused logliks stay bit-identical.
#pragma once

#include <string>

#include "attention_match.h"
#include "graph_view.h"

namespace mlrb::graph {

// Fills block.query, block.key, key_layout and scale from the scores value feeding the mask, and lists
// the nodes it covers in block.fused_nodes / block.dropped. False when `scores` is not such a product.
[[nodiscard]] bool match_scores(const GraphView& view, const std::string& scores, AttentionBlock& block);

}  // namespace mlrb::graph
