// Loads an ONNX Runtime shared library at run time and initialises ORT's C++ API from it. The TS layer
// (src/native/ort-library.ts) chooses the path: by default the libonnxruntime the package ships beside its
// prebuilt addon, else onnxruntime-node's; another build, such as a GPU one, can be named instead. One
// library per process: ORT's API table is a process-wide global.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "attention_op.h"
#include "ort_api.h"

namespace mlrb {

struct OrtRuntimeInfo {
  std::string library_path;
  std::string version;       // ORT's own version string, e.g. "1.30.0"
  uint32_t api_version = 0;  // the C API version we were granted
};

class OrtRuntime {
 public:
  // Loads the library once; a second call with the same path returns the loaded runtime, another path
  // fails. Throws std::runtime_error with the dlopen / API version message on failure.
  static OrtRuntime& load(const std::string& library_path);
  // The loaded runtime, or nullptr before load() succeeded.
  static OrtRuntime* current();

  [[nodiscard]] const OrtRuntimeInfo& info() const { return info_; }
  [[nodiscard]] Ort::Env& env() { return *env_; }
  // The ai.mlrb custom ops, registered with every CPU session that runs a fused graph.
  [[nodiscard]] const AttentionOps& attention_ops() const { return *attention_ops_; }

  OrtRuntime(const OrtRuntime&) = delete;
  OrtRuntime& operator=(const OrtRuntime&) = delete;
  ~OrtRuntime();

 private:
  OrtRuntime() = default;

  struct LibraryCloser {
    void operator()(void* handle) const;
  };

  std::unique_ptr<void, LibraryCloser> library_;
  std::unique_ptr<Ort::Env> env_;
  std::unique_ptr<AttentionOps> attention_ops_;  // after env_: released before it
  OrtRuntimeInfo info_;
};

}  // namespace mlrb
