// The load-time rewrite that makes a graph cheaper on ONNX Runtime's CPU provider, in one pass over the
// graph: every decomposed attention block (attention_match.h), with its rotary embedding,
// repeat_kv and head Transposes where present, becomes one ai.mlrb MaskedAttention / BiasedAttention node
// (ort/attention_op.h), which never materialises the [.., T, S] score tensors and skips the keys the mask
// excludes, while rounding as ONNX Runtime's own kernels round (core/ort_cpu_rounding.h). Nodes whose
// outputs only the replaced blocks used are dropped; everything else is copied byte for byte. CPU only:
// the fused ops are CPU kernels.
#pragma once

#include "rewrite_pass.h"

namespace mlrb::graph {

// "cpuFusion". Declines, with the reason, graphs it cannot promise the unfused graph's numbers for
// (fusion_guard.h) and graphs without a matching attention block.
extern const RewritePass kCpuFusionPass;

}  // namespace mlrb::graph
