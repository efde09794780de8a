#include "gausslab/core/filter_params.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "gausslab/core/gaussian_weights.hpp"

namespace gausslab {

int FilterParams::radius() const {
  return fixed_radius >= 0 ? fixed_radius : gaussian_radius(sigma, truncate);
}

bool operator==(const FilterParams& a, const FilterParams& b) {
  return a.sigma == b.sigma && a.truncate == b.truncate && a.border == b.border &&
         a.fixed_radius == b.fixed_radius && a.axes == b.axes;
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
}  // namespace

std::string validate(const FilterParams& p) {
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
  char text[160];
  std::snprintf(text, sizeof text, "sigma %g, truncate %g, radius %d, %s%s", p.sigma, p.truncate, p.radius(),
                to_string(p.border), p.axes == FilterAxes::RowsOnly ? ", along x only" : "");
  return text;
}

}  // namespace gausslab
