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

}  // namespace mlrb::addon
