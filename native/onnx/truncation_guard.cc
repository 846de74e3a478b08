#include "truncation_guard.h"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>

#include "../core/error.h"

namespace mlrb::onnx {

namespace {

// Live guarded ranges. A signal handler may not lock or allocate, so the table is a fixed array of
// lock-free atomics: a slot is claimed by CAS on `begin`, published once its length is set, and cleared
// before its mapping goes away. 256 covers one mapping per zero-scan worker on large hosts plus the
// model walks; running out is an INTERNAL error, never an unguarded mapping.
struct Slot {
  std::atomic<uintptr_t> begin{0};
  std::atomic<size_t> length{0};  // 0 while claimed but not yet published
  std::atomic<bool> damaged{false};
};
constexpr size_t kSlots = 256;
Slot g_slots[kSlots];
static_assert(std::atomic<uintptr_t>::is_always_lock_free && std::atomic<size_t>::is_always_lock_free &&
              std::atomic<bool>::is_always_lock_free, "the SIGBUS handler reads the table without locks");

struct sigaction g_previous {};
uintptr_t g_page_size = 0;  // set before the handler is installed

// Hands a fault that is not ours to whoever handled SIGBUS before us; with nobody, restores the default
// action so the faulting instruction, re-executed on return, ends the process as it would have.
void chain(int signal, siginfo_t* info, void* context) {
  if ((g_previous.sa_flags & SA_SIGINFO) != 0 && g_previous.sa_sigaction != nullptr) {
    g_previous.sa_sigaction(signal, info, context);
  } else if (g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != SIG_IGN) {
    g_previous.sa_handler(signal);
  } else {
    struct sigaction fallback {};
    fallback.sa_handler = SIG_DFL;
    sigemptyset(&fallback.sa_mask);
    ::sigaction(SIGBUS, &fallback, nullptr);
  }
}

// Async-signal-safe: atomics, mmap and sigaction only; errno is preserved for the interrupted code.
void on_sigbus(int signal, siginfo_t* info, void* context) {
  const int saved_errno = errno;
  const auto address = reinterpret_cast<uintptr_t>(info->si_addr);
  for (Slot& slot : g_slots) {
    const uintptr_t begin = slot.begin.load(std::memory_order_acquire);
    const size_t length = slot.length.load(std::memory_order_acquire);
    if (begin == 0 || length == 0 || address < begin || address - begin >= length) continue;
    void* page_start = reinterpret_cast<void*>(address - address % g_page_size);
    if (::mmap(page_start, g_page_size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED) break;
    slot.damaged.store(true, std::memory_order_release);
    errno = saved_errno;
    return;  // the load is retried and reads zeros
  }
  errno = saved_errno;
  chain(signal, info, context);
}

void install_handler() {
  static std::once_flag once;
  static int failure = 0;
  std::call_once(once, [] {
    g_page_size = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
    struct sigaction action {};
    action.sa_sigaction = on_sigbus;
    // SA_ONSTACK: a thread that runs on an alternate signal stack keeps it; SA_RESTART: interrupted
    // syscalls elsewhere resume rather than fail with EINTR.
    action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
    sigemptyset(&action.sa_mask);
    if (::sigaction(SIGBUS, &action, &g_previous) != 0) failure = errno;
  });
  if (failure != 0) throw Error("INTERNAL", std::string("cannot install the SIGBUS handler that guards file mappings: ") + std::strerror(failure));
}

}  // namespace

TruncationGuard::TruncationGuard(const void* begin, size_t length) : slot_(kSlots) {
  install_handler();
  const auto start = reinterpret_cast<uintptr_t>(begin);
  for (size_t index = 0; index < kSlots; ++index) {
    uintptr_t empty = 0;
    if (!g_slots[index].begin.compare_exchange_strong(empty, start, std::memory_order_acq_rel)) continue;
    g_slots[index].damaged.store(false, std::memory_order_relaxed);
    g_slots[index].length.store(length, std::memory_order_release);
    slot_ = index;
    return;
  }
  throw Error("INTERNAL", "more than " + std::to_string(kSlots) + " file mappings are open at once");
}

TruncationGuard::~TruncationGuard() {
  Slot& slot = g_slots[slot_];
  slot.length.store(0, std::memory_order_release);
  slot.begin.store(0, std::memory_order_release);
}

bool TruncationGuard::damaged() const { return g_slots[slot_].damaged.load(std::memory_order_acquire); }

}  // namespace mlrb::onnx
