#include "element_types.h"

#include "../onnx/data_types.h"

namespace mlrb {

namespace {

namespace data_type = onnx::data_type;

// The codes both enums share.
static_assert(ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED == data_type::kUndefined && ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT == data_type::kFloat &&
                  ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8 == data_type::kUint8 && ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8 == data_type::kInt8 &&
                  ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT16 == data_type::kUint16 && ONNX_TENSOR_ELEMENT_DATA_TYPE_INT16 == data_type::kInt16 &&
                  ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32 == data_type::kInt32 && ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64 == data_type::kInt64 &&
                  ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING == data_type::kString && ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL == data_type::kBool &&
                  ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16 == data_type::kFloat16 && ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE == data_type::kDouble &&
                  ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT32 == data_type::kUint32 && ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT64 == data_type::kUint64 &&
                  ONNX_TENSOR_ELEMENT_DATA_TYPE_COMPLEX64 == data_type::kComplex64 &&
                  ONNX_TENSOR_ELEMENT_DATA_TYPE_COMPLEX128 == data_type::kComplex128 &&
                  ONNX_TENSOR_ELEMENT_DATA_TYPE_BFLOAT16 == data_type::kBfloat16 &&
                  ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT8E4M3FN == data_type::kFloat8E4M3Fn &&
                  ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT8E4M3FNUZ == data_type::kFloat8E4M3Fnuz &&
                  ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT8E5M2 == data_type::kFloat8E5M2 &&
                  ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT8E5M2FNUZ == data_type::kFloat8E5M2Fnuz &&
                  ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT4 == data_type::kUint4 && ONNX_TENSOR_ELEMENT_DATA_TYPE_INT4 == data_type::kInt4 &&
                  ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT4E2M1 == data_type::kFloat4E2M1,
              "ONNX Runtime's element types 0-23 are TensorProto.DataType codes");
constexpr int32_t kLastSharedCode = data_type::kFloat4E2M1;

}  // namespace

int32_t onnx_data_type(ONNXTensorElementDataType type) {
  switch (type) {
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT2: return data_type::kUint2;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT2: return data_type::kInt2;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT8E8M0: return data_type::kFloat8E8M0;
    default: {
      const auto code = static_cast<int32_t>(type);
      return code >= 0 && code <= kLastSharedCode ? code : data_type::kUndefined;
    }
  }
}

std::string element_type_name(ONNXTensorElementDataType type) {
  const int32_t code = onnx_data_type(type);
  // A type ONNX does not number keeps ORT's own number, so messages still tell such types apart.
  if (code == data_type::kUndefined) return "type#" + std::to_string(static_cast<int>(type));
  return onnx::data_type_name(code);
}

size_t element_bytes(ONNXTensorElementDataType type) {
  return onnx::element_bytes(onnx_data_type(type));
}

bool is_scoring_float(ONNXTensorElementDataType type) {
  return onnx::is_scoring_float(onnx_data_type(type));
}

}  // namespace mlrb
