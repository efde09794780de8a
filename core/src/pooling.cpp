#include "gausslab/core/pooling.hpp"

#include <stdexcept>
#include <vector>

#include "gausslab/core/host_image.hpp"

namespace gausslab {

const char* to_string(PoolMode mode) {
  switch (mode) {
    case PoolMode::Max2x2:
      return "max2x2";
    case PoolMode::Avg2x2:
      return "avg2x2";
    default:
      return "none";
  }
}

std::optional<PoolMode> pool_mode_from_string(std::string_view name) {
  for (PoolMode mode : {PoolMode::None, PoolMode::Max2x2, PoolMode::Avg2x2})
    if (name == to_string(mode)) return mode;
  return std::nullopt;
}

std::string pool_problem(int width, int height) {
  if (width >= 2 && height >= 2) return {};
  return "a " + std::to_string(width) + "×" + std::to_string(height) +
         " image cannot be pooled 2×2: both sides must be at least 2 pixels (the pooled image is floor(side / 2))";
}

namespace {

template <class Pixel>
void pool_rows(const ConstImageView& src, const ImageView& dst, PoolMode mode) {
  for (int y = 0; y < dst.height; ++y) {
    const Pixel* top = src.row<Pixel>(2 * y);
    const Pixel* bottom = src.row<Pixel>(2 * y + 1);
    Pixel* out = dst.row<Pixel>(y);
    for (int x = 0; x < dst.width; ++x)
      out[x] = pool_pixel(top[2 * x], top[2 * x + 1], bottom[2 * x], bottom[2 * x + 1], mode);
  }
}

// Any other format: the samples as float32 (levels for integers, exact), pooled by the F32 rule,
// stored by the format's (integers round half up: the mean of four levels is a multiple of 0.25,
// so this is RGBA8's (a + b + c + d + 2) / 4; a maximum is one of the four, stored exactly).
void pool_rows_as_float(const ConstImageView& src, const ImageView& dst, PoolMode mode) {
  const int channels = channel_count(src.format);
  const std::size_t n = static_cast<std::size_t>(src.width) * channels;
  std::vector<float> top(n), bottom(n), out(static_cast<std::size_t>(dst.width) * channels);
  for (int y = 0; y < dst.height; ++y) {
    load_row_samples(src, 2 * y, top.data());
    load_row_samples(src, 2 * y + 1, bottom.data());
    for (int x = 0; x < dst.width; ++x)
      for (int c = 0; c < channels; ++c) {
        const std::size_t a = static_cast<std::size_t>(2 * x) * channels + c, b = a + channels;
        out[static_cast<std::size_t>(x) * channels + c] = pool_channel(top[a], top[b], bottom[a], bottom[b], mode);
      }
    store_row_samples(out.data(), dst, y);
  }
}

}  // namespace

void pool_2x2(const ConstImageView& src, const ImageView& dst, PoolMode mode) {
  if (mode != PoolMode::Max2x2 && mode != PoolMode::Avg2x2)
    throw std::invalid_argument("pool_2x2: the mode must be max2x2 or avg2x2");
  if (src.empty()) throw std::invalid_argument("pool_2x2: empty image");
  if (std::string problem = pool_problem(src.width, src.height); !problem.empty())
    throw std::invalid_argument("pool_2x2: " + problem);
  if (dst.data == nullptr || dst.width != pooled_side(src.width) || dst.height != pooled_side(src.height) ||
      dst.format != src.format)
    throw std::invalid_argument("pool_2x2: the destination must be " + std::to_string(pooled_side(src.width)) + "×" +
                                std::to_string(pooled_side(src.height)) + " in the source's format");
  if (src.format == PixelFormat::Rgba8)
    pool_rows<Rgba8>(src, dst, mode);
  else if (src.format == PixelFormat::F32)
    pool_rows<float>(src, dst, mode);
  else
    pool_rows_as_float(src, dst, mode);
}

}  // namespace gausslab
