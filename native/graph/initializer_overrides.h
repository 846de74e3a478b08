// Initializers replaced for one session, by name: the DRAM measurement's copy of a graph whose rotary cos/sin
// caches are rebuilt with more rows (src/inspect/rotary-cache.ts) than the export stored. The caller decides what
// the new values are; this only swaps the tensors, and drops the graph inputs and value infos that would still state
// the old shape. Every other field of the graph is kept verbatim.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "graph_rewrite.h"

namespace mlrb::graph {

struct InitializerOverride {
  std::string name;
  int32_t element_type = 0;  // TensorProto.DataType
  std::vector<int64_t> dims;
  std::vector<uint8_t> raw;  // little-endian, as raw_data holds it
};

// `graph` (a GraphProto's fields as pieces, each piece one or more whole fields) with each initializer named by an
// override replaced by it. Throws std::invalid_argument naming an override that names no initializer of the graph.
[[nodiscard]] Pieces with_overrides(const Pieces& graph, std::span<const InitializerOverride> overrides);

}  // namespace mlrb::graph
