// N-API surface of the fused CPU attention kernel's rounding choice (core/cpu_features.h): the CPU facts
// buildInfo reports, and attentionKernel, which runs the kernel on one head outside any graph with the
// rounding of a named MLAS kernel path, so that each path's rounding can be checked on any CPU.
#pragma once

#include <napi.h>

#include "../core/cpu_features.h"

namespace mlrb::addon {

// The process's kernel path (kernel_path_choice); throws RangeError where MLRB_CPU_PATH is invalid.
const KernelPathChoice& kernel_path_choice_or_throw(Napi::Env env);

// { model, features, kernelPath, mlasPath, forced }. Throws RangeError where MLRB_CPU_PATH is invalid.
[[nodiscard]] Napi::Object cpu_facts_to_js(Napi::Env env);

// Adds attentionKernel to the addon's exports.
void register_cpu_kernel(Napi::Env env, Napi::Object exports);

}  // namespace mlrb::addon
