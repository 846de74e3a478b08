#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cfloat>

#include "device_reduce.h"

namespace mlrb::cuda {

namespace {

constexpr int kThreads = 256;

__device__ inline float to_float(float value) {
  return value;
}
__device__ inline float to_float(__half value) {
  return __half2float(value);
}
__device__ inline float to_float(__nv_bfloat16 value) {
  return __bfloat162float(value);
}

// Running state of an online log-sum-exp with argmax; merging two states is associative, so threads,
// then warps, combine them in any tree order. Ties keep the lower index: lm-eval's argmax is the first.
struct LseState {
  float max;
  float sum;  // sum of exp(x - max)
  int64_t argmax;
};

__device__ inline LseState merge(LseState a, LseState b) {
  if (b.max > a.max || (b.max == a.max && b.argmax < a.argmax)) {
    const LseState t = a;
    a = b;
    b = t;
  }
  // a now holds the larger max (or the lower index among equal maxima).
  const float scaled = b.sum == 0.0F ? 0.0F : b.sum * __expf(b.max - a.max);
  return {a.max, a.sum + scaled, a.argmax};
}

// One block per distinct logits row: each thread walks a strided slice of the vocabulary, then the block
// merges the states. All arithmetic is fp32 whatever the logits type (fp16 / bf16 widen on load).
template <typename T>
__global__ void reduce_rows(const T* logits, int64_t vocab, const int64_t* rows, int32_t row_count, RowStats* stats) {
  const int32_t index = blockIdx.x;
  if (index >= row_count) return;
  const T* row = logits + rows[index] * vocab;
  LseState state{-FLT_MAX, 0.0F, vocab};
  bool finite = true;
  for (int64_t i = threadIdx.x; i < vocab; i += blockDim.x) {
    const float value = to_float(row[i]);
    if (!isfinite(value)) finite = false;
    state = merge(state, LseState{value, 1.0F, i});
  }
  __shared__ LseState shared[kThreads];
  __shared__ int any_non_finite;
  if (threadIdx.x == 0) any_non_finite = 0;
  __syncthreads();
  if (!finite) atomicOr(&any_non_finite, 1);
  shared[threadIdx.x] = state;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) shared[threadIdx.x] = merge(shared[threadIdx.x], shared[threadIdx.x + stride]);
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    const LseState total = shared[0];
    stats[index] = RowStats{total.max, total.sum, total.argmax, any_non_finite == 0 && total.sum > 0.0F ? 1 : 0, 0};
  }
}

// One thread per request: its positions read their row's statistics and their target's logit.
template <typename T>
__global__ void sum_requests(const T* logits, int64_t vocab, const int64_t* rows, const RowStats* stats, const int32_t* position_rows,
                             const int32_t* targets, const int32_t* request_offsets, int32_t requests, uint8_t* is_argmax, double* logliks,
                             uint8_t* greedy) {
  const int32_t request = blockIdx.x * blockDim.x + threadIdx.x;
  if (request >= requests) return;
  double sum = 0.0;
  uint8_t all = 1;
  for (int32_t p = request_offsets[request]; p < request_offsets[request + 1]; ++p) {
    const int32_t index = position_rows[p];
    const RowStats row = stats[index];
    const int32_t target = targets[p];
    if (row.finite == 0) {
      is_argmax[p] = 2;
      all = 2;
      continue;
    }
    const float logit = to_float(logits[rows[index] * vocab + target]);
    sum += static_cast<double>(logit) - static_cast<double>(row.max) - log(static_cast<double>(row.sum));
    is_argmax[p] = row.argmax == target ? 1 : 0;
    if (all == 1 && row.argmax != target) all = 0;
  }
  logliks[request] = all == 2 ? 0.0 : sum;
  greedy[request] = all;
}

template <typename T>
void launch(const DeviceReduceArgs& args, cudaStream_t stream) {
  const auto* logits = static_cast<const T*>(args.logits);
  reduce_rows<T><<<args.row_count, kThreads, 0, stream>>>(logits, args.vocab_size, args.rows, args.row_count, args.row_stats);
  const int blocks = (args.requests + kThreads - 1) / kThreads;
  sum_requests<T><<<blocks, kThreads, 0, stream>>>(logits, args.vocab_size, args.rows, args.row_stats, args.position_rows, args.position_targets,
                                                   args.request_offsets, args.requests, args.position_is_argmax, args.request_logliks,
                                                   args.request_greedy);
}

}  // namespace

std::string reduce_on_device(const DeviceReduceArgs& args) {
  if (args.positions == 0 || args.requests == 0 || args.row_count == 0) return {};
  auto stream = static_cast<cudaStream_t>(args.stream);
  switch (args.type) {
    case LogitsType::kFloat32: launch<float>(args, stream); break;
    case LogitsType::kFloat16: launch<__half>(args, stream); break;
    case LogitsType::kBFloat16: launch<__nv_bfloat16>(args, stream); break;
  }
  const cudaError_t status = cudaGetLastError();
  return status == cudaSuccess ? std::string() : std::string("CUDA kernel launch failed: ") + cudaGetErrorString(status);
}

}  // namespace mlrb::cuda
