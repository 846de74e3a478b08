// Per-addon-instance state (one per Node environment / worker thread), held by napi instance data.
#pragma once

#include <napi.h>

namespace mlrb::addon {

struct AddonState {
  Napi::FunctionReference error_class;             // the TS MlrbError constructor, registered at load
  Napi::FunctionReference session_constructor;     // NativeSession
  Napi::FunctionReference generation_constructor;  // NativeGeneration
  Napi::FunctionReference seq2seq_constructor;     // NativeSeq2SeqSession
};

inline AddonState& state_of(Napi::Env env) {
  return *env.GetInstanceData<AddonState>();
}

}  // namespace mlrb::addon
