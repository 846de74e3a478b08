// Rotary position embedding the way Hugging Face's Llama family exports it, folded into the fused
// attention op: x' = x·cos + rotate_half(x)·sin with rotate_half(x) = [-x[h:], x[:h]] and h = D / 2, on
// each query and key row before the scores. The graph does this in eight nodes per operand (two Slices,
// Neg, Concat, two Muls, Add and the head Transpose), each a pass over a [batch, heads, rows, D] tensor;
// the fused op rotates a head's rows into scratch instead, O(rows · D) next to attention's O(rows² · D).
#pragma once

#include <cstdint>
#include <vector>

namespace mlrb {

// Where row r of batch entry b finds its cos / sin values (D floats each): table + b * batch_stride +
// r * row_stride. Strides are 0 on broadcast axes. half = 0: no rotation.
struct RotaryLayout {
  int64_t half = 0;
  int64_t batch_stride = 0;
  int64_t row_stride = 0;
};

// One head's view of the tables: row r's values start at cos + r * row_stride.
struct RotaryRows {
  const float* cos = nullptr;
  const float* sin = nullptr;
  int64_t row_stride = 0;
  int64_t half = 0;

  [[nodiscard]] bool active() const { return half > 0; }
};

// Checks the cos and sin shapes against attention operands of logical shape [batch, heads, rows, dim]
// (queries and keys at the same positions): each broadcasts to [batch, 1, rows, dim] as in ONNX, right
// aligned, every axis 1 or full. Throws std::invalid_argument naming the shapes.
[[nodiscard]] RotaryLayout describe_rotary(const std::vector<int64_t>& cos_shape, const std::vector<int64_t>& sin_shape, int64_t half, int64_t batch,
                                           int64_t rows, int64_t dim);

// Writes the rotated rows [rows, 2 * half] contiguously to `out`; row r of x starts at x + r * x_row_stride.
void rotate_rows(const float* x, int64_t x_row_stride, int64_t rows, const RotaryRows& table, float* out);

}  // namespace mlrb
