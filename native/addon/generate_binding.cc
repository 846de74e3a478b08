#include "generate_binding.h"

#include <cmath>
#include <limits>
#include <string>

#include "addon_state.h"
#include "errors.h"
#include "promise_worker.h"

namespace mlrb::addon {

namespace {

std::vector<int32_t> int32_array(const Napi::Object& object, const char* field) {
  const Napi::Value value = object.Get(field);
  if (!value.IsTypedArray() || value.As<Napi::TypedArray>().TypedArrayType() != napi_int32_array) {
    throw Napi::TypeError::New(object.Env(), std::string("startGeneration(request): request.") + field + " must be an Int32Array");
  }
  const auto array = value.As<Napi::Int32Array>();
  return {array.Data(), array.Data() + array.ElementLength()};
}

double number_field(const Napi::Object& object, const char* field, const char* owner) {
  const Napi::Value value = object.Get(field);
  if (!value.IsNumber()) throw Napi::TypeError::New(object.Env(), std::string(owner) + "." + field + " must be a number");
  return value.As<Napi::Number>().DoubleValue();
}

// A whole number in [minimum, maximum], else RangeError naming the field.
int64_t integer_field(const Napi::Object& object, const char* field, const char* owner, double minimum, double maximum) {
  const double number = number_field(object, field, owner);
  if (!std::isfinite(number) || std::trunc(number) != number || number < minimum || number > maximum) {
    throw Napi::RangeError::New(object.Env(), std::string(owner) + "." + field + " must be an integer in [" +
                                                  std::to_string(static_cast<int64_t>(minimum)) + ", " +
                                                  std::to_string(static_cast<int64_t>(maximum)) + "], got " + std::to_string(number));
  }
  return static_cast<int64_t>(number);
}

constexpr double kMaxSafeInteger = 9007199254740991.0;  // 2^53 - 1: seeds beyond it are not exact JS numbers

}  // namespace

GenerationRequest generation_request_from_js(const Napi::Value& value) {
  Napi::Env env = value.Env();
  if (!value.IsObject()) throw Napi::TypeError::New(env, "startGeneration(request): request must be an object");
  const auto object = value.As<Napi::Object>();
  const std::vector<int32_t> tokens = int32_array(object, "tokens");
  const std::vector<int32_t> offsets = int32_array(object, "promptOffsets");
  const std::vector<int32_t> streams = int32_array(object, "streams");
  if (offsets.size() < 2 || offsets.front() != 0 || static_cast<size_t>(offsets.back()) != tokens.size()) {
    throw Napi::RangeError::New(env, "startGeneration(request): promptOffsets must start at 0 and end at tokens.length");
  }
  GenerationRequest request;
  for (size_t p = 0; p + 1 < offsets.size(); ++p) {
    if (offsets[p + 1] < offsets[p]) throw Napi::RangeError::New(env, "startGeneration(request): promptOffsets must not decrease");
    request.prompts.emplace_back(tokens.begin() + offsets[p], tokens.begin() + offsets[p + 1]);
  }
  if (streams.size() != request.prompts.size()) {
    throw Napi::RangeError::New(env, "startGeneration(request): streams needs one entry per prompt");
  }
  request.streams.assign(streams.begin(), streams.end());
  request.max_new_tokens = static_cast<int32_t>(integer_field(object, "maxNewTokens", "request", 1, std::numeric_limits<int32_t>::max()));
  request.eos_token_ids = int32_array(object, "eosTokenIds");
  const Napi::Value sampling = object.Get("sampling");
  if (!sampling.IsUndefined()) {
    if (!sampling.IsObject()) throw Napi::TypeError::New(env, "startGeneration(request): request.sampling must be an object");
    const auto settings = sampling.As<Napi::Object>();
    SamplingRequest chosen;
    chosen.params.temperature = number_field(settings, "temperature", "request.sampling");
    if (!(chosen.params.temperature > 0.0) || !std::isfinite(chosen.params.temperature)) {
      throw Napi::RangeError::New(env, "request.sampling.temperature must be a finite number > 0");
    }
    chosen.params.top_k = static_cast<int32_t>(integer_field(settings, "topK", "request.sampling", 0, std::numeric_limits<int32_t>::max()));
    chosen.seed = static_cast<uint64_t>(integer_field(settings, "seed", "request.sampling", 0, kMaxSafeInteger));
    request.sampling = chosen;
  }
  return request;
}

namespace {

Napi::Object step_output_to_js(Napi::Env env, const StepOutput& output) {
  const auto copy = [&](const auto& source, auto typed) {
    std::copy(source.begin(), source.end(), typed.Data());
    return typed;
  };
  Napi::Object result = Napi::Object::New(env);
  result.Set("prompts", copy(output.prompts, Napi::Int32Array::New(env, output.prompts.size())));
  result.Set("tokenOffsets", copy(output.token_offsets, Napi::Int32Array::New(env, output.token_offsets.size())));
  result.Set("tokens", copy(output.tokens, Napi::Int32Array::New(env, output.tokens.size())));
  result.Set("finish", copy(output.finish, Napi::Uint8Array::New(env, output.finish.size())));
  return result;
}

}  // namespace

Napi::Function GenerationWrap::define_class(Napi::Env env) {
  return DefineClass(env, "NativeGeneration",
                     {InstanceMethod<&GenerationWrap::step>("step"), InstanceMethod<&GenerationWrap::stop>("stop"),
                      InstanceMethod<&GenerationWrap::dispose>("dispose"), InstanceAccessor<&GenerationWrap::uses_kv_cache>("usesKvCache"),
                      InstanceAccessor<&GenerationWrap::finished>("finished")});
}

GenerationWrap::GenerationWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<GenerationWrap>(info) {}

void GenerationWrap::attach(std::shared_ptr<DecodingRun> run, std::shared_ptr<std::atomic<int>> session_runs) {
  run_ = std::move(run);
  session_runs_ = std::move(session_runs);
}

void GenerationWrap::require_idle(Napi::Env env, const char* what) const {
  if (!run_) throw Napi::Error(env, make_error(env, "DISPOSED", std::string(what) + " was called on a disposed generation"));
  if (*stepping_) {
    throw Napi::Error(env, make_error(env, "BUSY", std::string(what) + " was called while a step() is running; await it first"));
  }
}

Napi::Value GenerationWrap::step(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!info[0].IsNumber()) throw Napi::TypeError::New(env, "step(steps): steps must be a number");
  const double steps = info[0].As<Napi::Number>().DoubleValue();
  if (!(steps >= 1) || std::trunc(steps) != steps || steps > std::numeric_limits<int32_t>::max()) {
    throw Napi::RangeError::New(env, "step(steps): steps must be a positive integer");
  }
  require_idle(env, "step()");
  return queue_job<StepOutput>(env, {.resource_name = "mlrb:generate",
                                     .activity = "generating tokens",
                                     .work = [run = run_, count = static_cast<int32_t>(steps)] { return run->step(count); },
                                     .to_js = step_output_to_js,
                                     .runs_in_flight = session_runs_,
                                     .busy = stepping_});
}

Napi::Value GenerationWrap::stop(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!info[0].IsTypedArray() || info[0].As<Napi::TypedArray>().TypedArrayType() != napi_int32_array) {
    throw Napi::TypeError::New(env, "stop(prompts): prompts must be an Int32Array");
  }
  require_idle(env, "stop()");
  const auto prompts = info[0].As<Napi::Int32Array>();
  try {
    run_->stop({prompts.Data(), prompts.ElementLength()});
  } catch (const Error& error) {
    throw Napi::Error(env, make_error(env, error.code(), error.what()));
  }
  return env.Undefined();
}

Napi::Value GenerationWrap::dispose(const Napi::CallbackInfo& info) {
  if (*stepping_) {
    throw Napi::Error(info.Env(), make_error(info.Env(), "BUSY", "cannot dispose a generation while its step() is running; await it first"));
  }
  run_.reset();
  return info.Env().Undefined();
}

Napi::Value GenerationWrap::uses_kv_cache(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), run_ && run_->uses_kv_cache());
}

Napi::Value GenerationWrap::finished(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), !run_ || run_->finished());
}

Napi::Value generation_handle(Napi::Env env, const std::function<std::shared_ptr<DecodingRun>()>& make_run,
                              std::shared_ptr<std::atomic<int>> session_runs) {
  std::shared_ptr<DecodingRun> run;
  try {
    run = make_run();
  } catch (const Error& error) {
    throw Napi::Error(env, make_error(env, error.code(), error.what()));
  }
  Napi::Object handle = state_of(env).generation_constructor.New({});
  GenerationWrap::Unwrap(handle)->attach(std::move(run), std::move(session_runs));
  return handle;
}

Napi::Value start_generation(const Napi::CallbackInfo& info, std::shared_ptr<const ScoringSession> session,
                             std::shared_ptr<std::atomic<int>> session_runs) {
  Napi::Env env = info.Env();
  GenerationRequest request = generation_request_from_js(info[0]);
  if (!session) throw Napi::Error(env, make_error(env, "DISPOSED", "startGeneration() was called on a disposed session"));
  return generation_handle(
      env, [&] { return std::make_shared<GenerationRun>(std::move(session), std::move(request)); }, std::move(session_runs));
}

}  // namespace mlrb::addon
