#include "gausslab/core/reference.hpp"

#include <algorithm>
#include <stdexcept>

#include "gausslab/core/gaussian_weights.hpp"

namespace gausslab {

namespace {

void check_inputs(const ConstImageView& src, const FilterParams& params) {
  if (src.empty()) throw std::invalid_argument("reference_gaussian: empty image");
  if (const std::string problem = validate(params); !problem.empty())
    throw std::invalid_argument("reference_gaussian: " + problem);
}

}  // namespace

std::vector<double> reference_gaussian_region(const ConstImageView& src, const FilterParams& params,
                                              const Rect& region) {
  check_inputs(src, params);
  if (region.x < 0 || region.y < 0 || region.width < 1 || region.height < 1 ||
      region.x + region.width > src.width || region.y + region.height > src.height)
    throw std::invalid_argument("reference_gaussian_region: the region is not inside the image");

  const int channels = channel_count(src.format);
  const int radius = params.radius();
  const std::vector<double> weights = gaussian_weights(params.sigma, radius);
  const int w = src.width, h = src.height;

  // Row pass, only for the source rows the column pass will read and the region's columns.
  // row_slot[y] is the index of source row y in `row_filtered`, or -1.
  std::vector<int> row_slot(static_cast<std::size_t>(h), -1);
  int slots = 0;
  const int row_reach = params.axes == FilterAxes::RowsOnly ? 0 : radius;  // source rows beyond the region
  for (int y = region.y - row_reach; y < region.y + region.height + row_reach; ++y) {
    const int sy = border_index(y, h, params.border);
    if (sy >= 0 && row_slot[sy] < 0) row_slot[sy] = slots++;
  }
  const std::size_t row_stride = static_cast<std::size_t>(region.width) * channels;
  std::vector<double> row_filtered(static_cast<std::size_t>(slots) * row_stride, 0.0);
#pragma omp parallel for schedule(dynamic, 4)
  for (int sy = 0; sy < h; ++sy) {
    if (row_slot[sy] < 0) continue;
    double* out_row = &row_filtered[row_slot[sy] * row_stride];
    for (int rx = 0; rx < region.width; ++rx) {
      const int x = region.x + rx;
      for (int c = 0; c < channels; ++c) {
        double sum = 0.0;
        for (int k = -radius; k <= radius; ++k) {
          const int sx = border_index(x + k, w, params.border);
          if (sx >= 0) sum += weights[k + radius] * channel_value(src, sx, sy, c);
        }
        out_row[static_cast<std::size_t>(rx) * channels + c] = sum;
      }
    }
  }

  // Along x only: each row is its own signal, the row pass is the result.
  if (params.axes == FilterAxes::RowsOnly) {
    std::vector<double> result(static_cast<std::size_t>(region.height) * row_stride);
    for (int ry = 0; ry < region.height; ++ry)
      std::copy_n(&row_filtered[row_slot[region.y + ry] * row_stride], row_stride, &result[ry * row_stride]);
    return result;
  }

  // Column pass over the row-filtered values.
  std::vector<double> result(static_cast<std::size_t>(region.height) * row_stride, 0.0);
#pragma omp parallel for schedule(dynamic, 4)
  for (int ry = 0; ry < region.height; ++ry) {
    double* out_row = &result[ry * row_stride];
    for (int k = -radius; k <= radius; ++k) {
      const int sy = border_index(region.y + ry + k, h, params.border);
      if (sy < 0) continue;
      const double weight = weights[k + radius];
      const double* in_row = &row_filtered[row_slot[sy] * row_stride];
      for (std::size_t i = 0; i < row_stride; ++i) out_row[i] += weight * in_row[i];
    }
  }
  return result;
}

std::vector<double> reference_gaussian(const ConstImageView& src, const FilterParams& params) {
  check_inputs(src, params);
  return reference_gaussian_region(src, params, Rect{0, 0, src.width, src.height});
}

std::vector<double> reference_gaussian_2d(const ConstImageView& src, const FilterParams& params) {
  check_inputs(src, params);
  const int channels = channel_count(src.format);
  const int radius = params.radius();
  const std::vector<double> weights = gaussian_weights(params.sigma, radius);
  std::vector<double> result(static_cast<std::size_t>(src.width) * src.height * channels, 0.0);
#pragma omp parallel for schedule(dynamic, 1)
  for (int y = 0; y < src.height; ++y)
    for (int x = 0; x < src.width; ++x)
      for (int c = 0; c < channels; ++c) {
        double sum = 0.0;
        const int row_radius = params.axes == FilterAxes::RowsOnly ? 0 : radius;
        for (int j = -row_radius; j <= row_radius; ++j) {
          const int sy = border_index(y + j, src.height, params.border);
          if (sy < 0) continue;
          for (int i = -radius; i <= radius; ++i) {
            const int sx = border_index(x + i, src.width, params.border);
            if (sx < 0) continue;
            const double row_weight = params.axes == FilterAxes::RowsOnly ? 1.0 : weights[j + radius];
            sum += row_weight * weights[i + radius] * channel_value(src, sx, sy, c);
          }
        }
        result[(static_cast<std::size_t>(y) * src.width + x) * channels + c] = sum;
      }
  return result;
}

}  // namespace gausslab
