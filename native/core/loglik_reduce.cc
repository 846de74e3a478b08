#include "loglik_reduce.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "parallel_for.h"
#include "vector_math.h"

namespace mlrb {

namespace {

// Two vectorized passes over a logits row (vec::Floats, cloned per CPU target): the max, with a NaN check
// riding along, then the sum of exp(logit - max). Partial sums stay in float for one block of kBlock
// logits and are added in double, so long vocabularies lose no precision.
constexpr int64_t kBlock = 256;

struct RowStats {
  float max = 0.0F;
  double log_sum = 0.0;  // log(sum(exp(logit - max)))
  int64_t argmax = 0;
  bool finite = true;
};

MLRB_VECTOR_CLONES
RowStats row_stats(const float* logits, int64_t vocab_size) {
  RowStats stats;
  const int64_t whole = vocab_size / vec::kLanes * vec::kLanes;
  vec::Floats running = vec::splat(-std::numeric_limits<float>::infinity());
  vec::Ints not_a_number{};
  for (int64_t i = 0; i < whole; i += vec::kLanes) {
    const vec::Floats values = vec::load(logits + i);
    running = vec::maximum(running, values);
    not_a_number |= values != values;
  }
  float max = vec::max(running);
  bool has_nan = false;
  for (int lane = 0; lane < vec::kLanes; ++lane) has_nan = has_nan || not_a_number[lane] != 0;
  for (int64_t i = whole; i < vocab_size; ++i) {
    has_nan = has_nan || std::isnan(logits[i]);
    max = logits[i] > max ? logits[i] : max;
  }
  if (has_nan || !std::isfinite(max)) {
    stats.finite = false;
    return stats;
  }
  // The first index holding the max, as a sequential scan with a strict comparison would pick.
  while (logits[stats.argmax] != max) ++stats.argmax;

  double total = 0.0;
  for (int64_t block = 0; block < whole; block += kBlock) {
    const int64_t end = std::min(whole, block + kBlock);
    vec::Floats partial{};
    for (int64_t i = block; i < end; i += vec::kLanes) partial += vec::exp_nonpositive(vec::load(logits + i) - max);
    total += vec::sum(partial);
  }
  for (int64_t i = whole; i < vocab_size; ++i) total += std::exp(static_cast<double>(logits[i]) - max);
  stats.max = max;
  stats.log_sum = std::log(total);
  return stats;
}

PositionScore score_with(const RowStats& stats, const float* logits, int32_t target) {
  PositionScore score;
  score.finite = stats.finite;
  if (!stats.finite) return score;
  score.log_prob = static_cast<double>(logits[target]) - static_cast<double>(stats.max) - stats.log_sum;
  score.is_argmax = stats.argmax == target;
  return score;
}

}  // namespace

PositionScore score_position(const float* logits, int64_t vocab_size, int32_t target) {
  return score_with(row_stats(logits, vocab_size), logits, target);
}

std::string reduce_requests(const float* logits, int64_t logit_rows, int64_t vocab_size, const PackedBatch& batch, const LogitRows& layout,
                            RequestScores out, size_t threads) {
  // Each logits row that is read gets one slot, however many requests read it.
  std::vector<int32_t> slot_of_row(static_cast<size_t>(logit_rows), -1);
  std::vector<int64_t> rows_to_reduce;
  for (size_t request = 0; request < batch.request_count(); ++request) {
    for (int64_t j = 0; j < batch.target_count(request); ++j) {
      const int64_t row = layout.request_first_row[request] + j;
      if (slot_of_row[static_cast<size_t>(row)] >= 0) continue;
      slot_of_row[static_cast<size_t>(row)] = static_cast<int32_t>(rows_to_reduce.size());
      rows_to_reduce.push_back(row);
    }
  }
  std::vector<RowStats> stats(rows_to_reduce.size());
  parallel_for(rows_to_reduce.size(), threads, [&](size_t slot) { stats[slot] = row_stats(logits + rows_to_reduce[slot] * vocab_size, vocab_size); });

  for (size_t request = 0; request < batch.request_count(); ++request) {
    const int32_t* targets = batch.targets.data() + batch.target_offsets[request];
    const int64_t scored = batch.target_count(request);
    double loglik = 0.0;
    bool greedy = true;
    for (int64_t j = 0; j < scored; ++j) {
      const int64_t row = layout.request_first_row[request] + j;
      const PositionScore score =
          score_with(stats[static_cast<size_t>(slot_of_row[static_cast<size_t>(row)])], logits + row * vocab_size, targets[j]);
      if (!score.finite) {
        return "logits are NaN or Inf for request " + std::to_string(request) + " at position " + std::to_string(batch.first_scored(request) + j) +
               " of row " + std::to_string(batch.request_rows[request]);
      }
      loglik += score.log_prob;
      greedy = greedy && score.is_argmax;
    }
    out.logliks[request] = loglik;
    out.greedy[request] = greedy ? 1 : 0;
  }
  return {};
}

}  // namespace mlrb
