// The checks every forward pass makes on the logits ORT returned, wherever they live (host or device):
// the shape the batch layout expects, and every continuation token inside the vocabulary.
#pragma once

#include <cstdint>
#include <string>

#include "../core/packed_batch.h"
#include "graph_signature.h"
#include "ort_api.h"

namespace mlrb {

// Returns the vocabulary size (the logits' last dimension). Throws BAD_MODEL on an unexpected shape and
// BAD_DATA on a continuation token outside the vocabulary.
[[nodiscard]] int64_t checked_vocab_size(const Ort::TensorTypeAndShapeInfo& info, const GraphSignature& signature, const PackedBatch& batch,
                                         const PaddedInputs& padded, const LogitRows& layout);

}  // namespace mlrb
