// The field numbers and enum values of onnx/onnx.proto that native code reads or writes: the one place
// they are spelled out, shared by the edge checks' model reader (model_reader.cc and the files it calls)
// and by the load-time graph rewrites (native/graph/), which parse and re-serialise the same messages.
// Each struct is named after its message, so `GraphProto::kInitializer` reads as onnx.proto does; the
// TensorProto.DataType codes and what is known about each live in data_types.h.
#pragma once

#include <cstdint>

namespace mlrb::onnx {

struct ModelProto {
  static constexpr uint32_t kIrVersion = 1, kProducerName = 2, kProducerVersion = 3, kGraph = 7, kOpsetImport = 8, kFunctions = 25;
};

struct OperatorSetIdProto {
  static constexpr uint32_t kDomain = 1, kVersion = 2;
};

struct GraphProto {
  static constexpr uint32_t kNode = 1, kName = 2, kInitializer = 5, kInput = 11, kOutput = 12, kValueInfo = 13, kSparseInitializer = 15;
};

struct FunctionProto {
  static constexpr uint32_t kName = 1, kNode = 7, kDomain = 10;
};

struct NodeProto {
  static constexpr uint32_t kInput = 1, kOutput = 2, kName = 3, kOpType = 4, kAttribute = 5, kDomain = 7;
};

struct AttributeProto {
  static constexpr uint32_t kName = 1, kFloat = 2, kInt = 3, kString = 4, kTensor = 5, kGraph = 6, kFloats = 7, kInts = 8, kStrings = 9, kGraphs = 11,
                            kType = 20, kSparseTensor = 22;
  // AttributeProto.AttributeType, the value of field `type`.
  static constexpr uint64_t kTypeFloat = 1, kTypeInt = 2, kTypeString = 3, kTypeTensor = 4, kTypeGraph = 5, kTypeFloats = 6, kTypeInts = 7;
};

struct TensorProto {
  static constexpr uint32_t kDims = 1, kDataType = 2, kFloatData = 4, kInt32Data = 5, kStringData = 6, kInt64Data = 7, kName = 8, kRawData = 9,
                            kDoubleData = 10, kUint64Data = 11, kExternalData = 13, kDataLocation = 14;
  // TensorProto.DataLocation, the value of field `data_location`.
  static constexpr uint64_t kLocationDefault = 0, kLocationExternal = 1;
};

struct SparseTensorProto {
  static constexpr uint32_t kValues = 1, kIndices = 2, kDims = 3;
};

// TensorProto.external_data entries.
struct StringStringEntryProto {
  static constexpr uint32_t kKey = 1, kValue = 2;
};

struct ValueInfoProto {
  static constexpr uint32_t kName = 1, kType = 2;
};

// TypeProto: only tensor_type is read; sequences, maps and optionals are left alone.
struct TypeProto {
  static constexpr uint32_t kTensorType = 1;
};

// TypeProto.Tensor
struct TensorTypeProto {
  static constexpr uint32_t kElemType = 1, kShape = 2;
};

struct TensorShapeProto {
  static constexpr uint32_t kDim = 1;
};

// TensorShapeProto.Dimension
struct DimensionProto {
  static constexpr uint32_t kDimValue = 1, kDimParam = 2;
};

}  // namespace mlrb::onnx
