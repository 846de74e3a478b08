#include "proto_wire.h"

namespace mlrb::graph {

uint64_t FieldReader::read_varint() {
  uint64_t value = 0;
  for (uint32_t shift = 0; shift < 64; shift += 7) {
    if (position_ >= data_.size()) throw MalformedProto{"a varint runs past the end of its message"};
    const uint8_t byte = data_[position_++];
    value |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return value;
  }
  throw MalformedProto{"a varint longer than 10 bytes"};
}

Bytes FieldReader::take(uint64_t count) {
  if (count > data_.size() - position_) throw MalformedProto{"a field runs past the end of its message"};
  Bytes taken = data_.subspan(position_, static_cast<size_t>(count));
  position_ += static_cast<size_t>(count);
  return taken;
}

bool FieldReader::next(Field& field) {
  if (position_ >= data_.size()) return false;
  const size_t start = position_;
  const uint64_t tag = read_varint();
  field.number = static_cast<uint32_t>(tag >> 3);
  if (field.number == 0) throw MalformedProto{"field number 0"};
  field.varint = 0;
  field.payload = {};
  switch (tag & 7) {
    case 0: field.wire = Wire::kVarint; field.varint = read_varint(); break;
    case 1: field.wire = Wire::kFixed64; field.payload = take(8); break;
    case 2: field.wire = Wire::kLengthDelimited; field.payload = take(read_varint()); break;
    case 5: field.wire = Wire::kFixed32; field.payload = take(4); break;
    default: throw MalformedProto{"unsupported wire type " + std::to_string(tag & 7)};
  }
  field.encoded = data_.subspan(start, position_ - start);
  return true;
}

std::vector<int64_t> int64s_of(const Field& field) {
  std::vector<int64_t> values;
  if (field.wire == Wire::kVarint) {
    values.push_back(static_cast<int64_t>(field.varint));
    return values;
  }
  // Packed repeated varints: a run of untagged varints.
  uint64_t value = 0;
  uint32_t shift = 0;
  for (const uint8_t byte : field.payload) {
    value |= static_cast<uint64_t>(byte & 0x7f) << shift;
    shift += 7;
    if ((byte & 0x80) == 0) {
      values.push_back(static_cast<int64_t>(value));
      value = 0;
      shift = 0;
    } else if (shift >= 64) {
      throw MalformedProto{"a packed varint longer than 10 bytes"};
    }
  }
  return values;
}

std::string_view as_text(Bytes bytes) { return {reinterpret_cast<const char*>(bytes.data()), bytes.size()}; }
Bytes as_bytes(std::string_view text) { return {reinterpret_cast<const uint8_t*>(text.data()), text.size()}; }

void ProtoBuilder::varint(uint64_t value) {
  while (value >= 0x80) {
    buffer_.push_back(static_cast<uint8_t>(value | 0x80));
    value >>= 7;
  }
  buffer_.push_back(static_cast<uint8_t>(value));
}

ProtoBuilder& ProtoBuilder::raw(Bytes bytes) {
  buffer_.insert(buffer_.end(), bytes.begin(), bytes.end());
  return *this;
}

ProtoBuilder& ProtoBuilder::varint_field(uint32_t number, uint64_t value) {
  varint(static_cast<uint64_t>(number) << 3 | static_cast<uint64_t>(Wire::kVarint));
  varint(value);
  return *this;
}

ProtoBuilder& ProtoBuilder::length_delimited_header(uint32_t number, uint64_t length) {
  varint(static_cast<uint64_t>(number) << 3 | static_cast<uint64_t>(Wire::kLengthDelimited));
  varint(length);
  return *this;
}

ProtoBuilder& ProtoBuilder::fixed32_field(uint32_t number, uint32_t value) {
  varint((static_cast<uint64_t>(number) << 3) | static_cast<uint64_t>(Wire::kFixed32));
  for (int shift = 0; shift < 32; shift += 8) buffer_.push_back(static_cast<uint8_t>(value >> shift));
  return *this;
}

ProtoBuilder& ProtoBuilder::bytes_field(uint32_t number, Bytes payload) { return length_delimited_header(number, payload.size()).raw(payload); }

}  // namespace mlrb::graph
