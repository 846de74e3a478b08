#include "ort_library.h"

#include <dlfcn.h>

#include <cstdlib>
#include <stdexcept>
#include <string>

namespace mlrb {

namespace {

// Everything the addon calls exists since C API 17 (ORT 1.14). We ask for the version our headers know
// first and fall back to the oldest we can work with, so an older GPU build still loads.
constexpr uint32_t kMinimumApiVersion = 17;

std::mutex g_runtime_mutex;
std::unique_ptr<OrtRuntime> g_runtime;

// ORT's own log goes to stderr. Every error it logs is also returned as a status, which the addon raises as a
// typed error carrying ORT's message, so at ORT's usual ERROR level a failing run printed that message twice,
// the first time as a red line no caller can catch or word. Only fatal messages are logged unless
// MLRB_ORT_LOG_LEVEL (verbose, info, warning, error, fatal) asks for more, to debug ORT itself.
constexpr const char* kLogLevelVariable = "MLRB_ORT_LOG_LEVEL";

OrtLoggingLevel log_level() {
  const char* requested = std::getenv(kLogLevelVariable);
  if (requested == nullptr) return ORT_LOGGING_LEVEL_FATAL;
  const std::string level(requested);
  if (level == "verbose") return ORT_LOGGING_LEVEL_VERBOSE;
  if (level == "info") return ORT_LOGGING_LEVEL_INFO;
  if (level == "warning") return ORT_LOGGING_LEVEL_WARNING;
  if (level == "error") return ORT_LOGGING_LEVEL_ERROR;
  if (level == "fatal" || level.empty()) return ORT_LOGGING_LEVEL_FATAL;
  throw std::runtime_error(std::string(kLogLevelVariable) + " must be verbose, info, warning, error or fatal, not \"" + level + "\"");
}

}  // namespace

void OrtRuntime::LibraryCloser::operator()(void* handle) const {
  // ORT keeps thread pools and static state alive until exit; unloading it early crashes at shutdown,
  // so the handle is deliberately kept open and only forgotten.
  (void)handle;
}

OrtRuntime::~OrtRuntime() = default;

OrtRuntime* OrtRuntime::current() {
  std::lock_guard lock(g_runtime_mutex);
  return g_runtime.get();
}

OrtRuntime& OrtRuntime::load(const std::string& library_path) {
  std::lock_guard lock(g_runtime_mutex);
  if (g_runtime) {
    if (g_runtime->info_.library_path != library_path) {
      throw std::runtime_error("ONNX Runtime is already loaded from " + g_runtime->info_.library_path +
                               "; a process can use only one ORT library, not also " + library_path);
    }
    return *g_runtime;
  }
  std::unique_ptr<OrtRuntime> runtime(new OrtRuntime());  // private constructor: make_unique cannot reach it
  runtime->library_.reset(dlopen(library_path.c_str(), RTLD_NOW | RTLD_LOCAL));
  if (!runtime->library_) {
    const char* reason = dlerror();
    throw std::runtime_error("cannot load the ONNX Runtime library " + library_path + ": " + (reason != nullptr ? reason : "unknown dlopen error"));
  }
  using GetApiBase = const OrtApiBase* (*)();
  auto get_api_base = reinterpret_cast<GetApiBase>(dlsym(runtime->library_.get(), "OrtGetApiBase"));
  if (get_api_base == nullptr) {
    throw std::runtime_error(library_path + " does not export OrtGetApiBase; is it an ONNX Runtime library?");
  }
  const OrtApiBase* api_base = get_api_base();
  const OrtApi* api = nullptr;
  for (uint32_t version = ORT_API_VERSION; version >= kMinimumApiVersion && api == nullptr; --version) {
    api = api_base->GetApi(version);
    if (api != nullptr) runtime->info_.api_version = version;
  }
  runtime->info_.library_path = library_path;
  runtime->info_.version = api_base->GetVersionString();
  if (api == nullptr) {
    throw std::runtime_error("ONNX Runtime " + runtime->info_.version + " at " + library_path + " is too old: C API version " +
                             std::to_string(kMinimumApiVersion) + " or newer is needed");
  }
  Ort::InitApi(api);
  runtime->env_ = std::make_unique<Ort::Env>(log_level(), "mlrb-eval");
  runtime->attention_ops_ = std::make_unique<AttentionOps>(runtime->info_.api_version);
  g_runtime = std::move(runtime);
  return *g_runtime;
}

}  // namespace mlrb
