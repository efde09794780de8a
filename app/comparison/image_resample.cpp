#include "comparison/image_resample.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace gausslab {

namespace {

// For each output sample along one axis: the first input index and the normalised weights.
struct Contributions {
  std::vector<int> first;
  std::vector<int> count;
  std::vector<float> weights;  // count[i] weights per output i, packed
  std::vector<std::size_t> offset;
};

Contributions tent_contributions(int in_size, int out_size) {
  Contributions c;
  const double scale = static_cast<double>(in_size) / out_size;  // input pixels per output pixel
  const double support = std::max(1.0, scale);                   // tent half-width in input pixels
  c.first.resize(out_size);
  c.count.resize(out_size);
  c.offset.resize(out_size);
  for (int o = 0; o < out_size; ++o) {
    const double centre = (o + 0.5) * scale - 0.5;  // pixel centres line up
    const int lo = static_cast<int>(std::floor(centre - support)) + 1;
    const int hi = static_cast<int>(std::ceil(centre + support)) - 1;
    c.first[o] = lo;
    c.offset[o] = c.weights.size();
    double total = 0;
    const std::size_t start = c.weights.size();
    for (int i = lo; i <= hi; ++i) {
      const double w = std::max(0.0, 1.0 - std::abs(i - centre) / support);
      c.weights.push_back(static_cast<float>(w));
      total += w;
    }
    if (total <= 0) {  // cannot happen for support >= 1, but never divide by zero
      c.weights.resize(start);
      c.first[o] = static_cast<int>(std::lround(centre));
      c.weights.push_back(1.0f);
      total = 1.0;
    }
    for (std::size_t k = start; k < c.weights.size(); ++k) c.weights[k] = static_cast<float>(c.weights[k] / total);
    c.count[o] = static_cast<int>(c.weights.size() - start);
  }
  return c;
}

}  // namespace

ImageRgba8 resample(const ImageRgba8& source, int width, int height) {
  if (source.empty()) throw std::invalid_argument("resample: the source image is empty");
  if (width < 1 || height < 1) throw std::invalid_argument("resample: the size must be at least 1x1");
  if (width == source.width() && height == source.height()) return source;

  const int in_w = source.width(), in_h = source.height();
  const Contributions across = tent_contributions(in_w, width);
  const Contributions down = tent_contributions(in_h, height);

  // Rows first: in_h rows of `width` float4 pixels.
  std::vector<float> rows(static_cast<std::size_t>(in_h) * width * 4);
  for (int y = 0; y < in_h; ++y) {
    const Rgba8* in = &source.at(0, y);
    float* out = &rows[static_cast<std::size_t>(y) * width * 4];
    for (int x = 0; x < width; ++x) {
      float sum[4] = {0, 0, 0, 0};
      for (int k = 0; k < across.count[x]; ++k) {
        const int i = std::clamp(across.first[x] + k, 0, in_w - 1);
        const float w = across.weights[across.offset[x] + k];
        sum[0] += w * in[i].r;
        sum[1] += w * in[i].g;
        sum[2] += w * in[i].b;
        sum[3] += w * in[i].a;
      }
      for (int c = 0; c < 4; ++c) out[x * 4 + c] = sum[c];
    }
  }
  ImageRgba8 result(width, height);
  for (int y = 0; y < height; ++y) {
    Rgba8* out = &result.at(0, y);
    for (int x = 0; x < width; ++x) {
      float sum[4] = {0, 0, 0, 0};
      for (int k = 0; k < down.count[y]; ++k) {
        const int j = std::clamp(down.first[y] + k, 0, in_h - 1);
        const float w = down.weights[down.offset[y] + k];
        const float* in = &rows[(static_cast<std::size_t>(j) * width + x) * 4];
        for (int c = 0; c < 4; ++c) sum[c] += w * in[c];
      }
      out[x] = {to_unorm8(sum[0]), to_unorm8(sum[1]), to_unorm8(sum[2]), to_unorm8(sum[3])};
    }
  }
  return result;
}

}  // namespace gausslab
