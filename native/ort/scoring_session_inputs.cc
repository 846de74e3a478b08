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

}  // namespace

bool is_past_input(const InputPlan& plan) {
  return plan.role == InputRole::kPastKeyValue || plan.role == InputRole::kPastStacked;
}

Ort::Value empty_past(const InputPlan& plan, int64_t rows) {
  Ort::AllocatorWithDefaultOptions allocator;
  std::vector<int64_t> shape = plan.empty_past_shape;
  shape[static_cast<size_t>(plan.batch_axis)] = rows;
  return Ort::Value::CreateTensor(allocator, shape.data(), shape.size(), plan.tensor.type);
}

namespace {

void bind_token_input(const InputPlan& plan, const TokenTensors& tokens, BoundInputs& bound) {
  const Ort::MemoryInfo memory = Ort::MemoryInfo::CreateCpu(OrtArenaAllocator, OrtMemTypeDefault);
  bound.names.push_back(plan.tensor.name.c_str());
  std::vector<int64_t> shape{tokens.rows, tokens.length};
  const std::vector<int64_t>* source = nullptr;
  switch (plan.role) {
    case InputRole::kTokenIds: source = tokens.input_ids; break;
    case InputRole::kAttentionMask:
      source = tokens.attention_mask;
      shape[1] = tokens.past_length + tokens.length;
      break;
    case InputRole::kPositionIds: source = tokens.position_ids; break;
    case InputRole::kLogitPositions:
      source = tokens.logit_positions;
      shape = {tokens.logit_positions != nullptr ? static_cast<int64_t>(tokens.logit_positions->size()) : 0};
      break;
    case InputRole::kTokenTypeIds:
      // One token-type input per graph at most, so the zeros are sized once and never reallocated under a tensor.
      if (bound.zeros.empty()) bound.zeros.assign(static_cast<size_t>(tokens.rows * tokens.length), 0);
      source = &bound.zeros;
      break;
    case InputRole::kPastKeyValue:
    case InputRole::kPastStacked: throw Error("INTERNAL", "bind_token_input() was given the past input " + plan.tensor.name);
  }
  if (source == nullptr) throw Error("INTERNAL", "no values were given for the input " + plan.tensor.name);
  if (plan.tensor.type == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64 || plan.role == InputRole::kLogitPositions) {
    // ORT only reads inputs; the const_cast is the C API's signature, not a write.
    bound.values.push_back(
        Ort::Value::CreateTensor<int64_t>(memory, const_cast<int64_t*>(source->data()), source->size(), shape.data(), shape.size()));
  } else {
    auto& narrowed = bound.int32_buffers.emplace_back(source->begin(), source->end());
    bound.values.push_back(Ort::Value::CreateTensor<int32_t>(memory, narrowed.data(), narrowed.size(), shape.data(), shape.size()));
  }
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

BoundInputs bind_pass_inputs(const GraphSignature& signature, const TokenTensors& tokens,
                             const std::function<Ort::Value(const InputPlan&, size_t)>& past_value) {
  BoundInputs bound;
  size_t past_index = 0;
  for (const InputPlan& plan : signature.inputs) {
    if (is_past_input(plan)) {
      bound.names.push_back(plan.tensor.name.c_str());
      bound.values.push_back(past_value(plan, past_index++));
    } else {
      bind_token_input(plan, tokens, bound);
    }
  }
  return bound;
}

BoundInputs bind_inputs(const GraphSignature& signature, const PaddedInputs& padded, const std::vector<int64_t>& gather_positions,
                        const KvPrefix* prefix) {
  const TokenTensors tokens{padded.rows,          padded.max_length, padded.past_length, &padded.input_ids, &padded.attention_mask,
                            &padded.position_ids, &gather_positions};
  return bind_pass_inputs(signature, tokens, [&](const InputPlan& plan, size_t index) {
    if (prefix == nullptr) return empty_past(plan, padded.rows);
    return prefix->on_device ? Ort::Value(nullptr) : broadcast_prefix(prefix->values.at(index), plan, padded.rows);
  });
}

}  // namespace mlrb
