#include "generation_inputs.h"

#include <cstring>
#include <string>

#include "../core/error.h"
#include "element_types.h"
#include "host_tensors.h"

namespace mlrb {

BoundInputs bind_decode_inputs(const GraphSignature& signature, const DecodeFeed& feed, std::span<Ort::Value> past) {
  const TokenTensors tokens{feed.rows,          feed.length,          feed.past_length, &feed.input_ids, &feed.attention_mask,
                            &feed.position_ids, &feed.logit_positions};
  return bind_pass_inputs(signature, tokens, [&](const InputPlan& plan, size_t index) {
    if (past.empty()) return empty_past(plan, feed.rows);
    if (index >= past.size()) throw Error("INTERNAL", "the decoding KV cache has fewer tensors than the graph's past inputs");
    return tensor_view(past[index]);
  });
}

Ort::Value gather_batch_rows(const Ort::Value& tensor, int batch_axis, std::span<const int64_t> keep) {
  const auto info = tensor.GetTensorTypeAndShapeInfo();
  const std::vector<int64_t> source_shape = info.GetShape();
  const auto axis = static_cast<size_t>(batch_axis);
  if (axis >= source_shape.size()) throw Error("INTERNAL", "a KV tensor has no batch axis " + std::to_string(batch_axis));
  size_t outer = 1;
  for (size_t d = 0; d < axis; ++d) outer *= static_cast<size_t>(source_shape[d]);
  size_t row_bytes = element_bytes(info.GetElementType());
  for (size_t d = axis + 1; d < source_shape.size(); ++d) row_bytes *= static_cast<size_t>(source_shape[d]);
  std::vector<int64_t> shape = source_shape;
  shape[axis] = static_cast<int64_t>(keep.size());
  Ort::AllocatorWithDefaultOptions allocator;
  Ort::Value gathered = Ort::Value::CreateTensor(allocator, shape.data(), shape.size(), info.GetElementType());
  const auto* source = static_cast<const uint8_t*>(tensor.GetTensorRawData());
  auto* target = static_cast<uint8_t*>(gathered.GetTensorMutableRawData());
  const auto source_rows = static_cast<size_t>(source_shape[axis]);
  for (size_t o = 0; o < outer; ++o) {
    for (size_t k = 0; k < keep.size(); ++k) {
      std::memcpy(target + (o * keep.size() + k) * row_bytes, source + (o * source_rows + static_cast<size_t>(keep[k])) * row_bytes, row_bytes);
    }
  }
  return gathered;
}

Ort::Value drop_leading_positions(const Ort::Value& tensor, int sequence_axis, int64_t count) {
  const std::vector<int64_t> shape = tensor.GetTensorTypeAndShapeInfo().GetShape();
  const auto axis = static_cast<size_t>(sequence_axis);
  if (axis >= shape.size()) throw Error("INTERNAL", "a KV tensor has no sequence axis " + std::to_string(sequence_axis));
  return position_range(tensor, sequence_axis, count, shape[axis] - count);
}

}  // namespace mlrb
