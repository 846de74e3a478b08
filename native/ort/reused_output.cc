#include "reused_output.h"

#include <string>

#include "../core/error.h"
#include "element_types.h"

namespace mlrb {

namespace {

Ort::Value allocate(ONNXTensorElementDataType type, size_t capacity) {
  Ort::AllocatorWithDefaultOptions allocator;
  const std::vector<int64_t> flat{static_cast<int64_t>(capacity)};
  return Ort::Value::CreateTensor(allocator, flat.data(), flat.size(), type);
}

}  // namespace

ReusedOutput::ReusedOutput(ONNXTensorElementDataType type, size_t capacity) : type_(type), capacity_(capacity), storage_(allocate(type, capacity)) {}

Ort::Value ReusedOutput::view(const std::vector<int64_t>& shape) {
  size_t count = 1;
  for (const int64_t dimension : shape) {
    if (dimension < 0) throw Error("INTERNAL", "a reused output cannot take a negative dimension");
    count *= static_cast<size_t>(dimension);
  }
  if (count > capacity_) {
    throw Error("INTERNAL", "a decoding pass's output needs " + std::to_string(count) + " elements, more than the " + std::to_string(capacity_) +
                                " allocated for the run");
  }
  const Ort::MemoryInfo memory = Ort::MemoryInfo::CreateCpu(OrtArenaAllocator, OrtMemTypeDefault);
  return Ort::Value::CreateTensor(memory, storage_.GetTensorMutableRawData(), count * element_bytes(type_), shape.data(), shape.size(), type_);
}

}  // namespace mlrb
