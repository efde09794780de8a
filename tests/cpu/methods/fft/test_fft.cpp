// The cuFFT method's host-side maths (cuda/methods/fft_sizes.hpp), checked without a GPU:
// - the fast FFT size against a brute-force search;
// - the padded layout, its memory estimate and the method's refusals;
// - the kernel spectrum factors against a direct DFT of the centred, wrapped kernel;
// - the whole padding argument: the method's stages emulated in float64 on the host (pad with the
//   same index functions as the kernels → DFT → multiply by the same factors → inverse DFT with
//   cuFFT's C2R conventions → crop) equal reference_gaussian for every border mode, also when the
//   radius exceeds the image side many times. That leaves cuFFT and the kernels' thread mapping as
//   the only parts that need the GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <string>
#include <vector>

#include "fft_sizes.hpp"
#include "gausslab/core/gaussian_weights.hpp"
#include "gausslab/core/image.hpp"
#include "gausslab/core/reference.hpp"
#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/device.hpp"
#include "gausslab/cuda/registry.hpp"
#include "kit/method_tests.hpp"
#include "kit/channel_route.hpp"

namespace gausslab {
namespace {

GAUSSLAB_METHOD_TESTS("fft", FftPadding);

using namespace fft;
using Complex = std::complex<double>;

const double kTwoPi = 2.0 * std::acos(-1.0);

bool is_7_smooth(long long n) {
  if (n < 1) return false;
  for (long long p : {2, 3, 5, 7})
    while (n % p == 0) n /= p;
  return n == 1;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

FilterParams params_for(double sigma, BorderMode border) {
  FilterParams params;
  params.sigma = sigma;
  params.border = border;
  return params;
}

// ---- fast sizes --------------------------------------------------------------------------------

TEST(FastFftSize, IsTheSmallest7SmoothSizeAtLeastTheMinimum) {
  for (bool even : {false, true}) {
    for (long long n = 1; n <= 5000; ++n) {
      const long long size = fast_fft_size(n, even);
      ASSERT_GE(size, n);
      ASSERT_TRUE(is_7_smooth(size)) << n << " -> " << size;
      if (even) {
        ASSERT_EQ(size % 2, 0) << n << " -> " << size;
      }
      for (long long smaller = n; smaller < size; ++smaller)
        ASSERT_FALSE(is_7_smooth(smaller) && (!even || smaller % 2 == 0))
            << n << " -> " << size << " but " << smaller << " also fits";
    }
  }
}

TEST(FastFftSize, KnownValues) {
  EXPECT_EQ(fast_fft_size(0), 1);
  EXPECT_EQ(fast_fft_size(1), 1);
  EXPECT_EQ(fast_fft_size(1, true), 2);
  EXPECT_EQ(fast_fft_size(11), 12);
  EXPECT_EQ(fast_fft_size(13), 14);
  EXPECT_EQ(fast_fft_size(1080), 1080);
  EXPECT_EQ(fast_fft_size(1601), 1620);        // 1×1 at sigma 200: 1 + 2 · 800
  EXPECT_EQ(fast_fft_size(4099, true), 4116);  // 2^2 · 3 · 7^3
  EXPECT_EQ(fast_fft_size(5697, true), 5760);  // 2^7 · 3^2 · 5
  EXPECT_EQ(fast_fft_size(1LL << 30), 1LL << 30);
}

TEST(FastFftSize, HugeSidesStay7SmoothWithoutOverflow) {
  for (long long n : {(1LL << 30) + 4001, (1LL << 31) - 1, 3'000'000'019LL}) {
    const long long size = fast_fft_size(n, true);
    EXPECT_GE(size, n);
    EXPECT_LT(size, n + n / 8) << "7-smooth numbers are dense; the next one is close";
    EXPECT_TRUE(is_7_smooth(size)) << size;
  }
}

// ---- layout, memory and the method's refusals --------------------------------------------------

TEST(FftLayout, PaddedSidesCoverImagePlusTwoRadiiAndAreFast) {
  for (int side : {1, 2, 7, 17, 263, 1080, 4099})
    for (int radius : {0, 1, 4, 32, 800, 2000}) {
      const long long width = padded_width_for(side, radius);
      const long long height = padded_height_for(side, radius);
      EXPECT_GE(width, std::max<long long>(side + 2LL * radius, kMinPaddedSide));
      EXPECT_GE(height, std::max<long long>(side + 2LL * radius, kMinPaddedSide));
      EXPECT_EQ(width % 2, 0);
      EXPECT_TRUE(is_7_smooth(width) && is_7_smooth(height));
    }
  const FftLayout layout = make_layout({1, 1, PixelFormat::Rgba8, params_for(200, BorderMode::Reflect)});
  EXPECT_EQ(layout.radius, 800);
  EXPECT_EQ(layout.padded_width, 1620);
  EXPECT_EQ(layout.padded_height, 1620);
  EXPECT_EQ(layout.channels, 4);
  EXPECT_EQ(layout.spectrum_width(), 811);
}

TEST(FftLayout, IndicesPackChannelPlanesRowMajor) {
  FftLayout layout;
  layout.channels = 4;
  layout.padded_width = 10;
  layout.padded_height = 7;
  EXPECT_EQ(layout.real_index(0, 0, 0), 0u);
  EXPECT_EQ(layout.real_index(0, 9, 0), 9u);
  EXPECT_EQ(layout.real_index(0, 0, 1), 10u);
  EXPECT_EQ(layout.real_index(2, 3, 4), 2u * 70 + 4 * 10 + 3);
  EXPECT_EQ(layout.spectrum_width(), 6);
  EXPECT_EQ(layout.spectrum_index(3, 5, 6), 3u * 42 + 6 * 6 + 5);
  EXPECT_EQ(layout.real_index(3, 9, 6) + 1, 4 * layout.real_plane_size()) << "the last sample ends the buffer";
  EXPECT_EQ(layout.spectrum_index(3, 5, 6) + 1, 4 * layout.spectrum_plane_size());
}

TEST(FftLayout, PaddedPositionsHoldTheBorderExtension) {
  // reflect, n = 3 (a b c), radius 4: c c b a | a b c | c b a a b, positions 0..3 being image
  // indices -4..-1 (half-sample symmetric, period 6).
  const int expected[] = {2, 2, 1, 0, 0, 1, 2, 2, 1, 0, 0, 1};
  for (int p = 0; p < 12; ++p) EXPECT_EQ(padded_source_index(p, 4, 3, BorderMode::Reflect), expected[p]) << p;
  EXPECT_EQ(padded_source_index(0, 4, 3, BorderMode::Constant), -1);
  EXPECT_EQ(padded_source_index(5, 4, 3, BorderMode::Constant), 1);
  EXPECT_EQ(padded_source_index(7, 4, 3, BorderMode::Constant), -1);
  EXPECT_EQ(padded_output_index(0, 4), 4);
}

TEST(FftMemory, FourKSquareRgba8AtSigma200FitsTheBudget) {
  const FilterProblem problem{4096, 4096, PixelFormat::Rgba8, params_for(200, BorderMode::Reflect)};
  const FftLayout layout = make_layout(problem);
  EXPECT_GE(layout.padded_width, 4096 + 1600);
  const FftMemory memory = estimate_memory(layout.padded_width, layout.padded_height, layout.channels);
  EXPECT_NEAR(memory.real_planes_bytes, 4.0 * layout.padded_width * layout.padded_height * 4, 1.0);
  EXPECT_NEAR(memory.spectra_bytes, 4.0 * layout.spectrum_width() * layout.padded_height * 8, 1.0);
  EXPECT_LT(memory.total_bytes, 2.0 * (1LL << 30));
  EXPECT_GT(memory.total_bytes, 1.0 * (1LL << 30));
}

std::unique_ptr<Method> fft_method_instance() {
  const MethodEntry* entry = find_method("fft");
  if (!entry) throw std::runtime_error("the registry has no 'fft' method");
  return entry->create();
}

TEST(FftMethod, DescribesItselfAndPromisesItsBound) {
  const std::unique_ptr<Method> method = fft_method_instance();
  EXPECT_EQ(method->info().backend, Backend::Cuda);
  EXPECT_TRUE(contains(method->info().summary, "R2C")) << method->info().summary;
  const AccuracyBound bound = method->accuracy_bound({64, 64, PixelFormat::F32, params_for(8, BorderMode::Reflect)});
  EXPECT_DOUBLE_EQ(bound.max_relative_error, 1e-4);
  EXPECT_GE(bound.max_error_8bit, 0.5 + 255 * bound.max_relative_error) << "rounding plus the float error";
  EXPECT_LE(bound.max_error_8bit, 0.55);
}

TEST(FftMethod, AcceptsEveryBorderModeAndTinyOrLargeProblemsWithoutADevice) {
  const std::unique_ptr<Method> method = fft_method_instance();
  for (BorderMode border : kAllBorderModes) {
    EXPECT_EQ(method->unsupported_reason({1, 1, PixelFormat::Rgba8, params_for(200, border)}), "");
    EXPECT_EQ(method->unsupported_reason({4096, 4096, PixelFormat::Rgba8, params_for(200, border)}), "");
    EXPECT_EQ(method->unsupported_reason({8192, 8192, PixelFormat::F32, params_for(8, border)}), "");
  }
}

TEST(FftMethod, RefusesProblemsBeyondTheMemoryBudgetWithTheFigures) {
  const std::unique_ptr<Method> method = fft_method_instance();
  const FilterProblem huge{16384, 16384, PixelFormat::Rgba8, params_for(50, BorderMode::Reflect)};
  const std::string reason = method->unsupported_reason(huge);
  EXPECT_TRUE(contains(reason, "GiB")) << reason;
  EXPECT_TRUE(contains(reason, "budget of 8 GiB")) << reason;
  EXPECT_TRUE(contains(reason, "lower sigma or the image size")) << reason;
  EXPECT_THROW(method->prepare(huge), std::invalid_argument) << "refused before touching any device";
  // Invalid parameters are refused by the shared validation, also before any device call.
  FilterProblem nan_sigma{8, 8, PixelFormat::F32, params_for(std::nan(""), BorderMode::Wrap)};
  EXPECT_FALSE(method->unsupported_reason(nan_sigma).empty());
  EXPECT_THROW(method->prepare(nan_sigma), std::invalid_argument);
}

TEST(FftMethod, FailsCleanlyWithoutACudaDevice) {
  if (cuda_device_status().available) GTEST_SKIP() << "a CUDA device is present; tests/gpu covers the method";
  const std::unique_ptr<Method> method = fft_method_instance();
  Image<float> image(4, 4);
  EXPECT_THROW(method->run(image.view(), image.view(), nullptr, nullptr), std::logic_error)
      << "run() before prepare() must be refused";
  try {
    method->prepare({4, 4, PixelFormat::F32, params_for(1, BorderMode::Reflect)});
    ADD_FAILURE() << "prepare() succeeded without a CUDA device";
  } catch (const CudaError& e) {
    EXPECT_TRUE(is_no_device_error(e.code())) << e.what();
  }
  EXPECT_EQ(method->prepared_problem().width, 0) << "a failed prepare leaves nothing to run";
  EXPECT_THROW(method->run(image.view(), image.view(), nullptr, nullptr), std::logic_error);
}

// ---- the kernel spectrum -----------------------------------------------------------------------

// The DFT of the kernel as the method's design describes it: taps placed centred on sample 0 and
// wrapped (ifftshift) in a line of `length`, transformed directly.
std::vector<Complex> direct_kernel_dft(const std::vector<double>& weights, int length) {
  const int radius = static_cast<int>(weights.size() / 2);
  std::vector<double> line(length, 0.0);
  for (int m = -radius; m <= radius; ++m) line[(m + length) % length] += weights[m + radius];
  std::vector<Complex> spectrum(length);
  for (int u = 0; u < length; ++u)
    for (int j = 0; j < length; ++j)
      spectrum[u] += line[j] * std::polar(1.0, -kTwoPi * static_cast<double>((1LL * u * j) % length) / length);
  return spectrum;
}

TEST(KernelSpectrum, MatchesTheDirectDftOfTheCentredWrappedKernel) {
  struct Case {
    double sigma;
    int radius;
    int length;
  };
  for (const Case& c : {Case{0.1, 0, 8}, Case{0.6, 2, 5}, Case{1.0, 4, 9}, Case{2.0, 8, 18}, Case{2.0, 8, 17},
                        Case{5.0, 20, 49}, Case{5.0, 20, 120}, Case{3.0, 12, 25}}) {
    const std::vector<double> weights = gaussian_weights(c.sigma, c.radius);
    const std::vector<double> fast = symmetric_kernel_dft(weights, c.length, c.length);
    const std::vector<Complex> direct = direct_kernel_dft(weights, c.length);
    for (int u = 0; u < c.length; ++u) {
      EXPECT_NEAR(fast[u], direct[u].real(), 1e-14) << "sigma " << c.sigma << " length " << c.length << " u " << u;
      EXPECT_NEAR(direct[u].imag(), 0.0, 1e-14) << "an even kernel has a real spectrum";
    }
  }
}

TEST(KernelSpectrum, FactorsAreEvenCarryTheNormalisationAndKeepDcGainOne) {
  const FftLayout layout = make_layout({13, 17, PixelFormat::Rgba8, params_for(2.5, BorderMode::Reflect)});
  const KernelSpectrum spectrum = kernel_spectrum(layout, gaussian_weights(2.5, layout.radius));
  ASSERT_EQ(spectrum.x.size(), static_cast<std::size_t>(layout.spectrum_width()));
  ASSERT_EQ(spectrum.y.size(), static_cast<std::size_t>(layout.padded_height));
  for (int v = 1; v < layout.padded_height; ++v) EXPECT_EQ(spectrum.y[v], spectrum.y[layout.padded_height - v]);
  const double size = static_cast<double>(layout.padded_width) * layout.padded_height;
  EXPECT_NEAR(spectrum.x[0] * spectrum.y[0] * size, 1.0, 1e-14) << "the weights sum to 1";
  EXPECT_THROW(kernel_spectrum(layout, gaussian_weights(2.5, layout.radius + 1)), std::invalid_argument);
  EXPECT_THROW(symmetric_kernel_dft(gaussian_weights(2.5, 10), 20, 20), std::invalid_argument) << "21 taps in 20";
}

// ---- the padding argument: the method's stages emulated in float64 -----------------------------

// run() of the fft method on the host: the same layout, index functions and spectrum factors as
// the kernels use; cuFFT's unnormalised R2C and C2R (half spectrum along x) as direct DFTs.
// Returns width × height × channels values, interleaved like reference_gaussian.
std::vector<double> emulate_fft_method(const ConstImageView& src, const FilterParams& params) {
  const FftLayout layout = make_layout({src.width, src.height, src.format, params});
  const int pw = layout.padded_width, ph = layout.padded_height, sw = layout.spectrum_width();
  const int channels = layout.channels;

  // pad
  std::vector<double> planes(channels * layout.real_plane_size());
  for (int c = 0; c < channels; ++c)
    for (int py = 0; py < ph; ++py)
      for (int px = 0; px < pw; ++px) {
        const int sx = padded_source_index(px, layout.radius, layout.width, params.border);
        const int sy = padded_source_index(py, layout.radius, layout.height, params.border);
        planes[layout.real_index(c, px, py)] = (sx < 0 || sy < 0) ? 0.0 : channel_value(src, sx, sy, c);
      }

  auto twiddle = [](long long k, int n, double sign) {
    return std::polar(1.0, sign * kTwoPi * static_cast<double>(k % n) / n);
  };

  // forward: along x to the half spectrum, then along y
  std::vector<Complex> spectra(channels * layout.spectrum_plane_size());
  std::vector<Complex> rows(static_cast<std::size_t>(ph) * sw);
  for (int c = 0; c < channels; ++c) {
    for (int py = 0; py < ph; ++py)
      for (int u = 0; u < sw; ++u) {
        Complex sum = 0;
        for (int px = 0; px < pw; ++px) sum += planes[layout.real_index(c, px, py)] * twiddle(1LL * u * px, pw, -1);
        rows[static_cast<std::size_t>(py) * sw + u] = sum;
      }
    for (int v = 0; v < ph; ++v)
      for (int u = 0; u < sw; ++u) {
        Complex sum = 0;
        for (int py = 0; py < ph; ++py) sum += rows[static_cast<std::size_t>(py) * sw + u] * twiddle(1LL * v * py, ph, -1);
        spectra[layout.spectrum_index(c, u, v)] = sum;
      }
  }

  // multiply
  const KernelSpectrum factors = kernel_spectrum(layout, gaussian_weights(params.sigma, layout.radius));
  for (int c = 0; c < channels; ++c)
    for (int v = 0; v < ph; ++v)
      for (int u = 0; u < sw; ++u) spectra[layout.spectrum_index(c, u, v)] *= factors.x[u] * factors.y[v];

  // inverse (C2R): along y, then along x completing the spectrum by Hermitian symmetry. Columns
  // u = 0 and u = Pw/2 (even Pw) appear once, every other u also as its conjugate at Pw - u.
  for (int c = 0; c < channels; ++c) {
    for (int py = 0; py < ph; ++py)
      for (int u = 0; u < sw; ++u) {
        Complex sum = 0;
        for (int v = 0; v < ph; ++v) sum += spectra[layout.spectrum_index(c, u, v)] * twiddle(1LL * v * py, ph, +1);
        rows[static_cast<std::size_t>(py) * sw + u] = sum;
      }
    for (int py = 0; py < ph; ++py)
      for (int px = 0; px < pw; ++px) {
        double sum = 0;
        for (int u = 0; u < sw; ++u) {
          const bool self_conjugate = u == 0 || 2 * u == pw;
          sum += (self_conjugate ? 1.0 : 2.0) * (rows[static_cast<std::size_t>(py) * sw + u] * twiddle(1LL * u * px, pw, +1)).real();
        }
        planes[layout.real_index(c, px, py)] = sum;
      }
  }

  // crop
  std::vector<double> result(static_cast<std::size_t>(src.width) * src.height * channels);
  for (int y = 0; y < src.height; ++y)
    for (int x = 0; x < src.width; ++x)
      for (int c = 0; c < channels; ++c)
        result[(static_cast<std::size_t>(y) * src.width + x) * channels + c] = planes[layout.real_index(
            c, padded_output_index(x, layout.radius), padded_output_index(y, layout.radius))];
  return result;
}

template <class Pixel>
void expect_emulation_matches_reference(const Image<Pixel>& image, const FilterParams& params) {
  const std::vector<double> emulated = emulate_fft_method(image.view(), params);
  const std::vector<double> reference = reference_gaussian(image.view(), params);
  ASSERT_EQ(emulated.size(), reference.size());
  double max_reference = 0, max_error = 0;
  for (std::size_t i = 0; i < reference.size(); ++i) {
    max_reference = std::max(max_reference, std::abs(reference[i]));
    max_error = std::max(max_error, std::abs(emulated[i] - reference[i]));
  }
  EXPECT_LE(max_error, 1e-12 * std::max(max_reference, 1.0))
      << to_string(Image<Pixel>::format()) << " " << image.width() << "×" << image.height() << ", "
      << describe(params) << ": max |emulated - reference| = " << max_error;
}

TEST(FftPadding, CircularConvolutionOfThePaddedImageIsExactForEveryBorderMode) {
  struct Size {
    int width, height;
  };
  // Radii 0, 2, 6 and 12 against sides of 1 to 9: the extension wraps around small images many times.
  for (const Size size : {Size{1, 1}, Size{1, 5}, Size{5, 1}, Size{3, 2}, Size{7, 5}, Size{4, 9}})
    for (double sigma : {0.1, 0.6, 1.5, 3.0})
      for (BorderMode border : kAllBorderModes) {
        const std::uint32_t seed = static_cast<std::uint32_t>(size.width * 31 + size.height);
        expect_emulation_matches_reference(make_random_f32(size.width, size.height, seed), params_for(sigma, border));
        expect_emulation_matches_reference(make_random_rgba8(size.width, size.height, seed), params_for(sigma, border));
      }
}

TEST(FftPadding, HoldsForAFixedRadiusAndAnotherTruncate) {
  for (BorderMode border : kAllBorderModes) {
    FilterParams fixed = params_for(2.0, border);
    fixed.fixed_radius = 3;  // a kernel truncated well inside its tail
    expect_emulation_matches_reference(make_random_f32(6, 4, 7), fixed);
    FilterParams wide = params_for(0.8, border);
    wide.truncate = 10;  // radius 8 on a 3×2 image
    expect_emulation_matches_reference(make_random_rgba8(3, 2, 9), wide);
  }
}

// The other formats as F32 planes, the emulated pipeline (exact but for the FFT's float round-off,
// which the bound covers) on each.
TEST(FftPadding, EveryOtherFormatThroughFloatPlanesMeetsTheBound) {
  const auto model = [](const ImageF32& src, const FilterParams& params) {
    const std::vector<double> values = emulate_fft_method(src.view(), params);
    ImageF32 out(src.width(), src.height());
    for (int y = 0; y < src.height(); ++y)
      for (int x = 0; x < src.width(); ++x)
        out.at(x, y) = static_cast<float>(values[static_cast<std::size_t>(y) * src.width() + x]);
    return out;
  };
  EXPECT_EQ(test::expect_routed_formats_meet_their_bound("fft", {0.6, 2.5}, model), 10);
}

}  // namespace
}  // namespace gausslab
