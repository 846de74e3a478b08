#include "graph_proto.h"

#include <optional>

#include "data_types.h"
#include "schema.h"

namespace mlrb::onnx {

namespace {

// Deeper nesting than this is a corrupt or hostile file, not a real model.
constexpr int kMaxGraphDepth = 32;

void read_dimension(Bytes message, ValueInfo& value) {
  ValueDimension dimension;
  for_each_field(message, [&](const Field& field) {
    if (field.number == DimensionProto::kDimValue && field.wire == Wire::kVarint) {
      dimension.is_value = true;
      dimension.value = static_cast<int64_t>(field.varint);
    } else if (field.number == DimensionProto::kDimParam) {
      dimension.param = text_of(field, "Dimension.dim_param");
    }
  });
  value.shape.push_back(std::move(dimension));
}

// TypeProto → only tensor_type is described; sequences and maps keep elem_type 0.
void read_value_type(Bytes message, ValueInfo& value) {
  for_each_field(message, [&](const Field& type) {
    if (type.number != TypeProto::kTensorType || type.wire != Wire::kLengthDelimited) return;
    for_each_field(type.payload, [&](const Field& tensor) {
      if (tensor.number == TensorTypeProto::kElemType && tensor.wire == Wire::kVarint) {
        value.elem_type = static_cast<int32_t>(tensor.varint);
      } else if (tensor.number == TensorTypeProto::kShape && tensor.wire == Wire::kLengthDelimited) {
        value.has_shape = true;
        for_each_field(tensor.payload, [&](const Field& dim) {
          if (dim.number == TensorShapeProto::kDim && dim.wire == Wire::kLengthDelimited) read_dimension(dim.payload, value);
        });
      }
    });
  });
}

ValueInfo read_value_info(Bytes message) {
  ValueInfo value;
  for_each_field(message, [&](const Field& field) {
    if (field.number == ValueInfoProto::kName) value.name = text_of(field, "ValueInfoProto.name");
    else if (field.number == ValueInfoProto::kType && field.wire == Wire::kLengthDelimited) read_value_type(field.payload, value);
  });
  return value;
}

// Walks one graph (and, through node attributes, its subgraphs) into `contents`.
class GraphWalker {
 public:
  GraphWalker(Bytes file, GraphContents& contents) : file_(file), contents_(contents) {}

  void graph(Bytes message, const std::string& label, int depth) {
    if (depth > kMaxGraphDepth) throw MalformedProto("subgraphs nested more than " + std::to_string(kMaxGraphDepth) + " deep", message.data());
    const bool main_graph = depth == 0;
    for_each_field(message, [&](const Field& field) {
      if (field.wire != Wire::kLengthDelimited) return;
      switch (field.number) {
        case GraphProto::kNode: node(field.payload, label, depth); break;
        case GraphProto::kName:
          if (main_graph) contents_.main_graph_name = as_text(field.payload);
          break;
        case GraphProto::kInitializer:
        case GraphProto::kSparseInitializer: {
          ParsedTensor tensor =
              field.number == GraphProto::kInitializer ? read_tensor(field.payload, file_) : read_sparse_tensor(field.payload, file_);
          tensor.info.graph = label;
          contents_.tensors.push_back(std::move(tensor));
          break;
        }
        case GraphProto::kInput:
        case GraphProto::kOutput: {
          ValueInfo value = read_value_info(field.payload);
          if (main_graph) (field.number == GraphProto::kInput ? contents_.inputs : contents_.outputs).push_back(std::move(value));
          break;
        }
        default: break;
      }
    });
  }

  void node(Bytes message, const std::string& label, int depth) {
    NodeInfo node;
    node.graph = label;
    std::optional<ParsedTensor> constant_value;
    for_each_field(message, [&](const Field& field) {
      switch (field.number) {
        case NodeProto::kInput: node.inputs.emplace_back(text_of(field, "NodeProto.input")); break;
        case NodeProto::kOutput: node.outputs.emplace_back(text_of(field, "NodeProto.output")); break;
        case NodeProto::kName: node.name = text_of(field, "NodeProto.name"); break;
        case NodeProto::kOpType: node.op_type = text_of(field, "NodeProto.op_type"); break;
        case NodeProto::kDomain: node.domain = text_of(field, "NodeProto.domain"); break;
        case NodeProto::kAttribute: attribute(message_of(field, "NodeProto.attribute"), node, depth, constant_value); break;
        default: break;
      }
    });
    // A Constant node's tensor is a weight like any initializer (some exporters fold weights into them).
    if (constant_value && node.op_type == "Constant" && node.domain.empty() && !node.outputs.empty()) {
      constant_value->info.name = node.outputs.front();
      constant_value->info.source = TensorSource::constant_node;
      constant_value->info.graph = label;
      contents_.tensors.push_back(std::move(*constant_value));
    }
    contents_.nodes.push_back(std::move(node));
  }

 private:
  // The elements of a repeated INT, FLOAT or STRING attribute (packed or not), or of a single one, counted
  // without keeping them; strings also by their bytes, which is what they hold.
  struct ListCount {
    int32_t data_type;
    uint64_t elements = 0;
    uint64_t string_bytes = 0;

    // A list is a vector of its elements; a single value (value_int, value_float, value_string) a scalar.
    ParsedTensor as_tensor(bool scalar = false) const {
      ParsedTensor tensor;
      tensor.info.data_type = data_type;
      if (!scalar) tensor.info.dims = {static_cast<int64_t>(elements)};
      tensor.has_typed_data = true;
      tensor.typed_element_count = elements;
      tensor.string_bytes = string_bytes;
      return tensor;
    }
  };

  // AttributeProto: keeps INT values and a Constant's payload, and walks GRAPH(S) values. Fields are taken in
  // wire order, so a subgraph is labelled with the attribute's name when the name precedes it.
  void attribute(Bytes message, NodeInfo& node, int depth, std::optional<ParsedTensor>& constant_value) {
    std::string name;
    std::optional<int64_t> int_value;
    std::optional<ParsedTensor> tensor;
    ListCount ints{data_type::kInt64};
    ListCount floats{data_type::kFloat};
    ListCount strings{data_type::kString};
    ListCount single_string{data_type::kString};
    bool has_float = false;
    for_each_field(message, [&](const Field& field) {
      const bool delimited = field.wire == Wire::kLengthDelimited;
      if (field.number == AttributeProto::kName) {
        name = text_of(field, "AttributeProto.name");
      } else if (field.number == AttributeProto::kInt && field.wire == Wire::kVarint) {
        int_value = static_cast<int64_t>(field.varint);
      } else if (field.number == AttributeProto::kTensor && delimited) {
        tensor = read_tensor(field.payload, file_);
      } else if (field.number == AttributeProto::kSparseTensor && delimited) {
        tensor = read_sparse_tensor(field.payload, file_);
      } else if (field.number == AttributeProto::kInts) {
        ints.elements += delimited ? count_packed_varints(field.payload) : 1;
      } else if (field.number == AttributeProto::kFloat) {
        has_float = true;
      } else if (field.number == AttributeProto::kString && delimited) {
        single_string = ListCount{data_type::kString, 1, field.payload.size()};
      } else if (field.number == AttributeProto::kStrings && delimited) {
        strings.elements += 1;
        strings.string_bytes += field.payload.size();
      } else if (field.number == AttributeProto::kFloats) {
        floats.elements += delimited ? field.payload.size() / 4 : 1;
      } else if ((field.number == AttributeProto::kGraph || field.number == AttributeProto::kGraphs) && delimited) {
        const std::string owner = node.name.empty() ? node.op_type : node.name;
        const std::string parent = node.graph.empty() ? "" : node.graph + "/";
        graph(field.payload, parent + owner + "." + (name.empty() ? "graph" : name), depth + 1);
      }
    });
    if (int_value) node.int_attributes.emplace_back(name, *int_value);
    // Every form of Constant's value is stored data a weight can hide in: a tensor, a sparse tensor (ONNX Runtime
    // densifies it), the int / float / string lists, which become an int64 / float32 / string vector, and the single
    // int / float / string, which become scalars.
    if (tensor && (name == "value" || name == "sparse_value")) constant_value = std::move(tensor);
    else if (name == "value_ints") constant_value = ints.as_tensor();
    else if (name == "value_floats") constant_value = floats.as_tensor();
    else if (name == "value_strings") constant_value = strings.as_tensor();
    else if (name == "value_int" && int_value) constant_value = ListCount{data_type::kInt64, 1}.as_tensor(true);
    else if (name == "value_float" && has_float) constant_value = ListCount{data_type::kFloat, 1}.as_tensor(true);
    else if (name == "value_string" && single_string.elements == 1) constant_value = single_string.as_tensor(true);
  }

  Bytes file_;
  GraphContents& contents_;
};

}  // namespace

void read_graph(Bytes graph, Bytes file, const std::string& label, int depth, GraphContents& contents) {
  GraphWalker(file, contents).graph(graph, label, depth);
}

void read_function(Bytes function, Bytes file, GraphContents& contents) {
  std::string name;
  std::string domain;
  const size_t first_node = contents.nodes.size();
  const size_t first_tensor = contents.tensors.size();
  GraphWalker walker(file, contents);
  for_each_field(function, [&](const Field& field) {
    if (field.number == FunctionProto::kName) name = text_of(field, "FunctionProto.name");
    else if (field.number == FunctionProto::kDomain) domain = text_of(field, "FunctionProto.domain");
    else if (field.number == FunctionProto::kNode && field.wire == Wire::kLengthDelimited) walker.node(field.payload, "", 1);
  });
  // The name may follow the nodes on the wire, so the label is applied once the message is done.
  const std::string label = "function:" + (domain.empty() ? "" : domain + ".") + name;
  for (size_t index = first_node; index < contents.nodes.size(); ++index) {
    if (contents.nodes[index].graph.empty()) contents.nodes[index].graph = label;
  }
  for (size_t index = first_tensor; index < contents.tensors.size(); ++index) {
    if (contents.tensors[index].info.graph.empty()) contents.tensors[index].info.graph = label;
  }
}

}  // namespace mlrb::onnx
