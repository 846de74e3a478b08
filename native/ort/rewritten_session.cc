#include "rewritten_session.h"

#include <filesystem>
#include <optional>
#include <vector>

#include "../graph/cpu_fusion.h"
#include "../graph/last_block_rows.h"
#include "../graph/lm_head_slice.h"
#include "../onnx/file_handle.h"
#include "../onnx/mapped_range.h"
#include "original_graph_check.h"

namespace mlrb {

namespace {

struct Attempt {
  std::vector<uint8_t> model;  // empty: nothing applied, load the file as it is
  bool cpu_fused = false;        // the CPU fusion pass rewrote the graph
  bool attention_fused = false;  // ... and its graph has ai.mlrb attention nodes
  bool pruned = false;           // the last block computes only the scored rows
  std::string sliced_logits;
};

// Applies the wanted rewrites in turn to the mapped model; each sets its note.
Attempt rewrite(graph::Bytes original, LoadRewrites wanted, OpenedSession& notes) {
  Attempt attempt;
  graph::Bytes current = original;
  if (wanted.cpu_fusion) {
    graph::CpuFusion fusion = graph::fuse_for_cpu(current);
    notes.fusion_note = std::move(fusion.note);
    if (fusion.applied) {
      attempt.model = std::move(fusion.model);
      attempt.cpu_fused = true;
      attempt.attention_fused = fusion.attention_blocks > 0;
      current = attempt.model;
    }
  }
  if (wanted.slice_lm_head) {
    graph::LmHeadSlice slice = graph::slice_lm_head(current);
    notes.lm_head_note = std::move(slice.note);
    if (slice.applied) {
      attempt.model = std::move(slice.model);  // also frees the fused intermediate
      attempt.sliced_logits = std::move(slice.logits_output);
      current = attempt.model;
    }
  }
  if (wanted.prune_last_block && attempt.attention_fused && !attempt.sliced_logits.empty()) {
    graph::LastBlockRows pruning = graph::prune_last_block_rows(current);
    notes.pruning_note = std::move(pruning.note);
    if (pruning.applied) {
      attempt.model = std::move(pruning.model);
      attempt.pruned = true;
    }
  }
  return attempt;
}

// The unmodified file; ORT's own error (an Ort::Exception) when it refuses it.
void load_plain(OrtRuntime& runtime, const std::string& model_path, const Ort::SessionOptions& session_options, OpenedSession& opened) {
  opened.session = std::make_unique<Ort::Session>(runtime.env(), model_path.c_str(), session_options);
}

}  // namespace

OpenedSession open_rewritten_session(OrtRuntime& runtime, const std::string& model_path, Ort::SessionOptions& session_options,
                                     LoadRewrites rewrites) {
  OpenedSession opened;
  opened.fusion_note = rewrites.cpu_fusion ? "" : "CPU graph fusion off: turned off by the caller (--no-cpu-fusion)";
  opened.lm_head_note = rewrites.slice_lm_head ? "" : "LM-head slicing off: disabled by the caller";
  // Opened first, without blocking: a FIFO or device named as the model is refused here, naming the file,
  // before ORT would wait on it.
  const onnx::FileHandle file(model_path, "ONNX model");
  if (!rewrites.cpu_fusion && !rewrites.slice_lm_head) {
    load_plain(runtime, model_path, session_options, opened);
    return opened;
  }
  // ORT judges the graph as submitted before any rewrite can hide a node it would refuse.
  check_original_with_ort(runtime, model_path, session_options);
  std::optional<onnx::MappedRange> mapped;
  try {
    mapped.emplace(file, 0, static_cast<size_t>(file.size()));
  } catch (const std::exception& error) {
    if (rewrites.cpu_fusion) opened.fusion_note = std::string("CPU graph fusion off: ") + error.what();
    if (rewrites.slice_lm_head) opened.lm_head_note = std::string("LM-head slicing off: ") + error.what();
    load_plain(runtime, model_path, session_options, opened);
    return opened;
  }
  // A model loaded from memory finds its external-data files through this folder.
  const std::string folder = std::filesystem::path(model_path).parent_path().string();
  session_options.AddConfigEntry("session.model_external_initializers_file_folder_path", folder.c_str());
  // Once per options object: ORT refuses a second registration of the same domain, and that refusal would
  // then stand in for the real reason of every later attempt, the plain load included.
  if (rewrites.cpu_fusion) runtime.attention_ops().add_to(session_options);
  while (rewrites.cpu_fusion || rewrites.slice_lm_head) {
    Attempt attempt = rewrite(mapped->bytes(), rewrites, opened);
    if (attempt.model.empty()) break;
    try {
      opened.session = std::make_unique<Ort::Session>(runtime.env(), attempt.model.data(), attempt.model.size(), session_options);
      opened.sliced_logits = std::move(attempt.sliced_logits);
      opened.attention_fused = attempt.attention_fused;
      return opened;
    } catch (const Ort::Exception& error) {
      // Undo the rewrite most likely at fault first: the last one, then the fused ops (float32 only).
      const std::string refused = std::string("ONNX Runtime refused the rewritten graph (") + error.what() + ")";
      if (attempt.pruned) {
        rewrites.prune_last_block = false;
        opened.pruning_note = "last-block row pruning off: " + refused;
      } else if (attempt.cpu_fused) {
        rewrites.cpu_fusion = false;
        opened.fusion_note = "CPU graph fusion off: " + refused;
      } else {
        rewrites.slice_lm_head = false;
        opened.lm_head_note = "LM-head slicing off: " + refused;
      }
    }
  }
  load_plain(runtime, model_path, session_options, opened);
  return opened;
}

}  // namespace mlrb
