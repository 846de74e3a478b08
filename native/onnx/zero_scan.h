// The zero scan over tensors on disk: 4 MiB chunks, memory-mapped (or read, when misaligned), handed to
// worker threads that each run the vectorized kernel into their own accumulators, merged at the end. Fake pruning (weights zeroed but kept)
// is found from its result: all-zero rows, all-zero columns and the count of zero elements.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace mlrb::onnx {

// One tensor viewed as [rows, cols] (dims[0] by the product of the rest) at `offset` in `file`.
struct ZeroScanRequest {
  std::string tensor;  // its name, for errors; may be empty
  std::string file;
  uint64_t offset = 0;
  uint64_t rows = 0;
  uint64_t cols = 0;
  uint32_t element_bytes = 0;  // 1, 2, 4 or 8
  bool ignore_sign = false;    // floating point: -0.0 is a zero too
};

struct ZeroScanResult {
  uint64_t zero_count = 0;
  std::vector<uint8_t> zero_rows;     // 1 where the whole row is zero
  std::vector<uint8_t> zero_columns;  // 1 where the whole column is zero
};

// `threads` 0 means one per hardware thread. Throws mlrb::Error(BAD_MODEL) naming the file and tensor when a
// range lies outside its file, or when the file shrinks while it is scanned.
[[nodiscard]] std::vector<ZeroScanResult> scan_zeros(const std::vector<ZeroScanRequest>& requests, size_t threads);

}  // namespace mlrb::onnx
