#include "codec_support.hpp"

#include <cmath>
#include <cstdio>

namespace gausslab::codec {

namespace {

std::string number(std::uint64_t value) { return std::to_string(value); }

// "4 GiB", "512 MiB", "1.5 GiB": limits and needs in the unit a person reads.
std::string bytes_text(std::uint64_t bytes) {
  char text[64];
  if (bytes >= (1ULL << 30))
    std::snprintf(text, sizeof text, "%.3g GiB", static_cast<double>(bytes) / (1ULL << 30));
  else if (bytes >= (1ULL << 20))
    std::snprintf(text, sizeof text, "%.3g MiB", static_cast<double>(bytes) / (1ULL << 20));
  else
    std::snprintf(text, sizeof text, "%llu bytes", static_cast<unsigned long long>(bytes));
  return text;
}

std::string size_text(std::uint64_t width, std::uint64_t height) { return number(width) + "×" + number(height); }

}  // namespace

void fail(const DecodeInput& in, const char* format, const std::string& problem) {
  throw ImageLoadError("'" + in.name + "' is not a valid " + format + " file: " + problem);
}

void check_size(const DecodeInput& in, const char* format, std::uint64_t width, std::uint64_t height,
                PixelFormat result, std::uint64_t working_bytes) {
  const ImageLimits& limits = in.limits;
  const std::string declared = "the " + std::string(format) + " header declares " + size_text(width, height) + " pixels";
  if (width == 0 || height == 0) fail(in, format, declared + "; an image needs at least 1×1");
  auto refuse = [&](const std::string& why) {
    throw ImageLoadError("'" + in.name + "': " + declared + ", " + why +
                         "; gausslab refuses it before allocating memory (the file may be damaged, or shrink the "
                         "picture with another tool first)");
  };
  if (width > static_cast<std::uint64_t>(limits.max_width))
    refuse("wider than the limit of " + number(static_cast<std::uint64_t>(limits.max_width)) + " pixels");
  if (height > static_cast<std::uint64_t>(limits.max_height))
    refuse("taller than the limit of " + number(static_cast<std::uint64_t>(limits.max_height)) + " pixels");
  const std::uint64_t pixels = width * height;  // both <= 2^31: no overflow
  if (pixels > limits.max_pixels)
    refuse("more than the limit of " + number(limits.max_pixels) + " pixels in total");
  const std::uint64_t needed = pixels * bytes_per_pixel(result) + working_bytes;
  if (needed > limits.max_decoded_bytes || working_bytes > limits.max_decoded_bytes)
    refuse("which need " + bytes_text(needed) + " to decode (" + describe(result) + "), more than the limit of " +
           bytes_text(limits.max_decoded_bytes));
}

HostImage allocate_image(const DecodeInput& in, const char* format, std::uint64_t width, std::uint64_t height,
                         PixelFormat result, std::uint64_t working_bytes) {
  check_size(in, format, width, height, result, working_bytes);
  return HostImage(static_cast<int>(width), static_cast<int>(height), result);
}

void finish_rgba8(const DecodeInput& in, LoadedImage& loaded, int channels) {
  if (in.rgba8_channels)
    *in.rgba8_channels = channels;
  else
    loaded.image.narrow_rgba8_in_place(channels);
  if (loaded.source_type.empty()) loaded.source_type = "uint8";
}

void add_note(std::string& note, const std::string& more) {
  if (more.empty()) return;
  if (!note.empty()) note += "; ";
  note += more;
}

float Float32Narrowing::narrow(double wide) {
  const float v = static_cast<float>(wide);
  if (std::isinf(v) && std::isfinite(wide)) ++overflowed_;
  else if (static_cast<double>(v) != wide && !std::isnan(wide)) ++rounded_;
  return v;
}

float Float32Narrowing::narrow(std::int64_t wide) {
  const float v = static_cast<float>(wide);  // |v| <= 2^63: always finite
  // 2^63 (the float of the largest int64s) is no int64; below it the cast back is exact.
  const bool exact = v < 9223372036854775808.0f && v >= -9223372036854775808.0f && static_cast<std::int64_t>(v) == wide;
  if (!exact) ++rounded_;
  return v;
}

float Float32Narrowing::narrow(std::uint64_t wide) {
  const float v = static_cast<float>(wide);  // at most 2^64: always finite
  const bool exact = v < 18446744073709551616.0f && static_cast<std::uint64_t>(v) == wide;
  if (!exact) ++rounded_;
  return v;
}

std::string Float32Narrowing::describe(std::uint64_t of) const {
  if (inexact() == 0) return "every sample exactly";
  const std::string total = of ? " of " + std::to_string(of) + " samples" : std::string();
  std::string text;
  if (rounded_) text = std::to_string(rounded_) + total + " rounded to the nearest float32";
  if (overflowed_) {
    if (!text.empty()) text += ", ";
    text += std::to_string(overflowed_) + (rounded_ ? std::string() : total) +
            " beyond float32's range (|v| > 3.4e38) became ±inf";
  }
  return text;
}

const char* source_type_name(SampleType sample) {
  switch (sample) {
    case SampleType::U8: return "uint8";
    case SampleType::U16: return "uint16";
    case SampleType::F16: return "float16";
    default: return "float32";
  }
}

void fail_too_short(const DecodeInput& in, const char* format, std::uint64_t width, std::uint64_t height,
                    std::uint64_t needed, std::uint64_t available) {
  fail(in, format,
       "the header declares " + size_text(width, height) + " pixels, which need at least " + number(needed) +
           " bytes of image data, but the file holds only " + number(available) +
           " (the file is truncated or its header is damaged)");
}

void ByteReader::seek(std::size_t offset, const char* what) {
  if (offset > in_.size)
    fail(in_, format_, std::string("the file is truncated (it ends before the ") + what + ")");
  pos_ = offset;
}

const unsigned char* ByteReader::take(std::size_t count, const char* what) {
  if (count > remaining()) fail(in_, format_, std::string("the file is truncated (it ends inside the ") + what + ")");
  const unsigned char* at = in_.data + pos_;
  pos_ += count;
  return at;
}

std::uint16_t ByteReader::u16le(const char* what) {
  const unsigned char* b = take(2, what);
  return static_cast<std::uint16_t>(b[0] | (b[1] << 8));
}

std::uint32_t ByteReader::u32le(const char* what) {
  const unsigned char* b = take(4, what);
  return static_cast<std::uint32_t>(b[0]) | (static_cast<std::uint32_t>(b[1]) << 8) |
         (static_cast<std::uint32_t>(b[2]) << 16) | (static_cast<std::uint32_t>(b[3]) << 24);
}

}  // namespace gausslab::codec
