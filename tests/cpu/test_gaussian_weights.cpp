// The sampled Gaussian every method approximates: SciPy's radius rule and normalised weights.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "gausslab/core/filter_params.hpp"
#include "gausslab/core/gaussian_weights.hpp"

namespace gausslab {
namespace {

TEST(GaussianRadius, FollowsScipyRule) {
  // scipy.ndimage.gaussian_filter: lw = int(truncate * sd + 0.5)
  EXPECT_EQ(gaussian_radius(2.0, 4.0), 8);
  EXPECT_EQ(gaussian_radius(0.1, 4.0), 0);
  EXPECT_EQ(gaussian_radius(200.0, 4.0), 800);
  EXPECT_EQ(gaussian_radius(0.625, 4.0), 3);  // 2.5 + 0.5 lands exactly on 3
  EXPECT_EQ(gaussian_radius(0.375, 4.0), 2);  // 1.5 + 0.5 lands exactly on 2
  EXPECT_EQ(gaussian_radius(1.0, 3.0), 3);
  EXPECT_EQ(gaussian_radius(1.0, 2.4), 2);    // 2.4 + 0.5 = 2.9 rounds down
  EXPECT_EQ(gaussian_radius(200.0, 10.0), kMaxRadius);
}

TEST(GaussianRadius, FilterParamsUseTheRuleOrTheFixedRadius) {
  FilterParams params;
  params.sigma = 2.5;
  params.truncate = 4.0;
  EXPECT_EQ(params.radius(), 10);
  EXPECT_EQ(params.taps(), 21);
  params.fixed_radius = 3;
  EXPECT_EQ(params.radius(), 3);
  EXPECT_EQ(params.taps(), 7);
  params.fixed_radius = 0;
  EXPECT_EQ(params.radius(), 0);
}

class GaussianWeights : public ::testing::TestWithParam<double> {};

TEST_P(GaussianWeights, SumToOneAreSymmetricAndFollowTheGaussian) {
  const double sigma = GetParam();
  for (const int radius : {0, 1, gaussian_radius(sigma, 4.0), gaussian_radius(sigma, 10.0)}) {
    SCOPED_TRACE("sigma " + std::to_string(sigma) + ", radius " + std::to_string(radius));
    const std::vector<double> w = gaussian_weights(sigma, radius);
    ASSERT_EQ(w.size(), 2u * radius + 1);
    EXPECT_NEAR(std::accumulate(w.begin(), w.end(), 0.0), 1.0, 1e-14);
    double normaliser = 0.0;
    for (int x = -radius; x <= radius; ++x) normaliser += std::exp(-x * double(x) / (2 * sigma * sigma));
    for (int x = -radius; x <= radius; ++x) {
      EXPECT_EQ(w[radius + x], w[radius - x]) << "not symmetric at offset " << x;
      const double expected = std::exp(-x * double(x) / (2 * sigma * sigma)) / normaliser;
      EXPECT_NEAR(w[radius + x], expected, 1e-15 + 1e-13 * expected) << "offset " << x;
    }
    for (int x = 1; x <= radius; ++x) EXPECT_LE(w[radius + x], w[radius + x - 1]) << "not decreasing at " << x;

    const std::vector<float> w32 = gaussian_weights_f32(sigma, radius);
    ASSERT_EQ(w32.size(), w.size());
    double sum32 = 0.0;
    for (std::size_t i = 0; i < w.size(); ++i) {
      EXPECT_EQ(w32[i], static_cast<float>(w[i])) << "float weights are not the float64 ones rounded, tap " << i;
      sum32 += w32[i];
    }
    EXPECT_NEAR(sum32, 1.0, 1e-6);
  }
}

INSTANTIATE_TEST_SUITE_P(Sigmas, GaussianWeights, ::testing::Values(0.1, 0.5, 0.625, 1.0, 2.5, 8.0, 33.0, 200.0),
                         [](const auto& info) {
                           std::string name = "sigma_" + std::to_string(info.param);
                           for (char& c : name)
                             if (c == '.') c = '_';
                           return name;
                         });

TEST(GaussianWeights, RadiusZeroIsTheIdentity) {
  const std::vector<double> w = gaussian_weights(0.1, 0);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0], 1.0);
}

TEST(GaussianWeights, SmallSigmaIsAlmostTheIdentity) {
  // sigma 0.1: exp(-50) ~ 2e-22 for the neighbours.
  const std::vector<double> w = gaussian_weights(0.1, 1);
  EXPECT_NEAR(w[1], 1.0, 1e-20);
  EXPECT_LT(w[0], 1e-20);
}

TEST(GaussianWeights, WorkedNumbersForSigmaOne) {
  // SciPy 1.10: scipy.ndimage._filters._gaussian_kernel1d(1, 0, 4), the kernel gaussian_filter uses.
  const double scipy[9] = {0.00013383062461474175, 0.004431861620031266, 0.053991127420704395,
                           0.24197144565660073,    0.39894346935609776,  0.24197144565660073,
                           0.053991127420704395,   0.004431861620031266, 0.00013383062461474175};
  const std::vector<double> w = gaussian_weights(1.0, 4);
  ASSERT_EQ(w.size(), 9u);
  for (int i = 0; i < 9; ++i) EXPECT_NEAR(w[i], scipy[i], 1e-16 + 1e-14 * scipy[i]) << "tap " << i;
}

TEST(GaussianWeights, RejectsBadArguments) {
  EXPECT_THROW(gaussian_weights(0.0, 3), std::invalid_argument);
  EXPECT_THROW(gaussian_weights(-1.0, 3), std::invalid_argument);
  EXPECT_THROW(gaussian_weights(std::nan(""), 3), std::invalid_argument);
  EXPECT_THROW(gaussian_weights(1.0, -1), std::invalid_argument);
}

}  // namespace
}  // namespace gausslab
