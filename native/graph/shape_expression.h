// What an int64 shape vector in a graph says, symbolically: constants and runs of another tensor's dims.
//
// Exporters compute the targets of Reshape and Expand at run time from Shape nodes, so a pattern written
// with constant shapes by one exporter arrives as Concat(Slice(Shape(x), ...), ...) from another: the
// dynamo exporter's Kᵀ is Reshape(Transpose(Reshape(K, [-1, dims(K)[-2:]])), [dims(K)[:-2], dims(K)[-1],
// dims(K)[-2]]), and TorchScript spells single dims as Unsqueeze(Gather(Shape(x), i)). Matchers compare
// these expressions structurally to prove that such a reshape means what the fused op assumes.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "graph_view.h"

namespace mlrb::graph {

// One piece of a shape vector: a constant, or dims [begin, end) of a tensor's shape, with Python's slice
// meaning (negative indices count from the end; kToEnd runs to the last dim).
struct ShapePiece {
  static constexpr int64_t kToEnd = std::numeric_limits<int64_t>::max();

  std::optional<int64_t> constant;  // set: this piece is one constant element
  std::string tensor;               // else: dims of this tensor ...
  int64_t begin = 0;
  int64_t end = kToEnd;

  [[nodiscard]] static ShapePiece value(int64_t constant) { return ShapePiece{constant, {}, 0, 0}; }
  [[nodiscard]] static ShapePiece dims(std::string tensor, int64_t begin, int64_t end) {
    return ShapePiece{std::nullopt, std::move(tensor), begin, end};
  }
  [[nodiscard]] static ShapePiece dim(std::string tensor, int64_t axis) { return dims(std::move(tensor), axis, axis == -1 ? kToEnd : axis + 1); }

  bool operator==(const ShapePiece&) const = default;
};

using ShapeExpression = std::vector<ShapePiece>;

// The expression an int64 value evaluates to, from constants (initializers, Constant nodes) and Shape,
// Slice (of a whole shape, constant bounds, axis 0, step 1), Gather (one constant index of a whole shape),
// Concat (axis 0), Unsqueeze / Squeeze of a single element and Casts to int64; nullopt for anything else.
[[nodiscard]] std::optional<ShapeExpression> shape_expression(const GraphView& view, const std::string& value);

}  // namespace mlrb::graph
