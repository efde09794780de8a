#pragma once
// The pixel types: a storage type for each sample (u8, u16, f16, f32) and 1 to 4 interleaved
// channels (grey, grey + alpha, RGB, RGBA). One enum value per pair, so that kernels can take the
// format as a template argument. Arithmetic is float32 everywhere; only loads and stores know the
// storage:
//   u8, u16  samples are levels (0..255, 0..65535); a store rounds half up and saturates
//            (to_unorm8, to_unorm16), or floors or ceils when the caller asks (IntegerRounding);
//   f16, f32 a store keeps what IEEE arithmetic gives: NaN and infinities stay, f16 rounds to
//            nearest even and overflows to infinity beyond 65504 (half.hpp).
// RGBA8 (the viewer's format) and F32 (one float32 channel, the published comparisons' format) are
// the two every GPU method supports; MethodInfo::formats says which others a method takes.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "gausslab/core/host_device.hpp"

namespace gausslab {

enum class SampleType : std::uint8_t { U8, U16, F16, F32, Count };

// Value = 4 × sample type + (channels − 1).
enum class PixelFormat : std::uint8_t {
  Grey8, GreyAlpha8, Rgb8, Rgba8,
  Grey16, GreyAlpha16, Rgb16, Rgba16,
  Grey16F, GreyAlpha16F, Rgb16F, Rgba16F,
  F32, GreyAlpha32F, Rgb32F, Rgba32F,
  Count,
  Grey32F = F32,
};

inline constexpr int kPixelFormatCount = static_cast<int>(PixelFormat::Count);

struct Rgba8 {
  std::uint8_t r = 0, g = 0, b = 0, a = 0;
  friend bool operator==(const Rgba8& x, const Rgba8& y) {
    return x.r == y.r && x.g == y.g && x.b == y.b && x.a == y.a;
  }
};

constexpr bool is_valid(PixelFormat format) { return static_cast<int>(format) < kPixelFormatCount; }
constexpr SampleType sample_type(PixelFormat format) {
  return static_cast<SampleType>(static_cast<int>(format) / 4);
}
constexpr int channel_count(PixelFormat format) { return static_cast<int>(format) % 4 + 1; }
constexpr PixelFormat make_pixel_format(SampleType sample, int channels) {
  return static_cast<PixelFormat>(static_cast<int>(sample) * 4 + (channels - 1));
}
constexpr PixelFormat with_channels(PixelFormat format, int channels) {
  return make_pixel_format(sample_type(format), channels);
}
constexpr PixelFormat with_sample_type(PixelFormat format, SampleType sample) {
  return make_pixel_format(sample, channel_count(format));
}
constexpr std::size_t bytes_per_sample(SampleType sample) {
  return sample == SampleType::U8 ? 1 : sample == SampleType::F32 ? 4 : 2;
}
constexpr std::size_t bytes_per_pixel(PixelFormat format) {
  return bytes_per_sample(sample_type(format)) * static_cast<std::size_t>(channel_count(format));
}
constexpr bool is_integer(SampleType sample) { return sample == SampleType::U8 || sample == SampleType::U16; }
constexpr bool is_float(SampleType sample) { return sample == SampleType::F16 || sample == SampleType::F32; }
constexpr bool has_alpha(PixelFormat format) { return channel_count(format) == 2 || channel_count(format) == 4; }
// The largest level of an integer type (255, 65535); 1 for the float types, whose nominal range is [0, 1].
constexpr double nominal_max(SampleType sample) {
  return sample == SampleType::U8 ? 255.0 : sample == SampleType::U16 ? 65535.0 : 1.0;
}

// Format names: the layout and the bits, "grey8" … "rgba8", "grey16" … "rgba16", "grey16f" …
// "rgba16f", "f32" (one float32 channel) and "greya32f", "rgb32f", "rgba32f".
const char* to_string(PixelFormat format);
// Accepts those names and "grey32f" for f32, "gray" for "grey", case-insensitively.
std::optional<PixelFormat> pixel_format_from_string(std::string_view name);
// "grey8, greya8, rgb8, rgba8, grey16, …": every name, for help texts.
std::string pixel_format_list();

// "u8", "u16", "f16", "f32".
const char* to_string(SampleType sample);
std::optional<SampleType> sample_type_from_string(std::string_view name);
// "grey", "grey+alpha", "RGB", "RGBA".
const char* channel_layout_name(int channels);
// "16-bit RGB", "float32 grey", "half RGBA": for messages.
std::string describe(PixelFormat format);

// How a float becomes an integer level: half up (the default everywhere), down or up; the result
// saturates at the type's range either way.
enum class IntegerRounding : std::uint8_t { Nearest, Floor, Ceil };
const char* to_string(IntegerRounding rounding);
std::optional<IntegerRounding> integer_rounding_from_string(std::string_view name);

// The one float → 8-bit rule used by every method, CPU and GPU: clamp to [0, 255], round half up.
// NaN stores 0 (it fails `value > 0`; converting a NaN to int would be undefined on the host).
GAUSSLAB_HD std::uint8_t to_unorm8(float value) {
  const float clamped = value > 0.0f ? (value < 255.0f ? value : 255.0f) : 0.0f;
  return static_cast<std::uint8_t>(static_cast<int>(clamped + 0.5f));
}
// The same for 16 bits: clamp to [0, 65535], round half up (exact: every level and half level is a float).
GAUSSLAB_HD std::uint16_t to_unorm16(float value) {
  const float clamped = value > 0.0f ? (value < 65535.0f ? value : 65535.0f) : 0.0f;
  return static_cast<std::uint16_t>(static_cast<int>(clamped + 0.5f));
}
// Floor and ceil variants (NaN stores 0, as the clamps above give it).
GAUSSLAB_HD int round_to_level(float value, IntegerRounding rounding, int max_level) {
  if (!(value > 0.0f)) return 0;
  if (value >= static_cast<float>(max_level)) return max_level;
  const float rounded =
      rounding == IntegerRounding::Floor ? floorf(value) : rounding == IntegerRounding::Ceil ? ceilf(value)
                                                                                            : floorf(value + 0.5f);
  return static_cast<int>(rounded);
}
// The same rule for a float64 value (the CPU methods' 16-bit sums, core/src/cpu_filter.cpp: rounded
// from the sum itself, not from its float32 rounding). Host only.
inline int round_to_level(double value, IntegerRounding rounding, int max_level) {
  if (!(value > 0.0)) return 0;
  if (value >= static_cast<double>(max_level)) return max_level;
  const double rounded = rounding == IntegerRounding::Floor  ? std::floor(value)
                         : rounding == IntegerRounding::Ceil ? std::ceil(value)
                                                             : std::floor(value + 0.5);
  return static_cast<int>(rounded);
}

}  // namespace gausslab
