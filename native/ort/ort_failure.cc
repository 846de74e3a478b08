#include "ort_failure.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace mlrb {

namespace {

// The phrases ORT's allocators and its CUDA / cuBLAS / cuDNN error macros put in their messages:
// "Failed to allocate memory for requested buffer of size …" (BFC arena), "CUDA failure 2: out of memory",
// "CUBLAS_STATUS_ALLOC_FAILED", "CUDNN_STATUS_ALLOC_FAILED", "cudaErrorMemoryAllocation", std::bad_alloc.
constexpr std::array<std::string_view, 5> kOutOfMemoryPhrases = {"out of memory", "failed to allocate memory", "status_alloc_failed",
                                                                 "cudaerrormemoryallocation", "bad_alloc"};

std::string lower(std::string_view text) {
  std::string lowered(text);
  std::transform(lowered.begin(), lowered.end(), lowered.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lowered;
}

}  // namespace

bool reports_out_of_memory(std::string_view message) {
  const std::string lowered = lower(message);
  return std::any_of(kOutOfMemoryPhrases.begin(), kOutOfMemoryPhrases.end(),
                     [&](std::string_view phrase) { return lowered.find(phrase) != std::string::npos; });
}

Error ort_failure(const Ort::Exception& error, const std::string& code, const std::string& failure) {
  const std::string message = failure + ": " + error.what();
  if (reports_out_of_memory(error.what())) return Error("OOM", message + " (out of memory: lower --batch-size or --memory-budget-mb)");
  return Error(code, message);
}

}  // namespace mlrb
