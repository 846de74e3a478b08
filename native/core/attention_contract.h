// The names shared by the graph rewrite that emits fused attention nodes (graph/cpu_fusion.h) and
// the ONNX Runtime custom ops that run them (ort/attention_op.h).
#pragma once

namespace mlrb {

inline constexpr const char* kAttentionOpDomain = "ai.mlrb";
inline constexpr const char* kMaskedAttentionOp = "MaskedAttention";  // bool mask: Where(mask, scores, fill)
inline constexpr const char* kBiasedAttentionOp = "BiasedAttention";  // float mask: scores + mask

}  // namespace mlrb
