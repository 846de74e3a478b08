#include "external_weights.h"

#include <optional>
#include <string_view>

namespace mlrb::graph {

namespace {

ProtoBuilder entry(std::string_view key, std::string_view value) {
  ProtoBuilder built;
  built.string_field(onnx::StringStringEntryProto::kKey, key).string_field(onnx::StringStringEntryProto::kValue, value);
  return built;
}

// The raw_data payload of an initializer, when it is the weight's only data and lies inside the file.
std::optional<Bytes> raw_weight_in(Bytes tensor, Bytes file) {
  std::optional<Bytes> raw;
  bool located_elsewhere = false;
  for_each_field(tensor, [&](const Field& part) {
    if (part.number == TensorProto::kRawData) raw = part.payload;
    if (part.number == TensorProto::kDataLocation && part.varint != TensorProto::kLocationDefault) located_elsewhere = true;
  });
  if (!raw || located_elsewhere || raw->size() < kExternalizeMinBytes) return std::nullopt;
  const bool inside = raw->data() >= file.data() && raw->data() + raw->size() <= file.data() + file.size();
  return inside ? raw : std::nullopt;
}

// The TensorProto with raw_data replaced by a reference to the same bytes in the file.
ProtoBuilder as_external(Bytes tensor, Bytes raw, const ModelFile& file) {
  ProtoBuilder rewritten;
  for_each_field(tensor, [&](const Field& part) {
    if (part.number != TensorProto::kRawData) rewritten.raw(part.encoded);
  });
  const auto offset = static_cast<uint64_t>(raw.data() - file.bytes.data());
  rewritten.message_field(TensorProto::kExternalData, entry("location", *file.name));
  rewritten.message_field(TensorProto::kExternalData, entry("offset", std::to_string(offset)));
  rewritten.message_field(TensorProto::kExternalData, entry("length", std::to_string(raw.size())));
  rewritten.varint_field(TensorProto::kDataLocation, TensorProto::kLocationExternal);
  return rewritten;
}

}  // namespace

Pieces with_external_weights(const GraphView& graph, const ModelFile& file) {
  Pieces pieces;
  for (const Field& part : graph.fields) {
    const bool initializer = part.number == GraphProto::kInitializer && file.name;
    const std::optional<Bytes> raw = initializer ? raw_weight_in(part.payload, file.bytes) : std::nullopt;
    if (raw) {
      pieces.own(GraphProto::kInitializer, as_external(part.payload, *raw, file));
    } else {
      pieces.view(part.encoded);
    }
  }
  return pieces;
}

bool has_external_data(const GraphView& graph) {
  for (const Field& part : graph.fields) {
    if (part.number != GraphProto::kInitializer) continue;
    bool external = false;
    for_each_field(part.payload, [&](const Field& tensor) {
      external = external || (tensor.number == TensorProto::kDataLocation && tensor.varint == TensorProto::kLocationExternal);
    });
    if (external) return true;
  }
  return false;
}

}  // namespace mlrb::graph
