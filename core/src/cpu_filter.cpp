// CPU baselines, one thread or OpenMP, for every kernel (kernel_taps):
//   separable (the Gaussian, a mask, an x/y pair, a rank-1 matrix): a row pass into a float32
//     image, then a column pass. Symmetric taps are folded pairwise, radius + 1 multiply-adds per
//     output and channel; asymmetric ones take 2r + 1.
//   a 2D matrix: one direct pass, each output row the sum of its kernel rows' shifted source rows
//     (zero weights skipped, as scipy.ndimage.correlate does): width × height multiply-adds.
// A normalised kernel's sums are divided by its sum once, before the store (exact floors for
// integer weights: filter_kernel.hpp).
// Arithmetic: float32 for 8-bit, half and float images. 16-bit images take float64 weights and sums
// (the row pass's image stays float32), because float32 cannot promise their 0.51 levels: a float32
// sum of samples up to 65535 carries a few of its ulps (2^-8 levels each from 32768 up), measured
// up to 0.044 levels beyond the rounding's half level at σ 20 (161 taps a pass; the float32 weights
// alone add 0.003, the float32 image 0.002), and 16-bit outputs reached 0.529 levels from the
// float64 reference. In float64 the sums are exact to 1e-9 levels, the float32 image adds at most
// half its ulp, 2^-9 levels, and the store rounds the float64 sum itself (the same rule: half up,
// saturated): within 0.5 + 2^-9 = 0.502 levels. An 8-bit level is 257 times coarser.
#include "gausslab/core/cpu_filter.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <vector>

#include "gausslab/core/host_image.hpp"

namespace gausslab {

namespace {

// Samples per block of a row that the passes sum at once: a block's sums stay in the L1 cache.
constexpr std::size_t kBlock = 1024;

template <typename Acc>
std::vector<Acc> weights_as(const std::vector<double>& weights) {
  return {weights.begin(), weights.end()};
}

// Row y of `src` extended by `reach` samples on each side by the border rule (zeros for constant).
// Every sample type's values are exact in float (16-bit levels too), and so in Acc.
template <typename Acc>
void load_extended_row(const ConstImageView& src, int y, int reach, BorderMode border, std::vector<float>& line,
                       std::vector<Acc>& extended) {
  const int width = src.width, channels = channel_count(src.format);
  load_row_samples(src, y, line.data());
  for (int i = -reach; i < width + reach; ++i) {
    const int sx = border_index(i, width, border);
    for (int c = 0; c < channels; ++c)
      extended[static_cast<std::size_t>(i + reach) * channels + c] =
          sx < 0 ? Acc(0) : line[static_cast<std::size_t>(sx) * channels + c];
  }
}

void store_row(const float* sums, const ImageView& dst, int y, IntegerRounding rounding) {
  store_row_samples(sums, dst, y, rounding);
}

// Only 16-bit images accumulate in float64 (cpu_gaussian_filter).
void store_row(const double* sums, const ImageView& dst, int y, IntegerRounding rounding) {
  std::uint16_t* out = dst.row<std::uint16_t>(y);
  const std::size_t n = static_cast<std::size_t>(dst.width) * channel_count(dst.format);
  for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<std::uint16_t>(round_to_level(sums[i], rounding, 65535));
}

// The division of a normalised kernel, then the store by the params' rounding.
template <typename Acc>
void finish_row(Acc* sums, std::size_t count, Acc divisor, const ImageView& dst, int y, IntegerRounding rounding) {
  if (divisor != Acc(1))
    for (std::size_t i = 0; i < count; ++i) sums[i] /= divisor;
  store_row(sums, dst, y, rounding);
}

template <typename Acc>
void separable_passes(const ConstImageView& src, const ImageView& dst, const KernelTaps& taps,
                      const FilterParams& params, bool parallel) {
  const int width = src.width, height = src.height;
  const int channels = channel_count(src.format);
  const BorderMode border = params.border;
  const std::size_t row_floats = static_cast<std::size_t>(width) * channels;
  const Acc divisor = static_cast<Acc>(taps.divisor);

  const std::vector<Acc> row_taps = weights_as<Acc>(taps.row);
  const int rx = taps.radius_x();
  const bool row_symmetric = symmetric(row_taps);
  const Acc* row_centre = row_taps.data() + rx;  // row_centre[k] for k in [-rx, rx]

  // Row pass: each row extended by the border rule, its sums in Acc, then (both axes) stored into a
  // float image, or (along x only) the result. The taps are the outer loop over a block of the row,
  // so the inner loop runs along memory and vectorises; each output still adds its terms in tap
  // order, as a loop per output would.
  const bool along_x_only = taps.column.empty();
  std::unique_ptr<float[]> rows_filtered;  // not zero-filled: the row pass writes every sample
  if (!along_x_only) rows_filtered.reset(new float[row_floats * height]);
#pragma omp parallel if (parallel)
  {
    std::vector<float> line(row_floats);
    std::vector<Acc> extended((static_cast<std::size_t>(width) + 2 * rx) * channels), out(row_floats);
#pragma omp for schedule(static)
    for (int y = 0; y < height; ++y) {
      load_extended_row(src, y, rx, border, line, extended);
      const Acc* own = extended.data() + static_cast<std::size_t>(rx) * channels;  // own[i]: output i's sample
      for (std::size_t begin = 0; begin < row_floats; begin += kBlock) {
        const std::size_t end = std::min(row_floats, begin + kBlock);
        if (row_symmetric) {
          for (std::size_t i = begin; i < end; ++i) out[i] = row_centre[0] * own[i];
          for (int k = 1; k <= rx; ++k) {
            const Acc weight = row_centre[k];
            const Acc* left = own - static_cast<std::ptrdiff_t>(k) * channels;
            const Acc* right = own + static_cast<std::ptrdiff_t>(k) * channels;
            for (std::size_t i = begin; i < end; ++i) out[i] += weight * (left[i] + right[i]);
          }
        } else {
          const Acc* first = own - static_cast<std::ptrdiff_t>(rx) * channels;
          for (std::size_t i = begin; i < end; ++i) out[i] = row_centre[-rx] * first[i];
          for (int k = -rx + 1; k <= rx; ++k) {
            const Acc weight = row_centre[k];
            const Acc* shifted = own + static_cast<std::ptrdiff_t>(k) * channels;
            for (std::size_t i = begin; i < end; ++i) out[i] += weight * shifted[i];
          }
        }
      }
      if (along_x_only)
        finish_row(out.data(), row_floats, divisor, dst, y, params.rounding);
      else
        std::copy(out.begin(), out.end(), &rows_filtered[y * row_floats]);  // to float32 (why: the file's opening)
    }
  }
  if (along_x_only) return;

  const std::vector<Acc> column_taps = weights_as<Acc>(taps.column);
  const int ry = taps.radius_y();
  const bool column_symmetric = symmetric(column_taps);
  const Acc* column_centre = column_taps.data() + ry;

  // Column pass: whole rows at a time, a block of each at once (its sums stay in the L1 cache), so
  // the inner loop runs along memory.
#pragma omp parallel if (parallel)
  {
    std::vector<Acc> sum(row_floats);
#pragma omp for schedule(static)
    for (int y = 0; y < height; ++y) {
      for (std::size_t begin = 0; begin < row_floats; begin += kBlock) {
        const std::size_t end = std::min(row_floats, begin + kBlock);
        const auto add_row = [&](int source_row, Acc weight) {
          if (source_row < 0) return;
          const float* row = &rows_filtered[source_row * row_floats];
          for (std::size_t i = begin; i < end; ++i) sum[i] += weight * row[i];
        };
        if (column_symmetric) {
          const float* middle = &rows_filtered[y * row_floats];
          for (std::size_t i = begin; i < end; ++i) sum[i] = column_centre[0] * middle[i];
          for (int k = 1; k <= ry; ++k) {
            add_row(border_index(y - k, height, border), column_centre[k]);
            add_row(border_index(y + k, height, border), column_centre[k]);
          }
        } else {
          std::fill(sum.begin() + begin, sum.begin() + end, Acc(0));
          for (int k = -ry; k <= ry; ++k) add_row(border_index(y + k, height, border), column_centre[k]);
        }
      }
      finish_row(sum.data(), row_floats, divisor, dst, y, params.rounding);
    }
  }
}

template <typename Acc>
void direct_2d_pass(const ConstImageView& src, const ImageView& dst, const KernelTaps& taps,
                    const FilterParams& params, bool parallel) {
  const int width = src.width, height = src.height;
  const int channels = channel_count(src.format);
  const std::size_t row_floats = static_cast<std::size_t>(width) * channels;
  const int rx = taps.width / 2, ry = taps.height / 2;
  const std::vector<Acc> weights = weights_as<Acc>(taps.matrix);
  const Acc divisor = static_cast<Acc>(taps.divisor);
#pragma omp parallel if (parallel)
  {
    std::vector<float> line(row_floats);
    std::vector<Acc> extended((static_cast<std::size_t>(width) + 2 * rx) * channels), sum(row_floats);
#pragma omp for schedule(dynamic, 4)
    for (int y = 0; y < height; ++y) {
      std::fill(sum.begin(), sum.end(), Acc(0));
      for (int j = 0; j < taps.height; ++j) {
        const int sy = border_index(y + j - ry, height, params.border);
        if (sy < 0) continue;
        // Extending the row again for each output row costs 1/width of the taps' work.
        load_extended_row(src, sy, rx, params.border, line, extended);
        const Acc* kernel_row = &weights[static_cast<std::size_t>(j) * taps.width];
        for (int i = 0; i < taps.width; ++i) {
          const Acc weight = kernel_row[i];
          if (weight == Acc(0)) continue;
          const Acc* shifted = &extended[static_cast<std::size_t>(i) * channels];
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
  const bool in_double = sample_type(src.format) == SampleType::U16;  // why: the file's opening comment
  if (taps.separable)
    in_double ? separable_passes<double>(src, dst, taps, params, parallel)
              : separable_passes<float>(src, dst, taps, params, parallel);
  else
    in_double ? direct_2d_pass<double>(src, dst, taps, params, parallel)
              : direct_2d_pass<float>(src, dst, taps, params, parallel);
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
