#pragma once
// Host images and the plain image view that both host and device code use.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "gausslab/core/host_device.hpp"
#include "gausslab/core/pixel_format.hpp"

namespace gausslab {

// A rectangle in pixels, [x, x + width) × [y, y + height).
struct Rect {
  int x = 0, y = 0, width = 0, height = 0;
};

// A pitched 2D view of pixels in host or device memory (which one is up to the owner); no ownership.
struct ImageView {
  void* data = nullptr;
  int width = 0;
  int height = 0;
  std::size_t pitch_bytes = 0;
  PixelFormat format = PixelFormat::Rgba8;

  template <class Pixel>
  GAUSSLAB_HD Pixel* row(int y) const {
    return reinterpret_cast<Pixel*>(static_cast<char*>(data) + static_cast<std::size_t>(y) * pitch_bytes);
  }
  bool empty() const { return data == nullptr || width <= 0 || height <= 0; }
};

struct ConstImageView {
  const void* data = nullptr;
  int width = 0;
  int height = 0;
  std::size_t pitch_bytes = 0;
  PixelFormat format = PixelFormat::Rgba8;

  ConstImageView() = default;
  ConstImageView(const void* d, int w, int h, std::size_t pitch, PixelFormat f)
      : data(d), width(w), height(h), pitch_bytes(pitch), format(f) {}
  ConstImageView(const ImageView& v)  // NOLINT: a mutable view is always readable
      : data(v.data), width(v.width), height(v.height), pitch_bytes(v.pitch_bytes), format(v.format) {}

  template <class Pixel>
  GAUSSLAB_HD const Pixel* row(int y) const {
    return reinterpret_cast<const Pixel*>(static_cast<const char*>(data) +
                                          static_cast<std::size_t>(y) * pitch_bytes);
  }
  bool empty() const { return data == nullptr || width <= 0 || height <= 0; }
};

template <class Pixel>
struct PixelFormatOf;
template <>
struct PixelFormatOf<Rgba8> {
  static constexpr PixelFormat value = PixelFormat::Rgba8;
};
template <>
struct PixelFormatOf<float> {
  static constexpr PixelFormat value = PixelFormat::F32;
};

// A tightly packed host image of Rgba8 or float pixels.
template <class Pixel>
class Image {
 public:
  Image() = default;
  Image(int width, int height, Pixel fill = Pixel{}) : width_(width), height_(height) {
    if (width < 0 || height < 0) throw std::invalid_argument("image size must not be negative");
    pixels_.assign(static_cast<std::size_t>(width) * static_cast<std::size_t>(height), fill);
  }

  int width() const { return width_; }
  int height() const { return height_; }
  bool empty() const { return pixels_.empty(); }
  std::size_t pixel_count() const { return pixels_.size(); }
  std::size_t pitch_bytes() const { return static_cast<std::size_t>(width_) * sizeof(Pixel); }
  static constexpr PixelFormat format() { return PixelFormatOf<Pixel>::value; }

  Pixel* data() { return pixels_.data(); }
  const Pixel* data() const { return pixels_.data(); }
  Pixel& at(int x, int y) { return pixels_[static_cast<std::size_t>(y) * width_ + x]; }
  const Pixel& at(int x, int y) const { return pixels_[static_cast<std::size_t>(y) * width_ + x]; }
  const std::vector<Pixel>& pixels() const { return pixels_; }

  ImageView view() { return {pixels_.data(), width_, height_, pitch_bytes(), format()}; }
  ConstImageView view() const { return {pixels_.data(), width_, height_, pitch_bytes(), format()}; }

 private:
  int width_ = 0;
  int height_ = 0;
  std::vector<Pixel> pixels_;
};

using ImageRgba8 = Image<Rgba8>;
using ImageF32 = Image<float>;

// Reads channel c of pixel (x, y) of a host view as a double (RGBA8 in 0..255, F32 as stored).
double channel_value(const ConstImageView& view, int x, int y, int c);

// Copies a host view into a new tightly packed image (the view's format must match Pixel).
template <class Pixel>
Image<Pixel> copy_to_image(const ConstImageView& view);

// Deterministic pseudo-random test and benchmark images (full range, independent per channel).
ImageRgba8 make_random_rgba8(int width, int height, std::uint32_t seed);
ImageF32 make_random_f32(int width, int height, std::uint32_t seed);  // values in [0, 1)

// The luminance of an RGBA8 image in [0, 1] as float32 (the benchmark's single-channel input).
ImageF32 to_grey_f32(const ImageRgba8& image);

}  // namespace gausslab
