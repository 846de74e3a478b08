#include "initializer_overrides.h"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string_view>

namespace mlrb::graph {

namespace {

// The `name` field of a TensorProto or ValueInfoProto (field numbers differ, so the caller says which).
std::optional<std::string_view> name_of(Bytes message, uint32_t name_field) {
  std::optional<std::string_view> name;
  for_each_field(message, [&](const Field& part) {
    if (part.number == name_field) name = as_text(part.payload);
  });
  return name;
}

ProtoBuilder tensor_of(const InitializerOverride& override_tensor) {
  ProtoBuilder tensor;
  for (const int64_t dim : override_tensor.dims) tensor.varint_field(TensorProto::kDims, static_cast<uint64_t>(dim));
  tensor.varint_field(TensorProto::kDataType, static_cast<uint64_t>(override_tensor.element_type));
  tensor.string_field(TensorProto::kName, override_tensor.name);
  tensor.bytes_field(TensorProto::kRawData, Bytes(override_tensor.raw.data(), override_tensor.raw.size()));
  return tensor;
}

}  // namespace

Pieces with_overrides(const Pieces& graph, std::span<const InitializerOverride> overrides) {
  const auto find = [&](std::optional<std::string_view> name) {
    return name ? std::find_if(overrides.begin(), overrides.end(), [&](const InitializerOverride& entry) { return entry.name == *name; })
                : overrides.end();
  };
  std::vector<bool> used(overrides.size(), false);
  Pieces pieces;
  for (const Bytes span : graph.spans()) {
    for_each_field(span, [&](const Field& part) {
      if (part.number == GraphProto::kInitializer) {
        const auto found = find(name_of(part.payload, TensorProto::kName));
        if (found != overrides.end()) {
          used[static_cast<size_t>(found - overrides.begin())] = true;
          pieces.own(GraphProto::kInitializer, tensor_of(*found));
          return;
        }
      } else if ((part.number == GraphProto::kInput || part.number == GraphProto::kValueInfo) &&
                 find(name_of(part.payload, ValueInfoProto::kName)) != overrides.end()) {
        return;  // it states the stored shape; the initializer alone now says what the value is
      }
      pieces.view(part.encoded);
    });
  }
  for (size_t i = 0; i < overrides.size(); ++i) {
    if (!used[i]) throw std::invalid_argument("the graph has no initializer named '" + overrides[i].name + "' to replace");
  }
  return pieces;
}

}  // namespace mlrb::graph
