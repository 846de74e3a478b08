// TensorProto.DataType: the codes, and for each its name and width. The one native table of them: the
// model reader sizes payloads with it, the graph rewrites name the types they write, and the ORT layer
// names and sizes graph inputs and outputs with it, through native/ort/element_types.h (ORT's
// ONNXTensorElementDataType shares only codes 0-23 with these). Widths are in bits, not bytes, because
// 4-bit and 2-bit types pack several elements into one byte. TypeScript keeps its own table with the
// categories the edge verdicts need (src/inspect/graph/dtypes.ts); the addon hands it codes, not names.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace mlrb::onnx {

// The codes, as onnx.proto numbers them.
namespace data_type {
inline constexpr int32_t kUndefined = 0, kFloat = 1, kUint8 = 2, kInt8 = 3, kUint16 = 4, kInt16 = 5, kInt32 = 6, kInt64 = 7, kString = 8, kBool = 9,
                         kFloat16 = 10, kDouble = 11, kUint32 = 12, kUint64 = 13, kComplex64 = 14, kComplex128 = 15, kBfloat16 = 16,
                         kFloat8E4M3Fn = 17, kFloat8E4M3Fnuz = 18, kFloat8E5M2 = 19, kFloat8E5M2Fnuz = 20, kUint4 = 21, kInt4 = 22, kFloat4E2M1 = 23,
                         kFloat8E8M0 = 24, kUint2 = 25, kInt2 = 26, kFloat6E2M3 = 27, kFloat6E3M2 = 28;
}  // namespace data_type

struct DataTypeFacts {
  std::string_view name;  // "float32", "bfloat16", "int4" …: the names src/inspect/graph/dtypes.ts uses too
  uint32_t bits;          // 0 for variable-size types (string)
};

// nullopt for UNDEFINED and for codes this build does not know (a newer ONNX); callers then skip size checks.
[[nodiscard]] std::optional<DataTypeFacts> data_type_facts(int32_t code);

// The name, or "type#<code>" for a code the table does not know.
[[nodiscard]] std::string data_type_name(int32_t code);

// Bytes per element of a type whose elements are whole bytes; 0 for sub-byte, variable-size and unknown types.
[[nodiscard]] uint32_t element_bytes(int32_t code);

// float32, float16 or bfloat16: the types logits and past key/values may have.
[[nodiscard]] bool is_scoring_float(int32_t code);

// Dense payload bytes of `element_count` elements, rounding packed sub-byte types up to whole bytes.
[[nodiscard]] uint64_t payload_bytes(uint32_t bits, uint64_t element_count);

}  // namespace mlrb::onnx
