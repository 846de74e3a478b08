// The async job behind every session's score(): the forward pass runs on a libuv worker thread and settles a
// Promise with { logliks, greedy, paddedTokens, logitRows }. It counts in the session's runs in flight until it
// has settled, so dispose() is refused meanwhile.
#pragma once

#include <napi.h>

#include <atomic>
#include <functional>
#include <memory>

#include "../ort/scoring_session.h"

namespace mlrb::addon {

// Queues the scoring and returns its Promise. `score` runs on the worker thread and must own everything it reads.
[[nodiscard]] Napi::Promise queue_scoring(Napi::Env env, std::function<BatchScores()> score, std::shared_ptr<std::atomic<int>> active_runs);

}  // namespace mlrb::addon
