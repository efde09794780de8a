// Accuracy statistics on inputs whose answers are known by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "gausslab/core/accuracy.hpp"

namespace gausslab {
namespace {

TEST(Accuracy, KnownF32Errors) {
  ImageF32 result(2, 1);
  result.at(0, 0) = 1.0f;
  result.at(1, 0) = 2.0f;
  const std::vector<double> reference = {1.0, 2.5};
  const AccuracyStats s = compare_with_reference(result.view(), reference, 1.0);
  EXPECT_EQ(s.samples, 2u);
  EXPECT_EQ(s.nonfinite, 0u);
  EXPECT_DOUBLE_EQ(s.max_abs_error, 0.5);
  EXPECT_DOUBLE_EQ(s.max_relative_error, 0.5 / 2.5);
  EXPECT_DOUBLE_EQ(s.rms_error, std::sqrt(0.25 / 2));
  EXPECT_DOUBLE_EQ(s.relative_l2, 0.5 / std::sqrt(1.0 + 6.25));
  EXPECT_DOUBLE_EQ(s.psnr_db, 20 * std::log10(1.0 / std::sqrt(0.125)));
  EXPECT_NE(describe(s).find("0.5"), std::string::npos) << describe(s);
}

TEST(Accuracy, Rgba8ChannelsAreComparedInterleaved) {
  ImageRgba8 result(2, 1);
  result.at(0, 0) = {10, 20, 30, 40};
  result.at(1, 0) = {50, 60, 70, 80};
  // Only the green channel of the second pixel is off, by 3 levels.
  const std::vector<double> reference = {10, 20, 30, 40, 50, 63, 70, 80};
  const AccuracyStats s = compare_with_reference(result.view(), reference, 255.0);
  EXPECT_EQ(s.samples, 8u);
  EXPECT_DOUBLE_EQ(s.max_abs_error, 3.0);
  EXPECT_DOUBLE_EQ(s.max_relative_error, 3.0 / 80.0);
  EXPECT_DOUBLE_EQ(s.rms_error, std::sqrt(9.0 / 8));
  EXPECT_DOUBLE_EQ(s.psnr_db, 20 * std::log10(255.0 / std::sqrt(9.0 / 8)));
}

TEST(Accuracy, IdenticalResultHasInfinitePsnr) {
  const ImageF32 result = make_random_f32(5, 3, 9);
  std::vector<double> reference(result.pixels().begin(), result.pixels().end());
  const AccuracyStats s = compare_with_reference(result.view(), reference, 1.0);
  EXPECT_EQ(s.max_abs_error, 0.0);
  EXPECT_TRUE(std::isinf(s.psnr_db));
  EXPECT_NE(describe(s).find("identical"), std::string::npos) << describe(s);
}

TEST(Accuracy, NonFiniteValuesAreCountedAndFailEverything) {
  ImageF32 result(3, 1, 0.5f);
  result.at(1, 0) = std::numeric_limits<float>::quiet_NaN();
  result.at(2, 0) = std::numeric_limits<float>::infinity();
  const AccuracyStats s = compare_with_reference(result.view(), {0.5, 0.5, 0.5}, 1.0);
  EXPECT_EQ(s.nonfinite, 2u);
  EXPECT_TRUE(std::isinf(s.max_abs_error));
  EXPECT_TRUE(std::isinf(s.max_relative_error));
  EXPECT_FALSE(s.max_relative_error <= 1e-5) << "a NaN result must fail any bound";
  EXPECT_NE(describe(s).find("2 values are NaN"), std::string::npos) << describe(s);
}

TEST(Accuracy, ComparesAViewIntoALargerImage) {
  // A crop view (offset data pointer, the parent's pitch): what the GPU tests compare on big images.
  ImageF32 image = make_random_f32(6, 5, 2);
  const ConstImageView crop(&image.at(2, 1), 3, 2, image.pitch_bytes(), PixelFormat::F32);
  std::vector<double> reference;
  for (int y = 1; y < 3; ++y)
    for (int x = 2; x < 5; ++x) reference.push_back(image.at(x, y));
  EXPECT_EQ(compare_with_reference(crop, reference, 1.0).max_abs_error, 0.0);
  reference[4] += 0.25;  // pixel (3, 2) of the image
  EXPECT_NEAR(compare_with_reference(crop, reference, 1.0).max_abs_error, 0.25, 1e-7);
}

TEST(Accuracy, SizeMismatchIsRejected) {
  const ImageF32 result(2, 2);
  EXPECT_THROW(compare_with_reference(result.view(), {1.0, 2.0, 3.0}, 1.0), std::invalid_argument);
}

TEST(Accuracy, DefaultPeaks) {
  EXPECT_EQ(default_peak(PixelFormat::Rgba8), 255.0);
  EXPECT_EQ(default_peak(PixelFormat::F32), 1.0);
}

}  // namespace
}  // namespace gausslab
