#include "rewritten_session.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <vector>

#include "../core/error.h"
#include "../graph/external_weights.h"
#include "../graph/graph_state.h"
#include "../graph/initializer_overrides.h"
#include "../graph/rewrite_passes.h"
#include "../graph/rewrite_pipeline.h"
#include "../onnx/confined_open.h"
#include "../onnx/file_handle.h"
#include "../onnx/graph_budget.h"
#include "../onnx/mapped_range.h"
#include "../onnx/model_reader.h"
#include "original_graph_check.h"

namespace mlrb {

namespace {

using graph::PassOutcome;
using graph::RewritePass;

// The passes that must not run before any is tried, each with the reason its outcome will give.
graph::HeldBack held_back_by_request(std::span<const RewritePass* const> passes, const RewriteRequest& request) {
  graph::HeldBack held;
  for (const RewritePass* pass : passes) {
    const auto switched = request.switches.find(std::string(pass->name));
    if (switched != request.switches.end() && !switched->second) {
      held.emplace(pass->name, "turned off by the caller");
    } else if (pass->emits_cpu_kernels && !request.cpu_provider) {
      held.emplace(pass->name, "its fused ops run on the CPU provider only");
    }
  }
  return held;
}

struct WeightsPlacement {
  std::string folder;                          // where ORT resolves external-data names
  std::optional<std::string> model_file_name;  // the model file's name there; none: weights stay inline
  std::string folder_in_root;                  // the model's folder within `folder` ("" when it is `folder`)
};

// ORT refuses an external-data name that resolves outside the folder it is given. A model inside a hub
// snapshot (its files links into the repository's blobs/) is given the repository folder, with every name,
// the model file's included, written from there. Otherwise the model file is named by its real path: one
// reached through a symlink that points elsewhere is found through its real folder. A model with
// external-data files of its own keeps the link's folder, against which their names resolve; if its file
// then lies elsewhere, its weights stay inline, copied into the assembled model.
WeightsPlacement place_weights(const std::string& model_path, bool has_own_external_data, const onnx::ReadScope& scope) {
  const std::filesystem::path given(model_path);
  if (!scope.folder_in_root.empty()) {
    return {scope.root, (std::filesystem::path(scope.folder_in_root) / given.filename()).string(), scope.folder_in_root};
  }
  std::error_code unresolved;
  const std::filesystem::path real = std::filesystem::canonical(given, unresolved);
  if (unresolved) return {given.parent_path().string(), std::nullopt, ""};
  if (!has_own_external_data) return {real.parent_path().string(), real.filename().string(), ""};
  std::error_code incomparable;
  const std::filesystem::path given_folder = given.has_parent_path() ? given.parent_path() : std::filesystem::path(".");
  const bool beside = std::filesystem::equivalent(real.parent_path(), given_folder, incomparable) && !incomparable;
  return {given.parent_path().string(), beside ? std::optional<std::string>(given.filename().string()) : std::nullopt, ""};
}

bool emits_cpu_kernels_applied(std::span<const RewritePass* const> passes, const std::vector<PassOutcome>& outcomes) {
  for (size_t i = 0; i < passes.size() && i < outcomes.size(); ++i) {
    if (passes[i]->emits_cpu_kernels && outcomes[i].applied) return true;
  }
  return false;
}

// The model assembled from a graph's pieces, with the caller's initializer overrides in place.
std::vector<uint8_t> assemble(const graph::ModelParts& parts, const graph::Pieces& graph, const std::vector<graph::ProtoBuilder>& extra_opsets,
                              const RewriteRequest& request, const std::string& model_path) {
  if (request.overrides.empty()) return graph::assemble_model(parts, graph, extra_opsets);
  try {
    return graph::assemble_model(parts, graph::with_overrides(graph, request.overrides), extra_opsets);  // views into `graph`, alive here
  } catch (const std::invalid_argument& error) {
    throw Error("BAD_MODEL", model_path + ": " + error.what());
  }
}

// The unmodified file; ORT's own error (an Ort::Exception) when it refuses it.
std::unique_ptr<Ort::Session> load_plain(OrtRuntime& runtime, const std::string& model_path, const Ort::SessionOptions& session_options) {
  return std::make_unique<Ort::Session>(runtime.env(), model_path.c_str(), session_options);
}

// Every load, rewritten or not, is held to the node and initializer caps before ORT sees the graph. Bytes
// that are no message are left to ORT's own verdict, as an unparsable file is below.
void refuse_over_budget(const onnx::MappedRange& mapped, const std::string& model_path) {
  try {
    onnx::check_graph_budget(mapped.bytes(), model_path);
  } catch (const graph::MalformedProto&) {
    return;
  }
  mapped.throw_if_damaged("its graph");
}

}  // namespace

OpenedSession open_rewritten_session(OrtRuntime& runtime, const std::string& model_path, Ort::SessionOptions& session_options,
                                     const RewriteRequest& request) {
  const std::span<const RewritePass* const> passes = graph::load_time_passes();
  graph::HeldBack held_back = held_back_by_request(passes, request);
  OpenedSession opened;
  // Opened first, without blocking: a FIFO or device named as the model is refused here, naming the file,
  // before ORT would wait on it.
  const onnx::FileHandle file(model_path, "ONNX model");
  const onnx::ReadScope scope = onnx::read_scope(std::filesystem::path(model_path).parent_path().string(), request.read_root);
  // A model read through a read root is always loaded from memory: ORT opening the file would judge its
  // external data against the model's own folder.
  const bool through_root = !scope.folder_in_root.empty();
  // Sparse: only the graph's structure is read; the weights stay in the file for ORT (graph/external_weights.h).
  const onnx::MappedRange mapped(file, 0, static_cast<size_t>(file.size()), onnx::MappedRange::Access::sparse);
  refuse_over_budget(mapped, model_path);
  // With overrides too: the file as it is is not the graph to run.
  const bool from_memory = through_root || !request.overrides.empty();
  if (!from_memory && !graph::any_pass_can_run(passes, held_back)) {
    opened.rewrites = graph::decline_all(passes, held_back, "no pass can run");
    opened.session = load_plain(runtime, model_path, session_options);
    return opened;
  }
  std::optional<graph::ParsedModel> parsed;
  try {
    parsed.emplace(graph::parse_model(mapped.bytes()));
    mapped.throw_if_damaged("its graph");  // declined like an unparsable file: ORT gives its own verdict
  } catch (const graph::MalformedProto& error) {
    opened.rewrites = graph::decline_all(passes, held_back, "the model could not be parsed (" + std::string(error.what()) + ")");
  } catch (const std::exception& error) {
    opened.rewrites = graph::decline_all(passes, held_back, error.what());
  }
  if (!parsed) {
    if (!request.overrides.empty()) throw Error("BAD_MODEL", model_path + ": its graph cannot be read to replace initializers in it");
    opened.session = load_plain(runtime, model_path, session_options);  // ORT's own verdict on the file
    return opened;
  }
  // A model loaded from memory finds its external-data files through this folder: the model file itself for
  // the weights the assembled graphs reference there, and any external-data files the model had.
  const bool has_external_data = graph::has_external_data(parsed->graph);
  // ORT, given the repository folder, would accept data anywhere in it: each location is first held to the
  // model's folder by name and to the repository by its links, and refused as BAD_MODEL naming the tensor.
  if (through_root && has_external_data) (void)onnx::read_model_info(model_path, request.read_root);
  const WeightsPlacement placement = place_weights(model_path, has_external_data, scope);
  session_options.AddConfigEntry("session.model_external_initializers_file_folder_path", placement.folder.c_str());
  const graph::ModelFile model_file{mapped.bytes(), placement.model_file_name, placement.folder_in_root};
  // ORT judges the graph as submitted before any rewrite can hide a node it would refuse: the file's own
  // graph, its weights referenced in place rather than parsed into a copy (a weight whose bytes do not fit
  // its dims is refused all the same, as an external-data size mismatch).
  const std::vector<uint8_t> original = assemble(parsed->parts, graph::with_external_weights(parsed->graph, model_file), {}, request, model_path);
  // Assembling copies from the mapping: zeros standing in for a shrunk file must never reach ORT.
  mapped.throw_if_damaged("its graph");
  check_original_with_ort(runtime, original, session_options);
  // Once per options object: ORT refuses a second registration of the same domain, and that refusal would
  // then stand in for the real reason of every later attempt, the plain load included.
  const bool custom_ops_wanted =
      std::any_of(passes.begin(), passes.end(), [&](const RewritePass* pass) { return pass->emits_cpu_kernels && !held_back.contains(pass->name); });
  if (custom_ops_wanted) runtime.attention_ops().add_to(session_options);
  while (true) {
    graph::GraphState state(*parsed);
    opened.rewrites = graph::run_passes(passes, state, held_back);
    if (!state.rewritten()) break;
    const std::vector<uint8_t> model =
        assemble(parsed->parts, graph::with_external_weights(state.view(), model_file), state.extra_opsets(), request, model_path);
    mapped.throw_if_damaged("its graph");
    try {
      opened.session = std::make_unique<Ort::Session>(runtime.env(), model.data(), model.size(), session_options);
      opened.sliced_logits = state.sliced_logits;
      opened.decode_cache = state.decode_cache;
      opened.attention_fused = emits_cpu_kernels_applied(passes, opened.rewrites);
      return opened;
    } catch (const Ort::Exception& error) {
      const RewritePass* blamed = graph::most_blamed(passes, opened.rewrites);
      held_back.emplace(blamed->name, std::string("ONNX Runtime refused the rewritten graph (") + error.what() + ")");
    }
  }
  if (from_memory) {
    opened.session = std::make_unique<Ort::Session>(runtime.env(), original.data(), original.size(), session_options);
  } else {
    opened.session = load_plain(runtime, model_path, session_options);
  }
  return opened;
}

}  // namespace mlrb
