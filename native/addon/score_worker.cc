#include "score_worker.h"

#include <algorithm>
#include <utility>

#include "promise_worker.h"

namespace mlrb::addon {

namespace {

Napi::Value scores_to_js(Napi::Env env, BatchScores& scores) {
  const size_t count = scores.logliks.size();
  Napi::Float64Array logliks = Napi::Float64Array::New(env, count);
  Napi::Uint8Array greedy = Napi::Uint8Array::New(env, count);
  std::copy(scores.logliks.begin(), scores.logliks.end(), logliks.Data());
  std::copy(scores.greedy.begin(), scores.greedy.end(), greedy.Data());
  Napi::Object result = Napi::Object::New(env);
  result.Set("logliks", logliks);
  result.Set("greedy", greedy);
  result.Set("paddedTokens", Napi::Number::New(env, static_cast<double>(scores.padded_tokens)));
  result.Set("logitRows", Napi::Number::New(env, static_cast<double>(scores.logit_rows)));
  return result;
}

}  // namespace

Napi::Promise queue_scoring(Napi::Env env, std::function<BatchScores()> score, std::shared_ptr<std::atomic<int>> active_runs) {
  return queue_job<BatchScores>(env, {.resource_name = "mlrb:score",
                                      .activity = "scoring a batch",
                                      .work = std::move(score),
                                      .to_js = scores_to_js,
                                      .runs_in_flight = std::move(active_runs)});
}

}  // namespace mlrb::addon
