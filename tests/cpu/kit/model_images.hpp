#pragma once
// Images for the CPU model tests: host images as the kernels store them (uchar4, float, and the
// ushort4 and float4 of the RGBA16 and RGBA32F kernels), random images, the test photos, crops, and
// the first difference between two results.
#include <cuda_runtime.h>  // uchar4, make_uchar4 for the host compiler

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "gausslab/core/image.hpp"

namespace gausslab::test {

// RGBA16 and RGBA32F pixels on the host, for the methods with kernels of their own for them.
struct Rgba16 {
  std::uint16_t r = 0, g = 0, b = 0, a = 0;
};
struct Rgba32f {
  float r = 0, g = 0, b = 0, a = 0;
};

}  // namespace gausslab::test

namespace gausslab {
template <>
struct PixelFormatOf<test::Rgba16> {
  static constexpr PixelFormat value = PixelFormat::Rgba16;
};
template <>
struct PixelFormatOf<test::Rgba32f> {
  static constexpr PixelFormat value = PixelFormat::Rgba32F;
};
}  // namespace gausslab

namespace gausslab::test {

// A host pixel type as the kernels store it.
template <class Pixel>
struct StorageOf;
template <>
struct StorageOf<Rgba8> {
  using type = uchar4;
  static uchar4 from(const Rgba8& p) { return make_uchar4(p.r, p.g, p.b, p.a); }
  static Rgba8 to(uchar4 p) { return Rgba8{p.x, p.y, p.z, p.w}; }
};
template <>
struct StorageOf<float> {
  using type = float;
  static float from(float p) { return p; }
  static float to(float p) { return p; }
};
template <>
struct StorageOf<Rgba16> {
  using type = ushort4;
  static ushort4 from(const Rgba16& p) { return make_ushort4(p.r, p.g, p.b, p.a); }
  static Rgba16 to(ushort4 p) { return Rgba16{p.x, p.y, p.z, p.w}; }
};
template <>
struct StorageOf<Rgba32f> {
  using type = float4;
  static float4 from(const Rgba32f& p) { return make_float4(p.r, p.g, p.b, p.a); }
  static Rgba32f to(float4 p) { return Rgba32f{p.x, p.y, p.z, p.w}; }
};

// The image's pixels row-major in the storage type.
template <class Pixel>
std::vector<typename StorageOf<Pixel>::type> to_storage(const Image<Pixel>& image) {
  std::vector<typename StorageOf<Pixel>::type> out;
  out.reserve(image.pixel_count());
  for (const Pixel& p : image.pixels()) out.push_back(StorageOf<Pixel>::from(p));
  return out;
}

// A width × height image from row-major storage values.
template <class Pixel, class Storage>
Image<Pixel> from_storage(const std::vector<Storage>& values, int width, int height) {
  Image<Pixel> image(width, height);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) image.at(x, y) = StorageOf<Pixel>::to(values[static_cast<std::size_t>(y) * width + x]);
  return image;
}

// make_random_rgba8 / make_random_f32 by pixel type; RGBA16 every level, RGBA32F in [0, 1).
template <class Pixel>
Image<Pixel> random_image(int width, int height, std::uint32_t seed) {
  if constexpr (std::is_same_v<Pixel, Rgba8>) {
    return make_random_rgba8(width, height, seed);
  } else if constexpr (std::is_same_v<Pixel, Rgba16> || std::is_same_v<Pixel, Rgba32f>) {
    Image<Pixel> image(width, height);
    std::uint32_t state = seed * 2654435761u + 1u;
    auto next = [&] {
      state = state * 1664525u + 1013904223u;
      return state;
    };
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x) {
        Pixel& p = image.at(x, y);
        for (auto* channel : {&p.r, &p.g, &p.b, &p.a}) {
          if constexpr (std::is_same_v<Pixel, Rgba16>)
            *channel = static_cast<std::uint16_t>(next() >> 16);
          else
            *channel = static_cast<float>(next() >> 8) / 16777216.0f;
        }
      }
    return image;
  } else {
    return make_random_f32(width, height, seed);
  }
}

// "" when identical (bit for bit for F32, so -0 against +0 counts too), else the first difference.
template <class Pixel>
std::string first_difference(const Image<Pixel>& a, const Image<Pixel>& b) {
  if (a.width() != b.width() || a.height() != b.height())
    return "sizes differ: " + std::to_string(a.width()) + "×" + std::to_string(a.height()) + " vs " +
           std::to_string(b.width()) + "×" + std::to_string(b.height());
  for (int y = 0; y < a.height(); ++y)
    for (int x = 0; x < a.width(); ++x) {
      if (std::memcmp(&a.at(x, y), &b.at(x, y), sizeof(Pixel)) == 0) continue;
      std::string text = "pixel (" + std::to_string(x) + ", " + std::to_string(y) + "):";
      for (int c = 0; c < channel_count(Image<Pixel>::format()); ++c)
        text += " " + std::to_string(channel_value(a.view(), x, y, c)) + " vs " +
                std::to_string(channel_value(b.view(), x, y, c));
      return text;
    }
  return "";
}

template <class Pixel>
Image<Pixel> crop(const Image<Pixel>& image, const Rect& r) {
  Image<Pixel> out(r.width, r.height);
  for (int y = 0; y < r.height; ++y)
    for (int x = 0; x < r.width; ++x) out.at(x, y) = image.at(r.x + x, r.y + y);
  return out;
}

// The test photos, loaded once: NASA's astronaut (RGBA8) and the Hubble deep field's luminance
// (point sources on a dark sky: the shape of the blur itself).
const ImageRgba8& astronaut();
const ImageF32& hubble_grey();

}  // namespace gausslab::test
