#include "float_logits.h"

namespace mlrb {

std::span<const float> float_logits(const Ort::Value& logits, std::vector<float>& storage) {
  const auto info = logits.GetTensorTypeAndShapeInfo();
  const size_t count = info.GetElementCount();
  if (info.GetElementType() == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT) return {logits.GetTensorData<float>(), count};
  storage.resize(count);
  if (info.GetElementType() == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16) {
    const auto* source = logits.GetTensorData<Ort::Float16_t>();
    for (size_t i = 0; i < count; ++i) storage[i] = source[i].ToFloat();
  } else {
    const auto* source = logits.GetTensorData<Ort::BFloat16_t>();
    for (size_t i = 0; i < count; ++i) storage[i] = source[i].ToFloat();
  }
  return storage;
}

}  // namespace mlrb
