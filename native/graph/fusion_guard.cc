#include "fusion_guard.h"

#include <algorithm>
#include <array>
#include <string_view>

namespace mlrb::graph {

namespace {

// Quantized operators of ai.onnx and com.microsoft whose names follow no pattern below.
constexpr std::array<std::string_view, 7> kQuantizedOps = {
    "MatMulNBits", "MatMulBnb4", "MatMulFpQ4", "QAttention", "QGemm", "QMoE", "QEmbedLayerNormalization"};

bool is_quantized(std::string_view op_type) {
  // QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear, DynamicQuantizeMatMul, GatherBlockQuantized, ...
  if (op_type.find("Quantiz") != std::string_view::npos) return true;
  // MatMulInteger, ConvInteger, MatMulIntegerToFloat
  if (op_type.find("Integer") != std::string_view::npos) return true;
  if (op_type.starts_with("QLinear") || op_type.starts_with("QOrdered")) return true;
  return std::find(kQuantizedOps.begin(), kQuantizedOps.end(), op_type) != kQuantizedOps.end();
}

bool is_control_flow(std::string_view op_type) {
  return op_type == "If" || op_type == "Loop" || op_type == "Scan" || op_type == "SequenceMap";
}

std::string describe(const NodeView& node) {
  return node.op_type + " node" + (node.outputs.empty() ? std::string() : " writing '" + node.outputs.front() + "'");
}

}  // namespace

std::optional<std::string> fusion_hazard(const ModelParts& model, const GraphView& graph) {
  const bool has_functions =
      std::any_of(model.fields.begin(), model.fields.end(), [](const Field& part) { return part.number == ModelProto::kFunctions; });
  if (has_functions) return "the model defines local functions, which the attention matcher does not inspect";
  for (const NodeView& node : graph.nodes) {
    if (is_quantized(node.op_type)) {
      return "the graph is quantized (" + describe(node) +
             "); ONNX Runtime's quantization fusions and dynamic scales would see other nodes and rows once attention is fused, so the "
             "numbers could drift from the unfused graph's";
    }
    if (is_control_flow(node.op_type))
      return "the graph has control flow (" + describe(node) + "), whose subgraphs the attention matcher does not inspect";
  }
  return std::nullopt;
}

}  // namespace mlrb::graph
