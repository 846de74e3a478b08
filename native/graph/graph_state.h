// The model as the load-time rewrites see and change it, between parsing it once and assembling it once.
// The top-level fields come from the parsed file and are never changed; the graph is the file's GraphProto
// until a pass replaces it with pieces (graph_rewrite.h): spans of the original for every field kept, small
// owned buffers for what the pass added. Weights are never copied here; they stay in the mapped file.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "graph_rewrite.h"
#include "graph_view.h"

namespace mlrb::graph {

// The file, parsed once: its top-level fields and its graph's index. Both point into the caller's bytes.
struct ParsedModel {
  ModelParts parts;
  GraphView graph;
};
// Throws MalformedProto, also for a model without a graph.
[[nodiscard]] ParsedModel parse_model(Bytes model);

class GraphState {
 public:
  // `model` (and the bytes it points into) must outlive the state.
  explicit GraphState(const ParsedModel& model) : model_(model) {}
  GraphState(const GraphState&) = delete;
  GraphState& operator=(const GraphState&) = delete;

  [[nodiscard]] const ModelParts& model() const { return model_.parts; }
  // The current graph's index: the file's until a pass replaces the graph.
  [[nodiscard]] const GraphView& view() const { return rewritten_.empty() ? model_.graph : current_view_; }
  [[nodiscard]] int64_t default_opset() const { return default_opset_version(model_.parts); }

  // A pass's rewritten graph, built from the current view's fields. Earlier graphs' owned buffers stay
  // alive, since the new pieces may point into them. Throws MalformedProto if the pieces do not parse.
  void replace_graph(Pieces graph);
  // An opset import the assembled model must carry (the ai.mlrb domain of fused nodes); added once.
  void import_opset(std::string_view domain, int64_t version);

  // True once a pass has replaced the graph.
  [[nodiscard]] bool rewritten() const { return !rewritten_.empty(); }
  // The current graph's pieces; only when rewritten().
  [[nodiscard]] const Pieces& graph() const { return rewritten_.back(); }
  [[nodiscard]] const std::vector<ProtoBuilder>& extra_opsets() const { return extra_opsets_; }

  // The output that is [positions, vocab] once the LM head is sliced (lm_head_slice.h), else empty.
  std::string sliced_logits;
  // Set once the fused attention nodes take a decoding cache (decode_cache.h).
  bool decode_cache = false;

 private:
  const ParsedModel& model_;
  std::deque<Pieces> rewritten_;  // every graph a pass produced, oldest first
  GraphView current_view_;
  std::vector<std::string> imported_domains_;
  std::vector<ProtoBuilder> extra_opsets_;
};

}  // namespace mlrb::graph
