// Finds a rotary position embedding as Hugging Face's Llama family exports apply_rotary_pos_emb:
//
//   value = Add(Mul(x, cos), Mul(Concat(Neg(Slice(x, h:)), Slice(x, :h), axis=-1), sin))
//
// (either operand order of the Add and the Muls; the Slices on the last axis), so the attention fusion
// can take x, cos and sin instead and rotate inside the fused op (core/rotary.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "graph_view.h"

namespace mlrb::graph {

struct RotaryMatch {
  std::string source;  // x, before rotation
  std::string cos, sin;
  int64_t half = 0;                  // h: the head dimension is 2h
  std::vector<size_t> nodes;         // the seven nodes that rotate x
  std::vector<std::string> dropped;  // their outputs, value included
};

// The rotation producing `value`, if it has the pattern and its intermediate values feed nothing else.
[[nodiscard]] std::optional<RotaryMatch> match_rotary(const GraphView& view, const std::string& value);

}  // namespace mlrb::graph
