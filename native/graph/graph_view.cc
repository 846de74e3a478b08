#include "graph_view.h"

#include <algorithm>
#include <optional>

namespace mlrb::graph {

const std::vector<int64_t>& NodeView::ints(const std::string& name) const {
  static const std::vector<int64_t> kAbsent;
  const auto found = int_list_attributes.find(name);
  return found == int_list_attributes.end() ? kAbsent : found->second;
}

namespace {

NodeView read_node(Bytes payload) {
  NodeView node;
  node.payload = payload;
  FieldReader reader(payload);
  Field field;
  while (reader.next(field)) {
    switch (field.number) {
      case NodeProto::kInput: node.inputs.emplace_back(as_text(field.payload)); break;
      case NodeProto::kOutput: node.outputs.emplace_back(as_text(field.payload)); break;
      case NodeProto::kOpType: node.op_type = as_text(field.payload); break;
      case NodeProto::kDomain: node.domain = as_text(field.payload); break;
      case NodeProto::kAttribute: {
        std::string name;
        std::vector<int64_t> ints;
        std::optional<int64_t> single;
        for_each_field(field.payload, [&](const Field& part) {
          if (part.number == AttributeProto::kName) name = as_text(part.payload);
          if (part.number == AttributeProto::kInt) single = static_cast<int64_t>(part.varint);
          if (part.number == AttributeProto::kInts) {
            const auto more = int64s_of(part);
            ints.insert(ints.end(), more.begin(), more.end());
          }
        });
        if (single) node.int_attributes[name] = *single;
        if (!ints.empty()) node.int_list_attributes[name] = std::move(ints);
        break;
      }
      default: break;
    }
  }
  return node;
}

void read_initializer(Bytes payload, GraphView& view) {
  std::string name;
  std::vector<int64_t> dims;
  for_each_field(payload, [&](const Field& field) {
    if (field.number == TensorProto::kDims) {
      const auto more = int64s_of(field);
      dims.insert(dims.end(), more.begin(), more.end());
    } else if (field.number == TensorProto::kName) {
      name = as_text(field.payload);
    }
  });
  view.initializer_dims[name] = std::move(dims);
  view.initializer_payload[name] = payload;
}

// A Constant node's tensor, when it gives one through the `value` attribute (not value_float, value_ints ...).
std::optional<Bytes> constant_value_tensor(const NodeView& node) {
  if (node.op_type != "Constant" || !node.domain.empty() || node.outputs.size() != 1) return std::nullopt;
  std::optional<Bytes> tensor;
  for_each_field(node.payload, [&](const Field& field) {
    if (field.number != NodeProto::kAttribute) return;
    std::string name;
    std::optional<Bytes> value;
    for_each_field(field.payload, [&](const Field& part) {
      if (part.number == AttributeProto::kName) name = as_text(part.payload);
      if (part.number == AttributeProto::kTensor) value = part.payload;
    });
    if (name == "value" && value) tensor = value;
  });
  return tensor;
}

}  // namespace

ValueView read_value_view(Bytes value_info) {
  ValueView value;
  value.payload = value_info;
  for_each_field(value_info, [&](const Field& field) {
    if (field.number == ValueInfoProto::kName) value.name = as_text(field.payload);
    if (field.number != ValueInfoProto::kType) return;
    for_each_field(field.payload, [&](const Field& type) {
      if (type.number != TypeProto::kTensorType) return;
      for_each_field(type.payload, [&](const Field& tensor) {
        if (tensor.number == TensorTypeProto::kElemType) value.element_type = static_cast<int32_t>(tensor.varint);
        if (tensor.number != TensorTypeProto::kShape) return;
        for_each_field(tensor.payload, [&](const Field& dim) {
          if (dim.number == TensorShapeProto::kDim) value.dims.push_back(dim.payload);
        });
      });
    });
  });
  return value;
}

GraphView read_graph_view(Bytes graph) {
  return read_graph_view(std::span<const Bytes>(&graph, 1));
}

GraphView read_graph_view(std::span<const Bytes> pieces) {
  GraphView view;
  for (const Bytes piece : pieces) {
    FieldReader reader(piece);
    Field field;
    while (reader.next(field)) {
      view.fields.push_back(field);
      switch (field.number) {
        case GraphProto::kNode:
          view.node_field.push_back(view.fields.size() - 1);
          view.nodes.push_back(read_node(field.payload));
          break;
        case GraphProto::kInitializer: read_initializer(field.payload, view); break;
        case GraphProto::kInput: view.inputs.push_back(read_value_view(field.payload)); break;
        case GraphProto::kOutput: view.outputs.push_back(read_value_view(field.payload)); break;
        default: break;
      }
    }
  }
  for (size_t index = 0; index < view.nodes.size(); ++index) {
    for (const auto& output : view.nodes[index].outputs) view.producer[output] = index;
    for (const auto& input : view.nodes[index].inputs) view.consumers[input].push_back(index);
    if (const std::optional<Bytes> tensor = constant_value_tensor(view.nodes[index]))
      view.constant_node_payload[view.nodes[index].outputs[0]] = *tensor;
  }
  return view;
}

bool GraphView::is_graph_output(const std::string& name) const {
  return std::any_of(outputs.begin(), outputs.end(), [&](const ValueView& output) { return output.name == name; });
}

bool GraphView::name_in_use(const std::string& name) const {
  return producer.contains(name) || consumers.contains(name) || initializer_dims.contains(name) ||
         std::any_of(inputs.begin(), inputs.end(), [&](const ValueView& input) { return input.name == name; }) || is_graph_output(name);
}

}  // namespace mlrb::graph
