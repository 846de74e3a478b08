#include "graph_rewrite.h"

#include <bit>
#include <cstring>

#include "../onnx/data_types.h"

namespace mlrb::graph {

ProtoBuilder int_attribute(std::string_view name, int64_t value) {
  ProtoBuilder attribute;
  attribute.string_field(AttributeProto::kName, name)
      .varint_field(AttributeProto::kInt, static_cast<uint64_t>(value))
      .varint_field(AttributeProto::kType, AttributeProto::kTypeInt);
  return attribute;
}

ProtoBuilder float_attribute(std::string_view name, float value) {
  ProtoBuilder attribute;
  attribute.string_field(AttributeProto::kName, name).fixed32_field(AttributeProto::kFloat, std::bit_cast<uint32_t>(value));
  attribute.varint_field(AttributeProto::kType, AttributeProto::kTypeFloat);
  return attribute;
}

ProtoBuilder node(std::initializer_list<std::string_view> inputs, std::string_view output, std::string_view op_type, std::string_view domain,
                  std::string_view name) {
  ProtoBuilder built;
  for (std::string_view input : inputs) built.string_field(NodeProto::kInput, input);
  built.string_field(NodeProto::kOutput, output);
  built.string_field(NodeProto::kName, name.empty() ? std::string("mlrb_") + std::string(op_type) : std::string(name));
  built.string_field(NodeProto::kOpType, op_type);
  if (!domain.empty()) built.string_field(NodeProto::kDomain, domain);
  return built;
}

ProtoBuilder with_inputs(const NodeView& node, const std::vector<std::string>& inputs) {
  ProtoBuilder rewired;
  for (const std::string& input : inputs) rewired.string_field(NodeProto::kInput, input);
  FieldReader reader(node.payload);
  Field part;
  while (reader.next(part)) {
    if (part.number != NodeProto::kInput) rewired.raw(part.encoded);
  }
  return rewired;
}

ProtoBuilder tensor_value_info(std::string_view name, int64_t element_type, const std::vector<ProtoBuilder>& dims) {
  ProtoBuilder shape;
  for (const auto& dim : dims) shape.message_field(TensorShapeProto::kDim, dim);
  ProtoBuilder tensor;
  tensor.varint_field(TensorTypeProto::kElemType, static_cast<uint64_t>(element_type)).message_field(TensorTypeProto::kShape, shape);
  ProtoBuilder type;
  type.message_field(TypeProto::kTensorType, tensor);
  ProtoBuilder value;
  value.string_field(ValueInfoProto::kName, name).message_field(ValueInfoProto::kType, type);
  return value;
}

ProtoBuilder symbolic_dim(std::string_view name) {
  ProtoBuilder dim;
  dim.string_field(DimensionProto::kDimParam, name);
  return dim;
}

ProtoBuilder opset_import(std::string_view domain, int64_t version) {
  ProtoBuilder opset;
  opset.string_field(OperatorSetIdProto::kDomain, domain).varint_field(OperatorSetIdProto::kVersion, static_cast<uint64_t>(version));
  return opset;
}

ProtoBuilder int64_initializer(std::string_view name, const std::vector<int64_t>& values) {
  ProtoBuilder tensor;
  tensor.varint_field(TensorProto::kDims, values.size()).varint_field(TensorProto::kDataType, onnx::data_type::kInt64);
  for (const int64_t value : values)
    tensor.varint_field(TensorProto::kInt64Data, static_cast<uint64_t>(value));  // two's complement, as protobuf's int64
  tensor.string_field(TensorProto::kName, name);
  return tensor;
}

ProtoBuilder int64_scalar_initializer(std::string_view name, int64_t value) {
  ProtoBuilder tensor;
  tensor.varint_field(TensorProto::kDataType, onnx::data_type::kInt64).varint_field(TensorProto::kInt64Data, static_cast<uint64_t>(value));
  tensor.string_field(TensorProto::kName, name);
  return tensor;
}

namespace {

// The TensorProto holding a constant's value: an initializer, or a Constant node's `value` tensor.
std::optional<Bytes> constant_payload(const GraphView& view, const std::string& name) {
  if (const auto found = view.initializer_payload.find(name); found != view.initializer_payload.end()) return found->second;
  if (const auto found = view.constant_node_payload.find(name); found != view.constant_node_payload.end()) return found->second;
  return std::nullopt;
}

}  // namespace

std::optional<std::vector<int64_t>> constant_dims(const GraphView& view, const std::string& name) {
  if (const auto found = view.initializer_dims.find(name); found != view.initializer_dims.end()) return found->second;
  const auto payload = view.constant_node_payload.find(name);
  if (payload == view.constant_node_payload.end()) return std::nullopt;
  std::vector<int64_t> dims;
  for_each_field(payload->second, [&](const Field& part) {
    if (part.number != TensorProto::kDims) return;
    const std::vector<int64_t> more = int64s_of(part);
    dims.insert(dims.end(), more.begin(), more.end());
  });
  return dims;
}

std::optional<float> scalar_float(const GraphView& view, const std::string& name) {
  const std::optional<Bytes> payload = constant_payload(view, name);
  if (!payload) return std::nullopt;
  int64_t data_type = 0;
  bool one_element = true;
  std::optional<float> value;
  for_each_field(*payload, [&](const Field& part) {
    if (part.number == TensorProto::kDims) {
      for (const int64_t dim : int64s_of(part)) one_element = one_element && dim == 1;
    }
    if (part.number == TensorProto::kDataType) data_type = static_cast<int64_t>(part.varint);
    if ((part.number == TensorProto::kRawData || part.number == TensorProto::kFloatData) && part.payload.size() == sizeof(float)) {
      float decoded = 0.0F;
      std::memcpy(&decoded, part.payload.data(), sizeof(float));  // little-endian, as ONNX stores it
      value = decoded;
    }
  });
  return data_type == onnx::data_type::kFloat && one_element ? value : std::nullopt;
}

std::optional<std::vector<int64_t>> int64_values(const GraphView& view, const std::string& name) {
  const std::optional<Bytes> payload = constant_payload(view, name);
  if (!payload) return std::nullopt;
  int64_t data_type = 0;
  std::vector<int64_t> values;
  bool malformed = false;
  for_each_field(*payload, [&](const Field& part) {
    if (part.number == TensorProto::kDataType) data_type = static_cast<int64_t>(part.varint);
    if (part.number == TensorProto::kRawData) {
      if (part.payload.size() % sizeof(int64_t) != 0) malformed = true;
      for (size_t at = 0; at + sizeof(int64_t) <= part.payload.size(); at += sizeof(int64_t)) {
        int64_t value = 0;
        std::memcpy(&value, part.payload.data() + at, sizeof(value));
        values.push_back(value);
      }
    }
    if (part.number == TensorProto::kInt64Data) {
      const std::vector<int64_t> more = int64s_of(part);
      values.insert(values.end(), more.begin(), more.end());
    }
  });
  if (data_type != onnx::data_type::kInt64 || malformed) return std::nullopt;
  return values;
}

void Pieces::view(Bytes bytes) {
  pieces_.push_back(bytes);
  size_ += bytes.size();
}

void Pieces::own(uint32_t number, const ProtoBuilder& message) {
  ProtoBuilder field_bytes;
  field_bytes.message_field(number, message);
  owned_.push_back(field_bytes.release());
  view(owned_.back());
}

void Pieces::append_to(ProtoBuilder& out) const {
  for (const Bytes piece : pieces_) out.raw(piece);
}

ModelParts read_model_parts(Bytes model) {
  ModelParts parts;
  for_each_field(model, [&](const Field& part) {
    parts.fields.push_back(part);
    if (part.number == ModelProto::kGraph) parts.graph = part.payload;
  });
  return parts;
}

int64_t default_opset_version(const ModelParts& model) {
  int64_t version = 0;
  for (const Field& part : model.fields) {
    if (part.number != ModelProto::kOpsetImport) continue;
    std::string_view domain;
    int64_t declared = 0;
    for_each_field(part.payload, [&](const Field& opset) {
      if (opset.number == OperatorSetIdProto::kDomain) domain = as_text(opset.payload);
      if (opset.number == OperatorSetIdProto::kVersion) declared = static_cast<int64_t>(opset.varint);
    });
    if (domain.empty() || domain == "ai.onnx") version = declared;
  }
  return version;
}

std::vector<uint8_t> assemble_model(const ModelParts& model, const Pieces& graph, const std::vector<ProtoBuilder>& extra_opsets) {
  ProtoBuilder rewritten;
  uint64_t size = graph.size() + 16;
  for (const Field& part : model.fields) size += part.number == ModelProto::kGraph ? 0 : part.encoded.size();
  for (const ProtoBuilder& opset : extra_opsets) size += opset.bytes().size() + 8;
  rewritten.reserve(static_cast<size_t>(size));
  for (const Field& part : model.fields) {
    if (part.number != ModelProto::kGraph) {
      rewritten.raw(part.encoded);
      continue;
    }
    rewritten.length_delimited_header(ModelProto::kGraph, graph.size());
    graph.append_to(rewritten);
  }
  for (const ProtoBuilder& opset : extra_opsets) rewritten.message_field(ModelProto::kOpsetImport, opset);
  return rewritten.release();
}

}  // namespace mlrb::graph
