// The shape of a load-time graph rewrite. Each pass (cpu_fusion.h, lm_head_slice.h, last_block_rows.h) is
// one descriptor: its name, what it needs, and a run function that either rewrites the graph held in a
// GraphState or declines, saying why. The pipeline (rewrite_pipeline.h) runs the list of them
// (rewrite_passes.h) over one parsed model, so adding a pass is its file plus one line in that list.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "graph_state.h"

namespace mlrb::graph {

// What one pass did at load, reported per pass in the results and in verbose output.
struct PassOutcome {
  std::string name;
  bool applied = false;
  std::string reason;  // what was rewritten, or why nothing was
};

[[nodiscard]] inline PassOutcome applied(std::string_view name, std::string what) {
  return {std::string(name), true, std::move(what)};
}
[[nodiscard]] inline PassOutcome declined(std::string_view name, std::string why) {
  return {std::string(name), false, std::move(why)};
}

struct RewritePass {
  // The pass's one name: the key of the `rewrites` load option that turns it off, and the name it is
  // reported under ("cpuFusion").
  std::string_view name;
  // Passes that must have applied, earlier in the list, for this one to be tried.
  std::vector<std::string_view> prerequisites;
  // The pass emits ai.mlrb nodes (ort/attention_op.h): CPU kernels, so the pass is off on other providers,
  // and the ops are registered with ORT before a rewritten graph is loaded.
  bool emits_cpu_kernels = false;
  // When ORT refuses a rewritten graph, the applied pass with the highest blame is dropped first and the
  // rest retried: passes built on other passes, then those emitting custom ops, standard-op rewrites last.
  int blame = 0;
  // Rewrites state's graph and says what it did, or leaves it alone and says why. Never throws for graphs
  // it does not understand; MalformedProto from a damaged graph is turned into a decline by the pipeline.
  PassOutcome (*run)(GraphState& state) = nullptr;
};

}  // namespace mlrb::graph
