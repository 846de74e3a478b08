#include "errors.h"

#include "addon_state.h"

namespace mlrb::addon {

Napi::Value make_error(Napi::Env env, const std::string& code, const std::string& message) {
  AddonState& state = state_of(env);
  if (!state.error_class.IsEmpty()) {
    return state.error_class.New({Napi::String::New(env, code), Napi::String::New(env, message)});
  }
  // Before the TS layer registered its class (only in direct addon tests) a plain Error carries the code.
  Napi::Error error = Napi::Error::New(env, message);
  error.Set("code", Napi::String::New(env, code));
  return error.Value();
}

Napi::Promise rejected_promise(Napi::Env env, const std::string& code, const std::string& message) {
  auto deferred = Napi::Promise::Deferred::New(env);
  deferred.Reject(make_error(env, code, message));
  return deferred.Promise();
}

}  // namespace mlrb::addon
