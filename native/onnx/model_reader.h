// Reads an ONNX ModelProto's metadata from the memory-mapped file: graph, nodes, opsets, inputs/outputs and
// every tensor's dims, dtype and checked payload location. Weight bytes are stepped over, never read, so
// the cost is proportional to the metadata, not to the model size.
#pragma once

#include <string>

#include "model_info.h"

namespace mlrb::onnx {

// Throws mlrb::Error(BAD_MODEL) naming the file (and tensor) for unreadable, truncated or inconsistent models.
// External data may resolve anywhere under `read_root` when that is a folder above the model's (a hub
// snapshot's repository folder; confined_open.h), else only inside the model's folder.
[[nodiscard]] ModelInfo read_model_info(const std::string& path, const std::string& read_root = {});

}  // namespace mlrb::onnx
