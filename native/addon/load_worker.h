// Loads a session of any kind on a libuv worker thread and settles a Promise with its JS handle: the wrap class is
// constructed from the addon's registered constructor and given the session. The runtime must be loaded first.
#pragma once

#include <napi.h>

#include <functional>
#include <memory>
#include <utility>

#include "../core/error.h"
#include "../ort/ort_library.h"
#include "addon_state.h"
#include "promise_worker.h"

namespace mlrb::addon {

// Queues the load and returns its Promise. `activity` says what runs, for a fatal-signal report; `constructor`
// names the wrap's constructor in AddonState.
template <class Session, class Wrap>
[[nodiscard]] Napi::Promise queue_load(Napi::Env env, const char* activity, std::function<std::shared_ptr<const Session>(OrtRuntime&)> make,
                                       Napi::FunctionReference AddonState::*constructor) {
  using Loaded = std::shared_ptr<const Session>;
  return queue_job<Loaded>(env, {.resource_name = "mlrb:load",
                                 .activity = activity,
                                 .work =
                                     [make = std::move(make)] {
                                       OrtRuntime* runtime = OrtRuntime::current();
                                       if (runtime == nullptr)
                                         throw Error("ORT_LOAD", "initRuntime() must load ONNX Runtime before a session is created");
                                       return make(*runtime);
                                     },
                                 .to_js = [constructor](Napi::Env scope, Loaded& session) -> Napi::Value {
                                   Napi::Object handle = (state_of(scope).*constructor).New({});
                                   Wrap::Unwrap(handle)->attach(std::move(session));
                                   return handle;
                                 }});
}

}  // namespace mlrb::addon
