#include "cuda_provider.h"

#include <dlfcn.h>

#include <cctype>
#include <filesystem>

#include "../core/error.h"

namespace mlrb {

namespace {

constexpr const char* kFixHint =
    "Put libonnxruntime_providers_cuda.so and libonnxruntime_providers_shared.so built for the same ORT version beside "
    "the ONNX Runtime library (or name such a build with --ort-library / MLRB_ORT_LIBRARY), and put CUDA, cuBLAS and "
    "cuDNN on LD_LIBRARY_PATH before node starts (README, \"GPU (CUDA)\"); or use --provider cpu, or auto to fall back";

std::string trimmed(std::string text) {
  while (!text.empty() && (std::isspace(static_cast<unsigned char>(text.back())) != 0 || text.back() == '.')) text.pop_back();
  return text;
}

// ORT builds with the CUDA provider interface (onnxruntime-node's, Microsoft's GPU packages) take the V2
// options, where TF32 can be turned off. Returns "" on success, else ORT's message.
std::string append_v2(Ort::SessionOptions& session_options, int device_id) {
  try {
    Ort::CUDAProviderOptions cuda_options;
    // TF32 matmuls would move fp32 logliks by ~1e-3; lm-eval's HF backend runs fp32 without it too.
    // kSameAsRequested keeps the arena at what the run needed, so device memory readings mean something.
    cuda_options.Update({{"device_id", std::to_string(device_id)}, {"use_tf32", "0"}, {"arena_extend_strategy", "kSameAsRequested"}});
    session_options.AppendExecutionProvider_CUDA_V2(*cuda_options);
    return {};
  } catch (const Ort::Exception& error) {
    return trimmed(error.what());
  }
}

// CPU builds that still carry ORT's provider bridge (asus4's libonnxruntime.so) refuse the V2 options as
// "not enabled in this build" but load a separately shipped provider through the legacy struct.
std::string append_legacy(Ort::SessionOptions& session_options, int device_id) {
  try {
    OrtCUDAProviderOptions legacy;
    legacy.device_id = device_id;
    legacy.arena_extend_strategy = 1;  // kSameAsRequested
    session_options.AppendExecutionProvider_CUDA(legacy);
    return {};
  } catch (const Ort::Exception& error) {
    return trimmed(error.what());
  }
}

// ORT's legacy path only says "Failed to load shared library"; loading the file ourselves gives the
// loader's reason (a missing file, or a missing cuBLAS / cuDNN it depends on).
std::string library_diagnosis(const std::string& library) {
  void* handle = dlopen(library.c_str(), RTLD_LAZY | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* reason = dlerror();
    return std::string("the loader says: ") + (reason != nullptr ? reason : "unknown dlopen error");
  }
  dlclose(handle);
  return library + " loads, so ONNX Runtime refused it (built for another ORT version?)";
}

// The driver API is read through dlopen so that CPU-only builds can check for a device too, and so that a
// machine without the NVIDIA driver gets a message rather than a failed load of the addon.
std::string driver_problem() {
  void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (driver == nullptr) {
    const char* reason = dlerror();
    return std::string("the NVIDIA driver library libcuda.so.1 cannot be loaded (") + (reason != nullptr ? reason : "unknown") +
           "); is there a GPU and its driver on this machine?";
  }
  using Init = int (*)(unsigned int);
  using DeviceCount = int (*)(int*);
  auto init = reinterpret_cast<Init>(dlsym(driver, "cuInit"));
  auto device_count = reinterpret_cast<DeviceCount>(dlsym(driver, "cuDeviceGetCount"));
  // The handle stays open: the CUDA provider loads the same driver and keeps it for the process's life.
  if (init == nullptr || device_count == nullptr) return "libcuda.so.1 does not export cuInit / cuDeviceGetCount";
  if (const int status = init(0); status != 0) {
    return "the NVIDIA driver did not initialise (cuInit error " + std::to_string(status) + "); is a GPU visible to this process?";
  }
  int count = 0;
  if (const int status = device_count(&count); status != 0 || count == 0) {
    return "the NVIDIA driver reports no CUDA device (check CUDA_VISIBLE_DEVICES)";
  }
  return {};
}

}  // namespace

std::string cuda_provider_library_path(const OrtRuntimeInfo& runtime) {
  return (std::filesystem::path(runtime.library_path).parent_path() / "libonnxruntime_providers_cuda.so").string();
}

std::string append_cuda_provider(Ort::SessionOptions& session_options, const OrtRuntimeInfo& runtime, int device_id) {
  const std::string provider_library = cuda_provider_library_path(runtime);
  const std::string runtime_name = "ONNX Runtime " + runtime.version + " (" + runtime.library_path + ")";
  // ORT looks only beside itself; asking it anyway would cost a load attempt and an error line in its log.
  if (!std::filesystem::exists(provider_library)) {
    throw Error("CUDA_UNAVAILABLE",
                "the CUDA execution provider " + provider_library + " does not exist, so " + runtime_name + " cannot run on a GPU. " + kFixHint);
  }
  std::string note;
  if (const std::string v2_failure = append_v2(session_options, device_id); !v2_failure.empty()) {
    if (const std::string legacy_failure = append_legacy(session_options, device_id); !legacy_failure.empty()) {
      throw Error("CUDA_UNAVAILABLE", "cannot load the CUDA execution provider " + provider_library + " into " + runtime_name + ": " +
                                          library_diagnosis(provider_library) + " (ONNX Runtime said: " + v2_failure + "; " + legacy_failure + "). " +
                                          kFixHint);
    }
    note = "; this ORT build takes only the legacy CUDA options, so fp32 matmuls may use TF32 unless NVIDIA_TF32_OVERRIDE=0";
  }
  if (std::string problem = driver_problem(); !problem.empty()) {
    throw Error("CUDA_UNAVAILABLE", "the CUDA execution provider " + provider_library + " loaded, but " + problem);
  }
  return note;
}

}  // namespace mlrb
