// Tensor shapes as "[2, 8, 270, 8]", for error messages that name the shapes they reject.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace mlrb {

inline std::string shape_text(const std::vector<int64_t>& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) text += (i > 0 ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

}  // namespace mlrb
