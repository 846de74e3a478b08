#include "confined_open.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <memory>

namespace mlrb::onnx {

namespace {

constexpr int kOpenFlags = O_RDONLY | O_CLOEXEC | O_NONBLOCK;  // O_NONBLOCK: a FIFO is refused, never waited on

// Escapes a lexical `..` can show are refused before the file system is asked anything.
bool climbs_out_lexically(const std::filesystem::path& relative) {
  if (relative.is_absolute() || relative.has_root_name()) return true;
  const std::filesystem::path normal = relative.lexically_normal();
  return !normal.empty() && *normal.begin() == "..";
}

ConfinedRefusal refusal_for(int error_number) {
  // EXDEV: RESOLVE_BENEATH stopped a `..` or a symlink leading out, before anything outside was looked up.
  if (error_number == EXDEV) return {ConfinedRefusal::Kind::outside_folder, 0};
  if (error_number == ENOENT || error_number == ENOTDIR) return {ConfinedRefusal::Kind::missing, 0};
  return {ConfinedRefusal::Kind::unreadable, error_number};
}

// -1 with errno set on failure.
int open_beneath(const std::string& folder, const std::string& relative) {
  const int folder_descriptor = ::open(folder.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (folder_descriptor < 0) return -1;
  open_how how{};
  how.flags = kOpenFlags;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
  const long descriptor = ::syscall(SYS_openat2, folder_descriptor, relative.c_str(), &how, sizeof(how));
  const int saved = errno;
  ::close(folder_descriptor);
  errno = saved;
  return static_cast<int>(descriptor);
}

std::optional<std::string> real_path(const std::string& path) {
  std::unique_ptr<char, decltype(&std::free)> resolved(::realpath(path.c_str(), nullptr), &std::free);
  if (!resolved) return std::nullopt;
  return std::string(resolved.get());
}

// For kernels without openat2: resolve both, compare, then open the resolved path refusing a final symlink
// (a swap between the two steps can then only fail, not redirect the read).
std::variant<int, ConfinedRefusal> open_by_real_path(const std::string& folder, const std::string& joined) {
  const std::optional<std::string> real_folder = real_path(folder);
  const std::optional<std::string> real_file = real_path(joined);
  if (!real_folder || !real_file) return ConfinedRefusal{ConfinedRefusal::Kind::unresolvable, 0};
  const std::string prefix = *real_folder == "/" ? *real_folder : *real_folder + "/";
  if (real_file->compare(0, prefix.size(), prefix) != 0) return ConfinedRefusal{ConfinedRefusal::Kind::outside_folder, 0};
  const int descriptor = ::open(real_file->c_str(), kOpenFlags | O_NOFOLLOW);
  if (descriptor < 0) return refusal_for(errno);
  return descriptor;
}

}  // namespace

std::variant<FileHandle, ConfinedRefusal> open_inside_folder(const std::string& folder, const std::string& relative, const std::string& purpose) {
  const std::filesystem::path location(relative);
  if (relative.empty() || climbs_out_lexically(location)) return ConfinedRefusal{ConfinedRefusal::Kind::outside_folder, 0};
  const std::string joined = (std::filesystem::path(folder) / location).lexically_normal().string();
  int descriptor = open_beneath(folder, relative);
  if (descriptor < 0 && (errno == ENOSYS || errno == EPERM)) {
    // No openat2 here (or a sandbox filters it).
    std::variant<int, ConfinedRefusal> opened = open_by_real_path(folder, joined);
    if (const auto* refusal = std::get_if<ConfinedRefusal>(&opened)) return *refusal;
    descriptor = std::get<int>(opened);
  } else if (descriptor < 0) {
    return refusal_for(errno);
  }
  return FileHandle(descriptor, joined, purpose);
}

ReadScope read_scope(const std::string& folder, const std::string& read_root) {
  const std::optional<std::string> real_folder = real_path(folder.empty() ? "." : folder);
  if (!real_folder) return {folder, ""};
  const std::optional<std::string> real_root = read_root.empty() ? std::nullopt : real_path(read_root);
  if (!real_root || *real_root == *real_folder) return {*real_folder, ""};
  const std::string prefix = *real_root == "/" ? *real_root : *real_root + "/";
  if (real_folder->compare(0, prefix.size(), prefix) != 0) return {*real_folder, ""};
  return {*real_root, real_folder->substr(prefix.size())};
}

std::variant<FileHandle, ConfinedRefusal> open_in_scope(const ReadScope& scope, const std::string& relative, const std::string& purpose) {
  if (relative.empty() || climbs_out_lexically(std::filesystem::path(relative))) return ConfinedRefusal{ConfinedRefusal::Kind::outside_folder, 0};
  return open_inside_folder(scope.root, (std::filesystem::path(scope.folder_in_root) / relative).string(), purpose);
}

}  // namespace mlrb::onnx
