#include "process_binding.h"

#if defined(__linux__)
#include <sys/prctl.h>
#endif

namespace mlrb::addon {

namespace {

Napi::Value become_child_subreaper(const Napi::CallbackInfo& info) {
#if defined(__linux__)
  return Napi::Boolean::New(info.Env(), ::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0);
#else
  return Napi::Boolean::New(info.Env(), false);
#endif
}

}  // namespace

void register_process(Napi::Env env, Napi::Object exports) {
  exports.Set("becomeChildSubreaper", Napi::Function::New<become_child_subreaper>(env, "becomeChildSubreaper"));
}

}  // namespace mlrb::addon
