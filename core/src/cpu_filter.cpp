// CPU baselines: separable float32 convolution, one thread or OpenMP. The weights are symmetric, so
// each 1D pass folds the taps pairwise: radius + 1 multiply-adds per output and channel.
#include "gausslab/core/cpu_filter.hpp"

#include <omp.h>

#include <stdexcept>
#include <vector>

#include "gausslab/core/gaussian_weights.hpp"
#include "gausslab/core/host_image.hpp"

namespace gausslab {

namespace {

void load_row(const ConstImageView& src, int y, float* out) { load_row_samples(src, y, out); }

void store_row(const float* in, const ImageView& dst, int y) { store_row_samples(in, dst, y); }

}  // namespace

void cpu_gaussian_filter(const ConstImageView& src, const ImageView& dst, const FilterParams& params,
                         CpuThreading threading) {
  if (src.empty() || dst.empty()) throw std::invalid_argument("cpu_gaussian_filter: empty image");
  if (src.width != dst.width || src.height != dst.height || src.format != dst.format)
    throw std::invalid_argument("cpu_gaussian_filter: source and destination differ in size or format");
  if (const std::string problem = validate(params); !problem.empty())
    throw std::invalid_argument(problem);

  const int width = src.width, height = src.height;
  const int channels = channel_count(src.format);
  const int radius = params.radius();
  const BorderMode border = params.border;
  const std::vector<float> weights = gaussian_weights_f32(params.sigma, radius);
  const float* centre = weights.data() + radius;  // centre[k] for k in [-radius, radius]
  const std::size_t row_floats = static_cast<std::size_t>(width) * channels;
  const bool parallel = threading == CpuThreading::OpenMP;

  // Row pass into a float image; each row is first extended by the border rule.
  std::vector<float> rows_filtered(row_floats * height);
#pragma omp parallel if (parallel)
  {
    std::vector<float> line(row_floats), extended((static_cast<std::size_t>(width) + 2 * radius) * channels);
#pragma omp for schedule(static)
    for (int y = 0; y < height; ++y) {
      load_row(src, y, line.data());
      for (int i = -radius; i < width + radius; ++i) {
        const int sx = border_index(i, width, border);
        for (int c = 0; c < channels; ++c)
          extended[static_cast<std::size_t>(i + radius) * channels + c] =
              sx < 0 ? 0.0f : line[static_cast<std::size_t>(sx) * channels + c];
      }
      float* out = &rows_filtered[y * row_floats];
      for (int x = 0; x < width; ++x)
        for (int c = 0; c < channels; ++c) {
          const float* e = &extended[static_cast<std::size_t>(x + radius) * channels + c];
          float sum = centre[0] * e[0];
          for (int k = 1; k <= radius; ++k) sum += centre[k] * (e[-k * channels] + e[k * channels]);
          out[static_cast<std::size_t>(x) * channels + c] = sum;
        }
    }
  }

  // Along x only: the row pass is the result.
  if (params.axes == FilterAxes::RowsOnly) {
#pragma omp parallel for schedule(static) if (parallel)
    for (int y = 0; y < height; ++y) store_row(&rows_filtered[y * row_floats], dst, y);
    return;
  }

  // Column pass: whole rows at a time, so the inner loop runs along memory.
#pragma omp parallel if (parallel)
  {
    std::vector<float> sum(row_floats);
#pragma omp for schedule(static)
    for (int y = 0; y < height; ++y) {
      const float* middle = &rows_filtered[y * row_floats];
      for (std::size_t i = 0; i < row_floats; ++i) sum[i] = centre[0] * middle[i];
      for (int k = 1; k <= radius; ++k) {
        const int above = border_index(y - k, height, border);
        const int below = border_index(y + k, height, border);
        const float weight = centre[k];
        if (above >= 0) {
          const float* row = &rows_filtered[above * row_floats];
          for (std::size_t i = 0; i < row_floats; ++i) sum[i] += weight * row[i];
        }
        if (below >= 0) {
          const float* row = &rows_filtered[below * row_floats];
          for (std::size_t i = 0; i < row_floats; ++i) sum[i] += weight * row[i];
        }
      }
      store_row(sum.data(), dst, y);
    }
  }
}

double cpu_filter_cost(const FilterProblem& problem) {
  const double passes = problem.params.axes == FilterAxes::RowsOnly ? 1.0 : 2.0;
  return passes * (problem.params.radius() + 1.0) * static_cast<double>(problem.pixel_count()) *
         channel_count(problem.format);
}

int cpu_thread_count() { return omp_get_max_threads(); }

}  // namespace gausslab
