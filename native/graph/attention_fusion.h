// Attention fusion as a graph rewrite: every decomposed attention block
//
//   scores = MatMul(Q, Transpose(K, swap last two axes))
//   scores = Mul(scores, c) | Div(scores, c)           (optional constant scale)
//   scores = Where(mask, scores, fill) | Where(mask, fill, scores) | Add(scores, float mask)
//   out    = MatMul(Softmax(scores, axis=-1), V)
//
// becomes one ai.mlrb MaskedAttention / BiasedAttention node (ort/attention_op.h) that computes the same
// rows without materialising the [.., T, S] score tensors, and skips the keys the mask excludes.
// Nodes whose outputs the block alone used are dropped; everything else is copied byte for byte.
// Only for the CPU provider: the ops are CPU kernels.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "proto_wire.h"

namespace mlrb::graph {

struct AttentionFusion {
  bool applied = false;
  int fused_blocks = 0;
  std::string note;            // what was fused, or why nothing was; shown in verbose output
  std::vector<uint8_t> model;  // the rewritten ModelProto, when applied
};

// Never throws for graphs it does not understand: they come back with applied = false and a note.
[[nodiscard]] AttentionFusion fuse_attention(Bytes model);

}  // namespace mlrb::graph
