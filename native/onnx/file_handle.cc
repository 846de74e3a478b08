#include "file_handle.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "../core/error.h"

namespace mlrb::onnx {

namespace {

// What a non-regular file is, for the error.
const char* not_regular(mode_t mode) {
  if (S_ISFIFO(mode)) return "is a FIFO, not a regular file";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "is a device, not a regular file";
  if (S_ISSOCK(mode)) return "is a socket, not a regular file";
  if (S_ISDIR(mode)) return "is a directory, not a regular file";
  return "is not a regular file";
}

}  // namespace

FileHandle::FileHandle(std::string path, const std::string& purpose) : path_(std::move(path)) {
  // O_NONBLOCK: a FIFO opened for reading would otherwise wait for a writer before fstat could refuse it.
  // It changes nothing for regular files.
  const int descriptor = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (descriptor < 0) {
    throw Error("BAD_MODEL", "cannot open " + path_ + " (" + purpose + "): " + std::strerror(errno));
  }
  adopt(descriptor, purpose);
}

std::string FileHandle::real_path() const {
  const std::string link = "/proc/self/fd/" + std::to_string(descriptor_);
  std::string target(4096, '\0');
  const ssize_t length = ::readlink(link.c_str(), target.data(), target.size());
  if (length <= 0 || static_cast<size_t>(length) >= target.size()) return path_;
  target.resize(static_cast<size_t>(length));
  return target;
}

FileHandle::FileHandle(int descriptor, std::string path, const std::string& purpose) : path_(std::move(path)) {
  adopt(descriptor, purpose);
}

void FileHandle::adopt(int descriptor, const std::string& purpose) {
  struct stat info {};
  if (::fstat(descriptor, &info) != 0 || !S_ISREG(info.st_mode)) {
    const char* what = not_regular(info.st_mode);
    ::close(descriptor);
    throw Error("BAD_MODEL", path_ + " (" + purpose + ") " + what);
  }
  descriptor_ = descriptor;
  size_ = static_cast<uint64_t>(info.st_size);
}

FileHandle::~FileHandle() {
  if (descriptor_ >= 0) ::close(descriptor_);
}

FileHandle::FileHandle(FileHandle&& other) noexcept : path_(std::move(other.path_)), descriptor_(other.descriptor_), size_(other.size_) {
  other.descriptor_ = -1;
}

void FileHandle::read_exact(uint64_t offset, void* destination, size_t count) const {
  auto* cursor = static_cast<char*>(destination);
  while (count > 0) {
    const ssize_t got = ::pread(descriptor_, cursor, count, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      throw Error("BAD_MODEL", path_ + ": read of " + std::to_string(count) + " bytes at offset " + std::to_string(offset) + " failed" +
                                   (got < 0 ? std::string(": ") + std::strerror(errno) : " (unexpected end of file)"));
    }
    cursor += got;
    offset += static_cast<uint64_t>(got);
    count -= static_cast<size_t>(got);
  }
}

void FileHandle::advise_sequential(uint64_t offset, uint64_t length) const {
  // Only a hint: a failure changes speed, never results.
  (void)::posix_fadvise(descriptor_, static_cast<off_t>(offset), static_cast<off_t>(length), POSIX_FADV_SEQUENTIAL);
}

}  // namespace mlrb::onnx
