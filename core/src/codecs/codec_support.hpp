#pragma once
// What every decoder and encoder shares: the input they decode, the limits checked before any
// allocation, the error they throw, byte reading with bounds, and the 8-bit conversions.
#include <cstddef>
#include <cstdint>
#include <string>

#include "gausslab/core/image_io.hpp"

namespace gausslab::codec {

// The bytes of one file and what a decode of it may cost.
struct DecodeInput {
  const unsigned char* data;
  std::size_t size;
  const std::string& name;  // the file, for messages
  const ImageLimits& limits;
};

// "'photo.png' is not a valid PNG file: <problem>"
[[noreturn]] void fail(const DecodeInput& in, const char* format, const std::string& problem);

// Checks width and height (at least 1, at most the limits), their product and the RGBA8 result
// plus `working_bytes` of decoder memory against the limits; throws naming the limit exceeded.
void check_size(const DecodeInput& in, const char* format, std::uint64_t width, std::uint64_t height,
                std::uint64_t working_bytes = 0);

// check_size, then the result image (every pixel transparent black until the decoder fills it).
ImageRgba8 allocate_image(const DecodeInput& in, const char* format, std::uint64_t width, std::uint64_t height,
                          std::uint64_t working_bytes = 0);

// "the header declares W×H pixels, which need at least N bytes of image data, but the file has
// only M after the header": the header contradicts the file size.
[[noreturn]] void fail_too_short(const DecodeInput& in, const char* format, std::uint64_t width,
                                 std::uint64_t height, std::uint64_t needed, std::uint64_t available);

// round(v * 255 / max_value) with halves rounded up, exactly (integer arithmetic); v <= max_value.
inline std::uint8_t scale_to_8bit(std::uint32_t value, std::uint32_t max_value) {
  return static_cast<std::uint8_t>((2ULL * value * 255 + max_value) / (2ULL * max_value));
}
inline std::uint8_t reduce_16_to_8(std::uint16_t value) { return scale_to_8bit(value, 65535); }

// The note a loader gives when it reduced samples of more than 8 bits.
std::string reduced_note(int bits);

// A bounded little/big-endian reader over the input; reading past the end throws "truncated".
class ByteReader {
 public:
  ByteReader(const DecodeInput& in, const char* format, std::size_t offset = 0)
      : in_(in), format_(format), pos_(offset) {}
  std::size_t position() const { return pos_; }
  std::size_t remaining() const { return pos_ < in_.size ? in_.size - pos_ : 0; }
  void seek(std::size_t offset, const char* what);
  void skip(std::size_t count, const char* what) { seek(pos_ + count, what); }
  const unsigned char* take(std::size_t count, const char* what);
  std::uint8_t u8(const char* what) { return *take(1, what); }
  std::uint16_t u16le(const char* what);
  std::uint32_t u32le(const char* what);
  std::int32_t s32le(const char* what) { return static_cast<std::int32_t>(u32le(what)); }

 private:
  const DecodeInput& in_;
  const char* format_;
  std::size_t pos_;
};

// The output side of the encoders: a file being written, or bytes in memory (benchmarks, tests).
class ByteSink {
 public:
  virtual ~ByteSink() = default;
  virtual void write(const void* data, std::size_t size) = 0;
};

}  // namespace gausslab::codec
