// The fused reduction at the heart of scoring. Each logits row that some request reads is walked once:
// one pass over the vocabulary gives its log-sum-exp and first argmax, in parallel over rows. Requests
// then only add up logit[target] - logsumexp, so requests sharing a row (the four answers of one MMLU
// question) share the vocabulary pass too. Only one loglik and one greedy flag per request leave here.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "packed_batch.h"

namespace mlrb {

struct PositionScore {
  double log_prob = 0.0;   // log_softmax(logits)[target]
  bool is_argmax = false;  // target is the first maximum (lm-eval compares with logits.argmax)
  bool finite = true;      // false when the row holds NaN or Inf
};

// One position: `logits` points at V contiguous floats.
[[nodiscard]] PositionScore score_position(const float* logits, int64_t vocab_size, int32_t target);

struct RequestScores {
  std::span<double> logliks;  // one per request
  std::span<uint8_t> greedy;  // one per request
};

// `logits` is [logit_rows, vocab] row-major. Request r's j-th continuation token is predicted by logits row
// layout.request_first_row[r] + j (see plan_logit_rows). Returns an empty string on success, else a
// message that names the request and position whose logits were not finite.
[[nodiscard]] std::string reduce_requests(const float* logits, int64_t logit_rows, int64_t vocab_size, const PackedBatch& batch,
                                          const LogitRows& layout, RequestScores out, size_t threads);

}  // namespace mlrb
