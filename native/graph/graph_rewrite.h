// Building blocks shared by the graph rewrites (rewrite_pass.h): nodes, attributes and value infos as
// protobuf builders, a graph assembled from verbatim spans of the original plus the few messages a rewrite
// adds, and the model around it.
#pragma once

#include <cstdint>
#include <deque>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graph_view.h"

namespace mlrb::graph {

[[nodiscard]] ProtoBuilder int_attribute(std::string_view name, int64_t value);
[[nodiscard]] ProtoBuilder float_attribute(std::string_view name, float value);
// A NodeProto without attributes; add them with message_field(NodeProto::kAttribute, ...).
[[nodiscard]] ProtoBuilder node(std::initializer_list<std::string_view> inputs, std::string_view output, std::string_view op_type,
                                std::string_view domain = {}, std::string_view name = {});
// The node with its inputs replaced by `inputs`; every other field verbatim.
[[nodiscard]] ProtoBuilder with_inputs(const NodeView& node, const std::vector<std::string>& inputs);
[[nodiscard]] ProtoBuilder tensor_value_info(std::string_view name, int64_t element_type, const std::vector<ProtoBuilder>& dims);
[[nodiscard]] ProtoBuilder symbolic_dim(std::string_view name);
[[nodiscard]] ProtoBuilder opset_import(std::string_view domain, int64_t version);
// A one-dimensional int64 TensorProto named `name`, for a graph's initializer list.
[[nodiscard]] ProtoBuilder int64_initializer(std::string_view name, const std::vector<int64_t>& values);
// A rank-0 int64 TensorProto (a Range bound, say).
[[nodiscard]] ProtoBuilder int64_scalar_initializer(std::string_view name, int64_t value);

// The value of a scalar (or one-element) float initializer; nullopt for anything else.
[[nodiscard]] std::optional<float> scalar_float(const GraphView& view, const std::string& name);
// The dims of a constant (an initializer or a Constant node's tensor); nullopt for anything else.
[[nodiscard]] std::optional<std::vector<int64_t>> constant_dims(const GraphView& view, const std::string& name);
// The values of an int64 initializer (shapes, axes); nullopt for anything else.
[[nodiscard]] std::optional<std::vector<int64_t>> int64_values(const GraphView& view, const std::string& name);

// A message as a list of pieces: spans of the original model for every field copied verbatim, small owned
// buffers for what the rewrite adds.
class Pieces {
 public:
  void view(Bytes bytes);
  void own(uint32_t number, const ProtoBuilder& message);
  [[nodiscard]] uint64_t size() const { return size_; }
  // The pieces in order; each is one or more whole fields of the message.
  [[nodiscard]] const std::vector<Bytes>& spans() const { return pieces_; }
  void append_to(ProtoBuilder& out) const;

 private:
  std::deque<std::vector<uint8_t>> owned_;  // deque: earlier buffers never move
  std::vector<Bytes> pieces_;
  uint64_t size_ = 0;
};

// A ModelProto split into its fields, with the graph's bytes found.
struct ModelParts {
  std::vector<Field> fields;
  std::optional<Bytes> graph;
};
// Throws MalformedProto.
[[nodiscard]] ModelParts read_model_parts(Bytes model);
// The version of the default ONNX domain the model imports; 0 when it names none.
[[nodiscard]] int64_t default_opset_version(const ModelParts& model);

// The model with its graph replaced and extra opset imports appended; every other field verbatim.
[[nodiscard]] std::vector<uint8_t> assemble_model(const ModelParts& model, const Pieces& graph, const std::vector<ProtoBuilder>& extra_opsets = {});

}  // namespace mlrb::graph
