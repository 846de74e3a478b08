#include "graph_state.h"

#include <algorithm>

namespace mlrb::graph {

ParsedModel parse_model(Bytes model) {
  ParsedModel parsed;
  parsed.parts = read_model_parts(model);
  if (!parsed.parts.graph) throw MalformedProto("the model has no graph", model.data());
  parsed.graph = read_graph_view(*parsed.parts.graph);
  return parsed;
}

void GraphState::replace_graph(Pieces graph) {
  // Indexed before it is kept, so a graph that does not parse leaves the state as it was. The index's spans
  // survive the move: they point into the pieces' heap buffers, which moving a Pieces does not relocate.
  GraphView view = read_graph_view(graph.spans());
  rewritten_.push_back(std::move(graph));
  current_view_ = std::move(view);
}

void GraphState::import_opset(std::string_view domain, int64_t version) {
  if (std::find(imported_domains_.begin(), imported_domains_.end(), domain) != imported_domains_.end()) return;
  imported_domains_.emplace_back(domain);
  extra_opsets_.push_back(opset_import(domain, version));
}

}  // namespace mlrb::graph
