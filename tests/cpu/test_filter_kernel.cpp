// Custom kernels in core: their checks, the rank-1 test, the taps every method runs, the float64
// reference and the CPU filter for masks, pairs and matrices (odd sizes, asymmetric, unnormalised,
// beyond the image side), the roundings, and the refusals of methods that cannot run them.
// (SciPy itself is the judge in check_kernels_vs_scipy.py; here the reference's own forms agree.)
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>

#include "gausslab/core/accuracy.hpp"
#include "gausslab/core/cpu_filter.hpp"
#include "gausslab/core/host_image.hpp"
#include "gausslab/core/method_info.hpp"
#include "gausslab/core/reference.hpp"

namespace gausslab {
namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::vector<double> random_weights(std::size_t n, std::uint32_t seed, double low = -0.3, double high = 1.0) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> weight(low, high);
  std::vector<double> w(n);
  for (double& v : w) v = weight(rng);
  return w;
}

FilterKernel outer(const std::vector<double>& column, const std::vector<double>& row) {
  std::vector<double> m;
  for (double c : column)
    for (double r : row) m.push_back(c * r);
  return FilterKernel::matrix_2d(static_cast<int>(row.size()), static_cast<int>(column.size()), m);
}

// `value` as printed with `digits` significant digits and read back.
double printed(double value, int digits) {
  char text[40];
  std::snprintf(text, sizeof text, "%.*g", digits, value);
  return std::strtod(text, nullptr);
}

FilterParams with_kernel(FilterKernel kernel, BorderMode border = BorderMode::Reflect) {
  FilterParams p;
  p.kernel = std::move(kernel);
  p.border = border;
  return p;
}

// ---- checks ------------------------------------------------------------------------------------

TEST(KernelChecks, EvenEmptyAndNonFiniteKernelsAreRefusedWithTheReason) {
  EXPECT_TRUE(contains(validate(FilterKernel::mask({1, 2})), "even count")) << validate(FilterKernel::mask({1, 2}));
  EXPECT_TRUE(contains(validate(FilterKernel::mask({1, 2})), "pad it with a 0"));
  EXPECT_TRUE(contains(validate(FilterKernel::mask({})), "empty"));
  EXPECT_TRUE(contains(validate(FilterKernel::mask({1, std::nan(""), 1})), "mask weight 2 is NaN"))
      << validate(FilterKernel::mask({1, std::nan(""), 1}));
  EXPECT_TRUE(contains(validate(FilterKernel::mask({1, 1, std::numeric_limits<double>::infinity()})), "infinite"));
  EXPECT_TRUE(contains(validate(FilterKernel::mask({1e39})), "float32's range"));
  EXPECT_TRUE(contains(validate(FilterKernel::pair({1, 2, 1}, {1, 1})), "y mask has 2 weights"));
  EXPECT_TRUE(contains(validate(FilterKernel::mask(std::vector<double>(kMaxMaskTaps + 2, 1.0))), "more than the 4001"));
  EXPECT_TRUE(contains(validate(FilterKernel::matrix_2d(4, 3, std::vector<double>(12, 1.0))), "each side must be odd"));
  EXPECT_TRUE(contains(validate(FilterKernel::matrix_2d(3, 3, std::vector<double>(8, 1.0))), "holds 8 weights"));
  std::vector<double> m(9, 1.0);
  m[5] = std::nan("");
  EXPECT_TRUE(contains(validate(FilterKernel::matrix_2d(3, 3, m)), "row 2, column 3 is NaN"))
      << validate(FilterKernel::matrix_2d(3, 3, m));
  EXPECT_TRUE(contains(validate(FilterKernel::matrix_2d(1025, 1025, std::vector<double>(1025 * 1025, 1.0))),
                       "larger than supported"));
  EXPECT_EQ(validate(FilterKernel::matrix_2d(1, 1, {7.0})), "");
  EXPECT_EQ(validate(FilterKernel::mask({0.0, -1.0, 3.5})), "");
}

TEST(KernelChecks, NormalizeRefusesAKernelThatSumsToZero) {
  FilterKernel edge = FilterKernel::mask({-1, 0, 1});
  EXPECT_EQ(validate(edge), "") << "a zero sum is fine without --normalize";
  edge.normalize = true;
  EXPECT_TRUE(contains(validate(edge), "weights sum to 0;")) << validate(edge);
  FilterKernel almost = FilterKernel::mask({1, 0, -1 + 1e-15});
  almost.normalize = true;
  EXPECT_TRUE(contains(validate(almost), "zero within rounding")) << validate(almost);
  FilterKernel pair = FilterKernel::pair({1, 2, 1}, {1, -2, 1});
  pair.normalize = true;
  EXPECT_TRUE(contains(validate(pair), "y mask's weights sum to 0")) << validate(pair);
  FilterKernel zeros = FilterKernel::matrix_2d(3, 1, {0, 0, 0});
  zeros.normalize = true;
  EXPECT_TRUE(contains(validate(zeros), "all are zero")) << validate(zeros);
}

TEST(KernelChecks, ASignalTakesOnlyAMask) {
  FilterParams p = with_kernel(FilterKernel::pair({1, 2, 1}, {1, 2, 1}));
  p.axes = FilterAxes::RowsOnly;
  EXPECT_TRUE(contains(validate(p), "takes a 1D mask")) << validate(p);
  p.kernel = FilterKernel::mask({1, 2, 1});
  EXPECT_EQ(validate(p), "");
}

TEST(KernelChecks, TheGaussiansLimitsDoNotApplyToACustomKernel) {
  FilterParams p = with_kernel(FilterKernel::mask(std::vector<double>(4001, 1.0)));
  p.sigma = -5;  // unused with a custom kernel
  EXPECT_EQ(validate(p), "");
  EXPECT_EQ(p.radius(), 2000);
  p.kernel = FilterKernel::pair({1, 2, 1}, std::vector<double>(9, 1.0));
  EXPECT_EQ(p.radius(), 4);
  p.kernel = FilterKernel::matrix_2d(7, 3, std::vector<double>(21, 1.0));
  EXPECT_EQ(p.radius(), 3);
}

TEST(KernelChecks, ParamsCompareByTheirKernelAndRounding) {
  FilterParams a = with_kernel(FilterKernel::mask({1, 2, 1}));
  FilterParams b = a;
  EXPECT_EQ(a, b);
  b.kernel.x[1] = 3;
  EXPECT_NE(a, b);
  b = a;
  b.kernel.convolve = true;
  EXPECT_NE(a, b);
  b = a;
  b.rounding = IntegerRounding::Floor;
  EXPECT_NE(a, b);
  EXPECT_TRUE(contains(describe(b), "kernel mask 1,2,1, reflect, rounding floor")) << describe(b);
}

// ---- rank 1 ------------------------------------------------------------------------------------

TEST(RankOne, AnOuterProductIsFoundAndFactoredExactlyForIntegers) {
  const FilterKernel binomial = outer({1, 4, 6, 4, 1}, {1, 4, 6, 4, 1});
  const std::optional<RankOneFactors> f = rank_one_factors(binomial);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->column, (std::vector<double>{1, 4, 6, 4, 1}));
  EXPECT_EQ(f->row, (std::vector<double>{1, 4, 6, 4, 1}));
  // An integer matrix with a common factor and signs: the factors stay integers and multiply back.
  const FilterKernel sobel = outer({3, 6, 3}, {-1, 0, 1});
  const std::optional<RankOneFactors> g = rank_one_factors(sobel);
  ASSERT_TRUE(g);
  for (int j = 0; j < 3; ++j)
    for (int i = 0; i < 3; ++i) {
      EXPECT_EQ(g->column[j] * g->row[i], sobel.matrix_at(j, i));
      EXPECT_EQ(g->row[i], std::floor(g->row[i]));
    }
}

TEST(RankOne, AFloatOuterProductIsFoundWithinTheToleranceAndNotBeyond) {
  const std::vector<double> u = random_weights(7, 1, 0.1, 1.0), v = random_weights(5, 2, -1.0, 1.0);
  FilterKernel m = outer(u, v);
  ASSERT_TRUE(rank_one_factors(m));
  EXPECT_LT(rank_one_residual(m), 1e-15);
  const std::optional<RankOneFactors> f = rank_one_factors(m);
  for (int j = 0; j < 7; ++j)
    for (int i = 0; i < 5; ++i) EXPECT_NEAR(f->column[j] * f->row[i], m.matrix_at(j, i), 1e-15);
  // 9 significant digits (float32's round trip) stay rank 1; 6 digits (%g) do not.
  FilterKernel nine = m, six = m;
  for (double& w : nine.matrix) w = printed(w, 9);
  for (double& w : six.matrix) w = printed(w, 6);
  EXPECT_TRUE(rank_one_factors(nine)) << rank_one_residual(nine);
  EXPECT_FALSE(rank_one_factors(six)) << rank_one_residual(six);
  EXPECT_GT(rank_one_residual(six), kRankOneTolerance);
}

TEST(RankOne, TheClassicIntegerGaussianTableIsNotRankOne) {
  // The 5×5 table of sum 159 (sigma 1.4) is a rounded Gaussian: not an outer product.
  const FilterKernel table = FilterKernel::matrix_2d(5, 5, {2, 4,  5,  4,  2, 4, 9, 12, 9, 4, 5, 12, 15,
                                                            12, 5, 4, 9, 12, 9, 4, 2, 4, 5, 4, 2});
  EXPECT_FALSE(rank_one_factors(table));
  EXPECT_GT(rank_one_residual(table), 0.01);
}

// ---- the taps every method runs ----------------------------------------------------------------

TEST(KernelTaps, ConvolveFlipsNormalizeDividesAndARankOneMatrixRunsSeparably) {
  FilterParams p = with_kernel(FilterKernel::mask({1, 2, 5}));
  KernelTaps t = kernel_taps(p);
  EXPECT_TRUE(t.separable);
  EXPECT_EQ(t.row, (std::vector<double>{1, 2, 5}));
  EXPECT_EQ(t.column, t.row);
  EXPECT_EQ(t.divisor, 1.0);
  p.kernel.convolve = true;
  p.kernel.normalize = true;
  t = kernel_taps(p);
  EXPECT_EQ(t.row, (std::vector<double>{5, 2, 1}));
  EXPECT_EQ(t.divisor, 64.0);  // (1 + 2 + 5)² on both axes
  p.axes = FilterAxes::RowsOnly;
  t = kernel_taps(p);
  EXPECT_TRUE(t.column.empty());
  EXPECT_EQ(t.divisor, 8.0);

  p = with_kernel(outer({1, 2, 3}, {1, 0, -1, 4, 2}));
  p.kernel.convolve = true;
  t = kernel_taps(p);
  ASSERT_TRUE(t.separable);
  EXPECT_EQ(t.row, (std::vector<double>{2, 4, -1, 0, 1}));
  EXPECT_EQ(t.column, (std::vector<double>{3, 2, 1}));
  EXPECT_EQ(t.radius_x(), 2);
  EXPECT_EQ(t.radius_y(), 1);

  p = with_kernel(FilterKernel::matrix_2d(3, 3, {1, 2, 3, 4, 5, 6, 7, 8, 10}));
  p.kernel.convolve = true;
  p.kernel.normalize = true;
  t = kernel_taps(p);
  ASSERT_FALSE(t.separable);
  EXPECT_EQ(t.matrix, (std::vector<double>{10, 8, 7, 6, 5, 4, 3, 2, 1}));  // rotated by 180°
  EXPECT_EQ(t.divisor, 46.0);
}

TEST(KernelTaps, TheGaussianRunsItsNormalisedWeights) {
  FilterParams p;
  p.sigma = 1.5;
  p.fixed_radius = 2;
  const KernelTaps t = kernel_taps(p);
  ASSERT_EQ(t.row.size(), 5u);
  EXPECT_NEAR(t.row[2], 0.29208172, 1e-8);
  EXPECT_EQ(t.column, t.row);
  EXPECT_EQ(t.divisor, 1.0);
}

// ---- the reference and the CPU filter ----------------------------------------------------------

// The 1D tiled convolution's worked example: 1 1 1 1 1 correlated with 1 1 1, zero border.
TEST(CustomKernelFilter, TheWorkedExampleGivesTwoThreeThreeThreeTwoExactly) {
  ImageF32 signal(5, 1);
  for (int x = 0; x < 5; ++x) signal.at(x, 0) = 1.0f;
  FilterParams p = with_kernel(FilterKernel::mask({1, 1, 1}), BorderMode::Constant);
  p.axes = FilterAxes::RowsOnly;
  const std::vector<double> reference = reference_gaussian(signal.view(), p);
  EXPECT_EQ(reference, (std::vector<double>{2, 3, 3, 3, 2}));
  for (CpuThreading threading : {CpuThreading::Single, CpuThreading::OpenMP}) {
    ImageF32 out(5, 1);
    cpu_gaussian_filter(signal.view(), out.view(), p, threading);
    for (int x = 0; x < 5; ++x) EXPECT_EQ(out.at(x, 0), static_cast<float>(reference[x])) << x;
  }
}

// Every kind of custom kernel, and its convolved and normalised forms.
std::vector<FilterKernel> kernel_cases() {
  std::vector<FilterKernel> cases;
  cases.push_back(FilterKernel::mask(random_weights(5, 11)));                          // asymmetric
  cases.push_back(FilterKernel::mask({1, 2, 1}));                                      // symmetric, unnormalised
  cases.push_back(FilterKernel::pair(random_weights(7, 12), random_weights(3, 13)));  // asymmetric pair
  cases.push_back(outer(random_weights(3, 14, 0.2, 1.0), random_weights(5, 15)));     // rank 1: separable run
  cases.push_back(FilterKernel::matrix_2d(5, 3, random_weights(15, 16)));              // full 2D
  cases.push_back(FilterKernel::matrix_2d(1, 7, random_weights(7, 17)));               // one column
  FilterKernel convolved = FilterKernel::matrix_2d(3, 5, random_weights(15, 18));
  convolved.convolve = true;
  cases.push_back(convolved);
  FilterKernel normalised = FilterKernel::pair(random_weights(5, 19, 0.1, 1.0), random_weights(9, 20, 0.1, 1.0));
  normalised.normalize = true;
  normalised.convolve = true;
  cases.push_back(normalised);
  return cases;
}

TEST(CustomKernelFilter, TheSeparableReferenceEqualsTheFull2DSum) {
  const ImageF32 src = make_random_f32(9, 6, 3);
  for (const FilterKernel& kernel : kernel_cases())
    for (BorderMode border : kAllBorderModes) {
      const FilterParams p = with_kernel(kernel, border);
      const std::vector<double> separable = reference_gaussian(src.view(), p);
      const std::vector<double> full = reference_gaussian_2d(src.view(), p);
      ASSERT_EQ(separable.size(), full.size());
      for (std::size_t i = 0; i < full.size(); ++i)
        ASSERT_NEAR(separable[i], full[i], 1e-13) << describe(p) << " at " << i;
    }
}

TEST(CustomKernelFilter, CpuFiltersMatchTheReferenceForEveryKindBorderAndFormat) {
  struct Size {
    int width, height;
  };
  // 2×1 and 3×2: every kernel reaches beyond the image side; 23×19: interior and borders.
  for (const Size size : {Size{2, 1}, Size{3, 2}, Size{23, 19}})
    for (const PixelFormat format : {PixelFormat::F32, PixelFormat::Rgba8, PixelFormat::Grey16, PixelFormat::Rgb16F}) {
      // Samples up to the type's top (u8 levels of make_random_rgba8 / 255 scaled to each type).
      const ImageRgba8 seed = make_random_rgba8(size.width, size.height, 77);
      HostImage src(size.width, size.height, format);
      for (int y = 0; y < size.height; ++y)
        for (int x = 0; x < size.width; ++x)
          for (int c = 0; c < src.channels(); ++c) {
            const Rgba8 px = seed.at(x, y);
            const std::uint8_t v[4] = {px.r, px.g, px.b, px.a};
            src.set_sample(x, y, c, static_cast<float>(v[c] / 255.0 * nominal_max(sample_type(format))));
          }
      for (const FilterKernel& kernel : kernel_cases())
        for (BorderMode border : kAllBorderModes) {
          const FilterParams p = with_kernel(kernel, border);
          const std::string where = std::string(to_string(format)) + " " + std::to_string(size.width) + "x" +
                                    std::to_string(size.height) + ", " + describe(p);
          const std::vector<double> reference = reference_gaussian(src.view(), p);
          HostImage single(size.width, size.height, format), openmp(size.width, size.height, format);
          cpu_gaussian_filter(src.view(), single.view(), p, CpuThreading::Single);
          cpu_gaussian_filter(src.view(), openmp.view(), p, CpuThreading::OpenMP);
          EXPECT_EQ(single, openmp) << where << ": OpenMP differs from one thread";
          const AccuracyStats stats = compare_with_reference(single.view(), reference, default_peak(format));
          // The integer stores saturate: compare with the reference clamped as they clamp.
          if (is_integer(sample_type(format))) {
            std::vector<double> clamped = reference;
            for (double& v : clamped) v = std::min(std::max(v, 0.0), nominal_max(sample_type(format)));
            const AccuracyStats levels = compare_with_reference(single.view(), clamped, default_peak(format));
            EXPECT_LE(levels.max_abs_error, 0.51) << where << ": " << describe(levels);
          } else {
            EXPECT_LE(stats.max_relative_error, sample_type(format) == SampleType::F16 ? 1e-5 + kHalfStoreRelativeError
                                                                                      : 1e-5)
                << where << ": " << describe(stats);
          }
        }
    }
}

TEST(CustomKernelFilter, ARankOneMatrixGivesThePairsBytes) {
  const ImageRgba8 src = make_random_rgba8(31, 17, 5);
  const std::vector<double> column{1, 4, 6, 4, 1}, row{1, 2, 0, -1, 3, 1, 1};
  FilterKernel matrix = outer(column, row);
  FilterKernel pair = FilterKernel::pair(row, column);
  matrix.normalize = pair.normalize = true;
  ImageRgba8 a(31, 17), b(31, 17);
  cpu_gaussian_filter(src.view(), a.view(), with_kernel(matrix, BorderMode::Mirror), CpuThreading::OpenMP);
  cpu_gaussian_filter(src.view(), b.view(), with_kernel(pair, BorderMode::Mirror), CpuThreading::OpenMP);
  EXPECT_EQ(std::memcmp(a.data(), b.data(), 31 * 17 * 4), 0);
}

// Floor and ceil: the stored level is floor (ceil) of the float32 result, which is within float
// rounding of the float64 one. A tie is a sample whose float64 value is not a whole number but lies
// within 1e-3 of one (the float32 error here is below 1e-4 levels); only ties may differ, by one
// level. (Whole float64 values come from integer weights on integer samples: float32 holds them
// exactly, so they are no ties.)
TEST(CustomKernelFilter, FloorAndCeilStoreTheFloorAndCeilOfTheFloat64Result) {
  const ImageRgba8 src = make_random_rgba8(40, 30, 9);
  for (const FilterKernel& kernel : kernel_cases())
    for (IntegerRounding rounding : {IntegerRounding::Floor, IntegerRounding::Ceil}) {
      FilterParams p = with_kernel(kernel, BorderMode::Constant);
      p.rounding = rounding;
      const std::vector<double> reference = reference_gaussian(src.view(), p);
      ImageRgba8 out(40, 30);
      cpu_gaussian_filter(src.view(), out.view(), p, CpuThreading::Single);
      const std::uint8_t* bytes = reinterpret_cast<const std::uint8_t*>(out.data());
      int ties = 0;
      for (std::size_t i = 0; i < reference.size(); ++i) {
        const double value = reference[i];
        const double level = rounding == IntegerRounding::Floor ? std::floor(value) : std::ceil(value);
        const double expected = std::min(std::max(level, 0.0), 255.0);
        if (value != std::round(value) && std::fabs(value - std::round(value)) < 1e-3) {
          ties += value > -1.0 && value < 256.0;
          EXPECT_LE(std::fabs(bytes[i] - expected), 1.0) << describe(p) << " at " << i;
          continue;
        }
        ASSERT_EQ(bytes[i], expected) << describe(p) << " at " << i << ": float64 " << value;
      }
      EXPECT_LT(ties, 20) << describe(p);
    }
}

// With integer weights, integer samples and --normalize, every sum is an exact float32 integer and
// the one division is correctly rounded: floor is exact, ties included (integer arithmetic here).
TEST(CustomKernelFilter, AnIntegerTableWithNormalizeFloorsExactly) {
  const int w = 37, h = 23;
  ImageRgba8 src = make_random_rgba8(w, h, 21);
  for (int x = 0; x < 12; ++x)  // a flat patch: its sums are exact multiples of the divisor
    for (int y = 0; y < 9; ++y) src.at(x, y) = Rgba8{200, 255, 7, 128};
  const std::vector<std::vector<long long>> tables = {
      {4, 7, 9, 7, 4, 7, 14, 17, 14, 7, 9, 17, 22, 17, 9, 7, 14, 17, 14, 7, 4, 7, 9, 7, 4},  // round(256 G(1.5)): 2D
      {1, 4, 6, 4, 1, 4, 16, 24, 16, 4, 6, 24, 36, 24, 6, 4, 16, 24, 16, 4, 1, 4, 6, 4, 1}};  // binomial: rank 1
  for (const auto& table : tables)
    for (BorderMode border : {BorderMode::Constant, BorderMode::Wrap}) {
      long long divisor = 0;
      for (long long t : table) divisor += t;
      FilterKernel kernel = FilterKernel::matrix_2d(5, 5, std::vector<double>(table.begin(), table.end()));
      kernel.normalize = true;
      FilterParams p = with_kernel(kernel, border);
      p.rounding = IntegerRounding::Floor;
      ImageRgba8 out(w, h);
      cpu_gaussian_filter(src.view(), out.view(), p, CpuThreading::OpenMP);
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
          for (int c = 0; c < 4; ++c) {
            long long sum = 0;
            for (int j = 0; j < 5; ++j)
              for (int i = 0; i < 5; ++i) {
                const int sy = border_index(y + j - 2, h, border), sx = border_index(x + i - 2, w, border);
                if (sx < 0 || sy < 0) continue;
                const Rgba8 px = src.at(sx, sy);
                const std::uint8_t v[4] = {px.r, px.g, px.b, px.a};
                sum += table[j * 5 + i] * v[c];
              }
            const Rgba8 px = out.at(x, y);
            const std::uint8_t got[4] = {px.r, px.g, px.b, px.a};
            ASSERT_EQ(got[c], sum / divisor) << describe(p) << " at " << x << "," << y << " channel " << c;
          }
    }
}

TEST(CustomKernelFilter, TheCostCountsFoldedSymmetricTapsAndTheMatrixsNonZeroWeights) {
  FilterProblem problem{10, 10, PixelFormat::F32, with_kernel(FilterKernel::mask({1, 2, 1}))};
  EXPECT_EQ(cpu_filter_cost(problem), 2 * 2 * 100.0);
  problem.params.kernel = FilterKernel::pair({1, 2, 3}, {1, 2, 1});
  EXPECT_EQ(cpu_filter_cost(problem), (3 + 2) * 100.0);
  problem.params.kernel = FilterKernel::matrix_2d(3, 3, {1, 0, 2, 0, 5, 0, 3, 0, 1});
  EXPECT_EQ(cpu_filter_cost(problem), 5 * 100.0);
}

// ---- refusals ----------------------------------------------------------------------------------

TEST(KernelRefusals, MethodsRefuseWhatTheyCannotRunWithTheReason) {
  MethodInfo gaussian_only{"some_gpu_method", "", "", "", Backend::Cuda};
  MethodInfo separable = gaussian_only;
  separable.kernels = KernelSupport::Separable;
  MethodInfo any = gaussian_only;
  any.kernels = KernelSupport::Any;
  any.all_roundings = true;

  const FilterParams gaussian;
  const FilterParams mask = with_kernel(FilterKernel::mask({1, 2, 1}));
  const FilterParams rank_one = with_kernel(outer({1, 2, 1}, {1, 0, -1}));
  const FilterParams full = with_kernel(FilterKernel::matrix_2d(3, 3, {1, 2, 3, 4, 5, 6, 7, 8, 10}));
  EXPECT_EQ(kernel_refusal(gaussian_only, gaussian), "");
  EXPECT_TRUE(contains(kernel_refusal(gaussian_only, mask), "runs the Gaussian of --sigma only"))
      << kernel_refusal(gaussian_only, mask);
  EXPECT_EQ(kernel_refusal(separable, mask), "");
  EXPECT_EQ(kernel_refusal(separable, rank_one), "");
  EXPECT_TRUE(contains(kernel_refusal(separable, full), "not the outer product")) << kernel_refusal(separable, full);
  EXPECT_EQ(kernel_refusal(any, full), "");

  FilterProblem problem{8, 8, PixelFormat::Rgba8, gaussian};
  problem.params.rounding = IntegerRounding::Floor;
  EXPECT_TRUE(contains(rounding_refusal(gaussian_only, problem), "rounded half up only, not by floor"))
      << rounding_refusal(gaussian_only, problem);
  EXPECT_EQ(rounding_refusal(any, problem), "");
  problem.format = PixelFormat::F32;  // nothing is rounded
  EXPECT_EQ(rounding_refusal(gaussian_only, problem), "");
  problem.format = PixelFormat::Rgba8;
  EXPECT_EQ(common_refusal(gaussian_only, problem), rounding_refusal(gaussian_only, problem));
  problem.params = mask;
  EXPECT_EQ(common_refusal(gaussian_only, problem), kernel_refusal(gaussian_only, mask));
}

}  // namespace
}  // namespace gausslab
