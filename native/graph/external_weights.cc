#include "external_weights.h"

#include <filesystem>
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

bool names_external_data(Bytes tensor) {
  bool external = false;
  for_each_field(tensor, [&](const Field& part) {
    external = external || (part.number == TensorProto::kDataLocation && part.varint == TensorProto::kLocationExternal);
  });
  return external;
}

// The value of a StringStringEntryProto whose key is `key`.
std::optional<std::string_view> entry_value(Bytes entry_proto, std::string_view key) {
  std::optional<std::string_view> found_key;
  std::optional<std::string_view> value;
  for_each_field(entry_proto, [&](const Field& part) {
    if (part.number == onnx::StringStringEntryProto::kKey) found_key = as_text(part.payload);
    if (part.number == onnx::StringStringEntryProto::kValue) value = as_text(part.payload);
  });
  return found_key == key ? value : std::nullopt;
}

// The TensorProto with its external-data location named from the folder ORT is given rather than the model's.
ProtoBuilder relocated(Bytes tensor, const std::string& folder_in_root) {
  ProtoBuilder rewritten;
  for_each_field(tensor, [&](const Field& part) {
    const std::optional<std::string_view> location = part.number == TensorProto::kExternalData ? entry_value(part.payload, "location") : std::nullopt;
    if (location) {
      rewritten.message_field(TensorProto::kExternalData, entry("location", (std::filesystem::path(folder_in_root) / *location).string()));
    } else {
      rewritten.raw(part.encoded);
    }
  });
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
    } else if (part.number == GraphProto::kInitializer && !file.folder_in_root.empty() && names_external_data(part.payload)) {
      pieces.own(GraphProto::kInitializer, relocated(part.payload, file.folder_in_root));
    } else {
      pieces.view(part.encoded);
    }
  }
  return pieces;
}

bool has_external_data(const GraphView& graph) {
  for (const Field& part : graph.fields) {
    if (part.number == GraphProto::kInitializer && names_external_data(part.payload)) return true;
  }
  return false;
}

}  // namespace mlrb::graph
