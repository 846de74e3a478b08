#include "shape_expression.h"

#include "../onnx/data_types.h"
#include "graph_rewrite.h"
#include "node_match.h"

namespace mlrb::graph {

namespace {

constexpr int kMaxDepth = 24;  // shape arithmetic is shallow; a deeper chain is not one of the known forms
// Slice bounds beyond this mean "from the start" / "to the end" (exporters write INT64_MIN and INT64_MAX).
constexpr int64_t kUnbounded = int64_t{1} << 40;

std::optional<int64_t> single_int(const GraphView& view, const std::string& value) {
  const std::optional<std::vector<int64_t>> values = int64_values(view, value);
  if (!values || values->size() != 1) return std::nullopt;
  return values->front();
}

bool is_whole_shape(const ShapeExpression& expression) {
  return expression.size() == 1 && !expression[0].constant && expression[0].begin == 0 && expression[0].end == ShapePiece::kToEnd;
}

bool all_constant(const ShapeExpression& expression) {
  for (const ShapePiece& piece : expression) {
    if (!piece.constant) return false;
  }
  return true;
}

// A one-element vector: a constant, or exactly one dim of a tensor.
bool is_single_element(const ShapeExpression& expression) {
  if (expression.size() != 1) return false;
  const ShapePiece& piece = expression.front();
  if (piece.constant) return true;
  return piece.begin == -1 ? piece.end == ShapePiece::kToEnd : piece.end == piece.begin + 1;
}

// Python's list[begin:end] of a constant list.
ShapeExpression slice_constants(const ShapeExpression& list, int64_t begin, int64_t end) {
  const auto size = static_cast<int64_t>(list.size());
  const auto clamp = [&](int64_t index) { return std::min(size, std::max<int64_t>(0, index < 0 ? index + size : index)); };
  ShapeExpression sliced;
  for (int64_t at = clamp(begin); at < clamp(end); ++at) sliced.push_back(list[static_cast<size_t>(at)]);
  return sliced;
}

std::optional<ShapeExpression> evaluate(const GraphView& view, const std::string& value, int depth);

std::optional<ShapeExpression> evaluate_slice(const GraphView& view, const NodeView& slice, int depth) {
  if (slice.inputs.size() < 3 || slice.inputs.size() > 5) return std::nullopt;
  const std::optional<int64_t> start = single_int(view, slice.inputs[1]);
  const std::optional<int64_t> stop = single_int(view, slice.inputs[2]);
  if (!start || !stop) return std::nullopt;
  if (slice.inputs.size() >= 4 && !slice.inputs[3].empty()) {
    const std::optional<int64_t> axis = single_int(view, slice.inputs[3]);
    if (!axis || (*axis != 0 && *axis != -1)) return std::nullopt;  // a shape vector has one axis
  }
  if (slice.inputs.size() == 5 && !slice.inputs[4].empty() && single_int(view, slice.inputs[4]) != 1) return std::nullopt;
  const std::optional<ShapeExpression> data = evaluate(view, slice.inputs[0], depth + 1);
  if (!data) return std::nullopt;
  const int64_t begin = *start < -kUnbounded ? 0 : *start;
  const int64_t end = *stop > kUnbounded ? ShapePiece::kToEnd : *stop;
  if (all_constant(*data)) return slice_constants(*data, begin, end);
  // Slicing part of a shape would need the tensor's rank to compose the bounds; exporters slice whole shapes.
  if (!is_whole_shape(*data)) return std::nullopt;
  return ShapeExpression{ShapePiece::dims(data->front().tensor, begin, end)};
}

std::optional<ShapeExpression> evaluate_gather(const GraphView& view, const NodeView& gather, int depth) {
  const auto axis = gather.int_attributes.find("axis");
  if (gather.inputs.size() != 2 || (axis != gather.int_attributes.end() && axis->second != 0)) return std::nullopt;
  const std::optional<int64_t> index = single_int(view, gather.inputs[1]);
  const std::optional<ShapeExpression> data = evaluate(view, gather.inputs[0], depth + 1);
  if (!index || !data) return std::nullopt;
  if (all_constant(*data)) {
    const int64_t at = *index < 0 ? *index + static_cast<int64_t>(data->size()) : *index;
    if (at < 0 || at >= static_cast<int64_t>(data->size())) return std::nullopt;
    return ShapeExpression{(*data)[static_cast<size_t>(at)]};
  }
  if (!is_whole_shape(*data)) return std::nullopt;
  return ShapeExpression{ShapePiece::dim(data->front().tensor, *index)};
}

std::optional<ShapeExpression> evaluate(const GraphView& view, const std::string& value, int depth) {
  if (depth > kMaxDepth) return std::nullopt;
  if (const std::optional<std::vector<int64_t>> constants = int64_values(view, value)) {
    ShapeExpression expression;
    for (const int64_t constant : *constants) expression.push_back(ShapePiece::value(constant));
    return expression;
  }
  const auto producer = view.producer.find(value);
  if (producer == view.producer.end()) return std::nullopt;
  const NodeView& node = view.nodes[producer->second];
  if (!is_default_domain(node) || node.outputs.size() != 1 || node.inputs.empty()) return std::nullopt;
  if (node.op_type == "Shape") {
    const auto start = node.int_attributes.find("start");
    const auto end = node.int_attributes.find("end");
    return ShapeExpression{ShapePiece::dims(node.inputs[0], start == node.int_attributes.end() ? 0 : start->second,
                                            end == node.int_attributes.end() ? ShapePiece::kToEnd : end->second)};
  }
  if (node.op_type == "Slice") return evaluate_slice(view, node, depth);
  if (node.op_type == "Gather") return evaluate_gather(view, node, depth);
  if (node.op_type == "Concat") {
    const auto axis = node.int_attributes.find("axis");
    if (axis == node.int_attributes.end() || (axis->second != 0 && axis->second != -1)) return std::nullopt;
    ShapeExpression joined;
    for (const std::string& input : node.inputs) {
      const std::optional<ShapeExpression> part = evaluate(view, input, depth + 1);
      if (!part) return std::nullopt;
      joined.insert(joined.end(), part->begin(), part->end());
    }
    return joined;
  }
  // One element stays one element whatever axis it is (un)squeezed on, and dims fit any integer type.
  const auto to = node.int_attributes.find("to");
  const bool integer_cast =
      node.op_type == "Cast" && to != node.int_attributes.end() && (to->second == onnx::data_type::kInt64 || to->second == onnx::data_type::kInt32);
  if (integer_cast) return evaluate(view, node.inputs[0], depth + 1);
  if (node.op_type == "Unsqueeze" || node.op_type == "Squeeze") {
    std::optional<ShapeExpression> inner = evaluate(view, node.inputs[0], depth + 1);
    if (!inner || !is_single_element(*inner)) return std::nullopt;
    return inner;
  }
  return std::nullopt;
}

}  // namespace

std::optional<ShapeExpression> shape_expression(const GraphView& view, const std::string& value) {
  return evaluate(view, value, 0);
}

}  // namespace mlrb::graph
