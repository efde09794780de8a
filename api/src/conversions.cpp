#include <stdexcept>
#include <string>

#include "gausslab/core/border.hpp"
#include "gausslab/core/filter_params.hpp"
#include "gausslab/core/gaussian_weights.hpp"
#include "internal_names.hpp"
#include "gausslab/gausslab.hpp"
#include "api_conversions.hpp"

namespace gausslab::v1 {

namespace {

internal::SampleType internal_sample(SampleType sample) {
  switch (sample) {
    case SampleType::U8: return internal::SampleType::U8;
    case SampleType::U16: return internal::SampleType::U16;
    case SampleType::F16: return internal::SampleType::F16;
    case SampleType::F32: return internal::SampleType::F32;
  }
  throw InvalidArgument("unknown sample type " + std::to_string(static_cast<int>(sample)));
}

}  // namespace

PixelFormat internal_format(PixelType pixel) {
  if (pixel.channels < 1 || pixel.channels > 4)
    throw InvalidArgument("a pixel has 1 to 4 channels, not " + std::to_string(pixel.channels));
  return make_pixel_format(internal_sample(pixel.sample), pixel.channels);
}

PixelType public_pixel(PixelFormat format) {
  static constexpr SampleType samples[] = {SampleType::U8, SampleType::U16, SampleType::F16, SampleType::F32};
  return {samples[static_cast<int>(sample_type(format))], channel_count(format)};
}

BorderMode internal_border(Border border) {
  switch (border) {
    case Border::Reflect: return BorderMode::Reflect;
    case Border::Mirror: return BorderMode::Mirror;
    case Border::Nearest: return BorderMode::Nearest;
    case Border::Constant: return BorderMode::Constant;
    case Border::Wrap: return BorderMode::Wrap;
  }
  throw InvalidArgument("unknown border " + std::to_string(static_cast<int>(border)));
}

FilterParams internal_params(const FilterOptions& options) {
  FilterParams params;
  params.sigma = options.kernel.sigma;
  params.truncate = options.kernel.truncate;
  params.fixed_radius = options.kernel.radius;
  params.border = internal_border(options.border);
  params.axes = options.axes == Axes::RowsOnly ? FilterAxes::RowsOnly : FilterAxes::Both;
  return params;
}

std::string describe_problem(const FilterProblem& problem) {
  return std::to_string(problem.width) + "×" + std::to_string(problem.height) + " " + to_string(problem.format) +
         ", " + describe(problem.params);
}

std::string to_string(PixelType pixel) {
  if (pixel.channels < 1 || pixel.channels > 4) return "invalid (" + std::to_string(pixel.channels) + " channels)";
  return gausslab::to_string(internal_format(pixel));
}

std::string to_string(Border border) { return gausslab::to_string(internal_border(border)); }

int Kernel::effective_radius() const {
  return radius >= 0 ? radius : gaussian_radius(sigma, truncate);
}

}  // namespace gausslab::v1
