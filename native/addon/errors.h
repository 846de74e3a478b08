// Turns native failures into the TS layer's MlrbError (handed to the addon at init), so JS catches real
// instances with a `.code`. Argument mistakes become TypeError / RangeError instead.
#pragma once

#include <napi.h>

#include <string>

namespace mlrb::addon {

[[nodiscard]] Napi::Value make_error(Napi::Env env, const std::string& code, const std::string& message);

// A Promise already rejected with make_error(code, message): how an async call refuses before queuing any work.
[[nodiscard]] Napi::Promise rejected_promise(Napi::Env env, const std::string& code, const std::string& message);

// The code and message of whatever a worker caught, captured off the JS thread for OnOK to rethrow.
struct CaughtFailure {
  std::string code;
  std::string message;
  [[nodiscard]] bool failed() const { return !code.empty(); }
};

// Runs `work` and records any exception instead of letting it escape the worker thread.
template <typename Work>
void capture_failure(CaughtFailure& failure, Work&& work);

}  // namespace mlrb::addon

#include "errors_inl.h"
