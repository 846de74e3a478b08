#include "mapped_range.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "../core/error.h"

namespace mlrb::onnx {

MappedRange::MappedRange(const FileHandle& file, uint64_t offset, size_t length, Access access)
    : path_(file.path()), length_(length), file_size_(file.size()) {
  if (length == 0) return;  // mmap refuses empty mappings; there is nothing to read anyway
  // mmap wants a page-aligned file offset; the mapping starts that much earlier.
  static const uint64_t page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  const uint64_t aligned = offset - offset % page;
  mapping_length_ = static_cast<size_t>(offset - aligned) + length;
  mapping_ = ::mmap(nullptr, mapping_length_, PROT_READ, MAP_SHARED, file.descriptor(), static_cast<off_t>(aligned));
  if (mapping_ == MAP_FAILED) {
    mapping_ = nullptr;
    throw Error("INTERNAL", "cannot map " + std::to_string(length) + " bytes of " + file.path() + ": " + std::strerror(errno));
  }
  try {
    guard_.emplace(mapping_, mapping_length_);  // before anything can touch a page
  } catch (...) {
    ::munmap(mapping_, mapping_length_);
    throw;
  }
  // Only a hint: a failure changes speed, never results.
  (void)::madvise(mapping_, mapping_length_, access == Access::sequential ? MADV_SEQUENTIAL : MADV_RANDOM);
  data_ = static_cast<const char*>(mapping_) + (offset - aligned);
}

MappedRange::~MappedRange() {
  guard_.reset();  // unguarded first: the address range may be reused by another mapping once unmapped
  if (mapping_ != nullptr) ::munmap(mapping_, mapping_length_);
}

void MappedRange::throw_if_damaged(const std::string& what) const {
  if (!damaged()) return;
  throw Error("BAD_MODEL", path_ + " shrank or could not be read while " + what + " was read from it (it had " + std::to_string(file_size_) +
                               " bytes when opened)");
}

}  // namespace mlrb::onnx
