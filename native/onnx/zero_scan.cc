#include "zero_scan.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "../core/error.h"
#include "file_handle.h"
#include "mapped_range.h"
#include "zero_scan_kernel.h"

namespace mlrb::onnx {

namespace {

// Large enough that mapping costs vanish, small enough to spread work evenly over threads (measured
// best among 1–64 MiB).
constexpr uint64_t kChunkBytes = 4ull << 20;

// How errors name the tensor a request scans.
std::string tensor_label(const ZeroScanRequest& request) {
  return (request.tensor.empty() ? std::string("a tensor") : "tensor " + request.tensor) + " at byte offset " + std::to_string(request.offset);
}

struct Chunk {
  size_t request = 0;
  uint64_t first_element = 0;
  uint64_t element_count = 0;
};

class ScanJob {
 public:
  explicit ScanJob(const std::vector<ZeroScanRequest>& requests) : requests_(requests) {
    for (size_t index = 0; index < requests.size(); ++index) plan_request(index);
  }

  std::vector<ZeroScanResult> run(size_t threads) {
    const size_t workers = std::max<size_t>(1, std::min(threads, chunks_.size()));
    std::vector<std::vector<std::optional<ZeroAccumulator>>> partials(workers);
    {
      std::vector<std::jthread> pool;
      for (size_t worker = 1; worker < workers; ++worker) pool.emplace_back([this, &partials, worker] { work(partials[worker]); });
      work(partials[0]);
    }  // jthreads join here
    if (failure_) std::rethrow_exception(failure_);
    return merge(partials);
  }

 private:
  void plan_request(size_t index) {
    const ZeroScanRequest& request = requests_[index];
    if (request.element_bytes != 1 && request.element_bytes != 2 && request.element_bytes != 4 && request.element_bytes != 8) {
      throw Error("INTERNAL", "zero scan of " + request.file + ": element width " + std::to_string(request.element_bytes));
    }
    uint64_t elements = 0;
    uint64_t bytes = 0;
    if (__builtin_mul_overflow(request.rows, request.cols, &elements) || __builtin_mul_overflow(elements, request.element_bytes, &bytes)) {
      throw Error("BAD_MODEL", "zero scan of " + request.file + ": a tensor of " + std::to_string(request.rows) + " x " +
                                   std::to_string(request.cols) + " elements overflows 64 bits");
    }
    if (elements == 0) return;
    const FileHandle& file = open(request.file);
    if (request.offset > file.size() || bytes > file.size() - request.offset) {
      throw Error("BAD_MODEL", request.file + " has " + std::to_string(file.size()) + " bytes, too few for a tensor at [" +
                                   std::to_string(request.offset) + ", " + std::to_string(request.offset + bytes) + ")");
    }
    file.advise_sequential(request.offset, bytes);
    const uint64_t per_chunk = std::max<uint64_t>(1, kChunkBytes / request.element_bytes);
    for (uint64_t first = 0; first < elements; first += per_chunk) {
      chunks_.push_back({index, first, std::min(per_chunk, elements - first)});
    }
  }

  const FileHandle& open(const std::string& path) {
    auto found = files_.find(path);
    if (found == files_.end()) found = files_.emplace(path, std::make_unique<FileHandle>(path, "tensor data")).first;
    return *found->second;
  }

  // Each worker pulls chunks until none are left; a failure stops everyone at their next chunk.
  void work(std::vector<std::optional<ZeroAccumulator>>& mine) {
    try {
      mine.resize(requests_.size());
      std::vector<uint64_t> buffer;
      for (size_t next = next_chunk_++; next < chunks_.size() && !failed_.load(); next = next_chunk_++) {
        const Chunk& chunk = chunks_[next];
        const ZeroScanRequest& request = requests_[chunk.request];
        const uint64_t bytes = chunk.element_count * request.element_bytes;
        const FileHandle& file = *files_.at(request.file);
        const uint64_t position = request.offset + chunk.first_element * request.element_bytes;
        const void* data = nullptr;
        std::optional<MappedRange> mapped;
        if (position % request.element_bytes == 0) {
          data = mapped.emplace(file, position, bytes).data();
        } else {
          // Misaligned elements (raw_data at an odd protobuf offset): the vectorized kernel needs
          // naturally aligned words, so these are copied into an aligned buffer instead.
          if (bytes > buffer.size() * sizeof(uint64_t)) buffer.resize(bytes / sizeof(uint64_t) + 1);
          try {
            file.read_exact(position, buffer.data(), bytes);
          } catch (const Error& error) {
            throw Error(error.code(), std::string(error.what()) + " (reading " + tensor_label(request) + ")");
          }
          data = buffer.data();
        }
        std::optional<ZeroAccumulator>& accumulator = mine[chunk.request];
        if (!accumulator) prepare_accumulator(accumulator.emplace(), request.rows, request.cols, request.element_bytes);
        scan_zero_block(data, chunk.first_element, chunk.element_count, request.cols, request.element_bytes, request.ignore_sign, *accumulator);
        if (mapped) mapped->throw_if_damaged(tensor_label(request));
      }
    } catch (...) {
      const std::lock_guard lock(failure_mutex_);
      if (!failure_) failure_ = std::current_exception();
      failed_ = true;
    }
  }

  std::vector<ZeroScanResult> merge(std::vector<std::vector<std::optional<ZeroAccumulator>>>& partials) const {
    std::vector<ZeroScanResult> results(requests_.size());
    for (size_t index = 0; index < requests_.size(); ++index) {
      const ZeroScanRequest& request = requests_[index];
      ZeroAccumulator total;
      prepare_accumulator(total, request.rows, request.cols, request.element_bytes);
      for (auto& worker : partials) {
        if (index < worker.size() && worker[index]) merge_accumulator(total, *worker[index], request.cols, request.element_bytes);
      }
      ZeroScanResult& result = results[index];
      result.zero_count = total.zero_count;
      result.zero_rows.resize(request.rows);
      for (uint64_t row = 0; row < request.rows; ++row) result.zero_rows[row] = total.row_nonzero[row] == 0 ? 1 : 0;
      result.zero_columns = zero_columns(total, request.cols, request.element_bytes);
    }
    return results;
  }

  const std::vector<ZeroScanRequest>& requests_;
  std::map<std::string, std::unique_ptr<FileHandle>> files_;
  std::vector<Chunk> chunks_;
  std::atomic<size_t> next_chunk_{0};
  std::atomic<bool> failed_{false};
  std::mutex failure_mutex_;
  std::exception_ptr failure_;
};

}  // namespace

std::vector<ZeroScanResult> scan_zeros(const std::vector<ZeroScanRequest>& requests, size_t threads) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  ScanJob job(requests);
  return job.run(threads);
}

}  // namespace mlrb::onnx
