#include "host_tensors.h"

#include <cstring>
#include <string>

#include "../core/error.h"
#include "element_types.h"

namespace mlrb {

Ort::Value owned_ids(const std::vector<int64_t>& values, const std::vector<int64_t>& shape, ONNXTensorElementDataType type) {
  Ort::AllocatorWithDefaultOptions allocator;
  if (type == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64) {
    Ort::Value tensor = Ort::Value::CreateTensor<int64_t>(allocator, shape.data(), shape.size());
    std::memcpy(tensor.GetTensorMutableData<int64_t>(), values.data(), values.size() * sizeof(int64_t));
    return tensor;
  }
  if (type != ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32) throw Error("INTERNAL", "token ids must be int64 or int32, not " + element_type_name(type));
  Ort::Value tensor = Ort::Value::CreateTensor<int32_t>(allocator, shape.data(), shape.size());
  auto* target = tensor.GetTensorMutableData<int32_t>();
  for (size_t i = 0; i < values.size(); ++i) target[i] = static_cast<int32_t>(values[i]);
  return tensor;
}

Ort::Value owned_flag(bool value) {
  Ort::AllocatorWithDefaultOptions allocator;
  const std::vector<int64_t> shape{1};
  Ort::Value tensor = Ort::Value::CreateTensor<bool>(allocator, shape.data(), shape.size());
  *tensor.GetTensorMutableData<bool>() = value;
  return tensor;
}

Ort::Value empty_kv(ONNXTensorElementDataType type, int64_t rows, int64_t heads, int64_t head_dim) {
  Ort::AllocatorWithDefaultOptions allocator;
  const std::vector<int64_t> shape{rows, heads, 0, head_dim};
  return Ort::Value::CreateTensor(allocator, shape.data(), shape.size(), type);
}

Ort::Value tensor_view(Ort::Value& tensor) {
  const auto info = tensor.GetTensorTypeAndShapeInfo();
  const std::vector<int64_t> shape = info.GetShape();
  const Ort::MemoryInfo memory = Ort::MemoryInfo::CreateCpu(OrtArenaAllocator, OrtMemTypeDefault);
  return Ort::Value::CreateTensor(memory, tensor.GetTensorMutableRawData(), info.GetElementCount() * element_bytes(info.GetElementType()),
                                  shape.data(), shape.size(), info.GetElementType());
}

Ort::Value position_range(const Ort::Value& tensor, int axis, int64_t start, int64_t count) {
  const auto info = tensor.GetTensorTypeAndShapeInfo();
  const std::vector<int64_t> source_shape = info.GetShape();
  const auto at = static_cast<size_t>(axis);
  if (at >= source_shape.size() || start < 0 || count < 0 || start + count > source_shape[at]) {
    throw Error("INTERNAL", "cannot take positions [" + std::to_string(start) + ", " + std::to_string(start + count) + ") along axis " +
                                std::to_string(axis) + " of a tensor");
  }
  size_t outer = 1;
  for (size_t d = 0; d < at; ++d) outer *= static_cast<size_t>(source_shape[d]);
  size_t position_bytes = element_bytes(info.GetElementType());
  for (size_t d = at + 1; d < source_shape.size(); ++d) position_bytes *= static_cast<size_t>(source_shape[d]);
  std::vector<int64_t> shape = source_shape;
  shape[at] = count;
  Ort::AllocatorWithDefaultOptions allocator;
  Ort::Value kept = Ort::Value::CreateTensor(allocator, shape.data(), shape.size(), info.GetElementType());
  const size_t source_bytes = static_cast<size_t>(source_shape[at]) * position_bytes;
  const size_t kept_bytes = static_cast<size_t>(count) * position_bytes;
  const auto* source = static_cast<const uint8_t*>(tensor.GetTensorRawData());
  auto* target = static_cast<uint8_t*>(kept.GetTensorMutableRawData());
  const size_t skipped_bytes = static_cast<size_t>(start) * position_bytes;
  for (size_t o = 0; o < outer; ++o) std::memcpy(target + o * kept_bytes, source + o * source_bytes + skipped_bytes, kept_bytes);
  return kept;
}

}  // namespace mlrb
