#include "fatal_signal_report.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <mutex>

#include "../core/signal_chain.h"

namespace mlrb::addon {

namespace {

struct WatchedSignal {
  int number;
  const char* name;
  const char* meaning;
  struct sigaction previous;  // stays zeroed (no handler to call) where installing ours failed
};

// Faults (SIGSEGV, SIGBUS, SIGILL, SIGFPE) and aborts (a failed CHECK, std::terminate on an exception that
// escaped a native thread).
WatchedSignal g_watched[] = {
    {SIGSEGV, "SIGSEGV", "invalid memory access", {}},
    {SIGBUS, "SIGBUS", "bus error: a mapped file shrank under the reader, or an unaligned access", {}},
    {SIGILL, "SIGILL", "illegal instruction: code built for a CPU this one is not", {}},
    {SIGFPE, "SIGFPE", "arithmetic fault", {}},
    {SIGABRT, "SIGABRT", "abort: a failed check or an uncaught C++ exception in native code", {}},
};

std::atomic<const char*> g_activity{nullptr};
static_assert(std::atomic<const char*>::is_always_lock_free, "the signal handler reads the activity without locks");

// A fixed buffer and write(2): a signal handler may not allocate or take locks (no iostreams, no snprintf).
class SignalSafeLine {
 public:
  SignalSafeLine& text(const char* part) {
    while (part != nullptr && *part != '\0' && used_ < sizeof(buffer_)) buffer_[used_++] = *part++;
    return *this;
  }
  SignalSafeLine& decimal(uint64_t value) {
    char digits[21] = {};
    size_t start = sizeof(digits) - 1;
    do {
      digits[--start] = static_cast<char>('0' + value % 10);
      value /= 10;
    } while (value != 0 && start > 0);
    return text(digits + start);
  }
  SignalSafeLine& hex(uintptr_t value) {
    char digits[2 * sizeof(uintptr_t) + 1] = {};
    for (size_t i = 0; i < 2 * sizeof(uintptr_t); ++i) digits[2 * sizeof(uintptr_t) - 1 - i] = "0123456789abcdef"[(value >> (4 * i)) & 0xF];
    return text("0x").text(digits);
  }
  void write_to_stderr() const {
    size_t written = 0;
    while (written < used_) {
      const ssize_t step = ::write(STDERR_FILENO, buffer_ + written, used_ - written);
      if (step <= 0) return;
      written += static_cast<size_t>(step);
    }
  }

 private:
  char buffer_[768] = {};
  size_t used_ = 0;
};

WatchedSignal* watched_for(int number) {
  for (WatchedSignal& watched : g_watched) {
    if (watched.number == number) return &watched;
  }
  return nullptr;
}

void on_fatal_signal(int number, siginfo_t* info, void* context);

// After the previous handler returned: whether it dealt with the signal. One that cannot (node's, for a fault
// outside WebAssembly) restores the default action and raises the signal again, which stays pending while
// this handler runs; one that dealt with it leaves this handler in place and nothing pending.
bool dealt_with(int number) {
  struct sigaction now {};
  if (::sigaction(number, nullptr, &now) != 0) return false;
  const bool still_ours = (now.sa_flags & SA_SIGINFO) != 0 && now.sa_sigaction == on_fatal_signal;
  sigset_t pending;
  sigemptyset(&pending);
  const bool raised_again = ::sigpending(&pending) == 0 && sigismember(&pending, number) == 1;
  return still_ours && !raised_again;
}

void report(const WatchedSignal& watched, const siginfo_t* info) {
  const bool sent_from_outside = info != nullptr && info->si_code == SI_USER && info->si_pid != ::getpid();
  SignalSafeLine line;
  line.text("mlrb-eval: fatal: ").text(watched.name).text(" (").text(watched.meaning).text(")");
  if (info != nullptr && info->si_code > 0 && watched.number != SIGABRT) {
    line.text(" at address ").hex(reinterpret_cast<uintptr_t>(info->si_addr));  // a fault the kernel raised
  } else if (sent_from_outside) {
    line.text(", sent by process ").decimal(static_cast<uint64_t>(info->si_pid));
  }
  if (const char* activity = g_activity.load(std::memory_order_acquire); activity != nullptr) line.text(" while ").text(activity);
  if (sent_from_outside) {
    line.text("; the process ends now.\n");
  } else {
    line.text(
        ": native code (the addon, ONNX Runtime or a library they load) failed, and the process ends now. "
        "Please report it with the command, the model and the ONNX Runtime library in use.\n");
  }
  line.write_to_stderr();
}

// Async-signal-safe: sigaction, sigpending, write and raise only; errno is preserved for the interrupted code.
void on_fatal_signal(int number, siginfo_t* info, void* context) {
  const int saved_errno = errno;
  const WatchedSignal* watched = watched_for(number);
  if (watched == nullptr) return;
  if (calls_function(watched->previous)) {
    call_handler(watched->previous, number, info, context);
    if (dealt_with(number)) {
      errno = saved_errno;
      return;
    }
  }
  report(*watched, info);
  // Ends the process by the same signal under its default action. Raised now, it stays blocked until this
  // handler returns: a fault then dies before its instruction runs again, and an abort() or a kill dies too.
  struct sigaction fallback {};
  fallback.sa_handler = SIG_DFL;
  sigemptyset(&fallback.sa_mask);
  ::sigaction(number, &fallback, nullptr);
  ::raise(number);
  errno = saved_errno;
}

}  // namespace

void install_fatal_signal_report() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (WatchedSignal& watched : g_watched) {
      struct sigaction action {};
      action.sa_sigaction = on_fatal_signal;
      // SA_ONSTACK: a thread that has an alternate signal stack runs the report there (after a stack overflow
      // its own stack has no room left).
      action.sa_flags = SA_SIGINFO | SA_ONSTACK;
      sigemptyset(&action.sa_mask);
      if (::sigaction(watched.number, &action, &watched.previous) != 0) watched.previous = {};
    }
  });
}

NativeActivity::NativeActivity(const char* what) : previous_(g_activity.exchange(what, std::memory_order_acq_rel)) {}

NativeActivity::~NativeActivity() {
  g_activity.store(previous_, std::memory_order_release);
}

}  // namespace mlrb::addon
