#include "rotary.h"

#include <stdexcept>
#include <string>

#include "shape_text.h"

namespace mlrb {

RotaryLayout describe_rotary(const std::vector<int64_t>& cos_shape, const std::vector<int64_t>& sin_shape, int64_t half, int64_t batch, int64_t rows,
                             int64_t dim) {
  const auto mismatch = [&](const std::string& what) {
    return std::invalid_argument("rotary embedding: " + what + " (cos " + shape_text(cos_shape) + ", sin " + shape_text(sin_shape) + ", operands [" +
                                 std::to_string(batch) + ", heads, " + std::to_string(rows) + ", " + std::to_string(dim) + "])");
  };
  if (half <= 0 || dim != 2 * half) throw mismatch("the rotated halves must split the head dimension " + std::to_string(2 * half));
  if (cos_shape != sin_shape) throw mismatch("cos and sin must have the same shape");
  if (cos_shape.empty() || cos_shape.size() > 4) throw mismatch("cos and sin must have rank 1 to 4");
  // Right-aligned against [batch, heads, rows, dim]; every head shares the table.
  const int64_t target[4] = {batch, 1, rows, dim};
  int64_t strides[4] = {0, 0, 0, 0};
  int64_t step = 1;
  for (size_t from_end = 0; from_end < cos_shape.size(); ++from_end) {
    const size_t axis = 3 - from_end;
    const int64_t extent = cos_shape[cos_shape.size() - 1 - from_end];
    if (extent != 1 && extent != target[axis]) throw mismatch("cos and sin do not broadcast to [batch, 1, rows, dim]");
    strides[axis] = extent == 1 ? 0 : step;
    step *= extent;
  }
  if (strides[3] != 1) throw mismatch("cos and sin need a value per head dimension");
  return RotaryLayout{half, strides[0], strides[2]};
}

namespace {

// Products and sum rounded separately, as the graph's Mul, Mul and Add round them: a fused multiply-add
// would be closer to exact but further from the graph being replaced.
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("fp-contract=off")))
#endif
void rotate_row(const float* in, const float* cos, const float* sin, int64_t half, float* rotated) {
  for (int64_t d = 0; d < half; ++d) {
    const float direct = in[d] * cos[d];
    const float turned = -in[d + half] * sin[d];
    rotated[d] = direct + turned;
  }
  for (int64_t d = half; d < 2 * half; ++d) {
    const float direct = in[d] * cos[d];
    const float turned = in[d - half] * sin[d];
    rotated[d] = direct + turned;
  }
}

}  // namespace

void rotate_rows(const float* x, int64_t x_row_stride, int64_t rows, const RotaryRows& table, float* out) {
  for (int64_t row = 0; row < rows; ++row) {
    rotate_row(x + row * x_row_stride, table.cos + row * table.row_stride, table.sin + row * table.row_stride, table.half,
               out + row * 2 * table.half);
  }
}

}  // namespace mlrb
