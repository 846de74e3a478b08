// Opens the ORT session over a model with the load-time graph rewrites applied (graph/rewrite_passes.h:
// CPU attention fusion, LM-head slicing, last-block row pruning). Only a graph ORT accepts as submitted is
// rewritten (ort/original_graph_check.h). The file is parsed once, the passes run in order over it, and the
// result is assembled once. A pass that does not match leaves the graph alone; a rewritten graph ORT refuses
// is retried without the pass most likely at fault, and in the end the plain file is loaded. Either way each
// pass's outcome says what it did or why not, so results and `--verbose` can say what ran.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "../graph/initializer_overrides.h"
#include "../graph/rewrite_pass.h"
#include "ort_library.h"

namespace mlrb {

struct RewriteRequest {
  // Passes the caller turned off or on, by name (RewritePass::name); a pass not named runs.
  std::unordered_map<std::string, bool> switches;
  // Passes whose ops are CPU kernels (RewritePass::emits_cpu_kernels) run only on the CPU provider.
  bool cpu_provider = true;
  // A folder above the model's that its external data may resolve into (onnx/confined_open.h ReadScope): a
  // hub snapshot's repository folder. ORT is then given that folder, and the model from memory.
  std::string read_root;
  // Initializers replaced in every graph ORT is given, the unmodified one included (graph/initializer_overrides.h):
  // the model is then always loaded from memory, never from its file.
  std::vector<graph::InitializerOverride> overrides;
};

struct OpenedSession {
  std::unique_ptr<Ort::Session> session;
  std::string sliced_logits;  // the [positions, vocab] output when the head was sliced, else empty
  bool attention_fused = false;
  bool decode_cache = false;                 // graph/decode_cache.h applied
  std::vector<graph::PassOutcome> rewrites;  // one per pass, in the order they run
};

// Throws mlrb::Error(BAD_MODEL) naming the file and tensor when external data read through `read_root` leads
// outside it or an override names no initializer of the graph, or ORT's Ort::Exception when ORT refuses the unmodified model (before any rewrite is
// tried) or, after every rewrite was dropped, its plain load.
[[nodiscard]] OpenedSession open_rewritten_session(OrtRuntime& runtime, const std::string& model_path, Ort::SessionOptions& session_options,
                                                   const RewriteRequest& request);

}  // namespace mlrb
