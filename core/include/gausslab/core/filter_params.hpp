#pragma once
// The parameters of one filter (the Gaussian of sigma and truncate or radius, or a custom kernel),
// their limits, and the problem a method is asked to solve.
#include <string>

#include "gausslab/core/border.hpp"
#include "gausslab/core/filter_kernel.hpp"
#include "gausslab/core/pixel_format.hpp"

namespace gausslab {

inline constexpr double kMinSigma = 0.1;
inline constexpr double kMaxSigma = 200.0;
inline constexpr double kDefaultSigma = 2.0;
inline constexpr double kMinTruncate = 0.5;
inline constexpr double kMaxTruncate = 10.0;
inline constexpr double kDefaultTruncate = 4.0;  // SciPy's default
inline constexpr int kMaxRadius = 2000;          // sigma 200 at truncate 10
// Images larger than this many pixels are refused up front (4 GiB of RGBA8).
inline constexpr long long kMaxPixels = 1LL << 30;
// Longest side: border_index works in int with a period of 2 × side, which must not overflow.
inline constexpr int kMaxSide = 1 << 29;

// The axes the filter runs along.
enum class FilterAxes : int {
  Both,  // an image: along rows and columns, as scipy.ndimage.gaussian_filter (the default)
  // Along x only, each row on its own, as scipy.ndimage.gaussian_filter1d(axis=-1): a 1D signal is
  // a 1×N image filtered this way. (A 1×N image filtered with Both is still blurred against its
  // border rows: with 'constant' that darkens it, with the other modes it leaves it unchanged.)
  RowsOnly,
};

// "both axes" or "along x only".
const char* to_string(FilterAxes axes);

struct FilterParams {
  double sigma = kDefaultSigma;
  double truncate = kDefaultTruncate;
  BorderMode border = BorderMode::Reflect;
  int fixed_radius = -1;  // >= 0 sets the radius directly instead of floor(truncate * sigma + 0.5)
  FilterAxes axes = FilterAxes::Both;
  // The Gaussian of the fields above (kind Gaussian, the default), or a custom kernel, whose weights
  // replace them (sigma, truncate and fixed_radius are then unused).
  FilterKernel kernel{};
  // How integer outputs (u8, u16) are stored: half up (the default), floor or ceil. Float outputs
  // keep what the arithmetic gives, whatever this says.
  IntegerRounding rounding = IntegerRounding::Nearest;

  // The Gaussian's radius: floor(truncate * sigma + 0.5) as SciPy computes it, or fixed_radius when
  // that is set. For a custom kernel, its farthest reach from the centre along either axis (the
  // halo a band of rows needs).
  int radius() const;
  // Taps per 1D pass: 2 * radius + 1.
  int taps() const { return 2 * radius() + 1; }
  bool custom_kernel() const { return kernel.custom(); }
};

bool operator==(const FilterParams& a, const FilterParams& b);
inline bool operator!=(const FilterParams& a, const FilterParams& b) { return !(a == b); }

// What a method is asked to do: filter an image of this size and format with these parameters.
struct FilterProblem {
  int width = 0;
  int height = 0;
  PixelFormat format = PixelFormat::Rgba8;
  FilterParams params;

  long long pixel_count() const { return static_cast<long long>(width) * height; }
};

bool operator==(const FilterProblem& a, const FilterProblem& b);
inline bool operator!=(const FilterProblem& a, const FilterProblem& b) { return !(a == b); }

// Empty when valid; otherwise a message that names the bad value and the allowed range
// (NaN, sigma outside [0.1, 200], truncate outside [0.5, 10], radius outside [0, 2000]; for a custom
// kernel validate(FilterKernel)'s checks, and a signal (along x only) given more than a 1D mask).
std::string validate(const FilterParams& params);
// As above, plus the image size (at least 1×1, at most kMaxPixels).
std::string validate(const FilterProblem& problem);

// "sigma 2, truncate 4, radius 8, reflect" (+ ", along x only", + ", rounding floor"), or for a
// custom kernel "kernel mask 1,2,1, reflect": for logs and file names.
std::string describe(const FilterParams& params);

// The taps every method runs (filter_kernel.hpp): the Gaussian's weights (gaussian_weights, sum 1)
// on both axes, or the custom kernel's, flipped for convolve, a rank-1 matrix as its factors, and
// the divisor of normalize. `column` is empty along x only. Throws std::invalid_argument when
// validate(params) fails.
KernelTaps kernel_taps(const FilterParams& params);

}  // namespace gausslab
