#include "attention_match.h"

#include <algorithm>
#include <cstdint>

#include "attention_scores_match.h"
#include "graph_rewrite.h"
#include "node_match.h"
#include "rotary_match.h"
#include "softmax_output_match.h"

namespace mlrb::graph {

namespace {

constexpr uint32_t kSoftmaxLastAxisDefaultOpset = 13;  // before 13, Softmax's default axis was 1

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
  if (softmax.op_type != "Softmax" || !is_default_domain(softmax) || softmax.inputs.size() != 1 || softmax.outputs.size() != 1) return std::nullopt;
  const auto axis = softmax.int_attributes.find("axis");
  const bool last_axis = axis != softmax.int_attributes.end() ? axis->second == -1 : opset >= kSoftmaxLastAxisDefaultOpset;
  if (!last_axis || !used_only_once(view, softmax.inputs[0])) return std::nullopt;
  const std::optional<SoftmaxOutput> probabilities = match_softmax_output(view, softmax.outputs[0]);
  if (!probabilities) return std::nullopt;
  const NodeView& output = view.nodes[probabilities->weighted_sum];
  AttentionBlock block;
  block.output_node = probabilities->weighted_sum;
  block.fused_nodes = {probabilities->weighted_sum, softmax_index};
  block.fused_nodes.insert(block.fused_nodes.end(), probabilities->nodes.begin(), probabilities->nodes.end());
  block.dropped = probabilities->dropped;
  block.dropped.push_back(softmax.inputs[0]);
  block.zero_nan_weights = probabilities->zero_nan_weights;
  block.value = output.inputs[1];
  block.output = output.outputs[0];
  const std::string masked = skip_float_cast(view, softmax.inputs[0], block.fused_nodes, block.dropped);
  if (!match_mask(view, masked, block)) return std::nullopt;
  return block;
}

bool is_heads_transpose(const NodeView& node) {
  return node.op_type == "Transpose" && is_default_domain(node) && node.ints("perm") == std::vector<int64_t>{0, 2, 1, 3};
}

// value = Reshape(Expand(Unsqueeze(source, axes=[2]), [1, 1, n, 1, 1])) read only by the block: repeat_kv
// as exported, each of the source's heads repeated n times in a row. Absorbed when both K and V have it.
struct RepeatedHeads {
  std::string source;
  int64_t repeat = 1;
  int64_t merged_heads = 0;  // the Reshape's [0, heads, -1, D]
  int64_t head_dim = 0;
  std::vector<size_t> nodes;
  std::vector<std::string> dropped;
};

std::optional<RepeatedHeads> match_repeat(const GraphView& view, const std::string& value, const AttentionBlock& block) {
  if (!read_only_by(view, value, block.fused_nodes)) return std::nullopt;
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
  // The merge must give [batch, heads, rows, D] whatever the batch and row counts: copy the batch, infer
  // the rows, name heads and D. A Reshape that says anything else is left in the graph for ORT to run.
  const std::optional<std::vector<int64_t>> merged = reshape->inputs.size() == 2 ? int64_values(view, reshape->inputs[1]) : std::nullopt;
  const auto allow_zero = reshape->int_attributes.find("allowzero");  // 1: a 0 is a zero-sized axis, not "copy"
  if (!merged || merged->size() != 4 || (*merged)[0] != 0 || (*merged)[2] != -1 || (*merged)[1] < 1 || (*merged)[3] < 1 ||
      (*merged)[1] % (*target)[2] != 0 || (allow_zero != reshape->int_attributes.end() && allow_zero->second != 0)) {
    return std::nullopt;
  }
  return RepeatedHeads{unsqueeze->inputs[0],
                       (*target)[2],
                       (*merged)[1],
                       (*merged)[3],
                       {reshape_index, expand_index, unsqueeze_index},
                       {value, reshape->inputs[0], expand->inputs[0]}};
}

void absorb(AttentionBlock& block, const std::vector<size_t>& nodes, const std::vector<std::string>& dropped) {
  block.fused_nodes.insert(block.fused_nodes.end(), nodes.begin(), nodes.end());
  block.dropped.insert(block.dropped.end(), dropped.begin(), dropped.end());
}

void absorb_repeat_kv(const GraphView& view, AttentionBlock& block) {
  const std::optional<RepeatedHeads> key_repeat = match_repeat(view, block.key, block);
  const std::optional<RepeatedHeads> value_repeat = match_repeat(view, block.value, block);
  if (!key_repeat || !value_repeat || key_repeat->repeat != value_repeat->repeat || key_repeat->merged_heads != value_repeat->merged_heads) return;
  absorb(block, key_repeat->nodes, key_repeat->dropped);
  absorb(block, value_repeat->nodes, value_repeat->dropped);
  block.key = key_repeat->source;
  block.value = value_repeat->source;
  block.kv_repeat = key_repeat->repeat;
  block.repeat_heads = key_repeat->merged_heads;
  block.repeat_key_dim = key_repeat->head_dim;
  block.repeat_value_dim = value_repeat->head_dim;
}

// Q and K rotated by the same tables (no KV cache: queries and keys at the same positions), in the
// heads-first layout the tables broadcast against.
void absorb_rotary(const GraphView& view, AttentionBlock& block) {
  if (block.query_layout != 0 || block.key_layout != 0) return;
  if (!read_only_by(view, block.query, block.fused_nodes) || !read_only_by(view, block.key, block.fused_nodes)) return;
  const std::optional<RotaryMatch> query = match_rotary(view, block.query);
  const std::optional<RotaryMatch> key = match_rotary(view, block.key);
  if (!query || !key || query->cos != key->cos || query->sin != key->sin || query->half != key->half) return;
  absorb(block, query->nodes, query->dropped);
  absorb(block, key->nodes, key->dropped);
  block.query = query->source;
  block.key = key->source;
  block.cos = query->cos;
  block.sin = query->sin;
  block.rotary_half = query->half;
}

// A [B, H, T, D] operand made by Transpose(0, 2, 1, 3) from [B, T, H, D] and read only by the block: the
// fused op reads the [B, T, H, D] tensor in place instead.
void absorb_transpose(const GraphView& view, std::string& operand, int64_t& layout, AttentionBlock& block) {
  if (layout != 0) return;  // already read in place (TorchScript's Kᵀ straight from [B, S, H, D])
  size_t index = 0;
  const NodeView* transpose = producer_of(view, operand, "Transpose", &index);
  if (transpose == nullptr || !is_heads_transpose(*transpose) || !read_only_by(view, operand, block.fused_nodes)) return;
  absorb(block, {index}, {operand});
  operand = transpose->inputs[0];
  layout = 1;
}

// Absorbs repeat_kv, a rotary embedding and the head Transposes around a matched block, where the graph
// allows; each step reads the operands the previous one left.
void absorb_surroundings(const GraphView& view, AttentionBlock& block) {
  absorb_repeat_kv(view, block);
  absorb_rotary(view, block);
  absorb_transpose(view, block.query, block.query_layout, block);
  absorb_transpose(view, block.key, block.key_layout, block);
  absorb_transpose(view, block.value, block.value_layout, block);
  // The output back to [B, T, H, D]: the fused node writes that layout and takes the Transpose's place.
  const std::optional<size_t> reader = only_consumer(view, block.output);
  if (reader && is_heads_transpose(view.nodes[*reader]) && view.nodes[*reader].outputs.size() == 1) {
    absorb(block, {*reader}, {block.output});
    block.output = view.nodes[*reader].outputs[0];
    block.output_layout = 1;
    block.output_node = *reader;
  }
}

}  // namespace

std::optional<AttentionBlock> match_attention(const GraphView& view, size_t softmax_index, int64_t opset) {
  std::optional<AttentionBlock> block = match_core(view, softmax_index, opset);
  if (block) absorb_surroundings(view, *block);
  return block;
}

}  // namespace mlrb::graph
