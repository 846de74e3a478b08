// One line on stderr when native code is about to kill the process. A crash in the addon, in ONNX Runtime or
// in a library they load (a CUDA provider, cuBLAS) ends node by a signal, and neither node nor the CLI's error
// boundary gets to say anything: the command just stops, with no message and often no output at all (what a
// GPU run of a 1B model showed, with no way to tell where it died). The report names the signal, the faulting
// address and what the addon was last asked to do (load, score, …), then lets the signal end the process
// exactly as it would have: same signal, so the exit status and any core dump are unchanged.
//
// Only deaths are reported. Each handler first hands the signal to whoever handled it before (node's
// WebAssembly trap handler, which turns a bounds fault in WebAssembly code, such as the score cache's SQLite,
// into a JS exception); if that returns with the signal dealt with, the process goes on and nothing is
// written. truncation_guard.h's SIGBUS handler sits in front of this one and passes on only faults outside
// its guarded mappings.
#pragma once

namespace mlrb::addon {

// Installs the handlers for SIGSEGV, SIGBUS, SIGILL, SIGFPE and SIGABRT, once per process; later calls do
// nothing. A signal whose handler cannot be installed is left as it was (the report is a courtesy, never a
// reason to fail loading).
void install_fatal_signal_report();

// What the addon is doing, for the report: set for the life of the object (a string literal, which a signal
// handler may read), restored to the previous activity after. Process-wide, not per thread: with several
// calls in flight the report names the one begun last, which is enough to tell loading from scoring.
class NativeActivity {
 public:
  explicit NativeActivity(const char* what);
  ~NativeActivity();
  NativeActivity(const NativeActivity&) = delete;
  NativeActivity& operator=(const NativeActivity&) = delete;

 private:
  const char* previous_;
};

}  // namespace mlrb::addon
