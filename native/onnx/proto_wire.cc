#include "proto_wire.h"

namespace mlrb::onnx {

namespace {

// Decodes the varint at data[position] and moves past it.
uint64_t decode_varint(Bytes data, size_t& position) {
  const size_t start = position;
  uint64_t value = 0;
  for (uint32_t shift = 0; shift < 64; shift += 7) {
    if (position >= data.size()) throw MalformedProto("a varint runs past the end of its message", data.data() + start);
    const uint8_t byte = data[position++];
    value |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return value;
  }
  throw MalformedProto("a varint longer than 10 bytes", data.data() + start);
}

}  // namespace

uint64_t FieldReader::read_varint() {
  return decode_varint(data_, position_);
}

Bytes FieldReader::take(uint64_t count) {
  if (count > data_.size() - position_) throw MalformedProto("a value runs past the end of its message", data_.data() + position_);
  Bytes taken = data_.subspan(position_, static_cast<size_t>(count));
  position_ += static_cast<size_t>(count);
  return taken;
}

bool FieldReader::next(Field& field) {
  if (position_ >= data_.size()) return false;
  const size_t start = position_;
  const uint8_t* tag_at = data_.data() + start;
  const uint64_t tag = read_varint();
  field.number = static_cast<uint32_t>(tag >> 3);
  if (field.number == 0) throw MalformedProto("field number 0", tag_at);
  field.varint = 0;
  field.payload = {};
  switch (tag & 7) {
    case 0:
      field.wire = Wire::kVarint;
      field.varint = read_varint();
      break;
    case 1:
      field.wire = Wire::kFixed64;
      field.payload = take(8);
      break;
    case 2: {
      field.wire = Wire::kLengthDelimited;
      const uint8_t* length_at = data_.data() + position_;
      const uint64_t length = read_varint();
      if (const size_t left = data_.size() - position_; length > left) {
        throw MalformedProto("a field of " + std::to_string(length) + " bytes that only has " + std::to_string(left) + " bytes left", length_at);
      }
      field.payload = take(length);  // a span: the payload itself is not read
      break;
    }
    case 5:
      field.wire = Wire::kFixed32;
      field.payload = take(4);
      break;
    default: throw MalformedProto("field " + std::to_string(field.number) + " has unsupported wire type " + std::to_string(tag & 7), tag_at);
  }
  field.encoded = data_.subspan(start, position_ - start);
  return true;
}

std::string_view as_text(Bytes bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}
Bytes as_bytes(std::string_view text) {
  return {reinterpret_cast<const uint8_t*>(text.data()), text.size()};
}

std::string_view text_of(const Field& field, const char* what) {
  if (field.wire != Wire::kLengthDelimited) throw MalformedProto(std::string(what) + " is not a string", field.encoded.data());
  return as_text(field.payload);
}

Bytes message_of(const Field& field, const char* what) {
  if (field.wire != Wire::kLengthDelimited) throw MalformedProto(std::string(what) + " is not a message", field.encoded.data());
  return field.payload;
}

uint64_t varint_of(const Field& field, const char* what) {
  if (field.wire != Wire::kVarint) throw MalformedProto(std::string(what) + " is not a varint", field.encoded.data());
  return field.varint;
}

std::vector<int64_t> int64s_of(const Field& field) {
  if (field.wire == Wire::kVarint) return {static_cast<int64_t>(field.varint)};  // two's complement, as protobuf writes int64
  if (field.wire != Wire::kLengthDelimited) throw MalformedProto("a repeated int64 field with a fixed-width wire type", field.encoded.data());
  std::vector<int64_t> values;
  for (size_t position = 0; position < field.payload.size();) values.push_back(static_cast<int64_t>(decode_varint(field.payload, position)));
  return values;
}

uint64_t count_packed_varints(Bytes packed) {
  uint64_t count = 0;
  for (size_t position = 0; position < packed.size(); ++count) (void)decode_varint(packed, position);
  return count;
}

void ProtoBuilder::varint(uint64_t value) {
  while (value >= 0x80) {
    buffer_.push_back(static_cast<uint8_t>(value | 0x80));
    value >>= 7;
  }
  buffer_.push_back(static_cast<uint8_t>(value));
}

void ProtoBuilder::tag(uint32_t number, Wire wire) {
  varint(static_cast<uint64_t>(number) << 3 | static_cast<uint64_t>(wire));
}

ProtoBuilder& ProtoBuilder::raw(Bytes bytes) {
  buffer_.insert(buffer_.end(), bytes.begin(), bytes.end());
  return *this;
}

ProtoBuilder& ProtoBuilder::varint_field(uint32_t number, uint64_t value) {
  tag(number, Wire::kVarint);
  varint(value);
  return *this;
}

ProtoBuilder& ProtoBuilder::length_delimited_header(uint32_t number, uint64_t length) {
  tag(number, Wire::kLengthDelimited);
  varint(length);
  return *this;
}

ProtoBuilder& ProtoBuilder::fixed32_field(uint32_t number, uint32_t value) {
  tag(number, Wire::kFixed32);
  for (int shift = 0; shift < 32; shift += 8) buffer_.push_back(static_cast<uint8_t>(value >> shift));  // little-endian
  return *this;
}

ProtoBuilder& ProtoBuilder::bytes_field(uint32_t number, Bytes payload) {
  return length_delimited_header(number, payload.size()).raw(payload);
}

}  // namespace mlrb::onnx
