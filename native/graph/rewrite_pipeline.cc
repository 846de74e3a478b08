#include "rewrite_pipeline.h"

#include <algorithm>

namespace mlrb::graph {

namespace {

const PassOutcome* outcome_named(const std::vector<PassOutcome>& outcomes, std::string_view name) {
  const auto found = std::find_if(outcomes.begin(), outcomes.end(), [&](const PassOutcome& outcome) { return outcome.name == name; });
  return found == outcomes.end() ? nullptr : &*found;
}

PassOutcome run_one(const RewritePass& pass, GraphState& state) {
  try {
    return pass.run(state);
  } catch (const MalformedProto& error) {
    return declined(pass.name, "the model could not be parsed (" + std::string(error.what()) + ")");
  }
}

std::string needs(std::string_view prerequisite) {
  return "needs " + std::string(prerequisite) + ", which did not apply";
}

const std::string_view* held_prerequisite(const RewritePass& pass, const HeldBack& held_back) {
  const auto held =
      std::find_if(pass.prerequisites.begin(), pass.prerequisites.end(), [&](std::string_view needed) { return held_back.contains(needed); });
  return held == pass.prerequisites.end() ? nullptr : &*held;
}

}  // namespace

std::vector<PassOutcome> run_passes(std::span<const RewritePass* const> passes, GraphState& state, const HeldBack& held_back) {
  std::vector<PassOutcome> outcomes;
  outcomes.reserve(passes.size());
  for (const RewritePass* pass : passes) {
    if (const auto held = held_back.find(pass->name); held != held_back.end()) {
      outcomes.push_back(declined(pass->name, held->second));
      continue;
    }
    const auto missing = std::find_if(pass->prerequisites.begin(), pass->prerequisites.end(), [&](std::string_view needed) {
      const PassOutcome* earlier = outcome_named(outcomes, needed);
      return earlier == nullptr || !earlier->applied;
    });
    if (missing != pass->prerequisites.end()) {
      outcomes.push_back(declined(pass->name, needs(*missing)));
      continue;
    }
    outcomes.push_back(run_one(*pass, state));
  }
  return outcomes;
}

std::vector<PassOutcome> decline_all(std::span<const RewritePass* const> passes, const HeldBack& held_back, const std::string& why) {
  std::vector<PassOutcome> outcomes;
  outcomes.reserve(passes.size());
  for (const RewritePass* pass : passes) {
    if (const auto held = held_back.find(pass->name); held != held_back.end()) {
      outcomes.push_back(declined(pass->name, held->second));
    } else if (const std::string_view* prerequisite = held_prerequisite(*pass, held_back)) {
      outcomes.push_back(declined(pass->name, needs(*prerequisite)));
    } else {
      outcomes.push_back(declined(pass->name, why));
    }
  }
  return outcomes;
}

bool any_pass_can_run(std::span<const RewritePass* const> passes, const HeldBack& held_back) {
  return std::any_of(passes.begin(), passes.end(),
                     [&](const RewritePass* pass) { return !held_back.contains(pass->name) && held_prerequisite(*pass, held_back) == nullptr; });
}

const RewritePass* most_blamed(std::span<const RewritePass* const> passes, const std::vector<PassOutcome>& outcomes) {
  const RewritePass* blamed = nullptr;
  for (const RewritePass* pass : passes) {
    const PassOutcome* outcome = outcome_named(outcomes, pass->name);
    if (outcome != nullptr && outcome->applied && (blamed == nullptr || pass->blame > blamed->blame)) blamed = pass;
  }
  return blamed;
}

}  // namespace mlrb::graph
