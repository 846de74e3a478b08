// The ORT tensors one forward pass reads: padded token rows, mask, positions, the gathered logit positions
// of a sliced LM head, and past KV, either empty or a reused prefix broadcast to every row.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "../core/packed_batch.h"
#include "graph_signature.h"
#include "ort_api.h"

namespace mlrb {

// The KV of a shared prompt prefix, computed once with batch 1: one value per past input of the graph,
// in signature order, each holding `length` positions. On the CUDA path the values live in device memory.
struct KvPrefix {
  int64_t length = 0;
  bool on_device = false;
  std::vector<Ort::Value> values;
};

// Holds the buffers behind the input tensors for the duration of one Run.
struct BoundInputs {
  std::vector<const char*> names;
  std::vector<Ort::Value> values;
  std::vector<std::vector<int32_t>> int32_buffers;
  std::vector<int64_t> zeros;
};

// The token-shaped tensors of one forward pass, wherever they come from (a padded scoring batch, a decoding
// step): [rows, length] ids and positions, the [rows, past_length + length] mask, the gathered logit positions.
struct TokenTensors {
  int64_t rows = 0;
  int64_t length = 0;
  int64_t past_length = 0;
  const std::vector<int64_t>* input_ids = nullptr;
  const std::vector<int64_t>* attention_mask = nullptr;
  const std::vector<int64_t>* position_ids = nullptr;
  const std::vector<int64_t>* logit_positions = nullptr;
};

[[nodiscard]] bool is_past_input(const InputPlan& plan);

// A past input with no positions yet (a graph with KV inputs run from scratch), for `rows` rows.
[[nodiscard]] Ort::Value empty_past(const InputPlan& plan, int64_t rows);

// Every input of `signature` in order: token inputs (ids, mask, positions, zeros for token types, logit
// positions) from `tokens`, narrowed to int32 where the graph wants it, and each past input from
// `past_value(plan, index)`, index counting past inputs in signature order. The token tensors point into
// `tokens`' vectors (or the result's own buffers), which must outlive the Run.
[[nodiscard]] BoundInputs bind_pass_inputs(const GraphSignature& signature, const TokenTensors& tokens,
                                           const std::function<Ort::Value(const InputPlan&, size_t)>& past_value);

// `prefix` may be null (an empty past). The returned tensors point into `padded` and `gather_positions`,
// which must outlive the Run. A prefix on the device is not broadcast here: its past inputs are left as
// empty values for the device path to fill (see broadcast_shape).
[[nodiscard]] BoundInputs bind_inputs(const GraphSignature& signature, const PaddedInputs& padded, const std::vector<int64_t>& gather_positions,
                                      const KvPrefix* prefix);

// The shape of a batch-1 prefix tensor repeated for `rows` rows along the input's batch axis. Throws
// INTERNAL when the prefix does not have the input's type and a batch of 1.
[[nodiscard]] std::vector<int64_t> broadcast_shape(const Ort::Value& prefix, const InputPlan& plan, int64_t rows);

}  // namespace mlrb
