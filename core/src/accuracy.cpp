#include "gausslab/core/accuracy.hpp"

#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

namespace gausslab {

AccuracyStats compare_with_reference(const ConstImageView& result, const std::vector<double>& reference,
                                     double peak) {
  const int channels = channel_count(result.format);
  const std::size_t expected = static_cast<std::size_t>(result.width) * result.height * channels;
  if (reference.size() != expected)
    throw std::invalid_argument("compare_with_reference: the reference has " + std::to_string(reference.size()) +
                                " values, the result " + std::to_string(expected));
  AccuracyStats stats;
  double sum_sq_error = 0.0, sum_sq_reference = 0.0, max_reference = 0.0;
  std::size_t i = 0;
  for (int y = 0; y < result.height; ++y)
    for (int x = 0; x < result.width; ++x)
      for (int c = 0; c < channels; ++c, ++i) {
        const double value = channel_value(result, x, y, c);
        if (!std::isfinite(value)) {
          ++stats.nonfinite;
          continue;
        }
        const double error = std::abs(value - reference[i]);
        stats.max_abs_error = std::max(stats.max_abs_error, error);
        sum_sq_error += error * error;
        sum_sq_reference += reference[i] * reference[i];
        max_reference = std::max(max_reference, std::abs(reference[i]));
      }
  stats.samples = expected;
  if (stats.nonfinite > 0) {
    const double inf = std::numeric_limits<double>::infinity();
    stats.max_abs_error = stats.max_relative_error = stats.relative_l2 = stats.rms_error = inf;
    stats.psnr_db = 0.0;
    return stats;
  }
  stats.rms_error = std::sqrt(sum_sq_error / static_cast<double>(expected));
  stats.max_relative_error = max_reference > 0 ? stats.max_abs_error / max_reference : stats.max_abs_error;
  stats.relative_l2 = sum_sq_reference > 0 ? std::sqrt(sum_sq_error / sum_sq_reference) : std::sqrt(sum_sq_error);
  stats.psnr_db = stats.rms_error > 0 ? 20.0 * std::log10(peak / stats.rms_error)
                                      : std::numeric_limits<double>::infinity();
  return stats;
}

double default_peak(PixelFormat format) { return nominal_max(sample_type(format)); }

double bounded_error(const AccuracyStats& stats, PixelFormat format) {
  return is_integer(sample_type(format)) ? stats.max_abs_error : stats.max_relative_error;
}

double bound_for(const AccuracyBound& bound, PixelFormat format) {
  switch (sample_type(format)) {
    case SampleType::U8: return bound.max_error_8bit;
    case SampleType::U16: return bound.max_error_16bit;
    case SampleType::F16: return bound.max_relative_error + kHalfStoreRelativeError;
    default: return bound.max_relative_error;
  }
}

bool meets(const AccuracyStats& stats, const AccuracyBound& bound, PixelFormat format) {
  return stats.nonfinite == 0 && bounded_error(stats, format) <= bound_for(bound, format);
}

std::string describe(const AccuracyBound& bound) {
  char text[128];
  std::snprintf(text, sizeof text, "%.2g relative (float), %.2f levels (8-bit), %.2f levels (16-bit)",
                bound.max_relative_error, bound.max_error_8bit, bound.max_error_16bit);
  return text;
}

std::string describe(const AccuracyStats& stats) {
  if (stats.nonfinite > 0) return std::to_string(stats.nonfinite) + " values are NaN or infinite";
  char text[96];
  if (std::isinf(stats.psnr_db))
    std::snprintf(text, sizeof text, "max error %.2g, identical to the reference", stats.max_abs_error);
  else
    std::snprintf(text, sizeof text, "max error %.2g, PSNR %.1f dB", stats.max_abs_error, stats.psnr_db);
  return text;
}

}  // namespace gausslab
