#include "lm_head_slice.h"

#include <algorithm>
#include <array>
#include <optional>

#include "../onnx/data_types.h"
#include "graph_rewrite.h"
#include "graph_view.h"

namespace mlrb::graph {

namespace {

constexpr const char* kPositionsDim = "mlrb_positions";
// Longest run of element-wise ops allowed between the head MatMul and the output (bias, soft-capping, casts).
constexpr size_t kMaxTailOps = 8;

struct HeadMatch {
  size_t head_node = 0;
  std::string hidden;                    // the head's activation input, [batch, seq, hidden]
  std::vector<std::string> tail_values;  // head output .. logits: the values whose shape changes
  std::string description;
};

// Element-wise ops that act the same on [positions, vocab] as on [batch, seq, vocab], given that any
// second operand is a constant of rank <= 1 (a bias or a scale over the vocabulary).
bool is_row_independent(const GraphView& view, const NodeView& node, const std::string& through) {
  static constexpr std::array<const char*, 3> kUnary{"Cast", "Identity", "Tanh"};
  static constexpr std::array<const char*, 4> kBinary{"Add", "Sub", "Mul", "Div"};
  if (!node.domain.empty() && node.domain != "ai.onnx") return false;
  if (std::find(kUnary.begin(), kUnary.end(), node.op_type) != kUnary.end()) return node.inputs.size() == 1;
  if (std::find(kBinary.begin(), kBinary.end(), node.op_type) == kBinary.end() || node.inputs.size() != 2) return false;
  const std::string& other = node.inputs[0] == through ? node.inputs[1] : node.inputs[0];
  const auto constant = view.initializer_dims.find(other);
  return constant != view.initializer_dims.end() && constant->second.size() <= 1;
}

// The weight of a plain MatMul head must be a constant matrix: an initializer, or its transpose (tied
// embeddings are often exported as Transpose(embed_tokens.weight)).
bool is_constant_matrix(const GraphView& view, const std::string& name) {
  if (const auto found = view.initializer_dims.find(name); found != view.initializer_dims.end()) return found->second.size() == 2;
  const auto producer = view.producer.find(name);
  if (producer == view.producer.end()) return false;
  const NodeView& node = view.nodes[producer->second];
  const bool plain_transpose = node.op_type == "Transpose" && node.domain.empty() && node.inputs.size() == 1 &&
                               (node.ints("perm").empty() || node.ints("perm") == std::vector<int64_t>{1, 0});
  return plain_transpose && is_constant_matrix(view, node.inputs[0]);
}

bool is_head(const GraphView& view, const NodeView& node) {
  if (node.inputs.size() < 2) return false;
  if (node.op_type == "MatMul" && node.domain.empty()) return is_constant_matrix(view, node.inputs[1]);
  // 4-bit / 8-bit quantized heads: B is always a [vocab, hidden] matrix, A may have any rank.
  return node.op_type == "MatMulNBits" && node.domain == "com.microsoft";
}

// The input a tail op carries the logits through: its only non-constant input.
std::optional<std::string> carried_input(const GraphView& view, const NodeView& node) {
  std::optional<std::string> carried;
  for (const auto& input : node.inputs) {
    if (view.initializer_dims.contains(input)) continue;
    if (carried) return std::nullopt;
    carried = input;
  }
  return carried;
}

// Walks back from the logits to the head; returns the reason when the graph does not have the shape.
std::string match_head(const GraphView& view, const std::string& logits, HeadMatch& match) {
  if (view.consumers.contains(logits)) return "the logits output " + logits + " also feeds other nodes";
  std::string value = logits;
  for (size_t depth = 0; depth <= kMaxTailOps; ++depth) {
    const auto producer = view.producer.find(value);
    if (producer == view.producer.end()) return "the logits output " + logits + " is not computed by a node";
    const NodeView& node = view.nodes[producer->second];
    if (node.outputs.size() != 1) return "the node computing " + value + " (" + node.op_type + ") has several outputs";
    match.tail_values.push_back(value);
    if (is_head(view, node)) {
      match.head_node = producer->second;
      match.hidden = node.inputs[0];
      match.description =
          node.op_type + "(" + node.inputs[0] + ", " + node.inputs[1] + ")" +
          (match.tail_values.size() > 1 ? " and the " + std::to_string(match.tail_values.size() - 1) + " element-wise op(s) after it" : "");
      return {};
    }
    const std::optional<std::string> carried = carried_input(view, node);
    if (!carried || !is_row_independent(view, node, *carried)) {
      return "the logits output " + logits + " comes from " + node.op_type + ", not from a MatMul with a constant weight " +
             "(optionally followed by a bias, scale, cast or tanh)";
    }
    const auto carried_consumers = view.consumers.find(*carried);
    if (carried_consumers == view.consumers.end() || carried_consumers->second.size() != 1 || view.is_graph_output(*carried)) {
      return "the intermediate " + *carried + " between the LM head and the logits is used elsewhere";
    }
    value = *carried;
  }
  return "more than " + std::to_string(kMaxTailOps) + " element-wise ops follow the LM head";
}

std::optional<size_t> pick_logits(const GraphView& view, std::string& reason) {
  for (size_t i = 0; i < view.outputs.size(); ++i) {
    if (view.outputs[i].name == "logits") return i;
  }
  std::optional<size_t> candidate;
  for (size_t i = 0; i < view.outputs.size(); ++i) {
    if (view.outputs[i].dims.size() != 3 || !onnx::is_scoring_float(view.outputs[i].element_type)) continue;
    if (candidate) {
      reason = "no output is named logits and several rank-3 float outputs could be";
      return std::nullopt;
    }
    candidate = i;
  }
  if (!candidate) reason = "no output is named logits and none is a rank-3 float tensor";
  return candidate;
}

// The head node with its activation input replaced by the gathered rows; every other field verbatim.
ProtoBuilder rewire_head(const NodeView& head) {
  ProtoBuilder rewired;
  FieldReader reader(head.payload);
  Field part;
  bool replaced = false;
  while (reader.next(part)) {
    if (part.number == NodeProto::kInput && !replaced) {
      rewired.string_field(NodeProto::kInput, kGatheredHidden);
      replaced = true;
    } else {
      rewired.raw(part.encoded);
    }
  }
  return rewired;
}

Pieces rewrite_graph(const GraphView& view, const HeadMatch& match, const ValueView& logits) {
  Pieces graph;
  size_t next_node = 0;
  for (const Field& part : view.fields) {
    if (part.number == GraphProto::kNode) {
      const size_t node_index = next_node++;
      if (node_index != match.head_node) {
        graph.view(part.encoded);
        continue;
      }
      ProtoBuilder flatten = node({match.hidden}, kFlatHidden, "Flatten");
      flatten.message_field(NodeProto::kAttribute, int_attribute("axis", 2));  // [batch, seq, hidden] -> [batch*seq, hidden]
      graph.own(GraphProto::kNode, flatten);
      graph.own(GraphProto::kNode, node({kFlatHidden, kLogitPositionsInput}, kGatheredHidden, "Gather"));
      graph.own(GraphProto::kNode, rewire_head(view.nodes[node_index]));
    } else if (part.number == GraphProto::kOutput && read_value_view(part.payload).name == logits.name) {
      std::vector<ProtoBuilder> dims;
      dims.push_back(symbolic_dim(kPositionsDim));
      if (logits.dims.size() == 3) dims.emplace_back().raw(logits.dims[2]);
      else dims.push_back(symbolic_dim("mlrb_vocab"));
      graph.own(GraphProto::kOutput, tensor_value_info(logits.name, logits.element_type, dims));
    } else if (part.number == GraphProto::kValueInfo) {
      // Declared shapes of the values whose rank changes would contradict the new graph.
      const std::string name = read_value_view(part.payload).name;
      if (std::find(match.tail_values.begin(), match.tail_values.end(), name) == match.tail_values.end()) graph.view(part.encoded);
    } else {
      graph.view(part.encoded);
    }
  }
  std::vector<ProtoBuilder> positions_dims;
  positions_dims.push_back(symbolic_dim(kPositionsDim));
  graph.own(GraphProto::kInput, tensor_value_info(kLogitPositionsInput, onnx::data_type::kInt64, positions_dims));
  return graph;
}

constexpr std::string_view kName = "sliceLmHead";

PassOutcome slice_lm_head(GraphState& state) {
  const auto decline = [](const std::string& why) { return declined(kName, why + "; full [batch, seq, vocab] logits are computed"); };
  const GraphView& view = state.view();
  std::string reason;
  const std::optional<size_t> logits_index = pick_logits(view, reason);
  if (!logits_index) return decline(reason);
  const ValueView logits = view.outputs[*logits_index];  // a copy: replacing the graph replaces the view
  if (!logits.dims.empty() && logits.dims.size() != 3) {
    return decline("the logits output " + logits.name + " has rank " + std::to_string(logits.dims.size()) + ", not 3");
  }
  for (const char* name : {kLogitPositionsInput, kFlatHidden, kGatheredHidden}) {
    if (view.name_in_use(name)) return decline(std::string("the graph already uses the name ") + name);
  }
  HeadMatch match;
  if (reason = match_head(view, logits.name, match); !reason.empty()) return decline(reason);
  state.replace_graph(rewrite_graph(view, match, logits));
  state.sliced_logits = logits.name;
  return applied(kName, match.description + " runs only on the gathered positions");
}

}  // namespace

const RewritePass kSliceLmHeadPass{.name = kName, .prerequisites = {}, .emits_cpu_kernels = false, .blame = 1, .run = slice_lm_head};

}  // namespace mlrb::graph
