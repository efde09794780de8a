#include "gausslab/core/image.hpp"

#include <cstring>
#include <random>

#include "gausslab/core/host_image.hpp"

namespace gausslab {

double channel_value(const ConstImageView& view, int x, int y, int c) { return load_sample(view, x, y, c); }

template <class Pixel>
Image<Pixel> copy_to_image(const ConstImageView& view) {
  if (view.format != PixelFormatOf<Pixel>::value)
    throw std::invalid_argument("copy_to_image: the view's pixel format does not match");
  Image<Pixel> image(view.width, view.height);
  for (int y = 0; y < view.height; ++y)
    std::memcpy(&image.at(0, y), view.row<Pixel>(y), image.pitch_bytes());
  return image;
}
template Image<Rgba8> copy_to_image<Rgba8>(const ConstImageView&);
template Image<float> copy_to_image<float>(const ConstImageView&);

ImageRgba8 make_random_rgba8(int width, int height, std::uint32_t seed) {
  ImageRgba8 image(width, height);
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> level(0, 255);
  auto next = [&] { return static_cast<std::uint8_t>(level(rng)); };
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      Rgba8& p = image.at(x, y);
      p.r = next();
      p.g = next();
      p.b = next();
      p.a = next();
    }
  return image;
}

ImageF32 make_random_f32(int width, int height, std::uint32_t seed) {
  ImageF32 image(width, height);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> value(0.0f, 1.0f);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) image.at(x, y) = value(rng);
  return image;
}

ImageF32 to_grey_f32(const ImageRgba8& image) {
  ImageF32 grey(image.width(), image.height());
  for (int y = 0; y < image.height(); ++y)
    for (int x = 0; x < image.width(); ++x) {
      const Rgba8& p = image.at(x, y);
      grey.at(x, y) = (0.2126f * p.r + 0.7152f * p.g + 0.0722f * p.b) / 255.0f;
    }
  return grey;
}

}  // namespace gausslab
