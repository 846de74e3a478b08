#include "attention_kv_cache.h"

#include <algorithm>
#include <cstring>

namespace mlrb {

namespace {

// Copies `count` runs of `run` elements from stride `from_stride` to stride `to_stride` (elements).
template <class T>
std::vector<T> restrided(const std::vector<T>& source, int64_t count, int64_t from_stride, int64_t to_stride, int64_t run) {
  std::vector<T> target(static_cast<size_t>(count * to_stride));
  for (int64_t i = 0; i < count; ++i) {
    std::copy_n(source.begin() + i * from_stride, run, target.begin() + i * to_stride);
  }
  return target;
}

}  // namespace

void LayerKv::reserve(int64_t positions) {
  if (positions <= capacity) return;
  const int64_t grown = std::max({positions, capacity * 2, int64_t{16}});
  const int64_t slices = batch * kv_heads;
  keys = restrided(keys, slices, capacity * key_dim, grown * key_dim, length * key_dim);
  values = restrided(values, slices, capacity * value_dim, grown * value_dim, length * value_dim);
  key_keep = restrided(key_keep, batch, capacity, grown, length);
  key_bias = restrided(key_bias, batch, capacity, grown, length);
  capacity = grown;
}

LayerKv& AttentionKvCache::layer(const std::string& node) {
  const std::lock_guard lock(mutex_);
  return layers_[node];
}

void AttentionKvCache::keep_entries(std::span<const int64_t> entries) {
  const std::lock_guard lock(mutex_);
  for (auto& [name, layer] : layers_) {
    const auto kept = static_cast<int64_t>(entries.size());
    const int64_t key_slice = layer.kv_heads * layer.capacity * layer.key_dim;
    const int64_t value_slice = layer.kv_heads * layer.capacity * layer.value_dim;
    // Ascending entries move only towards the front, so copying in order never overwrites one still to move.
    for (int64_t k = 0; k < kept; ++k) {
      const int64_t from = entries[static_cast<size_t>(k)];
      if (from == k) continue;
      std::copy_n(layer.keys.begin() + from * key_slice, key_slice, layer.keys.begin() + k * key_slice);
      std::copy_n(layer.values.begin() + from * value_slice, value_slice, layer.values.begin() + k * value_slice);
      std::copy_n(layer.key_keep.begin() + from * layer.capacity, layer.capacity, layer.key_keep.begin() + k * layer.capacity);
      std::copy_n(layer.key_bias.begin() + from * layer.capacity, layer.capacity, layer.key_bias.begin() + k * layer.capacity);
    }
    layer.batch = kept;
    layer.keys.resize(static_cast<size_t>(kept * key_slice));
    layer.values.resize(static_cast<size_t>(kept * value_slice));
    layer.key_keep.resize(static_cast<size_t>(kept * layer.capacity));
    layer.key_bias.resize(static_cast<size_t>(kept * layer.capacity));
  }
}

KvCacheRegistry& KvCacheRegistry::instance() {
  static KvCacheRegistry registry;
  return registry;
}

int64_t KvCacheRegistry::add(std::shared_ptr<AttentionKvCache> cache) {
  const std::lock_guard lock(mutex_);
  const int64_t id = next_id_++;
  caches_.emplace(id, std::move(cache));
  return id;
}

std::shared_ptr<AttentionKvCache> KvCacheRegistry::find(int64_t id) const {
  const std::lock_guard lock(mutex_);
  const auto found = caches_.find(id);
  return found == caches_.end() ? nullptr : found->second;
}

void KvCacheRegistry::release(int64_t id) {
  const std::lock_guard lock(mutex_);
  caches_.erase(id);
}

}  // namespace mlrb
