#include "js_convert.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <utility>

#include "../graph/rewrite_passes.h"
#include "../onnx/data_types.h"

namespace mlrb::addon {

namespace {

// Copies an Int32Array field: scoring runs on a worker thread, so it must own its inputs rather than
// point into a JS buffer the caller may reuse while the batch is in flight.
std::vector<int32_t> int32_field(const Napi::Object& object, const char* field) {
  const Napi::Value value = object.Get(field);
  if (!value.IsTypedArray() || value.As<Napi::TypedArray>().TypedArrayType() != napi_int32_array) {
    throw Napi::TypeError::New(object.Env(), std::string("batch.") + field + " must be an Int32Array");
  }
  const auto array = value.As<Napi::Int32Array>();
  return {array.Data(), array.Data() + array.ElementLength()};
}

int64_t optional_integer(const Napi::Object& object, const char* field, int64_t fallback, int64_t minimum) {
  const Napi::Value value = object.Get(field);
  if (value.IsUndefined() || value.IsNull()) return fallback;
  if (!value.IsNumber()) throw Napi::TypeError::New(object.Env(), std::string("options.") + field + " must be a number");
  const double number = value.As<Napi::Number>().DoubleValue();
  if (number != static_cast<double>(static_cast<int64_t>(number)) || number < static_cast<double>(minimum) ||
      number > static_cast<double>(std::numeric_limits<int32_t>::max())) {
    throw Napi::RangeError::New(object.Env(), std::string("options.") + field + " must be an integer >= " + std::to_string(minimum));
  }
  return static_cast<int64_t>(number);
}

// An optional string option: absent when undefined (null is a wrong type, as for any other non-string).
std::optional<std::string> optional_string(const Napi::Object& object, const char* field) {
  const Napi::Value value = object.Get(field);
  if (value.IsUndefined()) return std::nullopt;
  if (!value.IsString()) throw Napi::TypeError::New(object.Env(), std::string("options.") + field + " must be a string");
  return value.As<Napi::String>().Utf8Value();
}

Napi::Array shape_to_js(Napi::Env env, const TensorDescription& tensor) {
  Napi::Array shape = Napi::Array::New(env, tensor.shape.size());
  for (size_t d = 0; d < tensor.shape.size(); ++d) {
    const bool named = d < tensor.symbolic.size() && !tensor.symbolic[d].empty();
    if (tensor.shape[d] >= 0) shape.Set(static_cast<uint32_t>(d), Napi::Number::New(env, static_cast<double>(tensor.shape[d])));
    else shape.Set(static_cast<uint32_t>(d), Napi::String::New(env, named ? tensor.symbolic[d] : "?"));
  }
  return shape;
}

Napi::Object tensor_to_js(Napi::Env env, const TensorDescription& tensor) {
  Napi::Object object = Napi::Object::New(env);
  object.Set("name", tensor.name);
  object.Set("type", element_type_name(tensor.type));
  object.Set("shape", shape_to_js(env, tensor));
  return object;
}

std::string known_pass_names() {
  std::string names;
  for (const graph::RewritePass* pass : graph::load_time_passes()) names += (names.empty() ? "" : ", ") + std::string(pass->name);
  return names;
}

// options.rewrites: { <pass name>: boolean, ... }, checked against the pass list so a misspelt name is an
// error rather than a pass silently left on.
std::unordered_map<std::string, bool> rewrite_switches_from_js(const Napi::Value& value) {
  std::unordered_map<std::string, bool> switches;
  if (value.IsUndefined()) return switches;
  const Napi::Env env = value.Env();
  if (!value.IsObject() || value.IsArray()) {
    throw Napi::TypeError::New(env, "options.rewrites must be an object of booleans by pass name (" + known_pass_names() + ")");
  }
  const auto object = value.As<Napi::Object>();
  const Napi::Array keys = object.GetPropertyNames();
  const auto passes = graph::load_time_passes();
  for (uint32_t i = 0; i < keys.Length(); ++i) {
    const std::string name = keys.Get(i).ToString().Utf8Value();
    const bool known = std::any_of(passes.begin(), passes.end(), [&](const graph::RewritePass* pass) { return pass->name == name; });
    if (!known) throw Napi::TypeError::New(env, "options.rewrites." + name + " is not a rewrite; the rewrites are " + known_pass_names());
    const Napi::Value on = object.Get(name);
    if (on.IsUndefined()) continue;
    if (!on.IsBoolean()) throw Napi::TypeError::New(env, "options.rewrites." + name + " must be a boolean");
    switches[name] = on.As<Napi::Boolean>().Value();
  }
  return switches;
}

// Element sizes of the types an override may have: the float types a rotary cache is stored in.
size_t override_element_size(int64_t element_type) {
  switch (element_type) {
    case onnx::data_type::kFloat: return 4;
    case onnx::data_type::kFloat16: return 2;
    case onnx::data_type::kBfloat16: return 2;
    default: return 0;
  }
}

// options.initializerOverrides: [{ name, elementType, dims, data: Uint8Array }, ...], each checked against its own
// dims and copied (the session is built on a worker thread, after the caller's buffers may be reused).
std::vector<graph::InitializerOverride> initializer_overrides_from_js(const Napi::Value& value) {
  std::vector<graph::InitializerOverride> overrides;
  if (value.IsUndefined()) return overrides;
  const Napi::Env env = value.Env();
  if (!value.IsArray()) throw Napi::TypeError::New(env, "options.initializerOverrides must be an array");
  const auto array = value.As<Napi::Array>();
  for (uint32_t i = 0; i < array.Length(); ++i) {
    const std::string where = "options.initializerOverrides[" + std::to_string(i) + "]";
    const Napi::Value entry = array.Get(i);
    if (!entry.IsObject()) throw Napi::TypeError::New(env, where + " must be an object");
    const auto object = entry.As<Napi::Object>();
    graph::InitializerOverride tensor;
    const Napi::Value name = object.Get("name");
    if (!name.IsString() || name.As<Napi::String>().Utf8Value().empty()) throw Napi::TypeError::New(env, where + ".name must be a non-empty string");
    tensor.name = name.As<Napi::String>().Utf8Value();
    const Napi::Value type = object.Get("elementType");
    const size_t element_size = type.IsNumber() ? override_element_size(type.As<Napi::Number>().Int64Value()) : 0;
    if (element_size == 0) throw Napi::RangeError::New(env, where + ".elementType must be 1 (float), 10 (float16) or 16 (bfloat16)");
    tensor.element_type = type.As<Napi::Number>().Int32Value();
    const Napi::Value dims = object.Get("dims");
    if (!dims.IsArray()) throw Napi::TypeError::New(env, where + ".dims must be an array of sizes");
    uint64_t elements = 1;
    const auto dim_list = dims.As<Napi::Array>();
    for (uint32_t d = 0; d < dim_list.Length(); ++d) {
      const Napi::Value dim = dim_list.Get(d);
      const double size = dim.IsNumber() ? dim.As<Napi::Number>().DoubleValue() : -1;
      if (size < 0 || size > static_cast<double>(1U << 30) || size != static_cast<double>(static_cast<int64_t>(size))) {
        throw Napi::RangeError::New(env, where + ".dims must hold integers in [0, 2^30]");
      }
      tensor.dims.push_back(static_cast<int64_t>(size));
      elements *= static_cast<uint64_t>(size);
      if (elements > (1ULL << 30)) throw Napi::RangeError::New(env, where + " holds more than 2^30 elements");
    }
    const Napi::Value data = object.Get("data");
    if (!data.IsTypedArray() || data.As<Napi::TypedArray>().TypedArrayType() != napi_uint8_array) {
      throw Napi::TypeError::New(env, where + ".data must be a Uint8Array");
    }
    const auto bytes = data.As<Napi::Uint8Array>();
    if (bytes.ElementLength() != elements * element_size) {
      throw Napi::RangeError::New(env, where + ".data holds " + std::to_string(bytes.ElementLength()) + " bytes; its dims and type need " +
                                           std::to_string(elements * element_size));
    }
    tensor.raw.assign(bytes.Data(), bytes.Data() + bytes.ElementLength());
    overrides.push_back(std::move(tensor));
  }
  return overrides;
}

}  // namespace

Napi::Array rewrite_pass_names_to_js(Napi::Env env) {
  const auto passes = graph::load_time_passes();
  Napi::Array names = Napi::Array::New(env, passes.size());
  for (size_t index = 0; index < passes.size(); ++index) names.Set(static_cast<uint32_t>(index), std::string(passes[index]->name));
  names.Freeze();
  return names;
}

Napi::Array rewrites_to_js(Napi::Env env, const std::vector<graph::PassOutcome>& outcomes) {
  Napi::Array array = Napi::Array::New(env, outcomes.size());
  for (size_t i = 0; i < outcomes.size(); ++i) {
    Napi::Object outcome = Napi::Object::New(env);
    outcome.Set("name", outcomes[i].name);
    outcome.Set("applied", outcomes[i].applied);
    outcome.Set("reason", outcomes[i].reason);
    array.Set(static_cast<uint32_t>(i), outcome);
  }
  return array;
}

PackedBatch packed_batch_from_js(const Napi::Value& value) {
  if (!value.IsObject()) throw Napi::TypeError::New(value.Env(), "score() expects a packed batch object");
  const auto object = value.As<Napi::Object>();
  PackedBatch batch;
  batch.tokens = int32_field(object, "tokens");
  batch.row_offsets = int32_field(object, "rowOffsets");
  batch.request_rows = int32_field(object, "requestRows");
  batch.targets = int32_field(object, "targets");
  batch.target_offsets = int32_field(object, "targetOffsets");
  if (!object.Get("requestEnds").IsUndefined()) batch.request_ends = int32_field(object, "requestEnds");
  return batch;
}

ScoringSessionOptions session_options_from_js(const Napi::Value& value) {
  ScoringSessionOptions options;
  if (value.IsUndefined()) return options;
  if (!value.IsObject()) throw Napi::TypeError::New(value.Env(), "session options must be an object");
  const auto object = value.As<Napi::Object>();
  if (std::optional<std::string> provider = optional_string(object, "provider")) {
    options.provider = std::move(*provider);
    if (options.provider != "cpu" && options.provider != "cuda") {
      throw Napi::RangeError::New(value.Env(), "options.provider must be 'cpu' or 'cuda', got '" + options.provider + "'");
    }
  }
  options.intra_op_threads = static_cast<int>(optional_integer(object, "intraOpThreads", 0, 0));
  options.kv_hints.num_kv_heads = optional_integer(object, "numKeyValueHeads", -1, 1);
  options.kv_hints.head_dim = optional_integer(object, "headDim", -1, 1);
  options.pad_token_id = static_cast<int32_t>(optional_integer(object, "padTokenId", 0, 0));
  options.rewrites = rewrite_switches_from_js(object.Get("rewrites"));
  if (std::optional<std::string> read_root = optional_string(object, "readRoot")) options.read_root = std::move(*read_root);
  options.initializer_overrides = initializer_overrides_from_js(object.Get("initializerOverrides"));
  return options;
}

Napi::Object signature_to_js(Napi::Env env, const GraphSignature& signature) {
  Napi::Object result = Napi::Object::New(env);
  Napi::Array inputs = Napi::Array::New(env, signature.inputs.size());
  for (size_t i = 0; i < signature.inputs.size(); ++i) {
    Napi::Object input = tensor_to_js(env, signature.inputs[i].tensor);
    input.Set("role", input_role_name(signature.inputs[i].role));
    inputs.Set(static_cast<uint32_t>(i), input);
  }
  Napi::Array outputs = Napi::Array::New(env, signature.graph_outputs.size());
  for (size_t i = 0; i < signature.graph_outputs.size(); ++i) {
    outputs.Set(static_cast<uint32_t>(i), tensor_to_js(env, signature.graph_outputs[i]));
  }
  result.Set("inputs", inputs);
  result.Set("outputs", outputs);
  result.Set("logitsOutput", signature.logits_output);
  result.Set("logitsType", element_type_name(signature.logits_type));
  result.Set("logitsSliced", signature.logits_sliced);
  result.Set("vocabSize", signature.vocab_size > 0 ? Napi::Value(Napi::Number::New(env, static_cast<double>(signature.vocab_size))) : env.Null());
  return result;
}

}  // namespace mlrb::addon
