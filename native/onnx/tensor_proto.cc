#include "tensor_proto.h"

#include "schema.h"

namespace mlrb::onnx {

namespace {

// Counts the elements of a typed payload field without keeping them; these payloads are small in practice
// (exporters put weights in raw_data), so walking the varint ones is cheap.
uint64_t count_typed_elements(const Field& field) {
  if (field.wire != Wire::kLengthDelimited) return 1;  // one element written unpacked
  switch (field.number) {
    case TensorProto::kStringData: return 1;  // one entry per element, never packed
    case TensorProto::kFloatData: return field.payload.size() / 4;
    case TensorProto::kDoubleData: return field.payload.size() / 8;
    default: return count_packed_varints(field.payload);  // int32_data, int64_data, uint64_data
  }
}

uint64_t parse_byte_count(const Field& entry, const std::string& key, std::string_view text, const std::string& tensor_name) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string_view::npos || text.size() > 19) {
    throw MalformedProto("external_data " + key + " '" + std::string(text) + "' of tensor '" + tensor_name + "' is not a byte count",
                         entry.encoded.data());
  }
  return std::stoull(std::string(text));
}

void read_external_entry(const Field& entry, ParsedTensor& tensor) {
  std::string key;
  std::string_view value;
  for_each_field(message_of(entry, "TensorProto.external_data"), [&](const Field& part) {
    if (part.number == StringStringEntryProto::kKey && part.wire == Wire::kLengthDelimited) key = as_text(part.payload);
    if (part.number == StringStringEntryProto::kValue && part.wire == Wire::kLengthDelimited) value = as_text(part.payload);
  });
  if (key == "location") tensor.external_location = value;
  else if (key == "offset") tensor.external_offset = parse_byte_count(entry, key, value, tensor.info.name);
  else if (key == "length") tensor.external_length = parse_byte_count(entry, key, value, tensor.info.name);
  // "checksum" and unknown keys carry nothing the inspection needs.
}

}  // namespace

ParsedTensor read_tensor(Bytes message, Bytes file) {
  ParsedTensor tensor;
  TensorInfo& info = tensor.info;
  for_each_field(message, [&](const Field& field) {
    switch (field.number) {
      case TensorProto::kDims: {
        const std::vector<int64_t> dims = int64s_of(field);
        info.dims.insert(info.dims.end(), dims.begin(), dims.end());
        break;
      }
      case TensorProto::kDataType: info.data_type = static_cast<int32_t>(varint_of(field, "TensorProto.data_type")); break;
      case TensorProto::kName: info.name = text_of(field, "TensorProto.name"); break;
      case TensorProto::kRawData:
        if (field.wire != Wire::kLengthDelimited) throw MalformedProto("TensorProto.raw_data is not bytes", field.encoded.data());
        // Only where the weights are is recorded: the payload span is never dereferenced here.
        tensor.has_raw_data = true;
        info.offset = static_cast<uint64_t>(field.payload.data() - file.data());
        info.length = field.payload.size();
        break;
      case TensorProto::kFloatData:
      case TensorProto::kInt32Data:
      case TensorProto::kStringData:
      case TensorProto::kInt64Data:
      case TensorProto::kDoubleData:
      case TensorProto::kUint64Data:
        tensor.typed_element_count += count_typed_elements(field);
        tensor.has_typed_data = true;
        if (field.number == TensorProto::kStringData && field.wire == Wire::kLengthDelimited) tensor.string_bytes += field.payload.size();
        break;
      case TensorProto::kExternalData: read_external_entry(field, tensor); break;
      case TensorProto::kDataLocation:
        tensor.marked_external = varint_of(field, "TensorProto.data_location") == TensorProto::kLocationExternal;
        break;
      default: break;
    }
  });
  return tensor;
}

ParsedTensor read_sparse_tensor(Bytes message, Bytes file) {
  ParsedTensor values;
  std::vector<int64_t> dense_dims;
  for_each_field(message, [&](const Field& field) {
    if (field.number == SparseTensorProto::kValues && field.wire == Wire::kLengthDelimited) {
      values = read_tensor(field.payload, file);
    } else if (field.number == SparseTensorProto::kDims) {
      const std::vector<int64_t> dims = int64s_of(field);
      dense_dims.insert(dense_dims.end(), dims.begin(), dims.end());
    }
    // indices: their size does not change what ONNX Runtime holds in memory
  });
  ParsedTensor dense;
  dense.info.name = values.info.name;
  dense.info.data_type = values.info.data_type;
  dense.info.dims = std::move(dense_dims);
  dense.info.source = TensorSource::sparse_initializer;
  dense.densified = true;
  return dense;
}

}  // namespace mlrb::onnx
