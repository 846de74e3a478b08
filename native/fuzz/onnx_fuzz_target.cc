// One fuzz target over everything native that reads an agent's ONNX bytes: the load-time graph rewrites
// (graph/rewrite_passes.h: each pass alone on the input, and the pipeline as the load runs it) and the
// streaming reader of the edge checks. Their contracts are the findings' definition: a rewrite never
// throws (it declines with a reason), the reader throws only mlrb::Error naming what is wrong. Anything else,
// and any crash, sanitizer report or hang, stops the run with the input saved.
// Built by native/fuzz/build.sh, with libFuzzer under clang or with standalone_driver.cc under g++.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <optional>
#include <string>

#include "../core/error.h"
#include "../graph/external_weights.h"
#include "../graph/graph_state.h"
#include "../graph/rewrite_passes.h"
#include "../graph/rewrite_pipeline.h"
#include "../onnx/model_reader.h"

namespace {

[[noreturn]] void contract_broken(const char* what, const char* detail) {
  std::fprintf(stderr, "mlrb fuzz: %s: %s\n", what, detail);
  std::abort();  // the fuzzer (or the standalone driver's death callback) saves the input
}

// The reader takes a path (it maps the file and follows external data beside it), so each input is written
// to one file in a private folder under $TMPDIR; external data it names is looked up there, where nothing else
// lives. The folder goes with the process on a normal exit (a crash leaves it, beside the saved input).
class PrivateInputFile {
 public:
  PrivateInputFile() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base != nullptr && *base != '\0' ? base : "/tmp") + "/mlrb-fuzz-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) contract_broken("setting up", "cannot make a private temp folder");
    folder_ = pattern;
    path_ = folder_ + "/model.onnx";
  }
  ~PrivateInputFile() {
    std::error_code ignored;
    std::filesystem::remove_all(folder_, ignored);
  }
  PrivateInputFile(const PrivateInputFile&) = delete;
  PrivateInputFile& operator=(const PrivateInputFile&) = delete;
  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  std::string folder_;
  std::string path_;
};

const std::string& input_path() {
  static const PrivateInputFile file;
  return file.path();
}

// The rewrites decline what they do not understand; an exception out of one is a bug.
template <typename Rewrite>
void must_not_throw(const char* name, Rewrite&& rewrite) {
  try {
    rewrite();
  } catch (const std::exception& error) {
    contract_broken(name, error.what());
  } catch (...) {
    contract_broken(name, "a non-standard exception");
  }
}

// Each pass alone (prerequisites ignored, so pruning sees arbitrary graphs too), then the pipeline as the
// load runs it, each followed by the assembly of what it produced (weights referenced in place).
void run_rewrites(mlrb::graph::Bytes model) {
  namespace graph = mlrb::graph;
  must_not_throw("the rewrite pipeline", [&] {
    std::optional<graph::ParsedModel> parsed;
    try {
      parsed.emplace(graph::parse_model(model));
    } catch (const graph::MalformedProto&) {
      return;  // the load declines every pass with the parse error
    }
    // Assembled as the load assembles it: weights referenced in the input's own bytes.
    const graph::ModelFile file{model, "model.onnx"};
    const auto assemble = [&](const graph::GraphState& state) {
      (void)graph::assemble_model(parsed->parts, graph::with_external_weights(state.view(), file), state.extra_opsets());
    };
    (void)graph::has_external_data(parsed->graph);
    assemble(graph::GraphState(*parsed));  // the original-graph check's model
    const auto passes = graph::load_time_passes();
    for (const graph::RewritePass* pass : passes) {
      graph::GraphState alone(*parsed);
      const graph::RewritePass* single[] = {pass};
      (void)graph::run_passes(single, alone, {});
      if (alone.rewritten()) assemble(alone);
    }
    graph::GraphState chained(*parsed);
    (void)graph::run_passes(passes, chained, {});
    if (chained.rewritten()) assemble(chained);
  });
}

void run_reader(const uint8_t* data, size_t size) {
  std::FILE* file = std::fopen(input_path().c_str(), "wb");
  if (file == nullptr) return;
  // An empty input is written as an empty file (fwrite must not see the null pointer an empty input may carry).
  const bool written = size == 0 || std::fwrite(data, 1, size, file) == size;
  std::fclose(file);
  if (!written) return;
  try {
    (void)mlrb::onnx::read_model_info(input_path());
  } catch (const mlrb::Error&) {
    // A refusal naming the file or tensor: the reader's contract.
  } catch (const std::exception& error) {
    contract_broken("the reader threw something other than mlrb::Error", error.what());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  run_rewrites(mlrb::graph::Bytes(data, size));
  run_reader(data, size);
  return 0;
}
