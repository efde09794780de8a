// Parameter validation: every bad value gets a message naming it and the allowed range.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "gausslab/core/filter_params.hpp"

namespace gausslab {
namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

FilterParams with_sigma(double sigma) {
  FilterParams p;
  p.sigma = sigma;
  return p;
}

TEST(ValidateParams, AcceptsTheDefaultsAndTheLimits) {
  EXPECT_EQ(validate(FilterParams{}), "");
  EXPECT_EQ(validate(with_sigma(kMinSigma)), "");
  EXPECT_EQ(validate(with_sigma(kMaxSigma)), "");
  FilterParams p = with_sigma(kMaxSigma);
  p.truncate = kMaxTruncate;  // radius exactly kMaxRadius
  EXPECT_EQ(p.radius(), kMaxRadius);
  EXPECT_EQ(validate(p), "");
  p.truncate = kMinTruncate;
  EXPECT_EQ(validate(p), "");
  for (BorderMode mode : kAllBorderModes) {
    FilterParams q;
    q.border = mode;
    EXPECT_EQ(validate(q), "") << to_string(mode);
  }
}

TEST(ValidateParams, NonFiniteSigmaIsNamed) {
  for (double sigma : {std::nan(""), std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()}) {
    const std::string message = validate(with_sigma(sigma));
    EXPECT_TRUE(contains(message, "sigma")) << message;
    EXPECT_TRUE(contains(message, "finite number")) << message;
    EXPECT_TRUE(contains(message, "0.1")) << message << " (should give the range)";
  }
}

TEST(ValidateParams, SigmaOutOfRangeIsNamedWithTheRange) {
  for (double sigma : {0.0, -1.0, 0.09, 200.5, 1e9}) {
    const std::string message = validate(with_sigma(sigma));
    EXPECT_TRUE(contains(message, "sigma")) << sigma << ": " << message;
    EXPECT_TRUE(contains(message, "[0.1, 200]")) << sigma << ": " << message;
  }
  EXPECT_TRUE(contains(validate(with_sigma(250)), "sigma 250")) << validate(with_sigma(250));
}

TEST(ValidateParams, AValueJustOutsideTheRangeIsPrintedWithAllItsDigits) {
  // %g would print 200.0001 as 200: "sigma 200 is outside [0.1, 200]" contradicts itself.
  EXPECT_TRUE(contains(validate(with_sigma(200.0001)), "sigma 200.0001 is outside")) << validate(with_sigma(200.0001));
  EXPECT_TRUE(contains(validate(with_sigma(0.09999999)), "sigma 0.09999999 is outside"))
      << validate(with_sigma(0.09999999));
  FilterParams p;
  p.truncate = 10.000000001;
  EXPECT_TRUE(contains(validate(p), "truncate 10.000000001 is outside")) << validate(p);
}

TEST(ValidateParams, TruncateIsCheckedUnlessTheRadiusIsFixed) {
  FilterParams p;
  p.truncate = std::nan("");
  EXPECT_TRUE(contains(validate(p), "truncate")) << validate(p);
  EXPECT_TRUE(contains(validate(p), "finite number")) << validate(p);
  p.truncate = 0.25;
  EXPECT_TRUE(contains(validate(p), "truncate 0.25")) << validate(p);
  EXPECT_TRUE(contains(validate(p), "[0.5, 10]")) << validate(p);
  p.truncate = 11;
  EXPECT_TRUE(contains(validate(p), "truncate 11")) << validate(p);
  p.fixed_radius = 5;  // truncate no longer matters
  EXPECT_EQ(validate(p), "");
}

TEST(ValidateParams, RadiusBeyondTheLimitIsNamed) {
  FilterParams p;
  p.fixed_radius = kMaxRadius + 1;
  const std::string message = validate(p);
  EXPECT_TRUE(contains(message, "radius 2001")) << message;
  EXPECT_TRUE(contains(message, "2000")) << message;
  p.fixed_radius = kMaxRadius;
  EXPECT_EQ(validate(p), "");
}

TEST(ValidateParams, UnknownBorderModeIsNamed) {
  FilterParams p;
  p.border = static_cast<BorderMode>(17);
  const std::string message = validate(p);
  EXPECT_TRUE(contains(message, "border")) << message;
  EXPECT_TRUE(contains(message, "reflect, mirror")) << message;
}

TEST(ValidateProblem, SizeAndFormatAreChecked) {
  FilterProblem ok{1, 1, PixelFormat::Rgba8, {}};
  EXPECT_EQ(validate(ok), "");
  for (auto [w, h] : {std::pair{0, 5}, std::pair{5, 0}, std::pair{0, 0}, std::pair{-3, 4}}) {
    const std::string message = validate(FilterProblem{w, h, PixelFormat::F32, {}});
    EXPECT_TRUE(contains(message, "empty")) << w << "x" << h << ": " << message;
    EXPECT_TRUE(contains(message, "1×1")) << w << "x" << h << ": " << message;
  }
  const std::string huge = validate(FilterProblem{32768, 32769, PixelFormat::Rgba8, {}});
  EXPECT_TRUE(contains(huge, "larger than")) << huge;
  EXPECT_EQ(validate(FilterProblem{32768, 32768, PixelFormat::Rgba8, {}}), "") << "exactly 2^30 pixels is allowed";
  // A long thin image is within the pixel limit but its side would overflow border_index's period.
  const std::string long_side = validate(FilterProblem{kMaxSide + 1, 1, PixelFormat::F32, {}});
  EXPECT_TRUE(contains(long_side, "side")) << long_side;
  EXPECT_EQ(validate(FilterProblem{kMaxSide, 1, PixelFormat::F32, {}}), "");

  const std::string format = validate(FilterProblem{4, 4, PixelFormat::Count, {}});
  EXPECT_TRUE(contains(format, "pixel format")) << format;

  FilterProblem bad_sigma{4, 4, PixelFormat::F32, with_sigma(std::nan(""))};
  EXPECT_TRUE(contains(validate(bad_sigma), "sigma")) << validate(bad_sigma);
}

TEST(FilterParams, EqualityAndDescription) {
  FilterParams a, b;
  EXPECT_TRUE(a == b);
  b.border = BorderMode::Wrap;
  EXPECT_TRUE(a != b);
  b = a;
  b.fixed_radius = 3;
  EXPECT_TRUE(a != b);
  FilterProblem pa{8, 8, PixelFormat::F32, a}, pb = pa;
  EXPECT_TRUE(pa == pb);
  pb.format = PixelFormat::Rgba8;
  EXPECT_TRUE(pa != pb);
  EXPECT_EQ(describe(with_sigma(2.0)), "sigma 2, truncate 4, radius 8, reflect");
}

}  // namespace
}  // namespace gausslab
