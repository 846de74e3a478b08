// N-API surface for process control Node does not offer: making the calling process a child subreaper
// (Linux prctl PR_SET_CHILD_SUBREAPER), so that descendants orphaned by a child's exit — a compiler's helper
// that called setsid(), or one left running after a successful run — are reparented to it rather than to
// init, where they could be found and killed. The Lean box's helper process (src/math-reasoning) uses it.
#pragma once

#include <napi.h>

namespace mlrb::addon {

// Adds becomeChildSubreaper() to the addon's exports: true once set, false where the OS has no such call.
void register_process(Napi::Env env, Napi::Object exports);

}  // namespace mlrb::addon
