// Finds Kᵀ, the right operand of attention's first MatMul, in the forms exporters write it:
//
//   Transpose(K, perm = [.., -1, -2])          hand-built graphs; TorchScript with past or GQA (K is [B, H, S, D])
//   Transpose(K, perm = [0, 2, 3, 1])          TorchScript: GPT-2's keys straight from [B, S, H, D] to [B, H, D, S]
//   Reshape(Transpose(Reshape(K, [-1, S, D]), [0, 2, 1]), [dims(K)[:-2], D, S])
//                                              the dynamo exporter (its decomposition of transpose(-2, -1)),
//                                              the shapes read from Shape(K) at run time
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "graph_view.h"

namespace mlrb::graph {

struct TransposedKey {
  std::string key;
  int64_t layout = 0;                // 0: K is [.., S, D]; 1: K is [B, S, H, D] (rank 4)
  std::vector<size_t> nodes;         // the nodes that transpose it, where only attention reads their outputs
  std::vector<std::string> dropped;  // their outputs
};

// `transposed` as K with its last two axes swapped; the nodes in between are listed for removal only when
// their outputs feed nothing but the next of them (else they stay, and the fused op reads K all the same).
[[nodiscard]] std::optional<TransposedKey> match_transposed_key(const GraphView& view, const std::string& transposed);

}  // namespace mlrb::graph
