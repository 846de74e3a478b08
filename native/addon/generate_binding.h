// NativeGeneration: the JS handle of one GenerationRun. step(n) runs n decoding passes on a libuv worker and
// settles with the new ids of the prompts still running; stop(prompts) reports prompts whose decoded text hit
// a stop string. One step at a time: a second step() or a stop() while one runs is refused (BUSY), as is any
// use after dispose() (DISPOSED). The KV cache never leaves native memory.
#pragma once

#include <napi.h>

#include <atomic>
#include <functional>
#include <memory>

#include "../ort/decoding_run.h"
#include "../ort/generation_session.h"

namespace mlrb::addon {

class GenerationWrap : public Napi::ObjectWrap<GenerationWrap> {
 public:
  static Napi::Function define_class(Napi::Env env);
  explicit GenerationWrap(const Napi::CallbackInfo& info);

  // `session_runs` is the owning session's in-flight counter: a running step keeps the session from disposal.
  void attach(std::shared_ptr<DecodingRun> run, std::shared_ptr<std::atomic<int>> session_runs);

 private:
  Napi::Value step(const Napi::CallbackInfo& info);
  Napi::Value stop(const Napi::CallbackInfo& info);
  Napi::Value dispose(const Napi::CallbackInfo& info);
  Napi::Value uses_kv_cache(const Napi::CallbackInfo& info);
  Napi::Value finished(const Napi::CallbackInfo& info);

  // Throws BUSY while a step runs, DISPOSED after dispose().
  void require_idle(Napi::Env env, const char* what) const;

  std::shared_ptr<DecodingRun> run_;
  std::shared_ptr<std::atomic<int>> session_runs_;
  std::shared_ptr<std::atomic<bool>> stepping_ = std::make_shared<std::atomic<bool>>(false);
};

// A startGeneration() request as native takes it; TypeError / RangeError for malformed fields.
[[nodiscard]] GenerationRequest generation_request_from_js(const Napi::Value& value);

// A NativeGeneration handle over the run `make_run` builds; its construction failure is thrown as an MlrbError.
// `session_runs` is the owning session's in-flight counter.
[[nodiscard]] Napi::Value generation_handle(Napi::Env env, const std::function<std::shared_ptr<DecodingRun>()>& make_run,
                                            std::shared_ptr<std::atomic<int>> session_runs);

// session.startGeneration(request): validates the request synchronously (MlrbError BAD_DATA, TypeError for
// malformed fields) and returns a NativeGeneration. Called by SessionWrap with its session.
[[nodiscard]] Napi::Value start_generation(const Napi::CallbackInfo& info, std::shared_ptr<const ScoringSession> session,
                                           std::shared_ptr<std::atomic<int>> session_runs);

}  // namespace mlrb::addon
