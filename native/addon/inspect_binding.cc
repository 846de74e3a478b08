#include "inspect_binding.h"

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "../onnx/model_reader.h"
#include "../onnx/zero_scan.h"
#include "promise_worker.h"

namespace mlrb::addon {

namespace {

using onnx::ModelInfo;
using onnx::ZeroScanRequest;
using onnx::ZeroScanResult;

Napi::Array strings_to_js(Napi::Env env, const std::vector<std::string>& values) {
  Napi::Array array = Napi::Array::New(env, values.size());
  for (size_t index = 0; index < values.size(); ++index) array.Set(static_cast<uint32_t>(index), values[index]);
  return array;
}

const char* location_name(onnx::DataLocation location) {
  switch (location) {
    case onnx::DataLocation::raw: return "raw";
    case onnx::DataLocation::external: return "external";
    case onnx::DataLocation::typed: return "typed";
    default: return "none";
  }
}

const char* source_name(onnx::TensorSource source) {
  switch (source) {
    case onnx::TensorSource::sparse_initializer: return "sparse_initializer";
    case onnx::TensorSource::constant_node: return "constant_node";
    default: return "initializer";
  }
}

Napi::Object tensor_to_js(Napi::Env env, const onnx::TensorInfo& tensor) {
  Napi::Object object = Napi::Object::New(env);
  object.Set("name", tensor.name);
  object.Set("dataType", tensor.data_type);
  Napi::Array dims = Napi::Array::New(env, tensor.dims.size());
  for (size_t index = 0; index < tensor.dims.size(); ++index) dims.Set(static_cast<uint32_t>(index), static_cast<double>(tensor.dims[index]));
  object.Set("dims", dims);
  object.Set("location", location_name(tensor.location));
  object.Set("source", source_name(tensor.source));
  object.Set("graph", tensor.graph);
  object.Set("file", tensor.file);
  if (!tensor.real_file.empty()) object.Set("realFile", tensor.real_file);
  object.Set("offset", static_cast<double>(tensor.offset));
  object.Set("length", static_cast<double>(tensor.length));
  object.Set("elementCount", static_cast<double>(tensor.element_count));
  return object;
}

Napi::Object node_to_js(Napi::Env env, const onnx::NodeInfo& node) {
  Napi::Object object = Napi::Object::New(env);
  object.Set("opType", node.op_type);
  object.Set("domain", node.domain);
  object.Set("name", node.name);
  object.Set("graph", node.graph);
  object.Set("inputs", strings_to_js(env, node.inputs));
  object.Set("outputs", strings_to_js(env, node.outputs));
  Napi::Object attributes = Napi::Object::New(env);
  for (const auto& [name, value] : node.int_attributes) attributes.Set(name, static_cast<double>(value));
  object.Set("intAttributes", attributes);
  return object;
}

Napi::Object value_to_js(Napi::Env env, const onnx::ValueInfo& value) {
  Napi::Object object = Napi::Object::New(env);
  object.Set("name", value.name);
  object.Set("elemType", value.elem_type);
  if (!value.has_shape) {
    object.Set("shape", env.Null());
    return object;
  }
  Napi::Array shape = Napi::Array::New(env, value.shape.size());
  for (size_t index = 0; index < value.shape.size(); ++index) {
    const onnx::ValueDimension& dim = value.shape[index];
    const auto at = static_cast<uint32_t>(index);
    if (dim.is_value) shape.Set(at, static_cast<double>(dim.value));
    else if (!dim.param.empty()) shape.Set(at, dim.param);
    else shape.Set(at, env.Null());
  }
  object.Set("shape", shape);
  return object;
}

template <typename Item, typename ToJs>
Napi::Array list_to_js(Napi::Env env, const std::vector<Item>& items, ToJs to_js) {
  Napi::Array array = Napi::Array::New(env, items.size());
  for (size_t index = 0; index < items.size(); ++index) array.Set(static_cast<uint32_t>(index), to_js(env, items[index]));
  return array;
}

Napi::Value model_to_js(Napi::Env env, ModelInfo& model) {
  Napi::Object object = Napi::Object::New(env);
  object.Set("path", model.path);
  object.Set("fileSize", static_cast<double>(model.file_size));
  object.Set("irVersion", static_cast<double>(model.ir_version));
  object.Set("producerName", model.producer_name);
  object.Set("producerVersion", model.producer_version);
  object.Set("graphName", model.graph_name);
  object.Set("opsets", list_to_js(env, model.opsets, [](Napi::Env scope, const onnx::OpsetImport& opset) {
               Napi::Object entry = Napi::Object::New(scope);
               entry.Set("domain", opset.domain);
               entry.Set("version", static_cast<double>(opset.version));
               return entry;
             }));
  object.Set("inputs", list_to_js(env, model.inputs, value_to_js));
  object.Set("outputs", list_to_js(env, model.outputs, value_to_js));
  object.Set("tensors", list_to_js(env, model.tensors, tensor_to_js));
  object.Set("nodes", list_to_js(env, model.nodes, node_to_js));
  object.Set("externalFiles", list_to_js(env, model.external_files, [](Napi::Env scope, const onnx::ExternalFile& file) {
               Napi::Object entry = Napi::Object::New(scope);
               entry.Set("path", file.path);
               entry.Set("size", static_cast<double>(file.size));
               return entry;
             }));
  return object;
}

Napi::Value scan_results_to_js(Napi::Env env, std::vector<ZeroScanResult>& results) {
  return list_to_js(env, results, [](Napi::Env scope, const ZeroScanResult& result) {
    Napi::Object entry = Napi::Object::New(scope);
    entry.Set("zeroCount", static_cast<double>(result.zero_count));
    Napi::Uint8Array rows = Napi::Uint8Array::New(scope, result.zero_rows.size());
    std::copy(result.zero_rows.begin(), result.zero_rows.end(), rows.Data());
    Napi::Uint8Array columns = Napi::Uint8Array::New(scope, result.zero_columns.size());
    std::copy(result.zero_columns.begin(), result.zero_columns.end(), columns.Data());
    entry.Set("zeroRows", rows);
    entry.Set("zeroColumns", columns);
    return entry;
  });
}

uint64_t whole_number(Napi::Env env, const Napi::Object& object, const char* key, const std::string& where) {
  const Napi::Value value = object.Get(key);
  if (!value.IsNumber()) throw Napi::TypeError::New(env, where + "." + key + " must be a number");
  const double number = value.As<Napi::Number>().DoubleValue();
  if (!(number >= 0) || std::floor(number) != number || number > 9007199254740991.0) {
    throw Napi::RangeError::New(env, where + "." + key + " must be a non-negative safe integer");
  }
  return static_cast<uint64_t>(number);
}

ZeroScanRequest scan_request_from_js(Napi::Env env, const Napi::Value& value, size_t index) {
  const std::string where = "scanZeros: requests[" + std::to_string(index) + "]";
  if (!value.IsObject()) throw Napi::TypeError::New(env, where + " must be an object");
  const Napi::Object object = value.As<Napi::Object>();
  if (!object.Get("file").IsString()) throw Napi::TypeError::New(env, where + ".file must be a string");
  ZeroScanRequest request;
  request.file = object.Get("file").As<Napi::String>().Utf8Value();
  const Napi::Value tensor = object.Get("tensor");
  if (!tensor.IsUndefined() && !tensor.IsString()) throw Napi::TypeError::New(env, where + ".tensor must be a string when given");
  if (tensor.IsString()) request.tensor = tensor.As<Napi::String>().Utf8Value();
  request.offset = whole_number(env, object, "offset", where);
  request.rows = whole_number(env, object, "rows", where);
  request.cols = whole_number(env, object, "cols", where);
  request.element_bytes = static_cast<uint32_t>(whole_number(env, object, "elementBytes", where));
  if (request.element_bytes != 1 && request.element_bytes != 2 && request.element_bytes != 4 && request.element_bytes != 8) {
    throw Napi::RangeError::New(env, where + ".elementBytes must be 1, 2, 4 or 8");
  }
  request.ignore_sign = object.Get("ignoreSign").ToBoolean().Value();
  return request;
}

Napi::Value read_onnx_model(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!info[0].IsString()) throw Napi::TypeError::New(env, "readOnnxModel(modelPath) expects a string path");
  if (!info[1].IsUndefined() && !info[1].IsString())
    throw Napi::TypeError::New(env, "readOnnxModel(modelPath, readRoot) expects readRoot to be a string");
  std::string path = info[0].As<Napi::String>().Utf8Value();
  std::string read_root = info[1].IsString() ? info[1].As<Napi::String>().Utf8Value() : std::string();
  return queue_job<ModelInfo>(env, {.resource_name = "mlrb:inspect",
                                    .activity = "reading an ONNX model's graph",
                                    .work = [path, read_root] { return onnx::read_model_info(path, read_root); },
                                    .to_js = model_to_js});
}

Napi::Value scan_zeros(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!info[0].IsArray()) throw Napi::TypeError::New(env, "scanZeros(requests, options) expects an array of requests");
  const Napi::Array array = info[0].As<Napi::Array>();
  std::vector<ZeroScanRequest> requests;
  requests.reserve(array.Length());
  for (uint32_t index = 0; index < array.Length(); ++index) requests.push_back(scan_request_from_js(env, array.Get(index), index));
  size_t threads = 0;
  if (info[1].IsObject() && !info[1].As<Napi::Object>().Get("threads").IsUndefined()) {
    threads = static_cast<size_t>(whole_number(env, info[1].As<Napi::Object>(), "threads", "scanZeros: options"));
  }
  return queue_job<std::vector<ZeroScanResult>>(env,
                                                {.resource_name = "mlrb:zero-scan",
                                                 .activity = "scanning weights for zeros",
                                                 .work = [requests = std::move(requests), threads] { return onnx::scan_zeros(requests, threads); },
                                                 .to_js = scan_results_to_js});
}

}  // namespace

void register_inspect(Napi::Env env, Napi::Object exports) {
  exports.Set("readOnnxModel", Napi::Function::New<read_onnx_model>(env, "readOnnxModel"));
  exports.Set("scanZeros", Napi::Function::New<scan_zeros>(env, "scanZeros"));
}

}  // namespace mlrb::addon
