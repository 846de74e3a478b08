#include "cpu_features.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <utility>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#define MLRB_HAS_CPUID 1
#endif

namespace mlrb {

namespace {

#ifdef MLRB_HAS_CPUID

struct Registers {
  uint32_t eax = 0, ebx = 0, ecx = 0, edx = 0;
};

Registers cpuid(uint32_t leaf, uint32_t subleaf = 0) {
  Registers r;
  if (__get_cpuid_count(leaf, subleaf, &r.eax, &r.ebx, &r.ecx, &r.edx) == 0) return Registers{};  // leaf not supported
  return r;
}

// XCR0: which register states the OS saves. Only readable where CPUID says OSXSAVE.
uint64_t read_xcr0() {
  uint32_t low = 0, high = 0;
  __asm__("xgetbv" : "=a"(low), "=d"(high) : "c"(0));
  return (static_cast<uint64_t>(high) << 32) | low;
}

std::string brand_string() {
  if (cpuid(0x80000000).eax < 0x80000004) return "";
  char text[49] = {};
  for (uint32_t leaf = 0; leaf < 3; ++leaf) {
    const Registers r = cpuid(0x80000002 + leaf);
    std::memcpy(text + leaf * 16, &r, 16);
  }
  std::string brand(text);
  const size_t first = brand.find_first_not_of(' ');
  const size_t last = brand.find_last_not_of(' ');
  return first == std::string::npos ? "" : brand.substr(first, last - first + 1);
}

bool bit(uint32_t value, int index) {
  return ((value >> index) & 1U) != 0;
}

#endif

}  // namespace

std::vector<std::string> CpuFeatures::names() const {
  std::vector<std::string> result;
  const std::pair<bool, const char*> flags[] = {{avx, "avx"},           {fma, "fma"},           {avx2, "avx2"},        {avx512f, "avx512f"},
                                                {avx512dq, "avx512dq"}, {avx512bw, "avx512bw"}, {avx512vl, "avx512vl"}};
  for (const auto& [present, name] : flags) {
    if (present) result.emplace_back(name);
  }
  return result;
}

CpuFeatures read_cpu_features() {
  CpuFeatures features;
#ifdef MLRB_HAS_CPUID
  features.model = brand_string();
  const Registers leaf1 = cpuid(1);
  const Registers leaf7 = cpuid(0).eax >= 7 ? cpuid(7, 0) : Registers{};
  features.avx = bit(leaf1.ecx, 28);
  features.fma = bit(leaf1.ecx, 12);
  features.avx2 = bit(leaf7.ebx, 5);
  features.avx512f = bit(leaf7.ebx, 16);
  features.avx512dq = bit(leaf7.ebx, 17);
  features.avx512bw = bit(leaf7.ebx, 30);
  features.avx512vl = bit(leaf7.ebx, 31);
  if (bit(leaf1.ecx, 27)) {  // OSXSAVE: XGETBV is usable
    const uint64_t xcr0 = read_xcr0();
    features.os_saves_avx = (xcr0 & 0x6) == 0x6;
    features.os_saves_avx512 = (xcr0 & 0xE0) == 0xE0;
  }
#endif
  return features;
}

KernelPath mlas_kernel_path(const CpuFeatures& features) {
  // MLAS checks AVX with OSXSAVE and XCR0's SSE/AVX bits first; os_saves_avx implies OSXSAVE here.
  if (!features.avx || !features.os_saves_avx) return KernelPath::kBaseline;
  if (!features.fma || !features.avx2) return KernelPath::kBaseline;
  if (features.avx512f && features.os_saves_avx512) return KernelPath::kAvx512;
  return KernelPath::kAvx2;
}

std::string_view kernel_path_name(KernelPath path) {
  switch (path) {
    case KernelPath::kAvx512: return "avx512";
    case KernelPath::kAvx2: return "avx2";
    case KernelPath::kBaseline: return "baseline";
  }
  return "baseline";
}

std::optional<KernelPath> parse_kernel_path(std::string_view name) {
  for (const KernelPath path : {KernelPath::kAvx512, KernelPath::kAvx2, KernelPath::kBaseline}) {
    if (name == kernel_path_name(path)) return path;
  }
  return std::nullopt;
}

namespace {

KernelPathChoice choose_kernel_path() {
  KernelPathChoice choice;
  choice.mlas_path = mlas_kernel_path(read_cpu_features());
  choice.path = choice.mlas_path;
  const char* requested = std::getenv(kKernelPathVariable);
  if (requested != nullptr && *requested != '\0') {
    const std::optional<KernelPath> path = parse_kernel_path(requested);
    if (!path) {
      throw std::invalid_argument(std::string(kKernelPathVariable) + "=" + requested +
                                  " is not a kernel path: use avx512, avx2 or baseline (or unset it)");
    }
    choice.path = *path;
    choice.forced = true;
  }
  return choice;
}

}  // namespace

const KernelPathChoice& kernel_path_choice() {
  // A function-local static: initialised once, thread-safe; a throw leaves it uninitialised, so a bad
  // MLRB_CPU_PATH fails every call the same way.
  static const KernelPathChoice choice = choose_kernel_path();
  return choice;
}

}  // namespace mlrb
