// Row pruning of the last transformer block, for graphs already fused (cpu_fusion.h) and sliced
// (lm_head_slice.h). The sliced head reads only the scored positions, but the last block still computes
// attention, its output projection, residual, norms and MLP for every position, although each of those
// steps works row by row: after the last attention, nothing mixes positions. This rewrite moves the
// gather of the scored rows up to the last fused attention node, which computes those query rows alone
// (keys and values still span every position), and gathers the per-position tensors that join the block
// on the way (the residual stream) the same way. For MMLU, where each row scores one or two positions of
// ~270, that removes nearly all of the last block's work.
//
// It applies only when every node between the last attention and the head is a row-wise op it knows
// (MatMul by a constant matrix, element-wise arithmetic, RMS / layer norms over the last axis, reshapes that
// keep the two leading axes), every value there feeds nothing else, and every tensor joining from outside
// is a constant or a per-position tensor the attention's own query is computed from. Otherwise the graph is
// left as it is, with the reason in the pass's outcome.
#pragma once

#include "rewrite_pass.h"

namespace mlrb::graph {

// "pruneLastBlock"; needs cpuFusion and sliceLmHead to have applied.
extern const RewritePass kPruneLastBlockPass;

}  // namespace mlrb::graph
