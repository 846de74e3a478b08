#include "seq2seq_wrap.h"

#include <cmath>
#include <limits>

#include "../ort/element_types.h"
#include "../ort/seq2seq_generation.h"
#include "addon_state.h"
#include "errors.h"
#include "fatal_signal_report.h"
#include "generate_binding.h"
#include "js_convert.h"
#include "load_worker.h"
#include "score_worker.h"

namespace mlrb::addon {

namespace {

std::string string_field(const Napi::Object& object, const char* field, bool required) {
  const Napi::Value value = object.Get(field);
  if (value.IsUndefined() && !required) return {};
  if (!value.IsString()) throw Napi::TypeError::New(object.Env(), std::string("loadSeq2SeqSession: files.") + field + " must be a string");
  return value.As<Napi::String>().Utf8Value();
}

int64_t integer_option(const Napi::Object& object, const char* field, int64_t fallback, int64_t minimum) {
  const Napi::Value value = object.Get(field);
  if (value.IsUndefined()) return fallback;
  if (!value.IsNumber()) throw Napi::TypeError::New(object.Env(), std::string("options.") + field + " must be a number");
  const double number = value.As<Napi::Number>().DoubleValue();
  if (!std::isfinite(number) || std::trunc(number) != number || number < static_cast<double>(minimum) ||
      number > static_cast<double>(std::numeric_limits<int32_t>::max())) {
    throw Napi::RangeError::New(object.Env(), std::string("options.") + field + " must be an integer >= " + std::to_string(minimum));
  }
  return static_cast<int64_t>(number);
}

Seq2SeqFiles files_from_js(const Napi::Value& value) {
  if (!value.IsObject()) throw Napi::TypeError::New(value.Env(), "loadSeq2SeqSession(files, options): files must be an object");
  const auto object = value.As<Napi::Object>();
  return {string_field(object, "encoder", true), string_field(object, "decoder", true), string_field(object, "decoderWithPast", false)};
}

Seq2SeqOptions options_from_js(const Napi::Value& value) {
  Seq2SeqOptions options;
  if (value.IsUndefined()) return options;
  if (!value.IsObject()) throw Napi::TypeError::New(value.Env(), "loadSeq2SeqSession(files, options): options must be an object");
  const auto object = value.As<Napi::Object>();
  const Napi::Value provider = object.Get("provider");
  if (!provider.IsUndefined()) {
    if (!provider.IsString()) throw Napi::TypeError::New(value.Env(), "options.provider must be a string");
    options.provider = provider.As<Napi::String>().Utf8Value();
  }
  const Napi::Value read_root = object.Get("readRoot");
  if (!read_root.IsUndefined()) {
    if (!read_root.IsString()) throw Napi::TypeError::New(value.Env(), "options.readRoot must be a string");
    options.read_root = read_root.As<Napi::String>().Utf8Value();
  }
  options.intra_op_threads = static_cast<int>(integer_option(object, "intraOpThreads", 0, 0));
  options.decoder_start_token_id = static_cast<int32_t>(integer_option(object, "decoderStartTokenId", 0, 0));
  options.pad_token_id = static_cast<int32_t>(integer_option(object, "padTokenId", 0, 0));
  options.num_heads = integer_option(object, "numHeads", -1, 1);
  options.head_dim = integer_option(object, "headDim", -1, 1);
  return options;
}

}  // namespace

Napi::Function Seq2SeqWrap::define_class(Napi::Env env) {
  return DefineClass(env, "NativeSeq2SeqSession",
                     {InstanceMethod<&Seq2SeqWrap::score>("score"), InstanceMethod<&Seq2SeqWrap::start_generation>("startGeneration"),
                      InstanceMethod<&Seq2SeqWrap::dispose>("dispose"), InstanceMethod<&Seq2SeqWrap::facts>("facts"),
                      InstanceAccessor<&Seq2SeqWrap::active_runs>("activeRuns")});
}

Seq2SeqWrap::Seq2SeqWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<Seq2SeqWrap>(info) {}

Napi::Value Seq2SeqWrap::score(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  PackedBatch batch = packed_batch_from_js(info[0]);
  if (!session_) return rejected_promise(env, "DISPOSED", "score() was called on a disposed session");
  return queue_scoring(
      env, [session = session_, batch = std::move(batch)] { return session->score(batch); }, active_runs_);
}

Napi::Value Seq2SeqWrap::start_generation(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  GenerationRequest request = generation_request_from_js(info[0]);
  if (!session_) throw Napi::Error(env, make_error(env, "DISPOSED", "startGeneration() was called on a disposed session"));
  return generation_handle(
      env, [&] { return std::make_shared<Seq2SeqGenerationRun>(session_, std::move(request)); }, active_runs_);
}

// { description, usesKvCache, layers, logitsType, vocabSize (null when symbolic) }
Napi::Value Seq2SeqWrap::facts(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!session_) throw Napi::Error(env, make_error(env, "DISPOSED", "the session has been disposed"));
  Napi::Object facts = Napi::Object::New(env);
  facts.Set("description", session_->description());
  facts.Set("usesKvCache", session_->uses_kv_cache());
  facts.Set("layers", session_->layers());
  facts.Set("logitsType", element_type_name(session_->decoder_signature().logits_type));
  facts.Set("vocabSize", session_->vocab_size() > 0 ? Napi::Value(Napi::Number::New(env, static_cast<double>(session_->vocab_size()))) : env.Null());
  return facts;
}

Napi::Value Seq2SeqWrap::dispose(const Napi::CallbackInfo& info) {
  if (*active_runs_ > 0) {
    throw Napi::Error(
        info.Env(), make_error(info.Env(), "BUSY",
                               "cannot dispose a session while " + std::to_string(active_runs_->load()) + " run(s) are in flight; await them first"));
  }
  session_.reset();
  return info.Env().Undefined();
}

Napi::Value Seq2SeqWrap::active_runs(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), active_runs_->load());
}

Napi::Value load_seq2seq_session(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Seq2SeqFiles files = files_from_js(info[0]);
  Seq2SeqOptions options = options_from_js(info[1]);
  return queue_load<Seq2SeqSession, Seq2SeqWrap>(
      env, "loading an encoder-decoder model",
      [files = std::move(files), options = std::move(options)](OrtRuntime& runtime) {
        return std::make_shared<const Seq2SeqSession>(runtime, files, options);
      },
      &AddonState::seq2seq_constructor);
}

}  // namespace mlrb::addon
