// Parses GraphProto (nodes, initializers, inputs, outputs), descending into subgraphs held by node
// attributes (If / Loop / Scan bodies) and into model-local functions, so no node or tensor hides there.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model_info.h"
#include "proto_wire.h"
#include "tensor_proto.h"

namespace mlrb::onnx {

// Everything found across the main graph, its subgraphs and the model's functions.
struct GraphContents {
  std::string main_graph_name;
  std::vector<ParsedTensor> tensors;
  std::vector<NodeInfo> nodes;
  std::vector<ValueInfo> inputs;   // main graph only
  std::vector<ValueInfo> outputs;  // main graph only
};

// `graph` lies inside `file`, the whole mapped model (tensor payloads are recorded by their offset in it).
// `label` is "" for the main graph and names the owner of a subgraph otherwise. Throws MalformedProto.
void read_graph(Bytes graph, Bytes file, const std::string& label, int depth, GraphContents& contents);

// A FunctionProto's nodes, labelled "function:<domain>.<name>". Throws MalformedProto.
void read_function(Bytes function, Bytes file, GraphContents& contents);

}  // namespace mlrb::onnx
