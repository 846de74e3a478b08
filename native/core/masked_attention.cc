#include "masked_attention.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <unordered_map>

#include "vector_math.h"

namespace mlrb {

namespace {

// exp(x - max) for x - max below this is under float resolution next to the max's own term of 1.
constexpr float kNegligibleGap = -87.0F;
// Additive masks mark excluded keys with -inf or a huge negative value (float-min, -1e9 ...); at or below
// this a key counts as excluded, so rows can stop at their last included key.
constexpr float kExcludingBias = -1.0e30F;

bool keeps(const MaskLayout& mask, int64_t at) {
  switch (mask.kind) {
    case MaskKind::kKeepWhereTrue: return mask.keep[at];
    case MaskKind::kKeepWhereFalse: return !mask.keep[at];
    case MaskKind::kAdditive: return mask.additive[at] > kExcludingBias;
  }
  return true;
}

struct RowScan {
  int64_t limit = 0;  // one past the last included key: later columns are not computed at all
  bool gaps = false;  // some key before the limit is excluded, so the mask must be applied
};

// Causal masks make most rows end in a long excluded run; over contiguous bool rows it is skipped a
// machine word (8 keys) at a time.
RowScan scan_row(const MaskLayout& mask, int64_t row_base, int64_t keys) {
  RowScan scan;
  if (mask.key_stride == 0) {
    scan.limit = keys;
    scan.gaps = !keeps(mask, row_base);
    return scan;
  }
  int64_t key = keys;
  if (mask.key_stride == 1 && mask.kind != MaskKind::kAdditive) {
    const uint64_t excluded_word = mask.kind == MaskKind::kKeepWhereTrue ? 0 : 0x0101010101010101ULL;
    const auto* bytes = reinterpret_cast<const uint8_t*>(mask.keep + row_base);
    while (key >= 8) {
      uint64_t word = 0;
      std::memcpy(&word, bytes + key - 8, sizeof(word));
      if (word != excluded_word) break;
      key -= 8;
    }
  }
  while (key > 0 && !keeps(mask, row_base + (key - 1) * mask.key_stride)) --key;
  scan.limit = key;
  for (int64_t j = 0; j < key && !scan.gaps; ++j) scan.gaps = !keeps(mask, row_base + j * mask.key_stride);
  return scan;
}

// Whether the excluded columns after the limit would add nothing to a row whose maximum is row_max.
bool tail_is_negligible(const MaskLayout& mask, float row_max) {
  if (mask.kind == MaskKind::kAdditive) return row_max > kExcludingBias / 10.0F;
  return mask.fill - std::max(row_max, mask.fill) < kNegligibleGap;
}

// The helpers below are inlined into attend_head_rows, so each is compiled once per clone of it. Row
// lengths are padded to whole lanes (kLanes floats), so no loop has a scalar tail.

MLRB_VECTOR_INLINE int64_t whole_lanes(int64_t count) { return (count + vec::kLanes - 1) / vec::kLanes * vec::kLanes; }

// target[column * stride + row] = source[row * columns + column]; rows up to stride stay zero.
MLRB_VECTOR_INLINE void transpose_padded(const float* source, int64_t rows, int64_t columns, int64_t stride, float* target) {
  std::fill(target, target + columns * stride, 0.0F);
  for (int64_t row = 0; row < rows; ++row) {
    for (int64_t column = 0; column < columns; ++column) target[column * stride + row] = source[row * columns + column];
  }
}

// scores[j] = dot(scale * query, key j) for j < padded, from keys stored transposed: [key_dim, stride].
MLRB_VECTOR_INLINE void score_columns(const float* query, const float* keys_transposed, int64_t key_dim, int64_t stride, int64_t padded,
                          float scale, float* scores) {
  for (int64_t j = 0; j < padded; j += vec::kLanes) {
    vec::Floats total{};
    for (int64_t d = 0; d < key_dim; ++d) total += vec::splat(query[d] * scale) * vec::load(keys_transposed + d * stride + j);
    vec::store(scores + j, total);
  }
}

MLRB_VECTOR_INLINE void apply_mask(const MaskLayout& mask, int64_t row_base, int64_t count, float* scores) {
  const int64_t stride = mask.key_stride;
  switch (mask.kind) {
    case MaskKind::kKeepWhereTrue:
      for (int64_t j = 0; j < count; ++j) scores[j] = mask.keep[row_base + j * stride] ? scores[j] : mask.fill;
      break;
    case MaskKind::kKeepWhereFalse:
      for (int64_t j = 0; j < count; ++j) scores[j] = mask.keep[row_base + j * stride] ? mask.fill : scores[j];
      break;
    case MaskKind::kAdditive:
      for (int64_t j = 0; j < count; ++j) scores[j] += mask.additive[row_base + j * stride];
      break;
  }
}

MLRB_VECTOR_INLINE float max_of(const float* values, int64_t padded) {
  vec::Floats running = vec::splat(-std::numeric_limits<float>::infinity());
  for (int64_t j = 0; j < padded; j += vec::kLanes) running = vec::maximum(running, vec::load(values + j));
  return vec::max(running);
}

// values[j] = exp(values[j] - shift); returns their sum.
MLRB_VECTOR_INLINE float exponentiate_and_sum(float* values, int64_t padded, float shift) {
  vec::Floats total{};
  for (int64_t j = 0; j < padded; j += vec::kLanes) {
    const vec::Floats weights = vec::exp_nonpositive(vec::load(values + j) - shift);
    vec::store(values + j, weights);
    total += weights;
  }
  return vec::sum(total);
}

// output = factor * sum_j weights[j] * values[j, :], over value rows [count, value_dim]. Accumulated in
// row order, eight dimensions per vector with four independent partial sums, so no horizontal reduction
// is needed per dimension (which is what dominates short rows when values are stored transposed).
MLRB_VECTOR_INLINE void weighted_sum(const float* weights, const float* values, int64_t value_dim, int64_t count, float factor,
                                     float* output) {
  constexpr int64_t kChunk = 8;
  int64_t d = 0;
  for (; d + kChunk <= value_dim; d += kChunk) {
    vec::Floats8 partial[4] = {};
    int64_t j = 0;
    for (; j + 4 <= count; j += 4) {
      for (int64_t k = 0; k < 4; ++k) partial[k] += weights[j + k] * vec::load8(values + (j + k) * value_dim + d);
    }
    for (; j < count; ++j) partial[0] += weights[j] * vec::load8(values + j * value_dim + d);
    vec::store8(output + d, ((partial[0] + partial[1]) + (partial[2] + partial[3])) * factor);
  }
  for (; d < value_dim; ++d) {
    float total = 0.0F;
    for (int64_t j = 0; j < count; ++j) total += weights[j] * values[j * value_dim + d];
    output[d] = total * factor;
  }
}

MLRB_VECTOR_CLONES
void attend_head_rows(const AttentionShape& shape, float scale, const float* q, const float* k, const float* v,
                      const MaskLayout& mask, int64_t head, float* output, AttentionScratch& scratch) {
  const int64_t keys = shape.keys;
  const int64_t stride = whole_lanes(keys);
  scratch.keys_transposed.resize(static_cast<size_t>(shape.key_dim * stride));
  scratch.scores.resize(static_cast<size_t>(stride));
  float* keys_transposed = scratch.keys_transposed.data();
  float* scores = scratch.scores.data();
  transpose_padded(k, keys, shape.key_dim, stride, keys_transposed);
  const int64_t group = mask.head_group[static_cast<size_t>(head)];

  for (int64_t query = 0; query < shape.queries; ++query) {
    const int64_t row_base = mask.head_offset[static_cast<size_t>(head)] + query * mask.query_stride;
    const auto row = static_cast<size_t>(group * shape.queries + query);
    int64_t limit = mask.included_limit[row];
    bool gaps = mask.has_gaps[row] != 0;
    // Scores of the row's first `limit` keys; the padding after them (excluded keys, or zeros past the
    // last key) is set to -inf so it never wins the max.
    const auto score_row = [&]() {
      const int64_t padded = whole_lanes(limit);
      score_columns(q + query * shape.key_dim, keys_transposed, shape.key_dim, stride, padded, scale, scores);
      if (gaps) apply_mask(mask, row_base, limit, scores);
      std::fill(scores + limit, scores + padded, -std::numeric_limits<float>::infinity());
      return max_of(scores, padded);
    };
    float row_max = score_row();
    if (limit < keys && !tail_is_negligible(mask, row_max)) {
      limit = keys;
      gaps = true;
      row_max = score_row();
    }
    float* output_row = output + query * shape.value_dim;
    // Every score -inf (or NaN): the graph's softmax yields NaN, and so does this.
    if (!(row_max > -std::numeric_limits<float>::infinity())) {
      std::fill(output_row, output_row + shape.value_dim, std::numeric_limits<float>::quiet_NaN());
      continue;
    }
    const int64_t padded = whole_lanes(limit);
    const float sum = exponentiate_and_sum(scores, padded, row_max);
    weighted_sum(scores, v, shape.value_dim, limit, 1.0F / sum, output_row);  // the padding's exp(-87) never weighs
  }
}

}  // namespace

void prepare_mask_rows(MaskLayout& mask, int64_t queries, int64_t keys) {
  std::unordered_map<int64_t, int64_t> group_of_offset;
  mask.head_group.clear();
  mask.included_limit.clear();
  mask.has_gaps.clear();
  for (const int64_t offset : mask.head_offset) {
    const auto [entry, added] = group_of_offset.try_emplace(offset, static_cast<int64_t>(group_of_offset.size()));
    mask.head_group.push_back(entry->second);
    if (!added) continue;
    for (int64_t query = 0; query < queries; ++query) {
      const RowScan scan = scan_row(mask, offset + query * mask.query_stride, keys);
      mask.included_limit.push_back(scan.limit);
      mask.has_gaps.push_back(scan.gaps ? 1 : 0);
    }
  }
}

void attend_one_head(const AttentionShape& shape, float scale, const float* q, const float* k, const float* v,
                     const MaskLayout& mask, int64_t head, float* output, AttentionScratch& scratch) {
  attend_head_rows(shape, scale, q, k, v, mask, head, output, scratch);
}

}  // namespace mlrb
