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

// A model's folder within the folder its files may resolve into. That is the folder itself, unless the caller
// names a read root above it: a Hugging Face hub snapshot (snapshots/<commit>/) whose files are links into the
// repository's blobs/ resolves inside the repository folder (the rule is src/io/hub-snapshot.ts's; the addon
// is told its answer rather than guessing again).
struct ReadScope {
  std::string root;            // real path; nothing outside it is opened
  std::string folder_in_root;  // the model's folder, relative to root ("" when it is root)
};

// `read_root` empty, or not a real folder above the model's: the scope is the model's folder alone.
[[nodiscard]] ReadScope read_scope(const std::string& folder, const std::string& read_root);

// `relative` named from the model's folder: it may not climb out of that folder by name (`..`, absolute), and
// no symlink on the way may lead outside the scope's root.
[[nodiscard]] std::variant<FileHandle, ConfinedRefusal> open_in_scope(const ReadScope& scope, const std::string& relative,
                                                                      const std::string& purpose);

}  // namespace mlrb::onnx
