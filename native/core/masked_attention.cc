#include "masked_attention.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <unordered_map>

#include "cpu_features.h"
#include "ort_cpu_rounding.h"
#include "ort_cpu_rounding_avx2.h"
#include "ort_cpu_rounding_avx512.h"
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
  bool gaps = false;  // the mask changes some score before the limit, so it must be applied
};

// Whether the mask changes the score at `at` of an included key: an excluded key always does, an
// additive mask wherever its value is not 0 (a -1e9 "mask" or a position bias).
bool changes_score(const MaskLayout& mask, int64_t at) {
  return mask.kind == MaskKind::kAdditive ? mask.additive[at] != 0.0F : !keeps(mask, at);
}

// Causal masks make most rows end in a long excluded run; over contiguous bool rows it is skipped a
// machine word (8 keys) at a time.
RowScan scan_row(const MaskLayout& mask, int64_t row_base, int64_t keys) {
  RowScan scan;
  if (mask.key_stride == 0) {
    scan.limit = keys;
    scan.gaps = changes_score(mask, row_base);
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
  for (int64_t j = 0; j < key && !scan.gaps; ++j) scan.gaps = changes_score(mask, row_base + j * mask.key_stride);
  return scan;
}

// Whether the excluded columns after the limit would add nothing to a row whose maximum is row_max.
bool tail_is_negligible(const MaskLayout& mask, float row_max) {
  if (mask.kind == MaskKind::kAdditive) return row_max > kExcludingBias / 10.0F;
  return mask.fill - std::max(row_max, mask.fill) < kNegligibleGap;
}

// A block of kLanes query rows is computed together, one query per vector lane, so every per-key step
// is a vector op and no step needs a horizontal reduction: short rows (BLiMP's ~30 tokens) cost as
// little per score as long ones. Per block, keys run up to the furthest row's limit; lanes past their
// own limit are excluded with a compare. Two passes: raw scores (stored, [keys, kLanes]) and their
// per-lane max; then exp, sum and the weighted sum of values.

struct BlockLanes {
  vec::Ints limit{};       // per lane: one past its last included key
  int64_t keys = 0;        // the largest limit in the block
  int64_t common = 0;      // keys below this are included by every row of the block: no per-lane test
  uint32_t gap_lanes = 0;  // lanes whose rows exclude keys before their limit (bit per lane)
};

MLRB_VECTOR_INLINE void apply_mask_to_lane(const MaskLayout& mask, int64_t row_base, int64_t limit, int lane, float* scores) {
  for (int64_t j = 0; j < limit; ++j) {
    float& score = scores[j * vec::kLanes + lane];
    const int64_t at = row_base + j * mask.key_stride;
    switch (mask.kind) {
      case MaskKind::kKeepWhereTrue: score = mask.keep[at] ? score : mask.fill; break;
      case MaskKind::kKeepWhereFalse: score = mask.keep[at] ? mask.fill : score; break;
      case MaskKind::kAdditive: score += mask.additive[at]; break;
    }
  }
}

// Dot products of the query columns with keys first .. first + kKeys - 1 (rows past `last` repeat it), each
// a chain of multiply-adds in d order as SGEMM sums them; kKeys independent chains keep the FMA units busy
// where one would wait on latency.
template <int kKeys>
MLRB_VECTOR_INLINE void dot_keys(const float* query_columns, const float* k, int64_t key_row_stride, int64_t key_dim, int64_t first, int64_t last,
                                 vec::Floats (&totals)[kKeys]) {
  const float* key_rows[kKeys];
  for (int key = 0; key < kKeys; ++key) key_rows[key] = k + std::min(first + key, last) * key_row_stride;
  for (int key = 0; key < kKeys; ++key) totals[key] = vec::Floats{};
  for (int64_t d = 0; d < key_dim; ++d) {
    const vec::Floats query = vec::load(query_columns + d * vec::kLanes);
    for (int key = 0; key < kKeys; ++key) totals[key] += vec::splat(key_rows[key][d]) * query;
  }
}

// scores[j, lane] = dot(query of lane, key j) * scale, -inf past the lane's limit; returns the lane maxima.
// Four keys at a time; past the keys every lane includes, each score is checked against its lane's limit.
MLRB_VECTOR_INLINE vec::Floats score_block(const float* query_columns, float scale, const float* k, int64_t key_row_stride, int64_t key_dim,
                                           const BlockLanes& lanes, const MaskLayout& mask, const int64_t* row_base, float* scores) {
  constexpr int kKeys = 4;
  const vec::Floats minus_infinity = vec::splat(-std::numeric_limits<float>::infinity());
  vec::Floats maxima = minus_infinity;
  vec::Floats totals[kKeys];
  int64_t j = 0;
  for (; j + kKeys <= lanes.common; j += kKeys) {
    dot_keys<kKeys>(query_columns, k, key_row_stride, key_dim, j, j + kKeys - 1, totals);
    for (int key = 0; key < kKeys; ++key) {
      const vec::Floats total = totals[key] * scale;
      vec::store(scores + (j + key) * vec::kLanes, total);
      maxima = vec::maximum(maxima, total);
    }
  }
  for (; j < lanes.keys; j += kKeys) {
    dot_keys<kKeys>(query_columns, k, key_row_stride, key_dim, j, lanes.keys - 1, totals);
    const int count = static_cast<int>(std::min<int64_t>(kKeys, lanes.keys - j));
    for (int key = 0; key < count; ++key) {
      const vec::Ints key_index = vec::Ints{} + static_cast<int32_t>(j + key);
      const vec::Floats total = key_index < lanes.limit ? totals[key] * scale : minus_infinity;
      vec::store(scores + (j + key) * vec::kLanes, total);
      maxima = vec::maximum(maxima, total);
    }
  }
  if (lanes.gap_lanes == 0) return maxima;
  for (int lane = 0; lane < vec::kLanes; ++lane) {
    if ((lanes.gap_lanes >> lane) & 1U) apply_mask_to_lane(mask, row_base[lane], lanes.limit[lane], lane, scores);
  }
  maxima = minus_infinity;
  for (j = 0; j < lanes.keys; ++j) maxima = vec::maximum(maxima, vec::load(scores + j * vec::kLanes));
  return maxima;
}

// Turns the stored scores into softmax numerators in place (excluded keys exactly 0) and returns each
// lane's 1 / sum, with the exp and summation order of the MLAS kernels `Rounding` stands for
// (ort_cpu_rounding_*.h): key j adds into partial sum j mod Rounding::kSumLanes. Keys a lane excludes add
// exact zeros (ONNX Runtime adds exp(fill - max), below float resolution next to the sum's own 1).
template <typename Rounding>
MLRB_VECTOR_INLINE vec::Floats exponentiate_block(float* scores, vec::Floats maxima, const BlockLanes& lanes) {
  constexpr int kResidues = Rounding::kSumLanes;
  vec::Floats partial[kResidues] = {};
  int64_t j = 0;
  for (; j + kResidues <= lanes.common; j += kResidues) {
    for (int residue = 0; residue < kResidues; ++residue) {
      float* at = scores + (j + residue) * vec::kLanes;
      const vec::Floats weights = Rounding::exp(vec::load(at) - maxima);
      vec::store(at, weights);
      partial[residue] += weights;
    }
  }
  for (; j < lanes.keys; j += kResidues) {
    const int count = static_cast<int>(std::min<int64_t>(kResidues, lanes.keys - j));
    for (int residue = 0; residue < count; ++residue) {
      float* at = scores + (j + residue) * vec::kLanes;
      const vec::Ints key_index = vec::Ints{} + static_cast<int32_t>(j + residue);
      const vec::Floats raw = Rounding::exp(vec::load(at) - maxima);
      const vec::Floats weights = key_index < lanes.limit ? raw : vec::Floats{};
      vec::store(at, weights);
      partial[residue] += weights;
    }
  }
  return 1.0F / Rounding::fold(partial);
}

// weighted[d, lane] = sum_j (weights[j, lane] * inverse_sum[lane]) * v[j, d]: softmax probabilities first,
// then the weighted sum as SGEMM forms it (one multiply-add chain per output in key order, block by block).
// kChunk value dimensions at a time so their accumulators stay in registers across the keys.
template <int kChunk>
MLRB_VECTOR_INLINE void weigh_chunk(const float* weights, vec::Floats inverse_sum, int64_t keys, int64_t depth_block, const float* v,
                                    int64_t value_row_stride, int64_t first_dim, float* weighted) {
  vec::Floats totals[kChunk] = {};
  for (int64_t block = 0; block < keys; block += depth_block) {
    vec::Floats block_totals[kChunk] = {};
    const int64_t end = std::min(keys, block + depth_block);
    for (int64_t j = block; j < end; ++j) {
      const vec::Floats probability = vec::load(weights + j * vec::kLanes) * inverse_sum;
      const float* value = v + j * value_row_stride + first_dim;
      for (int c = 0; c < kChunk; ++c) block_totals[c] += probability * vec::splat(value[c]);
    }
    for (int c = 0; c < kChunk; ++c) totals[c] = block == 0 ? block_totals[c] : totals[c] + block_totals[c];
  }
  for (int c = 0; c < kChunk; ++c) vec::store(weighted + (first_dim + c) * vec::kLanes, totals[c]);
}

// keys: those the block reads (its furthest limit); all_keys: the head's, which set SGEMM's K blocks.
MLRB_VECTOR_INLINE void weigh_block(const float* weights, vec::Floats inverse_sum, int64_t keys, int64_t all_keys, const float* v,
                                    int64_t value_row_stride, int64_t value_dim, float* weighted) {
  constexpr int kChunk = 8;
  const int64_t depth_block = ort_cpu::gemm_depth_block(value_dim, all_keys);
  int64_t d = 0;
  for (; d + kChunk <= value_dim; d += kChunk) weigh_chunk<kChunk>(weights, inverse_sum, keys, depth_block, v, value_row_stride, d, weighted);
  for (; d < value_dim; ++d) weigh_chunk<1>(weights, inverse_sum, keys, depth_block, v, value_row_stride, d, weighted);
}

// How many query rows a head computes: all of them, or the positions the caller picked.
int64_t computed_rows(const AttentionShape& shape, const HeadOperands& operands) {
  return operands.query_positions.empty() ? shape.queries : static_cast<int64_t>(operands.query_positions.size());
}

template <typename Rounding>
MLRB_VECTOR_INLINE void attend_head_blocks(const AttentionShape& shape, const ScoreArithmetic& arithmetic, const HeadOperands& operands,
                                           const MaskLayout& mask, int64_t head, AttentionScratch& scratch) {
  const float scale = arithmetic.scale;
  constexpr int kLanes = vec::kLanes;
  scratch.query_columns.resize(static_cast<size_t>(shape.key_dim * kLanes));
  scratch.scores.resize(static_cast<size_t>(shape.keys * kLanes));
  scratch.weighted.resize(static_cast<size_t>(shape.value_dim * kLanes));
  const int64_t group = mask.head_group[static_cast<size_t>(head)];
  const int64_t head_offset = mask.head_offset[static_cast<size_t>(head)];

  // Computed row i is query position i, or query_positions[i] when the caller picked rows; the query is read
  // at that position, the output written as row i.
  const bool picked = !operands.query_positions.empty();
  const int64_t computed = computed_rows(shape, operands);
  const auto position_of = [&](int64_t i) { return picked ? operands.query_positions[static_cast<size_t>(i)] : i; };
  for (int64_t first = 0; first < computed; first += kLanes) {
    const int rows = static_cast<int>(std::min<int64_t>(kLanes, computed - first));
    BlockLanes lanes;
    lanes.common = shape.keys;
    int64_t row_base[kLanes] = {};
    for (int lane = 0; lane < rows; ++lane) {
      const int64_t position = position_of(first + lane);
      const auto row = static_cast<size_t>(group * shape.queries + position);
      lanes.limit[lane] = static_cast<int32_t>(mask.included_limit[row]);
      lanes.keys = std::max<int64_t>(lanes.keys, mask.included_limit[row]);
      lanes.common = std::min<int64_t>(lanes.common, mask.included_limit[row]);
      if (mask.has_gaps[row] != 0) lanes.gap_lanes |= 1U << lane;
      row_base[lane] = head_offset + position * mask.query_stride;
    }
    // Query columns [key_dim, kLanes]; missing rows are zero.
    std::fill(scratch.query_columns.begin(), scratch.query_columns.end(), 0.0F);
    for (int lane = 0; lane < rows; ++lane) {
      const float* query = operands.query + position_of(first + lane) * operands.query_row_stride;
      for (int64_t d = 0; d < shape.key_dim; ++d) scratch.query_columns[d * kLanes + lane] = query[d];
    }
    vec::Floats maxima = score_block(scratch.query_columns.data(), scale, operands.key, operands.key_row_stride, shape.key_dim, lanes, mask, row_base,
                                     scratch.scores.data());
    // Rows whose excluded tail would still weigh (a mild fill, or every key excluded) take every key.
    bool widened = false;
    for (int lane = 0; lane < rows; ++lane) {
      if (lanes.limit[lane] < shape.keys && !tail_is_negligible(mask, maxima[lane])) {
        lanes.limit[lane] = static_cast<int32_t>(shape.keys);
        lanes.gap_lanes |= 1U << lane;
        widened = true;
      }
    }
    if (widened) {
      lanes.keys = shape.keys;
      lanes.common = 0;
      maxima = score_block(scratch.query_columns.data(), scale, operands.key, operands.key_row_stride, shape.key_dim, lanes, mask, row_base,
                           scratch.scores.data());
    }
    const vec::Floats inverse_sum = exponentiate_block<Rounding>(scratch.scores.data(), maxima, lanes);
    weigh_block(scratch.scores.data(), inverse_sum, lanes.keys, shape.keys, operands.value, operands.value_row_stride, shape.value_dim,
                scratch.weighted.data());
    for (int lane = 0; lane < rows; ++lane) {
      float* output_row = operands.output + (first + lane) * operands.output_row_stride;
      // Every score -inf (or NaN): the graph's softmax yields NaN, and so does this. A NaN sum (a NaN or
      // +inf score) makes every probability NaN there too; under sdpa's guard such rows weigh nothing.
      const bool undefined = !(maxima[lane] > -std::numeric_limits<float>::infinity());
      const bool zeroed = arithmetic.zero_nan_weights && (undefined || std::isnan(inverse_sum[lane]));
      for (int64_t d = 0; d < shape.value_dim; ++d) {
        output_row[d] = zeroed ? 0.0F : undefined ? std::numeric_limits<float>::quiet_NaN() : scratch.weighted[d * kLanes + lane];
      }
    }
  }
}

struct SingleRow {
  int64_t limit = 0;  // one past the last included key
  bool gaps = false;  // the mask changes some score before the limit
  int64_t mask_base = 0;
  const float* query = nullptr;
};

// scores[j] = dot(query, key j) * scale for j < limit, then the mask where it has gaps; returns their
// maximum, taken in key order as the block kernel takes it (the order decides which NaN survives). The dot
// products are dot_keys' own, the query in lane 0: vectors across keys would need the keys transposed
// first, which costs more stores than the multiply-adds it saves.
MLRB_VECTOR_INLINE float score_single_row(const AttentionShape& shape, float scale, const HeadOperands& operands, const MaskLayout& mask,
                                          const SingleRow& row, float* query_columns, float* scores) {
  constexpr int kKeys = 4;
  std::fill(query_columns, query_columns + shape.key_dim * vec::kLanes, 0.0F);
  for (int64_t d = 0; d < shape.key_dim; ++d) query_columns[d * vec::kLanes] = row.query[d];
  vec::Floats totals[kKeys];
  int64_t j = 0;
  for (; j < row.limit; j += kKeys) {
    dot_keys<kKeys>(query_columns, operands.key, operands.key_row_stride, shape.key_dim, j, row.limit - 1, totals);
    const int count = static_cast<int>(std::min<int64_t>(kKeys, row.limit - j));
    for (int key = 0; key < count; ++key) scores[j + key] = totals[key][0] * scale;
  }
  if (row.gaps) {
    for (j = 0; j < row.limit; ++j) {
      const int64_t at = row.mask_base + j * mask.key_stride;
      switch (mask.kind) {
        case MaskKind::kKeepWhereTrue: scores[j] = mask.keep[at] ? scores[j] : mask.fill; break;
        case MaskKind::kKeepWhereFalse: scores[j] = mask.keep[at] ? mask.fill : scores[j]; break;
        case MaskKind::kAdditive: scores[j] += mask.additive[at]; break;
      }
    }
  }
  float maximum = -std::numeric_limits<float>::infinity();
  for (j = 0; j < row.limit; ++j) maximum = maximum > scores[j] ? maximum : scores[j];
  return maximum;
}

// Turns scores[0, limit) into softmax numerators in place, 16 keys per exp (the lanes past the limit compute
// on whatever the buffer holds and are never read), and returns 1 / their sum, summed as
// exponentiate_block sums one lane.
template <typename Rounding>
MLRB_VECTOR_INLINE float exponentiate_single_row(float* scores, float maximum, int64_t limit) {
  const vec::Floats maxima = vec::splat(maximum);
  for (int64_t j = 0; j < limit; j += vec::kLanes) vec::store(scores + j, Rounding::exp(vec::load(scores + j) - maxima));
  constexpr int kResidues = Rounding::kSumLanes;
  // Whole runs of kResidues keys first, so the partial sums stay in registers (one vector add per run).
  float partial[kResidues] = {};
  int64_t j = 0;
  for (; j + kResidues <= limit; j += kResidues) {
    for (int residue = 0; residue < kResidues; ++residue) partial[residue] += scores[j + residue];
  }
  for (int residue = 0; j + residue < limit; ++residue) partial[residue] += scores[j + residue];
  vec::Floats lanes[kResidues];
  for (int residue = 0; residue < kResidues; ++residue) lanes[residue] = vec::splat(partial[residue]);
  return 1.0F / Rounding::fold(lanes)[0];
}

// weighted[first, first + lanes of Vector) = sum_j (weights[j] * inverse_sum) * v[j, d] over SGEMM's depth
// blocks, as weigh_chunk forms one lane, one vector of value dimensions at a time.
template <typename Vector>
MLRB_VECTOR_INLINE void weigh_single_row_dims(const float* weights, float inverse_sum, int64_t limit, int64_t depth_block, const float* values,
                                              int64_t value_row_stride, int64_t first_dim, float* weighted) {
  const auto load = [](const float* from) {
    Vector value;
    std::memcpy(&value, from, sizeof(value));
    return value;
  };
  Vector total{};
  for (int64_t block = 0; block < limit; block += depth_block) {
    Vector block_total{};
    const int64_t end = std::min(limit, block + depth_block);
    for (int64_t j = block; j < end; ++j) {
      const float probability = weights[j] * inverse_sum;
      block_total += (Vector{} + probability) * load(values + j * value_row_stride + first_dim);
    }
    total = block == 0 ? block_total : total + block_total;
  }
  std::memcpy(weighted + first_dim, &total, sizeof(total));
}

// The whole weighted row: 16 value dimensions per vector, then 8; a last few (head sizes that are not a
// multiple of 8) are read through a zero-padded copy of their columns, so no value row is read past its end.
MLRB_VECTOR_INLINE void weigh_single_row(const float* weights, float inverse_sum, int64_t limit, int64_t all_keys, const HeadOperands& operands,
                                         int64_t value_dim, std::vector<float>& padded_values, float* weighted) {
  constexpr int64_t kNarrow = 8;
  const int64_t depth_block = ort_cpu::gemm_depth_block(value_dim, all_keys);
  int64_t d = 0;
  for (; d + vec::kLanes <= value_dim; d += vec::kLanes) {
    weigh_single_row_dims<vec::Floats>(weights, inverse_sum, limit, depth_block, operands.value, operands.value_row_stride, d, weighted);
  }
  for (; d + kNarrow <= value_dim; d += kNarrow) {
    weigh_single_row_dims<vec::Floats8>(weights, inverse_sum, limit, depth_block, operands.value, operands.value_row_stride, d, weighted);
  }
  if (d == value_dim) return;
  padded_values.assign(static_cast<size_t>(limit * kNarrow), 0.0F);
  for (int64_t j = 0; j < limit; ++j) {
    for (int64_t c = d; c < value_dim; ++c)
      padded_values[static_cast<size_t>(j * kNarrow + c - d)] = operands.value[j * operands.value_row_stride + c];
  }
  float tail[kNarrow];
  weigh_single_row_dims<vec::Floats8>(weights, inverse_sum, limit, depth_block, padded_values.data(), kNarrow, 0, tail);
  std::copy(tail, tail + (value_dim - d), weighted + d);
}

// One query row: a decoding step, where each head reads the single new position (or a pruned last block
// that scores one position). The block kernel above would spend a 16-lane vector op per key on one useful
// lane; here the keys are the unit of work: the exp runs 16 keys per vector and the dot products and
// weighted sums are plain loops. Every float operation is the block kernel's lane-0 operation in the same
// order (each dot product one multiply-add chain in d order, the softmax sum by residue then folded, the
// weighted sum by SGEMM's depth blocks), so the two agree bit for bit, and so with the graph.
template <typename Rounding>
MLRB_VECTOR_INLINE void attend_single_row(const AttentionShape& shape, const ScoreArithmetic& arithmetic, const HeadOperands& operands,
                                          const MaskLayout& mask, int64_t head, AttentionScratch& scratch) {
  const int64_t position = operands.query_positions.empty() ? 0 : operands.query_positions.front();
  const auto mask_row = static_cast<size_t>(mask.head_group[static_cast<size_t>(head)] * shape.queries + position);
  SingleRow row{mask.included_limit[mask_row], mask.has_gaps[mask_row] != 0,
                mask.head_offset[static_cast<size_t>(head)] + position * mask.query_stride, operands.query + position * operands.query_row_stride};
  // Whole vectors for the exp, however many keys there are.
  scratch.scores.resize(static_cast<size_t>((shape.keys + vec::kLanes - 1) / vec::kLanes * vec::kLanes));
  scratch.query_columns.resize(static_cast<size_t>(shape.key_dim * vec::kLanes));
  scratch.weighted.resize(static_cast<size_t>(shape.value_dim));
  float* scores = scratch.scores.data();
  float* query_columns = scratch.query_columns.data();
  float maximum = score_single_row(shape, arithmetic.scale, operands, mask, row, query_columns, scores);
  // An excluded tail that would still weigh (a mild fill, or every key excluded): every key, as in the blocks.
  if (row.limit < shape.keys && !tail_is_negligible(mask, maximum)) {
    row.limit = shape.keys;
    row.gaps = true;
    maximum = score_single_row(shape, arithmetic.scale, operands, mask, row, query_columns, scores);
  }
  const float inverse_sum = exponentiate_single_row<Rounding>(scores, maximum, row.limit);
  float* weighted = scratch.weighted.data();
  weigh_single_row(scores, inverse_sum, row.limit, shape.keys, operands, shape.value_dim, scratch.padded_values, weighted);
  const bool undefined = !(maximum > -std::numeric_limits<float>::infinity());
  const bool zeroed = arithmetic.zero_nan_weights && (undefined || std::isnan(inverse_sum));
  for (int64_t d = 0; d < shape.value_dim; ++d) {
    operands.output[d] = zeroed ? 0.0F : undefined ? std::numeric_limits<float>::quiet_NaN() : weighted[d];
  }
}

// One clone set per rounding policy: the policy (whose order of float operations) is a compile-time choice
// inside the hot loops, and the CPU's instruction set picks the clone (vector_math.h). The two are
// independent: any CPU can follow either family's rounding.
MLRB_VECTOR_CLONES
void attend_head_blocks_with_avx512_rounding(const AttentionShape& shape, const ScoreArithmetic& arithmetic, const HeadOperands& operands,
                                             const MaskLayout& mask, int64_t head, AttentionScratch& scratch) {
  if (computed_rows(shape, operands) == 1) {
    attend_single_row<ort_cpu::Avx512Rounding>(shape, arithmetic, operands, mask, head, scratch);
  } else {
    attend_head_blocks<ort_cpu::Avx512Rounding>(shape, arithmetic, operands, mask, head, scratch);
  }
}

MLRB_VECTOR_CLONES
void attend_head_blocks_with_avx2_rounding(const AttentionShape& shape, const ScoreArithmetic& arithmetic, const HeadOperands& operands,
                                           const MaskLayout& mask, int64_t head, AttentionScratch& scratch) {
  if (computed_rows(shape, operands) == 1) {
    attend_single_row<ort_cpu::Avx2Rounding>(shape, arithmetic, operands, mask, head, scratch);
  } else {
    attend_head_blocks<ort_cpu::Avx2Rounding>(shape, arithmetic, operands, mask, head, scratch);
  }
}

void attend_head_rows(const AttentionShape& shape, const ScoreArithmetic& arithmetic, const HeadOperands& operands, const MaskLayout& mask,
                      int64_t head, AttentionScratch& scratch, KernelPath rounding) {
  // kBaseline keeps the AVX2 order: MLAS's non-FMA kernels are not mirrored (cpu_features.h).
  if (rounding == KernelPath::kAvx512) {
    attend_head_blocks_with_avx512_rounding(shape, arithmetic, operands, mask, head, scratch);
  } else {
    attend_head_blocks_with_avx2_rounding(shape, arithmetic, operands, mask, head, scratch);
  }
}

}  // namespace

bool keeps_key(const MaskLayout& mask, int64_t at) {
  return keeps(mask, at);
}

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

void attend_one_head(const AttentionShape& shape, const ScoreArithmetic& arithmetic, const HeadOperands& operands, const MaskLayout& mask,
                     int64_t head, AttentionScratch& scratch, KernelPath rounding) {
  if (!operands.rotary.active()) {
    attend_head_rows(shape, arithmetic, operands, mask, head, scratch, rounding);
    return;
  }
  // The head's queries and keys rotated into scratch first: O(rows · D) beside attention's O(rows² · D).
  HeadOperands rotated = operands;
  scratch.rotated_queries.resize(static_cast<size_t>(shape.queries * shape.key_dim));
  scratch.rotated_keys.resize(static_cast<size_t>(shape.keys * shape.key_dim));
  rotate_rows(operands.query, operands.query_row_stride, shape.queries, operands.rotary, scratch.rotated_queries.data());
  rotate_rows(operands.key, operands.key_row_stride, shape.keys, operands.rotary, scratch.rotated_keys.data());
  rotated.query = scratch.rotated_queries.data();
  rotated.key = scratch.rotated_keys.data();
  rotated.query_row_stride = shape.key_dim;
  rotated.key_row_stride = shape.key_dim;
  rotated.rotary = RotaryRows{};
  attend_head_rows(shape, arithmetic, rotated, mask, head, scratch, rounding);
}

}  // namespace mlrb
