#include "cached_attention.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace mlrb {

namespace {

// A mask element's raw value, compared as the graph wrote it.
bool same_value(const MaskLayout& mask, int64_t a, int64_t b) {
  return mask.kind == MaskKind::kAdditive ? mask.additive[a] == mask.additive[b] : mask.keep[a] == mask.keep[b];
}

// The block's mask offset for batch entry `entry`; its heads must share it (one mask row set per entry).
int64_t entry_mask_offset(const Operands& block, int64_t entry) {
  const auto first = static_cast<size_t>(entry * block.query_heads);
  const int64_t offset = block.mask.head_offset[first];
  for (int64_t head = 1; head < block.query_heads; ++head) {
    if (block.mask.head_offset[first + static_cast<size_t>(head)] != offset) {
      throw std::invalid_argument(
          "decoding cache: the mask differs between the heads of a batch entry; only masks shared by the heads can be cached");
    }
  }
  return offset;
}

// Row t of the block sits at position length + t: keys after it must be excluded, and each key up to it
// must have the value the block's last row gives it (causal, with per-key values).
void check_causal(const Operands& block, int64_t entry_offset) {
  const MaskLayout& mask = block.mask;
  const int64_t rows = block.shape.queries;
  const int64_t last = entry_offset + (rows - 1) * mask.query_stride;
  for (int64_t t = 0; t < rows; ++t) {
    const int64_t row = entry_offset + t * mask.query_stride;
    for (int64_t j = 0; j < rows; ++j) {
      const int64_t at = row + j * mask.key_stride;
      const bool ok = j > t ? !keeps_key(mask, at) : same_value(mask, at, last + j * mask.key_stride);
      if (!ok) {
        throw std::invalid_argument("decoding cache: the graph's mask is not causal with per-key values (row " + std::to_string(t) + ", key " +
                                    std::to_string(j) + "), so cached keys cannot carry it");
      }
    }
  }
}

void check_continues(const LayerKv& layer, const Operands& block, int64_t kv_heads) {
  if (layer.batch == block.batch() && layer.kv_heads == kv_heads && layer.key_dim == block.shape.key_dim && layer.value_dim == block.shape.value_dim)
    return;
  throw std::invalid_argument("decoding cache: the new rows are " + std::to_string(block.batch()) + " x " + std::to_string(kv_heads) + " heads of " +
                              std::to_string(block.shape.key_dim) + " / " + std::to_string(block.shape.value_dim) + ", the cache holds " +
                              std::to_string(layer.batch) + " x " + std::to_string(layer.kv_heads) + " of " + std::to_string(layer.key_dim) + " / " +
                              std::to_string(layer.value_dim));
}

RotaryRows entry_rotary(const Operands& block, const AttentionTensors& tensors, int64_t entry) {
  const int64_t offset = entry * block.rotary.batch_stride;
  return RotaryRows{tensors.cos + offset, tensors.sin + offset, block.rotary.row_stride, block.rotary.half};
}

// The new rows' keys (rotated) and values, written at positions [length, length + rows) of each slice.
void append_rows(LayerKv& layer, const Operands& block, const AttentionTensors& tensors) {
  const int64_t rows = block.shape.queries;
  for (int64_t entry = 0; entry < layer.batch; ++entry) {
    for (int64_t head = 0; head < layer.kv_heads; ++head) {
      const float* keys = tensors.key + entry * block.key.batch + head * block.key.head;
      const float* values = tensors.value + entry * block.value.batch + head * block.value.head;
      float* key_target = layer.key_row(entry, head, layer.length);
      float* value_target = layer.value_row(entry, head, layer.length);
      for (int64_t r = 0; r < rows; ++r) {
        if (block.rotary.half == 0) std::copy_n(keys + r * block.key.row, layer.key_dim, key_target + r * layer.key_dim);
        std::copy_n(values + r * block.value.row, layer.value_dim, value_target + r * layer.value_dim);
      }
      if (block.rotary.half > 0) rotate_rows(keys, block.key.row, rows, entry_rotary(block, tensors, entry), key_target);
    }
  }
}

// The mask over [cached keys, new keys] for each new row: the cached keys' carried values, then the block's own.
void compose_mask(LayerKv& layer, const Operands& block, CachedAttentionScratch& scratch, Operands& composed) {
  const MaskLayout& mask = block.mask;
  const bool additive = mask.kind == MaskKind::kAdditive;
  const int64_t rows = block.shape.queries;
  const int64_t keys = layer.length + rows;
  const int64_t batch = layer.batch;
  if (additive) scratch.bias.resize(static_cast<size_t>(batch * rows * keys));
  else scratch.keep.resize(static_cast<size_t>(batch * rows * keys));
  for (int64_t entry = 0; entry < batch; ++entry) {
    const int64_t offset = entry_mask_offset(block, entry);
    check_causal(block, offset);
    const int64_t last = offset + (rows - 1) * mask.query_stride;
    for (int64_t j = 0; j < rows; ++j) {  // what every later row sees at the new keys
      const int64_t at = last + j * mask.key_stride;
      const auto slot = static_cast<size_t>(entry * layer.capacity + layer.length + j);
      if (additive) layer.key_bias[slot] = mask.additive[at];
      else layer.key_keep[slot] = mask.keep[at] ? 1 : 0;
    }
    for (int64_t t = 0; t < rows; ++t) {
      const auto target = static_cast<size_t>((entry * rows + t) * keys);
      const auto carried = static_cast<size_t>(entry * layer.capacity);
      const int64_t row = offset + t * mask.query_stride;
      if (additive) {
        std::copy_n(layer.key_bias.begin() + static_cast<std::ptrdiff_t>(carried), layer.length,
                    scratch.bias.begin() + static_cast<std::ptrdiff_t>(target));
        for (int64_t j = 0; j < rows; ++j) scratch.bias[target + static_cast<size_t>(layer.length + j)] = mask.additive[row + j * mask.key_stride];
      } else {
        std::copy_n(layer.key_keep.begin() + static_cast<std::ptrdiff_t>(carried), layer.length,
                    scratch.keep.begin() + static_cast<std::ptrdiff_t>(target));
        for (int64_t j = 0; j < rows; ++j)
          scratch.keep[target + static_cast<size_t>(layer.length + j)] = mask.keep[row + j * mask.key_stride] ? 1 : 0;
      }
    }
  }
  MaskLayout& out = composed.mask;
  out.kind = mask.kind;
  out.fill = mask.fill;
  out.keep = additive ? nullptr : reinterpret_cast<const bool*>(scratch.keep.data());
  out.additive = additive ? scratch.bias.data() : nullptr;
  out.query_stride = keys;
  out.key_stride = 1;
  out.head_offset.resize(static_cast<size_t>(composed.shape.heads));
  for (int64_t head = 0; head < composed.shape.heads; ++head) {
    out.head_offset[static_cast<size_t>(head)] = head / composed.query_heads * rows * keys;
  }
  prepare_mask_rows(out, rows, keys);
}

}  // namespace

Operands attend_over_cache(LayerKv& layer, int64_t expected_positions, const Operands& block, const AttentionTensors& tensors,
                           CachedAttentionScratch& scratch, AttentionTensors& cached_tensors) {
  const int64_t kv_heads = block.query_heads / block.kv_repeat;
  const int64_t rows = block.shape.queries;
  if (block.shape.keys != rows) throw std::invalid_argument("decoding cache: the graph's new keys must be its new rows");
  if (block.picks_rows()) throw std::invalid_argument("decoding cache: pick query rows after composing the cache");
  if (layer.length == 0) {
    layer = LayerKv{};
    layer.batch = block.batch();
    layer.kv_heads = kv_heads;
    layer.key_dim = block.shape.key_dim;
    layer.value_dim = block.shape.value_dim;
  }
  check_continues(layer, block, kv_heads);
  layer.reserve(std::max(layer.length + rows, expected_positions));

  Operands composed = block;
  composed.shape.keys = layer.length + rows;
  composed.rotary = RotaryLayout{};
  composed.key = Strides{kv_heads * layer.capacity * layer.key_dim, layer.capacity * layer.key_dim, layer.key_dim};
  composed.value = Strides{kv_heads * layer.capacity * layer.value_dim, layer.capacity * layer.value_dim, layer.value_dim};
  compose_mask(layer, block, scratch, composed);
  append_rows(layer, block, tensors);

  cached_tensors = tensors;
  cached_tensors.key = layer.keys.data();
  cached_tensors.value = layer.values.data();
  cached_tensors.cos = nullptr;
  cached_tensors.sin = nullptr;
  if (block.rotary.half > 0) {
    // Heads-first [batch, query_heads, rows, key_dim]: each head's rotated rows contiguous.
    const int64_t dim = block.shape.key_dim;
    scratch.rotated_queries.resize(static_cast<size_t>(block.shape.heads * rows * dim));
    for (int64_t head = 0; head < block.shape.heads; ++head) {
      const int64_t entry = head / block.query_heads;
      const float* queries = tensors.query + entry * block.query.batch + head % block.query_heads * block.query.head;
      rotate_rows(queries, block.query.row, rows, entry_rotary(block, tensors, entry), scratch.rotated_queries.data() + head * rows * dim);
    }
    composed.query = Strides{block.query_heads * rows * dim, rows * dim, dim};
    cached_tensors.query = scratch.rotated_queries.data();
  }
  layer.length += rows;
  return composed;
}

}  // namespace mlrb
