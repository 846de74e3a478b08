#include "softmax_output_match.h"

#include "../onnx/data_types.h"
#include "graph_rewrite.h"
#include "node_match.h"

namespace mlrb::graph {

namespace {

constexpr int kMaxSteps = 4;  // two Casts and a guard at most in the known forms

bool is_float_cast(const NodeView& node) {
  const auto to = node.int_attributes.find("to");
  return node.op_type == "Cast" && is_default_domain(node) && node.inputs.size() == 1 && to != node.int_attributes.end() &&
         to->second == onnx::data_type::kFloat;
}

// Where(IsNaN(p), 0, p) over `value`, which exactly those two nodes read: the Where's index.
std::optional<size_t> nan_guard(const GraphView& view, const std::string& value, std::vector<size_t>& nodes, std::vector<std::string>& dropped) {
  const auto readers = view.consumers.find(value);
  if (readers == view.consumers.end() || readers->second.size() != 2 || view.is_graph_output(value)) return std::nullopt;
  for (size_t first = 0; first < 2; ++first) {
    const size_t isnan_index = readers->second[first];
    const size_t where_index = readers->second[1 - first];
    const NodeView& isnan = view.nodes[isnan_index];
    const NodeView& where = view.nodes[where_index];
    if (isnan.op_type != "IsNaN" || !is_default_domain(isnan) || isnan.outputs.size() != 1 || where.op_type != "Where" || !is_default_domain(where) ||
        where.inputs.size() != 3 || where.outputs.size() != 1) {
      continue;
    }
    if (where.inputs[0] != isnan.outputs[0] || where.inputs[2] != value || !used_only_once(view, isnan.outputs[0]) ||
        scalar_float(view, where.inputs[1]) != 0.0F) {
      continue;
    }
    nodes.insert(nodes.end(), {isnan_index, where_index});
    dropped.push_back(isnan.outputs[0]);
    return where_index;
  }
  return std::nullopt;
}

}  // namespace

std::optional<SoftmaxOutput> match_softmax_output(const GraphView& view, const std::string& probabilities) {
  SoftmaxOutput match;
  std::string current = probabilities;
  for (int step = 0; step <= kMaxSteps; ++step) {
    match.dropped.push_back(current);
    if (const std::optional<size_t> where = nan_guard(view, current, match.nodes, match.dropped)) {
      if (match.zero_nan_weights) return std::nullopt;
      match.zero_nan_weights = true;
      current = view.nodes[*where].outputs[0];
      continue;
    }
    const std::optional<size_t> reader = only_consumer(view, current);
    if (!reader) return std::nullopt;
    const NodeView& node = view.nodes[*reader];
    if (is_float_cast(node) && node.outputs.size() == 1) {
      match.nodes.push_back(*reader);
      current = node.outputs[0];
      continue;
    }
    if (node.op_type != "MatMul" || !is_default_domain(node) || node.inputs.size() != 2 || node.inputs[0] != current) return std::nullopt;
    match.weighted_sum = *reader;
    return match;
  }
  return std::nullopt;
}

std::string skip_float_cast(const GraphView& view, const std::string& value, std::vector<size_t>& nodes, std::vector<std::string>& dropped) {
  size_t index = 0;
  const NodeView* cast = producer_of(view, value, "Cast", &index);
  if (cast == nullptr || !is_float_cast(*cast) || !used_only_once(view, value)) return value;
  nodes.push_back(index);
  dropped.push_back(value);
  return cast->inputs[0];
}

}  // namespace mlrb::graph
