#pragma once
// 2×2 pooling after the blur: each output pixel is the maximum or the mean of a 2×2 block of the
// filtered image, the output half the size with odd sides rounded down (PyTorch's MaxPool2d /
// AvgPool2d(kernel_size=2) defaults: stride 2, no padding, ceil_mode False: the last row or column
// of an odd side is dropped). Every channel on its own, alpha too.
//
// The exact rule, shared by this CPU reference and every GPU path (the per-pixel functions below
// are __host__ __device__), so that pooling as a separate kernel and pooling fused into a blur's
// last pass give the same bits:
//   - pooling reads the blurred image as it is stored: RGBA8 rounded to 8 bits (to_unorm8), F32 as
//     float. A fused pass rounds its four outputs to 8 bits first, as if it had stored them.
//   - max: the largest of the four; for F32 a NaN among them gives NaN (as PyTorch's max pooling).
//   - avg RGBA8: (a + b + c + d + 2) / 4 in integers, i.e. the mean rounded half up, as to_unorm8
//     rounds (0.5 → 1, 1.5 → 2, 254.75 → 255); never outside 0..255.
//   - avg F32: ((a + b) + (c + d)) × 0.25 in float32, a and b the block's upper row, in that order.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "gausslab/core/host_device.hpp"
#include "gausslab/core/image.hpp"

namespace gausslab {

enum class PoolMode : int { None, Max2x2, Avg2x2, Count };

// "none", "max2x2", "avg2x2".
const char* to_string(PoolMode mode);
// Inverse of to_string; nullopt for an unknown name.
std::optional<PoolMode> pool_mode_from_string(std::string_view name);

// The pooled side: floor(side / 2).
GAUSSLAB_HD int pooled_side(int side) { return side / 2; }

// Empty when a width × height image can be pooled 2×2 (both sides at least 2); otherwise the reason.
std::string pool_problem(int width, int height);

// One channel of one output pixel from the four stored values of its block (a b / c d).
GAUSSLAB_HD std::uint8_t pool_channel(std::uint8_t a, std::uint8_t b, std::uint8_t c, std::uint8_t d, PoolMode mode) {
  if (mode == PoolMode::Max2x2) {
    const std::uint8_t top = a > b ? a : b;
    const std::uint8_t bottom = c > d ? c : d;
    return top > bottom ? top : bottom;
  }
  return static_cast<std::uint8_t>((static_cast<unsigned>(a) + b + c + d + 2u) >> 2);
}

GAUSSLAB_HD float pool_channel(float a, float b, float c, float d, PoolMode mode) {
  if (mode == PoolMode::Max2x2) {
    // x != x is NaN: a NaN wins, as in PyTorch.
    const float top = (a != a || a > b) ? a : b;
    const float bottom = (c != c || c > d) ? c : d;
    return (top != top || top > bottom) ? top : bottom;
  }
  return ((a + b) + (c + d)) * 0.25f;
}

GAUSSLAB_HD Rgba8 pool_pixel(Rgba8 a, Rgba8 b, Rgba8 c, Rgba8 d, PoolMode mode) {
  Rgba8 out;
  out.r = pool_channel(a.r, b.r, c.r, d.r, mode);
  out.g = pool_channel(a.g, b.g, c.g, d.g, mode);
  out.b = pool_channel(a.b, b.b, c.b, d.b, mode);
  out.a = pool_channel(a.a, b.a, c.a, d.a, mode);
  return out;
}
GAUSSLAB_HD float pool_pixel(float a, float b, float c, float d, PoolMode mode) { return pool_channel(a, b, c, d, mode); }

// The CPU reference: pools src into dst (host memory, same format, any of pixel_format.hpp: RGBA8
// and F32 as above, the others through float32 samples by the F32 rules, stored by the format's
// rule, which for integers is the mean rounded half up as for RGBA8; dst of pooled_side(width) ×
// pooled_side(height)). Throws std::invalid_argument for PoolMode::None, a size mismatch, or an
// image with a side below 2.
void pool_2x2(const ConstImageView& src, const ImageView& dst, PoolMode mode);

// The same into a new image.
template <class Pixel>
Image<Pixel> pool_2x2(const Image<Pixel>& src, PoolMode mode) {
  Image<Pixel> dst(pooled_side(src.width()), pooled_side(src.height()));
  pool_2x2(src.view(), dst.view(), mode);
  return dst;
}

}  // namespace gausslab
