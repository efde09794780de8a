#include "reference_bridge.hpp"

#include "gausslab/core/pixel_format.hpp"
#include "gausslab/core/reference.hpp"

namespace api_test {

std::vector<double> reference(const void* data, int width, int height, int sample, int channels, double sigma,
                              double truncate, int radius, int border, bool rows_only) {
  using namespace gausslab;
  const PixelFormat format = make_pixel_format(static_cast<SampleType>(sample), channels);
  const ConstImageView view(data, width, height, static_cast<std::size_t>(width) * bytes_per_pixel(format), format);
  FilterParams params;
  params.sigma = sigma;
  params.truncate = truncate;
  params.fixed_radius = radius;
  params.border = static_cast<BorderMode>(border);
  params.axes = rows_only ? FilterAxes::RowsOnly : FilterAxes::Both;
  return reference_gaussian(view, params);
}

std::vector<double> reference_custom(const void* data, int width, int height, int sample, int channels, int kind,
                                     const std::vector<double>& x, const std::vector<double>& y, int matrix_width,
                                     int matrix_height, const std::vector<double>& matrix, bool convolve,
                                     bool normalize, int border, bool rows_only) {
  using namespace gausslab;
  const PixelFormat format = make_pixel_format(static_cast<SampleType>(sample), channels);
  const ConstImageView view(data, width, height, static_cast<std::size_t>(width) * bytes_per_pixel(format), format);
  FilterParams params;
  params.kernel = kind == 1   ? FilterKernel::mask(x)
                  : kind == 2 ? FilterKernel::pair(x, y)
                              : FilterKernel::matrix_2d(matrix_width, matrix_height, matrix);
  params.kernel.convolve = convolve;
  params.kernel.normalize = normalize;
  params.border = static_cast<BorderMode>(border);
  params.axes = rows_only ? FilterAxes::RowsOnly : FilterAxes::Both;
  return reference_gaussian(view, params);
}

}  // namespace api_test
