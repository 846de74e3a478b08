// Conversions between JS values and the plain C++ structs of core/ and ort/. Argument problems throw
// Napi::TypeError / RangeError synchronously, before any work is queued.
#pragma once

#include <napi.h>

#include <vector>

#include "../core/packed_batch.h"
#include "../ort/graph_signature.h"
#include "../ort/scoring_session.h"

namespace mlrb::addon {

[[nodiscard]] PackedBatch packed_batch_from_js(const Napi::Value& value);
[[nodiscard]] ScoringSessionOptions session_options_from_js(const Napi::Value& value);
[[nodiscard]] Napi::Object signature_to_js(Napi::Env env, const GraphSignature& signature);
// [{ name, applied, reason }, ...]: what each load-time rewrite did.
[[nodiscard]] Napi::Array rewrites_to_js(Napi::Env env, const std::vector<graph::PassOutcome>& outcomes);
// The load-time rewrites' names in the order they run (graph::load_time_passes()), frozen: the list the TS layer
// learns its option schema from and checks its static type against (src/native/binding.ts).
[[nodiscard]] Napi::Array rewrite_pass_names_to_js(Napi::Env env);

}  // namespace mlrb::addon
