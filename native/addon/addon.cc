// Addon entry: registers the error class hook, the ORT loader, build facts and the session API.
#include <napi.h>

#include "../ort/ort_library.h"
#include "addon_state.h"
#include "cpu_kernel_binding.h"
#include "cuda_binding.h"
#include "errors.h"
#include "fatal_signal_report.h"
#include "generate_binding.h"
#include "inspect_binding.h"
#include "js_convert.h"
#include "process_binding.h"
#include "seq2seq_wrap.h"
#include "session_wrap.h"

namespace mlrb::addon {

namespace {

Napi::Value set_error_class(const Napi::CallbackInfo& info) {
  if (!info[0].IsFunction()) throw Napi::TypeError::New(info.Env(), "setErrorClass expects a constructor");
  state_of(info.Env()).error_class = Napi::Persistent(info[0].As<Napi::Function>());
  return info.Env().Undefined();
}

Napi::Object runtime_info_to_js(Napi::Env env, const OrtRuntimeInfo& runtime) {
  Napi::Object result = Napi::Object::New(env);
  result.Set("libraryPath", runtime.library_path);
  result.Set("version", runtime.version);
  result.Set("apiVersion", runtime.api_version);
  return result;
}

Napi::Value init_runtime(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!info[0].IsString()) throw Napi::TypeError::New(env, "initRuntime(libraryPath) expects a string path");
  try {
    return runtime_info_to_js(env, OrtRuntime::load(info[0].As<Napi::String>().Utf8Value()).info());
  } catch (const std::exception& error) {
    throw Napi::Error(env, make_error(env, "ORT_LOAD", error.what()));
  }
}

Napi::Value build_info(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object result = Napi::Object::New(env);
  result.Set("ortHeaderApiVersion", ORT_API_VERSION);
#ifdef MLRB_WITH_CUDA
  result.Set("cudaKernels", true);
#else
  result.Set("cudaKernels", false);
#endif
  OrtRuntime* runtime = OrtRuntime::current();
  result.Set("runtime", runtime != nullptr ? Napi::Value(runtime_info_to_js(env, runtime->info())) : env.Null());
  result.Set("cpu", cpu_facts_to_js(env));
  return result;
}

}  // namespace

Napi::Object init(Napi::Env env, Napi::Object exports) {
  install_fatal_signal_report();
  auto state = std::make_unique<AddonState>();
  state->session_constructor = Napi::Persistent(SessionWrap::define_class(env));
  state->generation_constructor = Napi::Persistent(GenerationWrap::define_class(env));
  state->seq2seq_constructor = Napi::Persistent(Seq2SeqWrap::define_class(env));
  env.SetInstanceData(state.release());  // napi owns it from here and deletes it at env teardown
  exports.Set("setErrorClass", Napi::Function::New<set_error_class>(env, "setErrorClass"));
  exports.Set("initRuntime", Napi::Function::New<init_runtime>(env, "initRuntime"));
  exports.Set("buildInfo", Napi::Function::New<build_info>(env, "buildInfo"));
  exports.Set("rewritePasses", rewrite_pass_names_to_js(env));
  exports.Set("loadSession", Napi::Function::New<load_session>(env, "loadSession"));
  exports.Set("loadSeq2SeqSession", Napi::Function::New<load_seq2seq_session>(env, "loadSeq2SeqSession"));
  register_inspect(env, exports);
  register_cpu_kernel(env, exports);
  register_cuda(env, exports);
  register_process(env, exports);
  return exports;
}

}  // namespace mlrb::addon

// NODE_API_MODULE needs an unqualified function name.
static Napi::Object InitMlrbNative(Napi::Env env, Napi::Object exports) {
  return mlrb::addon::init(env, exports);
}
NODE_API_MODULE(mlrb_native, InitMlrbNative)
