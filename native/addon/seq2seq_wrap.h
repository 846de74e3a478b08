// NativeSeq2SeqSession: the JS handle of one Seq2SeqSession (an encoder-decoder model's graphs). The same
// contract as NativeSession: loading and scoring run on libuv workers and settle Promises, startGeneration()
// returns a NativeGeneration, and dispose() is refused while a run is in flight.
#pragma once

#include <napi.h>

#include <atomic>
#include <memory>

#include "../ort/seq2seq_session.h"

namespace mlrb::addon {

class Seq2SeqWrap : public Napi::ObjectWrap<Seq2SeqWrap> {
 public:
  static Napi::Function define_class(Napi::Env env);
  explicit Seq2SeqWrap(const Napi::CallbackInfo& info);

  void attach(std::shared_ptr<const Seq2SeqSession> session) { session_ = std::move(session); }

 private:
  Napi::Value score(const Napi::CallbackInfo& info);
  Napi::Value start_generation(const Napi::CallbackInfo& info);
  Napi::Value dispose(const Napi::CallbackInfo& info);
  Napi::Value active_runs(const Napi::CallbackInfo& info);
  Napi::Value facts(const Napi::CallbackInfo& info);

  std::shared_ptr<const Seq2SeqSession> session_;
  std::shared_ptr<std::atomic<int>> active_runs_ = std::make_shared<std::atomic<int>>(0);
};

// loadSeq2SeqSession({ encoder, decoder, decoderWithPast? }, options): Promise<NativeSeq2SeqSession>
Napi::Value load_seq2seq_session(const Napi::CallbackInfo& info);

}  // namespace mlrb::addon
