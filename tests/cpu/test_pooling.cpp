// 2×2 pooling: the CPU reference against a direct formula written here (max and a mean rounded half
// up, in double), at odd and even sizes from 2×2, both formats, plus the rounding and NaN rules the
// header promises and the refusals.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "gausslab/core/host_image.hpp"
#include "gausslab/core/pooling.hpp"

namespace gausslab {
namespace {

std::uint8_t channel(const Rgba8& p, int c) { return c == 0 ? p.r : c == 1 ? p.g : c == 2 ? p.b : p.a; }

// The four source values of output (x, y), channel c, as doubles.
template <class Pixel>
std::vector<double> block_values(const Image<Pixel>& src, int x, int y, int c) {
  std::vector<double> values;
  for (int dy = 0; dy < 2; ++dy)
    for (int dx = 0; dx < 2; ++dx) {
      const Pixel& p = src.at(2 * x + dx, 2 * y + dy);
      if constexpr (std::is_same_v<Pixel, Rgba8>)
        values.push_back(channel(p, c));
      else
        values.push_back(p);
    }
  return values;
}

double direct(const std::vector<double>& v, PoolMode mode) {
  if (mode == PoolMode::Max2x2) return *std::max_element(v.begin(), v.end());
  return (v[0] + v[1] + v[2] + v[3]) / 4.0;
}

const int kSizes[][2] = {{2, 2}, {3, 3}, {5, 2}, {2, 7}, {7, 9}, {31, 17}, {64, 33}, {101, 3}};

TEST(Pooling, Rgba8EqualsTheDirectMaxAndTheMeanRoundedHalfUpAtOddSizes) {
  for (const auto& size : kSizes)
    for (PoolMode mode : {PoolMode::Max2x2, PoolMode::Avg2x2}) {
      const ImageRgba8 src = make_random_rgba8(size[0], size[1], 7u + static_cast<unsigned>(size[0]));
      const ImageRgba8 pooled = pool_2x2(src, mode);
      ASSERT_EQ(pooled.width(), size[0] / 2);
      ASSERT_EQ(pooled.height(), size[1] / 2);
      for (int y = 0; y < pooled.height(); ++y)
        for (int x = 0; x < pooled.width(); ++x)
          for (int c = 0; c < 4; ++c) {
            const double expected = std::floor(direct(block_values(src, x, y, c), mode) + 0.5);
            ASSERT_EQ(channel(pooled.at(x, y), c), expected)
                << to_string(mode) << " " << size[0] << "×" << size[1] << " at " << x << "," << y << " c" << c;
          }
    }
}

TEST(Pooling, F32EqualsTheDirectMaxExactlyAndTheMeanWithinOneRounding) {
  for (const auto& size : kSizes)
    for (PoolMode mode : {PoolMode::Max2x2, PoolMode::Avg2x2}) {
      const ImageF32 src = make_random_f32(size[0], size[1], 11u + static_cast<unsigned>(size[1]));
      const ImageF32 pooled = pool_2x2(src, mode);
      ASSERT_EQ(pooled.width(), size[0] / 2);
      ASSERT_EQ(pooled.height(), size[1] / 2);
      for (int y = 0; y < pooled.height(); ++y)
        for (int x = 0; x < pooled.width(); ++x) {
          const double expected = direct(block_values(src, x, y, 0), mode);
          if (mode == PoolMode::Max2x2)
            ASSERT_EQ(pooled.at(x, y), expected);
          else
            ASSERT_NEAR(pooled.at(x, y), expected, 2.0 * std::numeric_limits<float>::epsilon() * expected);
        }
    }
}

TEST(Pooling, TheLastRowAndColumnOfAnOddSideAreDropped) {
  // 3×3 with large values only in the last row and column: the 1×1 result never sees them.
  ImageF32 src(3, 3, 1.0f);
  for (int i = 0; i < 3; ++i) src.at(2, i) = src.at(i, 2) = 100.0f;
  EXPECT_EQ(pool_2x2(src, PoolMode::Max2x2).at(0, 0), 1.0f);
  EXPECT_EQ(pool_2x2(src, PoolMode::Avg2x2).at(0, 0), 1.0f);
}

TEST(Pooling, AverageRoundingIsHalfUpAndStaysInRange) {
  auto avg = [](int a, int b, int c, int d) {
    return static_cast<int>(pool_channel(static_cast<std::uint8_t>(a), static_cast<std::uint8_t>(b),
                                         static_cast<std::uint8_t>(c), static_cast<std::uint8_t>(d), PoolMode::Avg2x2));
  };
  EXPECT_EQ(avg(0, 0, 0, 1), 0);      // 0.25
  EXPECT_EQ(avg(0, 0, 1, 1), 1);      // 0.5 rounds up
  EXPECT_EQ(avg(1, 1, 1, 2), 1);      // 1.25
  EXPECT_EQ(avg(1, 2, 2, 1), 2);      // 1.5 rounds up
  EXPECT_EQ(avg(1, 2, 2, 2), 2);      // 1.75
  EXPECT_EQ(avg(255, 255, 255, 255), 255);
  EXPECT_EQ(avg(255, 255, 255, 254), 255);  // 254.75
}

TEST(Pooling, F32MaxPropagatesNaNAsPyTorchDoes) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (int i = 0; i < 4; ++i) {
    float v[4] = {1, 2, 3, 4};
    v[i] = nan;
    EXPECT_TRUE(std::isnan(pool_channel(v[0], v[1], v[2], v[3], PoolMode::Max2x2))) << i;
  }
  EXPECT_EQ(pool_channel(-1.0f, -2.0f, -3.0f, -0.5f, PoolMode::Max2x2), -0.5f);
}

TEST(Pooling, ModesHaveNamesAndBadInputIsRefused) {
  for (PoolMode mode : {PoolMode::None, PoolMode::Max2x2, PoolMode::Avg2x2})
    EXPECT_EQ(pool_mode_from_string(to_string(mode)), mode);
  EXPECT_FALSE(pool_mode_from_string("max"));
  EXPECT_NE(pool_problem(1, 5).find("1×5 image cannot be pooled"), std::string::npos);
  EXPECT_TRUE(pool_problem(2, 2).empty());
  const ImageRgba8 thin(1, 4);
  EXPECT_THROW(pool_2x2(thin, PoolMode::Max2x2), std::invalid_argument);
  const ImageRgba8 square(4, 4);
  EXPECT_THROW(pool_2x2(square, PoolMode::None), std::invalid_argument);
  ImageRgba8 wrong(3, 2);
  EXPECT_THROW(pool_2x2(square.view(), wrong.view(), PoolMode::Max2x2), std::invalid_argument);
}

// The other formats (16-bit, half, 8-bit with fewer channels) by the same rules, in their own type:
// an integer mean rounded half up, a maximum exactly one of the four, half rounded to nearest.
TEST(Pooling, EveryOtherFormatPoolsInItsOwnTypeByTheSameRules) {
  for (PixelFormat format : {PixelFormat::Grey16, PixelFormat::Rgb16, PixelFormat::GreyAlpha8, PixelFormat::Rgb16F,
                             PixelFormat::Rgba32F}) {
    HostImage src(7, 5, format);
    const SampleType sample = sample_type(format);
    const float top = is_integer(sample) ? static_cast<float>(nominal_max(sample)) : 3.0f;
    std::uint32_t state = 12345u;
    for (int y = 0; y < 5; ++y)
      for (int x = 0; x < 7; ++x)
        for (int c = 0; c < src.channels(); ++c) {
          state = state * 1664525u + 1013904223u;
          src.set_sample(x, y, c, top * static_cast<float>(state >> 8) / 16777216.0f);
        }
    for (PoolMode mode : {PoolMode::Max2x2, PoolMode::Avg2x2}) {
      HostImage dst(3, 2, format);
      pool_2x2(src.view(), dst.view(), mode);
      for (int y = 0; y < 2; ++y)
        for (int x = 0; x < 3; ++x)
          for (int c = 0; c < src.channels(); ++c) {
            const std::vector<double> v = {src.sample(2 * x, 2 * y, c), src.sample(2 * x + 1, 2 * y, c),
                                           src.sample(2 * x, 2 * y + 1, c), src.sample(2 * x + 1, 2 * y + 1, c)};
            double want = direct(v, mode);
            if (is_integer(sample)) want = std::floor(want + 0.5);
            if (sample == SampleType::F32 && mode == PoolMode::Avg2x2)  // the F32 rule, in float32
              want = ((static_cast<float>(v[0]) + static_cast<float>(v[1])) +
                      (static_cast<float>(v[2]) + static_cast<float>(v[3]))) * 0.25f;
            const double tolerance = sample == SampleType::F16 && mode == PoolMode::Avg2x2 ? std::fabs(want) * 1e-3 : 0.0;
            EXPECT_NEAR(dst.sample(x, y, c), want, tolerance) << to_string(format) << " " << to_string(mode);
          }
    }
  }
}

}  // namespace
}  // namespace gausslab
