// The inner loop of the zero scan: one pass over a block of a [rows, cols] tensor that counts zero
// elements and ORs element bits into per-row and per-column accumulators, so all-zero rows (input
// channels) and all-zero columns (output channels, heads) fall out of the same read. The loop body is
// branch-free integer work that the compiler vectorizes, which is what keeps the scan at memory speed.
#pragma once

#include <cstdint>
#include <vector>

namespace mlrb::onnx {

// One tensor's partial result from the blocks one thread scanned.
struct ZeroAccumulator {
  uint64_t zero_count = 0;
  std::vector<uint8_t> row_nonzero;   // 1 once any element of the row was nonzero
  std::vector<uint64_t> column_bits;  // OR of masked element bits per column (storage for the kernel's type)
};

// Sizes the accumulator for a [rows, cols] tensor of `element_bytes`-wide elements.
void prepare_accumulator(ZeroAccumulator& accumulator, uint64_t rows, uint64_t cols, uint32_t element_bytes);

// Scans `count` elements starting at flat element index `first_element`. `ignore_sign` treats -0.0 as zero
// (floating-point types); integer types compare all bits.
void scan_zero_block(const void* data, uint64_t first_element, uint64_t count, uint64_t cols, uint32_t element_bytes, bool ignore_sign,
                     ZeroAccumulator& accumulator);

// Column flags from the merged accumulator bits: 1 where every element of the column was zero.
[[nodiscard]] std::vector<uint8_t> zero_columns(const ZeroAccumulator& accumulator, uint64_t cols, uint32_t element_bytes);

// ORs `from` into `into` (same shape and element width).
void merge_accumulator(ZeroAccumulator& into, const ZeroAccumulator& from, uint64_t cols, uint32_t element_bytes);

}  // namespace mlrb::onnx
