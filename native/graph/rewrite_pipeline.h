// Runs an ordered list of rewrite passes (rewrite_pass.h) over one parsed model and reports every pass's
// outcome, in list order. A pass runs when nothing holds it back (the caller turned it off, the provider
// cannot run its ops, ORT refused a graph it made) and every prerequisite applied; otherwise its outcome
// says which of those stopped it.
#pragma once

#include <map>
#include <span>
#include <string>
#include <vector>

#include "rewrite_pass.h"

namespace mlrb::graph {

// Passes that must not run, by name, with the reason reported for each.
using HeldBack = std::map<std::string, std::string, std::less<>>;

// One outcome per pass of `passes`, in order; `state` holds the rewritten graph when any applied.
[[nodiscard]] std::vector<PassOutcome> run_passes(std::span<const RewritePass* const> passes, GraphState& state, const HeldBack& held_back);

// The outcomes when no pass runs at all: a held-back pass gives its reason, a pass whose prerequisite is held
// back says so, and every other pass gives `why` (the file could not be mapped or parsed).
[[nodiscard]] std::vector<PassOutcome> decline_all(std::span<const RewritePass* const> passes, const HeldBack& held_back, const std::string& why);

// Whether some pass could run: not held back, and no prerequisite held back. When none can, the file
// need not even be parsed.
[[nodiscard]] bool any_pass_can_run(std::span<const RewritePass* const> passes, const HeldBack& held_back);

// The applied pass to drop when ORT refuses the graph these outcomes describe: the one with the highest
// blame (rewrite_pass.h). nullptr when none applied.
[[nodiscard]] const RewritePass* most_blamed(std::span<const RewritePass* const> passes, const std::vector<PassOutcome>& outcomes);

}  // namespace mlrb::graph
