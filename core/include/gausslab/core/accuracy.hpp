#pragma once
// Error of a method's result against the float64 reference.
#include <cstddef>
#include <string>
#include <vector>

#include "gausslab/core/image.hpp"

namespace gausslab {

struct AccuracyStats {
  double max_abs_error = 0.0;  // in the image's units (8-bit levels for RGBA8)
  double rms_error = 0.0;
  double max_relative_error = 0.0;  // max |result - reference| / max |reference|
  double relative_l2 = 0.0;         // ||result - reference||_2 / ||reference||_2
  double psnr_db = 0.0;             // 20 log10(peak / rms); infinity when identical
  std::size_t samples = 0;
  std::size_t nonfinite = 0;  // NaN or infinite results: any is a failure
};

// The error a method promises against the float64 reference (reference_gaussian, unrounded).
// Every method states one (Method::accuracy_bound); the tests, the benchmark and the viewer's
// live check all judge a result with meets().
struct AccuracyBound {
  double max_relative_error = 1e-5;  // float images: max |result - reference| / max |reference|
  double max_error_8bit = 0.51;      // u8 images: max |result - reference| in 8-bit levels
  double max_error_16bit = 0.51;     // u16 images: the same in 16-bit levels
};

// What storing to f16 adds to a float result's error, relative to the peak: half a unit in the last
// place of an 11-bit significand (round to nearest), 2^-11.
inline constexpr double kHalfStoreRelativeError = 1.0 / 2048.0;

// The error that the bound limits for an image of `format`: max_abs_error in the type's own levels
// for the integer types, max_relative_error for the float types.
double bounded_error(const AccuracyStats& stats, PixelFormat format);
// The bound in the same unit (for f16, the float bound plus the store's rounding).
double bound_for(const AccuracyBound& bound, PixelFormat format);
// No NaN or infinity, and bounded_error within bound_for.
bool meets(const AccuracyStats& stats, const AccuracyBound& bound, PixelFormat format);
// "1e-05 relative (F32), 0.51 levels (RGBA8)": the promise in words, for tooltips and help.
std::string describe(const AccuracyBound& bound);

// Compares every channel of `result` (host memory) with `reference` (interleaved like the result,
// as reference_gaussian returns it). `peak` is the signal peak for PSNR: 255 for RGBA8, 1 for
// float images in [0, 1].
AccuracyStats compare_with_reference(const ConstImageView& result, const std::vector<double>& reference,
                                     double peak);

// The peak that compare_with_reference should use for an image of this format.
double default_peak(PixelFormat format);

// "max 3.1e-06, PSNR 118.2 dB"
std::string describe(const AccuracyStats& stats);

}  // namespace gausslab
