#include "decode_cache.h"

#include <algorithm>
#include <string_view>
#include <unordered_set>

#include "../onnx/data_types.h"
#include "../onnx/past_input_names.h"
#include "graph_rewrite.h"
#include "graph_view.h"
#include "lm_head_slice.h"
#include "node_match.h"

namespace mlrb::graph {

namespace {

constexpr size_t kDecodeCacheOpInput = 7;  // the fused op's optional input (ort/attention_op.h)

// Default-domain ops that compute each position from that position alone, or work on shapes and constants.
bool works_per_position(const NodeView& node) {
  static const std::unordered_set<std::string_view> kOps = {"Add",
                                                            "And",
                                                            "Cast",
                                                            "Concat",
                                                            "Constant",
                                                            "ConstantOfShape",
                                                            "Cos",
                                                            "Div",
                                                            "Equal",
                                                            "Erf",
                                                            "Expand",
                                                            "Flatten",
                                                            "Gather",
                                                            "Gemm",
                                                            "Greater",
                                                            "GreaterOrEqual",
                                                            "Identity",
                                                            "IsNaN",
                                                            "LayerNormalization",
                                                            "Less",
                                                            "LessOrEqual",
                                                            "MatMul",
                                                            "Max",
                                                            "Min",
                                                            "Mod",
                                                            "Mul",
                                                            "Neg",
                                                            "Not",
                                                            "Or",
                                                            "Pow",
                                                            "Range",
                                                            "Reciprocal",
                                                            "ReduceMean",
                                                            "ReduceMin",
                                                            "Relu",
                                                            "Reshape",
                                                            "Shape",
                                                            "Sigmoid",
                                                            "Sin",
                                                            "Slice",
                                                            "Split",
                                                            "Sqrt",
                                                            "Squeeze",
                                                            "Sub",
                                                            "Tanh",
                                                            "Transpose",
                                                            "Unsqueeze",
                                                            "Where"};
  return is_default_domain(node) && kOps.contains(node.op_type);
}

bool is_scalar_constant(const GraphView& view, const std::string& value, int64_t expected) {
  const std::optional<std::vector<int64_t>> values = int64_values(view, value);
  return values && values->size() == 1 && values->front() == expected;
}

// Whether `index` (a Gather index into input_ids' shape) names the token axis of the [batch, seq] ids.
bool is_token_axis_index(const GraphView& view, const std::string& index) {
  return is_scalar_constant(view, index, 1) || is_scalar_constant(view, index, -1);
}

// Whether `target` is GPT-2's view(-1, seq): Concat([-1], Unsqueeze(Gather(Shape(input_ids), seq axis))).
bool is_rows_by_token_count(const GraphView& view, const std::string& target) {
  const NodeView* concat = producer_of(view, target, "Concat");
  if (concat == nullptr || concat->inputs.size() != 2 || !is_scalar_constant(view, concat->inputs[0], -1)) return false;
  const NodeView* unsqueeze = producer_of(view, concat->inputs[1], "Unsqueeze");
  if (unsqueeze == nullptr || unsqueeze->inputs.empty()) return false;
  const NodeView* gather = producer_of(view, unsqueeze->inputs[0], "Gather");
  if (gather == nullptr || gather->inputs.size() != 2 || !is_token_axis_index(view, gather->inputs[1])) return false;
  const NodeView* shape = producer_of(view, gather->inputs[0], "Shape");
  return shape != nullptr && shape->inputs.size() == 1 && shape->int_attributes.empty() && shape->inputs[0] == "input_ids";
}

// Whether `value`'s axis 1 is input_ids' token axis: input_ids itself, or an embedding lookup, cast or
// view(-1, seq) of it.
bool has_token_axis(const GraphView& view, const std::string& value) {
  std::string current = value;
  for (int hops = 0; hops < 4; ++hops) {
    if (current == "input_ids") return true;
    const auto producer = view.producer.find(current);
    if (producer == view.producer.end()) return false;
    const NodeView& node = view.nodes[producer->second];
    if (!is_default_domain(node)) return false;
    if (node.op_type == "Cast" && node.inputs.size() == 1) {
      current = node.inputs[0];
    } else if (node.op_type == "Reshape" && node.inputs.size() == 2 && is_rows_by_token_count(view, node.inputs[1])) {
      current = node.inputs[0];
    } else if (node.op_type == "Gather" && node.inputs.size() == 2 && !node.int_attributes.contains("axis") &&
               view.initializer_dims.contains(node.inputs[0])) {
      current = node.inputs[1];  // table[ids]: [batch, seq, hidden]
    } else {
      return false;
    }
  }
  return false;
}

// Whether `limit` is the token count of input_ids: Gather(Shape(x), 1) for x with the token axis, through casts.
bool is_token_count(const GraphView& view, const std::string& limit) {
  std::string current = limit;
  for (int hops = 0; hops < 3; ++hops) {
    const NodeView* cast = producer_of(view, current, "Cast");
    if (cast == nullptr || cast->inputs.empty()) break;
    current = cast->inputs.front();
  }
  const NodeView* gather = producer_of(view, current, "Gather");
  if (gather == nullptr || gather->inputs.size() != 2 || !is_scalar_constant(view, gather->inputs[1], 1)) return false;
  if (const auto axis = gather->int_attributes.find("axis"); axis != gather->int_attributes.end() && axis->second != 0) return false;
  const NodeView* shape = producer_of(view, gather->inputs[0], "Shape");
  return shape != nullptr && shape->inputs.size() == 1 && shape->int_attributes.empty() && has_token_axis(view, shape->inputs[0]);
}

// How a refusal names a node: its first output, which a hostile graph may not give it.
std::string node_label(const NodeView& node) {
  return node.op_type + " (" + (node.outputs.empty() ? std::string("a node without outputs") : node.outputs.front()) + ")";
}

struct Plan {
  std::vector<size_t> offset_ranges;
  size_t attention_nodes = 0;
};

std::string plan_cache(const GraphView& view, Plan& plan) {
  bool has_position_ids = false;
  std::string past_input;
  for (const ValueView& input : view.inputs) {
    static const std::unordered_set<std::string_view> kTokenInputs = {"input_ids", "attention_mask", "position_ids", "token_type_ids",
                                                                      kLogitPositionsInput};
    has_position_ids = has_position_ids || input.name == "position_ids";
    if (kTokenInputs.contains(input.name) || view.initializer_dims.contains(input.name)) continue;
    if (onnx::past_input_naming(input.name) == onnx::PastInputNaming::kKeyValue) {
      if (past_input.empty()) past_input = input.name;
      continue;
    }
    return "the graph has the input " + input.name + " (one generation does not feed)";
  }
  std::string range_not_from_zero;
  for (size_t index = 0; index < view.nodes.size(); ++index) {
    const NodeView& node = view.nodes[index];
    if (is_fused_attention(node)) {
      ++plan.attention_nodes;
      continue;
    }
    if (node.op_type == "Softmax") return "a " + node_label(node) + " is not fused attention; it would see only the new tokens";
    if (!works_per_position(node)) return node_label(node) + " is not an op known to work per position";
    if (node.op_type != "Range") continue;
    const bool from_zero = !node.inputs.empty() && is_scalar_constant(view, node.inputs[0], 0);
    if (!from_zero && range_not_from_zero.empty()) range_not_from_zero = node_label(node);
    if (from_zero && node.inputs.size() == 3 && is_scalar_constant(view, node.inputs[2], 1) && is_token_count(view, node.inputs[1])) {
      plan.offset_ranges.push_back(index);
    }
  }
  // Fed an empty past, the graph counts its past length as 0: right where positions are numbered from it plus a
  // Range(0, n) the offset moves, wrong where a Range starts at the past length (every pass would start at 0).
  if (!past_input.empty() && !has_position_ids && !range_not_from_zero.empty()) {
    return "the graph has the input " + past_input + ", no position_ids input and " + range_not_from_zero +
           " not starting at 0: fed an empty past, it could number every pass from 0";
  }
  if (plan.attention_nodes == 0) return "no fused attention node";
  if (!has_position_ids && plan.offset_ranges.empty()) return "found no position_ids input and no Range(0, token count) numbering positions";
  return {};
}

std::string limit_name(size_t range) {
  return "mlrb_position_limit_" + std::to_string(range);
}

Pieces rewrite(const GraphView& view, const Plan& plan) {
  const std::unordered_set<size_t> ranges(plan.offset_ranges.begin(), plan.offset_ranges.end());
  Pieces graph;
  size_t next_node = 0;
  bool inputs_added = false;
  for (const Field& part : view.fields) {
    if (part.number == GraphProto::kInput && !inputs_added) {
      graph.own(GraphProto::kInput,
                tensor_value_info(kDecodeCacheInput, onnx::data_type::kInt64, {ProtoBuilder().varint_field(DimensionProto::kDimValue, 1)}));
      graph.own(GraphProto::kInput, tensor_value_info(kPositionOffsetInput, onnx::data_type::kInt64, {}));
      inputs_added = true;
    }
    if (part.number != GraphProto::kNode) {
      graph.view(part.encoded);
      continue;
    }
    const size_t index = next_node++;
    const NodeView& node = view.nodes[index];
    if (ranges.contains(index)) {
      const std::string limit = limit_name(index);
      graph.own(GraphProto::kNode, graph::node({node.inputs[1], kPositionOffsetInput}, limit, "Add", {}, limit));
      graph.own(GraphProto::kNode, with_inputs(node, {kPositionOffsetInput, limit, node.inputs[2]}));
    } else if (is_fused_attention(node)) {
      std::vector<std::string> inputs = node.inputs;
      inputs.resize(kDecodeCacheOpInput, "");  // absent optional inputs are empty names
      inputs.push_back(kDecodeCacheInput);
      graph.own(GraphProto::kNode, with_inputs(node, inputs));
    } else {
      graph.view(part.encoded);
    }
  }
  graph.own(GraphProto::kInitializer, int64_initializer(kDecodeCacheInput, {0}));
  graph.own(GraphProto::kInitializer, int64_scalar_initializer(kPositionOffsetInput, 0));
  return graph;
}

constexpr std::string_view kName = "decodeCache";

PassOutcome add_decode_cache(GraphState& state) {
  const GraphView& view = state.view();
  Plan plan;
  if (std::string reason = plan_cache(view, plan); !reason.empty()) {
    const bool has_past = std::any_of(view.inputs.begin(), view.inputs.end(),
                                      [](const ValueView& input) { return onnx::past_input_naming(input.name) != onnx::PastInputNaming::kNone; });
    return declined(kName, reason + (has_past ? "; generation feeds the graph its own past" : "; generation recomputes every sequence"));
  }
  for (const std::string name : {kDecodeCacheInput, kPositionOffsetInput}) {
    if (view.name_in_use(name)) return declined(kName, "the graph already uses the name " + name);
  }
  for (const size_t range : plan.offset_ranges) {
    if (view.name_in_use(limit_name(range))) return declined(kName, "the graph already uses the name " + limit_name(range));
  }
  const size_t attention_nodes = plan.attention_nodes;
  const size_t ranges = plan.offset_ranges.size();
  state.replace_graph(rewrite(view, plan));
  state.decode_cache = true;
  return applied(kName, std::to_string(attention_nodes) + " fused attention node(s) keep each generation's keys and values; " +
                            std::to_string(ranges) + " position Range(s) start at the decoded position");
}

}  // namespace

const RewritePass kDecodeCachePass{.name = kName, .prerequisites = {"cpuFusion"}, .emits_cpu_kernels = false, .blame = 4, .run = add_decode_cache};

}  // namespace mlrb::graph
