// Decoding with a KV cache for graphs exported without one (plain torch.onnx.export, optimum without
// -with-past). Such a graph can only compute a whole sequence, so generation used to rerun the prompt and
// everything generated for each new token. After CPU fusion every attention is one ai.mlrb node, and those
// nodes can keep the keys and values themselves (core/cached_attention.h): this rewrite wires a decoding
// cache id into each of them and lets the graph's own position numbering start at an offset, so a
// generation run feeds the prompt once and then only each new token (ort/generation_session.h).
//
// Two inputs are added, both with a default (an initializer of the same name), so every other caller, the
// scorer included, runs the graph exactly as before without feeding them:
//   mlrb_decode_cache     int64 [1], default 0 (no cache): the run's cache id (core/attention_kv_cache.h)
//   mlrb_position_offset  int64 scalar, default 0: the position of the first fed token
// Each Range(0, n, 1) whose n is the token axis of input_ids (the exporters' arange(seq_len): position ids,
// rotary positions, the query side of causal masks) becomes Range(offset, offset + n, 1). Ranges over the
// attention mask's length (the key side) stay: fed one token, their masks cover the new token alone, and
// the fused op carries the cached keys' mask values itself.
//
// Graphs exported with past (optimum's past_key_values.* inputs) get it too: generation feeds them an empty past,
// so they compute like graphs without one (their past length is 0, the offset Ranges number the positions), and
// their Concat(past, new) copies only the new keys and values instead of the whole cache each pass. Without a
// position_ids input, every Range must start at 0: one starting at the past length would restart at 0 each pass. Callers that feed a real past
// (prefix scoring) leave the cache id at its default and run the graph as exported.
//
// Applies only where every Softmax became a fused node (an unfused attention would see the new token
// alone), the graph's other inputs are token inputs, the positions have a source (a position_ids input or a
// Range it offsets), and every other node is an op that works per position or on shapes (an allow-list;
// a CumSum over the mask, say, would number positions otherwise).
#pragma once

#include "rewrite_pass.h"

namespace mlrb::graph {

inline constexpr const char* kDecodeCacheInput = "mlrb_decode_cache";
inline constexpr const char* kPositionOffsetInput = "mlrb_position_offset";

// "decodeCache"; needs cpuFusion. On success it sets GraphState::decode_cache.
extern const RewritePass kDecodeCachePass;

}  // namespace mlrb::graph
