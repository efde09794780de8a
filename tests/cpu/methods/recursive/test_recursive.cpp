// The recursive (IIR) Gaussian on the CPU: Deriche's coefficients against published numbers, the
// closed-form border histories and the segment carry against a brute-force convolution of the
// infinite extension, and the CPU model — which runs the GPU kernels' own per-thread code — against
// the float64 reference and the method's accuracy bound. No device is needed.
//
// RecursiveAccuracy.DISABLED_Table prints the accuracy table in docs/methods/recursive.md:
//   gausslab_cpu_method_tests --gtest_also_run_disabled_tests --gtest_filter='RecursiveAccuracy.DISABLED_Table'
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "gausslab/core/accuracy.hpp"
#include "gausslab/core/gaussian_weights.hpp"
#include "gausslab/core/reference.hpp"
#include "gausslab/cuda/registry.hpp"
#include "recursive_coefficients.hpp"
#include "kit/model_accuracy.hpp"
#include "kit/model_images.hpp"
#include "recursive_host_model.hpp"
#include "kit/method_tests.hpp"
#include "kit/channel_route.hpp"

namespace gausslab {
namespace {

GAUSSLAB_METHOD_TESTS("recursive", RecursiveModel);

using namespace recursive;

// ---- helpers ----------------------------------------------------------------------------------

FilterParams params_for(double sigma, BorderMode border, double truncate = kDefaultTruncate) {
  return test::sigma_params(sigma, border, truncate);
}

std::unique_ptr<Method> recursive_method_instance() {
  const MethodEntry* entry = find_method("recursive");
  if (!entry) throw std::runtime_error("the registry has no 'recursive' method");
  return entry->create();
}

// y = (h * xe)[n] with h = Deriche's impulse response and xe the border extension of x: the
// definition of what one pass must compute, summed directly far beyond the filter's tail.
std::vector<double> convolve_extension(const std::vector<double>& x, double sigma, BorderMode border) {
  const DericheGaussian gaussian = deriche_gaussian(sigma);
  const int n = static_cast<int>(x.size());
  // |p| = exp(-1.723 / sigma) for the slower pole: 45 / rate samples leave exp(-45) of the tail.
  const int reach = static_cast<int>(std::ceil(45.0 * sigma / 1.723)) + 2;
  std::vector<double> h(reach + 1);
  for (int m = 0; m <= reach; ++m) h[m] = impulse_response(gaussian, m);
  std::vector<double> y(n, 0.0);
  for (int i = 0; i < n; ++i)
    for (int m = -reach; m <= reach; ++m) {
      const int source = border_index(i - m, n, border);
      if (source >= 0) y[i] += h[std::abs(m)] * x[source];
    }
  return y;
}

// One pass of the model over a single column of F32 samples.
template <class S>
std::vector<float> model_pass(const std::vector<float>& x, double sigma, BorderMode border, int segment_length) {
  const int n = static_cast<int>(x.size());
  const PassPlan plan = plan_pass(deriche_gaussian(sigma), 1, n, border, segment_length);
  std::vector<float> y(n);
  std::vector<Complex<double>> causal, anticausal;
  run_pass_on_host<S>(plan, Columns<const float>{x.data(), sizeof(float), 1, n},
                      Columns<float>{y.data(), sizeof(float), 1, n}, causal, anticausal);
  return y;
}

template <class Pixel>
Image<Pixel> model_filter(const Image<Pixel>& src, const FilterParams& params, int segment_length = 0) {
  Image<Pixel> dst(src.width(), src.height());
  filter_on_host<double>(src, dst, params, segment_length);
  return dst;
}

// The error of the model on `src` against the float64 reference: relative (F32) or 8-bit levels.
template <class Pixel>
AccuracyStats model_error(const Image<Pixel>& src, const FilterParams& params, bool float_state = false) {
  Image<Pixel> dst(src.width(), src.height());
  if (float_state)
    filter_on_host<float>(src, dst, params);
  else
    filter_on_host<double>(src, dst, params);
  return compare_with_reference(dst.view(), reference_gaussian(src.view(), params),
                                default_peak(Image<Pixel>::format()));
}

// ---- coefficients -------------------------------------------------------------------------------

TEST(RecursiveCoefficients, DirectFormMatchesThePublishedNumbersAtSigma5) {
  // docs/methods/recursive.md, "Background" (computed from Getreuer's code, before renormalising).
  const DirectForm form = deriche_direct_form(5.0, false);
  const double b_causal[4] = {0.079764520, -0.136679752, 0.086611581, -0.018966585};
  const double a[5] = {1, -2.694423249, 2.805288665, -1.336999322, 0.246005841};
  const double b_anticausal[5] = {0, 0.078239624, -0.137150922, 0.087678524, -0.019622538};
  for (int k = 0; k < 4; ++k) EXPECT_NEAR(form.b_causal[k], b_causal[k], 1e-9) << "b+[" << k << "]";
  for (int k = 0; k < 5; ++k) EXPECT_NEAR(form.a[k], a[k], 1e-9) << "a[" << k << "]";
  for (int k = 0; k < 5; ++k) EXPECT_NEAR(form.b_anticausal[k], b_anticausal[k], 1e-9) << "b-[" << k << "]";
}

TEST(RecursiveCoefficients, RawDcGainIsThePublishedOneAndIsNormalisedAway) {
  EXPECT_NEAR(deriche_gaussian(5.0).raw_dc_gain, 1.00013, 1e-5);
  EXPECT_NEAR(deriche_gaussian(1.0).raw_dc_gain, 1.00006, 1e-5);
  for (double sigma : {0.1, 0.37, 1.0, 5.0, 50.0, 200.0}) {
    const DericheGaussian g = deriche_gaussian(sigma);
    double sum = impulse_response(g, 0);
    const int reach = static_cast<int>(50.0 * sigma) + 10;
    for (int n = 1; n <= reach; ++n) {
      EXPECT_EQ(impulse_response(g, n), impulse_response(g, -n));
      sum += 2.0 * impulse_response(g, n);
    }
    EXPECT_NEAR(sum, 1.0, 1e-12) << "sigma " << sigma;
    EXPECT_DOUBLE_EQ(g.centre, impulse_response(g, 0)) << "sigma " << sigma;
  }
}

TEST(RecursiveCoefficients, PartialFractionsAreTheSameFilterAsTheDirectForm) {
  // Run Getreuer's direct-form recursions (normalised numerators) on an impulse and compare with
  // Re sum_j weight_j p_j^|n|, the form the GPU runs.
  for (double sigma : {0.8, 5.0, 30.0}) {
    const DirectForm form = deriche_direct_form(sigma, true);
    const DericheGaussian g = deriche_gaussian(sigma);
    const int half = static_cast<int>(30.0 * sigma) + 20, n = 2 * half + 1;
    std::vector<double> x(n, 0.0), causal(n, 0.0), anticausal(n, 0.0);
    x[half] = 1.0;
    for (int i = 0; i < n; ++i) {
      double y = 0;
      for (int k = 0; k < 4; ++k)
        if (i - k >= 0) y += form.b_causal[k] * x[i - k];
      for (int k = 1; k <= 4; ++k)
        if (i - k >= 0) y -= form.a[k] * causal[i - k];
      causal[i] = y;
    }
    for (int i = n - 1; i >= 0; --i) {
      double y = 0;
      for (int k = 1; k <= 4; ++k)
        if (i + k < n) y += form.b_anticausal[k] * x[i + k] - form.a[k] * anticausal[i + k];
      anticausal[i] = y;
    }
    for (int i = 0; i < n; ++i)
      ASSERT_NEAR(causal[i] + anticausal[i], impulse_response(g, i - half), 1e-12)
          << "sigma " << sigma << " n " << i - half;
  }
}

TEST(RecursiveCoefficients, EffectiveSigmaIsWithinAFewTenthsOfAPercent) {
  // docs/methods/recursive.md, "Background": sigma_eff = 4.989 at sigma 5 (-0.2 %).
  for (double sigma : {1.0, 2.0, 5.0, 20.0, 100.0}) {
    const DericheGaussian g = deriche_gaussian(sigma);
    double variance = 0;
    for (int n = 1; n <= static_cast<int>(60 * sigma); ++n) variance += 2.0 * n * n * impulse_response(g, n);
    EXPECT_NEAR(std::sqrt(variance) / sigma, 1.0, 0.004) << "sigma " << sigma;
    if (sigma == 5.0) {
      EXPECT_NEAR(std::sqrt(variance), 4.989, 0.002);
    }
  }
}

TEST(RecursiveCoefficients, TruncationLossIsTheGaussianTail) {
  // For sigma >> 1 the sampled tail beyond r is the continuous tail beyond r + 1/2.
  for (double sigma : {20.0, 50.0, 200.0})
    for (double truncate : {3.0, 4.0}) {
      const int radius = gaussian_radius(sigma, truncate);
      const double expected = std::erfc((radius + 0.5) / sigma / std::sqrt(2.0));
      EXPECT_NEAR(truncation_loss(sigma, radius) / expected, 1.0, 0.01) << sigma << " " << truncate;
    }
  EXPECT_LT(truncation_loss(0.1, 0), 1e-20);  // sigma 0.1: the reference is the identity, and so is h
  EXPECT_GT(truncation_loss(5.0, 0), 0.9);
}

TEST(RecursivePlan, SegmentLengthKeepsAbout131kThreads) {
  EXPECT_EQ(choose_segment_length(3840, 2160), 64);
  EXPECT_EQ(choose_segment_length(4096, 4096), 128);
  EXPECT_EQ(choose_segment_length(512, 512), 32);
  EXPECT_EQ(choose_segment_length(1, 1), 32);
  const int long_column = choose_segment_length(1, 1 << 30);
  EXPECT_LE((1LL << 30) / long_column, 1LL << 17);
  const PassPlan plan = plan_pass(deriche_gaussian(2.0), 7, 100, BorderMode::Reflect, 32);
  EXPECT_EQ(plan.segments, 4);
  EXPECT_EQ(plan.last_length, 4);
  EXPECT_EQ(plan.segment_size(3), 4);
  EXPECT_EQ(plan.segment_size(2), 32);
  EXPECT_EQ(plan.segment_start(3), 96);
}

// ---- one pass: borders and segments --------------------------------------------------------------

TEST(RecursivePass, EqualsTheConvolutionOfTheInfiniteExtensionForEveryBorder) {
  // Exercises the closed-form border histories (also with tails far longer than the column) and
  // the carry over segments of every length, including segments of a single sample.
  std::mt19937 random(11);
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  for (double sigma : {0.1, 0.3, 1.0, 3.7, 20.0, 200.0})
    for (BorderMode border : kAllBorderModes)
      for (int n : {1, 2, 3, 5, 7, 31, 64, 100, 257})
        for (int segment_length : {1, 2, 3, 5, 32, 1000}) {
          std::vector<float> x(n);
          std::vector<double> xd(n);
          for (int i = 0; i < n; ++i) xd[i] = x[i] = uniform(random);
          const std::vector<double> expected = convolve_extension(xd, sigma, border);
          const std::vector<float> y = model_pass<double>(x, sigma, border, segment_length);
          for (int i = 0; i < n; ++i)
            ASSERT_NEAR(y[i], expected[i], 2e-7) << "sigma " << sigma << ", " << to_string(border) << ", n " << n
                                                 << ", segment length " << segment_length << ", sample " << i;
        }
}

TEST(RecursivePass, SegmentLengthDoesNotChangeTheImage) {
  const ImageF32 src = make_random_f32(23, 301, 5);
  for (BorderMode border : kAllBorderModes) {
    const FilterParams params = params_for(9.0, border);
    const ImageF32 whole = model_filter(src, params, 4096);
    for (int segment_length : {1, 3, 16, 64}) {
      const ImageF32 cut = model_filter(src, params, segment_length);
      for (int y = 0; y < src.height(); ++y)
        for (int x = 0; x < src.width(); ++x)
          ASSERT_NEAR(cut.at(x, y), whole.at(x, y), 1e-6f) << to_string(border) << " L " << segment_length;
    }
  }
}

// ---- the whole model -----------------------------------------------------------------------------

TEST(RecursiveModel, TransposeMovesEveryPixelOnceForAnySize) {
  for (auto [w, h] : {std::pair{1, 1}, {1, 33}, {33, 1}, {31, 33}, {64, 64}, {65, 97}, {200, 3}}) {
    // The destination has 3 spare elements per row and 2 spare rows: a write outside the image
    // (a wrong tile-edge guard) leaves a mark there.
    const int pitch = h + 3;
    std::vector<float> src(static_cast<std::size_t>(w) * h), dst(static_cast<std::size_t>(pitch) * (w + 2), -1.0f);
    for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<float>(i);
    transpose_on_host(Columns<const float>{src.data(), w * sizeof(float), w, h},
                      Columns<float>{dst.data(), pitch * sizeof(float), h, w});
    for (int row = 0; row < w + 2; ++row)
      for (int column = 0; column < pitch; ++column) {
        const float value = dst[static_cast<std::size_t>(row) * pitch + column];
        if (row < w && column < h)
          ASSERT_EQ(value, src[static_cast<std::size_t>(column) * w + row]) << w << "x" << h;
        else
          ASSERT_EQ(value, -1.0f) << w << "x" << h << ": written outside the image at (" << column << ", " << row
                                  << ")";
      }
    // float4 into RGBA8: rounded with to_unorm8 and clamped.
    std::vector<float4> colour(static_cast<std::size_t>(w) * h);
    for (std::size_t i = 0; i < colour.size(); ++i) colour[i] = make_float4(i % 300 - 20.0f, 10.5f, 254.49f, 1e6f);
    ImageRgba8 out(h, w);
    transpose_on_host(Columns<const float4>{colour.data(), w * sizeof(float4), w, h},
                      Columns<Rgba8>{out.data(), out.pitch_bytes(), h, w});
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const float4 v = colour[static_cast<std::size_t>(y) * w + x];
        const Rgba8 p = out.at(y, x);
        ASSERT_EQ(p.r, to_unorm8(v.x));
        ASSERT_EQ(p.g, 11);
        ASSERT_EQ(p.b, 254);
        ASSERT_EQ(p.a, 255);
      }
  }
}

TEST(RecursiveModel, FlatImagesStayFlatForEveryMassPreservingBorder) {
  const BorderMode borders[] = {BorderMode::Reflect, BorderMode::Mirror, BorderMode::Nearest, BorderMode::Wrap};
  for (auto [w, h] : {std::pair{1, 1}, {1, 9}, {9, 1}, {7, 5}, {64, 37}})
    for (double sigma : {0.1, 0.5, 1.0, 5.0, 50.0, 200.0})
      for (BorderMode border : borders) {
        const FilterParams params = params_for(sigma, border);
        const ImageF32 flat_f32(w, h, 0.7f);
        const ImageF32 out_f32 = model_filter(flat_f32, params);
        const ImageRgba8 flat_rgba8(w, h, Rgba8{0, 77, 128, 255});
        const ImageRgba8 out_rgba8 = model_filter(flat_rgba8, params);
        for (int y = 0; y < h; ++y)
          for (int x = 0; x < w; ++x) {
            ASSERT_NEAR(out_f32.at(x, y), 0.7f, 1e-6f)
                << w << "x" << h << " sigma " << sigma << " " << to_string(border);
            ASSERT_EQ(out_rgba8.at(x, y), (Rgba8{0, 77, 128, 255}))
                << w << "x" << h << " sigma " << sigma << " " << to_string(border);
          }
      }
}

TEST(RecursiveModel, FloatStateDriftsByAFewMillionthsAtLargeSigma) {
  // The measurement behind the choice of a double state (docs/methods/recursive.md).
  const ImageF32 flat(48, 40, 0.7f);
  ImageF32 out(48, 40);
  filter_on_host<float>(flat, out, params_for(200.0, BorderMode::Reflect));
  double drift = 0;
  for (float v : out.pixels()) drift = std::max(drift, std::abs(static_cast<double>(v) - 0.7));
  EXPECT_LT(drift, 1e-5);
  const ImageF32 exact = model_filter(flat, params_for(200.0, BorderMode::Reflect));
  for (float v : exact.pixels()) ASSERT_EQ(v, 0.7f);
}

TEST(RecursiveModel, ImpulseAtTheBorderHasTheReferenceShape) {
  for (double sigma : {0.7, 3.0, 12.0})
    for (BorderMode border : kAllBorderModes)
      for (auto [px, py] : {std::pair{0, 0}, {39, 14}, {2, 29}}) {
        ImageF32 impulse(40, 30, 0.0f);
        impulse.at(px, py) = 1.0f;
        const FilterParams params = params_for(sigma, border);
        const AccuracyStats stats = model_error(impulse, params);
        EXPECT_LT(stats.max_relative_error, 2e-3)
            << "impulse at (" << px << ", " << py << "), sigma " << sigma << ", " << to_string(border);
        // Mass: reflect and wrap give every input pixel's full weight back to the image (mirror and
        // nearest weigh edge pixels differently, constant leaks).
        if (border == BorderMode::Reflect || border == BorderMode::Wrap) {
          const ImageF32 out = model_filter(impulse, params);
          double mass = 0;
          for (float v : out.pixels()) mass += v;
          EXPECT_NEAR(mass, 1.0, 1e-5) << "sigma " << sigma << ", " << to_string(border);
        }
      }
}

TEST(RecursiveModel, TinyAndThinImagesMeetTheBound) {
  const std::unique_ptr<Method> method = recursive_method_instance();
  for (auto [w, h] : {std::pair{1, 1}, {1, 13}, {13, 1}, {7, 5}, {2, 2}})
    for (double sigma : {0.1, 0.3, 2.0, 33.0, 200.0})
      for (BorderMode border : kAllBorderModes) {
        const FilterParams params = params_for(sigma, border);
        const ImageF32 f32 = make_random_f32(w, h, 3);
        const ImageRgba8 rgba8 = make_random_rgba8(w, h, 4);
        const AccuracyBound f32_bound = method->accuracy_bound({w, h, PixelFormat::F32, params});
        const AccuracyBound rgba8_bound = method->accuracy_bound({w, h, PixelFormat::Rgba8, params});
        const std::string where = std::to_string(w) + "x" + std::to_string(h) + ", " + describe(params);
        EXPECT_LE(model_error(f32, params).max_relative_error, f32_bound.max_relative_error) << where;
        EXPECT_LE(model_error(rgba8, params).max_abs_error, rgba8_bound.max_error_8bit) << where;
      }
}

TEST(RecursiveModel, LongThinImagesCutIntoManySegmentsMeetTheBound) {
  // The GPU sweep's 4099×17 and 17×4099: 129 segments down the long side, partial tiles across.
  const std::unique_ptr<Method> method = recursive_method_instance();
  EXPECT_GT(plan_image(17, 4099, 1.0, BorderMode::Reflect).columns.segments, 100);
  EXPECT_GT(plan_image(4099, 17, 1.0, BorderMode::Reflect).rows.segments, 100);
  for (auto [w, h] : {std::pair{4099, 17}, {17, 4099}})
    for (double sigma : {1.0, 33.0, 200.0})
      for (BorderMode border : {BorderMode::Reflect, BorderMode::Constant, BorderMode::Wrap}) {
        const FilterParams params = params_for(sigma, border);
        const ImageF32 f32 = make_random_f32(w, h, 9);
        const AccuracyBound bound = method->accuracy_bound({w, h, PixelFormat::F32, params});
        EXPECT_LE(model_error(f32, params).max_relative_error, bound.max_relative_error)
            << w << "x" << h << ", " << describe(params);
      }
}

TEST(RecursiveModel, RandomImagesAndAPhotoMeetTheBound) {
  const std::unique_ptr<Method> method = recursive_method_instance();
  const ImageRgba8 photo = test::crop(test::astronaut(), Rect{150, 40, 96, 80});
  const ImageF32 photo_grey = to_grey_f32(photo);
  const ImageRgba8 random_rgba8 = make_random_rgba8(37, 29, 21);
  const ImageF32 random_f32 = make_random_f32(37, 29, 22);
  const ImageF32 stars = test::crop(test::hubble_grey(), Rect{400, 300, 90, 70});
  for (double sigma : {0.1, 0.25, 0.5, 0.8, 1.0, 1.6, 2.5, 5.0, 8.0, 20.0, 33.0, 120.0})
    for (BorderMode border : kAllBorderModes) {
      const FilterParams params = params_for(sigma, border);
      const AccuracyBound bound = method->accuracy_bound({1, 1, PixelFormat::F32, params});
      const std::string where = describe(params);
      EXPECT_LE(model_error(photo, params).max_abs_error, bound.max_error_8bit) << "photo, " << where;
      EXPECT_LE(model_error(random_rgba8, params).max_abs_error, bound.max_error_8bit) << "random, " << where;
      EXPECT_LE(model_error(photo_grey, params).max_relative_error, bound.max_relative_error) << "photo, " << where;
      EXPECT_LE(model_error(random_f32, params).max_relative_error, bound.max_relative_error) << "random, " << where;
      EXPECT_LE(model_error(stars, params).max_relative_error, bound.max_relative_error) << "stars, " << where;
    }
}

TEST(RecursiveModel, ShorterTruncationIsCoveredByTheWiderBound) {
  const std::unique_ptr<Method> method = recursive_method_instance();
  const ImageF32 photo_grey = to_grey_f32(test::crop(test::astronaut(), Rect{200, 100, 64, 48}));
  ImageF32 step(64, 48, 0.0f);
  for (int y = 0; y < 48; ++y)
    for (int x = 32; x < 64; ++x) step.at(x, y) = 1.0f;
  for (double truncate : {2.7, 3.0, 3.5})
    for (double sigma : {1.0, 4.0, 10.0}) {
      const FilterParams params = params_for(sigma, BorderMode::Reflect, truncate);
      const AccuracyBound bound = method->accuracy_bound({64, 48, PixelFormat::F32, params});
      const AccuracyBound at_4 =
          method->accuracy_bound({64, 48, PixelFormat::F32, params_for(sigma, BorderMode::Reflect)});
      if (params.radius() < gaussian_radius(sigma, kDefaultTruncate)) {
        EXPECT_GT(bound.max_relative_error, at_4.max_relative_error) << describe(params);
        EXPECT_GT(bound.max_error_8bit, at_4.max_error_8bit) << describe(params);
      }
      EXPECT_LE(model_error(photo_grey, params).max_relative_error, bound.max_relative_error) << describe(params);
      EXPECT_LE(model_error(step, params).max_relative_error, bound.max_relative_error) << "step, " << describe(params);
    }
}

// ---- the method behind the interface (no device needed) ------------------------------------------

TEST(RecursiveMethod, DescribesItself) {
  const std::unique_ptr<Method> method = recursive_method_instance();
  EXPECT_EQ(method->info().id, "recursive");
  EXPECT_EQ(method->info().backend, Backend::Cuda);
  EXPECT_NE(method->info().summary.find("independent of sigma"), std::string::npos);
  EXPECT_FALSE(method->info().accuracy.empty());
}

TEST(RecursiveMethod, RefusesAReferenceThatDropsTheTailWithTheReason) {
  const std::unique_ptr<Method> method = recursive_method_instance();
  FilterProblem problem{64, 48, PixelFormat::Rgba8, params_for(5.0, BorderMode::Reflect, 2.0)};
  const std::string reason = method->unsupported_reason(problem);
  EXPECT_NE(reason.find("truncate 3"), std::string::npos) << reason;
  EXPECT_THROW(method->prepare(problem), std::invalid_argument);
  problem.params.truncate = 3.0;
  EXPECT_EQ(method->unsupported_reason(problem), "");
  problem.params.fixed_radius = 0;  // the identity as reference: nothing like a Gaussian of sigma 5
  EXPECT_NE(method->unsupported_reason(problem), "");
  problem.params.sigma = 0.1;  // ... but at sigma 0.1 both are the identity
  EXPECT_EQ(method->unsupported_reason(problem), "");
  for (double sigma : {0.1, 0.5, 1.0, 200.0})
    for (BorderMode border : kAllBorderModes)
      EXPECT_EQ(method->unsupported_reason({1, 1, PixelFormat::F32, params_for(sigma, border)}), "");
  problem.params.sigma = std::nan("");
  EXPECT_NE(method->unsupported_reason(problem), "");
}

// ---- the measured table (run on demand) ----------------------------------------------------------

struct RangeResult {
  double f32_relative = 0, f32_relative_float_state = 0, f32_min_psnr = 1e9;
  double rgba8_levels = 0, rgba8_levels_float_state = 0;
  double photo_relative = 0, photo_levels = 0, stars_relative = 0;
};

TEST(RecursiveAccuracy, DISABLED_Table) {
  const std::pair<const char*, std::vector<double>> ranges[] = {
      {"[0.1, 0.5)", {0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45}},
      {"[0.5, 1)", {0.5, 0.6, 0.7, 0.8, 0.9}},
      {"[1, 2)", {1.0, 1.25, 1.5, 1.75}},
      {"[2, 8)", {2.0, 3.0, 5.0, 7.5}},
      {"[8, 32)", {8.0, 12.0, 20.0, 31.0}},
      {"[32, 200]", {32.0, 50.0, 100.0, 200.0}}};
  const ImageF32 random_f32 = make_random_f32(61, 47, 7);
  const ImageRgba8 random_rgba8 = make_random_rgba8(61, 47, 8);
  const ImageRgba8 photo = test::crop(test::astronaut(), Rect{150, 30, 160, 128});
  const ImageF32 photo_grey = to_grey_f32(photo);
  const ImageF32 stars = test::crop(test::hubble_grey(), Rect{400, 300, 160, 128});
  ImageF32 impulses(45, 37, 0.0f);  // point sources, one on the border
  impulses.at(0, 5) = impulses.at(22, 18) = impulses.at(30, 36) = 1.0f;
  ImageRgba8 checker(40, 30);
  for (int y = 0; y < 30; ++y)
    for (int x = 0; x < 40; ++x) {
      const std::uint8_t v = (x + y) % 2 ? 255 : 0;
      checker.at(x, y) = Rgba8{v, static_cast<std::uint8_t>(255 - v), v, 255};
    }
  const std::unique_ptr<Method> method = recursive_method_instance();

  std::printf(
      "sigma range | border   | f32 rel (float st.) | f32 PSNR | 8-bit lev (float st.) | photo rel / 8-bit | stars rel "
      "| bound rel / 8-bit\n");
  for (const auto& [name, sigmas] : ranges)
    for (BorderMode border : kAllBorderModes) {
      RangeResult r;
      AccuracyBound bound{0, 0};
      for (double sigma : sigmas) {
        const FilterParams params = params_for(sigma, border);
        for (const ImageF32* image :
             std::initializer_list<const ImageF32*>{&random_f32, &photo_grey, &stars, &impulses}) {
          const AccuracyStats d = model_error(*image, params), f = model_error(*image, params, true);
          r.f32_relative = std::max(r.f32_relative, d.max_relative_error);
          r.f32_relative_float_state = std::max(r.f32_relative_float_state, f.max_relative_error);
          r.f32_min_psnr = std::min(r.f32_min_psnr, d.psnr_db);
          if (image == &photo_grey) r.photo_relative = std::max(r.photo_relative, d.max_relative_error);
          if (image == &stars) r.stars_relative = std::max(r.stars_relative, d.max_relative_error);
        }
        for (const ImageRgba8* image : std::initializer_list<const ImageRgba8*>{&random_rgba8, &photo, &checker}) {
          const AccuracyStats d = model_error(*image, params), f = model_error(*image, params, true);
          r.rgba8_levels = std::max(r.rgba8_levels, d.max_abs_error);
          r.rgba8_levels_float_state = std::max(r.rgba8_levels_float_state, f.max_abs_error);
          if (image == &photo) r.photo_levels = std::max(r.photo_levels, d.max_abs_error);
        }
        const AccuracyBound b = method->accuracy_bound({1, 1, PixelFormat::F32, params});
        bound.max_relative_error = std::max(bound.max_relative_error, b.max_relative_error);
        bound.max_error_8bit = std::max(bound.max_error_8bit, b.max_error_8bit);
      }
      std::printf(
          "%-11s | %-8s | %.1e (%.1e)   | %6.1f   | %.3f (%.3f)         | %.1e / %.3f   | %.1e   | %.1e / %.2f\n", name,
          to_string(border), r.f32_relative, r.f32_relative_float_state, r.f32_min_psnr, r.rgba8_levels,
          r.rgba8_levels_float_state, r.photo_relative, r.photo_levels, r.stars_relative, bound.max_relative_error,
          bound.max_error_8bit);
      std::fflush(stdout);
    }
}

TEST(RecursiveModel, EveryOtherFormatThroughFloatPlanesMeetsTheBoundInItsOwnUnit) {
  EXPECT_EQ(test::expect_routed_formats_meet_their_bound(
                "recursive", {0.6, 2.5},
                [](const ImageF32& src, const FilterParams& params) { return model_filter(src, params); }),
            10);
}

}  // namespace
}  // namespace gausslab
