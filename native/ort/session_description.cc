#include "session_description.h"

namespace mlrb {

namespace {

TensorDescription describe(const std::string& name, const Ort::TypeInfo& type_info) {
  TensorDescription description;
  description.name = name;
  if (type_info.GetONNXType() != ONNX_TYPE_TENSOR) return description;
  auto tensor_info = type_info.GetTensorTypeAndShapeInfo();
  description.type = tensor_info.GetElementType();
  description.shape = tensor_info.GetShape();
  for (const char* symbol : tensor_info.GetSymbolicDimensions()) description.symbolic.emplace_back(symbol != nullptr ? symbol : "");
  return description;
}

}  // namespace

std::vector<TensorDescription> describe_inputs(const Ort::Session& session) {
  Ort::AllocatorWithDefaultOptions allocator;
  std::vector<TensorDescription> inputs;
  for (size_t i = 0; i < session.GetInputCount(); ++i) {
    inputs.push_back(describe(session.GetInputNameAllocated(i, allocator).get(), session.GetInputTypeInfo(i)));
  }
  return inputs;
}

std::vector<TensorDescription> describe_outputs(const Ort::Session& session) {
  Ort::AllocatorWithDefaultOptions allocator;
  std::vector<TensorDescription> outputs;
  for (size_t i = 0; i < session.GetOutputCount(); ++i) {
    outputs.push_back(describe(session.GetOutputNameAllocated(i, allocator).get(), session.GetOutputTypeInfo(i)));
  }
  return outputs;
}

std::string code_for_load_failure(OrtErrorCode code) {
  switch (code) {
    case ORT_NO_SUCHFILE:
    case ORT_INVALID_PROTOBUF:
    case ORT_INVALID_GRAPH:
    case ORT_NO_MODEL:
    case ORT_MODEL_LOADED:
    case ORT_NOT_IMPLEMENTED:
    case ORT_INVALID_ARGUMENT: return "BAD_MODEL";
    default: return "ORT_RUN";
  }
}

}  // namespace mlrb
