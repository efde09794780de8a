#include "gausslab/core/reference.hpp"

#include <algorithm>
#include <stdexcept>

namespace gausslab {

namespace {

void check_inputs(const ConstImageView& src, const FilterParams& params) {
  if (src.empty()) throw std::invalid_argument("reference_gaussian: empty image");
  if (const std::string problem = validate(params); !problem.empty())
    throw std::invalid_argument("reference_gaussian: " + problem);
}

// The taps of kernel_taps, except that a 2D matrix is the truth as given: never its rank-1 factors.
KernelTaps reference_taps(const FilterParams& params) {
  KernelTaps taps = kernel_taps(params);
  const FilterKernel& k = params.kernel;
  if (k.kind == KernelKind::Matrix && taps.separable) {
    taps.separable = false;
    taps.width = k.matrix_width;
    taps.height = k.matrix_height;
    taps.matrix = k.matrix;
    if (k.convolve) std::reverse(taps.matrix.begin(), taps.matrix.end());  // rotated by 180°
    taps.row.clear();
    taps.column.clear();
  }
  return taps;
}

// The separable taps as one matrix (a single row along x only).
KernelTaps as_matrix(KernelTaps taps) {
  if (!taps.separable) return taps;
  const std::vector<double> column = taps.column.empty() ? std::vector<double>{1.0} : taps.column;
  taps.separable = false;
  taps.width = static_cast<int>(taps.row.size());
  taps.height = static_cast<int>(column.size());
  taps.matrix.clear();
  for (double c : column)
    for (double r : taps.row) taps.matrix.push_back(c * r);
  return taps;
}

void divide(std::vector<double>& values, double divisor) {
  if (divisor == 1.0) return;
  for (double& v : values) v /= divisor;
}

// The direct 2D sum over the matrix for the output pixels of `region`.
std::vector<double> direct_2d(const ConstImageView& src, const KernelTaps& taps, BorderMode border,
                              const Rect& region) {
  const int channels = channel_count(src.format);
  const int rx = taps.width / 2, ry = taps.height / 2;
  const std::size_t row_stride = static_cast<std::size_t>(region.width) * channels;
  std::vector<double> result(static_cast<std::size_t>(region.height) * row_stride, 0.0);
#pragma omp parallel for schedule(dynamic, 1)
  for (int ry_out = 0; ry_out < region.height; ++ry_out) {
    const int y = region.y + ry_out;
    for (int rx_out = 0; rx_out < region.width; ++rx_out) {
      const int x = region.x + rx_out;
      for (int c = 0; c < channels; ++c) {
        double sum = 0.0;
        for (int j = 0; j < taps.height; ++j) {
          const int sy = border_index(y + j - ry, src.height, border);
          if (sy < 0) continue;
          const double* weights = &taps.matrix[static_cast<std::size_t>(j) * taps.width];
          for (int i = 0; i < taps.width; ++i) {
            const int sx = border_index(x + i - rx, src.width, border);
            // Zero weights are skipped, as scipy.ndimage.correlate skips them (0 · inf adds no NaN).
            if (sx >= 0 && weights[i] != 0.0) sum += weights[i] * channel_value(src, sx, sy, c);
          }
        }
        result[ry_out * row_stride + static_cast<std::size_t>(rx_out) * channels + c] = sum;
      }
    }
  }
  return result;
}

// The row pass then the column pass (the row pass alone without column taps).
std::vector<double> separable(const ConstImageView& src, const KernelTaps& taps, BorderMode border,
                              const Rect& region) {
  const int channels = channel_count(src.format);
  const int rx = taps.radius_x(), ry = taps.radius_y();
  const int w = src.width, h = src.height;

  // Row pass, only for the source rows the column pass will read and the region's columns.
  // row_slot[y] is the index of source row y in `row_filtered`, or -1.
  std::vector<int> row_slot(static_cast<std::size_t>(h), -1);
  int slots = 0;
  for (int y = region.y - ry; y < region.y + region.height + ry; ++y) {
    const int sy = border_index(y, h, border);
    if (sy >= 0 && row_slot[sy] < 0) row_slot[sy] = slots++;
  }
  const std::size_t row_stride = static_cast<std::size_t>(region.width) * channels;
  std::vector<double> row_filtered(static_cast<std::size_t>(slots) * row_stride, 0.0);
#pragma omp parallel for schedule(dynamic, 4)
  for (int sy = 0; sy < h; ++sy) {
    if (row_slot[sy] < 0) continue;
    double* out_row = &row_filtered[row_slot[sy] * row_stride];
    for (int rx_out = 0; rx_out < region.width; ++rx_out) {
      const int x = region.x + rx_out;
      for (int c = 0; c < channels; ++c) {
        double sum = 0.0;
        for (int k = -rx; k <= rx; ++k) {
          const int sx = border_index(x + k, w, border);
          if (sx >= 0) sum += taps.row[k + rx] * channel_value(src, sx, sy, c);
        }
        out_row[static_cast<std::size_t>(rx_out) * channels + c] = sum;
      }
    }
  }

  // Along x only: each row is its own signal, the row pass is the result.
  if (taps.column.empty()) {
    std::vector<double> result(static_cast<std::size_t>(region.height) * row_stride);
    for (int r = 0; r < region.height; ++r)
      std::copy_n(&row_filtered[row_slot[region.y + r] * row_stride], row_stride, &result[r * row_stride]);
    return result;
  }

  // Column pass over the row-filtered values.
  std::vector<double> result(static_cast<std::size_t>(region.height) * row_stride, 0.0);
#pragma omp parallel for schedule(dynamic, 4)
  for (int r = 0; r < region.height; ++r) {
    double* out_row = &result[r * row_stride];
    for (int k = -ry; k <= ry; ++k) {
      const int sy = border_index(region.y + r + k, h, border);
      if (sy < 0) continue;
      const double weight = taps.column[k + ry];
      const double* in_row = &row_filtered[row_slot[sy] * row_stride];
      for (std::size_t i = 0; i < row_stride; ++i) out_row[i] += weight * in_row[i];
    }
  }
  return result;
}

}  // namespace

std::vector<double> reference_gaussian_region(const ConstImageView& src, const FilterParams& params,
                                              const Rect& region) {
  check_inputs(src, params);
  if (region.x < 0 || region.y < 0 || region.width < 1 || region.height < 1 ||
      region.x + region.width > src.width || region.y + region.height > src.height)
    throw std::invalid_argument("reference_gaussian_region: the region is not inside the image");
  const KernelTaps taps = reference_taps(params);
  std::vector<double> result =
      taps.separable ? separable(src, taps, params.border, region) : direct_2d(src, taps, params.border, region);
  divide(result, taps.divisor);
  return result;
}

std::vector<double> reference_gaussian(const ConstImageView& src, const FilterParams& params) {
  check_inputs(src, params);
  return reference_gaussian_region(src, params, Rect{0, 0, src.width, src.height});
}

std::vector<double> reference_gaussian_2d(const ConstImageView& src, const FilterParams& params) {
  check_inputs(src, params);
  const KernelTaps taps = as_matrix(reference_taps(params));
  std::vector<double> result = direct_2d(src, taps, params.border, Rect{0, 0, src.width, src.height});
  divide(result, taps.divisor);
  return result;
}

}  // namespace gausslab
