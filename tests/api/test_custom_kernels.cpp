// Custom kernels through the public C++ interface (Kernel::weights, pair, matrix_2d; convolved,
// normalized; Rounding): host images against core's float64 reference on every border, the issue's
// 1D example, floor and ceil against integer sums computed here, refusals, and the choice's reason.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gausslab/gausslab.hpp"
#include "reference_bridge.hpp"
#include "test_image.hpp"

namespace {

using api_test::have_gpu;
using api_test::TestImage;
using gausslab::Border;
using gausslab::Kernel;
using gausslab::PixelType;
using gausslab::SampleType;

constexpr Border kBorders[] = {Border::Reflect, Border::Mirror, Border::Nearest, Border::Constant, Border::Wrap};

// The largest error against the float64 reference: levels for integer types, else relative to the
// sum of |weights| (the scale of every sum; inputs lie in [0, 1]).
double error_of(const TestImage& src, const TestImage& result, const gausslab::FilterOptions& o) {
  const Kernel& k = o.kernel;
  const std::vector<double> ref = api_test::reference_custom(
      src.bytes.data(), src.width, src.height, static_cast<int>(src.pixel.sample), src.pixel.channels,
      static_cast<int>(k.kind), k.x, k.y, k.matrix_width, k.matrix_height, k.matrix, k.convolve, k.normalize,
      static_cast<int>(o.border), o.axes == gausslab::Axes::RowsOnly);
  double error = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) error = std::max(error, std::abs(result.sample(i) - ref[i]));
  if (src.pixel.sample == SampleType::U8 || src.pixel.sample == SampleType::U16) return error;
  double scale = 0;
  for (const std::vector<double>* w : {&k.x, &k.y, &k.matrix})
    for (double v : *w) scale += std::abs(v);
  return error / scale;
}

const std::vector<double> kAsymmetric = {0.5, -1.25, 3.0, 0.75, -0.125};
const std::vector<double> kMatrix5x3 = {1.0, -2.0, 0.5, 0.25, 4.0, -1.0, 2.0, 0.0, 1.5, -0.5, 1.0, 3.0, 0.125, 0.0, -2.0};

TEST(PublicCustomKernel, WeightsPairsAndMatricesMatchTheFloat64ReferenceOnEveryBorder) {
  const Kernel float_kernels[] = {Kernel::weights(kAsymmetric), Kernel::weights(kAsymmetric).convolved(),
                                  Kernel::pair({-1, 0, 1}, {1, 2, 1}), Kernel::matrix_2d(3, 5, kMatrix5x3),
                                  Kernel::matrix_2d(3, 5, kMatrix5x3).convolved().normalized()};
  // 8-bit: weights >= 0 (negative sums saturate at 0 where the reference goes below).
  const Kernel byte_kernels[] = {Kernel::pair({1, 2, 1}, {1, 4, 6, 4, 1}).normalized(),
                                 Kernel::matrix_2d(3, 3, {1, 2, 0, 3, 5, 1, 0, 2, 4}).normalized().convolved()};
  for (const Border border : kBorders) {
    const TestImage grey(37, 23, PixelType::grey_f32(), 3), rgba(29, 17, PixelType::rgba8(), 4);
    for (const Kernel& kernel : float_kernels) {
      gausslab::FilterOptions options{kernel, border};
      gausslab::Filter filter(options);
      TestImage dst = TestImage::blank_like(grey);
      filter.run_host(grey.cref(), dst.ref());
      EXPECT_LE(error_of(grey, dst, options), 1e-5) << gausslab::to_string(border) << " " << static_cast<int>(kernel.kind);
    }
    for (const Kernel& kernel : byte_kernels) {
      gausslab::FilterOptions options{kernel, border};
      gausslab::Filter filter(options);
      TestImage dst = TestImage::blank_like(rgba);
      filter.run_host(rgba.cref(), dst.ref());
      EXPECT_LE(error_of(rgba, dst, options), 0.51) << gausslab::to_string(border) << " " << static_cast<int>(kernel.kind);
    }
  }
  EXPECT_EQ(Kernel::matrix_2d(3, 5, kMatrix5x3).effective_radius(), 2);
  EXPECT_EQ(Kernel::pair({1}, {1, 2, 3, 4, 5, 6, 7}).effective_radius(), 3);
}

TEST(PublicCustomKernel, TheIssuesOneDimensionalMaskGives23332) {
  TestImage ones(5, 1, PixelType::grey_f32(), 1);
  for (int i = 0; i < 5; ++i) reinterpret_cast<float*>(ones.bytes.data())[i] = 1.0f;
  gausslab::FilterOptions options{Kernel::weights({1, 1, 1}), Border::Constant};
  options.axes = gausslab::Axes::RowsOnly;
  TestImage out = TestImage::blank_like(ones);
  gausslab::Filter(options).run_host(ones.cref(), out.ref());
  const float* v = reinterpret_cast<const float*>(out.bytes.data());
  EXPECT_EQ(std::vector<float>(v, v + 5), (std::vector<float>{2, 3, 3, 3, 2}));
}

TEST(PublicCustomKernel, FloorAndCeilAreTheIntegerSumsDividedExactly) {
  // A 3×3 box of ones, normalised, zero border: out = floor (ceil) of the integer sum / 9, exactly.
  const TestImage src(23, 14, {SampleType::U8, 1}, 9);
  for (const gausslab::Rounding rounding : {gausslab::Rounding::Floor, gausslab::Rounding::Ceil}) {
    gausslab::FilterOptions options{Kernel::matrix_2d(3, 3, std::vector<double>(9, 1.0)).normalized(), Border::Constant};
    options.rounding = rounding;
    gausslab::Filter filter(options);
    TestImage dst = TestImage::blank_like(src);
    filter.run_host(src.cref(), dst.ref());
    int mismatches = 0;
    for (int y = 0; y < src.height; ++y)
      for (int x = 0; x < src.width; ++x) {
        int sum = 0;
        for (int j = -1; j <= 1; ++j)
          for (int i = -1; i <= 1; ++i)
            if (y + j >= 0 && y + j < src.height && x + i >= 0 && x + i < src.width)
              sum += src.bytes[static_cast<std::size_t>(y + j) * src.width + x + i];
        const int expected = rounding == gausslab::Rounding::Floor ? sum / 9 : (sum + 8) / 9;
        mismatches += dst.bytes[static_cast<std::size_t>(y) * src.width + x] != expected;
      }
    EXPECT_EQ(mismatches, 0) << (rounding == gausslab::Rounding::Floor ? "floor" : "ceil") << " by "
                             << filter.last_choice().method;
    EXPECT_DOUBLE_EQ(filter.last_choice().bound_levels, 1.01);
  }
}

TEST(PublicCustomKernel, WhatCannotRunIsRefusedWithTheReason) {
  auto message_of = [](const gausslab::FilterOptions& options) -> std::string {
    try {
      gausslab::Filter filter(options);
    } catch (const gausslab::InvalidArgument& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_NE(message_of({Kernel::weights({1, 2, 3, 4})}).find("even"), std::string::npos);
  EXPECT_NE(message_of({Kernel::weights({})}).find("empty"), std::string::npos);
  EXPECT_NE(message_of({Kernel::weights({1, std::nan(""), 1})}).find("NaN"), std::string::npos);
  EXPECT_NE(message_of({Kernel::matrix_2d(3, 3, {1, 2, 3})}).find("holds 3 weights"), std::string::npos);
  EXPECT_NE(message_of({Kernel::weights({1, -2, 1}).normalized()}).find("sum"), std::string::npos);
  gausslab::FilterOptions matrix_along_rows{Kernel::matrix_2d(3, 3, std::vector<double>(9, 1.0))};
  matrix_along_rows.axes = gausslab::Axes::RowsOnly;
  EXPECT_NE(message_of(matrix_along_rows), "no error");
}

TEST(PublicCustomKernel, TheChoiceSaysWhenTheGpuMethodsRefusedItAndTheCpuRan) {
  const TestImage src(33, 21, PixelType::rgba8(), 5);
  TestImage dst = TestImage::blank_like(src);
  gausslab::Filter filter(gausslab::FilterOptions{Kernel::matrix_2d(3, 5, kMatrix5x3)});
  filter.run_host(src.cref(), dst.ref());
  const gausslab::Choice& choice = filter.last_choice();
  if (!have_gpu()) {
    EXPECT_FALSE(choice.gpu);
    EXPECT_NE(choice.why.find("no CUDA device"), std::string::npos) << choice.why;
  } else if (!choice.gpu) {  // a GPU is here and none of its methods took the kernel: which refused it, and why
    EXPECT_NE(choice.why.find("no GPU method takes it ("), std::string::npos) << choice.why;
    EXPECT_NE(choice.why.find("the CPU ran it"), std::string::npos) << choice.why;
  }
}

TEST(PublicCustomKernel, MethodsSayWhichKernelsAndRoundingsTheyTake) {
  for (const gausslab::MethodDescription& m : gausslab::methods()) {
    EXPECT_TRUE(m.kernels == "gaussian only" || m.kernels == "separable" || m.kernels == "any 2D") << m.id << m.kernels;
    if (!m.gpu) {
      EXPECT_EQ(m.kernels, "any 2D") << m.id;
      EXPECT_TRUE(m.all_roundings) << m.id;
    }
  }
}

}  // namespace
