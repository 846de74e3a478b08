// The ORT tensors one decoding forward pass reads. Unlike scoring (scoring_session_inputs.h), the past is a
// whole batch of KV rows, one per live prompt, carried from the previous pass's present outputs.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "graph_signature.h"
#include "ort_api.h"
#include "scoring_session_inputs.h"

namespace mlrb {

// One pass over `rows` rows of `length` new tokens that follow `past_length` cached positions.
struct DecodeFeed {
  int64_t rows = 0;
  int64_t length = 0;
  int64_t past_length = 0;
  std::vector<int64_t> input_ids;        // [rows, length]
  std::vector<int64_t> attention_mask;   // [rows, past_length + length]; 0 on padding, also padding in the past
  std::vector<int64_t> position_ids;     // [rows, length]
  std::vector<int64_t> logit_positions;  // flat row * length + position, one per row: where its next token is read
};

// `past` holds one value per past input in signature order, each with `rows` rows and `past_length` positions;
// the bound inputs are views of them, so they must outlive the Run. Empty `past`: empty past tensors (a graph
// with past inputs run from scratch). The returned tensors also point into `feed`.
[[nodiscard]] BoundInputs bind_decode_inputs(const GraphSignature& signature, const DecodeFeed& feed, std::span<Ort::Value> past);

// The rows `keep` (ascending batch indices) of a tensor whose batch dimension is `batch_axis`: how the KV
// cache shrinks when prompts finish.
[[nodiscard]] Ort::Value gather_batch_rows(const Ort::Value& tensor, int batch_axis, std::span<const int64_t> keep);

// The tensor without its first `count` positions along `sequence_axis`: how the KV cache sheds the
// left-padding columns that no remaining row attends to.
[[nodiscard]] Ort::Value drop_leading_positions(const Ort::Value& tensor, int sequence_axis, int64_t count);

}  // namespace mlrb
