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
#include "../core/signal_chain.h"

namespace mlrb::onnx {

namespace {

// Live guarded ranges. A signal handler may not lock or allocate, so the table is a fixed array of
// lock-free atomics. A slot is claimed through `owned`; its `generation` turns odd only once the range is
// written and even again before the mapping goes away, and a handler trusts begin and length only when the
// generation was odd and unchanged around reading them (a seqlock), so it never pairs one range's start
// with another's length or matches a range being torn down. 256 covers one mapping per zero-scan worker
// on large hosts plus the model walks; running out is an INTERNAL error, never an unguarded mapping.
struct Slot {
  std::atomic<bool> owned{false};
  std::atomic<uint64_t> generation{0};
  std::atomic<uintptr_t> begin{0};
  std::atomic<size_t> length{0};
  std::atomic<bool> damaged{false};
};
constexpr size_t kSlots = 256;
Slot g_slots[kSlots];
static_assert(std::atomic<uint64_t>::is_always_lock_free && std::atomic<uintptr_t>::is_always_lock_free && std::atomic<size_t>::is_always_lock_free &&
                  std::atomic<bool>::is_always_lock_free,
              "the SIGBUS handler reads the table without locks");

struct sigaction g_previous {};
uintptr_t g_page_size = 0;  // set before the handler is installed

// Hands a fault that is not ours to whoever handled SIGBUS before us; with nobody, restores the default
// action so the faulting instruction, re-executed on return, ends the process as it would have.
void chain(int signal, siginfo_t* info, void* context) {
  if (calls_function(g_previous)) {
    call_handler(g_previous, signal, info, context);
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
    const uint64_t generation = slot.generation.load(std::memory_order_acquire);
    if (generation % 2 == 0) continue;
    const uintptr_t begin = slot.begin.load(std::memory_order_acquire);
    const size_t length = slot.length.load(std::memory_order_acquire);
    if (slot.generation.load(std::memory_order_acquire) != generation) continue;
    if (address < begin || address - begin >= length) continue;
    // Everything from the faulting page to the range's end goes in one call: past a shrunk file's end
    // those pages fail alike, and one replacement is one memory area where one per page could run into
    // the kernel's limit on areas (vm.max_map_count) over a large sparse walk.
    const uintptr_t first = address - address % g_page_size;
    const uintptr_t end = begin + length + (g_page_size - (begin + length) % g_page_size) % g_page_size;
    if (::mmap(reinterpret_cast<void*>(first), end - first, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED) break;
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
  for (size_t index = 0; index < kSlots; ++index) {
    Slot& slot = g_slots[index];
    bool free = false;
    if (!slot.owned.compare_exchange_strong(free, true, std::memory_order_acq_rel)) continue;
    // Release stores: a handler that reads them also sees the previous owner's even generation.
    slot.begin.store(reinterpret_cast<uintptr_t>(begin), std::memory_order_release);
    slot.length.store(length, std::memory_order_release);
    slot.damaged.store(false, std::memory_order_release);
    slot.generation.fetch_add(1, std::memory_order_release);  // odd: live, and the writes above visible
    slot_ = index;
    return;
  }
  throw Error("INTERNAL", "more than " + std::to_string(kSlots) + " file mappings are open at once");
}

TruncationGuard::~TruncationGuard() {
  Slot& slot = g_slots[slot_];
  slot.generation.fetch_add(1, std::memory_order_acq_rel);  // even: the handler stops matching this range
  slot.owned.store(false, std::memory_order_release);
}

bool TruncationGuard::damaged() const {
  return g_slots[slot_].damaged.load(std::memory_order_acquire);
}

}  // namespace mlrb::onnx
