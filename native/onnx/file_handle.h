// An open read-only file that closes itself. Reads go through pread so several threads can share one
// descriptor without a shared file position.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace mlrb::onnx {

class FileHandle {
 public:
  // Throws mlrb::Error(BAD_MODEL) naming `path` and `purpose` (e.g. "external data of tensor w") when it
  // cannot be opened or is not a regular file. Opens without blocking, so a FIFO is refused, not waited on.
  FileHandle(std::string path, const std::string& purpose);
  // Takes ownership of an open descriptor (closed here on failure); the same regular-file check.
  FileHandle(int descriptor, std::string path, const std::string& purpose);
  ~FileHandle();
  FileHandle(const FileHandle&) = delete;
  FileHandle& operator=(const FileHandle&) = delete;
  FileHandle(FileHandle&& other) noexcept;
  FileHandle& operator=(FileHandle&& other) = delete;

  [[nodiscard]] uint64_t size() const { return size_; }
  [[nodiscard]] const std::string& path() const { return path_; }
  [[nodiscard]] int descriptor() const { return descriptor_; }
  // Where the descriptor was opened, every link resolved (the kernel's record, so no later rename or swap
  // of a link changes it); the given path where that record cannot be read.
  [[nodiscard]] std::string real_path() const;

  // Reads exactly `count` bytes at `offset`; a short read means the file shrank or lies about its size.
  void read_exact(uint64_t offset, void* destination, size_t count) const;

  // Tells the kernel a range will be read front to back, so readahead is aggressive.
  void advise_sequential(uint64_t offset, uint64_t length) const;

 private:
  void adopt(int descriptor, const std::string& purpose);

  std::string path_;
  int descriptor_ = -1;
  uint64_t size_ = 0;
};

}  // namespace mlrb::onnx
