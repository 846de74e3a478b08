#include "tensor_payloads.h"

#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <variant>

#include "../core/error.h"
#include "confined_open.h"
#include "data_types.h"
#include "file_handle.h"

namespace mlrb::onnx {

namespace {

// Exporters write empty tensors as [0] or [n, 0] with n a real axis (a width, a head count): far below
// this. Beyond it, dims of an empty tensor describe nothing and serve only to make consumers that size
// work by one axis (per-row statistics, say) loop or allocate for nothing.
constexpr uint64_t kMaxEmptyTensorSpan = uint64_t{1} << 24;

std::string describe_dims(const std::vector<int64_t>& dims) {
  std::string text = "[";
  for (size_t index = 0; index < dims.size(); ++index) text += (index > 0 ? ", " : "") + std::to_string(dims[index]);
  return text + "]";
}

class PayloadResolver {
 public:
  PayloadResolver(const std::string& model_path, const std::string& model_real_path, const std::string& read_root,
                  std::vector<ExternalFile>& external_files)
      : model_path_(model_path), model_real_path_(model_real_path), directory_(std::filesystem::path(model_path).parent_path()),
        scope_(read_scope(directory_.string(), read_root)), external_files_(external_files) {}

  TensorInfo resolve(ParsedTensor parsed) {
    TensorInfo info = std::move(parsed.info);
    info.element_count = element_count(info);
    const std::optional<DataTypeFacts> facts = data_type_facts(info.data_type);
    const uint32_t bits = facts ? facts->bits : 0;
    const std::optional<uint64_t> expected = bits > 0 ? std::optional<uint64_t>(dense_bytes(info, bits)) : std::nullopt;

    if (parsed.densified) {
      info.location = DataLocation::typed;
      info.length = expected.value_or(0);
    } else if (parsed.marked_external || !parsed.external_location.empty()) {
      resolve_external(info, parsed, expected);
    } else if (parsed.has_raw_data) {
      info.location = DataLocation::raw;
      info.file = model_path_;
      info.real_file = model_real_path_;
      if (expected && info.length != *expected) lie(info, *expected, "its raw_data holds " + std::to_string(info.length) + " bytes");
    } else if (parsed.has_typed_data) {
      info.location = DataLocation::typed;
      // A string tensor has one string_data entry per element, as a numeric one has one value per element; sub-byte
      // types (int4, uint4, float4, int2 …) pack their elements into bytes, one byte per int32_data entry.
      const uint64_t entries = bits > 0 && bits < 8 ? payload_bytes(bits, info.element_count) : info.element_count;
      if ((bits > 0 || info.data_type == data_type::kString) && parsed.typed_element_count != entries) {
        fail(info, "dims " + describe_dims(info.dims) + " give " + std::to_string(info.element_count) + " elements (" + std::to_string(entries) +
                       " typed entries) but its typed data holds " + std::to_string(parsed.typed_element_count));
      }
      // Strings have no fixed width: what they hold is the bytes of their entries.
      info.length = expected.value_or(parsed.string_bytes);
    } else if (info.element_count != 0) {
      fail(info, "has dims " + describe_dims(info.dims) + " but no data");
    }
    return info;
  }

 private:
  [[noreturn]] void fail(const TensorInfo& info, const std::string& what) const {
    throw Error("BAD_MODEL", "tensor '" + info.name + "' in " + model_path_ + " " + what);
  }

  [[noreturn]] void lie(const TensorInfo& info, uint64_t expected, const std::string& actual) const {
    fail(info, "has dims " + describe_dims(info.dims) + " of " + data_type_name(info.data_type) + ", which need " + std::to_string(expected) +
                   " bytes, but " + actual);
  }

  // The element count, checked the way a consumer would use the dims: no negative dim, and the product of
  // the non-zero dims (taken in any order) fits 64 bits, so a zero dim cannot hide an overflow elsewhere.
  uint64_t element_count(const TensorInfo& info) const {
    uint64_t span = 1;  // product of the non-zero dims
    bool empty = false;
    for (int64_t dim : info.dims) {
      if (dim < 0) fail(info, "has a negative dimension in " + describe_dims(info.dims));
      if (dim == 0) {
        empty = true;
      } else if (__builtin_mul_overflow(span, static_cast<uint64_t>(dim), &span)) {
        fail(info, "has dims " + describe_dims(info.dims) + " that overflow 64 bits");
      }
    }
    if (empty && span > kMaxEmptyTensorSpan) {
      fail(info, "has dims " + describe_dims(info.dims) + ": no elements, yet " + std::to_string(span) + " along its other axes (more than " +
                     std::to_string(kMaxEmptyTensorSpan) + "); an empty tensor that large describes no real weight");
    }
    return empty ? 0 : span;
  }

  uint64_t dense_bytes(const TensorInfo& info, uint32_t bits) const {
    uint64_t total_bits = 0;
    if (__builtin_mul_overflow(info.element_count, static_cast<uint64_t>(bits), &total_bits)) {
      fail(info, "has dims " + describe_dims(info.dims) + " whose byte count overflows 64 bits");
    }
    return payload_bytes(1, total_bits);
  }

  void resolve_external(TensorInfo& info, const ParsedTensor& parsed, const std::optional<uint64_t>& expected) {
    if (parsed.external_location.empty()) fail(info, "is marked as external data but names no location");
    info.location = DataLocation::external;
    const uint64_t file_size = external_file_size(info, parsed.external_location);
    info.offset = parsed.external_offset.value_or(0);
    if (info.offset > file_size) {
      fail(info, "starts at offset " + std::to_string(info.offset) + " of " + info.file + ", which has only " + std::to_string(file_size) + " bytes");
    }
    info.length = parsed.external_length.value_or(expected.value_or(file_size - info.offset));
    if (expected && info.length != *expected) lie(info, *expected, "its external_data length is " + std::to_string(info.length));
    if (info.length > file_size - info.offset) {
      fail(info, "needs bytes [" + std::to_string(info.offset) + ", " + std::to_string(info.offset + info.length) + ") of " + info.file +
                     ", which has only " + std::to_string(file_size) + " bytes (truncated external data?)");
    }
  }

  // Opens the external file inside the model's read scope (confined_open.h: its folder, or the hub repository
  // folder above a snapshot) and sets info.file. A refusal names the tensor and the location as written and
  // says nothing about whatever lies outside.
  uint64_t external_file_size(TensorInfo& info, const std::string& location) {
    const std::string written = "'" + location + "' (as written)";
    if (std::filesystem::path(location).is_absolute())
      fail(info, "names an absolute external data location " + written + "; ONNX requires a relative one");
    info.file = (directory_ / location).lexically_normal().string();
    if (auto known = opened_.find(info.file); known != opened_.end()) {
      info.real_file = known->second.real_path;
      return known->second.size;
    }
    std::variant<FileHandle, ConfinedRefusal> opened = open_in_scope(scope_, location, "external data of tensor '" + info.name + "'");
    if (const auto* refusal = std::get_if<ConfinedRefusal>(&opened)) {
      switch (refusal->kind) {
        case ConfinedRefusal::Kind::outside_folder:
          fail(info, "keeps its data at " + written + ", which leads outside the model's " + scope_name() + "; external data must stay inside it");
        case ConfinedRefusal::Kind::missing: fail(info, "keeps its data in external file " + info.file + ", which does not exist");
        case ConfinedRefusal::Kind::unresolvable: fail(info, "keeps its data at " + written + ", which is not a file inside the model's folder");
        case ConfinedRefusal::Kind::unreadable:
          fail(info, "keeps its data in external file " + info.file + ", which cannot be opened: " + std::strerror(refusal->error_number));
      }
    }
    const FileHandle& file = std::get<FileHandle>(opened);
    info.real_file = file.real_path();
    opened_.emplace(info.file, OpenedFile{file.size(), info.real_file});
    external_files_.push_back({info.file, file.size()});
    return file.size();
  }

  std::string scope_name() const { return scope_.folder_in_root.empty() ? "folder" : "repository folder " + scope_.root; }

  struct OpenedFile {
    uint64_t size = 0;
    std::string real_path;
  };

  const std::string& model_path_;
  const std::string& model_real_path_;
  std::filesystem::path directory_;
  ReadScope scope_;
  std::vector<ExternalFile>& external_files_;
  std::map<std::string, OpenedFile> opened_;
};

}  // namespace

std::vector<TensorInfo> resolve_tensor_payloads(const std::string& model_path, const std::string& model_real_path, const std::string& read_root,
                                                std::vector<ParsedTensor> tensors, std::vector<ExternalFile>& external_files) {
  PayloadResolver resolver(model_path, model_real_path, read_root, external_files);
  std::vector<TensorInfo> resolved;
  resolved.reserve(tensors.size());
  for (ParsedTensor& tensor : tensors) resolved.push_back(resolver.resolve(std::move(tensor)));
  return resolved;
}

}  // namespace mlrb::onnx
