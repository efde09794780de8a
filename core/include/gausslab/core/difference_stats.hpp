#pragma once
// A against B over a whole image: max |A-B| with its location, mean |A-B|, RMS and PSNR, both on the
// unrounded values and after each value's rounding to 8 bits, in the images' units (8-bit levels
// for pictures). The per-sample accumulation and the merge of two partial results are written once
// here (GAUSSLAB_HD): the CPU implementation below and the GPU reduction in
// cuda/src/image_difference.cu both use them, and a CPU-model test runs the GPU's per-thread and
// per-block steps on the CPU.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "gausslab/core/host_device.hpp"
#include "gausslab/core/pixel_format.hpp"

namespace gausslab {

// How one side of a comparison stores its samples (the float64 reference among them).
enum class OperandType : int { U8, F32, F64 };

// One side of a comparison: `channels` values per pixel, anywhere in memory. Sample (x, y, c) is at
// data + y * pitch_bytes + x * pixel_bytes + c * channel_bytes, so one struct describes interleaved
// RGBA8 (pixel 4, channel 1), planes stacked in one allocation (pixel 4, channel = plane bytes) and
// the float64 reference (pixel 32, channel 8).
struct DifferenceOperand {
  const void* data = nullptr;
  OperandType type = OperandType::F32;
  std::size_t pitch_bytes = 0;
  std::size_t pixel_bytes = 0;
  std::size_t channel_bytes = 0;
  // The rounded figures compare 8-bit results; a reference is not one: set this on the exact
  // Gaussian's operand to compare an 8-bit result with it unrounded (the accuracy bound's sense).
  bool keep_unrounded = false;

  GAUSSLAB_HD double sample(int x, int y, int c) const {
    const char* p = static_cast<const char*>(data) + static_cast<std::size_t>(y) * pitch_bytes +
                    static_cast<std::size_t>(x) * pixel_bytes + static_cast<std::size_t>(c) * channel_bytes;
    switch (type) {
      case OperandType::U8: return static_cast<double>(*reinterpret_cast<const std::uint8_t*>(p));
      case OperandType::F32: return static_cast<double>(*reinterpret_cast<const float*>(p));
      default: return *reinterpret_cast<const double*>(p);
    }
  }
  // The value as an 8-bit result would hold it: float values through the methods' own to_unorm8,
  // float64 values by the same rule in float64, 8-bit values as they are.
  GAUSSLAB_HD double rounded(double value) const {
    if (type == OperandType::U8 || keep_unrounded) return value;
    if (type == OperandType::F32) return static_cast<double>(to_unorm8(static_cast<float>(value)));
    const double clamped = value < 0.0 ? 0.0 : (value > 255.0 ? 255.0 : value);
    return std::floor(clamped + 0.5);
  }
};

struct DifferenceInput {
  DifferenceOperand a, b;
  int width = 0, height = 0, channels = 4;
  GAUSSLAB_HD long long samples() const { return static_cast<long long>(width) * height * channels; }
};

// Sums and maxima of one part of the samples; merge() combines two parts. The largest difference
// keeps the smallest sample index on ties, so every order of merging finds the same location.
struct DifferencePartial {
  double sum_abs = 0, sum_squares = 0, max_abs = 0;
  long long max_at = -1;  // sample index (y * width + x) * channels + c
  double sum_abs_8bit = 0, sum_squares_8bit = 0, max_abs_8bit = 0;
  long long max_at_8bit = -1;
  unsigned long long nonfinite = 0;  // samples where A or B is NaN or infinite (left out of the sums)
};

GAUSSLAB_HD void keep_larger(double& max_abs, long long& max_at, double value, long long at) {
  if (max_at < 0 || value > max_abs || (value == max_abs && at < max_at)) {
    max_abs = value;
    max_at = at;
  }
}

// Adds sample `index` (in [0, samples())) of the input to `part`.
GAUSSLAB_HD void accumulate_sample(DifferencePartial& part, const DifferenceInput& in, long long index) {
  const int c = static_cast<int>(index % in.channels);
  const long long pixel = index / in.channels;
  const int x = static_cast<int>(pixel % in.width), y = static_cast<int>(pixel / in.width);
  const double a = in.a.sample(x, y, c), b = in.b.sample(x, y, c);
  if (!std::isfinite(a) || !std::isfinite(b)) {
    ++part.nonfinite;
    return;
  }
  const double d = std::fabs(a - b);
  part.sum_abs += d;
  part.sum_squares += d * d;
  keep_larger(part.max_abs, part.max_at, d, index);
  const double d8 = std::fabs(in.a.rounded(a) - in.b.rounded(b));
  part.sum_abs_8bit += d8;
  part.sum_squares_8bit += d8 * d8;
  keep_larger(part.max_abs_8bit, part.max_at_8bit, d8, index);
}

GAUSSLAB_HD void merge_into(DifferencePartial& into, const DifferencePartial& other) {
  into.sum_abs += other.sum_abs;
  into.sum_squares += other.sum_squares;
  if (other.max_at >= 0) keep_larger(into.max_abs, into.max_at, other.max_abs, other.max_at);
  into.sum_abs_8bit += other.sum_abs_8bit;
  into.sum_squares_8bit += other.sum_squares_8bit;
  if (other.max_at_8bit >= 0) keep_larger(into.max_abs_8bit, into.max_at_8bit, other.max_abs_8bit, other.max_at_8bit);
  into.nonfinite += other.nonfinite;
}

// The figures a user reads.
struct DifferenceFigures {
  double max_abs = 0, mean_abs = 0, rms = 0, psnr_db = 0;  // psnr: infinity when identical
  int max_x = -1, max_y = -1, max_channel = -1;             // where |A-B| is largest (first on ties)
};

struct DifferenceStats {
  DifferenceFigures unrounded;  // the values before rounding to 8 bits
  DifferenceFigures rounded;    // after (what the 8-bit results hold; against a reference operand
                                // with keep_unrounded: the 8-bit result against the exact values)
  long long samples = 0;
  unsigned long long nonfinite = 0;
  bool identical() const { return nonfinite == 0 && unrounded.max_abs == 0.0; }
};

// Figures from the sum over every sample; `peak` is the PSNR's signal peak (255 for 8-bit levels).
DifferenceStats finish_difference(const DifferencePartial& total, const DifferenceInput& in, double peak);

// The CPU implementation (host memory, all cores; partial sums merged in a fixed order).
DifferenceStats image_difference_host(const DifferenceInput& in, double peak = 255.0);

// Operands for host or device memory of the usual shapes.
DifferenceOperand rgba8_operand(const void* data, std::size_t pitch_bytes);           // interleaved RGBA8
DifferenceOperand planes_operand(const void* data, std::size_t pitch_bytes, int height, OperandType type);  // planes stacked vertically
DifferenceOperand interleaved_f64_operand(const double* data, int width, int channels);  // reference_gaussian's layout

// "max 0.0123 at (10, 20, g), mean 0.00041, PSNR 98.1 dB"
std::string describe(const DifferenceFigures& figures);

}  // namespace gausslab
