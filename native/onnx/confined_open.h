// Opens a file named relative to a folder without ever leaving that folder: ONNX external-data locations
// come from the model, and the model may be hostile. `../../etc/passwd`, an absolute symlink or a relative
// one climbing out must not be read, and the refusal must not tell whether the foreign file exists or how
// large it is. Resolution is the kernel's (openat2 with RESOLVE_BENEATH, which also refuses symlinks that
// lead out, and any absolute symlink, even one pointing back inside: exporters write relative names, and
// an absolute link is as likely a probe); where openat2 is missing (Linux < 5.6, some sandboxes), realpath
// of the folder and of the file, compared, with the file then opened without following a final symlink.
// Readers that reopen the file later by its path (the zero scan) rely on it not being swapped meanwhile.
#pragma once

#include <optional>
#include <string>
#include <variant>

#include "file_handle.h"

namespace mlrb::onnx {

struct ConfinedRefusal {
  enum class Kind {
    outside_folder,  // the location leads out of the folder (by `..`, by a symlink, or absolute)
    missing,         // nothing with that name inside the folder
    unresolvable,    // the fallback could not resolve it: missing or outside, which it cannot tell safely
    unreadable,      // inside the folder, but open() failed; `error_number` says why
  };
  Kind kind = Kind::outside_folder;
  int error_number = 0;
};

// `relative` as written in the model. On success, a FileHandle (regular files only: a FIFO, device or
// socket is an mlrb::Error naming the file) whose path is the folder joined with `relative`.
[[nodiscard]] std::variant<FileHandle, ConfinedRefusal> open_inside_folder(const std::string& folder, const std::string& relative,
                                                                           const std::string& purpose);

}  // namespace mlrb::onnx
