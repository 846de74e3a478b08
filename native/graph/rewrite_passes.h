// The load-time rewrites, in the order they run. A new pass is its own file defining a RewritePass
// (rewrite_pass.h) plus one line in this list (rewrite_passes.cc).
#pragma once

#include <span>

#include "rewrite_pass.h"

namespace mlrb::graph {

[[nodiscard]] std::span<const RewritePass* const> load_time_passes();

}  // namespace mlrb::graph
