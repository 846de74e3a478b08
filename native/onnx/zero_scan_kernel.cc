#include "zero_scan_kernel.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace mlrb::onnx {

namespace {

template <typename Word>
Word sign_mask(bool ignore_sign) {
  const Word all = static_cast<Word>(~Word{0});
  return ignore_sign ? static_cast<Word>(all >> 1) : all;
}

template <typename Word>
void scan_words(const Word* __restrict data, uint64_t first_element, uint64_t count, uint64_t cols, Word mask, ZeroAccumulator& accumulator) {
  Word* __restrict column_bits = reinterpret_cast<Word*>(accumulator.column_bits.data());
  uint64_t row = first_element / cols;
  uint64_t column = first_element % cols;
  // The zero count runs in a Word-wide counter over blocks short enough not to overflow it, so the
  // compare-and-add stays in the same vector lanes as the data instead of widening to 64 bits.
  constexpr uint64_t kBlock = std::min<uint64_t>(std::numeric_limits<Word>::max(), uint64_t{1} << 20);
  while (count > 0) {
    const uint64_t span = std::min(count, cols - column);
    Word row_bits = 0;
    Word* __restrict columns = column_bits + column;
    for (uint64_t start = 0; start < span; start += kBlock) {
      const uint64_t end = std::min(span, start + kBlock);
      Word zeros = 0;
      for (uint64_t index = start; index < end; ++index) {
        const Word value = static_cast<Word>(data[index] & mask);
        columns[index] |= value;
        row_bits |= value;
        zeros += value == 0 ? 1 : 0;
      }
      accumulator.zero_count += zeros;
    }
    if (row_bits != 0) accumulator.row_nonzero[row] = 1;
    data += span;
    count -= span;
    column = 0;
    ++row;
  }
}

template <typename Word>
void merge_words(uint64_t* into, const uint64_t* from, uint64_t cols) {
  Word* target = reinterpret_cast<Word*>(into);
  const Word* source = reinterpret_cast<const Word*>(from);
  for (uint64_t index = 0; index < cols; ++index) target[index] |= source[index];
}

template <typename Word>
std::vector<uint8_t> columns_from_words(const uint64_t* storage, uint64_t cols) {
  const Word* words = reinterpret_cast<const Word*>(storage);
  std::vector<uint8_t> zero(cols);
  for (uint64_t index = 0; index < cols; ++index) zero[index] = words[index] == 0 ? 1 : 0;
  return zero;
}

}  // namespace

void prepare_accumulator(ZeroAccumulator& accumulator, uint64_t rows, uint64_t cols, uint32_t element_bytes) {
  accumulator.zero_count = 0;
  accumulator.row_nonzero.assign(rows, 0);
  // uint64_t storage keeps every narrower word type aligned; only the first cols * element_bytes are used.
  accumulator.column_bits.assign((cols * element_bytes + 7) / 8, 0);
}

void scan_zero_block(const void* data, uint64_t first_element, uint64_t count, uint64_t cols, uint32_t element_bytes, bool ignore_sign,
                     ZeroAccumulator& accumulator) {
  switch (element_bytes) {
    case 1: scan_words<uint8_t>(static_cast<const uint8_t*>(data), first_element, count, cols, sign_mask<uint8_t>(ignore_sign), accumulator); break;
    case 2:
      scan_words<uint16_t>(static_cast<const uint16_t*>(data), first_element, count, cols, sign_mask<uint16_t>(ignore_sign), accumulator);
      break;
    case 4:
      scan_words<uint32_t>(static_cast<const uint32_t*>(data), first_element, count, cols, sign_mask<uint32_t>(ignore_sign), accumulator);
      break;
    case 8:
      scan_words<uint64_t>(static_cast<const uint64_t*>(data), first_element, count, cols, sign_mask<uint64_t>(ignore_sign), accumulator);
      break;
    default: throw std::invalid_argument("zero scan: unsupported element width " + std::to_string(element_bytes));
  }
}

void merge_accumulator(ZeroAccumulator& into, const ZeroAccumulator& from, uint64_t cols, uint32_t element_bytes) {
  into.zero_count += from.zero_count;
  for (size_t row = 0; row < into.row_nonzero.size(); ++row) into.row_nonzero[row] |= from.row_nonzero[row];
  switch (element_bytes) {
    case 1: merge_words<uint8_t>(into.column_bits.data(), from.column_bits.data(), cols); break;
    case 2: merge_words<uint16_t>(into.column_bits.data(), from.column_bits.data(), cols); break;
    case 4: merge_words<uint32_t>(into.column_bits.data(), from.column_bits.data(), cols); break;
    default: merge_words<uint64_t>(into.column_bits.data(), from.column_bits.data(), cols); break;
  }
}

std::vector<uint8_t> zero_columns(const ZeroAccumulator& accumulator, uint64_t cols, uint32_t element_bytes) {
  switch (element_bytes) {
    case 1: return columns_from_words<uint8_t>(accumulator.column_bits.data(), cols);
    case 2: return columns_from_words<uint16_t>(accumulator.column_bits.data(), cols);
    case 4: return columns_from_words<uint32_t>(accumulator.column_bits.data(), cols);
    default: return columns_from_words<uint64_t>(accumulator.column_bits.data(), cols);
  }
}

}  // namespace mlrb::onnx
