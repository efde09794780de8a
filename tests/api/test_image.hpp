#pragma once
// Test images of every pixel type for the api tests (through the public header only), and whether a
// GPU is here.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "gausslab/gausslab.hpp"

namespace api_test {

using gausslab::PixelType;
using gausslab::SampleType;

// Exact for the values used here (multiples of 1/1024 in [0, 1], zero): sign, exponent, top mantissa bits.
inline std::uint16_t half_of(float value) {
  if (value == 0.0f) return 0;
  std::uint32_t bits;
  std::memcpy(&bits, &value, 4);
  const int exponent = static_cast<int>((bits >> 23) & 0xFF) - 127 + 15;
  return static_cast<std::uint16_t>(((bits >> 16) & 0x8000) | (exponent << 10) | ((bits >> 13) & 0x3FF));
}

inline float float_of_half(std::uint16_t h) {
  const int exponent = (h >> 10) & 0x1F, mantissa = h & 0x3FF;
  const float magnitude = exponent == 0 ? std::ldexp(static_cast<float>(mantissa), -24)
                                        : std::ldexp(1.0f + mantissa / 1024.0f, exponent - 15);
  return (h & 0x8000) ? -magnitude : magnitude;
}

// A tightly packed random image of any pixel type.
struct TestImage {
  int width = 0, height = 0;
  PixelType pixel;
  std::vector<unsigned char> bytes;

  TestImage(int w, int h, PixelType p, std::uint32_t seed) : width(w), height(h), pixel(p), bytes(p.bytes() * w * h) {
    std::mt19937 random(seed);
    const std::size_t samples = static_cast<std::size_t>(w) * h * p.channels;
    for (std::size_t i = 0; i < samples; ++i) {
      const std::uint32_t r = random();
      switch (p.sample) {
        case SampleType::U8: bytes[i] = static_cast<unsigned char>(r); break;
        case SampleType::U16: reinterpret_cast<std::uint16_t*>(bytes.data())[i] = static_cast<std::uint16_t>(r); break;
        case SampleType::F16: reinterpret_cast<std::uint16_t*>(bytes.data())[i] = half_of((r % 1025) / 1024.0f); break;
        case SampleType::F32: reinterpret_cast<float*>(bytes.data())[i] = (r % 100000) / 100000.0f; break;
      }
    }
  }
  // A zeroed image of the same shape (for results).
  static TestImage blank_like(const TestImage& like) {
    TestImage blank = like;
    std::fill(blank.bytes.begin(), blank.bytes.end(), 0);
    return blank;
  }

  std::size_t pitch() const { return pixel.bytes() * width; }
  gausslab::ImageRef ref() { return {bytes.data(), pitch(), width, height, pixel}; }
  gausslab::ConstImageRef cref() const { return {bytes.data(), pitch(), width, height, pixel}; }
  double sample(std::size_t i) const {
    switch (pixel.sample) {
      case SampleType::U8: return bytes[i];
      case SampleType::U16: return reinterpret_cast<const std::uint16_t*>(bytes.data())[i];
      case SampleType::F16: return float_of_half(reinterpret_cast<const std::uint16_t*>(bytes.data())[i]);
      case SampleType::F32: return reinterpret_cast<const float*>(bytes.data())[i];
    }
    return 0;
  }
};

inline bool have_gpu() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

}  // namespace api_test
