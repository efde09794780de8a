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
