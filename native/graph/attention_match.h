// Finds decomposed attention blocks in a graph:
//
//   scores = MatMul(Q, Kᵀ), scaled before or after (attention_scores_match.h, key_transpose_match.h)
//   scores = Where(mask, scores, fill) | Where(mask, fill, scores) | Add(scores, float mask)
//   out    = MatMul(Softmax(scores, axis=-1), V), with Casts or sdpa's NaN guard between (softmax_output_match.h)
//
// and what around them the fused op can absorb: K / V heads repeated for grouped-query attention
// (Unsqueeze(axis 2) -> Expand -> Reshape, as repeat_kv is exported), a rotary embedding of Q and K
// (graph/rotary_match.h) and the Transposes between [B, T, H, D] and [B, H, T, D] on Q, K, V and the output.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "graph_view.h"

namespace mlrb::graph {

struct AttentionBlock {
  std::string query, key, value, mask, output;
  bool bool_mask = true;
  bool keep_where_true = true;
  float fill = 0.0F;
  float scale = 1.0F;             // applied to each dot product (the product of every scale around the MatMul)
  bool zero_nan_weights = false;  // NaN probabilities (a row with every key masked) weigh 0 (sdpa's guard)
  // 0: [B, H, T, D]; 1: [B, T, H, D] (a head Transpose was absorbed).
  int64_t query_layout = 0, key_layout = 0, value_layout = 0, output_layout = 0;
  int64_t kv_repeat = 1;
  // With kv_repeat > 1: the merged [heads, D] the repeat_kv Reshapes name for K and V. The graph says
  // them as constants; only the kernel sees the tensors, so it checks them (the graph would fail or
  // lay the heads out differently where they do not hold).
  int64_t repeat_heads = 0, repeat_key_dim = 0, repeat_value_dim = 0;
  std::string cos, sin;  // a folded rotary embedding's tables, when rotary_half > 0
  int64_t rotary_half = 0;
  size_t output_node = 0;            // where the fused node goes: the last node the block replaces
  std::vector<size_t> fused_nodes;   // every replaced node
  std::vector<std::string> dropped;  // values that no longer exist
};

// The block whose Softmax is node softmax_index, if it has the pattern. opset: the default domain's.
[[nodiscard]] std::optional<AttentionBlock> match_attention(const GraphView& view, size_t softmax_index, int64_t opset);

}  // namespace mlrb::graph
