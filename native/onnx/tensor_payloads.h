// Turns parsed tensors into TensorInfo with a checked payload location: the byte count the dims and
// dtype imply must match raw_data or the external_data range, and external files must exist and be long
// enough, and inside the model's folder or read root (confined_open.h). This is where "dims that lie", empty tensors
// with absurd dims and missing or foreign weight files are caught, before anything reads them.
#pragma once

#include <string>
#include <vector>

#include "model_info.h"
#include "tensor_proto.h"

namespace mlrb::onnx {

// `model_path` is absolute; external locations are resolved against its directory, and may resolve (through
// symlinks) anywhere under `read_root` when that is a folder above it (ReadScope). Appends every external file
// it opened to `external_files` (once each). `model_real_path`: the model file as opened (FileHandle::real_path),
// the real_file of its raw payloads.
std::vector<TensorInfo> resolve_tensor_payloads(const std::string& model_path, const std::string& model_real_path, const std::string& read_root,
                                                std::vector<ParsedTensor> tensors, std::vector<ExternalFile>& external_files);

}  // namespace mlrb::onnx
