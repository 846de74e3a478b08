#include "scoring_session_inputs.h"

#include <cstring>

#include "../core/error.h"
#include "element_types.h"

namespace mlrb {

namespace {

// Repeats a batch-1 prefix tensor along its batch axis: [.., 1, ..] -> [.., rows, ..]. Every row attends to
// the same prefix, so the copy is what ORT's Concat with the new keys needs; it costs a memcpy per row.
Ort::Value broadcast_prefix(const Ort::Value& prefix, const InputPlan& plan, int64_t rows) {
  Ort::AllocatorWithDefaultOptions allocator;
  const std::vector<int64_t> source_shape = prefix.GetTensorTypeAndShapeInfo().GetShape();
  const std::vector<int64_t> shape = broadcast_shape(prefix, plan, rows);
  const auto axis = static_cast<size_t>(plan.batch_axis);
  size_t outer = 1;
  for (size_t d = 0; d < axis; ++d) outer *= static_cast<size_t>(source_shape[d]);
  size_t inner_bytes = element_bytes(plan.tensor.type);
  for (size_t d = axis + 1; d < source_shape.size(); ++d) inner_bytes *= static_cast<size_t>(source_shape[d]);
  Ort::Value expanded = Ort::Value::CreateTensor(allocator, shape.data(), shape.size(), plan.tensor.type);
  const auto* source = static_cast<const uint8_t*>(prefix.GetTensorRawData());
  auto* target = static_cast<uint8_t*>(expanded.GetTensorMutableRawData());
  for (size_t o = 0; o < outer; ++o) {
    for (int64_t row = 0; row < rows; ++row) {
      std::memcpy(target + (o * static_cast<size_t>(rows) + static_cast<size_t>(row)) * inner_bytes, source + o * inner_bytes, inner_bytes);
    }
  }
  return expanded;
}

Ort::Value empty_past(const InputPlan& plan, int64_t rows) {
  Ort::AllocatorWithDefaultOptions allocator;
  std::vector<int64_t> shape = plan.empty_past_shape;
  shape[static_cast<size_t>(plan.batch_axis)] = rows;
  return Ort::Value::CreateTensor(allocator, shape.data(), shape.size(), plan.tensor.type);
}

}  // namespace

std::vector<int64_t> broadcast_shape(const Ort::Value& prefix, const InputPlan& plan, int64_t rows) {
  const auto info = prefix.GetTensorTypeAndShapeInfo();
  std::vector<int64_t> shape = info.GetShape();
  const auto axis = static_cast<size_t>(plan.batch_axis);
  if (info.GetElementType() != plan.tensor.type || axis >= shape.size() || shape[axis] != 1) {
    throw Error("INTERNAL", "the prefix KV for " + plan.tensor.name + " does not have the input's type and a batch of 1");
  }
  shape[axis] = rows;
  return shape;
}

BoundInputs bind_inputs(const GraphSignature& signature, const PaddedInputs& padded, const std::vector<int64_t>& gather_positions,
                        const KvPrefix* prefix) {
  Ort::MemoryInfo memory = Ort::MemoryInfo::CreateCpu(OrtArenaAllocator, OrtMemTypeDefault);
  BoundInputs bound;
  bound.zeros.assign(padded.input_ids.size(), 0);
  size_t past_index = 0;
  for (const InputPlan& plan : signature.inputs) {
    bound.names.push_back(plan.tensor.name.c_str());
    if (plan.role == InputRole::kPastKeyValue || plan.role == InputRole::kPastStacked) {
      if (prefix == nullptr) {
        bound.values.push_back(empty_past(plan, padded.rows));
      } else {
        bound.values.push_back(prefix->on_device ? Ort::Value(nullptr) : broadcast_prefix(prefix->values.at(past_index), plan, padded.rows));
      }
      ++past_index;
      continue;
    }
    std::vector<int64_t> shape{padded.rows, padded.max_length};
    const std::vector<int64_t>* source = &bound.zeros;
    switch (plan.role) {
      case InputRole::kTokenIds: source = &padded.input_ids; break;
      case InputRole::kAttentionMask:
        source = &padded.attention_mask;
        shape[1] = padded.past_length + padded.max_length;
        break;
      case InputRole::kPositionIds: source = &padded.position_ids; break;
      case InputRole::kLogitPositions:
        source = &gather_positions;
        shape = {static_cast<int64_t>(gather_positions.size())};
        break;
      default: break;
    }
    if (plan.tensor.type == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64 || plan.role == InputRole::kLogitPositions) {
      // ORT only reads inputs; the const_cast is the C API's signature, not a write.
      bound.values.push_back(Ort::Value::CreateTensor<int64_t>(memory, const_cast<int64_t*>(source->data()), source->size(),
                                                               shape.data(), shape.size()));
    } else {
      auto& narrowed = bound.int32_buffers.emplace_back(source->begin(), source->end());
      bound.values.push_back(Ort::Value::CreateTensor<int32_t>(memory, narrowed.data(), narrowed.size(), shape.data(), shape.size()));
    }
  }
  return bound;
}

}  // namespace mlrb
