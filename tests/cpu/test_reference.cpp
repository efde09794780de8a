// The float64 reference: separable passes equal the full 2D convolution, flat fields stay flat,
// regions equal crops of the full result. (check_reference_vs_scipy.py compares it with SciPy.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "gausslab/core/gaussian_weights.hpp"
#include "gausslab/core/reference.hpp"

namespace gausslab {
namespace {

struct Size {
  int width, height;
};

std::string label(Size size, PixelFormat format, const FilterParams& params) {
  return std::to_string(size.width) + "x" + std::to_string(size.height) + " " + to_string(format) + ", " +
         describe(params);
}

double max_abs(const std::vector<double>& values) {
  double m = 0.0;
  for (double v : values) m = std::max(m, std::abs(v));
  return m;
}

// Largest |a - b| over two equally long arrays.
double max_difference(const std::vector<double>& a, const std::vector<double>& b) {
  EXPECT_EQ(a.size(), b.size());
  double m = 0.0;
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) m = std::max(m, std::abs(a[i] - b[i]));
  return m;
}

TEST(Reference, SeparablePassesEqualTheFull2dConvolution) {
  const Size sizes[] = {{1, 1}, {1, 11}, {11, 1}, {7, 5}, {13, 9}, {23, 17}};
  const double sigmas[] = {0.1, 0.5, 1.7, 5.0};  // 5.0: radius 20 exceeds every side here
  std::uint32_t seed = 1;
  for (const Size size : sizes)
    for (const PixelFormat format : {PixelFormat::F32, PixelFormat::Rgba8}) {
      const ImageF32 f32 = make_random_f32(size.width, size.height, seed);
      const ImageRgba8 rgba8 = make_random_rgba8(size.width, size.height, seed);
      ++seed;
      const ConstImageView src = format == PixelFormat::F32 ? f32.view() : rgba8.view();
      for (const double sigma : sigmas)
        for (const BorderMode border : kAllBorderModes) {
          FilterParams params;
          params.sigma = sigma;
          params.border = border;
          const std::vector<double> separable = reference_gaussian(src, params);
          const std::vector<double> full = reference_gaussian_2d(src, params);
          ASSERT_EQ(separable.size(), static_cast<std::size_t>(size.width) * size.height * channel_count(format));
          // float64 rounding of sums of at most 41^2 terms, relative to the signal's scale
          const double scale = std::max(1.0, max_abs(full));
          EXPECT_LE(max_difference(separable, full), 1e-12 * scale) << label(size, format, params);
        }
    }
}

TEST(Reference, ConstantImageStaysConstantExceptWithZeroBorder) {
  const double level = 0.7;
  ImageF32 flat(19, 11, static_cast<float>(level));
  for (const double sigma : {0.5, 2.0, 9.0, 200.0})
    for (const BorderMode border : kAllBorderModes) {
      FilterParams params;
      params.sigma = sigma;
      params.border = border;
      const std::vector<double> result = reference_gaussian(flat.view(), params);
      const double exact = static_cast<float>(level);
      if (border == BorderMode::Constant) {
        // Zeros flow in from outside: every pixel loses mass, the corners most.
        EXPECT_LT(result.front(), exact) << describe(params);
        for (double v : result) EXPECT_LE(v, exact + 1e-15) << describe(params);
      } else {
        for (double v : result) ASSERT_NEAR(v, exact, 1e-14) << describe(params);
      }
    }
}

TEST(Reference, RegionEqualsTheCropOfTheFullResult) {
  const ImageRgba8 rgba8 = make_random_rgba8(37, 29, 7);
  const ImageF32 f32 = make_random_f32(37, 29, 8);
  const Rect regions[] = {{0, 0, 37, 29}, {0, 0, 5, 4}, {32, 25, 5, 4}, {10, 0, 1, 29}, {0, 13, 37, 1}, {17, 11, 6, 7}};
  for (const ConstImageView src : {ConstImageView(rgba8.view()), ConstImageView(f32.view())})
    for (const double sigma : {0.1, 1.0, 4.5, 33.0})
      for (const BorderMode border : kAllBorderModes) {
        FilterParams params;
        params.sigma = sigma;
        params.border = border;
        const std::vector<double> full = reference_gaussian(src, params);
        const int channels = channel_count(src.format);
        const double tolerance = 1e-13 * std::max(1.0, max_abs(full));
        for (const Rect& r : regions) {
          const std::vector<double> region = reference_gaussian_region(src, params, r);
          ASSERT_EQ(region.size(), static_cast<std::size_t>(r.width) * r.height * channels);
          double worst = 0.0;
          for (int y = 0; y < r.height; ++y)
            for (int x = 0; x < r.width; ++x)
              for (int c = 0; c < channels; ++c) {
                const double a = region[(static_cast<std::size_t>(y) * r.width + x) * channels + c];
                const double b = full[(static_cast<std::size_t>(y + r.y) * src.width + x + r.x) * channels + c];
                worst = std::max(worst, std::abs(a - b));
              }
          EXPECT_LE(worst, tolerance) << to_string(src.format) << ", " << describe(params) << ", region at ("
                                      << r.x << ", " << r.y << ") " << r.width << "x" << r.height;
        }
      }
}

TEST(Reference, ImpulseGivesTheOuterProductOfTheWeights) {
  // An impulse in the middle of a large enough image: the response is w[j] * w[i] exactly.
  ImageF32 impulse(21, 21, 0.0f);
  impulse.at(10, 10) = 1.0f;
  FilterParams params;
  params.sigma = 1.5;  // radius 6 fits inside
  const std::vector<double> result = reference_gaussian(impulse.view(), params);
  const double s2 = 2 * 1.5 * 1.5;
  double norm = 0.0;
  for (int k = -6; k <= 6; ++k) norm += std::exp(-k * k / s2);
  for (int y = 0; y < 21; ++y)
    for (int x = 0; x < 21; ++x) {
      const int dx = x - 10, dy = y - 10;
      const double expected =
          (std::abs(dx) <= 6 && std::abs(dy) <= 6) ? std::exp(-(dx * dx + dy * dy) / s2) / (norm * norm) : 0.0;
      EXPECT_NEAR(result[y * 21 + x], expected, 1e-16) << "pixel (" << x << ", " << y << ")";
    }
}

TEST(Reference, AlongXOnlyEachRowIsFilteredOnItsOwnAsGaussianFilter1d) {
  // A direct 1D sum per row and channel, written here, for every border, radii past the width.
  for (const Size size : {Size{1, 1}, Size{2, 1}, Size{17, 1}, Size{9, 4}})
    for (const double sigma : {0.5, 2.0, 7.0})
      for (const BorderMode border : kAllBorderModes) {
        FilterParams params;
        params.sigma = sigma;
        params.border = border;
        params.axes = FilterAxes::RowsOnly;
        const ImageRgba8 src = make_random_rgba8(size.width, size.height, 3u);
        const std::vector<double> weights = gaussian_weights(sigma, params.radius());
        std::vector<double> direct;
        for (int y = 0; y < size.height; ++y)
          for (int x = 0; x < size.width; ++x)
            for (int c = 0; c < 4; ++c) {
              double sum = 0.0;
              for (int k = -params.radius(); k <= params.radius(); ++k) {
                const int sx = border_index(x + k, size.width, border);
                if (sx >= 0) sum += weights[k + params.radius()] * channel_value(src.view(), sx, y, c);
              }
              direct.push_back(sum);
            }
        const std::string where = label(size, PixelFormat::Rgba8, params);
        EXPECT_LE(max_difference(reference_gaussian(src.view(), params), direct), 1e-12) << where;
        EXPECT_LE(max_difference(reference_gaussian_2d(src.view(), params), direct), 1e-12) << where;
      }
}

TEST(Reference, AOneRowImageInTwoDimensionsIsStillBlurredAgainstItsBorderRows) {
  // The reason for FilterAxes: with 'constant' a 1×N image filtered in 2D loses the weight of the
  // zero rows above and below; along x only it keeps its level.
  const ImageF32 row(64, 1, 1.0f);
  FilterParams params;
  params.sigma = 2.0;
  params.border = BorderMode::Constant;
  const double middle_2d = reference_gaussian(row.view(), params)[32];
  params.axes = FilterAxes::RowsOnly;
  const double middle_1d = reference_gaussian(row.view(), params)[32];
  EXPECT_NEAR(middle_1d, 1.0, 1e-12);
  EXPECT_NEAR(middle_2d, gaussian_weights(2.0, 8)[8], 1e-12);  // only the centre row's weight remains
  EXPECT_NE(describe(params).find("along x only"), std::string::npos);
}

TEST(Reference, RejectsBadInput) {
  const ImageF32 image(4, 4, 0.5f);
  FilterParams params;
  params.sigma = std::nan("");
  try {
    reference_gaussian(image.view(), params);
    FAIL() << "a NaN sigma was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("sigma"), std::string::npos) << e.what();
  }
  params.sigma = 1.0;
  EXPECT_THROW(reference_gaussian(ConstImageView(), params), std::invalid_argument);
  EXPECT_THROW(reference_gaussian_region(image.view(), params, Rect{2, 2, 3, 1}), std::invalid_argument);
  EXPECT_THROW(reference_gaussian_region(image.view(), params, Rect{-1, 0, 2, 2}), std::invalid_argument);
  EXPECT_THROW(reference_gaussian_region(image.view(), params, Rect{0, 0, 0, 2}), std::invalid_argument);
}

}  // namespace
}  // namespace gausslab
