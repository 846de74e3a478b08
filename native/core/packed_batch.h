// A batch as it crosses from JS: token rows concatenated, and requests that each score a continuation
// in one row. Several requests may share a row (lm-eval's logits cache: " A".." D" of one MMLU question
// are one forward pass with four targets). A request scores the positions just before its end: the row's
// end by default, or an earlier one when its own input is a prefix of the row (a causal model's logits at
// a position do not depend on the tokens after it).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace mlrb {

struct PackedBatch {
  std::vector<int32_t> tokens;          // all rows, concatenated
  std::vector<int32_t> row_offsets;     // rows + 1 entries; row r is tokens[row_offsets[r], row_offsets[r+1])
  std::vector<int32_t> request_rows;    // for each request, the row it reads its logits from
  std::vector<int32_t> targets;         // all requests' continuation tokens, concatenated
  std::vector<int32_t> target_offsets;  // requests + 1 entries
  std::vector<int32_t> request_ends;    // per request, the position after its last scored one; empty: row ends

  [[nodiscard]] size_t row_count() const { return row_offsets.empty() ? 0 : row_offsets.size() - 1; }
  [[nodiscard]] size_t request_count() const { return request_rows.size(); }
  [[nodiscard]] int64_t row_length(size_t row) const { return row_offsets[row + 1] - row_offsets[row]; }
  [[nodiscard]] int64_t max_row_length() const;
  [[nodiscard]] int64_t target_count(size_t request) const { return target_offsets[request + 1] - target_offsets[request]; }
  [[nodiscard]] int64_t request_end(size_t request) const {
    return request_ends.empty() ? row_length(static_cast<size_t>(request_rows[request])) : request_ends[request];
  }
  // The first position whose logits the request reads.
  [[nodiscard]] int64_t first_scored(size_t request) const { return request_end(request) - target_count(request); }
};

// Checks every structural invariant the kernels rely on; returns an empty string when the batch is
// valid, else a message naming the first violation. vocab_size <= 0 skips the id range checks.
[[nodiscard]] std::string validate_packed_batch(const PackedBatch& batch, int64_t vocab_size);

// Right-padded [rows, max_len] views of the batch in the layout causal LMs expect: the model sees its
// tokens at positions 0..n-1 and padding after them, which a causal mask keeps out of every scored
// position. attention_mask is 1 on tokens, 0 on padding; position_ids count tokens (HF: cumsum(mask)-1,
// with padding set to 1). With a reused prefix of past_length tokens (its KV fed as past), every row
// continues that prefix: positions start at past_length and the mask covers [past_length + max_len].
struct PaddedInputs {
  int64_t rows = 0;
  int64_t max_length = 0;
  int64_t past_length = 0;
  std::vector<int64_t> input_ids;       // [rows, max_length]
  std::vector<int64_t> attention_mask;  // [rows, past_length + max_length]
  std::vector<int64_t> position_ids;    // [rows, max_length]
};

[[nodiscard]] PaddedInputs pad_rows(const PackedBatch& batch, int32_t pad_token_id, int64_t past_length = 0);

// Where each request's logits live. Full logits are [rows, padded_length, vocab], so request r's first
// scored position is logits row r_row * padded_length + first_scored(r). Sliced logits hold only the
// positions some request of a row scores (the span from the row's first scored position to its last),
// gathered once per row (requests sharing a row share them), in row order.
struct LogitRows {
  std::vector<int64_t> gather_positions;   // sliced: flat row * padded_length + position indices to gather
  std::vector<int64_t> request_first_row;  // for each request, the logits row of its first scored position
  int64_t logit_rows = 0;                  // rows of the logits tensor the reduction reads
};

[[nodiscard]] LogitRows plan_logit_rows(const PackedBatch& batch, int64_t padded_length, bool sliced);

}  // namespace mlrb
