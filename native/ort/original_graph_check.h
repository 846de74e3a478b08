// ONNX Runtime's own verdict on a model as it was submitted, before any load-time rewrite touches it.
// The rewrites (graph/cpu_fusion.h, graph/lm_head_slice.h) replace nodes, and ORT then never sees what
// they replaced: a node ORT would refuse (an unknown attribute, a duplicated output, a type that does not
// check) can vanish into a fused node, and the rewritten graph scores a model ORT never accepted, or trips
// an internal assertion that aborts the process. Loading the original first makes ORT's refusal the
// answer, with ORT's own message, and leaves only graphs ORT accepts for the rewrites.
#pragma once

#include <cstdint>
#include <span>

#include "ort_library.h"

namespace mlrb {

// Creates, then drops, a session over the unmodified model (its bytes; external data is found through the
// options' model folder) with the caller's options (threads and provider included, so type and kernel
// checks are those of the real load) but with graph optimizations and weight prepacking off: ORT still parses the model, resolves every node's
// schema, types and shapes, checks every initializer's size against its dims and creates every kernel, and skips the work the real load redoes.
// Throws the Ort::Exception ORT raised.
void check_original_with_ort(OrtRuntime& runtime, std::span<const uint8_t> model, const Ort::SessionOptions& session_options);

}  // namespace mlrb
