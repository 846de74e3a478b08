// How the exporters name a decoder's past key/value inputs: one rule for the signature (ort/graph_signature.h)
// and the load-time rewrites that must recognise them (graph/decode_cache.h).
#pragma once

#include <algorithm>
#include <string_view>

namespace mlrb::onnx {

enum class PastInputNaming {
  kNone,
  kKeyValue,  // optimum: past_key_values.{i}.key / .value
  kStacked,   // ORT's GPT-2 export: past_{i}, keys and values stacked
};

inline PastInputNaming past_input_naming(std::string_view name) {
  constexpr std::string_view kKeyValuePrefix = "past_key_values.";
  if (name.starts_with(kKeyValuePrefix) && (name.ends_with(".key") || name.ends_with(".value"))) return PastInputNaming::kKeyValue;
  constexpr std::string_view kStackedPrefix = "past_";
  const std::string_view index = name.substr(std::min(name.size(), kStackedPrefix.size()));
  if (name.starts_with(kStackedPrefix) && !index.empty() && std::all_of(index.begin(), index.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return PastInputNaming::kStacked;
  }
  return PastInputNaming::kNone;
}

}  // namespace mlrb::onnx
