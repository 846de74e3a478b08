// Parses TensorProto and SparseTensorProto messages into TensorInfo without reading their payloads:
// raw_data is recorded as (offset, length) in the model file and stepped over; external_data entries are
// kept for resolve_tensor_payloads(), which checks them against the files on disk.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "model_info.h"
#include "proto_wire.h"

namespace mlrb::onnx {

struct ParsedTensor {
  TensorInfo info;
  bool has_raw_data = false;
  bool marked_external = false;  // data_location == EXTERNAL
  std::string external_location;
  std::optional<uint64_t> external_offset;
  std::optional<uint64_t> external_length;
  uint64_t typed_element_count = 0;  // elements found in float_data, int32_data … (typed payloads)
  bool has_typed_data = false;
  uint64_t string_bytes = 0;  // bytes of the entries of string_data: what a string tensor holds
  bool densified = false;     // a SparseTensorProto's values: held dense at load, so sized by its dense dims
};

// `tensor` lies inside `file`, the whole mapped model, so a raw_data payload is recorded by its offset in
// the file. Throws MalformedProto.
[[nodiscard]] ParsedTensor read_tensor(Bytes tensor, Bytes file);

// A sparse tensor becomes one TensorInfo with its dense dims (ONNX Runtime densifies it at load time).
[[nodiscard]] ParsedTensor read_sparse_tensor(Bytes sparse, Bytes file);

}  // namespace mlrb::onnx
