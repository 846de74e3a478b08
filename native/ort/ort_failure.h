// How a failed ONNX Runtime call becomes an mlrb::Error. ORT reports an allocation failure as a plain
// runtime error whose only mark is its message (its BFC arena, cudaMalloc, cuBLAS or cuDNN workspaces), so
// the message is what tells "out of memory" — fixed by a smaller batch — from a broken graph or run.
#pragma once

#include <string>
#include <string_view>

#include "../core/error.h"
#include "ort_api.h"

namespace mlrb {

// True when ORT's message says an allocation failed, on the host or the device.
[[nodiscard]] bool reports_out_of_memory(std::string_view message);

// `failure` says what failed ("forward pass failed on … for model.onnx"); ORT's message follows it. The code
// is OOM, with a hint, when ORT ran out of memory, else `code`.
[[nodiscard]] Error ort_failure(const Ort::Exception& error, const std::string& code, const std::string& failure);

}  // namespace mlrb
