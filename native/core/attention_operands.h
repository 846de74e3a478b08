// How the fused attention op's operands map onto the kernel (core/masked_attention.h): their logical
// [batch, heads, rows, D] shapes whatever their layout, each head's row strides, grouped key/value heads,
// and the mask's broadcast laid out per head. Plain C++: the ORT op (ort/attention_op.cc) reads tensors
// and attributes, this checks and describes them.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "masked_attention.h"
#include "rotary.h"

namespace mlrb {

// How a rank-4 operand is laid out: ONNX attention's [batch, heads, rows, D], or [batch, rows, heads, D]
// when the fusion folded away the Transpose that turned one into the other.
enum class Layout : int64_t { kHeadsFirst = 0, kRowsFirst = 1 };

struct OperandLayouts {
  Layout query = Layout::kHeadsFirst;
  Layout key = Layout::kHeadsFirst;
  Layout value = Layout::kHeadsFirst;
  Layout output = Layout::kHeadsFirst;
  int64_t kv_repeat = 1;  // each key/value head serves this many consecutive query heads

  [[nodiscard]] bool plain() const;
};

// Element offsets of a head's batch entry, of the head within it, and of consecutive rows.
struct Strides {
  int64_t batch = 0;
  int64_t head = 0;
  int64_t row = 0;
};

struct Operands {
  AttentionShape shape;
  std::vector<int64_t> output_shape;
  MaskLayout mask;          // kind and data pointers are the caller's to set
  int64_t query_heads = 1;  // query heads per batch entry
  int64_t kv_repeat = 1;    // query heads per key/value head
  Strides query, key, value, output;
  RotaryLayout rotary;  // half 0: the op rotates nothing
  // Set by pick_query_rows: per picked row its query position, and per batch entry where its rows start.
  std::vector<int64_t> picked_positions;
  std::vector<int64_t> picked_begin;  // [batch + 1]; empty: every query row is computed

  [[nodiscard]] int64_t batch() const { return shape.heads / query_heads; }
  [[nodiscard]] bool picks_rows() const { return !picked_begin.empty(); }
};

// The op's tensors; cos and sin only when it folds a rotary embedding.
struct AttentionTensors {
  const float* query = nullptr;
  const float* key = nullptr;
  const float* value = nullptr;
  float* output = nullptr;
  const float* cos = nullptr;
  const float* sin = nullptr;
};

// Checks Q, K, V and mask shapes against the op's contract. Throws std::invalid_argument naming the shapes.
[[nodiscard]] Operands describe_operands(const std::vector<int64_t>& q_shape, const std::vector<int64_t>& k_shape,
                                         const std::vector<int64_t>& v_shape, const std::vector<int64_t>& mask, const OperandLayouts& layouts);

// Adds a rotary embedding of Q and K (core/rotary.h) split at `half`, for queries and keys at the same
// positions (no KV cache). Throws std::invalid_argument naming the shapes.
void add_rotary(Operands& operands, const std::vector<int64_t>& cos_shape, const std::vector<int64_t>& sin_shape, int64_t half);

// Restricts the op to the query rows at `flat_positions` (row index over [batch, queries], ascending, as the
// LM-head slicing's positions input lists them); the output becomes [1, positions, heads, value_dim]. Needs
// rank-4 operands and the rows-first output layout. Throws std::invalid_argument naming the problem.
void pick_query_rows(Operands& operands, std::span<const int64_t> flat_positions);

// Where head `head` (over the whole batch) finds its rows, given the tensors' base pointers. With picked
// rows, a head whose batch entry has none gets an empty query_positions and must be skipped (has_rows).
[[nodiscard]] bool has_rows(const Operands& operands, int64_t head);
[[nodiscard]] HeadOperands head_operands(const Operands& operands, const AttentionTensors& tensors, int64_t head);

}  // namespace mlrb
