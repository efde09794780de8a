#include "gausslab/core/difference_stats.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <vector>

namespace gausslab {

namespace {

DifferenceFigures figures(double sum_abs, double sum_squares, double max_abs, long long max_at, long long counted,
                          const DifferenceInput& in, double peak) {
  DifferenceFigures f;
  if (counted <= 0) return f;
  f.max_abs = max_abs;
  f.mean_abs = sum_abs / static_cast<double>(counted);
  f.rms = std::sqrt(sum_squares / static_cast<double>(counted));
  f.psnr_db = f.rms > 0.0 ? 20.0 * std::log10(peak / f.rms) : std::numeric_limits<double>::infinity();
  if (max_at >= 0) {
    f.max_channel = static_cast<int>(max_at % in.channels);
    const long long pixel = max_at / in.channels;
    f.max_x = static_cast<int>(pixel % in.width);
    f.max_y = static_cast<int>(pixel / in.width);
  }
  return f;
}

}  // namespace

DifferenceStats finish_difference(const DifferencePartial& t, const DifferenceInput& in, double peak) {
  DifferenceStats stats;
  stats.samples = in.samples();
  stats.nonfinite = t.nonfinite;
  const long long counted = stats.samples - static_cast<long long>(t.nonfinite);
  stats.unrounded = figures(t.sum_abs, t.sum_squares, t.max_abs, t.max_at, counted, in, peak);
  stats.rounded = figures(t.sum_abs_8bit, t.sum_squares_8bit, t.max_abs_8bit, t.max_at_8bit, counted, in, peak);
  return stats;
}

DifferenceStats image_difference_host(const DifferenceInput& in, double peak) {
  if (in.width < 1 || in.height < 1 || in.channels < 1 || !in.a.data || !in.b.data)
    throw std::invalid_argument("image_difference_host: empty input");
  // One partial per row, merged in row order: the result does not depend on the thread count.
  std::vector<DifferencePartial> rows(static_cast<std::size_t>(in.height));
  const long long per_row = static_cast<long long>(in.width) * in.channels;
#pragma omp parallel for schedule(static)
  for (int y = 0; y < in.height; ++y) {
    DifferencePartial part;
    const long long first = y * per_row;
    for (long long i = first; i < first + per_row; ++i) accumulate_sample(part, in, i);
    rows[static_cast<std::size_t>(y)] = part;
  }
  DifferencePartial total;
  for (const DifferencePartial& part : rows) merge_into(total, part);
  return finish_difference(total, in, peak);
}

DifferenceOperand rgba8_operand(const void* data, std::size_t pitch_bytes) {
  return DifferenceOperand{data, OperandType::U8, pitch_bytes, 4, 1};
}

DifferenceOperand planes_operand(const void* data, std::size_t pitch_bytes, int height, OperandType type) {
  const std::size_t size = type == OperandType::U8 ? 1 : type == OperandType::F32 ? 4 : 8;
  return DifferenceOperand{data, type, pitch_bytes, size, pitch_bytes * static_cast<std::size_t>(height)};
}

DifferenceOperand interleaved_f64_operand(const double* data, int width, int channels) {
  const std::size_t pixel = sizeof(double) * static_cast<std::size_t>(channels);
  return DifferenceOperand{data, OperandType::F64, pixel * static_cast<std::size_t>(width), pixel, sizeof(double)};
}

std::string describe(const DifferenceFigures& f) {
  static const char kChannels[] = "rgba";
  char text[200];
  std::snprintf(text, sizeof text, "max %.4g at (%d, %d, %c), mean %.4g, PSNR %.1f dB", f.max_abs, f.max_x, f.max_y,
                f.max_channel >= 0 && f.max_channel < 4 ? kChannels[f.max_channel] : '?', f.mean_abs, f.psnr_db);
  return text;
}

}  // namespace gausslab
