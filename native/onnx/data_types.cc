#include "data_types.h"

#include <array>

namespace mlrb::onnx {

namespace {

// Indexed by code (0 = UNDEFINED).
constexpr std::array<DataTypeFacts, 29> kDataTypes = {{
    {"undefined", 0},      {"float32", 32},   {"uint8", 8},          {"int8", 8},         {"uint16", 16},    {"int16", 16},
    {"int32", 32},         {"int64", 64},     {"string", 0},         {"bool", 8},         {"float16", 16},   {"float64", 64},
    {"uint32", 32},        {"uint64", 64},    {"complex64", 64},     {"complex128", 128}, {"bfloat16", 16},  {"float8e4m3fn", 8},
    {"float8e4m3fnuz", 8}, {"float8e5m2", 8}, {"float8e5m2fnuz", 8}, {"uint4", 4},        {"int4", 4},       {"float4e2m1", 4},
    {"float8e8m0", 8},     {"uint2", 2},      {"int2", 2},           {"float6e2m3", 6},   {"float6e3m2", 6},
}};
static_assert(kDataTypes.size() == data_type::kFloat6E3M2 + 1, "one entry per code up to the last one named");
static_assert(kDataTypes[data_type::kBfloat16].name == "bfloat16" && kDataTypes[data_type::kInt4].bits == 4);

}  // namespace

std::optional<DataTypeFacts> data_type_facts(int32_t code) {
  if (code <= data_type::kUndefined || static_cast<size_t>(code) >= kDataTypes.size()) return std::nullopt;
  return kDataTypes[static_cast<size_t>(code)];
}

std::string data_type_name(int32_t code) {
  if (const std::optional<DataTypeFacts> facts = data_type_facts(code)) return std::string(facts->name);
  return "type#" + std::to_string(code);
}

uint32_t element_bytes(int32_t code) {
  const std::optional<DataTypeFacts> facts = data_type_facts(code);
  return facts && facts->bits % 8 == 0 ? facts->bits / 8 : 0;
}

bool is_scoring_float(int32_t code) {
  return code == data_type::kFloat || code == data_type::kFloat16 || code == data_type::kBfloat16;
}

uint64_t payload_bytes(uint32_t bits, uint64_t element_count) {
  return (element_count * bits + 7) / 8;
}

}  // namespace mlrb::onnx
