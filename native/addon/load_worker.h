// Loads a session of any kind on a libuv worker thread and settles a Promise with its JS handle: the wrap class is
// constructed from the addon's registered constructor and given the session. The runtime must be loaded first.
#pragma once

#include <napi.h>

#include <functional>
#include <memory>
#include <string>

#include "../ort/ort_library.h"
#include "addon_state.h"
#include "errors.h"
#include "fatal_signal_report.h"

namespace mlrb::addon {

template <class Session, class Wrap>
class LoadWorker : public Napi::AsyncWorker {
 public:
  using Make = std::function<std::shared_ptr<const Session>(OrtRuntime&)>;

  // `constructor` names the wrap's constructor in AddonState; `activity` says what runs, for a fatal-signal report.
  LoadWorker(Napi::Env env, const char* activity, Make make, Napi::FunctionReference AddonState::*constructor)
      : Napi::AsyncWorker(env, "mlrb:load"), deferred_(Napi::Promise::Deferred::New(env)), activity_(activity), make_(std::move(make)),
        constructor_(constructor) {}

  [[nodiscard]] Napi::Promise promise() const { return deferred_.Promise(); }

 protected:
  void Execute() override {
    const NativeActivity activity(activity_);
    capture_failure(failure_, [this] {
      OrtRuntime* runtime = OrtRuntime::current();
      if (runtime == nullptr) throw Error("ORT_LOAD", "initRuntime() must load ONNX Runtime before a session is created");
      session_ = make_(*runtime);
    });
  }

  void OnOK() override {
    Napi::Env env = Env();
    if (failure_.failed()) {
      deferred_.Reject(make_error(env, failure_.code, failure_.message));
      return;
    }
    Napi::Object handle = (state_of(env).*constructor_).New({});
    Wrap::Unwrap(handle)->attach(std::move(session_));
    deferred_.Resolve(handle);
  }

 private:
  Napi::Promise::Deferred deferred_;
  const char* activity_;
  Make make_;
  Napi::FunctionReference AddonState::*constructor_;
  std::shared_ptr<const Session> session_;
  CaughtFailure failure_;
};

// Queues the load and returns its Promise (libuv owns the worker from here).
template <class Session, class Wrap>
[[nodiscard]] Napi::Promise queue_load(Napi::Env env, const char* activity, typename LoadWorker<Session, Wrap>::Make make,
                                       Napi::FunctionReference AddonState::*constructor) {
  auto worker = std::make_unique<LoadWorker<Session, Wrap>>(env, activity, std::move(make), constructor);
  Napi::Promise promise = worker->promise();
  worker.release()->Queue();
  return promise;
}

}  // namespace mlrb::addon
