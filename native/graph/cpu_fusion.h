// The load-time rewrite that makes a graph cheaper on ONNX Runtime's CPU provider, in one pass over the
// model's bytes: every decomposed attention block (attention_match.h), with its rotary embedding,
// repeat_kv and head Transposes where present, becomes one ai.mlrb MaskedAttention / BiasedAttention node
// (ort/attention_op.h), which never materialises the [.., T, S] score tensors and skips the keys the mask
// excludes, while rounding as ONNX Runtime's own kernels round (core/ort_cpu_rounding.h). Nodes whose
// outputs only the replaced blocks used are dropped; everything else is copied byte for byte. CPU only:
// the fused ops are CPU kernels.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "onnx_terms.h"

namespace mlrb::graph {

struct CpuFusion {
  bool applied = false;
  int attention_blocks = 0;
  std::string note;            // what was rewritten, or why nothing was; shown in verbose output
  std::vector<uint8_t> model;  // the rewritten ModelProto, when applied
};

// Never throws for graphs it does not understand: they come back with applied = false and a note.
[[nodiscard]] CpuFusion fuse_for_cpu(Bytes model);

}  // namespace mlrb::graph
