// Handing a signal on to the handler that was installed before ours. Two handlers chain this way (the
// SIGBUS truncation guard and the fatal-signal report); one copy keeps them agreeing on which of a
// sigaction's two handler fields is live and on when there is no function to call at all.
// Async-signal-safe: both only read the struct and call through it.
#pragma once

#include <signal.h>

namespace mlrb {

// Whether `action` names a function to call, as opposed to the default action, ignoring, or nothing.
// With SA_SIGINFO the three-argument sa_sigaction is the live field, otherwise sa_handler.
inline bool calls_function(const struct sigaction& action) {
  if ((action.sa_flags & SA_SIGINFO) != 0) return action.sa_sigaction != nullptr;
  return action.sa_handler != SIG_DFL && action.sa_handler != SIG_IGN;
}

// Calls the function `action` names, through the field SA_SIGINFO selects; only when calls_function(action).
inline void call_handler(const struct sigaction& action, int signal, siginfo_t* info, void* context) {
  if ((action.sa_flags & SA_SIGINFO) != 0) {
    action.sa_sigaction(signal, info, context);
  } else {
    action.sa_handler(signal);
  }
}

}  // namespace mlrb
