#include "original_graph_check.h"

namespace mlrb {

void check_original_with_ort(OrtRuntime& runtime, std::span<const uint8_t> model, const Ort::SessionOptions& session_options) {
  Ort::SessionOptions checking = session_options.Clone();
  checking.SetGraphOptimizationLevel(GraphOptimizationLevel::ORT_DISABLE_ALL);
  checking.AddConfigEntry("session.disable_prepacking", "1");
  const Ort::Session session(runtime.env(), model.data(), model.size(), checking);
}

}  // namespace mlrb
