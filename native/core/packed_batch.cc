#include "packed_batch.h"

#include <algorithm>
#include <limits>

namespace mlrb {

int64_t PackedBatch::max_row_length() const {
  int64_t longest = 0;
  for (size_t row = 0; row < row_count(); ++row) longest = std::max(longest, row_length(row));
  return longest;
}

namespace {

std::string check_offsets(std::span<const int32_t> offsets, size_t total, const char* what) {
  if (offsets.empty() || offsets.front() != 0) return std::string(what) + " must start at 0";
  for (size_t i = 1; i < offsets.size(); ++i) {
    if (offsets[i] < offsets[i - 1]) return std::string(what) + " must be non-decreasing (at " + std::to_string(i) + ")";
  }
  if (static_cast<size_t>(offsets.back()) != total) {
    return std::string(what) + " end at " + std::to_string(offsets.back()) + " but the buffer holds " + std::to_string(total);
  }
  return {};
}

}  // namespace

std::string validate_packed_batch(const PackedBatch& batch, int64_t vocab_size) {
  if (batch.row_count() == 0) return "the batch has no rows";
  if (auto error = check_offsets(batch.row_offsets, batch.tokens.size(), "row offsets"); !error.empty()) return error;
  if (batch.target_offsets.size() != batch.request_count() + 1) {
    return "target offsets need one entry per request plus one";
  }
  if (!batch.request_ends.empty() && batch.request_ends.size() != batch.request_count()) {
    return "request ends need one entry per request";
  }
  if (auto error = check_offsets(batch.target_offsets, batch.targets.size(), "target offsets"); !error.empty()) return error;
  for (size_t row = 0; row < batch.row_count(); ++row) {
    if (batch.row_length(row) == 0) return "row " + std::to_string(row) + " is empty";
  }
  for (size_t request = 0; request < batch.request_count(); ++request) {
    const int32_t row = batch.request_rows[request];
    if (row < 0 || static_cast<size_t>(row) >= batch.row_count()) {
      return "request " + std::to_string(request) + " points at row " + std::to_string(row) + ", which does not exist";
    }
    const int64_t scored = batch.target_count(request);
    if (scored == 0) return "request " + std::to_string(request) + " has no continuation tokens";
    const int64_t row_length = batch.row_length(static_cast<size_t>(row));
    if (!batch.request_ends.empty() && (batch.request_ends[request] < 1 || batch.request_ends[request] > row_length)) {
      return "request " + std::to_string(request) + " ends at position " + std::to_string(batch.request_ends[request]) + ", outside its row of " +
             std::to_string(row_length);
    }
    if (scored > batch.request_end(request)) {
      return "request " + std::to_string(request) + " scores " + std::to_string(scored) + " tokens but its input has only " +
             std::to_string(batch.request_end(request));
    }
  }
  if (vocab_size > 0) {
    const auto out_of_range = [vocab_size](int32_t id) { return id < 0 || id >= vocab_size; };
    if (auto it = std::find_if(batch.tokens.begin(), batch.tokens.end(), out_of_range); it != batch.tokens.end()) {
      return "input token id " + std::to_string(*it) + " is outside the model's vocabulary [0, " + std::to_string(vocab_size) + ")";
    }
    if (auto it = std::find_if(batch.targets.begin(), batch.targets.end(), out_of_range); it != batch.targets.end()) {
      return "continuation token id " + std::to_string(*it) + " is outside the model's vocabulary [0, " + std::to_string(vocab_size) + ")";
    }
  }
  return {};
}

PaddedInputs pad_rows(const PackedBatch& batch, int32_t pad_token_id, int64_t past_length) {
  PaddedInputs padded;
  padded.rows = static_cast<int64_t>(batch.row_count());
  padded.max_length = batch.max_row_length();
  padded.past_length = past_length;
  const auto cells = static_cast<size_t>(padded.rows * padded.max_length);
  const int64_t mask_width = past_length + padded.max_length;
  padded.input_ids.assign(cells, pad_token_id);
  padded.attention_mask.assign(static_cast<size_t>(padded.rows * mask_width), 0);
  padded.position_ids.assign(cells, 1);
  for (int64_t row = 0; row < padded.rows; ++row) {
    const int32_t* source = batch.tokens.data() + batch.row_offsets[static_cast<size_t>(row)];
    const int64_t length = batch.row_length(static_cast<size_t>(row));
    const auto base = static_cast<size_t>(row * padded.max_length);
    const auto mask_base = static_cast<size_t>(row * mask_width);
    for (int64_t position = 0; position < past_length + length; ++position) padded.attention_mask[mask_base + static_cast<size_t>(position)] = 1;
    for (int64_t position = 0; position < length; ++position) {
      padded.input_ids[base + static_cast<size_t>(position)] = source[position];
      padded.position_ids[base + static_cast<size_t>(position)] = past_length + position;
    }
  }
  return padded;
}

LogitRows plan_logit_rows(const PackedBatch& batch, int64_t padded_length, bool sliced) {
  LogitRows layout;
  layout.request_first_row.resize(batch.request_count());
  if (!sliced) {
    for (size_t request = 0; request < batch.request_count(); ++request) {
      layout.request_first_row[request] = batch.request_rows[request] * padded_length + batch.first_scored(request);
    }
    layout.logit_rows = static_cast<int64_t>(batch.row_count()) * padded_length;
    return layout;
  }
  // A row's gathered span runs from its earliest first-scored position to its latest request end.
  std::vector<int64_t> span_start(batch.row_count(), std::numeric_limits<int64_t>::max());
  std::vector<int64_t> span_end(batch.row_count(), 0);
  for (size_t request = 0; request < batch.request_count(); ++request) {
    const auto row = static_cast<size_t>(batch.request_rows[request]);
    span_start[row] = std::min(span_start[row], batch.first_scored(request));
    span_end[row] = std::max(span_end[row], batch.request_end(request));
  }
  std::vector<int64_t> first_gathered(batch.row_count(), 0);
  for (size_t row = 0; row < batch.row_count(); ++row) {
    first_gathered[row] = static_cast<int64_t>(layout.gather_positions.size());
    for (int64_t position = span_start[row]; position < span_end[row]; ++position) {
      layout.gather_positions.push_back(static_cast<int64_t>(row) * padded_length + position);
    }
  }
  for (size_t request = 0; request < batch.request_count(); ++request) {
    const auto row = static_cast<size_t>(batch.request_rows[request]);
    layout.request_first_row[request] = first_gathered[row] + batch.first_scored(request) - span_start[row];
  }
  layout.logit_rows = static_cast<int64_t>(layout.gather_positions.size());
  return layout;
}

}  // namespace mlrb
