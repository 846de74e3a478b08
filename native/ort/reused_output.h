// Output memory a decoding run allocates once and lends to ORT at every pass (ORT writes the output into a view
// of it shaped as that pass's output), so a step allocates no logits and, for graphs that carry their own cache,
// no presents: two sets of present buffers take turns, the last pass's presents being read as this pass's past
// while this pass writes into the other set.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ort_api.h"

namespace mlrb {

class ReusedOutput {
 public:
  // Room for `capacity` elements of `type`, from ORT's default allocator (its alignment).
  ReusedOutput(ONNXTensorElementDataType type, size_t capacity);

  // A view of the buffer's start shaped `shape`. Throws INTERNAL when the shape needs more than the capacity.
  [[nodiscard]] Ort::Value view(const std::vector<int64_t>& shape);

 private:
  ONNXTensorElementDataType type_;
  size_t capacity_;
  Ort::Value storage_;
};

}  // namespace mlrb
