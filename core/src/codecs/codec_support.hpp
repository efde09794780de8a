#pragma once
// What every decoder and encoder shares: the input they decode, the limits checked before any
// allocation, the error they throw, byte reading with bounds, and the 8-bit conversions.
#include <cstddef>
#include <cstdint>
#include <string>

#include "gausslab/core/image_io.hpp"
#include "gausslab/core/pixel_format.hpp"

namespace gausslab::codec {

// The bytes of one file and what a decode of it may cost.
struct DecodeInput {
  const unsigned char* data;
  std::size_t size;
  const std::string& name;  // the file, for messages
  const ImageLimits& limits;
  // Set by load_image_rgba8_from_memory: the decoders that decode into RGBA8 leave that result as
  // it is (no narrowing to the file's channels) and store the file's channels here.
  int* rgba8_channels = nullptr;
  // Set with rgba8_channels by the batch: memory to decode into (load_image_from_memory's
  // PixelTarget); the decoders that use it (BMP) set LoadedImage::decoded_into, the others ignore it.
  const PixelTarget* target = nullptr;
};

// "'photo.png' is not a valid PNG file: <problem>"
[[noreturn]] void fail(const DecodeInput& in, const char* format, const std::string& problem);

// Checks width and height (at least 1, at most the limits), their product, and the result in
// `result` pixels plus `working_bytes` of decoder memory against the limits; throws naming the
// limit exceeded.
void check_size(const DecodeInput& in, const char* format, std::uint64_t width, std::uint64_t height,
                PixelFormat result, std::uint64_t working_bytes = 0);

// check_size, then the result image (zero-filled until the decoder fills it).
HostImage allocate_image(const DecodeInput& in, const char* format, std::uint64_t width, std::uint64_t height,
                         PixelFormat result, std::uint64_t working_bytes = 0);

// The 8-bit decoders (JPEG, BMP, TGA, GIF, palette PNG, libtiff's RGBA reader) decode into RGBA8
// (allocate_image(..., PixelFormat::Rgba8)) and keep the file's `channels` at the end, in place
// (1: R, 2: R and A, 3: RGB), or say them through in.rgba8_channels; the source type is "uint8"
// unless the decoder named another.
void finish_rgba8(const DecodeInput& in, LoadedImage& loaded, int channels);

// "the header declares W×H pixels, which need at least N bytes of image data, but the file has
// only M after the header": the header contradicts the file size.
[[noreturn]] void fail_too_short(const DecodeInput& in, const char* format, std::uint64_t width,
                                 std::uint64_t height, std::uint64_t needed, std::uint64_t available);

// round(v * 255 / max_value) with halves rounded up, exactly (integer arithmetic); v <= max_value.
inline std::uint8_t scale_to_8bit(std::uint32_t value, std::uint32_t max_value) {
  return static_cast<std::uint8_t>((2ULL * value * 255 + max_value) / (2ULL * max_value));
}
inline std::uint8_t reduce_16_to_8(std::uint16_t value) { return scale_to_8bit(value, 65535); }

// "a; b": notes joined.
void add_note(std::string& note, const std::string& more);

// Samples wider than float32 (float64, 32- and 64-bit integers) narrowed to it, counted so that the
// load's note says what happened: exactly, rounded to the nearest float32, or, for finite values
// beyond float32's range (|v| > 3.4e38), turned into ±inf as IEEE rounding does. A 64-bit integer
// is compared with its float32 without passing through float64, which holds only 53 bits.
class Float32Narrowing {
 public:
  float narrow(double wide);
  float narrow(std::int64_t wide);
  float narrow(std::uint64_t wide);
  std::uint64_t inexact() const { return rounded_ + overflowed_; }
  // "every sample exactly", "N rounded to the nearest float32", "..., M beyond float32's range
  // became ±inf"; `of` (when not 0) adds " of <of> samples".
  std::string describe(std::uint64_t of = 0) const;

 private:
  std::uint64_t rounded_ = 0, overflowed_ = 0;
};

// The sample type names of LoadedImage::source_type for our own types: "uint8", "uint16",
// "float16", "float32".
const char* source_type_name(SampleType sample);

// Host byte order is little-endian on every machine gausslab builds for (x86-64, aarch64).
inline std::uint16_t swap16(std::uint16_t v) { return static_cast<std::uint16_t>((v >> 8) | (v << 8)); }
inline std::uint32_t swap32(std::uint32_t v) {
  return (v >> 24) | ((v >> 8) & 0xff00u) | ((v << 8) & 0xff0000u) | (v << 24);
}

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
