// ORT's element types in terms of the one native dtype table (native/onnx/data_types.h). ORT's
// ONNXTensorElementDataType is "copied from TensorProto::DataType", and codes 0–23 are indeed ONNX's own
// (asserted in element_types.cc); past that they part: this ORT's C API numbers UINT2, INT2, FLOAT8E8M0
// as 24, 25, 26 where onnx.proto has 25, 26, 24. So an ORT type is translated, never cast, before the
// table is asked.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "ort_api.h"

namespace mlrb {

// The TensorProto.DataType code of an ORT element type; UNDEFINED (0) for one ONNX does not number.
[[nodiscard]] int32_t onnx_data_type(ONNXTensorElementDataType type);

// "float32", "bfloat16" …, the table's names; "type#<n>" for a type it does not know.
[[nodiscard]] std::string element_type_name(ONNXTensorElementDataType type);

// Bytes per element; 0 for sub-byte, variable-size and unknown types.
[[nodiscard]] size_t element_bytes(ONNXTensorElementDataType type);

// float32, float16 or bfloat16: the types logits and past key/values may have.
[[nodiscard]] bool is_scoring_float(ONNXTensorElementDataType type);

}  // namespace mlrb
