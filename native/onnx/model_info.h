// What the ONNX model reader (model_reader.h) extracts from a ModelProto: everything about the graph and its tensors
// except the weight bytes themselves, which stay on disk and are described by (file, offset, length).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace mlrb::onnx {

// Where a tensor's payload lives. Only raw and external payloads are plain little-endian bytes on disk
// that a scan can read directly; typed payloads (float_data, int32_data …) are protobuf-encoded.
enum class DataLocation { raw, external, typed, none };

enum class TensorSource { initializer, sparse_initializer, constant_node };

struct TensorInfo {
  std::string name;
  int32_t data_type = 0;
  std::vector<int64_t> dims;
  DataLocation location = DataLocation::none;
  TensorSource source = TensorSource::initializer;
  std::string graph;      // "" for the main graph, else the subgraph or function it belongs to
  std::string file;       // absolute path of the file holding the payload (raw: the model file)
  std::string real_file;  // `file` with its links resolved, as opened when the model was read ("" for no file)
  uint64_t offset = 0;    // payload offset in `file`
  uint64_t length = 0;    // payload bytes in `file` (dense size for typed payloads)
  uint64_t element_count = 0;
};

struct NodeInfo {
  std::string op_type;
  std::string domain;
  std::string name;
  std::string graph;
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  std::vector<std::pair<std::string, int64_t>> int_attributes;  // INT attributes only (transB, axis …)
};

// A graph input or output. Symbolic dims keep their name; unknown dims are an empty name.
struct ValueDimension {
  bool is_value = false;
  int64_t value = 0;
  std::string param;
};

struct ValueInfo {
  std::string name;
  int32_t elem_type = 0;
  bool has_shape = false;
  std::vector<ValueDimension> shape;
};

struct OpsetImport {
  std::string domain;
  int64_t version = 0;
};

struct ExternalFile {
  std::string path;
  uint64_t size = 0;
};

struct ModelInfo {
  std::string path;
  uint64_t file_size = 0;
  int64_t ir_version = 0;
  std::string producer_name;
  std::string producer_version;
  std::string graph_name;
  std::vector<OpsetImport> opsets;
  std::vector<ValueInfo> inputs;
  std::vector<ValueInfo> outputs;
  std::vector<TensorInfo> tensors;
  std::vector<NodeInfo> nodes;
  std::vector<ExternalFile> external_files;
};

}  // namespace mlrb::onnx
