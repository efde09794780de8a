// The CPU filters (one thread and OpenMP) against the float64 reference, at awkward sizes, every
// border and sigmas up to radii far beyond the image side.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>

#include "gausslab/core/accuracy.hpp"
#include "gausslab/core/cpu_filter.hpp"
#include "gausslab/core/host_image.hpp"
#include "gausslab/core/reference.hpp"

namespace gausslab {
namespace {

// The CPU filters' promise: float32 rounding only (cuda/methods/cpu_methods.cpp states the same).
constexpr double kMaxRelativeErrorF32 = 1e-5;
constexpr double kMaxError8bit = 0.51;  // against the unrounded reference: rounding plus float noise
constexpr double kMaxError16bit = 0.51;  // the same at 16 bits (float64 sums: cpu_filter.cpp)
// What 16-bit images' float64 sums and float32 row image add to the rounding's half level: half an
// ulp of 65535 in float32, 2^-9 levels, and float64's 1e-9 (float32 sums added up to 0.044 levels).
constexpr double kMargin16bit = 1.0 / 512.0 + 1e-6;

struct CpuCase {
  int width, height;
  PixelFormat format;
};

std::string case_name(const CpuCase& c) {
  return std::string(to_string(c.format)) + "_" + std::to_string(c.width) + "x" + std::to_string(c.height);
}

// gtest prints a failing test's parameter (and CTest lists it) with this.
void PrintTo(const CpuCase& c, std::ostream* out) { *out << case_name(c); }

class CpuFilterAccuracy : public ::testing::TestWithParam<CpuCase> {};

TEST_P(CpuFilterAccuracy, SingleAndOpenMpMatchTheReferenceAndEachOther) {
  const CpuCase c = GetParam();
  const std::uint32_t seed = static_cast<std::uint32_t>(c.width * 131 + c.height);
  const ImageF32 f32 = make_random_f32(c.width, c.height, seed);
  const ImageRgba8 rgba8 = make_random_rgba8(c.width, c.height, seed);
  const ConstImageView src = c.format == PixelFormat::F32 ? ConstImageView(f32.view()) : ConstImageView(rgba8.view());

  ImageF32 single_f32(c.width, c.height), openmp_f32(c.width, c.height);
  ImageRgba8 single_rgba8(c.width, c.height), openmp_rgba8(c.width, c.height);
  const bool is_f32 = c.format == PixelFormat::F32;
  const ImageView single = is_f32 ? single_f32.view() : single_rgba8.view();
  const ImageView openmp = is_f32 ? openmp_f32.view() : openmp_rgba8.view();
  const std::size_t bytes = static_cast<std::size_t>(c.width) * c.height * bytes_per_pixel(c.format);

  // 0.1: radius 0 (a copy); 0.3 and 0.5: under-sampled; 33 and 200: radius 132 and 800, beyond every side.
  for (const double sigma : {0.1, 0.3, 0.5, 1.0, 2.5, 8.0, 33.0, 200.0})
    for (const BorderMode border : kAllBorderModes) {
      FilterParams params;
      params.sigma = sigma;
      params.border = border;
      const std::string where = case_name(c) + ", " + describe(params);
      const std::vector<double> reference = reference_gaussian(src, params);

      cpu_gaussian_filter(src, single, params, CpuThreading::Single);
      cpu_gaussian_filter(src, openmp, params, CpuThreading::OpenMP);

      const AccuracyStats stats = compare_with_reference(single, reference, default_peak(c.format));
      ASSERT_EQ(stats.nonfinite, 0u) << where;
      if (is_f32)
        EXPECT_LE(stats.max_relative_error, kMaxRelativeErrorF32) << where << ": " << describe(stats);
      else
        EXPECT_LE(stats.max_abs_error, kMaxError8bit) << where << ": " << describe(stats);
      EXPECT_EQ(std::memcmp(single.data, openmp.data, bytes), 0)
          << where << ": the OpenMP result differs from the single-thread one";
    }
}

INSTANTIATE_TEST_SUITE_P(Sizes, CpuFilterAccuracy,
                         ::testing::Values(CpuCase{1, 1, PixelFormat::F32}, CpuCase{1, 1, PixelFormat::Rgba8},
                                           CpuCase{1, 29, PixelFormat::F32}, CpuCase{1, 29, PixelFormat::Rgba8},
                                           CpuCase{29, 1, PixelFormat::F32}, CpuCase{29, 1, PixelFormat::Rgba8},
                                           CpuCase{7, 5, PixelFormat::F32}, CpuCase{7, 5, PixelFormat::Rgba8},
                                           CpuCase{13, 17, PixelFormat::F32}, CpuCase{13, 17, PixelFormat::Rgba8},
                                           CpuCase{101, 67, PixelFormat::F32}, CpuCase{101, 67, PixelFormat::Rgba8}),
                         [](const auto& info) { return case_name(info.param); });

// 16-bit images: random levels up to 65535 and a constant 65535 image, every border, sigma 0.6 to
// 20 at odd sizes, grey to RGBA, both threadings, within 0.51 levels of the float64 reference (with
// float32 sums these reached 0.519: the 0.5 of the rounding plus a few ulps of 65535).
TEST(CpuFilter, SixteenBitOutputsAreWithinHalfALevelOfTheReference) {
  struct Case {
    PixelFormat format;
    int width, height;
  };
  std::mt19937 rng(16);
  std::uniform_int_distribution<int> level(0, 65535);
  double worst = 0.0;
  std::string worst_where;
  for (const Case c : {Case{PixelFormat::Grey16, 37, 23}, Case{PixelFormat::Rgb16, 23, 31},
                       Case{PixelFormat::Rgba16, 19, 17}})
    for (const bool constant : {false, true}) {
      HostImage src(c.width, c.height, c.format);
      std::uint16_t* samples = src.row<std::uint16_t>(0);
      const std::size_t count = src.pixel_count() * src.channels();
      for (std::size_t i = 0; i < count; ++i) samples[i] = static_cast<std::uint16_t>(constant ? 65535 : level(rng));
      for (const double sigma : {0.6, 1.3, 3.0, 5.0, 8.0, 20.0})
        for (const BorderMode border : kAllBorderModes) {
          FilterParams params;
          params.sigma = sigma;
          params.border = border;
          const std::string where = std::string(to_string(c.format)) + (constant ? " constant 65535, " : " random, ") +
                                    describe(params);
          const std::vector<double> reference = reference_gaussian(src.view(), params);
          HostImage single(c.width, c.height, c.format), openmp(c.width, c.height, c.format);
          cpu_gaussian_filter(src.view(), single.view(), params, CpuThreading::Single);
          cpu_gaussian_filter(src.view(), openmp.view(), params, CpuThreading::OpenMP);
          const AccuracyStats stats = compare_with_reference(single.view(), reference, default_peak(c.format));
          EXPECT_LE(stats.max_abs_error, kMaxError16bit) << where << ": " << describe(stats);
          EXPECT_LE(stats.max_abs_error, 0.5 + kMargin16bit) << where << ": " << describe(stats);
          EXPECT_EQ(std::memcmp(single.row<std::uint16_t>(0), openmp.row<std::uint16_t>(0), count * 2), 0) << where;
          if (constant && border != BorderMode::Constant) {  // every border but zeros keeps a flat image flat
            const std::uint16_t* out = single.row<std::uint16_t>(0);
            EXPECT_TRUE(std::all_of(out, out + count, [](std::uint16_t v) { return v == 65535; })) << where;
          }
          if (stats.max_abs_error > worst) {
            worst = stats.max_abs_error;
            worst_where = where;
          }
        }
    }
  std::printf("16-bit worst: %.7f levels (%s)\n", worst, worst_where.c_str());
}

// Floor and ceil at 16 bits: below (above) the float64 reference by less than one level; along x
// only (the row pass stored from its float64 sums) and a normalised 2D matrix (the direct pass,
// all in float64) within half a level and float64's error.
TEST(CpuFilter, SixteenBitRoundingsAndTheOtherPassesFollowTheReference) {
  HostImage src(29, 21, PixelFormat::Rgb16);
  std::mt19937 rng(61);
  std::uniform_int_distribution<int> level(0, 65535);
  std::uint16_t* samples = src.row<std::uint16_t>(0);
  const std::size_t count = src.pixel_count() * src.channels();
  for (std::size_t i = 0; i < count; ++i) samples[i] = static_cast<std::uint16_t>(level(rng));
  HostImage out(29, 21, PixelFormat::Rgb16);
  for (const BorderMode border : kAllBorderModes) {
    FilterParams params;
    params.sigma = 4.0;
    params.border = border;
    const std::vector<double> reference = reference_gaussian(src.view(), params);
    for (const IntegerRounding rounding : {IntegerRounding::Floor, IntegerRounding::Ceil}) {
      params.rounding = rounding;
      cpu_gaussian_filter(src.view(), out.view(), params, CpuThreading::OpenMP);
      const std::uint16_t* got = out.row<std::uint16_t>(0);
      for (std::size_t i = 0; i < count; ++i) {
        // floor: how far the level lies below the reference; ceil: above it.
        const double gap = rounding == IntegerRounding::Floor ? reference[i] - got[i] : got[i] - reference[i];
        ASSERT_TRUE(gap > -kMargin16bit && gap < 1.0 + kMargin16bit)
            << describe(params) << ": sample " << i << " is " << got[i] << ", the reference " << reference[i];
      }
    }
    FilterParams along_x = params;
    along_x.rounding = IntegerRounding::Nearest;
    along_x.axes = FilterAxes::RowsOnly;
    cpu_gaussian_filter(src.view(), out.view(), along_x, CpuThreading::Single);
    const AccuracyStats row_stats =
        compare_with_reference(out.view(), reference_gaussian(src.view(), along_x), default_peak(PixelFormat::Rgb16));
    EXPECT_LE(row_stats.max_abs_error, 0.5 + 1e-6) << describe(along_x) << ": " << describe(row_stats);
    FilterParams matrix;
    matrix.border = border;
    matrix.kernel = FilterKernel::matrix_2d(3, 3, {0, 1, 0, 1, 4, 1, 0, 1, 3});  // not rank 1
    matrix.kernel.normalize = true;
    cpu_gaussian_filter(src.view(), out.view(), matrix, CpuThreading::Single);
    const AccuracyStats stats =
        compare_with_reference(out.view(), reference_gaussian(src.view(), matrix), default_peak(PixelFormat::Rgb16));
    EXPECT_LE(stats.max_abs_error, 0.5 + 1e-6) << describe(matrix) << ": " << describe(stats);
  }
}

TEST(CpuFilter, AlongXOnlyMatchesTheReferenceForEveryBorderAndLength) {
  for (const int width : {1, 2, 3, 64, 1001})
    for (const int height : {1, 3})
      for (const double sigma : {0.5, 3.0, 40.0})
        for (const BorderMode border : kAllBorderModes) {
          FilterParams params;
          params.sigma = sigma;
          params.border = border;
          params.axes = FilterAxes::RowsOnly;
          const ImageF32 src = make_random_f32(width, height, static_cast<std::uint32_t>(width + height));
          ImageF32 single(width, height), openmp(width, height);
          cpu_gaussian_filter(src.view(), single.view(), params, CpuThreading::Single);
          cpu_gaussian_filter(src.view(), openmp.view(), params, CpuThreading::OpenMP);
          const AccuracyStats stats = compare_with_reference(single.view(), reference_gaussian(src.view(), params), 1.0);
          const std::string where = std::to_string(width) + "x" + std::to_string(height) + ", " + describe(params);
          EXPECT_LE(stats.max_relative_error, kMaxRelativeErrorF32) << where << ": " << describe(stats);
          EXPECT_EQ(single.pixels(), openmp.pixels()) << where;
        }
}

TEST(CpuFilter, FlatRgba8ImageStaysExactlyFlat) {
  const Rgba8 level{200, 17, 0, 255};
  const ImageRgba8 flat(23, 9, level);
  ImageRgba8 out(23, 9);
  for (const double sigma : {0.7, 3.0, 40.0})
    for (const BorderMode border : {BorderMode::Reflect, BorderMode::Mirror, BorderMode::Nearest, BorderMode::Wrap})
      for (const CpuThreading threading : {CpuThreading::Single, CpuThreading::OpenMP}) {
        FilterParams params;
        params.sigma = sigma;
        params.border = border;
        cpu_gaussian_filter(flat.view(), out.view(), params, threading);
        for (int i = 0; i < 23 * 9; ++i)
          ASSERT_TRUE(out.data()[i] == level) << describe(params) << ": pixel " << i << " changed";
      }
}

TEST(CpuFilter, NonDefaultTruncateAndFixedRadiusAreHonoured) {
  const ImageF32 src = make_random_f32(31, 19, 5);
  ImageF32 out(31, 19);
  for (FilterParams params : {FilterParams{2.0, 2.5, BorderMode::Mirror, -1}, FilterParams{2.0, 4.0, BorderMode::Wrap, 3},
                              FilterParams{1.0, 10.0, BorderMode::Reflect, -1}, FilterParams{5.0, 4.0, BorderMode::Nearest, 0}}) {
    cpu_gaussian_filter(src.view(), out.view(), params, CpuThreading::OpenMP);
    const AccuracyStats stats = compare_with_reference(out.view(), reference_gaussian(src.view(), params), 1.0);
    EXPECT_LE(stats.max_relative_error, kMaxRelativeErrorF32) << describe(params) << ": " << describe(stats);
  }
}

TEST(CpuFilter, RejectsMismatchedOrEmptyViewsAndBadParameters) {
  const ImageF32 src(8, 8, 0.5f);
  ImageF32 wrong_size(8, 7);
  ImageRgba8 wrong_format(8, 8);
  ImageF32 out(8, 8);
  const FilterParams params;
  EXPECT_THROW(cpu_gaussian_filter(src.view(), wrong_size.view(), params, CpuThreading::Single), std::invalid_argument);
  EXPECT_THROW(cpu_gaussian_filter(src.view(), wrong_format.view(), params, CpuThreading::Single), std::invalid_argument);
  EXPECT_THROW(cpu_gaussian_filter(ConstImageView(), out.view(), params, CpuThreading::Single), std::invalid_argument);
  FilterParams bad;
  bad.sigma = -2.0;
  try {
    cpu_gaussian_filter(src.view(), out.view(), bad, CpuThreading::OpenMP);
    FAIL() << "sigma -2 was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("sigma -2"), std::string::npos) << e.what();
  }
}

TEST(CpuFilter, CostGrowsWithRadiusAndThreadsAreReported) {
  FilterProblem small{100, 100, PixelFormat::Rgba8, {}};
  FilterProblem large = small;
  large.params.sigma = 20.0;
  EXPECT_GT(cpu_filter_cost(large), cpu_filter_cost(small));
  // 2 passes * (radius + 1) * pixels * channels
  EXPECT_DOUBLE_EQ(cpu_filter_cost(small), 2.0 * (8 + 1) * 100 * 100 * 4);
  small.params.axes = FilterAxes::RowsOnly;  // one pass
  EXPECT_DOUBLE_EQ(cpu_filter_cost(small), 1.0 * (8 + 1) * 100 * 100 * 4);
  EXPECT_GE(cpu_thread_count(), 1);
}

}  // namespace
}  // namespace gausslab
