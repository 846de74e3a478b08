// Makes a file mapping survive its file shrinking under it. Touching a mapped page that lies past the
// file's current end raises SIGBUS, and its default action kills the process: an agent's model folder is
// untrusted and may be truncated by another process while it is read, and a size check at open is a race.
// A guarded range registers itself in a fixed table; a process-wide SIGBUS handler that finds the faulting
// address there swaps the page for an anonymous zero page (mmap MAP_FIXED), marks the range damaged and
// returns, so the faulting load simply reads zeros. The owner checks `damaged()` after it has read and
// throws a typed error instead of using what it read.
//
// Why not sigsetjmp/siglongjmp: jumping out of a handler skips destructors and unwinds through whatever
// frame faulted (the protobuf walk, a vectorized kernel on a worker thread, ORT's threads in the same
// process), and needs per-thread jump buffers set around every access. Substituting the page needs no jump:
// the faulting instruction completes, on any thread, and control flow stays ordinary C++. Why not read
// with pread instead: the model walks read a few MB of metadata out of files of many GB and step over the
// weights without faulting their pages in (README, "One ONNX layer"); a buffered copy would read them all.
// A fault outside every guarded range goes to the handler installed before ours, or to the default action.
#pragma once

#include <atomic>
#include <cstddef>

namespace mlrb::onnx {

class TruncationGuard {
 public:
  // Guards [begin, begin + length), which must stay mapped for the guard's lifetime. Installs the handler
  // on first use. Throws mlrb::Error(INTERNAL) when the handler cannot be installed or every slot is taken.
  TruncationGuard(const void* begin, size_t length);
  ~TruncationGuard();
  TruncationGuard(const TruncationGuard&) = delete;
  TruncationGuard& operator=(const TruncationGuard&) = delete;

  // True once a page of the range could not be read (the file shrank, or the device failed) and was
  // replaced by zeros: whatever was read from the range since it was guarded is not the file's content.
  [[nodiscard]] bool damaged() const;

 private:
  size_t slot_;
};

}  // namespace mlrb::onnx
