#include "square_to_pow.h"

namespace mlrb::graph {

std::vector<size_t> find_rms_squares(const GraphView& view) {
  std::vector<size_t> squares;
  for (size_t index = 0; index < view.nodes.size(); ++index) {
    const NodeView& node = view.nodes[index];
    if (node.op_type != "Mul" || !(node.domain.empty() || node.domain == "ai.onnx")) continue;
    if (node.inputs.size() != 2 || node.inputs[0] != node.inputs[1] || node.outputs.size() != 1) continue;
    const auto readers = view.consumers.find(node.outputs[0]);
    if (readers == view.consumers.end() || readers->second.size() != 1 || view.is_graph_output(node.outputs[0])) continue;
    if (view.nodes[readers->second.front()].op_type == "ReduceMean") squares.push_back(index);
  }
  return squares;
}

ProtoBuilder square_as_pow(const NodeView& node) {
  ProtoBuilder rewritten;
  int inputs_seen = 0;
  for_each_field(node.payload, [&](const Field& part) {
    if (part.number == field::kNodeInput) {
      rewritten.string_field(field::kNodeInput, ++inputs_seen == 1 ? node.inputs[0] : std::string(kSquareExponent));
    } else if (part.number == field::kNodeOpType) {
      rewritten.string_field(field::kNodeOpType, "Pow");
    } else {
      rewritten.raw(part.encoded);
    }
  });
  return rewritten;
}

}  // namespace mlrb::graph
