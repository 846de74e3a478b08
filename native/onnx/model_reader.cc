#include "model_reader.h"

#include <filesystem>

#include "../core/error.h"
#include "file_handle.h"
#include "graph_budget.h"
#include "graph_proto.h"
#include "mapped_range.h"
#include "proto_wire.h"
#include "schema.h"
#include "tensor_payloads.h"

namespace mlrb::onnx {

namespace {

OpsetImport read_opset(Bytes message) {
  OpsetImport opset;
  for_each_field(message, [&](const Field& field) {
    if (field.number == OperatorSetIdProto::kDomain && field.wire == Wire::kLengthDelimited) opset.domain = as_text(field.payload);
    else if (field.number == OperatorSetIdProto::kVersion && field.wire == Wire::kVarint) opset.version = static_cast<int64_t>(field.varint);
  });
  return opset;
}

// The ModelProto's own fields; the graph and functions go to `contents`. False when it holds no graph.
bool read_model(Bytes file, ModelInfo& model, GraphContents& contents) {
  bool has_graph = false;
  for_each_field(file, [&](const Field& field) {
    const bool delimited = field.wire == Wire::kLengthDelimited;
    if (field.number == ModelProto::kIrVersion && field.wire == Wire::kVarint) {
      model.ir_version = static_cast<int64_t>(field.varint);
    } else if (field.number == ModelProto::kProducerName && delimited) {
      model.producer_name = as_text(field.payload);
    } else if (field.number == ModelProto::kProducerVersion && delimited) {
      model.producer_version = as_text(field.payload);
    } else if (field.number == ModelProto::kGraph && delimited) {
      has_graph = true;
      read_graph(field.payload, file, "", 0, contents);
    } else if (field.number == ModelProto::kOpsetImport && delimited) {
      model.opsets.push_back(read_opset(field.payload));
    } else if (field.number == ModelProto::kFunctions && delimited) {
      read_function(field.payload, file, contents);
    }
  });
  return has_graph;
}

}  // namespace

ModelInfo read_model_info(const std::string& path, const std::string& read_root) {
  ModelInfo model;
  model.path = std::filesystem::absolute(path).lexically_normal().string();
  const FileHandle file(model.path, "ONNX model");
  model.file_size = file.size();
  if (model.file_size == 0) throw Error("BAD_MODEL", model.path + " is empty, not an ONNX model");

  // Sparse access: the walk reads the metadata between weight payloads and steps over the payloads, so
  // a page fault should bring in its own page, not the weights around it.
  const MappedRange mapped(file, 0, static_cast<size_t>(file.size()), MappedRange::Access::sparse);
  const Bytes bytes = mapped.bytes();
  GraphContents contents;
  bool has_graph = false;
  // A file that shrank while it was walked read as zeros past its new end: that, not what the zeros
  // parsed as, is the error to report.
  try {
    check_graph_budget(bytes, model.path);
    has_graph = read_model(bytes, model, contents);
  } catch (const MalformedProto& error) {
    mapped.throw_if_damaged("its graph");
    throw Error("BAD_MODEL", model.path + " is truncated or not an ONNX model: " + error.what() + " at byte offset " +
                                 std::to_string(error.at() - bytes.data()) + " (file size " + std::to_string(file.size()) + ")");
  }
  mapped.throw_if_damaged("its graph");
  if (!has_graph) throw Error("BAD_MODEL", model.path + " holds no graph: it is not an ONNX model");

  model.graph_name = std::move(contents.main_graph_name);
  model.inputs = std::move(contents.inputs);
  model.outputs = std::move(contents.outputs);
  model.nodes = std::move(contents.nodes);
  model.tensors = resolve_tensor_payloads(model.path, file.real_path(), read_root, std::move(contents.tensors), model.external_files);
  return model;
}

}  // namespace mlrb::onnx
