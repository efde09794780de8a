#pragma once
// lut_2d's table, policy and per-thread code, written once as __host__ __device__ functions: the
// kernel in lut_2d.cu is a thin loop around them, and tests/cpu/methods/lut_2d/test_lut_2d.cpp runs the very same
// functions on the CPU with a checked shared table.
//
// The table: a symmetric 2D Gaussian of radius r has one weight per unordered pair of tap
// distances {|dx|, |dy|}, (r + 1)(r + 2) / 2 of them (w[a] · w[b] = w[b] · w[a]). For each such
// weight d and each 8-bit value v the table holds the product weight_d × v, rounded once to float32
// from the float64 weights the reference uses; the kernel then sums table[d · 256 + v] over the
// (2r + 1)² taps and four channels instead of multiplying. A per-tap list (in __constant__ memory)
// gives each tap's row of the table, d · 256.
#include <cuda_runtime.h>  // uchar4, float4 and make_* for the host compiler too

#include <cstddef>
#include <vector>

#include "gausslab/core/border.hpp"
#include "gausslab/core/host_device.hpp"
#include "gausslab/core/image.hpp"
#include "gausslab/core/pixel_format.hpp"

namespace gausslab::lut2d {

struct Lut2dPolicy {
  static constexpr int kThreadsX = 32;  // a warp along a row: coalesced pixel reads, uniform taps
  static constexpr int kThreadsY = 8;
  static constexpr int kThreads = kThreadsX * kThreadsY;
  static constexpr int kValues = 256;   // 8-bit values per table row
  // The table lives in the 48 KiB of shared memory that a block gets on every CUDA GPU without
  // opting in (sm_75 allows 64 KiB at most, sm_86/89 99 KiB): radius 8 (45 rows, 45 KiB) is the
  // largest that fits, and it leaves room for 4 blocks per H100 SM (228 KiB).
  static constexpr std::size_t kTableBytesLimit = 48 * 1024;
  static constexpr int kMaxRadius = 8;
  static constexpr int kMaxTaps = (2 * kMaxRadius + 1) * (2 * kMaxRadius + 1);  // 289 tap rows in __constant__
};

using P = Lut2dPolicy;

// Distinct weights of a symmetric 2D Gaussian of this radius: (r + 1)(r + 2) / 2.
GAUSSLAB_HD int distinct_weights(int radius) { return (radius + 1) * (radius + 2) / 2; }
// The table's bytes: one float per distinct weight and 8-bit value.
inline std::size_t table_bytes(int radius) {
  return static_cast<std::size_t>(distinct_weights(radius)) * P::kValues * sizeof(float);
}
// The index of the weight w[a] · w[b] (distances a, b in [0, r], either order) among the distinct ones.
GAUSSLAB_HD int weight_index(int a, int b) {
  const int low = a < b ? a : b, high = a < b ? b : a;
  return high * (high + 1) / 2 + low;
}

// The table (distinct_weights(radius) × 256 floats): entry d · 256 + v = float(w[a] · w[b] · v),
// from gaussian_weights' float64 weights. Defined in lut_2d_table.cpp.
std::vector<float> make_table(double sigma, int radius);
// Each tap's table row, d · 256, in row order (dy from -r to r, then dx from -r to r).
std::vector<int> make_tap_rows(int radius);

struct LutArgs {
  ConstImageView src;  // RGBA8
  ImageView dst;       // RGBA8
  int radius = 0;
  BorderMode border = BorderMode::Reflect;
};

// Output pixel (x, y): for each kernel row, the sum of its taps' table entries (one per channel,
// taps in ascending dx), then the rows' sums in ascending dy. `table[i]` reads the shared table,
// `tap_rows[t]` tap t's row offset. Every source pixel goes through border_index, as naive_2d's.
template <class Table, class TapRows>
GAUSSLAB_HD float4 lut_output(const LutArgs& args, const Table& table, const TapRows& tap_rows, int x, int y) {
  const int r = args.radius;
  const int taps = 2 * r + 1;
  float4 total = make_float4(0.f, 0.f, 0.f, 0.f);
  for (int i = 0; i < taps; ++i) {
    const int sy = border_index(y + i - r, args.src.height, args.border);
    if (sy < 0) continue;  // 'constant': zeros, whose entries are 0
    const uchar4* row = args.src.row<uchar4>(sy);
    float4 row_sum = make_float4(0.f, 0.f, 0.f, 0.f);
    for (int j = 0; j < taps; ++j) {
      const int sx = border_index(x + j - r, args.src.width, args.border);
      if (sx < 0) continue;
      const uchar4 p = row[sx];
      const int base = tap_rows[i * taps + j];
      row_sum.x += table[base + p.x];
      row_sum.y += table[base + p.y];
      row_sum.z += table[base + p.z];
      row_sum.w += table[base + p.w];
    }
    total.x += row_sum.x;
    total.y += row_sum.y;
    total.z += row_sum.z;
    total.w += row_sum.w;
  }
  return total;
}

GAUSSLAB_HD uchar4 to_rgba8(float4 v) { return make_uchar4(to_unorm8(v.x), to_unorm8(v.y), to_unorm8(v.z), to_unorm8(v.w)); }

// ---- accuracy ----------------------------------------------------------------------------------

// First-order float32 worst case relative to sum |w·x| in units of 2^-24: each entry rounded once
// (1), a row's sum (2r + 1 additions), the rows' sums (2r + 1): 35 units at radius 8, 2.1e-6, or
// 5.3e-4 of a level at 255. Promised: 0.51 levels against the unrounded reference (0.5 of them the
// final rounding), as the multiply kernels.
inline double error_units(int radius) { return 1.0 + 2.0 * (2 * radius + 1); }

}  // namespace gausslab::lut2d
