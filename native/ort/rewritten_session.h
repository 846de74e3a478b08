// Opens the ORT session over a model with the load-time graph rewrites applied: CPU graph fusion
// (graph/cpu_fusion.h: attention blocks; CPU only), LM-head slicing (graph/lm_head_slice.h) and, when both
// applied, row pruning of the last block (graph/last_block_rows.h). Only a graph ORT accepts as submitted
// is rewritten (ort/original_graph_check.h). A rewrite that does not match leaves the graph alone; a
// rewritten graph ORT refuses is retried without that rewrite, and in the end the plain file is loaded.
// Either way the reason ends up in a note, so `--verbose` can say what ran.
#pragma once

#include <memory>
#include <string>

#include "ort_library.h"

namespace mlrb {

struct LoadRewrites {
  bool cpu_fusion = false;
  bool slice_lm_head = true;
  bool prune_last_block = true;  // needs the other two
};

struct OpenedSession {
  std::unique_ptr<Ort::Session> session;
  std::string sliced_logits;  // the [positions, vocab] output when the head was sliced, else empty
  bool attention_fused = false;
  std::string lm_head_note;
  std::string fusion_note;
  std::string pruning_note;  // empty when pruning was not tried (no fused attention or no sliced head)
};

// Throws ORT's Ort::Exception when ORT refuses the unmodified model (before any rewrite is tried) or,
// after every rewrite was dropped, its plain load.
[[nodiscard]] OpenedSession open_rewritten_session(OrtRuntime& runtime, const std::string& model_path,
                                                   Ort::SessionOptions& session_options, LoadRewrites rewrites);

}  // namespace mlrb
