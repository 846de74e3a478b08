// Which Reshapes of a pruned last block (last_block_rows.h) stay right on the scored rows alone, and how
// their targets change. Exporters reshape around every projection with targets computed at run time:
// TorchScript GPT-2 flattens to [-1, C] for Gemm and restores [dims(x)[0], dims(x)[1], C]; Llama and Phi
// merge heads with [dims(hidden)[0], dims(hidden)[1], -1]; dynamo graphs read [batch, seq] from
// Shape(attention_mask) or Shape(input_ids). On the gathered rows such targets would still say
// [batch, seq]. A Reshape is kept when it provably only splits, merges or flattens the axes after the
// position axes; its target's batch and sequence elements are then replaced by ones that mean "the
// picked rows", and its trailing elements are kept as the graph computes them, which is proved to read
// no dim that pruning changes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "graph_view.h"

namespace mlrb::graph {

// How a per-position tensor of the last block is laid out, in the original graph → once pruned.
enum class RowLayout {
  kRows,      // [batch, seq, ...] → [1, picked, ...]: the attention output and what is computed from it
  kGathered,  // [batch, seq, ...] → [picked, ...]: tensors gathered where they join the block
  kFlat,      // [batch·seq·m, ...] → [picked·m, ...]: rows flattened for a Gemm (m sub-rows per position)
};

struct RowValue {
  RowLayout layout = RowLayout::kRows;
  std::optional<int64_t> rank;   // the original rank, where known
  std::optional<int64_t> width;  // kFlat: the rows' width (their last dim), where known
};

// What the proof may assume about the graph around the block.
struct RowContext {
  // The block's values (and the joining tensors) with their layouts; any other tensor keeps its shape.
  const std::unordered_map<std::string, RowValue>* values = nullptr;
  // Tensors whose axis 0 is the batch, and whose axis 1 is the sequence, of the block's rows.
  const std::unordered_map<std::string, uint8_t>* row_axes = nullptr;  // bit 0: axis 0; bit 1: axis 1
};
inline constexpr uint8_t kBatchAxisBit = 1, kSequenceAxisBit = 2;

// The new target of a Reshape: two leading elements followed by the original target's elements from index 2
// on. The leading ones are the input's own two leading dims (on [1, picked, ...], whatever allowzero says),
// or the constants [1, -1] (the trailing elements then fix the row size).
struct TargetRewrite {
  bool copies_input_positions = false;
};

struct ReshapeProof {
  std::string problem;  // empty: proved
  RowValue output;
  std::optional<TargetRewrite> rewrite;  // absent: the original target stays right
};

// `reshape` is a Reshape of the block whose data input has layout `input`. `makes_head_input`: its output is
// the LM head's input, which the head slicing's contract says is [batch, seq, hidden] (lm_head_slice.h).
//
// Flattening ([-1, trailing...]) is accepted as it stands; whether its rows straddle positions is settled
// where they are restored: a target [batch, seq, constants...] whose constants multiply to the flat rows'
// known width proves that the flat tensor had batch·seq rows, so the flattening cut each position's values
// into exactly one row.
[[nodiscard]] ReshapeProof prove_reshape(const GraphView& view, const NodeView& reshape, const RowValue& input, const RowContext& context,
                                         bool makes_head_input);

}  // namespace mlrb::graph
