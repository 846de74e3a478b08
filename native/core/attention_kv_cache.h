// The keys and values a fused attention node keeps between the decoding passes of one generation run, for
// graphs exported without past inputs (graph/decode_cache.h). The first pass (the prompt) fills it; each
// later pass feeds only the new tokens, whose keys and values are appended, and attends over all of it, so
// such a graph decodes like one exported with past instead of recomputing the whole sequence every token.
// Plain C++: the ORT op (ort/attention_op.cc) finds the run's cache by the id the run feeds as a graph input.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace mlrb {

// One fused attention node's cache. Per batch entry and key/value head, the keys (rotated, where the node
// folds a rotary embedding) and the values of every position so far; per batch entry, the graph's mask
// value at each cached key, which every later query shares (the op checks that the graph's mask is causal
// with per-key values, the one form for which that holds).
struct LayerKv {
  int64_t batch = 0;
  int64_t kv_heads = 0;
  int64_t key_dim = 0;
  int64_t value_dim = 0;
  int64_t capacity = 0;           // positions allocated per (batch entry, head)
  int64_t length = 0;             // positions filled
  std::vector<float> keys;        // [batch, kv_heads, capacity, key_dim]
  std::vector<float> values;      // [batch, kv_heads, capacity, value_dim]
  std::vector<uint8_t> key_keep;  // [batch, capacity]: a bool mask's value at each key
  std::vector<float> key_bias;    // [batch, capacity]: an additive mask's value at each key

  [[nodiscard]] float* key_row(int64_t entry, int64_t head, int64_t position) {
    return keys.data() + ((entry * kv_heads + head) * capacity + position) * key_dim;
  }
  [[nodiscard]] float* value_row(int64_t entry, int64_t head, int64_t position) {
    return values.data() + ((entry * kv_heads + head) * capacity + position) * value_dim;
  }
  // Room for `positions` in all, keeping what is cached (capacity at least doubles, so appends stay linear).
  void reserve(int64_t positions);
};

class AttentionKvCache {
 public:
  // `expected_positions`: how many positions a run will cache at most (its longest prompt plus its new tokens),
  // allocated at a layer's first use, so the cache is not regrown (and its new pages zeroed) as it fills.
  explicit AttentionKvCache(int64_t expected_positions = 0) : expected_positions_(expected_positions) {}

  [[nodiscard]] int64_t expected_positions() const { return expected_positions_; }
  // The layer of the node named `node`, empty on first use. References stay valid while the cache lives.
  [[nodiscard]] LayerKv& layer(const std::string& node);
  // Keeps the batch entries `entries` (ascending) of every layer, in that order: prompts that finished leave.
  void keep_entries(std::span<const int64_t> entries);

 private:
  int64_t expected_positions_;
  std::mutex mutex_;  // layer() may be called from ORT's inter-op threads
  std::unordered_map<std::string, LayerKv> layers_;
};

// Caches by id, so that an int64 graph input can name the run's cache: ids start at 1 and are never reused
// (0 means "no cache": a scoring pass, or a graph run without one).
class KvCacheRegistry {
 public:
  static KvCacheRegistry& instance();
  [[nodiscard]] int64_t add(std::shared_ptr<AttentionKvCache> cache);
  // nullptr when no cache has that id (released, or never issued).
  [[nodiscard]] std::shared_ptr<AttentionKvCache> find(int64_t id) const;
  void release(int64_t id);

 private:
  mutable std::mutex mutex_;
  int64_t next_id_ = 1;
  std::unordered_map<int64_t, std::shared_ptr<AttentionKvCache>> caches_;
};

// A cache registered for the lifetime of this object (one generation run).
class RegisteredKvCache {
 public:
  explicit RegisteredKvCache(int64_t expected_positions)
      : cache_(std::make_shared<AttentionKvCache>(expected_positions)), id_(KvCacheRegistry::instance().add(cache_)) {}
  ~RegisteredKvCache() { KvCacheRegistry::instance().release(id_); }
  RegisteredKvCache(const RegisteredKvCache&) = delete;
  RegisteredKvCache& operator=(const RegisteredKvCache&) = delete;

  [[nodiscard]] int64_t id() const { return id_; }
  [[nodiscard]] AttentionKvCache& cache() { return *cache_; }

 private:
  std::shared_ptr<AttentionKvCache> cache_;
  int64_t id_;
};

}  // namespace mlrb
