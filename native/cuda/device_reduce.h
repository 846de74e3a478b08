// The CUDA twin of core/loglik_reduce.h, with the same contract: per scored position, log_softmax at the
// target and whether the target is the first argmax; per request, the sum and the AND over its positions.
// As on the host, each distinct logits row is walked once, however many requests read it (the four answers
// of one MMLU question share one row): the vocabulary pass gives the row's max, sum of exponentials and
// first argmax, and each request then reads only its target's logit.
// Logits stay on the device (ORT's CUDA output, bound with IO binding); only [requests] results come back.
// This header is plain C++ so the addon can call it without CUDA headers; it exists only in CUDA builds.
#pragma once

#include <cstdint>
#include <string>

namespace mlrb::cuda {

enum class LogitsType { kFloat32, kFloat16, kBFloat16 };

// What one vocabulary pass leaves for a logits row. Device scratch; its layout is shared by both kernels.
struct RowStats {
  float max = 0.0F;
  float sum = 0.0F;    // sum of exp(logit - max)
  int64_t argmax = 0;  // first index of the maximum
  int32_t finite = 0;  // 1 when every logit of the row is finite and the sum positive
  int32_t unused = 0;
};

struct DeviceReduceArgs {
  const void* logits = nullptr;  // device, [logit rows, vocab] of `type`
  LogitsType type = LogitsType::kFloat32;
  int64_t vocab_size = 0;
  // Device array: the logits rows some request reads, each once.
  const int64_t* rows = nullptr;
  int32_t row_count = 0;
  // Device arrays: for each scored position, the index into `rows` of its logits row, and its target token.
  const int32_t* position_rows = nullptr;
  const int32_t* position_targets = nullptr;
  int32_t positions = 0;
  // Device array of requests + 1 entries: request r owns positions [request_offsets[r], request_offsets[r+1]).
  const int32_t* request_offsets = nullptr;
  int32_t requests = 0;
  // Device scratch and outputs.
  RowStats* row_stats = nullptr;          // [row_count] scratch
  uint8_t* position_is_argmax = nullptr;  // [positions] (2 = non-finite logits), read back only to name a bad position
  double* request_logliks = nullptr;      // [requests]
  uint8_t* request_greedy = nullptr;      // [requests] (2 = non-finite logits somewhere)
  void* stream = nullptr;                 // cudaStream_t; null = the default stream
};

// Enqueues both kernels on `stream`. Returns "" on success, else the CUDA error text.
[[nodiscard]] std::string reduce_on_device(const DeviceReduceArgs& args);

}  // namespace mlrb::cuda
