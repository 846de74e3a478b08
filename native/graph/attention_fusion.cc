#include "attention_fusion.h"

#include <optional>
#include <unordered_set>

#include "../core/attention_contract.h"
#include "graph_rewrite.h"
#include "graph_view.h"

namespace mlrb::graph {

namespace {

constexpr uint32_t kSoftmaxLastAxisDefaultOpset = 13;  // before 13, Softmax's default axis was 1

struct AttentionBlock {
  std::string query, key, value, mask, output;
  bool bool_mask = true;
  bool keep_where_true = true;
  float fill = 0.0F;
  float scale = 1.0F;
  size_t output_node = 0;            // the final MatMul, where the fused node goes
  std::vector<size_t> fused_nodes;   // replaced nodes, output_node included
  std::vector<std::string> dropped;  // values that no longer exist
};

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

std::optional<AttentionBlock> match_block(const GraphView& view, size_t softmax_index, int64_t opset) {
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

ProtoBuilder fused_node(const AttentionBlock& block, size_t ordinal) {
  const std::string name = "mlrb_attention_" + std::to_string(ordinal);
  ProtoBuilder built = node({block.query, block.key, block.value, block.mask}, block.output,
                            block.bool_mask ? kMaskedAttentionOp : kBiasedAttentionOp, kAttentionOpDomain, name);
  built.message_field(field::kNodeAttribute, float_attribute("scale", block.scale));
  if (block.bool_mask) {
    built.message_field(field::kNodeAttribute, float_attribute("fill", block.fill));
    built.message_field(field::kNodeAttribute, int_attribute("keep_where_true", block.keep_where_true ? 1 : 0));
  }
  return built;
}

Pieces rewrite_graph(const GraphView& view, const std::vector<AttentionBlock>& blocks) {
  std::unordered_map<size_t, size_t> block_at;  // output node -> block
  std::unordered_set<size_t> removed;
  std::unordered_set<std::string> dropped;
  for (size_t i = 0; i < blocks.size(); ++i) {
    block_at[blocks[i].output_node] = i;
    removed.insert(blocks[i].fused_nodes.begin(), blocks[i].fused_nodes.end());
    dropped.insert(blocks[i].dropped.begin(), blocks[i].dropped.end());
  }
  Pieces graph;
  size_t next_node = 0;
  for (const Field& part : view.fields) {
    if (part.number == field::kGraphNode) {
      const size_t node_index = next_node++;
      if (const auto block = block_at.find(node_index); block != block_at.end()) {
        graph.own(field::kGraphNode, fused_node(blocks[block->second], block->second));
      } else if (!removed.contains(node_index)) {
        graph.view(part.encoded);
      }
    } else if (part.number == field::kGraphValueInfo) {
      if (!dropped.contains(read_value_view(part.payload).name)) graph.view(part.encoded);
    } else {
      graph.view(part.encoded);
    }
  }
  return graph;
}

AttentionFusion fallback(std::string note) {
  AttentionFusion result;
  result.note = "attention fusion off: " + note;
  return result;
}

}  // namespace

AttentionFusion fuse_attention(Bytes model) {
  try {
    const ModelParts parts = read_model_parts(model);
    if (!parts.graph) return fallback("the model has no graph");
    const GraphView view = read_graph_view(*parts.graph);
    const int64_t opset = default_opset_version(parts);
    std::vector<AttentionBlock> blocks;
    std::unordered_set<size_t> claimed;
    size_t softmax_count = 0;
    for (size_t index = 0; index < view.nodes.size(); ++index) {
      if (view.nodes[index].op_type != "Softmax") continue;
      ++softmax_count;
      std::optional<AttentionBlock> block = match_block(view, index, opset);
      if (!block) continue;
      bool overlaps = false;
      for (const size_t node : block->fused_nodes) overlaps = overlaps || claimed.contains(node);
      if (overlaps) continue;
      claimed.insert(block->fused_nodes.begin(), block->fused_nodes.end());
      blocks.push_back(std::move(*block));
    }
    if (blocks.empty()) {
      return fallback(softmax_count == 0 ? "the graph has no Softmax" : "no Softmax sits in a MatMul / scale / mask / MatMul attention block");
    }
    AttentionFusion result;
    result.applied = true;
    result.fused_blocks = static_cast<int>(blocks.size());
    result.model = assemble_model(parts, rewrite_graph(view, blocks), {opset_import(kAttentionOpDomain, 1)});
    result.note = "attention fusion on: " + std::to_string(blocks.size()) + " of " + std::to_string(softmax_count) +
                  " Softmax attention blocks run as one " + std::string(kAttentionOpDomain) + " node each";
    return result;
  } catch (const MalformedProto& error) {
    return fallback("the model could not be parsed (" + error.what + ")");
  }
}

}  // namespace mlrb::graph
