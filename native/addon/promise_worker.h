// The one async worker behind every Promise the addon returns (load, score, computePrefix, step, readOnnxModel,
// scanZeros): a job's work runs on a libuv thread, and back on the JS thread its result becomes the resolved value,
// or whatever it threw becomes the TS layer's MlrbError with the caught code (errors.h). No C++ exception escapes
// the worker thread, and failures never reach Napi::AsyncWorker::OnError: capture_failure() records them instead.
#pragma once

#include <napi.h>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <utility>

#include "errors.h"
#include "fatal_signal_report.h"

namespace mlrb::addon {

// What to run, how to hand its result to JS, and what the work keeps busy while it runs.
template <typename Result>
struct AsyncJob {
  const char* resource_name;  // the async_hooks resource name, "mlrb:<what>"
  const char* activity;       // a string literal: what a fatal signal's report says was running (fatal_signal_report.h)
  // Runs off the JS thread, so it must own (capture by value) everything it reads.
  std::function<Result()> work;
  // Runs on the JS thread once `work` has returned; may take the result apart (it is not used again).
  std::function<Napi::Value(Napi::Env, Result&)> to_js;
  // Optional: counted from queuing until the worker is deleted, after the promise settled: a session refuses
  // dispose() while any of its runs is in flight.
  std::shared_ptr<std::atomic<int>> runs_in_flight = nullptr;
  // Optional: true from queuing until just before the promise settles. Cleared there, not when the worker is
  // deleted: a call chained on the promise may already have set it again by then.
  std::shared_ptr<std::atomic<bool>> busy = nullptr;
};

template <typename Result>
class PromiseWorker final : public Napi::AsyncWorker {
 public:
  PromiseWorker(Napi::Env env, AsyncJob<Result> job)
      : Napi::AsyncWorker(env, job.resource_name), deferred_(Napi::Promise::Deferred::New(env)), job_(std::move(job)) {
    if (job_.busy) *job_.busy = true;
    if (job_.runs_in_flight) ++*job_.runs_in_flight;
  }
  ~PromiseWorker() override {
    if (job_.runs_in_flight) --*job_.runs_in_flight;
  }
  PromiseWorker(const PromiseWorker&) = delete;
  PromiseWorker& operator=(const PromiseWorker&) = delete;

  [[nodiscard]] Napi::Promise promise() const { return deferred_.Promise(); }

 protected:
  void Execute() override {
    const NativeActivity activity(job_.activity);
    capture_failure(failure_, [this] { result_.emplace(job_.work()); });
  }

  void OnOK() override {
    Napi::Env env = Env();
    if (job_.busy) *job_.busy = false;
    if (failure_.failed()) {
      deferred_.Reject(make_error(env, failure_.code, failure_.message));
      return;
    }
    deferred_.Resolve(job_.to_js(env, *result_));
  }

 private:
  Napi::Promise::Deferred deferred_;
  AsyncJob<Result> job_;
  std::optional<Result> result_;  // set by Execute() unless it failed
  CaughtFailure failure_;
};

// Queues the job and returns its Promise. The one `new` N-API requires: a queued Napi::AsyncWorker deletes itself
// once it has settled (after OnOK), so ownership passes from the unique_ptr to libuv at Queue().
template <typename Result>
[[nodiscard]] Napi::Promise queue_job(Napi::Env env, AsyncJob<Result> job) {
  auto worker = std::make_unique<PromiseWorker<Result>>(env, std::move(job));
  Napi::Promise promise = worker->promise();
  worker.release()->Queue();
  return promise;
}

}  // namespace mlrb::addon
