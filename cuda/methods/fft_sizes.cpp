#include "fft_sizes.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace gausslab::fft {

namespace {
// Longest line whose cosines symmetric_kernel_dft tabulates (128 MiB of doubles).
constexpr int kMaxCosineTable = 1 << 24;
}  // namespace

long long fast_fft_size(long long minimum, bool even) {
  minimum = std::max(minimum, 1LL);
  long long best = LLONG_MAX;
  // Every 7-smooth number is 7^d 5^c 3^b times a power of two: for each odd part, the smallest
  // power of two that reaches `minimum`. Once an odd part alone reaches it, higher powers of that
  // prime only give larger candidates, so the loops stop there (a few dozen candidates in all).
  for (long long p7 = 1;; p7 *= 7) {
    for (long long p5 = p7;; p5 *= 5) {
      for (long long p3 = p5;; p3 *= 3) {
        long long candidate = p3;
        while (candidate < minimum || (even && candidate % 2 != 0)) candidate *= 2;
        best = std::min(best, candidate);
        if (p3 >= minimum) break;
      }
      if (p5 >= minimum) break;
    }
    if (p7 >= minimum) break;
  }
  return best;
}

long long padded_width_for(long long width, int radius) {
  return fast_fft_size(std::max(width + 2LL * radius, static_cast<long long>(kMinPaddedSide)), true);
}

long long padded_height_for(long long height, int radius) {
  return fast_fft_size(std::max(height + 2LL * radius, static_cast<long long>(kMinPaddedSide)), false);
}

FftLayout make_layout(const FilterProblem& problem) {
  const int radius = problem.params.radius();
  const long long padded_width = padded_width_for(problem.width, radius);
  const long long padded_height = padded_height_for(problem.height, radius);
  if (padded_width > INT_MAX || padded_height > INT_MAX || padded_width * padded_height > INT_MAX)
    throw std::invalid_argument("fft: the padded size " + std::to_string(padded_width) + "×" +
                                std::to_string(padded_height) + " exceeds what cuFFT's int sizes can address");
  FftLayout layout;
  layout.width = problem.width;
  layout.height = problem.height;
  layout.channels = channel_count(problem.format);
  layout.radius = radius;
  layout.padded_width = static_cast<int>(padded_width);
  layout.padded_height = static_cast<int>(padded_height);
  return layout;
}

FftMemory estimate_memory(long long padded_width, long long padded_height, int channels) {
  FftMemory memory;
  const double real_samples = static_cast<double>(padded_width) * static_cast<double>(padded_height);
  const double complex_samples = static_cast<double>(padded_width / 2 + 1) * static_cast<double>(padded_height);
  memory.real_planes_bytes = channels * real_samples * sizeof(float);
  memory.spectra_bytes = channels * complex_samples * 2 * sizeof(float);
  memory.work_area_bytes = memory.spectra_bytes;
  memory.kernel_factors_bytes = static_cast<double>(padded_width / 2 + 1 + padded_height) * sizeof(float);
  memory.total_bytes =
      memory.real_planes_bytes + memory.spectra_bytes + memory.work_area_bytes + memory.kernel_factors_bytes;
  return memory;
}

std::vector<double> symmetric_kernel_dft(const std::vector<double>& weights, int length, int count) {
  if (weights.empty() || weights.size() % 2 == 0)
    throw std::invalid_argument("symmetric_kernel_dft: the kernel needs an odd number of taps");
  const int radius = static_cast<int>(weights.size() / 2);
  if (length < 2 * radius + 1)
    throw std::invalid_argument("symmetric_kernel_dft: the line is shorter than the kernel");
  if (count < 0 || count > length) throw std::invalid_argument("symmetric_kernel_dft: count outside [0, length]");

  // cos(2 pi j / length) from a table indexed by the exact phase j = (u m) mod length; for very
  // long lines (a huge image side) the table would cost more host memory than it saves, so each
  // cosine is then evaluated directly (from the same exact phase).
  const double two_pi = 2.0 * std::acos(-1.0);
  const bool use_table = radius > 0 && length <= kMaxCosineTable;
  std::vector<double> cosine(use_table ? length : 0);
  for (std::size_t j = 0; j < cosine.size(); ++j) cosine[j] = std::cos(two_pi * static_cast<double>(j) / length);

  std::vector<double> spectrum(count);
  for (int u = 0; u < count; ++u) {
    double sum = 0.0;
    long long phase = 0;  // (u * m) mod length, stepped without a division per tap
    for (int m = 1; m <= radius; ++m) {
      phase += u;
      if (phase >= length) phase -= length;
      const double c = use_table ? cosine[static_cast<std::size_t>(phase)]
                                 : std::cos(two_pi * static_cast<double>(phase) / length);
      sum += weights[radius + m] * c;
    }
    spectrum[u] = weights[radius] + 2.0 * sum;
  }
  return spectrum;
}

KernelSpectrum kernel_spectrum(const FftLayout& layout, const std::vector<double>& weights) {
  if (weights.size() != 2 * static_cast<std::size_t>(layout.radius) + 1)
    throw std::invalid_argument("kernel_spectrum: the weights do not have 2 radius + 1 taps");
  const int pw = layout.padded_width;
  const int ph = layout.padded_height;
  KernelSpectrum spectrum;

  spectrum.x = symmetric_kernel_dft(weights, pw, layout.spectrum_width());
  const double inverse_size = 1.0 / (static_cast<double>(pw) * static_cast<double>(ph));
  for (double& value : spectrum.x) value *= inverse_size;

  // Compute v in [0, Ph/2] and mirror the rest, so y is even to the last bit.
  const std::vector<double> half = symmetric_kernel_dft(weights, ph, ph / 2 + 1);
  spectrum.y.resize(ph);
  for (int v = 0; v < ph; ++v) spectrum.y[v] = half[v <= ph / 2 ? v : ph - v];
  return spectrum;
}

}  // namespace gausslab::fft
