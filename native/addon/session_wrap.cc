#include "session_wrap.h"

#include "addon_state.h"
#include "cpu_kernel_binding.h"
#include "errors.h"
#include "generate_binding.h"
#include "js_convert.h"
#include "load_worker.h"
#include "promise_worker.h"
#include "score_worker.h"

namespace mlrb::addon {

Napi::Function SessionWrap::define_class(Napi::Env env) {
  return DefineClass(
      env, "NativeSession",
      {InstanceMethod<&SessionWrap::signature>("signature"), InstanceMethod<&SessionWrap::score>("score"),
       InstanceMethod<&SessionWrap::compute_prefix>("computePrefix"), InstanceMethod<&SessionWrap::release_prefix>("releasePrefix"),
       InstanceMethod<&SessionWrap::start_generation>("startGeneration"), InstanceMethod<&SessionWrap::dispose>("dispose"),
       InstanceAccessor<&SessionWrap::active_runs>("activeRuns"), InstanceAccessor<&SessionWrap::rewrites>("rewrites"),
       InstanceAccessor<&SessionWrap::attention_fused>("attentionFused"), InstanceAccessor<&SessionWrap::provider_note>("providerNote"),
       InstanceAccessor<&SessionWrap::supports_prefix>("supportsPrefix")});
}

SessionWrap::SessionWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<SessionWrap>(info) {}

Napi::Value SessionWrap::signature(const Napi::CallbackInfo& info) {
  if (!session_) throw Napi::Error(info.Env(), make_error(info.Env(), "DISPOSED", "the session has been disposed"));
  return signature_to_js(info.Env(), session_->signature());
}

Napi::Value SessionWrap::score(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  PackedBatch batch = packed_batch_from_js(info[0]);
  std::shared_ptr<const KvPrefix> prefix;
  if (!info[1].IsUndefined()) {
    if (!info[1].IsNumber()) throw Napi::TypeError::New(env, "score(batch, prefixId): prefixId must be a number from computePrefix()");
    const auto found = prefix_table_->prefixes.find(info[1].As<Napi::Number>().Uint32Value());
    if (found == prefix_table_->prefixes.end()) {
      throw Napi::RangeError::New(env, "score(batch, prefixId): no prefix has that id (released, or from another session)");
    }
    prefix = found->second;
  }
  if (!session_) return rejected_promise(env, "DISPOSED", "score() was called on a disposed session");
  return queue_scoring(
      env, [session = session_, batch = std::move(batch), prefix = std::move(prefix)] { return session->score(batch, prefix.get()); }, active_runs_);
}

Napi::Value SessionWrap::compute_prefix(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!info[0].IsTypedArray() || info[0].As<Napi::TypedArray>().TypedArrayType() != napi_int32_array) {
    throw Napi::TypeError::New(env, "computePrefix(tokens): tokens must be an Int32Array");
  }
  const auto tokens = info[0].As<Napi::Int32Array>();
  if (!session_) return rejected_promise(env, "DISPOSED", "computePrefix() was called on a disposed session");
  std::vector<int32_t> prefix_tokens(tokens.Data(), tokens.Data() + tokens.ElementLength());
  // The prefix's KV is computed off the JS thread and filed in the session's prefix table under a new id.
  return queue_job<std::shared_ptr<const KvPrefix>>(
      env, {.resource_name = "mlrb:prefix",
            .activity = "computing a shared prefix's KV cache",
            .work = [session = session_, prefix_tokens = std::move(prefix_tokens)] { return session->compute_prefix(prefix_tokens); },
            .to_js = [table = prefix_table_](Napi::Env scope, std::shared_ptr<const KvPrefix>& prefix) -> Napi::Value {
              const uint32_t id = table->next_id++;
              table->prefixes.emplace(id, std::move(prefix));
              return Napi::Number::New(scope, id);
            },
            .runs_in_flight = active_runs_});
}

Napi::Value SessionWrap::release_prefix(const Napi::CallbackInfo& info) {
  if (!info[0].IsNumber()) throw Napi::TypeError::New(info.Env(), "releasePrefix(prefixId): prefixId must be a number");
  prefix_table_->prefixes.erase(info[0].As<Napi::Number>().Uint32Value());
  return info.Env().Undefined();
}

Napi::Value SessionWrap::start_generation(const Napi::CallbackInfo& info) {
  return addon::start_generation(info, session_, active_runs_);
}

Napi::Value SessionWrap::rewrites(const Napi::CallbackInfo& info) {
  return rewrites_to_js(info.Env(), session_ ? session_->rewrites() : std::vector<graph::PassOutcome>{});
}

Napi::Value SessionWrap::attention_fused(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), session_ && session_->attention_fused());
}

Napi::Value SessionWrap::provider_note(const Napi::CallbackInfo& info) {
  return Napi::String::New(info.Env(), session_ ? session_->provider_note() : "");
}

Napi::Value SessionWrap::supports_prefix(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), session_ && session_->supports_prefix());
}

Napi::Value SessionWrap::dispose(const Napi::CallbackInfo& info) {
  if (*active_runs_ > 0) {
    throw Napi::Error(info.Env(), make_error(info.Env(), "BUSY",
                                             "cannot dispose a session while " + std::to_string(active_runs_->load()) +
                                                 " score() call(s) are running; await them first"));
  }
  // Prefixes first: on the GPU their KV lives in the session's device arena.
  prefix_table_->prefixes.clear();
  session_.reset();
  return info.Env().Undefined();
}

Napi::Value SessionWrap::active_runs(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), active_runs_->load());
}

Napi::Value load_session(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!info[0].IsString()) throw Napi::TypeError::New(env, "loadSession(modelPath, options): modelPath must be a string");
  ScoringSessionOptions options = session_options_from_js(info[1]);
  // A bad MLRB_CPU_PATH fails here, synchronously, rather than in the fused op's first run.
  static_cast<void>(kernel_path_choice_or_throw(env));
  return queue_load<ScoringSession, SessionWrap>(
      env, "loading a model",
      [path = info[0].As<Napi::String>().Utf8Value(), options = std::move(options)](OrtRuntime& runtime) {
        return std::make_shared<const ScoringSession>(runtime, path, options);
      },
      &AddonState::session_constructor);
}

}  // namespace mlrb::addon
