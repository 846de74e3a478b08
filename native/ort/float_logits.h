// Logits as fp32, whatever the graph emits: the reductions always run on fp32 and accumulate in fp64, so
// half-precision logits (float16, bfloat16) are widened once into caller-owned storage.
#pragma once

#include <span>
#include <vector>

#include "ort_api.h"

namespace mlrb {

// The tensor's elements as floats: a view of its own data for float32, else of `storage`, filled here.
[[nodiscard]] std::span<const float> float_logits(const Ort::Value& logits, std::vector<float>& storage);

}  // namespace mlrb
