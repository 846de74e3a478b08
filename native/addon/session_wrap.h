// NativeSession: the JS handle of one ScoringSession. Loading and scoring run on libuv worker threads
// and settle Promises; dispose() is refused while a run is in flight, because the worker holds the session.
#pragma once

#include <napi.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <unordered_map>

#include "../ort/scoring_session.h"

namespace mlrb::addon {

// Prefix KV computed by computePrefix(), by the id JS holds. Touched only on the JS thread; workers get
// their own shared_ptr to the prefix they use, so releasing an id never pulls KV from under a run.
struct PrefixTable {
  std::unordered_map<uint32_t, std::shared_ptr<const KvPrefix>> prefixes;
  uint32_t next_id = 1;
};

class SessionWrap : public Napi::ObjectWrap<SessionWrap> {
 public:
  static Napi::Function define_class(Napi::Env env);
  explicit SessionWrap(const Napi::CallbackInfo& info);

  void attach(std::shared_ptr<const ScoringSession> session) { session_ = std::move(session); }

 private:
  Napi::Value signature(const Napi::CallbackInfo& info);
  Napi::Value score(const Napi::CallbackInfo& info);
  Napi::Value compute_prefix(const Napi::CallbackInfo& info);
  Napi::Value release_prefix(const Napi::CallbackInfo& info);
  Napi::Value start_generation(const Napi::CallbackInfo& info);
  Napi::Value dispose(const Napi::CallbackInfo& info);
  Napi::Value active_runs(const Napi::CallbackInfo& info);
  Napi::Value rewrites(const Napi::CallbackInfo& info);
  Napi::Value attention_fused(const Napi::CallbackInfo& info);
  Napi::Value provider_note(const Napi::CallbackInfo& info);
  Napi::Value supports_prefix(const Napi::CallbackInfo& info);

  std::shared_ptr<const ScoringSession> session_;
  std::shared_ptr<PrefixTable> prefix_table_ = std::make_shared<PrefixTable>();
  std::shared_ptr<std::atomic<int>> active_runs_ = std::make_shared<std::atomic<int>>(0);
};

// loadSession(modelPath, options): Promise<NativeSession>
Napi::Value load_session(const Napi::CallbackInfo& info);

}  // namespace mlrb::addon
