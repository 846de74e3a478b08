#include "key_transpose_match.h"

#include "graph_rewrite.h"
#include "node_match.h"
#include "shape_expression.h"

namespace mlrb::graph {

namespace {

bool swaps_last_two_axes(const std::vector<int64_t>& perm) {
  if (perm.size() < 2) return false;
  for (size_t axis = 0; axis + 2 < perm.size(); ++axis) {
    if (perm[axis] != static_cast<int64_t>(axis)) return false;
  }
  return perm[perm.size() - 2] == static_cast<int64_t>(perm.size() - 1) && perm.back() == static_cast<int64_t>(perm.size() - 2);
}

// A chain of single-input-path nodes from K (first) to Kᵀ (last): each is absorbed while every later one is
// and its output has no other reader, so nothing the rest of the graph reads disappears.
void absorb_chain(const GraphView& view, const std::vector<size_t>& chain, TransposedKey& match) {
  for (size_t step = chain.size(); step-- > 0;) {
    const std::string& output = view.nodes[chain[step]].outputs[0];
    if (!used_only_once(view, output)) return;
    match.nodes.push_back(chain[step]);
    match.dropped.push_back(output);
  }
}

// Reshape with allowzero unset or 0: every target below is built from dims or -1, so a 0 can only be a
// real zero-sized dim, which copying the input's dim gives as well.
const NodeView* plain_reshape(const GraphView& view, const std::string& value, size_t* index) {
  const NodeView* reshape = producer_of(view, value, "Reshape", index);
  return reshape != nullptr && reshape->inputs.size() == 2 ? reshape : nullptr;
}

// dynamo: Reshape(Transpose(Reshape(K, [-1, dims(K)[-2:-1], dims(K)[-1:]]), [0, 2, 1]),
//                 [dims(K)[:-2], dims(K)[-1:], dims(K)[-2:-1]]), the dims from Shape(K).
std::optional<TransposedKey> match_reshaped_transpose(const GraphView& view, const std::string& transposed) {
  size_t outer_index = 0, transpose_index = 0, inner_index = 0;
  const NodeView* outer = plain_reshape(view, transposed, &outer_index);
  if (outer == nullptr) return std::nullopt;
  const NodeView* transpose = producer_of(view, outer->inputs[0], "Transpose", &transpose_index);
  if (transpose == nullptr || transpose->ints("perm") != std::vector<int64_t>{0, 2, 1}) return std::nullopt;
  const NodeView* inner = plain_reshape(view, transpose->inputs[0], &inner_index);
  if (inner == nullptr) return std::nullopt;
  const std::string& key = inner->inputs[0];
  const ShapePiece rows = ShapePiece::dims(key, -2, -1);
  const ShapePiece depth = ShapePiece::dims(key, -1, ShapePiece::kToEnd);
  const std::optional<ShapeExpression> flattened = shape_expression(view, inner->inputs[1]);
  const std::optional<ShapeExpression> restored = shape_expression(view, outer->inputs[1]);
  if (flattened != ShapeExpression{ShapePiece::value(-1), rows, depth} || restored != ShapeExpression{ShapePiece::dims(key, 0, -2), depth, rows}) {
    return std::nullopt;
  }
  TransposedKey match{key, 0, {}, {}};
  absorb_chain(view, {inner_index, transpose_index, outer_index}, match);
  return match;
}

}  // namespace

std::optional<TransposedKey> match_transposed_key(const GraphView& view, const std::string& transposed) {
  size_t index = 0;
  if (const NodeView* transpose = producer_of(view, transposed, "Transpose", &index); transpose != nullptr) {
    const std::vector<int64_t>& perm = transpose->ints("perm");
    const bool from_rows_first = perm == std::vector<int64_t>{0, 2, 3, 1};
    if (!swaps_last_two_axes(perm) && !from_rows_first) return std::nullopt;
    TransposedKey match{transpose->inputs[0], from_rows_first ? 1 : 0, {}, {}};
    absorb_chain(view, {index}, match);
    return match;
  }
  return match_reshaped_transpose(view, transposed);
}

}  // namespace mlrb::graph
