#pragma once
// The separable Gaussian as a plain per-pixel loop: what every separable kernel computes, written
// directly. Per output and channel, fmaf over the 2r + 1 taps of gaussian_weights_f32 in ascending
// order, border_index for every sample; rows first into a float intermediate, then columns; RGBA8
// and RGBA16 rounded with to_unorm8 and to_unorm16. The separable methods' CPU models must equal it bit for bit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "gausslab/core/border.hpp"
#include "gausslab/core/filter_params.hpp"
#include "gausslab/core/gaussian_weights.hpp"
#include "gausslab/core/image.hpp"
#include "kit/checked_shared.hpp"
#include "kit/model_accuracy.hpp"
#include "kit/model_images.hpp"

namespace gausslab::test {

template <class Pixel>
Image<Pixel> plain_separable(const Image<Pixel>& src, const FilterParams& params) {
  const int width = src.width(), height = src.height();
  const int channels = channel_count(Image<Pixel>::format());
  const int radius = params.radius();
  const std::vector<float> w = gaussian_weights_f32(params.sigma, radius);
  const ConstImageView view = src.view();
  std::vector<float> rows(static_cast<std::size_t>(width) * height * channels);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      for (int c = 0; c < channels; ++c) {
        float acc = 0.0f;
        for (int t = 0; t <= 2 * radius; ++t) {
          const int s = border_index(x + t - radius, width, params.border);
          const float v = s < 0 ? 0.0f : static_cast<float>(channel_value(view, s, y, c));
          acc = std::fmaf(w[static_cast<std::size_t>(t)], v, acc);
        }
        rows[(static_cast<std::size_t>(y) * width + x) * channels + c] = acc;
      }
  Image<Pixel> out(width, height);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      float result[4] = {0, 0, 0, 0};
      for (int c = 0; c < channels; ++c) {
        float acc = 0.0f;
        for (int t = 0; t <= 2 * radius; ++t) {
          const int s = border_index(y + t - radius, height, params.border);
          const float v = s < 0 ? 0.0f : rows[(static_cast<std::size_t>(s) * width + x) * channels + c];
          acc = std::fmaf(w[static_cast<std::size_t>(t)], v, acc);
        }
        result[c] = acc;
      }
      if constexpr (std::is_same_v<Pixel, Rgba8>)
        out.at(x, y) = Rgba8{to_unorm8(result[0]), to_unorm8(result[1]), to_unorm8(result[2]), to_unorm8(result[3])};
      else if constexpr (std::is_same_v<Pixel, Rgba16>)
        out.at(x, y) =
            Rgba16{to_unorm16(result[0]), to_unorm16(result[1]), to_unorm16(result[2]), to_unorm16(result[3])};
      else if constexpr (std::is_same_v<Pixel, Rgba32f>)
        out.at(x, y) = Rgba32f{result[0], result[1], result[2], result[3]};
      else
        out.at(x, y) = result[0];
    }
  return out;
}

// A model of a method on the CPU, by name: model(image, params) returns the method's result.
template <class Pixel>
using NamedModel = std::pair<std::string, std::function<Image<Pixel>(const Image<Pixel>&, const FilterParams&)>>;

// Each model against the plain loop, bit for bit, on a random width × height image, for every radius
// of `radii` in every border mode; a ModelError (a race, a missing fill, a read outside the image)
// fails the test with its message. Returns the number of cases (radius × border) run.
template <class Pixel>
int expect_models_match_plain_loop(int width, int height, const std::vector<int>& radii,
                                   const std::vector<NamedModel<Pixel>>& models) {
  constexpr PixelFormat format = Image<Pixel>::format();
  int cases = 0;
  const Image<Pixel> src = random_image<Pixel>(width, height, static_cast<std::uint32_t>(width * 131 + height));
  for (const int radius : radii)
    for (const BorderMode border : kAllBorderModes) {
      const FilterParams params = radius_params(radius, border);
      const Image<Pixel> expected = plain_separable(src, params);
      for (const auto& [name, model] : models) {
        try {
          EXPECT_EQ(first_difference(model(src, params), expected), "")
              << name << " model, " << describe_case(format, width, height, params);
        } catch (const ModelError& e) {
          ADD_FAILURE() << name << " model, " << describe_case(format, width, height, params) << ": " << e.what();
        }
      }
      ++cases;
    }
  return cases;
}

}  // namespace gausslab::test
