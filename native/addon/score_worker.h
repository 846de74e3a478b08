// The async worker behind every session's score(): the forward pass runs on a libuv worker thread and settles
// a Promise with { logliks, greedy, paddedTokens, logitRows }. It counts itself in the session's in-flight runs
// while it lives, so dispose() is refused until it has settled.
#pragma once

#include <napi.h>

#include <atomic>
#include <functional>
#include <memory>

#include "../ort/scoring_session.h"
#include "errors.h"

namespace mlrb::addon {

class ScoreWorker : public Napi::AsyncWorker {
 public:
  // `score` runs on the worker thread and must own everything it reads.
  ScoreWorker(Napi::Env env, std::function<BatchScores()> score, std::shared_ptr<std::atomic<int>> active_runs);
  ~ScoreWorker() override;

  [[nodiscard]] Napi::Promise promise() const { return deferred_.Promise(); }

 protected:
  void Execute() override;
  void OnOK() override;

 private:
  Napi::Promise::Deferred deferred_;
  std::function<BatchScores()> score_;
  std::shared_ptr<std::atomic<int>> active_runs_;
  BatchScores scores_;
  CaughtFailure failure_;
};

// Queues the scoring and returns its Promise (libuv owns the worker from here).
[[nodiscard]] Napi::Promise queue_scoring(Napi::Env env, std::function<BatchScores()> score, std::shared_ptr<std::atomic<int>> active_runs);

}  // namespace mlrb::addon
