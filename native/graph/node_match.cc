#include "node_match.h"

#include <algorithm>

#include "../core/attention_contract.h"

namespace mlrb::graph {

bool is_default_domain(const NodeView& node) {
  return node.domain.empty() || node.domain == "ai.onnx";
}

bool is_fused_attention(const NodeView& node) {
  return node.domain == kAttentionOpDomain && (node.op_type == kMaskedAttentionOp || node.op_type == kBiasedAttentionOp);
}

const NodeView* producer_of(const GraphView& view, const std::string& value, std::string_view op_type, size_t* index) {
  const auto found = view.producer.find(value);
  if (found == view.producer.end()) return nullptr;
  const NodeView& node = view.nodes[found->second];
  if (node.op_type != op_type || !is_default_domain(node) || node.outputs.size() != 1) return nullptr;
  if (index != nullptr) *index = found->second;
  return &node;
}

bool used_only_once(const GraphView& view, const std::string& value) {
  const auto found = view.consumers.find(value);
  return found != view.consumers.end() && found->second.size() == 1 && !view.is_graph_output(value);
}

std::optional<size_t> only_consumer(const GraphView& view, const std::string& value) {
  if (!used_only_once(view, value)) return std::nullopt;
  return view.consumers.at(value).front();
}

bool read_only_by(const GraphView& view, const std::string& value, const std::vector<size_t>& nodes) {
  const auto found = view.consumers.find(value);
  if (found == view.consumers.end() || found->second.empty() || view.is_graph_output(value)) return false;
  return std::all_of(found->second.begin(), found->second.end(),
                     [&](size_t reader) { return std::find(nodes.begin(), nodes.end(), reader) != nodes.end(); });
}

}  // namespace mlrb::graph
