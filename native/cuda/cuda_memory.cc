#include "cuda_memory.h"

#include "../core/error.h"

namespace mlrb::cuda {

void check(cudaError_t status, const std::string& what) {
  if (status == cudaSuccess) return;
  const std::string detail = what + ": " + cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")";
  switch (status) {
    case cudaErrorMemoryAllocation: throw Error("OOM", "out of GPU memory at " + detail + "; lower --batch-size or --memory-budget-mb");
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorInvalidDevice:
    case cudaErrorDevicesUnavailable: throw Error("CUDA_UNAVAILABLE", "no usable CUDA device at " + detail);
    default: throw Error("INTERNAL", "CUDA failed at " + detail);
  }
}

Stream::Stream() {
  check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "creating a CUDA stream");
}

Stream::~Stream() {
  if (stream_ != nullptr) (void)cudaStreamDestroy(stream_);  // nothing to report to from a destructor
}

void Stream::synchronize(const std::string& what) const {
  check(cudaStreamSynchronize(stream_), what);
}

void* DeviceAllocation::allocate(size_t bytes) {
  void* data = nullptr;
  check(cudaMalloc(&data, bytes), "allocating " + std::to_string(bytes) + " bytes of device memory");
  return data;
}

void DeviceAllocation::release(void* data) noexcept {
  if (data != nullptr) (void)cudaFree(data);
}

void* PinnedAllocation::allocate(size_t bytes) {
  void* data = nullptr;
  check(cudaHostAlloc(&data, bytes, cudaHostAllocDefault), "allocating " + std::to_string(bytes) + " bytes of pinned host memory");
  return data;
}

void PinnedAllocation::release(void* data) noexcept {
  if (data != nullptr) (void)cudaFreeHost(data);
}

std::optional<DeviceMemory> query_device(int device) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || device < 0 || device >= count) {
    (void)cudaGetLastError();  // a failed query must not leave a sticky error for the next call
    return std::nullopt;
  }
  cudaDeviceProp properties{};
  DeviceMemory memory;
  if (cudaGetDeviceProperties(&properties, device) != cudaSuccess || cudaSetDevice(device) != cudaSuccess ||
      cudaMemGetInfo(&memory.free_bytes, &memory.total_bytes) != cudaSuccess) {
    (void)cudaGetLastError();
    return std::nullopt;
  }
  memory.name = properties.name;
  memory.compute_major = properties.major;
  memory.compute_minor = properties.minor;
  return memory;
}

}  // namespace mlrb::cuda
