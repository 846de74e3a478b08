#include "cuda_scoring.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <vector>

#include "../core/error.h"
#include "../cuda/cuda_memory.h"
#include "../cuda/device_reduce.h"
#include "element_types.h"
#include "logits_check.h"
#include "ort_failure.h"
#include "scoring_session.h"

namespace mlrb {

namespace {

constexpr size_t kAlignment = 256;  // cudaMalloc's own alignment, kept for every region of a buffer

size_t align_up(size_t bytes) {
  return (bytes + kAlignment - 1) / kAlignment * kAlignment;
}

bool is_past(InputRole role) {
  return role == InputRole::kPastKeyValue || role == InputRole::kPastStacked;
}

// Non-past inputs are int32 or int64 (graph_signature refuses anything else).
size_t tensor_bytes(const Ort::TensorTypeAndShapeInfo& info) {
  return info.GetElementCount() * element_bytes(info.GetElementType());
}

cuda::LogitsType logits_type_of(ONNXTensorElementDataType type) {
  switch (type) {
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT: return cuda::LogitsType::kFloat32;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16: return cuda::LogitsType::kFloat16;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_BFLOAT16: return cuda::LogitsType::kBFloat16;
    default: throw Error("BAD_MODEL", "logits of type " + element_type_name(type) + " cannot be reduced on the GPU");
  }
}

// The logits rows the reduction walks, each once however many requests read it (cuda/device_reduce.h),
// and for each scored position (requests' positions in order) the index of its row among them.
struct ReductionRows {
  std::vector<int64_t> rows;
  std::vector<int32_t> position_rows;
};

ReductionRows plan_reduction_rows(const PackedBatch& batch, const LogitRows& layout) {
  ReductionRows plan;
  std::vector<int32_t> index_of(static_cast<size_t>(layout.logit_rows), -1);
  plan.position_rows.reserve(batch.targets.size());
  for (size_t request = 0; request < batch.request_count(); ++request) {
    for (int64_t j = 0; j < batch.target_count(request); ++j) {
      const int64_t row = layout.request_first_row[request] + j;
      int32_t& index = index_of[static_cast<size_t>(row)];
      if (index < 0) {
        index = static_cast<int32_t>(plan.rows.size());
        plan.rows.push_back(row);
      }
      plan.position_rows.push_back(index);
    }
  }
  return plan;
}

// Byte offsets of one batch's regions. The pinned and the device buffer share the layout, so each upload
// or download is one contiguous copy: [inputs][reduction indices][device scratch][results][repeated prefix KV].
// The last region exists on the device only: a prefix computed there is repeated there (broadcast_on_device),
// into memory the staging owns, so its tensors need no allocator that could be gone before they are freed.
struct StagingLayout {
  std::vector<size_t> input_offsets;  // per signature input: host-uploaded inputs, or the repeated prefix KV of a past input
  size_t inputs_end = 0;
  size_t rows = 0;              // int64 [distinct rows]
  size_t position_rows = 0;     // int32 [positions]
  size_t position_targets = 0;  // int32 [positions]
  size_t request_offsets = 0;   // int32 [requests + 1]
  size_t indices_end = 0;
  size_t row_stats = 0;           // cuda::RowStats [distinct rows], device scratch
  size_t position_is_argmax = 0;  // uint8 [positions], device scratch
  size_t request_logliks = 0;     // double [requests]
  size_t request_greedy = 0;      // uint8 [requests]
  size_t results_end = 0;         // the pinned buffer's size
  size_t total = 0;               // the device buffer's size
};

bool prefix_on_device(const DeviceBatch& in) {
  return in.prefix != nullptr && in.prefix->on_device;
}

StagingLayout plan_staging(const GraphSignature& signature, const DeviceBatch& in, const ReductionRows& reduction) {
  StagingLayout layout;
  size_t cursor = 0;
  const auto region = [&cursor](size_t bytes) {
    const size_t start = cursor;
    cursor = align_up(cursor + bytes);
    return start;
  };
  layout.input_offsets.assign(signature.inputs.size(), 0);
  for (size_t i = 0; i < signature.inputs.size(); ++i) {
    if (!is_past(signature.inputs[i].role)) layout.input_offsets[i] = region(tensor_bytes(in.inputs.values[i].GetTensorTypeAndShapeInfo()));
  }
  layout.inputs_end = cursor;
  const size_t positions = in.batch.targets.size();
  const size_t requests = in.batch.request_count();
  layout.rows = region(reduction.rows.size() * sizeof(int64_t));
  layout.position_rows = region(positions * sizeof(int32_t));
  layout.position_targets = region(positions * sizeof(int32_t));
  layout.request_offsets = region((requests + 1) * sizeof(int32_t));
  layout.indices_end = cursor;
  layout.row_stats = region(reduction.rows.size() * sizeof(cuda::RowStats));
  layout.position_is_argmax = region(positions);
  layout.request_logliks = region(requests * sizeof(double));
  layout.request_greedy = region(requests);
  layout.results_end = cursor;
  if (prefix_on_device(in)) {
    size_t past_index = 0;
    for (size_t i = 0; i < signature.inputs.size(); ++i) {
      if (!is_past(signature.inputs[i].role)) continue;
      const Ort::Value& prefix = in.prefix->values.at(past_index++);
      const size_t prefix_bytes = prefix.GetTensorTypeAndShapeInfo().GetElementCount() * element_bytes(signature.inputs[i].tensor.type);
      layout.input_offsets[i] = region(prefix_bytes * static_cast<size_t>(in.padded.rows));
    }
  }
  layout.total = cursor;
  return layout;
}

// One worker's stream and buffers. The pool keeps them for the next batch, so in steady state scoring
// allocates nothing, and concurrent batches never share a stream or a buffer.
struct Staging {
  cuda::Stream stream;
  cuda::PinnedBuffer host;
  cuda::DeviceBuffer device;
};

class StagingPool {
 public:
  class Lease {
   public:
    Lease(StagingPool& pool, std::unique_ptr<Staging> staging) : pool_(pool), staging_(std::move(staging)) {}
    // A batch that failed half-way may still have copies in flight; they finish before the next batch
    // reuses (or regrows) the buffers.
    ~Lease() {
      (void)cudaStreamSynchronize(staging_->stream.get());
      pool_.give_back(std::move(staging_));
    }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    [[nodiscard]] Staging& operator*() const { return *staging_; }

   private:
    StagingPool& pool_;
    std::unique_ptr<Staging> staging_;
  };

  [[nodiscard]] Lease acquire() {
    {
      std::lock_guard lock(mutex_);
      if (!idle_.empty()) {
        std::unique_ptr<Staging> staging = std::move(idle_.back());
        idle_.pop_back();
        return {*this, std::move(staging)};
      }
    }
    return {*this, std::make_unique<Staging>()};
  }

 private:
  void give_back(std::unique_ptr<Staging> staging) noexcept {
    try {
      std::lock_guard lock(mutex_);
      idle_.push_back(std::move(staging));
    } catch (...) {
      // No room to keep it: the staging is freed here and the next batch makes a new one.
    }
  }

  std::mutex mutex_;
  std::vector<std::unique_ptr<Staging>> idle_;
};

class CudaScorer final : public DeviceScorer {
 public:
  explicit CudaScorer(int device_id) : device_id_(device_id), device_memory_("Cuda", OrtDeviceAllocator, device_id, OrtMemTypeDefault) {}

  ~CudaScorer() override {
    (void)cudaSetDevice(device_id_);  // buffers are freed on their own device; nothing to report to here
    pool_.reset();
  }

  [[nodiscard]] BatchScores score(Ort::Session& session, const GraphSignature& signature, const DeviceBatch& in,
                                  const std::string& model_path) const override {
    cuda::check(cudaSetDevice(device_id_), "selecting CUDA device " + std::to_string(device_id_));
    const StagingPool::Lease lease = pool_->acquire();
    Staging& staging = *lease;
    const ReductionRows reduction = plan_reduction_rows(in.batch, in.layout);
    const StagingLayout layout = plan_staging(signature, in, reduction);
    staging.host.reserve(layout.results_end);
    staging.device.reserve(layout.total);

    Ort::IoBinding binding(session);
    const std::vector<Ort::Value> device_inputs = upload_inputs(signature, in, layout, staging, binding);
    binding.BindOutput(signature.logits_output.c_str(), device_memory_);
    const std::string what = "a batch of " + std::to_string(in.padded.rows) + " x " + std::to_string(in.padded.max_length) + " tokens";
    run(session, binding, "forward pass failed on " + what + " on CUDA for " + model_path);
    // The logits stay alive (ORT's arena may hand their memory to another run once freed) until the
    // stream that reads them has finished.
    const std::vector<Ort::Value> outputs = binding.GetOutputValues();
    const Ort::Value& logits = outputs.front();
    if (logits.GetTensorMemoryInfo().GetDeviceType() != OrtMemoryInfoDeviceType_GPU) {
      throw Error("INTERNAL", "ONNX Runtime returned the logits of " + model_path + " in host memory despite the device binding");
    }
    const auto info = logits.GetTensorTypeAndShapeInfo();
    const int64_t vocab_size = checked_vocab_size(info, signature, in.batch, in.padded, in.layout);
    reduce(logits, logits_type_of(info.GetElementType()), vocab_size, in.batch, reduction, layout, staging);

    BatchScores scores;
    const size_t requests = in.batch.request_count();
    const auto* logliks = reinterpret_cast<const double*>(staging.host.data() + layout.request_logliks);
    const auto* greedy = reinterpret_cast<const uint8_t*>(staging.host.data() + layout.request_greedy);
    scores.logliks.assign(logliks, logliks + requests);
    scores.greedy.assign(greedy, greedy + requests);
    scores.padded_tokens = in.padded.rows * in.padded.max_length;
    scores.logit_rows = in.layout.logit_rows;
    if (const std::string problem = non_finite_problem(scores.greedy, in.batch, layout, staging); !problem.empty()) {
      throw Error("NUMERIC", problem + " (model " + model_path + ")");
    }
    return scores;
  }

  std::vector<Ort::Value> compute_prefix(Ort::Session& session, const BoundInputs& inputs, const std::vector<std::string>& outputs,
                                         const std::string& failure) const override {
    cuda::check(cudaSetDevice(device_id_), "selecting CUDA device " + std::to_string(device_id_));
    Ort::IoBinding binding(session);
    for (size_t i = 0; i < inputs.values.size(); ++i) binding.BindInput(inputs.names[i], inputs.values[i]);
    for (const std::string& output : outputs) binding.BindOutput(output.c_str(), device_memory_);
    run(session, binding, failure);
    return binding.GetOutputValues();
  }

 private:
  static void run(Ort::Session& session, Ort::IoBinding& binding, const std::string& failure) {
    try {
      session.Run(Ort::RunOptions{nullptr}, binding);
      binding.SynchronizeOutputs();
    } catch (const Ort::Exception& error) {
      throw ort_failure(error, "ORT_RUN", failure);
    }
  }

  // Copies every non-past input into the pinned buffer and uploads them in one asynchronous copy, then binds
  // device tensors over them. An empty past is bound from the host (it has no bytes); a prefix computed on
  // the device is repeated for every row there, in the staging buffer (broadcast_on_device).
  // Binding comes after the copies have finished: ORT copies a bound input at once to wherever the graph
  // reads it, and runs on its own stream, so a tensor bound too early could be read before it holds the batch.
  std::vector<Ort::Value> upload_inputs(const GraphSignature& signature, const DeviceBatch& in, const StagingLayout& layout, Staging& staging,
                                        Ort::IoBinding& binding) const {
    std::vector<Ort::Value> device_inputs;
    device_inputs.reserve(signature.inputs.size());
    for (size_t i = 0; i < signature.inputs.size(); ++i) {
      const Ort::Value& host_value = in.inputs.values[i];
      if (is_past(signature.inputs[i].role)) {
        device_inputs.emplace_back(nullptr);
        continue;
      }
      const auto info = host_value.GetTensorTypeAndShapeInfo();
      const size_t bytes = tensor_bytes(info);
      std::memcpy(staging.host.data() + layout.input_offsets[i], host_value.GetTensorRawData(), bytes);
      const std::vector<int64_t> shape = info.GetShape();
      device_inputs.push_back(Ort::Value::CreateTensor(device_memory_, staging.device.data() + layout.input_offsets[i], bytes, shape.data(),
                                                       shape.size(), info.GetElementType()));
    }
    cuda::check(cudaMemcpyAsync(staging.device.data(), staging.host.data(), layout.inputs_end, cudaMemcpyHostToDevice, staging.stream.get()),
                "uploading the batch's inputs");
    if (prefix_on_device(in)) {
      size_t past_index = 0;
      for (size_t i = 0; i < signature.inputs.size(); ++i) {
        if (!is_past(signature.inputs[i].role)) continue;
        device_inputs[i] = broadcast_on_device(in.prefix->values.at(past_index++), signature.inputs[i], in.padded.rows,
                                               staging.device.data() + layout.input_offsets[i], staging.stream.get());
      }
    }
    staging.stream.synchronize("uploading the batch's inputs");
    for (size_t i = 0; i < signature.inputs.size(); ++i) {
      binding.BindInput(in.inputs.names[i], device_inputs[i] != nullptr ? device_inputs[i] : in.inputs.values[i]);
    }
    return device_inputs;
  }

  // Repeats a batch-1 prefix tensor on the device for `rows` rows along the input's batch axis, into `target`
  // (rows times the prefix's bytes, in the staging buffer). Within each block of rows the copies double: one
  // row, then two, four …, so a batch costs log2(rows) copies per block.
  Ort::Value broadcast_on_device(const Ort::Value& prefix, const InputPlan& plan, int64_t rows, std::byte* target, cudaStream_t stream) const {
    const std::vector<int64_t> shape = broadcast_shape(prefix, plan, rows);
    const size_t prefix_bytes = prefix.GetTensorTypeAndShapeInfo().GetElementCount() * element_bytes(plan.tensor.type);
    Ort::Value expanded =
        Ort::Value::CreateTensor(device_memory_, target, prefix_bytes * static_cast<size_t>(rows), shape.data(), shape.size(), plan.tensor.type);
    const auto axis = static_cast<size_t>(plan.batch_axis);
    size_t outer = 1;
    for (size_t d = 0; d < axis; ++d) outer *= static_cast<size_t>(shape[d]);
    const size_t row_bytes = prefix_bytes / outer;
    const auto* source = static_cast<const std::byte*>(prefix.GetTensorRawData());
    const auto count = static_cast<size_t>(rows);
    for (size_t o = 0; o < outer; ++o) {
      std::byte* block = target + o * count * row_bytes;
      cuda::check(cudaMemcpyAsync(block, source + o * row_bytes, row_bytes, cudaMemcpyDeviceToDevice, stream), "repeating the prefix KV");
      for (size_t done = 1; done < count; done *= 2) {
        const size_t copies = std::min(done, count - done);
        cuda::check(cudaMemcpyAsync(block + done * row_bytes, block, copies * row_bytes, cudaMemcpyDeviceToDevice, stream),
                    "repeating the prefix KV");
      }
    }
    return expanded;
  }

  // Uploads the reduction's rows and positions, runs the fused reduction on the stream and brings back the
  // per-request results; returns once they are in the pinned buffer.
  static void reduce(const Ort::Value& logits, cuda::LogitsType type, int64_t vocab_size, const PackedBatch& batch, const ReductionRows& reduction,
                     const StagingLayout& layout, Staging& staging) {
    std::byte* host = staging.host.data();
    std::byte* device = staging.device.data();
    std::memcpy(host + layout.rows, reduction.rows.data(), reduction.rows.size() * sizeof(int64_t));
    std::memcpy(host + layout.position_rows, reduction.position_rows.data(), reduction.position_rows.size() * sizeof(int32_t));
    std::memcpy(host + layout.position_targets, batch.targets.data(), batch.targets.size() * sizeof(int32_t));
    std::memcpy(host + layout.request_offsets, batch.target_offsets.data(), batch.target_offsets.size() * sizeof(int32_t));
    const cudaStream_t stream = staging.stream.get();
    cuda::check(
        cudaMemcpyAsync(device + layout.inputs_end, host + layout.inputs_end, layout.indices_end - layout.inputs_end, cudaMemcpyHostToDevice, stream),
        "uploading the scored positions");
    cuda::DeviceReduceArgs args;
    args.logits = logits.GetTensorRawData();
    args.type = type;
    args.vocab_size = vocab_size;
    args.rows = reinterpret_cast<const int64_t*>(device + layout.rows);
    args.row_count = static_cast<int32_t>(reduction.rows.size());
    args.position_rows = reinterpret_cast<const int32_t*>(device + layout.position_rows);
    args.position_targets = reinterpret_cast<const int32_t*>(device + layout.position_targets);
    args.positions = static_cast<int32_t>(batch.targets.size());
    args.request_offsets = reinterpret_cast<const int32_t*>(device + layout.request_offsets);
    args.requests = static_cast<int32_t>(batch.request_count());
    args.row_stats = reinterpret_cast<cuda::RowStats*>(device + layout.row_stats);
    args.position_is_argmax = reinterpret_cast<uint8_t*>(device + layout.position_is_argmax);
    args.request_logliks = reinterpret_cast<double*>(device + layout.request_logliks);
    args.request_greedy = reinterpret_cast<uint8_t*>(device + layout.request_greedy);
    args.stream = stream;
    if (const std::string failure = cuda::reduce_on_device(args); !failure.empty()) throw Error("INTERNAL", failure);
    cuda::check(cudaMemcpyAsync(host + layout.request_logliks, device + layout.request_logliks, layout.results_end - layout.request_logliks,
                                cudaMemcpyDeviceToHost, stream),
                "downloading the request scores");
    staging.stream.synchronize("reducing the logits on the GPU");
  }

  // The host path's message for the first request whose logits hold NaN or Inf (greedy flag 2): the
  // request's per-position flags are fetched only in that case, to name the position.
  static std::string non_finite_problem(const std::vector<uint8_t>& greedy, const PackedBatch& batch, const StagingLayout& layout, Staging& staging) {
    size_t request = 0;
    while (request < greedy.size() && greedy[request] != 2) ++request;
    if (request == greedy.size()) return {};
    const auto first = static_cast<size_t>(batch.target_offsets[request]);
    const auto count = static_cast<size_t>(batch.target_count(request));
    std::vector<uint8_t> flags(count);
    cuda::check(cudaMemcpy(flags.data(), staging.device.data() + layout.position_is_argmax + first, count, cudaMemcpyDeviceToHost),
                "downloading the position flags");
    size_t j = 0;
    while (j + 1 < count && flags[j] != 2) ++j;
    return "logits are NaN or Inf for request " + std::to_string(request) + " at position " +
           std::to_string(batch.first_scored(request) + static_cast<int64_t>(j)) + " of row " + std::to_string(batch.request_rows[request]);
  }

  int device_id_;
  Ort::MemoryInfo device_memory_;
  std::unique_ptr<StagingPool> pool_ = std::make_unique<StagingPool>();
};

}  // namespace

CudaScorerSetup make_cuda_scorer(int device_id) {
  CudaScorerSetup setup;
  const std::optional<cuda::DeviceMemory> device = cuda::query_device(device_id);
  if (!device) {
    setup.note = "CUDA provider; logits are reduced on the host: this build's CUDA runtime cannot use device " + std::to_string(device_id) +
                 " (driver older than the CUDA " + std::to_string(CUDART_VERSION / 1000) + " it was built with?)";
    return setup;
  }
  setup.scorer = std::make_unique<CudaScorer>(device_id);
  setup.note = "CUDA provider on " + device->name + " (sm_" + std::to_string(device->compute_major) + std::to_string(device->compute_minor) +
               "): logits stay on the device and are reduced there";
  return setup;
}

}  // namespace mlrb
