// Protobuf wire format over bytes already in memory: a reader that yields each field with both its
// decoded value and its exact encoded bytes (so a rewrite can copy every field it does not touch verbatim),
// and a builder that appends fields. Only what ONNX's messages use: varints, fixed32/64, length-delimited.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mlrb::graph {

using Bytes = std::span<const uint8_t>;

enum class Wire : uint8_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

struct Field {
  uint32_t number = 0;
  Wire wire = Wire::kVarint;
  uint64_t varint = 0;  // the value of a varint field
  Bytes payload;        // a length-delimited field's payload, or a fixed field's raw bytes
  Bytes encoded;        // tag and value as they appear in the message
};

// Thrown for bytes that are not a well-formed message; the rewrite turns it into a clean fallback.
struct MalformedProto {
  std::string what;
};

class FieldReader {
 public:
  explicit FieldReader(Bytes message) : data_(message) {}
  // Reads the next field; false at the end of the message. Throws MalformedProto.
  bool next(Field& field);

 private:
  uint64_t read_varint();
  Bytes take(uint64_t count);

  Bytes data_;
  size_t position_ = 0;
};

// Calls visit(field) for every field of a message, in order. Throws MalformedProto.
template <typename Visit>
void for_each_field(Bytes message, Visit&& visit) {
  FieldReader reader(message);
  Field field;
  while (reader.next(field)) visit(static_cast<const Field&>(field));
}

[[nodiscard]] std::string_view as_text(Bytes bytes);
// The integers of a repeated int64 field occurrence: one unpacked varint, or a packed run of them.
// Throws MalformedProto.
[[nodiscard]] std::vector<int64_t> int64s_of(const Field& field);
[[nodiscard]] Bytes as_bytes(std::string_view text);

class ProtoBuilder {
 public:
  ProtoBuilder& raw(Bytes bytes);
  ProtoBuilder& varint_field(uint32_t number, uint64_t value);
  ProtoBuilder& bytes_field(uint32_t number, Bytes payload);
  ProtoBuilder& fixed32_field(uint32_t number, uint32_t value);
  // The tag and length of a length-delimited field whose payload the caller appends next.
  ProtoBuilder& length_delimited_header(uint32_t number, uint64_t length);
  ProtoBuilder& string_field(uint32_t number, std::string_view text) { return bytes_field(number, as_bytes(text)); }
  ProtoBuilder& message_field(uint32_t number, const ProtoBuilder& child) { return bytes_field(number, child.bytes()); }
  void reserve(size_t bytes) { buffer_.reserve(bytes); }

  [[nodiscard]] Bytes bytes() const { return buffer_; }
  [[nodiscard]] std::vector<uint8_t> release() { return std::move(buffer_); }

 private:
  void varint(uint64_t value);
  std::vector<uint8_t> buffer_;
};

}  // namespace mlrb::graph
