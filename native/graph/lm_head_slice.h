// LM-head position slicing as a graph rewrite. A causal LM ends in logits = f(hidden @ W) over every
// position, [batch, seq, vocab], although scoring reads only the positions that predict continuation
// tokens (MMLU: one per question). The rewrite flattens the final hidden state to [batch*seq, hidden],
// gathers the rows named by a new int64 input, and lets the head run on those rows alone, so the logits
// output becomes [positions, vocab] and [batch, seq, vocab] is never computed or stored.
//
// Only the main graph's node list, inputs, outputs and value_info change; every other field, initializers
// (and their external-data references) included, is copied byte for byte.
#pragma once

#include "rewrite_pass.h"

namespace mlrb::graph {

inline constexpr const char* kLogitPositionsInput = "mlrb_logit_positions";
// The values the rewrite adds: the final hidden state flattened to [batch*seq, hidden], and its gathered rows.
inline constexpr const char* kFlatHidden = "mlrb_flat_hidden";
inline constexpr const char* kGatheredHidden = "mlrb_gathered_hidden";

// "sliceLmHead". On success it records the sliced output in GraphState::sliced_logits.
extern const RewritePass kSliceLmHeadPass;

}  // namespace mlrb::graph
