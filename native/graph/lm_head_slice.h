// LM-head position slicing as a graph rewrite. A causal LM ends in logits = f(hidden @ W) over every
// position, [batch, seq, vocab], although scoring reads only the positions that predict continuation
// tokens (MMLU: one per question). The rewrite flattens the final hidden state to [batch*seq, hidden],
// gathers the rows named by a new int64 input, and lets the head run on those rows alone, so the logits
// output becomes [positions, vocab] and [batch, seq, vocab] is never computed or stored.
//
// Only the main graph's node list, inputs, outputs and value_info change; every other field, initializers
// (and their external-data references) included, is copied byte for byte.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "onnx_terms.h"

namespace mlrb::graph {

inline constexpr const char* kLogitPositionsInput = "mlrb_logit_positions";
// The values the rewrite adds: the final hidden state flattened to [batch*seq, hidden], and its gathered rows.
inline constexpr const char* kFlatHidden = "mlrb_flat_hidden";
inline constexpr const char* kGatheredHidden = "mlrb_gathered_hidden";

struct LmHeadSlice {
  bool applied = false;
  // What was rewritten ("logits = MatMul(norm_out, lm_head.weight) now runs on gathered rows"), or why
  // the graph was left alone; shown in verbose output either way.
  std::string note;
  std::vector<uint8_t> model;  // the rewritten ModelProto, when applied
  std::string logits_output;   // the output that is now [positions, vocab]
};

// Never throws for graphs it does not understand: those come back with applied = false and a note.
[[nodiscard]] LmHeadSlice slice_lm_head(Bytes model);

}  // namespace mlrb::graph
