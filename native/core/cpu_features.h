// Which of ONNX Runtime's float kernel families (its MLAS library) this CPU gets, read with CPUID and
// XGETBV exactly as MLAS reads them, so that the fused attention kernel rounds as the kernels ONNX Runtime
// runs on the same machine (core/ort_cpu_rounding.h). MLAS decides once, when ONNX Runtime loads; so does
// this: every session of the process uses the one kernel path chosen here.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mlrb {

// The float kernels MLAS (ONNX Runtime 1.x, x86-64) picks for SGEMM and softmax:
//   kAvx512:   AVX-512F kernels (16-lane softmax sum, VSCALEFPS exp scaling, FMA SGEMM)
//   kAvx2:     FMA3/AVX2 kernels (8-lane softmax sum, 2^m built in the exponent field, FMA SGEMM)
//   kBaseline: anything else (no FMA: AVX or SSE kernels, or not x86-64). The fused kernel then keeps the
//              AVX2 order; results agree with ONNX Runtime to float32 rounding, not bit for bit.
enum class KernelPath { kAvx512, kAvx2, kBaseline };

struct CpuFeatures {
  std::string model;  // CPUID brand string, '' where the CPU has none (or not x86-64)
  bool avx = false;
  bool fma = false;
  bool avx2 = false;
  bool avx512f = false;
  bool avx512dq = false;
  bool avx512bw = false;
  bool avx512vl = false;
  bool os_saves_avx = false;     // XCR0 bits 1-2: the OS saves SSE and AVX registers on a context switch
  bool os_saves_avx512 = false;  // XCR0 bits 5-7: ... and the AVX-512 opmask and upper ZMM registers

  // The flags set, lower case as /proc/cpuinfo spells them ("avx2", "fma", "avx512f", ...).
  [[nodiscard]] std::vector<std::string> names() const;
};

// The running CPU, read once per call (CPUID and XGETBV; nothing on other architectures).
[[nodiscard]] CpuFeatures read_cpu_features();

// MLAS's own decision for these features (platform.cpp: AVX and OSXSAVE with XCR0 saving AVX state, then
// FMA3 and AVX2, then AVX512F with XCR0 saving the AVX-512 state).
[[nodiscard]] KernelPath mlas_kernel_path(const CpuFeatures& features);

[[nodiscard]] std::string_view kernel_path_name(KernelPath path);
[[nodiscard]] std::optional<KernelPath> parse_kernel_path(std::string_view name);

// The environment variable that overrides the path, for checking one path's rounding on a CPU that MLAS
// would run another way (e.g. MLRB_CPU_PATH=avx2 on an AVX-512 machine). The kernel then no longer rounds
// as this machine's ONNX Runtime does: results agree with it to float32 rounding only.
inline constexpr const char* kKernelPathVariable = "MLRB_CPU_PATH";

struct KernelPathChoice {
  KernelPath path = KernelPath::kBaseline;
  KernelPath mlas_path = KernelPath::kBaseline;  // what MLAS runs on this CPU
  bool forced = false;                           // set by MLRB_CPU_PATH
};

// The process's choice, made on first use and kept: MLRB_CPU_PATH when set, else MLAS's decision. Throws
// mlrb::Error BAD_ARGUMENT naming the accepted values when MLRB_CPU_PATH holds anything else.
[[nodiscard]] const KernelPathChoice& kernel_path_choice();

}  // namespace mlrb
