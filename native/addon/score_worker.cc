#include "score_worker.h"

#include <algorithm>

#include "fatal_signal_report.h"

namespace mlrb::addon {

ScoreWorker::ScoreWorker(Napi::Env env, std::function<BatchScores()> score, std::shared_ptr<std::atomic<int>> active_runs)
    : Napi::AsyncWorker(env, "mlrb:score"), deferred_(Napi::Promise::Deferred::New(env)), score_(std::move(score)),
      active_runs_(std::move(active_runs)) {
  ++*active_runs_;
}

ScoreWorker::~ScoreWorker() {
  --*active_runs_;
}

void ScoreWorker::Execute() {
  const NativeActivity activity("scoring a batch");
  capture_failure(failure_, [this] { scores_ = score_(); });
}

void ScoreWorker::OnOK() {
  Napi::Env env = Env();
  if (failure_.failed()) {
    deferred_.Reject(make_error(env, failure_.code, failure_.message));
    return;
  }
  const size_t count = scores_.logliks.size();
  Napi::Float64Array logliks = Napi::Float64Array::New(env, count);
  Napi::Uint8Array greedy = Napi::Uint8Array::New(env, count);
  std::copy(scores_.logliks.begin(), scores_.logliks.end(), logliks.Data());
  std::copy(scores_.greedy.begin(), scores_.greedy.end(), greedy.Data());
  Napi::Object result = Napi::Object::New(env);
  result.Set("logliks", logliks);
  result.Set("greedy", greedy);
  result.Set("paddedTokens", Napi::Number::New(env, static_cast<double>(scores_.padded_tokens)));
  result.Set("logitRows", Napi::Number::New(env, static_cast<double>(scores_.logit_rows)));
  deferred_.Resolve(result);
}

Napi::Promise queue_scoring(Napi::Env env, std::function<BatchScores()> score, std::shared_ptr<std::atomic<int>> active_runs) {
  auto worker = std::make_unique<ScoreWorker>(env, std::move(score), std::move(active_runs));
  Napi::Promise promise = worker->promise();
  worker.release()->Queue();
  return promise;
}

}  // namespace mlrb::addon
