// The protobuf wire format over bytes in memory, both ways: the one reader every native ONNX consumer
// uses (the edge checks' model reader and the graph rewrites) and the builder the rewrites write with.
// The bytes are normally a memory mapping of the whole model file (mapped_range.h). The reader decodes a
// field's tag and length and hands back its payload as a span without dereferencing it, so a weight
// payload (raw_data) that nobody asks for is stepped over and its pages are never faulted in; a caller
// that wants the bytes reads the span. Each field also carries its exact encoded bytes, so a rewrite can
// copy every field it does not change verbatim. Only what ONNX's messages use: varints, fixed32/64,
// length-delimited. Field numbers live in schema.h.
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace mlrb::onnx {

using Bytes = std::span<const uint8_t>;

enum class Wire : uint8_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

struct Field {
  uint32_t number = 0;
  Wire wire = Wire::kVarint;
  uint64_t varint = 0;  // the value of a varint field
  Bytes payload;        // a length-delimited field's payload, or a fixed field's raw bytes
  Bytes encoded;        // tag and value as they appear in the message
};

// Bytes that are not a well-formed message. `at` points into the buffer being read, so a reader holding
// the whole file can name the byte offset; the graph rewrites turn it into a clean fallback instead.
class MalformedProto : public std::runtime_error {
 public:
  MalformedProto(const std::string& what, const uint8_t* at) : std::runtime_error(what), at_(at) {}
  [[nodiscard]] const uint8_t* at() const { return at_; }

 private:
  const uint8_t* at_;
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
[[nodiscard]] Bytes as_bytes(std::string_view text);
// A string or bytes field's payload; MalformedProto naming `what` ("NodeProto.op_type") when the field is
// not length-delimited.
[[nodiscard]] std::string_view text_of(const Field& field, const char* what);
// An embedded message's bytes; MalformedProto naming `what` when the field is not length-delimited.
[[nodiscard]] Bytes message_of(const Field& field, const char* what);
// A varint field's value; MalformedProto naming `what` when the field has another wire type.
[[nodiscard]] uint64_t varint_of(const Field& field, const char* what);
// The integers of a repeated int64 field occurrence: one unpacked varint, or a packed run of them.
// Throws MalformedProto for a fixed-width occurrence or a packed run cut inside a varint.
[[nodiscard]] std::vector<int64_t> int64s_of(const Field& field);
// The number of varints in a packed run, without keeping them. Throws MalformedProto as int64s_of does.
[[nodiscard]] uint64_t count_packed_varints(Bytes packed);

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
  void tag(uint32_t number, Wire wire);
  std::vector<uint8_t> buffer_;
};

}  // namespace mlrb::onnx
