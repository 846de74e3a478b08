#include "last_block_rows.h"

#include <algorithm>
#include <initializer_list>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "../core/attention_contract.h"
#include "graph_rewrite.h"
#include "graph_view.h"
#include "lm_head_slice.h"
#include "node_match.h"

namespace mlrb::graph {

namespace {

constexpr size_t kQueryPositionsInput = 6;  // the fused attention op's optional input (ort/attention_op.h)

bool is_attention(const NodeView& node) {
  return node.domain == kAttentionOpDomain && (node.op_type == kMaskedAttentionOp || node.op_type == kBiasedAttentionOp);
}

bool is_constant(const GraphView& view, const std::string& value) { return view.initializer_dims.contains(value); }

bool one_of(std::string_view op_type, std::initializer_list<std::string_view> names) {
  return std::find(names.begin(), names.end(), op_type) != names.end();
}

bool on_last_axis(const NodeView& node, const std::string& attribute, int64_t fallback) {
  const auto single = node.int_attributes.find(attribute);
  if (single != node.int_attributes.end()) return single->second == -1;
  if (const std::vector<int64_t>& list = node.ints(attribute); !list.empty()) return list == std::vector<int64_t>{-1};
  return fallback == -1;
}

// Whether `node` computes each position's output from that position's inputs alone, so that it gives the
// same rows on [1, picked, ...] as on [batch, seq, ...]. Constant operands are allowed where they act on
// the last axis only (weights, biases, scales).
std::string row_wise_problem(const GraphView& view, const NodeView& node) {
  const std::string what = node.op_type + " (" + node.outputs.front() + ")";
  if (!is_default_domain(node)) return what + " is not a standard ONNX op";
  if (one_of(node.op_type, {"Sqrt", "Reciprocal", "Sigmoid", "Tanh", "Erf", "Neg", "Cast", "Identity", "Relu"})) return {};
  if (one_of(node.op_type, {"Add", "Sub", "Mul", "Div", "Pow"})) {
    for (const std::string& input : node.inputs) {
      const auto dims = view.initializer_dims.find(input);
      if (dims != view.initializer_dims.end() && dims->second.size() > 1) return what + " has a constant operand of rank above 1";
    }
    return {};
  }
  if (node.op_type == "MatMul") {
    const auto weight = view.initializer_dims.find(node.inputs.size() == 2 ? node.inputs[1] : std::string());
    return weight != view.initializer_dims.end() && weight->second.size() == 2 ? std::string() : what + " is not a product with a constant matrix";
  }
  if (node.op_type == "ReduceMean") {
    const auto keep = node.int_attributes.find("keepdims");
    const bool keeps = keep == node.int_attributes.end() || keep->second == 1;
    const bool last = node.inputs.size() >= 2 ? int64_values(view, node.inputs[1]) == std::vector<int64_t>{-1} : on_last_axis(node, "axes", 0);
    return keeps && last ? std::string() : what + " does not reduce the last axis alone";
  }
  if (node.op_type == "LayerNormalization") return on_last_axis(node, "axis", -1) ? std::string() : what + " does not normalise the last axis";
  if (node.op_type == "Reshape") {
    const std::optional<std::vector<int64_t>> shape = node.inputs.size() == 2 ? int64_values(view, node.inputs[1]) : std::nullopt;
    const auto allow_zero = node.int_attributes.find("allowzero");  // 1: a 0 is a zero-sized axis, not "keep"
    const bool keeps_leading = shape && shape->size() >= 2 && (*shape)[0] == 0 && (*shape)[1] == 0 &&
                               (allow_zero == node.int_attributes.end() || allow_zero->second == 0);
    return keeps_leading ? std::string() : what + " does not keep the batch and sequence axes (shape [0, 0, ...])";
  }
  return what + " is not an op known to work row by row";
}

// The nodes reachable from `value`: backward (every node it depends on, through producers) or forward
// (every node that depends on it, through consumers).
enum class Direction { kBack, kForward };

std::unordered_set<size_t> reachable(const GraphView& view, const std::string& value, Direction direction) {
  std::unordered_set<size_t> seen;
  std::vector<std::string> pending{value};
  const auto visit = [&](size_t index) {
    if (!seen.insert(index).second) return;
    const NodeView& node = view.nodes[index];
    const std::vector<std::string>& next = direction == Direction::kBack ? node.inputs : node.outputs;
    pending.insert(pending.end(), next.begin(), next.end());
  };
  while (!pending.empty()) {
    const std::string current = pending.back();
    pending.pop_back();
    if (direction == Direction::kBack) {
      if (const auto producer = view.producer.find(current); producer != view.producer.end()) visit(producer->second);
    } else if (const auto readers = view.consumers.find(current); readers != view.consumers.end()) {
      for (const size_t reader : readers->second) visit(reader);
    }
  }
  return seen;
}

std::unordered_set<size_t> ancestors_of(const GraphView& view, const std::string& value) { return reachable(view, value, Direction::kBack); }
std::unordered_set<size_t> descendants_of(const GraphView& view, const std::string& value) { return reachable(view, value, Direction::kForward); }

struct Plan {
  size_t attention = 0;
  size_t head_gather = 0;                    // the slicing's Gather, now redundant
  std::vector<size_t> block;                 // the row-wise nodes after the attention
  std::vector<std::string> joining;          // per-position tensors entering the block from outside
  std::unordered_set<std::string> reshaped;  // values whose leading axes become [1, picked]
};

std::string plan_pruning(const GraphView& view, Plan& plan) {
  const auto gather = view.producer.find(kGatheredHidden);
  const auto flatten = view.producer.find(kFlatHidden);
  if (gather == view.producer.end() || flatten == view.producer.end()) return "the LM head is not sliced";
  plan.head_gather = gather->second;
  const std::string& hidden = view.nodes[flatten->second].inputs.front();
  const std::unordered_set<size_t> before_head = ancestors_of(view, hidden);

  // The last attention: the one that no other attention node before the head depends on.
  std::optional<size_t> last;
  for (const size_t index : before_head) {
    if (!is_attention(view.nodes[index])) continue;
    if (!last || descendants_of(view, view.nodes[*last].outputs.front()).contains(index)) last = index;
  }
  if (!last) return "no fused attention node feeds the LM head";
  plan.attention = *last;
  const NodeView& attention = view.nodes[*last];
  if (attention.inputs.size() > kQueryPositionsInput) return "the last attention node already picks its rows";
  const auto layout = attention.int_attributes.find("output_layout");
  if (layout == attention.int_attributes.end() || layout->second != 1) return "the last attention writes [batch, heads, seq, dim]";

  // The block: nodes between the attention's output and the head's input.
  for (const size_t index : descendants_of(view, attention.outputs.front())) {
    if (before_head.contains(index)) plan.block.push_back(index);
  }
  std::sort(plan.block.begin(), plan.block.end());
  std::unordered_set<size_t> members(plan.block.begin(), plan.block.end());
  members.insert(*last);
  const std::unordered_set<size_t> query_sources = ancestors_of(view, attention.inputs.front());
  for (const size_t index : plan.block) {
    const NodeView& node = view.nodes[index];
    if (std::string problem = row_wise_problem(view, node); !problem.empty()) return problem;
    for (const std::string& input : node.inputs) {
      const auto producer = view.producer.find(input);
      if (is_constant(view, input) || (producer != view.producer.end() && members.contains(producer->second))) continue;
      // A per-position tensor joining the block (the residual stream): it must be one the attention's query
      // is computed from, so that it has the [batch, seq, ...] rows the positions index.
      if (producer == view.producer.end() || !query_sources.contains(producer->second)) {
        return "the block after the last attention reads " + input + ", which is neither a constant nor part of the residual stream";
      }
      if (std::find(plan.joining.begin(), plan.joining.end(), input) == plan.joining.end()) plan.joining.push_back(input);
    }
  }
  for (const size_t index : members) {
    for (const std::string& output : view.nodes[index].outputs) {
      if (view.is_graph_output(output)) return "the block after the last attention has a graph output (" + output + ")";
      const auto readers = view.consumers.find(output);
      if (readers == view.consumers.end()) continue;
      for (const size_t reader : readers->second) {
        if (!members.contains(reader) && reader != flatten->second) return output + " in the last block also feeds " + view.nodes[reader].op_type;
      }
      plan.reshaped.insert(output);
    }
  }
  return {};
}

std::string picked_name(size_t joining) { return "mlrb_picked_rows_" + std::to_string(joining); }

Pieces rewrite(const GraphView& view, const Plan& plan) {
  std::unordered_map<std::string, std::string> renamed;
  for (size_t i = 0; i < plan.joining.size(); ++i) renamed[plan.joining[i]] = picked_name(i);
  const std::unordered_set<size_t> block(plan.block.begin(), plan.block.end());
  Pieces graph;
  size_t next_node = 0;
  for (const Field& part : view.fields) {
    if (part.number == GraphProto::kNode) {
      const size_t index = next_node++;
      const NodeView& node = view.nodes[index];
      if (index == plan.attention) {
        // The joining tensors' rows, flattened to [batch * seq, ...] and gathered like the head's: [picked, ...],
        // which broadcasts against the block's [1, picked, ...].
        for (size_t i = 0; i < plan.joining.size(); ++i) {
          const std::string name = picked_name(i);
          ProtoBuilder flat = graph::node({plan.joining[i]}, name + "_flat", "Flatten", {}, name + "_flatten");
          flat.message_field(NodeProto::kAttribute, int_attribute("axis", 2));
          graph.own(GraphProto::kNode, flat);
          graph.own(GraphProto::kNode, graph::node({name + "_flat", kLogitPositionsInput}, name, "Gather", {}, name + "_gather"));
        }
        std::vector<std::string> inputs = node.inputs;
        inputs.resize(kQueryPositionsInput, "");  // absent optional inputs (cos, sin) are empty names
        inputs.push_back(kLogitPositionsInput);
        graph.own(GraphProto::kNode, with_inputs(node, inputs));
      } else if (index == plan.head_gather) {
        // The hidden state already holds only the picked rows.
        graph.own(GraphProto::kNode, graph::node({kFlatHidden}, kGatheredHidden, "Identity", {}, "mlrb_picked_hidden"));
      } else if (block.contains(index)) {
        std::vector<std::string> inputs = node.inputs;
        for (std::string& input : inputs) {
          if (const auto found = renamed.find(input); found != renamed.end()) input = found->second;
        }
        graph.own(GraphProto::kNode, with_inputs(node, inputs));
      } else {
        graph.view(part.encoded);
      }
    } else if (part.number == GraphProto::kValueInfo) {
      // Declared [batch, seq, ...] shapes of the block's values would contradict the new graph.
      if (!plan.reshaped.contains(read_value_view(part.payload).name)) graph.view(part.encoded);
    } else {
      graph.view(part.encoded);
    }
  }
  return graph;
}

constexpr std::string_view kName = "pruneLastBlock";

PassOutcome prune_last_block_rows(GraphState& state) {
  const GraphView& view = state.view();
  Plan plan;
  if (std::string reason = plan_pruning(view, plan); !reason.empty()) return declined(kName, reason);
  for (size_t i = 0; i < plan.joining.size(); ++i) {
    if (view.name_in_use(picked_name(i)) || view.name_in_use(picked_name(i) + "_flat")) {
      return declined(kName, "the graph already uses the name " + picked_name(i));
    }
  }
  const size_t block_nodes = plan.block.size();
  const size_t joining = plan.joining.size();
  state.replace_graph(rewrite(view, plan));
  return applied(kName, "the last attention and the " + std::to_string(block_nodes) + " nodes after it run only on the scored positions (" +
                            std::to_string(joining) + " residual input(s) gathered)");
}

}  // namespace

const RewritePass kPruneLastBlockPass{
    .name = kName, .prerequisites = {"cpuFusion", "sliceLmHead"}, .emits_cpu_kernels = false, .blame = 3, .run = prune_last_block_rows};

}  // namespace mlrb::graph
