#pragma once
// The two pixel formats every method supports: RGBA8 as the viewer shows it, and float32 single
// channel as the published comparisons use.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "gausslab/core/host_device.hpp"

namespace gausslab {

enum class PixelFormat : int { Rgba8, F32, Count };

struct Rgba8 {
  std::uint8_t r = 0, g = 0, b = 0, a = 0;
  friend bool operator==(const Rgba8& x, const Rgba8& y) {
    return x.r == y.r && x.g == y.g && x.b == y.b && x.a == y.a;
  }
};

// "rgba8" or "f32".
const char* to_string(PixelFormat format);
std::optional<PixelFormat> pixel_format_from_string(std::string_view name);

constexpr int channel_count(PixelFormat format) { return format == PixelFormat::Rgba8 ? 4 : 1; }
constexpr std::size_t bytes_per_pixel(PixelFormat format) {
  return format == PixelFormat::Rgba8 ? 4 * sizeof(std::uint8_t) : sizeof(float);
}

// The one float → 8-bit rule used by every method, CPU and GPU: clamp to [0, 255], round half up.
GAUSSLAB_HD std::uint8_t to_unorm8(float value) {
  const float clamped = value < 0.0f ? 0.0f : (value > 255.0f ? 255.0f : value);
  return static_cast<std::uint8_t>(static_cast<int>(clamped + 0.5f));
}

}  // namespace gausslab
