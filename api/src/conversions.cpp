#include <algorithm>
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

IntegerRounding internal_rounding(Rounding rounding) {
  switch (rounding) {
    case Rounding::Nearest: return IntegerRounding::Nearest;
    case Rounding::Floor: return IntegerRounding::Floor;
    case Rounding::Ceil: return IntegerRounding::Ceil;
  }
  throw InvalidArgument("unknown rounding " + std::to_string(static_cast<int>(rounding)));
}

FilterKernel internal_kernel(const Kernel& kernel) {
  FilterKernel k;
  switch (kernel.kind) {
    case Kernel::Kind::Gaussian: return k;
    case Kernel::Kind::Weights: k = FilterKernel::mask(kernel.x); break;
    case Kernel::Kind::Pair: k = FilterKernel::pair(kernel.x, kernel.y); break;
    case Kernel::Kind::Matrix:
      k = FilterKernel::matrix_2d(kernel.matrix_width, kernel.matrix_height, kernel.matrix);
      break;
    default: throw InvalidArgument("unknown kernel kind " + std::to_string(static_cast<int>(kernel.kind)));
  }
  k.convolve = kernel.convolve;
  k.normalize = kernel.normalize;
  return k;
}

FilterParams internal_params(const FilterOptions& options) {
  FilterParams params;
  params.sigma = options.kernel.sigma;
  params.truncate = options.kernel.truncate;
  params.fixed_radius = options.kernel.radius;
  params.kernel = internal_kernel(options.kernel);
  params.border = internal_border(options.border);
  params.axes = options.axes == Axes::RowsOnly ? FilterAxes::RowsOnly : FilterAxes::Both;
  params.rounding = internal_rounding(options.rounding);
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
  switch (kind) {
    case Kind::Weights: return static_cast<int>(x.size()) / 2;
    case Kind::Pair: return static_cast<int>(std::max(x.size(), y.size())) / 2;
    case Kind::Matrix: return std::max(matrix_width, matrix_height) / 2;
    default: return radius >= 0 ? radius : gaussian_radius(sigma, truncate);
  }
}

Kernel Kernel::weights(std::vector<double> mask) {
  Kernel k;
  k.kind = Kind::Weights;
  k.x = std::move(mask);
  return k;
}

Kernel Kernel::pair(std::vector<double> along_x, std::vector<double> along_y) {
  Kernel k;
  k.kind = Kind::Pair;
  k.x = std::move(along_x);
  k.y = std::move(along_y);
  return k;
}

Kernel Kernel::matrix_2d(int width, int height, std::vector<double> rows) {
  Kernel k;
  k.kind = Kind::Matrix;
  k.matrix_width = width;
  k.matrix_height = height;
  k.matrix = std::move(rows);
  return k;
}

Kernel Kernel::convolved() const {
  Kernel k = *this;
  k.convolve = true;
  return k;
}

Kernel Kernel::normalized() const {
  Kernel k = *this;
  k.normalize = true;
  return k;
}

}  // namespace gausslab::v1
