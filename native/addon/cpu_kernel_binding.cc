#include "cpu_kernel_binding.h"

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "../core/attention_operands.h"
#include "../core/cpu_features.h"
#include "../core/masked_attention.h"

namespace mlrb::addon {

namespace {

int64_t dimension(Napi::Env env, const Napi::Object& request, const char* name) {
  const Napi::Value value = request.Get(name);
  if (!value.IsNumber()) throw Napi::TypeError::New(env, std::string("attentionKernel: ") + name + " must be a number");
  const double number = value.As<Napi::Number>().DoubleValue();
  if (!(number >= 1 && number <= (1 << 20)) || number != static_cast<double>(static_cast<int64_t>(number))) {
    throw Napi::RangeError::New(env, std::string("attentionKernel: ") + name + " must be a whole number from 1 to 2^20");
  }
  return static_cast<int64_t>(number);
}

template <typename Array>
Array typed_array(Napi::Env env, const Napi::Object& request, const char* name, napi_typedarray_type type, int64_t elements) {
  const Napi::Value value = request.Get(name);
  if (!value.IsTypedArray() || value.As<Napi::TypedArray>().TypedArrayType() != type) {
    throw Napi::TypeError::New(
        env, std::string("attentionKernel: ") + name + (type == napi_float32_array ? " must be a Float32Array" : " must be a Uint8Array"));
  }
  Array array = value.As<Array>();
  if (static_cast<int64_t>(array.ElementLength()) != elements) {
    throw Napi::RangeError::New(env, std::string("attentionKernel: ") + name + " has " + std::to_string(array.ElementLength()) +
                                         " elements, expected " + std::to_string(elements));
  }
  return array;
}

// attentionKernel({ query [T, D], key [S, D], value [S, Dv], keep [T, S] (1: attended), fill, scale,
// queries, keys, keyDim, valueDim, kernelPath }) -> Float32Array [T, Dv]: softmax(scale · Q Kᵀ with
// excluded scores set to fill) V, as the fused op computes it for one head. Synchronous: it is meant for
// small checks, not for scoring.
Napi::Value attention_kernel(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!info[0].IsObject()) throw Napi::TypeError::New(env, "attentionKernel expects a request object");
  const Napi::Object request = info[0].As<Napi::Object>();
  const int64_t queries = dimension(env, request, "queries");
  const int64_t keys = dimension(env, request, "keys");
  const int64_t key_dim = dimension(env, request, "keyDim");
  const int64_t value_dim = dimension(env, request, "valueDim");
  const auto query = typed_array<Napi::Float32Array>(env, request, "query", napi_float32_array, queries * key_dim);
  const auto key = typed_array<Napi::Float32Array>(env, request, "key", napi_float32_array, keys * key_dim);
  const auto value = typed_array<Napi::Float32Array>(env, request, "value", napi_float32_array, keys * value_dim);
  const auto keep = typed_array<Napi::Uint8Array>(env, request, "keep", napi_uint8_array, queries * keys);
  for (size_t index = 0; index < keep.ElementLength(); ++index) {
    if (keep[index] > 1) throw Napi::RangeError::New(env, "attentionKernel: keep holds only 0 and 1");
  }
  if (!request.Get("scale").IsNumber() || !request.Get("fill").IsNumber())
    throw Napi::TypeError::New(env, "attentionKernel: scale and fill must be numbers");
  const auto scale = static_cast<float>(request.Get("scale").As<Napi::Number>().DoubleValue());
  const auto fill = static_cast<float>(request.Get("fill").As<Napi::Number>().DoubleValue());
  const Napi::Value path_name = request.Get("kernelPath");
  const std::optional<KernelPath> path = path_name.IsString() ? parse_kernel_path(path_name.As<Napi::String>().Utf8Value()) : std::nullopt;
  if (!path) throw Napi::RangeError::New(env, "attentionKernel: kernelPath must be 'avx512', 'avx2' or 'baseline'");

  Operands operands = describe_operands({queries, key_dim}, {keys, key_dim}, {keys, value_dim}, {queries, keys}, OperandLayouts{});
  operands.mask.kind = MaskKind::kKeepWhereTrue;
  static_assert(sizeof(bool) == sizeof(uint8_t), "keep is read as bool");
  operands.mask.keep = reinterpret_cast<const bool*>(keep.Data());
  operands.mask.fill = fill;
  prepare_mask_rows(operands.mask, queries, keys);
  Napi::Float32Array output = Napi::Float32Array::New(env, static_cast<size_t>(queries * value_dim));
  const AttentionTensors tensors{query.Data(), key.Data(), value.Data(), output.Data()};
  AttentionScratch scratch;
  attend_one_head(operands.shape, ScoreArithmetic{scale}, head_operands(operands, tensors, 0), operands.mask, 0, scratch, *path);
  return output;
}

}  // namespace

const KernelPathChoice& kernel_path_choice_or_throw(Napi::Env env) {
  try {
    return kernel_path_choice();
  } catch (const std::invalid_argument& error) {
    throw Napi::RangeError::New(env, error.what());
  }
}

Napi::Object cpu_facts_to_js(Napi::Env env) {
  const KernelPathChoice& choice = kernel_path_choice_or_throw(env);
  const CpuFeatures features = read_cpu_features();
  Napi::Object result = Napi::Object::New(env);
  result.Set("model", features.model);
  const std::vector<std::string> names = features.names();
  Napi::Array flags = Napi::Array::New(env, names.size());
  for (size_t index = 0; index < names.size(); ++index) flags.Set(static_cast<uint32_t>(index), names[index]);
  result.Set("features", flags);
  result.Set("kernelPath", std::string(kernel_path_name(choice.path)));
  result.Set("mlasPath", std::string(kernel_path_name(choice.mlas_path)));
  result.Set("forced", choice.forced);
  return result;
}

void register_cpu_kernel(Napi::Env env, Napi::Object exports) {
  exports.Set("attentionKernel", Napi::Function::New<attention_kernel>(env, "attentionKernel"));
}

}  // namespace mlrb::addon
