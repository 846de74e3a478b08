#include "last_block_rows.h"

#include <algorithm>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "../onnx/schema.h"
#include "graph_rewrite.h"
#include "graph_view.h"
#include "lm_head_slice.h"
#include "node_match.h"
#include "row_reshape.h"

namespace mlrb::graph {

namespace {

constexpr size_t kQueryPositionsInput = 6;  // the fused attention op's optional input (ort/attention_op.h)

// The initializer or Constant node output a value is, through Identity nodes (TorchScript exports repeat tied
// or shared weights as Identity(weight)); the value itself when it is none.
std::string constant_source(const GraphView& view, std::string value) {
  for (int hops = 0; hops < 8; ++hops) {
    const auto producer = view.producer.find(value);
    if (producer == view.producer.end()) break;
    const NodeView& node = view.nodes[producer->second];
    if (node.op_type != "Identity" || !is_default_domain(node) || node.inputs.size() != 1) break;
    value = node.inputs.front();
  }
  return value;
}

bool is_constant(const GraphView& view, const std::string& value) {
  const std::string source = constant_source(view, value);
  return view.initializer_dims.contains(source) || view.constant_node_payload.contains(source);
}

std::optional<std::vector<int64_t>> operand_dims(const GraphView& view, const std::string& value) {
  return constant_dims(view, constant_source(view, value));
}

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
      const std::optional<std::vector<int64_t>> dims = operand_dims(view, input);
      if (dims && dims->size() > 1) return what + " has a constant operand of rank above 1";
    }
    return {};
  }
  if (node.op_type == "Gemm") {
    // Rows times a constant matrix plus a constant bias: the flattened [rows, k] form exporters write for Conv1D.
    const auto trans_a = node.int_attributes.find("transA");
    const std::optional<std::vector<int64_t>> weight = node.inputs.size() >= 2 ? operand_dims(view, node.inputs[1]) : std::nullopt;
    const std::optional<std::vector<int64_t>> bias = node.inputs.size() == 3 ? operand_dims(view, node.inputs[2]) : std::vector<int64_t>{};
    const bool rows_first = trans_a == node.int_attributes.end() || trans_a->second == 0;
    return rows_first && weight && weight->size() == 2 && bias && bias->size() <= 1 ? std::string() : what + " is not rows times a constant matrix";
  }
  if (node.op_type == "MatMul") {
    const std::optional<std::vector<int64_t>> weight = node.inputs.size() == 2 ? operand_dims(view, node.inputs[1]) : std::nullopt;
    return weight && weight->size() == 2 ? std::string() : what + " is not a product with a constant matrix";
  }
  if (node.op_type == "ReduceMean") {
    const auto keep = node.int_attributes.find("keepdims");
    const bool keeps = keep == node.int_attributes.end() || keep->second == 1;
    const bool last = node.inputs.size() >= 2 ? int64_values(view, node.inputs[1]) == std::vector<int64_t>{-1} : on_last_axis(node, "axes", 0);
    return keeps && last ? std::string() : what + " does not reduce the last axis alone";
  }
  if (node.op_type == "LayerNormalization") return on_last_axis(node, "axis", -1) ? std::string() : what + " does not normalise the last axis";
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

std::unordered_set<size_t> ancestors_of(const GraphView& view, const std::string& value) {
  return reachable(view, value, Direction::kBack);
}
std::unordered_set<size_t> descendants_of(const GraphView& view, const std::string& value) {
  return reachable(view, value, Direction::kForward);
}

struct Plan {
  size_t attention = 0;
  size_t head_gather = 0;                                 // the slicing's Gather, now redundant
  std::vector<size_t> block;                              // the row-wise nodes after the attention, in graph order
  std::vector<std::string> joining;                       // per-position tensors entering the block from outside
  std::unordered_set<std::string> reshaped;               // values whose leading axes become [1, picked] or [picked]
  std::unordered_map<size_t, TargetRewrite> new_targets;  // block Reshapes whose targets name the picked rows
};

// The declared symbolic name of a graph input's dim, empty when it has none.
std::string dim_param(const ValueView& value, size_t axis) {
  std::string name;
  if (axis >= value.dims.size()) return name;
  for_each_field(value.dims[axis], [&](const Field& part) {
    if (part.number == onnx::DimensionProto::kDimParam) name.assign(reinterpret_cast<const char*>(part.payload.data()), part.payload.size());
  });
  return name;
}

// Tensors outside the block whose axis 0 is the rows' batch and whose axis 1 their sequence:
//  - input_ids (the runner's token input, ort/graph_signature.cc), whose [batch, seq] the head's rows and
//    their positions are by the slicing's contract, and each graph input axis declared with input_ids's
//    symbolic name for that axis (ONNX: equal dim_params are equal sizes; dynamo graphs read the batch
//    from attention_mask);
//  - the joining tensors, and what is computed from them row by row (a norm of the residual stream).
std::unordered_map<std::string, uint8_t> outside_row_axes(const GraphView& view, const Plan& plan) {
  std::unordered_map<std::string, uint8_t> axes;
  const auto tokens = std::find_if(view.inputs.begin(), view.inputs.end(), [](const ValueView& input) { return input.name == "input_ids"; });
  if (tokens != view.inputs.end()) {
    for (const ValueView& input : view.inputs) {
      uint8_t bits = 0;
      for (size_t axis = 0; axis < 2; ++axis) {
        const std::string name = dim_param(*tokens, axis);
        if (&input == &*tokens || (!name.empty() && dim_param(input, axis) == name)) bits |= axis == 0 ? kBatchAxisBit : kSequenceAxisBit;
      }
      if (bits != 0) axes[input.name] = bits;
    }
  }
  for (const std::string& value : plan.joining) axes[value] = kBatchAxisBit | kSequenceAxisBit;
  const std::unordered_set<size_t> block(plan.block.begin(), plan.block.end());
  for (size_t index = 0; index < view.nodes.size(); ++index) {  // nodes are in topological order
    const NodeView& node = view.nodes[index];
    if (block.contains(index) || index == plan.attention || node.outputs.size() != 1 || node.op_type == "Reshape") continue;
    if (!row_wise_problem(view, node).empty()) continue;
    bool from_rows = false, only_rows = true;
    for (const std::string& input : node.inputs) {
      if (is_constant(view, input)) continue;
      const auto found = axes.find(input);
      from_rows = from_rows || found != axes.end();
      only_rows = only_rows && found != axes.end() && found->second == (kBatchAxisBit | kSequenceAxisBit);
    }
    if (from_rows && only_rows) {
      for (const std::string& output : node.outputs) axes[output] = kBatchAxisBit | kSequenceAxisBit;
    }
  }
  return axes;
}

// The layout of a row-wise node's output from its inputs'. Flattened rows ([batch·seq·m, ...]) and
// per-position ones ([batch, seq, ...]) do not broadcast against each other by row.
std::optional<RowValue> combined_layout(const GraphView& view, const NodeView& node, const std::unordered_map<std::string, RowValue>& layouts) {
  std::optional<RowValue> combined;
  for (const std::string& input : node.inputs) {
    if (input.empty() || is_constant(view, input)) continue;
    const auto found = layouts.find(input);
    if (found == layouts.end()) return std::nullopt;
    const RowValue& value = found->second;
    if (!combined) {
      combined = value;
      continue;
    }
    if ((combined->layout == RowLayout::kFlat) != (value.layout == RowLayout::kFlat)) return std::nullopt;
    if (value.layout == RowLayout::kRows) combined->layout = RowLayout::kRows;
    if (value.rank && (!combined->rank || *value.rank > *combined->rank)) combined->rank = value.rank;
  }
  if (!combined) return combined;
  // The flat rows' width after a product with a constant matrix, or a mean over the last axis.
  const auto weight = node.inputs.size() >= 2 ? operand_dims(view, node.inputs[1]) : std::nullopt;
  const auto trans_b = node.int_attributes.find("transB");
  if (node.op_type == "Gemm") {
    combined->rank = 2;
    combined->width = (*weight)[trans_b != node.int_attributes.end() && trans_b->second != 0 ? 0 : 1];
  } else if (node.op_type == "MatMul") {
    combined->width = (*weight)[1];
  } else if (node.op_type == "ReduceMean") {
    combined->width = 1;
  }
  return combined;
}

// Whether `shape` (a Shape node reading a pruned value) feeds only shape arithmetic that ends in the target
// input of the block's Reshapes, whose proofs (row_reshape.h) account for what pruning does to it.
bool feeds_only_block_targets(const GraphView& view, size_t shape, const std::unordered_set<size_t>& block) {
  std::vector<size_t> pending{shape};
  std::unordered_set<size_t> seen;
  while (!pending.empty()) {
    const size_t index = pending.back();
    pending.pop_back();
    if (!seen.insert(index).second) continue;
    for (const std::string& output : view.nodes[index].outputs) {
      if (view.is_graph_output(output)) return false;
      const auto readers = view.consumers.find(output);
      if (readers == view.consumers.end()) continue;
      for (const size_t reader : readers->second) {
        const NodeView& node = view.nodes[reader];
        if (block.contains(reader)) {
          if (node.op_type != "Reshape" || node.inputs.size() != 2 || node.inputs[1] != output || node.inputs[0] == output) return false;
        } else if (is_fused_attention(node) || !is_default_domain(node)) {
          return false;
        } else {
          pending.push_back(reader);
        }
      }
    }
  }
  return true;
}

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
    if (!is_fused_attention(view.nodes[index])) continue;
    if (!last || descendants_of(view, view.nodes[*last].outputs.front()).contains(index)) last = index;
  }
  if (!last) return "no fused attention node feeds the LM head";
  plan.attention = *last;
  const NodeView& attention = view.nodes[*last];
  if (attention.inputs.size() > kQueryPositionsInput) return "the last attention node already picks its rows";
  const auto layout = attention.int_attributes.find("output_layout");
  if (layout == attention.int_attributes.end() || layout->second != 1) return "the last attention writes [batch, heads, seq, dim]";

  // The block: what the head's input is computed from, back to the attention and to tensors its query is
  // computed from (the residual stream, or its norm for a parallel MLP as Phi's), which join the block with
  // their [batch, seq, ...] rows. Reshape targets are shape arithmetic, proved apart.
  const std::unordered_set<size_t> query_sources = ancestors_of(view, attention.inputs.front());
  std::unordered_set<size_t> block;
  std::unordered_set<std::string> visited;
  std::vector<std::string> pending{hidden};
  bool reads_attention = false;
  while (!pending.empty()) {
    const std::string value = pending.back();
    pending.pop_back();
    if (value.empty() || !visited.insert(value).second || is_constant(view, value)) continue;
    const auto producer = view.producer.find(value);
    if (producer == view.producer.end()) return "the block after the last attention reads the graph input " + value;
    if (producer->second == *last) {
      reads_attention = true;
    } else if (query_sources.contains(producer->second)) {
      plan.joining.push_back(value);
    } else if (block.insert(producer->second).second) {
      const NodeView& node = view.nodes[producer->second];
      const size_t data_inputs = node.op_type == "Reshape" ? 1 : node.inputs.size();
      pending.insert(pending.end(), node.inputs.begin(),
                     node.inputs.begin() + static_cast<std::ptrdiff_t>(std::min(data_inputs, node.inputs.size())));
    }
  }
  if (!reads_attention) return "the LM head's input is not computed from the last attention's output";
  plan.block.assign(block.begin(), block.end());
  std::sort(plan.block.begin(), plan.block.end());
  std::sort(plan.joining.begin(), plan.joining.end());

  // Layouts, in graph order, and the proof of each Reshape.
  std::unordered_map<std::string, RowValue> layouts{{attention.outputs.front(), RowValue{RowLayout::kRows, 4, std::nullopt}}};
  for (const std::string& value : plan.joining) layouts[value] = RowValue{RowLayout::kGathered, std::nullopt, std::nullopt};
  std::unordered_map<std::string, RowValue> pruned{{attention.outputs.front(), RowValue{RowLayout::kRows, 4, std::nullopt}}};
  std::unordered_map<std::string, uint8_t> row_axes = outside_row_axes(view, plan);
  row_axes[attention.outputs.front()] = kBatchAxisBit | kSequenceAxisBit;
  const RowContext context{.values = &pruned, .row_axes = &row_axes};
  for (const size_t index : plan.block) {
    const NodeView& node = view.nodes[index];
    if (node.inputs.empty() || node.outputs.size() != 1) return node.op_type + " in the last block does not have one output computed from inputs";
    RowValue output;
    if (node.op_type == "Reshape" && is_default_domain(node)) {
      if (node.inputs.size() != 2) return "Reshape " + node.outputs.front() + " does not have a data and a shape input";
      const auto input = layouts.find(node.inputs.front());
      if (input == layouts.end()) return "Reshape " + node.outputs.front() + " reshapes a tensor that is not per position";
      ReshapeProof proof = prove_reshape(view, node, input->second, context, node.outputs.front() == hidden);
      if (!proof.problem.empty()) return proof.problem;
      if (proof.rewrite) plan.new_targets[index] = *proof.rewrite;
      output = proof.output;
    } else {
      if (std::string problem = row_wise_problem(view, node); !problem.empty()) return problem;
      const std::optional<RowValue> combined = combined_layout(view, node, layouts);
      if (!combined) return node.op_type + " (" + node.outputs.front() + ") mixes flattened rows with per-position ones";
      if (node.op_type == "Gemm" && combined->layout != RowLayout::kFlat)
        return "Gemm (" + node.outputs.front() + ") reads rows that are not flattened";
      output = *combined;
    }
    for (const std::string& value : node.outputs) {
      layouts[value] = output;
      pruned[value] = output;
      if (output.layout != RowLayout::kFlat) row_axes[value] = kBatchAxisBit | kSequenceAxisBit;
    }
  }

  if (layouts[hidden].layout == RowLayout::kFlat) return "the LM head reads flattened rows";

  std::unordered_set<size_t> members = block;
  members.insert(*last);
  for (const size_t index : members) {
    for (const std::string& output : view.nodes[index].outputs) {
      if (view.is_graph_output(output)) return "the block after the last attention has a graph output (" + output + ")";
      plan.reshaped.insert(output);
      const auto readers = view.consumers.find(output);
      if (readers == view.consumers.end()) continue;
      for (const size_t reader : readers->second) {
        if (members.contains(reader) || reader == flatten->second) continue;
        const bool shape_for_targets = view.nodes[reader].op_type == "Shape" && feeds_only_block_targets(view, reader, block);
        if (!shape_for_targets) return output + " in the last block also feeds " + view.nodes[reader].op_type;
      }
    }
  }
  return {};
}

std::string picked_name(size_t joining) {
  return "mlrb_picked_rows_" + std::to_string(joining);
}
std::string target_name(size_t reshape) {
  return "mlrb_picked_target_" + std::to_string(reshape);
}
// Shared int64 constants of the new targets: [0] (start and axis), [2] (the position axes' end), [INT64_MAX].
constexpr const char* kTargetZero = "mlrb_picked_target_zero";
constexpr const char* kTargetTwo = "mlrb_picked_target_two";
constexpr const char* kTargetEnd = "mlrb_picked_target_end";
constexpr const char* kOneThenRest = "mlrb_picked_target_one_rest";  // [1, -1]

// A Reshape's new target (row_reshape.h): two leading elements, then the original target from element 2 on.
void add_target(Pieces& graph, const NodeView& reshape, size_t index, const TargetRewrite& rewrite) {
  const std::string name = target_name(index);
  std::string lead = kOneThenRest;
  if (rewrite.copies_input_positions) {
    lead = name + "_lead";
    graph.own(GraphProto::kNode, graph::node({reshape.inputs[0]}, name + "_shape", "Shape", {}, name + "_shape"));
    graph.own(GraphProto::kNode, graph::node({name + "_shape", kTargetZero, kTargetTwo, kTargetZero}, lead, "Slice", {}, name + "_lead"));
  }
  graph.own(GraphProto::kNode, graph::node({reshape.inputs[1], kTargetTwo, kTargetEnd, kTargetZero}, name + "_tail", "Slice", {}, name + "_tail"));
  ProtoBuilder concat = graph::node({lead, name + "_tail"}, name, "Concat", {}, name + "_concat");
  concat.message_field(NodeProto::kAttribute, int_attribute("axis", 0));
  graph.own(GraphProto::kNode, concat);
}

Pieces rewrite(const GraphView& view, const Plan& plan) {
  std::unordered_map<std::string, std::string> renamed;
  for (size_t i = 0; i < plan.joining.size(); ++i) renamed[plan.joining[i]] = picked_name(i);
  const std::unordered_set<size_t> block(plan.block.begin(), plan.block.end());
  // The gathers go before the first node that reads them: a parallel branch (Phi's MLP) may precede the attention.
  const size_t first_member = std::min(plan.attention, plan.block.empty() ? plan.attention : plan.block.front());
  Pieces graph;
  size_t next_node = 0;
  for (const Field& part : view.fields) {
    if (part.number == GraphProto::kNode) {
      const size_t index = next_node++;
      const NodeView& node = view.nodes[index];
      if (index == first_member) {
        // The joining tensors' rows, flattened to [batch * seq, ...] and gathered like the head's: [picked, ...],
        // which broadcasts against the block's [1, picked, ...].
        for (size_t i = 0; i < plan.joining.size(); ++i) {
          const std::string name = picked_name(i);
          ProtoBuilder flat = graph::node({plan.joining[i]}, name + "_flat", "Flatten", {}, name + "_flatten");
          flat.message_field(NodeProto::kAttribute, int_attribute("axis", 2));
          graph.own(GraphProto::kNode, flat);
          graph.own(GraphProto::kNode, graph::node({name + "_flat", kLogitPositionsInput}, name, "Gather", {}, name + "_gather"));
        }
      }
      if (index == plan.attention) {
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
        if (const auto target = plan.new_targets.find(index); target != plan.new_targets.end()) {
          add_target(graph, node, index, target->second);
          inputs[1] = target_name(index);
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
  if (!plan.new_targets.empty()) {
    graph.own(GraphProto::kInitializer, int64_initializer(kTargetZero, {0}));
    graph.own(GraphProto::kInitializer, int64_initializer(kTargetTwo, {2}));
    graph.own(GraphProto::kInitializer, int64_initializer(kTargetEnd, {std::numeric_limits<int64_t>::max()}));
    graph.own(GraphProto::kInitializer, int64_initializer(kOneThenRest, {1, -1}));
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
  for (const std::string name : {kTargetZero, kTargetTwo, kTargetEnd, kOneThenRest}) {
    if (view.name_in_use(name)) return declined(kName, "the graph already uses the name " + name);
  }
  for (const auto& [index, rewrite] : plan.new_targets) {
    for (const std::string suffix : {"", "_shape", "_lead", "_tail"}) {
      if (view.name_in_use(target_name(index) + suffix)) return declined(kName, "the graph already uses the name " + target_name(index) + suffix);
    }
  }
  const size_t block_nodes = plan.block.size();
  const size_t joining = plan.joining.size();
  const size_t targets = plan.new_targets.size();
  state.replace_graph(rewrite(view, plan));
  return applied(kName, "the last attention and the " + std::to_string(block_nodes) + " nodes after it run only on the scored positions (" +
                            std::to_string(joining) + " residual input(s) gathered, " + std::to_string(targets) + " reshape target(s) rewritten)");
}

}  // namespace

const RewritePass kPruneLastBlockPass{
    .name = kName, .prerequisites = {"cpuFusion", "sliceLmHead"}, .emits_cpu_kernels = false, .blame = 3, .run = prune_last_block_rows};

}  // namespace mlrb::graph
