// The rewrites read and write with the one ONNX layer (native/onnx/): its wire format and its schema. The
// names are brought into mlrb::graph once, here, so rewrite code says `Bytes` and `GraphProto::kNode`.
#pragma once

#include "../onnx/proto_wire.h"
#include "../onnx/schema.h"

namespace mlrb::graph {

using onnx::as_text;
using onnx::Bytes;
using onnx::Field;
using onnx::FieldReader;
using onnx::for_each_field;
using onnx::int64s_of;
using onnx::MalformedProto;
using onnx::ProtoBuilder;

using onnx::AttributeProto;
using onnx::DimensionProto;
using onnx::GraphProto;
using onnx::ModelProto;
using onnx::NodeProto;
using onnx::OperatorSetIdProto;
using onnx::TensorProto;
using onnx::TensorShapeProto;
using onnx::TensorTypeProto;
using onnx::TypeProto;
using onnx::ValueInfoProto;

}  // namespace mlrb::graph
