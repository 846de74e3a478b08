// Fused masked attention for one head at a time: softmax(scale * Q Kᵀ, masked) V, with the mask applied
// the way the graph it replaces applies it (graph/attention_match.h). Plain C++ with no ONNX Runtime
// types, so the custom op (ort/attention_op.h) only unpacks tensors and calls it.
//
// Why it exists: small causal LMs spend most of a forward pass in the separate Where / Softmax / MatMul
// nodes over [batch, heads, queries, keys] tensors, each a trip through memory. Computed 16 query rows at a
// time in cache, with the keys a mask excludes never computed, that work mostly disappears. A head with one
// query row (a decoding step) runs 16 keys at a time instead, in the same float order.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "cpu_features.h"
#include "rotary.h"

namespace mlrb {

enum class MaskKind : uint8_t {
  kKeepWhereTrue,   // Where(mask, scores, fill)
  kKeepWhereFalse,  // Where(mask, fill, scores)
  kAdditive,        // scores + mask (float), e.g. 0 / -inf or 0 / float-min masks
};

// Where element (head, query, key) of the mask lives: offsets in elements, 0 strides for broadcast axes.
struct MaskLayout {
  MaskKind kind = MaskKind::kKeepWhereTrue;
  const bool* keep = nullptr;        // kKeepWhere*: the boolean mask
  const float* additive = nullptr;   // kAdditive: the float mask
  float fill = 0.0F;                 // kKeepWhere*: the value excluded scores take
  std::vector<int64_t> head_offset;  // one per head
  int64_t query_stride = 0;
  int64_t key_stride = 0;

  // Filled by prepare_mask_rows, once per call: heads that share mask rows (a [batch, 1, T, S] mask
  // serves every head of a row) share one entry per query.
  std::vector<int64_t> head_group;      // per head: its group
  std::vector<int64_t> included_limit;  // [groups, queries]: one past the last included key
  std::vector<uint8_t> has_gaps;        // [groups, queries]: the mask changes some score before that limit
};

struct AttentionShape {
  int64_t heads = 0;      // query heads over the whole batch (every leading dimension flattened)
  int64_t queries = 0;    // T
  int64_t keys = 0;       // S
  int64_t key_dim = 0;    // D of Q and K
  int64_t value_dim = 0;  // D of V and of the output
};

// Reusable per-thread buffers, so a head costs no allocation once they have grown.
struct AttentionScratch {
  std::vector<float> query_columns;    // [key_dim, lanes]: a block of query rows, transposed
  std::vector<float> padded_values;    // one query: [keys, 8], the value columns past the last multiple of 8
  std::vector<float> scores;           // [keys, lanes]
  std::vector<float> weighted;         // [value_dim, lanes]
  std::vector<float> rotated_queries;  // [queries, key_dim]: the head's queries after the rotary embedding
  std::vector<float> rotated_keys;     // [keys, key_dim]
};

// Whether the mask keeps the key at element `at` (an additive mask excludes at -1e30 and below).
[[nodiscard]] bool keeps_key(const MaskLayout& mask, int64_t at);

// Scans the mask once: each row's last included key, and whether the mask changes a score before it.
void prepare_mask_rows(MaskLayout& mask, int64_t queries, int64_t keys);

// One head's operands: row r of each starts at base + r * row_stride with its D floats contiguous, so
// [.., heads, rows, D] and [.., rows, heads, D] layouts are read in place. With an active rotary, query and
// key rows are rotated (core/rotary.h) before use.
struct HeadOperands {
  const float* query = nullptr;
  const float* key = nullptr;
  const float* value = nullptr;
  float* output = nullptr;
  int64_t query_row_stride = 0;
  int64_t key_row_stride = 0;
  int64_t value_row_stride = 0;
  int64_t output_row_stride = 0;
  RotaryRows rotary;
  // Empty: every query row. Else only these query positions (ascending), their outputs written as rows
  // 0, 1, ... of `output`: the last attention block of a graph whose head reads a few positions.
  std::span<const int64_t> query_positions;
};

// The arithmetic around the dot products, as the replaced graph spells it.
struct ScoreArithmetic {
  float scale = 1.0F;             // each score, after the dot product
  bool zero_nan_weights = false;  // NaN probabilities weigh 0: sdpa's Where(IsNaN(p), 0, p), so a row whose
                                  // every key is masked outputs 0 instead of NaN
};

// Computes output rows for one head (after prepare_mask_rows), rounding as ONNX Runtime's MatMul / Softmax /
// MatMul do with the MLAS kernels `rounding` names (core/cpu_features.h, ort_cpu_rounding.h): bit for bit
// equal to the unfused graph where that is the family MLAS runs on this CPU (AVX-512 or AVX2; the ORT op
// passes kernel_path_choice().path). Excluded keys whose softmax weight is below float resolution next to
// the row's maximum (exp(x - max) with x - max < -87) are skipped; the graph adds their weights, which
// change no float sum.
void attend_one_head(const AttentionShape& shape, const ScoreArithmetic& arithmetic, const HeadOperands& operands, const MaskLayout& mask,
                     int64_t head, AttentionScratch& scratch, KernelPath rounding);

}  // namespace mlrb
