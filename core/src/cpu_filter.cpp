// CPU baselines in float32, one thread or OpenMP, for every kernel (kernel_taps):
//   separable (the Gaussian, a mask, an x/y pair, a rank-1 matrix): a row pass into a float image,
//     then a column pass. Symmetric taps are folded pairwise, radius + 1 multiply-adds per output
//     and channel; asymmetric ones take 2r + 1.
//   a 2D matrix: one direct pass, each output row the sum of its kernel rows' shifted source rows
//     (zero weights skipped, as scipy.ndimage.correlate does): width × height multiply-adds.
// A normalised kernel's sums are divided by its sum once, before the store (exact floors for
// integer weights: filter_kernel.hpp).
#include "gausslab/core/cpu_filter.hpp"

#include <omp.h>

#include <stdexcept>
#include <vector>

#include "gausslab/core/host_image.hpp"

namespace gausslab {

namespace {

std::vector<float> to_float(const std::vector<double>& weights) { return {weights.begin(), weights.end()}; }

// Row y of `src` extended by `reach` samples on each side by the border rule (zeros for constant).
void load_extended_row(const ConstImageView& src, int y, int reach, BorderMode border, std::vector<float>& line,
                       std::vector<float>& extended) {
  const int width = src.width, channels = channel_count(src.format);
  load_row_samples(src, y, line.data());
  for (int i = -reach; i < width + reach; ++i) {
    const int sx = border_index(i, width, border);
    for (int c = 0; c < channels; ++c)
      extended[static_cast<std::size_t>(i + reach) * channels + c] =
          sx < 0 ? 0.0f : line[static_cast<std::size_t>(sx) * channels + c];
  }
}

// The division of a normalised kernel, then the store by the params' rounding.
void finish_row(float* sums, std::size_t count, float divisor, const ImageView& dst, int y, IntegerRounding rounding) {
  if (divisor != 1.0f)
    for (std::size_t i = 0; i < count; ++i) sums[i] /= divisor;
  store_row_samples(sums, dst, y, rounding);
}

void separable_passes(const ConstImageView& src, const ImageView& dst, const KernelTaps& taps,
                      const FilterParams& params, bool parallel) {
  const int width = src.width, height = src.height;
  const int channels = channel_count(src.format);
  const BorderMode border = params.border;
  const std::size_t row_floats = static_cast<std::size_t>(width) * channels;
  const float divisor = static_cast<float>(taps.divisor);

  const std::vector<float> row_taps = to_float(taps.row);
  const int rx = taps.radius_x();
  const bool row_symmetric = symmetric(row_taps);
  const float* row_centre = row_taps.data() + rx;  // row_centre[k] for k in [-rx, rx]

  // Row pass into a float image; each row is first extended by the border rule.
  std::vector<float> rows_filtered(row_floats * height);
#pragma omp parallel if (parallel)
  {
    std::vector<float> line(row_floats), extended((static_cast<std::size_t>(width) + 2 * rx) * channels);
#pragma omp for schedule(static)
    for (int y = 0; y < height; ++y) {
      load_extended_row(src, y, rx, border, line, extended);
      float* out = &rows_filtered[y * row_floats];
      for (int x = 0; x < width; ++x)
        for (int c = 0; c < channels; ++c) {
          const float* e = &extended[static_cast<std::size_t>(x + rx) * channels + c];
          float sum;
          if (row_symmetric) {
            sum = row_centre[0] * e[0];
            for (int k = 1; k <= rx; ++k) sum += row_centre[k] * (e[-k * channels] + e[k * channels]);
          } else {
            sum = row_centre[-rx] * e[-rx * channels];
            for (int k = -rx + 1; k <= rx; ++k) sum += row_centre[k] * e[k * channels];
          }
          out[static_cast<std::size_t>(x) * channels + c] = sum;
        }
    }
  }

  // Along x only: the row pass is the result.
  if (taps.column.empty()) {
#pragma omp parallel for schedule(static) if (parallel)
    for (int y = 0; y < height; ++y)
      finish_row(&rows_filtered[y * row_floats], row_floats, divisor, dst, y, params.rounding);
    return;
  }

  const std::vector<float> column_taps = to_float(taps.column);
  const int ry = taps.radius_y();
  const bool column_symmetric = symmetric(column_taps);
  const float* column_centre = column_taps.data() + ry;

  // Column pass: whole rows at a time, so the inner loop runs along memory.
#pragma omp parallel if (parallel)
  {
    std::vector<float> sum(row_floats);
#pragma omp for schedule(static)
    for (int y = 0; y < height; ++y) {
      const auto add_row = [&](int source_row, float weight) {
        if (source_row < 0) return;
        const float* row = &rows_filtered[source_row * row_floats];
        for (std::size_t i = 0; i < row_floats; ++i) sum[i] += weight * row[i];
      };
      if (column_symmetric) {
        const float* middle = &rows_filtered[y * row_floats];
        for (std::size_t i = 0; i < row_floats; ++i) sum[i] = column_centre[0] * middle[i];
        for (int k = 1; k <= ry; ++k) {
          add_row(border_index(y - k, height, border), column_centre[k]);
          add_row(border_index(y + k, height, border), column_centre[k]);
        }
      } else {
        std::fill(sum.begin(), sum.end(), 0.0f);
        for (int k = -ry; k <= ry; ++k) add_row(border_index(y + k, height, border), column_centre[k]);
      }
      finish_row(sum.data(), row_floats, divisor, dst, y, params.rounding);
    }
  }
}

void direct_2d_pass(const ConstImageView& src, const ImageView& dst, const KernelTaps& taps,
                    const FilterParams& params, bool parallel) {
  const int width = src.width, height = src.height;
  const int channels = channel_count(src.format);
  const std::size_t row_floats = static_cast<std::size_t>(width) * channels;
  const int rx = taps.width / 2, ry = taps.height / 2;
  const std::vector<float> weights = to_float(taps.matrix);
  const float divisor = static_cast<float>(taps.divisor);
#pragma omp parallel if (parallel)
  {
    std::vector<float> line(row_floats), extended((static_cast<std::size_t>(width) + 2 * rx) * channels),
        sum(row_floats);
#pragma omp for schedule(dynamic, 4)
    for (int y = 0; y < height; ++y) {
      std::fill(sum.begin(), sum.end(), 0.0f);
      for (int j = 0; j < taps.height; ++j) {
        const int sy = border_index(y + j - ry, height, params.border);
        if (sy < 0) continue;
        // Extending the row again for each output row costs 1/width of the taps' work.
        load_extended_row(src, sy, rx, params.border, line, extended);
        const float* kernel_row = &weights[static_cast<std::size_t>(j) * taps.width];
        for (int i = 0; i < taps.width; ++i) {
          const float weight = kernel_row[i];
          if (weight == 0.0f) continue;
          const float* shifted = &extended[static_cast<std::size_t>(i) * channels];
          for (std::size_t t = 0; t < row_floats; ++t) sum[t] += weight * shifted[t];
        }
      }
      finish_row(sum.data(), row_floats, divisor, dst, y, params.rounding);
    }
  }
}

// Multiply-adds of one 1D pass per output and channel.
double pass_cost(const std::vector<double>& taps) {
  const double n = static_cast<double>(taps.size());
  return symmetric(taps) ? (n + 1.0) / 2.0 : n;
}

}  // namespace

void cpu_gaussian_filter(const ConstImageView& src, const ImageView& dst, const FilterParams& params,
                         CpuThreading threading) {
  if (src.empty() || dst.empty()) throw std::invalid_argument("cpu_gaussian_filter: empty image");
  if (src.width != dst.width || src.height != dst.height || src.format != dst.format)
    throw std::invalid_argument("cpu_gaussian_filter: source and destination differ in size or format");
  if (const std::string problem = validate(params); !problem.empty())
    throw std::invalid_argument(problem);
  const KernelTaps taps = kernel_taps(params);
  const bool parallel = threading == CpuThreading::OpenMP;
  if (taps.separable)
    separable_passes(src, dst, taps, params, parallel);
  else
    direct_2d_pass(src, dst, taps, params, parallel);
}

double cpu_filter_cost(const FilterProblem& problem) {
  const double samples = static_cast<double>(problem.pixel_count()) * channel_count(problem.format);
  if (!problem.params.custom_kernel()) {  // no weights needed: the Gaussian is symmetric
    const double passes = problem.params.axes == FilterAxes::RowsOnly ? 1.0 : 2.0;
    return passes * (problem.params.radius() + 1.0) * samples;
  }
  if (!validate(problem.params).empty()) return 0.0;
  const KernelTaps taps = kernel_taps(problem.params);
  if (!taps.separable) {
    double nonzero = 0.0;
    for (double w : taps.matrix) nonzero += w != 0.0;
    return nonzero * samples;
  }
  return (pass_cost(taps.row) + (taps.column.empty() ? 0.0 : pass_cost(taps.column))) * samples;
}

int cpu_thread_count() { return omp_get_max_threads(); }

}  // namespace gausslab
