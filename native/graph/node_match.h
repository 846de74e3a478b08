// Small questions the graph rewrites ask while matching node patterns: who produces a value, who reads
// it, and whether a value can disappear with the nodes being replaced.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graph_view.h"

namespace mlrb::graph {

[[nodiscard]] bool is_default_domain(const NodeView& node);

// One of our fused attention nodes (core/attention_contract.h): what CPU fusion made of an attention block.
[[nodiscard]] bool is_fused_attention(const NodeView& node);

// The default-domain node of type op_type with one output that produces `value`, else nullptr; its
// index goes to *index when asked for.
[[nodiscard]] const NodeView* producer_of(const GraphView& view, const std::string& value, std::string_view op_type, size_t* index = nullptr);

// A value exactly one node reads, and no graph output: it can go when that node is replaced.
[[nodiscard]] bool used_only_once(const GraphView& view, const std::string& value);

// The single node reading `value`, when used_only_once.
[[nodiscard]] std::optional<size_t> only_consumer(const GraphView& view, const std::string& value);

// A value read by at least one node, only by nodes in `nodes`, and no graph output: it can go when
// they are replaced together.
[[nodiscard]] bool read_only_by(const GraphView& view, const std::string& value, const std::vector<size_t>& nodes);

}  // namespace mlrb::graph
