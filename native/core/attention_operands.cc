#include "attention_operands.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "shape_text.h"

namespace mlrb {

namespace {

// [batch, heads, rows, D] of a rank-4 tensor in the given layout.
std::vector<int64_t> logical(const std::vector<int64_t>& shape, Layout layout) {
  if (layout == Layout::kHeadsFirst) return shape;
  return {shape[0], shape[2], shape[1], shape[3]};
}

Strides strides_of(const std::vector<int64_t>& logical_shape, Layout layout) {
  const int64_t heads = logical_shape[1], rows = logical_shape[2], dim = logical_shape[3];
  if (layout == Layout::kHeadsFirst) return {heads * rows * dim, rows * dim, dim};
  return {rows * heads * dim, dim, heads * dim};
}

}  // namespace

bool OperandLayouts::plain() const {
  return query == Layout::kHeadsFirst && key == Layout::kHeadsFirst && value == Layout::kHeadsFirst && output == Layout::kHeadsFirst &&
         kv_repeat == 1;
}

Operands describe_operands(const std::vector<int64_t>& q_shape, const std::vector<int64_t>& k_shape, const std::vector<int64_t>& v_shape,
                           const std::vector<int64_t>& mask, const OperandLayouts& layouts) {
  const auto mismatch = [&](const std::string& what) {
    return std::invalid_argument(what + " (Q " + shape_text(q_shape) + ", K " + shape_text(k_shape) + ", V " + shape_text(v_shape) + ", mask " +
                                 shape_text(mask) + ")");
  };
  const size_t rank = q_shape.size();
  if (rank < 2 || k_shape.size() != rank || v_shape.size() != rank) throw mismatch("Q, K and V must have the same rank, at least 2");
  if (!layouts.plain() && rank != 4) throw mismatch("folded layouts and shared key/value heads need rank-4 operands");
  if (mask.size() > rank) throw mismatch("the mask has a higher rank than the scores");

  Operands operands;
  std::vector<int64_t> q = q_shape, k = k_shape, v = v_shape;
  if (rank == 4) {
    q = logical(q_shape, layouts.query);
    k = logical(k_shape, layouts.key);
    v = logical(v_shape, layouts.value);
    if (q[0] != k[0] || q[0] != v[0] || q[1] != k[1] * layouts.kv_repeat || k[1] != v[1]) {
      throw mismatch("Q, K and V must share the batch, with " + std::to_string(layouts.kv_repeat) + " query head(s) per key/value head");
    }
    operands.query_heads = q[1];
    operands.kv_repeat = layouts.kv_repeat;
  } else if (!std::equal(q.begin(), q.end() - 2, k.begin()) || !std::equal(q.begin(), q.end() - 2, v.begin())) {
    throw mismatch("Q, K and V must have the same leading dimensions");
  }
  if (q[rank - 1] != k[rank - 1] || k[rank - 2] != v[rank - 2]) throw mismatch("Q·Kᵀ and the weighted sum over V need matching dimensions");

  AttentionShape& shape = operands.shape;
  shape.queries = q[rank - 2];
  shape.keys = k[rank - 2];
  shape.key_dim = q[rank - 1];
  shape.value_dim = v[rank - 1];
  shape.heads = 1;
  for (size_t axis = 0; axis + 2 < rank; ++axis) shape.heads *= q[axis];
  if (rank != 4) operands.query_heads = shape.heads;  // one flattened batch of heads

  std::vector<int64_t> output_logical = q;
  output_logical.back() = shape.value_dim;
  operands.output_shape = rank == 4 ? logical(output_logical, layouts.output) : output_logical;  // the swap is its own inverse
  const auto strides = [&](const std::vector<int64_t>& shape_of, Layout layout) {
    if (rank == 4) return strides_of(shape_of, layout);
    const int64_t rows = shape_of[rank - 2], dim = shape_of[rank - 1];
    return Strides{0, rows * dim, dim};
  };
  operands.query = strides(q, layouts.query);
  operands.key = strides(k, layouts.key);
  operands.value = strides(v, layouts.value);
  operands.output = strides(output_logical, layouts.output);

  // The scores are [..leading, T, S]; the mask is right-aligned against them, each axis 1 or full.
  std::vector<int64_t> scores_shape(q.begin(), q.end() - 1);
  scores_shape.push_back(shape.keys);
  std::vector<int64_t> mask_strides(rank, 0);
  int64_t step = 1;
  for (size_t from_end = 0; from_end < mask.size(); ++from_end) {
    const size_t axis = rank - 1 - from_end;
    const int64_t extent = mask[mask.size() - 1 - from_end];
    if (extent != 1 && extent != scores_shape[axis]) throw mismatch("the mask does not broadcast to the attention scores");
    mask_strides[axis] = extent == 1 ? 0 : step;
    step *= extent;
  }
  MaskLayout& layout = operands.mask;
  layout.query_stride = mask_strides[rank - 2];
  layout.key_stride = mask_strides[rank - 1];
  layout.head_offset.resize(static_cast<size_t>(shape.heads));
  for (int64_t head = 0; head < shape.heads; ++head) {
    int64_t remaining = head;
    int64_t offset = 0;
    for (size_t axis = rank - 2; axis-- > 0;) {
      offset += (remaining % scores_shape[axis]) * mask_strides[axis];
      remaining /= scores_shape[axis];
    }
    layout.head_offset[static_cast<size_t>(head)] = offset;
  }
  return operands;
}

void add_rotary(Operands& operands, const std::vector<int64_t>& cos_shape, const std::vector<int64_t>& sin_shape, int64_t half) {
  const AttentionShape& shape = operands.shape;
  if (shape.queries != shape.keys) {
    throw std::invalid_argument("rotary embedding: queries (" + std::to_string(shape.queries) + ") and keys (" + std::to_string(shape.keys) +
                                ") must sit at the same positions");
  }
  operands.rotary = describe_rotary(cos_shape, sin_shape, half, operands.batch(), shape.queries, shape.key_dim);
}

void pick_query_rows(Operands& operands, std::span<const int64_t> flat_positions) {
  const int64_t queries = operands.shape.queries;
  const int64_t batch = operands.batch();
  if (operands.output_shape.size() != 4 || operands.output.row != operands.query_heads * operands.shape.value_dim) {
    throw std::invalid_argument("picked query rows need rank-4 operands and the rows-first output layout");
  }
  operands.picked_positions.clear();
  operands.picked_begin.assign(static_cast<size_t>(batch + 1), 0);
  int64_t previous = -1;
  for (const int64_t flat : flat_positions) {
    if (flat < previous || flat < 0 || flat >= batch * queries) {
      throw std::invalid_argument("query positions must ascend within [0, " + std::to_string(batch * queries) + "), got " + std::to_string(flat));
    }
    previous = flat;
    operands.picked_positions.push_back(flat % queries);
    ++operands.picked_begin[static_cast<size_t>(flat / queries + 1)];
  }
  for (size_t entry = 1; entry < operands.picked_begin.size(); ++entry) operands.picked_begin[entry] += operands.picked_begin[entry - 1];
  const auto picked = static_cast<int64_t>(flat_positions.size());
  operands.output_shape = {1, picked, operands.query_heads, operands.shape.value_dim};
  operands.output = Strides{0, operands.shape.value_dim, operands.query_heads * operands.shape.value_dim};
}

bool has_rows(const Operands& operands, int64_t head) {
  if (!operands.picks_rows()) return true;
  const auto entry = static_cast<size_t>(head / operands.query_heads);
  return operands.picked_begin[entry + 1] > operands.picked_begin[entry];
}

HeadOperands head_operands(const Operands& operands, const AttentionTensors& tensors, int64_t head) {
  const int64_t batch = head / operands.query_heads;
  const int64_t query_head = head % operands.query_heads;
  const int64_t kv_head = query_head / operands.kv_repeat;
  HeadOperands rows;
  rows.query = tensors.query + batch * operands.query.batch + query_head * operands.query.head;
  rows.key = tensors.key + batch * operands.key.batch + kv_head * operands.key.head;
  rows.value = tensors.value + batch * operands.value.batch + kv_head * operands.value.head;
  rows.output = tensors.output + batch * operands.output.batch + query_head * operands.output.head;
  if (operands.picks_rows()) {
    const int64_t begin = operands.picked_begin[static_cast<size_t>(batch)];
    const int64_t end = operands.picked_begin[static_cast<size_t>(batch + 1)];
    rows.output += begin * operands.output.row;
    rows.query_positions = std::span<const int64_t>(operands.picked_positions).subspan(static_cast<size_t>(begin), static_cast<size_t>(end - begin));
  }
  if (operands.rotary.half > 0) {
    const int64_t table_offset = batch * operands.rotary.batch_stride;
    rows.rotary = RotaryRows{tensors.cos + table_offset, tensors.sin + table_offset, operands.rotary.row_stride, operands.rotary.half};
  }
  rows.query_row_stride = operands.query.row;
  rows.key_row_stride = operands.key.row;
  rows.value_row_stride = operands.value.row;
  rows.output_row_stride = operands.output.row;
  return rows;
}

}  // namespace mlrb
