#include "attention_match.h"

#include <algorithm>
#include <cstdint>

#include "graph_rewrite.h"

namespace mlrb::graph {

namespace {

constexpr uint32_t kSoftmaxLastAxisDefaultOpset = 13;  // before 13, Softmax's default axis was 1

bool is_default_domain(const NodeView& node) { return node.domain.empty() || node.domain == "ai.onnx"; }

const NodeView* producer_of(const GraphView& view, const std::string& value, std::string_view op_type, size_t* index = nullptr) {
  const auto found = view.producer.find(value);
  if (found == view.producer.end()) return nullptr;
  const NodeView& node = view.nodes[found->second];
  if (node.op_type != op_type || !is_default_domain(node) || node.outputs.size() != 1) return nullptr;
  if (index != nullptr) *index = found->second;
  return &node;
}

// A value the block alone reads: it can go when the block is fused.
bool used_only_once(const GraphView& view, const std::string& value) {
  const auto found = view.consumers.find(value);
  return found != view.consumers.end() && found->second.size() == 1 && !view.is_graph_output(value);
}

bool swaps_last_two_axes(const std::vector<int64_t>& perm) {
  if (perm.size() < 2) return false;
  for (size_t axis = 0; axis + 2 < perm.size(); ++axis) {
    if (perm[axis] != static_cast<int64_t>(axis)) return false;
  }
  return perm[perm.size() - 2] == static_cast<int64_t>(perm.size() - 1) && perm.back() == static_cast<int64_t>(perm.size() - 2);
}

// scores = MatMul(Q, Transpose(K)), optionally scaled by a constant.
bool match_scores(const GraphView& view, const std::string& scores, AttentionBlock& block) {
  size_t index = 0;
  std::string product = scores;
  if (const NodeView* mul = producer_of(view, scores, "Mul", &index); mul != nullptr && mul->inputs.size() == 2) {
    const std::optional<float> second = scalar_float(view, mul->inputs[1]);
    const std::optional<float> first = scalar_float(view, mul->inputs[0]);
    if (!second && !first) return false;
    block.scale = second ? *second : *first;
    product = second ? mul->inputs[0] : mul->inputs[1];
    block.fused_nodes.push_back(index);
  } else if (const NodeView* div = producer_of(view, scores, "Div", &index); div != nullptr && div->inputs.size() == 2) {
    const std::optional<float> divisor = scalar_float(view, div->inputs[1]);
    if (!divisor || *divisor == 0.0F) return false;
    block.scale = 1.0F / *divisor;
    product = div->inputs[0];
    block.fused_nodes.push_back(index);
  }
  if (product != scores && !used_only_once(view, product)) return false;
  const NodeView* matmul = producer_of(view, product, "MatMul", &index);
  if (matmul == nullptr || matmul->inputs.size() != 2) return false;
  if (product != scores) block.dropped.push_back(product);
  block.fused_nodes.push_back(index);
  size_t transpose_index = 0;
  const NodeView* transpose = producer_of(view, matmul->inputs[1], "Transpose", &transpose_index);
  if (transpose == nullptr || !swaps_last_two_axes(transpose->perm)) return false;
  block.query = matmul->inputs[0];
  block.key = transpose->inputs[0];
  if (used_only_once(view, matmul->inputs[1])) {
    block.fused_nodes.push_back(transpose_index);
    block.dropped.push_back(matmul->inputs[1]);
  }
  return true;
}

// The masking node in front of the Softmax, and the scores behind it.
bool match_mask(const GraphView& view, const std::string& masked, AttentionBlock& block) {
  size_t index = 0;
  if (const NodeView* where = producer_of(view, masked, "Where", &index); where != nullptr && where->inputs.size() == 3) {
    const std::optional<float> fill_if_false = scalar_float(view, where->inputs[2]);
    const std::optional<float> fill_if_true = scalar_float(view, where->inputs[1]);
    if (!fill_if_false && !fill_if_true) return false;
    block.keep_where_true = fill_if_false.has_value();
    block.fill = fill_if_false ? *fill_if_false : *fill_if_true;
    block.mask = where->inputs[0];
    const std::string& scores = block.keep_where_true ? where->inputs[1] : where->inputs[2];
    block.fused_nodes.push_back(index);
    block.dropped.push_back(scores);
    return used_only_once(view, scores) && match_scores(view, scores, block);
  }
  if (const NodeView* add = producer_of(view, masked, "Add", &index); add != nullptr && add->inputs.size() == 2) {
    block.bool_mask = false;
    block.fused_nodes.push_back(index);
    for (size_t side = 0; side < 2; ++side) {
      const std::string& scores = add->inputs[side];
      AttentionBlock attempt = block;
      attempt.mask = add->inputs[1 - side];
      attempt.dropped.push_back(scores);
      if (used_only_once(view, scores) && match_scores(view, scores, attempt)) {
        block = std::move(attempt);
        return true;
      }
    }
  }
  return false;
}

std::optional<AttentionBlock> match_core(const GraphView& view, size_t softmax_index, int64_t opset) {
  const NodeView& softmax = view.nodes[softmax_index];
  if (softmax.op_type != "Softmax" || !is_default_domain(softmax) || softmax.inputs.size() != 1) return std::nullopt;
  const auto axis = softmax.int_attributes.find("axis");
  const bool last_axis = axis != softmax.int_attributes.end() ? axis->second == -1 : opset >= kSoftmaxLastAxisDefaultOpset;
  if (!last_axis || !used_only_once(view, softmax.outputs[0]) || !used_only_once(view, softmax.inputs[0])) return std::nullopt;
  const size_t output_index = view.consumers.at(softmax.outputs[0]).front();
  const NodeView& output = view.nodes[output_index];
  if (output.op_type != "MatMul" || !is_default_domain(output) || output.inputs.size() != 2 || output.inputs[0] != softmax.outputs[0]) {
    return std::nullopt;
  }
  AttentionBlock block;
  block.output_node = output_index;
  block.fused_nodes = {output_index, softmax_index};
  block.dropped = {softmax.outputs[0], softmax.inputs[0]};
  block.value = output.inputs[1];
  block.output = output.outputs[0];
  if (!match_mask(view, softmax.inputs[0], block)) return std::nullopt;
  return block;
}

// The single node reading `value`, when there is exactly one and the value is not a graph output.
std::optional<size_t> only_consumer(const GraphView& view, const std::string& value) {
  if (!used_only_once(view, value)) return std::nullopt;
  return view.consumers.at(value).front();
}

bool is_heads_transpose(const NodeView& node) {
  return node.op_type == "Transpose" && is_default_domain(node) && node.perm == std::vector<int64_t>{0, 2, 1, 3};
}

// value = Reshape(Expand(Unsqueeze(source, axes=[2]), [1, 1, n, 1, 1])) read only by `reader`: repeat_kv
// as exported, each of the source's heads repeated n times in a row. Absorbed when both K and V have it.
struct RepeatedHeads {
  std::string source;
  int64_t repeat = 1;
  std::vector<size_t> nodes;
  std::vector<std::string> dropped;
};

std::optional<RepeatedHeads> match_repeat(const GraphView& view, const std::string& value, size_t reader) {
  if (only_consumer(view, value) != reader) return std::nullopt;
  size_t reshape_index = 0, expand_index = 0, unsqueeze_index = 0;
  const NodeView* reshape = producer_of(view, value, "Reshape", &reshape_index);
  if (reshape == nullptr || reshape->inputs.empty() || only_consumer(view, reshape->inputs[0]) != reshape_index) return std::nullopt;
  const NodeView* expand = producer_of(view, reshape->inputs[0], "Expand", &expand_index);
  if (expand == nullptr || expand->inputs.size() != 2 || only_consumer(view, expand->inputs[0]) != expand_index) return std::nullopt;
  const NodeView* unsqueeze = producer_of(view, expand->inputs[0], "Unsqueeze", &unsqueeze_index);
  if (unsqueeze == nullptr || unsqueeze->inputs.size() != 2 || int64_values(view, unsqueeze->inputs[1]) != std::vector<int64_t>{2}) {
    return std::nullopt;
  }
  const std::optional<std::vector<int64_t>> target = int64_values(view, expand->inputs[1]);
  if (!target || target->size() != 5) return std::nullopt;
  for (size_t axis = 0; axis < 5; ++axis) {
    if (axis != 2 && (*target)[axis] != 1) return std::nullopt;
  }
  if ((*target)[2] < 1) return std::nullopt;
  return RepeatedHeads{unsqueeze->inputs[0], (*target)[2], {reshape_index, expand_index, unsqueeze_index},
                       {value, reshape->inputs[0], expand->inputs[0]}};
}

// A [B, H, T, D] operand made by Transpose(0, 2, 1, 3) from [B, T, H, D] and read only by `reader`: the
// fused op reads the [B, T, H, D] tensor in place instead.
std::optional<size_t> heads_transpose_behind(const GraphView& view, const std::string& value, size_t reader) {
  if (only_consumer(view, value) != reader) return std::nullopt;
  size_t index = 0;
  const NodeView* transpose = producer_of(view, value, "Transpose", &index);
  if (transpose == nullptr || !is_heads_transpose(*transpose)) return std::nullopt;
  return index;
}

void absorb_transpose(const GraphView& view, std::string& operand, int64_t& layout, size_t reader, AttentionBlock& block) {
  if (const std::optional<size_t> transpose = heads_transpose_behind(view, operand, reader)) {
    block.fused_nodes.push_back(*transpose);
    block.dropped.push_back(operand);
    operand = view.nodes[*transpose].inputs[0];
    layout = 1;
  }
}

// Absorbs repeat_kv and the head Transposes around a matched block, where the graph allows.
void absorb_reshaping(const GraphView& view, size_t query_reader, size_t key_reader, size_t value_reader, AttentionBlock& block) {
  const std::optional<RepeatedHeads> key_repeat = match_repeat(view, block.key, key_reader);
  const std::optional<RepeatedHeads> value_repeat = match_repeat(view, block.value, value_reader);
  if (key_repeat && value_repeat && key_repeat->repeat == value_repeat->repeat) {
    for (const RepeatedHeads* repeat : {&*key_repeat, &*value_repeat}) {
      block.fused_nodes.insert(block.fused_nodes.end(), repeat->nodes.begin(), repeat->nodes.end());
      block.dropped.insert(block.dropped.end(), repeat->dropped.begin(), repeat->dropped.end());
    }
    block.key = key_repeat->source;
    block.value = value_repeat->source;
    block.kv_repeat = key_repeat->repeat;
    key_reader = key_repeat->nodes.back();  // the Unsqueeze now reads the source
    value_reader = value_repeat->nodes.back();
  }
  absorb_transpose(view, block.query, block.query_layout, query_reader, block);
  absorb_transpose(view, block.key, block.key_layout, key_reader, block);
  absorb_transpose(view, block.value, block.value_layout, value_reader, block);
  // The output back to [B, T, H, D]: the fused node writes that layout and takes the Transpose's place.
  const std::optional<size_t> reader = only_consumer(view, block.output);
  if (reader && is_heads_transpose(view.nodes[*reader]) && view.nodes[*reader].outputs.size() == 1) {
    block.fused_nodes.push_back(*reader);
    block.dropped.push_back(block.output);
    block.output = view.nodes[*reader].outputs[0];
    block.output_layout = 1;
    block.output_node = *reader;
  }
}

}  // namespace

std::optional<AttentionBlock> match_attention(const GraphView& view, size_t softmax_index, int64_t opset) {
  std::optional<AttentionBlock> block = match_core(view, softmax_index, opset);
  if (!block) return std::nullopt;
  // The nodes that read Q, K and V inside the block: the scores MatMul (Q, and K through the Transpose
  // that swaps its last axes) and the final MatMul (V).
  const size_t scores_matmul = view.consumers.at(block->query).size() == 1 ? view.consumers.at(block->query).front() : SIZE_MAX;
  const std::optional<size_t> key_transpose = only_consumer(view, block->key);
  const size_t value_matmul = block->output_node;
  const bool key_read_in_block = key_transpose && std::find(block->fused_nodes.begin(), block->fused_nodes.end(), *key_transpose) != block->fused_nodes.end();
  absorb_reshaping(view, scores_matmul, key_read_in_block ? *key_transpose : SIZE_MAX, value_matmul, *block);
  return block;
}

}  // namespace mlrb::graph
