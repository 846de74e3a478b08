// Fused attention over a decoding cache (core/attention_kv_cache.h): the graph hands the op only the new
// rows' Q, K, V and its mask over those rows; this appends the new keys and values to the node's cache and
// describes attention of the new queries over every cached key, for attend_one_head to compute as usual.
//
// The graph's mask covers the new rows only, so the cached keys' mask values are carried over from earlier
// passes. That is exact for a causal mask with per-key values (key padding), where every later query sees a
// key as the last query that saw it did; each block is checked to have that form (any other, a sliding
// window say, is refused rather than computed wrongly).
#pragma once

#include <cstdint>
#include <vector>

#include "attention_kv_cache.h"
#include "attention_operands.h"

namespace mlrb {

// Buffers the composed operands point into; they must outlive the attention they describe.
struct CachedAttentionScratch {
  std::vector<float> rotated_queries;  // [batch, query_heads, rows, key_dim] when the node folds a rotary embedding
  std::vector<uint8_t> keep;           // [batch, rows, keys]: the composed bool mask
  std::vector<float> bias;             // [batch, rows, keys]: the composed additive mask
};

// `expected_positions` (AttentionKvCache's) sizes the layer at its first use. `block` describes the graph's tensors for the new rows
// (describe_operands with its mask kind and data set, add_rotary where the node has one); `tensors` are their data. Appends the new keys (rotated)
// and values to `layer`, and returns operands over all cached keys: queries rotated, no rotary left to apply, the mask composed and prepared
// (prepare_mask_rows), every other field as in `block`. The result's tensors point into `layer` and `scratch`. Throws std::invalid_argument when the
// block does not continue the cache (batch, heads or sizes differ) or its mask is not causal with per-key values.
[[nodiscard]] Operands attend_over_cache(LayerKv& layer, int64_t expected_positions, const Operands& block, const AttentionTensors& tensors,
                                         CachedAttentionScratch& scratch, AttentionTensors& cached_tensors);

}  // namespace mlrb
