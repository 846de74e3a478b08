// Host tensors the decoding and encoder-decoder passes feed ORT: small inputs (token ids, masks, a flag) as copies
// the tensor owns, so a pass's inputs carry no lifetimes; large ones (KV, encoder states) as views; and the slices
// a batch keeps when rows finish.
#pragma once

#include <cstdint>
#include <vector>

#include "ort_api.h"

namespace mlrb {

// `values` as a [shape] tensor of `type` (int64, or int32 narrowed from the int64 values).
[[nodiscard]] Ort::Value owned_ids(const std::vector<int64_t>& values, const std::vector<int64_t>& shape, ONNXTensorElementDataType type);

// A bool [1] tensor.
[[nodiscard]] Ort::Value owned_flag(bool value);

// A [rows, heads, 0, head_dim] tensor: a past with no positions (a merged decoder's first pass ignores it).
[[nodiscard]] Ort::Value empty_kv(ONNXTensorElementDataType type, int64_t rows, int64_t heads, int64_t head_dim);

// A non-owning view of a host tensor, to hand to ORT as an input (ORT only reads inputs).
[[nodiscard]] Ort::Value tensor_view(Ort::Value& tensor);

// Positions [start, start + count) along `axis`: how a generation sheds the encoder padding (states, mask,
// cross-attention KV) that no remaining prompt needs.
[[nodiscard]] Ort::Value position_range(const Ort::Value& tensor, int axis, int64_t start, int64_t count);

}  // namespace mlrb
