// Reads an ONNX ModelProto's metadata from the memory-mapped file: graph, nodes, opsets, inputs/outputs and
// every tensor's dims, dtype and checked payload location. Weight bytes are stepped over, never read, so
// the cost is proportional to the metadata, not to the model size.
#pragma once

#include <string>

#include "model_info.h"

namespace mlrb::onnx {

// Throws mlrb::Error(BAD_MODEL) naming the file (and tensor) for unreadable, truncated or inconsistent models.
[[nodiscard]] ModelInfo read_model_info(const std::string& path);

}  // namespace mlrb::onnx
