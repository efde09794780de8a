#include "gausslab/core/filter_params.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "gausslab/core/gaussian_weights.hpp"

namespace gausslab {

int FilterParams::radius() const {
  switch (kernel.kind) {
    case KernelKind::Gaussian:
      return fixed_radius >= 0 ? fixed_radius : gaussian_radius(sigma, truncate);
    case KernelKind::Mask:
      return static_cast<int>(kernel.x.size()) / 2;
    case KernelKind::Pair:
      return static_cast<int>(std::max(kernel.x.size(), kernel.y.size())) / 2;
    case KernelKind::Matrix:
      return std::max(kernel.matrix_width, kernel.matrix_height) / 2;
  }
  return 0;
}

bool operator==(const FilterParams& a, const FilterParams& b) {
  return a.sigma == b.sigma && a.truncate == b.truncate && a.border == b.border &&
         a.fixed_radius == b.fixed_radius && a.axes == b.axes && a.kernel == b.kernel && a.rounding == b.rounding;
}

bool operator==(const FilterProblem& a, const FilterProblem& b) {
  return a.width == b.width && a.height == b.height && a.format == b.format && a.params == b.params;
}

namespace {
std::string format_message(const char* fmt, double a, double b = 0, double c = 0) {
  char text[256];
  std::snprintf(text, sizeof text, fmt, a, b, c);
  return text;
}

// The shortest decimal that reads back as `value`: 200.0001 stays 200.0001 (%g would print 200,
// and "sigma 200 is outside [0.1, 200]" makes no sense).
std::string exact(double value) {
  char text[64];
  for (int digits = 6; digits <= 17; ++digits) {
    std::snprintf(text, sizeof text, "%.*g", digits, value);
    if (std::strtod(text, nullptr) == value) break;
  }
  return text;
}

std::string validate_gaussian(const FilterParams& p) {
  if (!std::isfinite(p.sigma))
    return "sigma must be a finite number; give a value between 0.1 and 200 pixels";
  if (p.sigma < kMinSigma || p.sigma > kMaxSigma)
    return "sigma " + exact(p.sigma) + format_message(" is outside the supported range [%g, %g] pixels", kMinSigma,
                                                      kMaxSigma);
  if (p.fixed_radius < 0) {
    if (!std::isfinite(p.truncate))
      return "truncate must be a finite number; give a value between 0.5 and 10 (SciPy's default is 4)";
    if (p.truncate < kMinTruncate || p.truncate > kMaxTruncate)
      return "truncate " + exact(p.truncate) +
             format_message(" is outside the supported range [%g, %g] (SciPy's default is 4)", kMinTruncate,
                            kMaxTruncate);
  }
  if (p.radius() > kMaxRadius)
    return format_message("radius %g is larger than the supported %g pixels", p.radius(), kMaxRadius);
  return {};
}

std::string validate_custom(const FilterParams& p) {
  if (std::string problem = validate(p.kernel); !problem.empty()) return problem;
  if (p.axes == FilterAxes::RowsOnly && p.kernel.kind != KernelKind::Mask)
    return std::string("a 1D signal is filtered along its one axis, so it takes a 1D mask (--kernel), not ") +
           (p.kernel.kind == KernelKind::Pair ? "an x and a y mask" : "a 2D kernel");
  return {};
}

}  // namespace

std::string validate(const FilterParams& p) {
  if (std::string problem = p.custom_kernel() ? validate_custom(p) : validate_gaussian(p); !problem.empty())
    return problem;
  if (static_cast<unsigned>(p.rounding) > static_cast<unsigned>(IntegerRounding::Ceil))
    return "unknown rounding; use nearest, floor or ceil";
  if (static_cast<unsigned>(p.border) >= static_cast<unsigned>(BorderMode::Count))
    return "unknown border mode; use one of " + border_mode_list();
  if (p.axes != FilterAxes::Both && p.axes != FilterAxes::RowsOnly) return "unknown filter axes";
  return {};
}

std::string validate(const FilterProblem& problem) {
  if (problem.width < 1 || problem.height < 1)
    return format_message("image size %g×%g is empty; an image needs at least 1×1 pixels", problem.width,
                          problem.height);
  if (problem.width > kMaxSide || problem.height > kMaxSide)
    return format_message("image of %g×%g pixels has a side longer than the supported %g pixels", problem.width,
                          problem.height, static_cast<double>(kMaxSide));
  if (problem.pixel_count() > kMaxPixels)
    return format_message("image of %g×%g pixels is larger than the supported %g pixels", problem.width,
                          problem.height, static_cast<double>(kMaxPixels));
  if (!is_valid(problem.format)) return "unknown pixel format; use one of " + pixel_format_list();
  return validate(problem.params);
}

const char* to_string(FilterAxes axes) { return axes == FilterAxes::RowsOnly ? "along x only" : "both axes"; }

std::string describe(const FilterParams& p) {
  std::string line;
  if (p.custom_kernel()) {
    line = "kernel " + describe(p.kernel) + ", " + to_string(p.border);
  } else {
    char text[160];
    std::snprintf(text, sizeof text, "sigma %g, truncate %g, radius %d, %s", p.sigma, p.truncate, p.radius(),
                  to_string(p.border));
    line = text;
  }
  if (p.axes == FilterAxes::RowsOnly) line += ", along x only";
  if (p.rounding != IntegerRounding::Nearest) line += std::string(", rounding ") + to_string(p.rounding);
  return line;
}

namespace {

std::vector<double> flipped(std::vector<double> weights, bool flip) {
  if (flip) std::reverse(weights.begin(), weights.end());
  return weights;
}

double sum_of(const std::vector<double>& weights) {
  double sum = 0.0;
  for (double w : weights) sum += w;
  return sum;
}

}  // namespace

KernelTaps kernel_taps(const FilterParams& p) {
  if (std::string problem = validate(p); !problem.empty()) throw std::invalid_argument(problem);
  const FilterKernel& k = p.kernel;
  const bool along_y = p.axes != FilterAxes::RowsOnly;
  KernelTaps taps;
  switch (k.kind) {
    case KernelKind::Gaussian:
      taps.row = gaussian_weights(p.sigma, p.radius());
      if (along_y) taps.column = taps.row;
      return taps;
    case KernelKind::Mask:
      taps.row = flipped(k.x, k.convolve);
      if (along_y) taps.column = taps.row;
      break;
    case KernelKind::Pair:
      taps.row = flipped(k.x, k.convolve);
      taps.column = flipped(k.y, k.convolve);
      break;
    case KernelKind::Matrix:
      if (std::optional<RankOneFactors> factors = rank_one_factors(k)) {
        taps.row = flipped(factors->row, k.convolve);
        taps.column = flipped(factors->column, k.convolve);
      } else {
        taps.separable = false;
        taps.width = k.matrix_width;
        taps.height = k.matrix_height;
        taps.matrix = flipped(k.matrix, k.convolve);  // reversing the rows' concatenation rotates by 180°
      }
      break;
  }
  if (k.normalize) {
    if (k.kind == KernelKind::Matrix)
      taps.divisor = sum_of(k.matrix);
    else
      taps.divisor = sum_of(taps.row) * (taps.column.empty() ? 1.0 : sum_of(taps.column));
  }
  return taps;
}

}  // namespace gausslab
