// A light, read-only view of an ONNX GraphProto held in memory: node wiring, initializer shapes and the
// graph's inputs and outputs, each with the field it came from. Weight bytes are never decoded or copied;
// the view points into the caller's buffer, which must outlive it.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "onnx_terms.h"

namespace mlrb::graph {

struct NodeView {
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  std::string op_type;
  std::string domain;
  std::unordered_map<std::string, int64_t> int_attributes;                    // single-int attributes (axis, to, ...)
  std::unordered_map<std::string, std::vector<int64_t>> int_list_attributes;  // ints attributes (perm, axes, ...)
  Bytes payload;                                                              // the NodeProto's bytes

  // An ints attribute, empty when absent (Transpose's perm, ReduceMean's axes).
  [[nodiscard]] const std::vector<int64_t>& ints(const std::string& name) const;
};

struct ValueView {
  std::string name;
  int32_t element_type = 0;
  std::vector<Bytes> dims;  // each TensorShapeProto.Dimension's bytes
  Bytes payload;
};

struct GraphView {
  std::vector<Field> fields;  // every field of the GraphProto, in order
  std::vector<NodeView> nodes;
  std::vector<size_t> node_field;  // nodes[i] came from fields[node_field[i]]
  std::unordered_map<std::string, std::vector<int64_t>> initializer_dims;
  std::unordered_map<std::string, Bytes> initializer_payload;  // each TensorProto's bytes
  // The TensorProto of each Constant node's `value` attribute, by the node's output. The TorchScript exporter
  // writes small constants (scales, shapes, axes) as Constant nodes where the dynamo exporter writes
  // initializers; rewrites that read a constant's value look in both (graph_rewrite.h).
  std::unordered_map<std::string, Bytes> constant_node_payload;
  std::vector<ValueView> inputs;
  std::vector<ValueView> outputs;
  std::unordered_map<std::string, size_t> producer;                // value name -> node index
  std::unordered_map<std::string, std::vector<size_t>> consumers;  // value name -> node indices

  [[nodiscard]] bool is_graph_output(const std::string& name) const;
  [[nodiscard]] bool name_in_use(const std::string& name) const;
};

// Throws MalformedProto.
[[nodiscard]] GraphView read_graph_view(Bytes graph);
// The same over a graph held as pieces (graph_rewrite.h's Pieces): each piece is one or more whole
// GraphProto fields, in order, so a rewritten graph is indexed without being copied into one buffer.
[[nodiscard]] GraphView read_graph_view(std::span<const Bytes> pieces);
[[nodiscard]] ValueView read_value_view(Bytes value_info);

}  // namespace mlrb::graph
