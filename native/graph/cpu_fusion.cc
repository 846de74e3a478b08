#include "cpu_fusion.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "../core/attention_contract.h"
#include "attention_match.h"
#include "fusion_guard.h"
#include "graph_rewrite.h"
#include "graph_view.h"

namespace mlrb::graph {

namespace {

ProtoBuilder fused_node(const AttentionBlock& block, size_t ordinal) {
  const std::string name = "mlrb_attention_" + std::to_string(ordinal);
  const char* op_type = block.bool_mask ? kMaskedAttentionOp : kBiasedAttentionOp;
  ProtoBuilder built =
      block.rotary_half > 0
          ? node({block.query, block.key, block.value, block.mask, block.cos, block.sin}, block.output, op_type, kAttentionOpDomain, name)
          : node({block.query, block.key, block.value, block.mask}, block.output, op_type, kAttentionOpDomain, name);
  built.message_field(NodeProto::kAttribute, float_attribute("scale", block.scale));
  if (block.bool_mask) {
    built.message_field(NodeProto::kAttribute, float_attribute("fill", block.fill));
    built.message_field(NodeProto::kAttribute, int_attribute("keep_where_true", block.keep_where_true ? 1 : 0));
  }
  // Optional attributes are written only when they differ from the op's default.
  struct OptionalInt {
    const char* name;
    int64_t value;
    int64_t default_value;
  };
  const OptionalInt optional_ints[] = {{"query_layout", block.query_layout, 0},
                                       {"key_layout", block.key_layout, 0},
                                       {"value_layout", block.value_layout, 0},
                                       {"output_layout", block.output_layout, 0},
                                       {"kv_repeat", block.kv_repeat, 1},
                                       {"rotary_half", block.rotary_half, 0},
                                       {"repeat_heads", block.repeat_heads, 0},
                                       {"repeat_key_dim", block.repeat_key_dim, 0},
                                       {"repeat_value_dim", block.repeat_value_dim, 0},
                                       {"zero_nan_weights", block.zero_nan_weights ? 1 : 0, 0}};
  for (const OptionalInt& attribute : optional_ints) {
    if (attribute.value != attribute.default_value) built.message_field(NodeProto::kAttribute, int_attribute(attribute.name, attribute.value));
  }
  return built;
}

std::vector<AttentionBlock> find_blocks(const GraphView& view, int64_t opset, size_t& softmax_count) {
  std::vector<AttentionBlock> blocks;
  std::unordered_set<size_t> claimed;
  for (size_t index = 0; index < view.nodes.size(); ++index) {
    if (view.nodes[index].op_type != "Softmax") continue;
    ++softmax_count;
    std::optional<AttentionBlock> block = match_attention(view, index, opset);
    if (!block) continue;
    bool overlaps = false;
    for (const size_t node : block->fused_nodes) overlaps = overlaps || claimed.contains(node);
    if (overlaps) continue;
    claimed.insert(block->fused_nodes.begin(), block->fused_nodes.end());
    blocks.push_back(std::move(*block));
  }
  return blocks;
}

Pieces rewrite_graph(const GraphView& view, const std::vector<AttentionBlock>& blocks) {
  std::unordered_map<size_t, size_t> block_at;  // node where a fused node goes -> block
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
    if (part.number == GraphProto::kNode) {
      const size_t node_index = next_node++;
      if (const auto block = block_at.find(node_index); block != block_at.end()) {
        graph.own(GraphProto::kNode, fused_node(blocks[block->second], block->second));
      } else if (!removed.contains(node_index)) {
        graph.view(part.encoded);
      }
    } else if (part.number == GraphProto::kValueInfo) {
      if (!dropped.contains(read_value_view(part.payload).name)) graph.view(part.encoded);
    } else {
      graph.view(part.encoded);
    }
  }
  return graph;
}

std::string describe(const std::vector<AttentionBlock>& blocks, size_t softmax_count) {
  const auto rotary = std::count_if(blocks.begin(), blocks.end(), [](const AttentionBlock& block) { return block.rotary_half > 0; });
  std::string note = std::to_string(blocks.size()) + " of " + std::to_string(softmax_count) + " Softmax attention blocks run as one " +
                     kAttentionOpDomain + " node each";
  if (rotary > 0) note += " (" + std::to_string(rotary) + " with the rotary embedding of Q and K folded in)";
  return note;
}

constexpr std::string_view kName = "cpuFusion";

PassOutcome fuse_for_cpu(GraphState& state) {
  const GraphView& view = state.view();
  if (std::optional<std::string> hazard = fusion_hazard(state.model(), view)) return declined(kName, *hazard);
  size_t softmax_count = 0;
  const std::vector<AttentionBlock> blocks = find_blocks(view, state.default_opset(), softmax_count);
  if (blocks.empty()) {
    return declined(kName, softmax_count == 0 ? "the graph has no Softmax" : "no Softmax sits in a MatMul / scale / mask / MatMul attention block");
  }
  state.replace_graph(rewrite_graph(view, blocks));
  state.import_opset(kAttentionOpDomain, 1);
  return applied(kName, describe(blocks, softmax_count));
}

}  // namespace

const RewritePass kCpuFusionPass{.name = kName, .prerequisites = {}, .emits_cpu_kernels = true, .blame = 2, .run = fuse_for_cpu};

}  // namespace mlrb::graph
