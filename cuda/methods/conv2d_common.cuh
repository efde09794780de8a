#pragma once
// The two non-separable 2D methods, naive_2d.cu and shared_2d.cu: their launch policies, the work of
// one thread written once as __host__ __device__ code, and the host-side rules (weights, chunk
// size, cost estimate and refusal, accuracy bound).
//
// The kernels are thin loops around these functions. tests/cpu/methods/conv2d/test_conv2d.cpp runs the
// very same functions on the CPU, pixel by pixel (naive) and block by block with the barrier
// phases in the kernel's order (shared): its shared-memory window checks every access (in bounds,
// staged in this chunk, written once), so indexing, borders, chunking and the float32 arithmetic
// are tested without a GPU.
//
// Both methods compute the full 2D convolution: every output sums (2r+1)² products of an input and
// a weight. Neither reuses a horizontal partial sum for another output row (that would be the
// separable algorithm, which is a different method of the comparison).
#include <cuda_runtime.h>  // float4, uchar4 and make_* for the host compiler too

#include <algorithm>
#include <cmath>  // fmaf and std::sqrt; kernel_common.cuh needs fmaf declared for the host compiler
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "gausslab/core/border.hpp"
#include "gausslab/core/filter_params.hpp"
#include "gausslab/core/gaussian_weights.hpp"
#include "gausslab/core/host_device.hpp"
#include "gausslab/core/image.hpp"
#include "gausslab/core/pixel_format.hpp"
#include "gausslab/cuda/accuracy_promise.hpp"
#include "gausslab/cuda/kernel_common.cuh"
#include "gausslab/cuda/store_rule.cuh"
#include "gausslab/cuda/tile_grid.cuh"
#include "gausslab/cuda/window_bands.hpp"

// GAUSSLAB_UNROLL_IF(condition) before a loop, `condition` a constant: true, the loop unrolls
// completely (the count kUnrollCompletely = INT_MAX is no smaller than any trip count; the SASS is
// that of a plain #pragma unroll); false, the count is 0, which nvcc ignores (the CUDA programming
// guide: a count below 1 drops the pragma), so the loop compiles as if it had no pragma. One loop
// nest thus serves the compile-time kernels (unrolled) and the run-time radius, which must keep
// nvcc's own choice: a plain #pragma unroll there made naive_2d F32 at 41×41 4–6 % slower on an
// H100 (issue #10). Each ignored pragma draws nvcc warning 20168, silenced around naive_output.
// The pragma's argument is not macro-expanded: hence a named constant, not INT_MAX.
namespace gausslab::conv2d {
inline constexpr int kUnrollCompletely = std::numeric_limits<int>::max();
}
#if defined(__CUDA_ARCH__)
#define GAUSSLAB_PRAGMA(text) _Pragma(#text)
#define GAUSSLAB_UNROLL_IF(condition) \
  GAUSSLAB_PRAGMA(unroll((condition) ? ::gausslab::conv2d::kUnrollCompletely : 0))
#else
#define GAUSSLAB_UNROLL_IF(condition)
#endif

namespace gausslab::conv2d {

// min for int in code that both compilers see (device code has a built-in min, the host does not).
GAUSSLAB_HD int min_int(int a, int b) { return a < b ? a : b; }
GAUSSLAB_HD int max_int(int a, int b) { return a > b ? a : b; }

// ---- tiles -----------------------------------------------------------------------------------

// Each block computes the tile at tile_at(block, tiles_x, ...) (tile_grid.cuh): blocks numbered along
// rows of tiles in a one-dimensional grid, which has room for 2^31 - 1 blocks (a 2D grid would stop at
// 65535 rows of tiles, i.e. 524280 pixels for 8-pixel-high tiles); tile_block_count counts them.

// ---- naive_2d ----------------------------------------------------------------------------------

// One thread per output pixel, a warp per 32 pixels of a row: at every tap the warp reads 32
// neighbouring pixels (one coalesced access) and one weight, the same for all its threads (the
// constant cache broadcasts it).
struct NaivePolicy {
  static constexpr int kThreadsX = 32;
  static constexpr int kThreadsY = 8;
  static constexpr int kThreads = kThreadsX * kThreadsY;
};

// 64 KB of __constant__ memory hold 16384 floats: the (2r+1)² weights fit up to radius 63
// (127² = 16129); from radius 64 (129² = 16641) they are read from global memory instead.
inline constexpr int kConstantWeightCapacity = 16384;
inline constexpr int kMaxConstantRadius = 63;
static_assert((2 * kMaxConstantRadius + 1) * (2 * kMaxConstantRadius + 1) <= kConstantWeightCapacity &&
                  (2 * kMaxConstantRadius + 3) * (2 * kMaxConstantRadius + 3) > kConstantWeightCapacity,
              "kMaxConstantRadius must be the largest radius whose 2D kernel fits in constant memory");

template <PixelFormat F>
struct NaiveArgs {
  ConstImageView src;
  ImageView dst;
  int radius = 0;
  BorderMode border = BorderMode::Reflect;
  int summation_chunk = 1;  // taps per partial sum, in each direction (summation_chunk() below)
  bool halo_in_memory = false;  // read beyond src from the memory around it (HaloReads)
  BandRange bands;              // bands of summation_chunk kernel rows (window_bands.hpp)
  StoreRule rule;               // a custom kernel's divisor, --rounding (store_rule.cuh)
};

// The source row or column of a tap at index i: the border rule (-1 for a 'constant' zero), or,
// when the caller has put the halo of `radius` in memory around the view, i itself, kept within that
// halo (shared_2d stages a whole block tile, whose rows and columns past the image feed outputs that
// are never stored: they must still read inside the memory the caller provides).
GAUSSLAB_HD int tap_source(int i, int n, BorderMode border, bool halo_in_memory, int radius) {
  return halo_in_memory ? min_int(max_int(i, -radius), n - 1 + radius) : border_index(i, n, border);
}
// Row sy of a view, for any sy the memory around the view holds (negative ones included).
template <class Pixel>
GAUSSLAB_HD const Pixel* source_row(const ConstImageView& view, int sy) {
  return reinterpret_cast<const Pixel*>(static_cast<const char*>(view.data) +
                                        static_cast<long long>(sy) * static_cast<long long>(view.pitch_bytes));
}

// ---- bands of the window (window_bands.hpp) ----------------------------------------------------

// Past the last band a launch sums, of `count`.
GAUSSLAB_HD int end_band(const BandRange& bands, int count) { return min_int(bands.end, count); }
template <PixelFormat F>
GAUSSLAB_HD PixelAccum<F>* partial_total(const BandRange& bands, int x, int y) {
  return reinterpret_cast<PixelAccum<F>*>(static_cast<char*>(bands.partial) +
                                          static_cast<long long>(y) * static_cast<long long>(bands.partial_pitch_bytes)) +
         x;
}
// The running total output (x, y) starts from: what the launch before left (zero for the first band).
template <PixelFormat F>
GAUSSLAB_HD PixelAccum<F> starting_total(const BandRange& bands, int x, int y) {
  return bands.first > 0 ? *partial_total<F>(bands, x, y) : zero_value<PixelAccum<F>>();
}
// Output (x, y) once this launch's bands are summed: the pixel, or the running total while bands remain.
template <PixelFormat F>
GAUSSLAB_HD void finish_output(const ImageView& dst, const BandRange& bands, int count, int x, int y,
                               const PixelAccum<F>& total, const StoreRule& rule = {}) {
  if (bands.end < count)
    *partial_total<F>(bands, x, y) = total;
  else
    dst.template row<PixelStorage<F>>(y)[x] = store_by<PixelStorage<F>>(total, rule);
}

// Taps summed into one partial sum before it joins the next level: about sqrt(taps), so that each
// of the four levels (taps of a kernel row, partials of a row, rows, partials of rows) adds at
// most ~sqrt(taps) float roundings instead of taps.
// The smallest chunk with chunk² >= taps (a constant expression, for the compile-time kernels).
constexpr int summation_chunk_of(int taps) {
  int chunk = 1;
  while (chunk * chunk < taps) ++chunk;
  return chunk;
}
inline int summation_chunk(int taps) { return summation_chunk_of(taps); }

// ---- the compile-time small kernels ------------------------------------------------------------
// Radius 1 to 3 (3×3, 5×5 and 7×7, the small kernels the original systems unrolled by hand) get
// kernels of their own in which the radius is a template argument (CompileTimeRadius<r>): every
// loop bound, the summation chunk, each weight's offset (in the constant bank: naive_2d's
// __constant__ array, shared_2d's kernel parameters) and every register index are then known to
// the compiler, so the loops unroll completely and each weight is read at a fixed address as an
// operand of its FFMA. The weight values stay run-time values (they depend on sigma, which is
// continuous), and so does the border mode. The sums are formed in the run-time loop's order, so
// the two give the same bits (tests: Conv2dModels, GpuUnrolled). kRunTimeRadius: the loop.
inline constexpr int kRunTimeRadius = -1;
inline constexpr int kMaxUnrolledRadius = 3;
template <int kRadius>
struct CompileTimeRadius {
  static constexpr int value = kRadius;
};

// Calls fn(CompileTimeRadius<r>{}) for radius 1..kMaxUnrolledRadius when `unrolled`, else
// fn(CompileTimeRadius<kRunTimeRadius>{}).
template <class Fn>
void dispatch_radius(int radius, bool unrolled, Fn&& fn) {
  if (unrolled && radius == 1) return fn(CompileTimeRadius<1>{});
  if (unrolled && radius == 2) return fn(CompileTimeRadius<2>{});
  if (unrolled && radius == 3) return fn(CompileTimeRadius<3>{});
  fn(CompileTimeRadius<kRunTimeRadius>{});
}

#if defined(__CUDACC__)
#pragma nv_diag_suppress 20168  // the ignored unroll pragmas of the run-time radius (above)
#endif
// Output pixel (x, y) of naive_2d, as its running total after the bands args.bands names (all: the
// whole sum; finish_output writes it): the weights are the (2r+1)² row-major 2D kernel (weights[i *
// taps + j] multiplies the input at (x + j - r, y + i - r)). Every tap's source goes through the
// border rule; 'constant' skips the taps that fall outside (they are zero).
// kRadius >= 0: the compile-time kernel of that radius (args.radius must equal it), whose loops
// unroll completely; the run-time radius keeps nvcc's own choice (GAUSSLAB_UNROLL_IF).
template <PixelFormat F, int kRadius = kRunTimeRadius>
GAUSSLAB_HD PixelAccum<F> naive_output(const NaiveArgs<F>& args, const float* weights, int x, int y,
                                       CompileTimeRadius<kRadius> = {}) {
  using Accum = PixelAccum<F>;
  constexpr bool kFixed = kRadius >= 0;
  const int radius = kFixed ? kRadius : args.radius;
  const int taps = 2 * radius + 1;
  const int chunk = kFixed ? summation_chunk_of(2 * kRadius + 1) : args.summation_chunk;
  // The compile-time kernels sum every band (the launch picks the loop for a band range).
  Accum total = kFixed ? zero_value<Accum>() : starting_total<F>(args.bands, x, y);
  const int rows_begin = kFixed ? 0 : args.bands.first * chunk;  // the kernel rows of the bands summed
  const int rows_end = kFixed ? taps : min_int(end_band(args.bands, div_up(taps, chunk)) * chunk, taps);
  GAUSSLAB_UNROLL_IF(kFixed)
  for (int i0 = rows_begin; i0 < rows_end; i0 += chunk) {
    const int i_end = min_int(i0 + chunk, taps);
    Accum band = zero_value<Accum>();  // the rows i0 .. i_end - 1
    GAUSSLAB_UNROLL_IF(kFixed)
    for (int i = i0; i < i_end; ++i) {
      const int sy = tap_source(y + i - radius, args.src.height, args.border, args.halo_in_memory, radius);
      if (!args.halo_in_memory && sy < 0) continue;  // a whole kernel row of zeros ('constant')
      const PixelStorage<F>* row = source_row<PixelStorage<F>>(args.src, sy);
      const float* row_weights = weights + static_cast<long long>(i) * taps;
      Accum row_sum = zero_value<Accum>();
      GAUSSLAB_UNROLL_IF(kFixed)
      for (int j0 = 0; j0 < taps; j0 += chunk) {
        const int j_end = min_int(j0 + chunk, taps);
        Accum part = zero_value<Accum>();  // the taps j0 .. j_end - 1 of kernel row i
        GAUSSLAB_UNROLL_IF(kFixed)
        for (int j = j0; j < j_end; ++j) {
          const int sx = tap_source(x + j - radius, args.src.width, args.border, args.halo_in_memory, radius);
          if (!args.halo_in_memory && sx < 0) continue;
          part = fma4(row_weights[j], to_accum_via_i2f(row[sx]), part);
        }
        row_sum += part;
      }
      band += row_sum;
    }
    total += band;
  }
  return total;
}
#if defined(__CUDACC__)
#pragma nv_diag_default 20168
#endif

// naive_2d's bands: summation_chunk kernel rows each (naive_output's outer loop); how many the
// launch's arguments have, and the whole description for a radius (HaloReads::window_bands).
template <PixelFormat F>
GAUSSLAB_HD int naive_band_count(const NaiveArgs<F>& args) {
  return div_up(2 * args.radius + 1, args.summation_chunk);
}
template <PixelFormat F>
WindowBands naive_window_bands(int radius) {
  const int taps = 2 * radius + 1;
  const int chunk = summation_chunk(taps);
  return {div_up(taps, chunk), chunk, taps, static_cast<int>(sizeof(PixelAccum<F>))};
}

// The (2r+1)² weights of naive_2d, row-major: each is the float64 product of two normalised 1D
// weights (the same ones the float64 reference uses), rounded once to float32.
inline std::vector<float> naive_weights_2d(double sigma, int radius) {
  const std::vector<double> w = gaussian_weights(sigma, radius);
  const std::size_t taps = w.size();
  std::vector<float> weights(taps * taps);
  for (std::size_t i = 0; i < taps; ++i)
    for (std::size_t j = 0; j < taps; ++j) weights[i * taps + j] = static_cast<float>(w[i] * w[j]);
  return weights;
}

// The weights naive_2d runs for `params`: the Gaussian's (naive_weights_2d), or a custom kernel's in
// correlation order (kernel_taps: a matrix as given, or flipped for convolve; a separable kernel as
// the float64 outer product of its masks) centred in the (2r+1)² square of r = params.radius(), its
// farthest reach, with zeros around a narrower side (they add exactly nothing to a finite sum).
inline std::vector<float> naive_weights_for(const FilterParams& params) {
  const int radius = params.radius();
  if (!params.custom_kernel()) return naive_weights_2d(params.sigma, radius);
  const KernelTaps k = kernel_taps(params);
  const int side = 2 * radius + 1;
  std::vector<float> weights(static_cast<std::size_t>(side) * side, 0.0f);
  const int ry = k.radius_y(), rx = k.radius_x();
  const int rows = 2 * ry + 1, columns = 2 * rx + 1;
  for (int j = 0; j < rows; ++j)
    for (int i = 0; i < columns; ++i) {
      const double w = k.separable ? (k.column.empty() ? (j == ry ? 1.0 : 0.0) : k.column[j]) * k.row[i]
                                   : k.matrix[static_cast<std::size_t>(j) * columns + i];
      weights[static_cast<std::size_t>(j - ry + radius) * side + (i - rx + radius)] = static_cast<float>(w);
    }
  return weights;
}

// The kernel arguments of naive_2d for a problem (the launch and the CPU model both build them here).
template <PixelFormat F>
NaiveArgs<F> make_naive_args(const ConstImageView& src, const ImageView& dst, const FilterParams& params) {
  NaiveArgs<F> args;
  args.src = src;
  args.dst = dst;
  args.radius = params.radius();
  args.border = params.border;
  args.summation_chunk = summation_chunk(2 * args.radius + 1);
  const bool divided = params.custom_kernel() && params.kernel.normalize;  // kernel_taps only then (its rank test)
  args.rule = {divided ? static_cast<float>(kernel_taps(params).divisor) : 1.0f, params.rounding};
  return args;
}

// ---- shared_2d ---------------------------------------------------------------------------------

// A block of 32 × 8 threads computes a tile of (32 · R) × 8 outputs; each thread computes R
// horizontally neighbouring outputs of one row (register blocking: each value it reads from shared
// memory serves up to R outputs). Why these numbers:
// - 32 threads in x: a warp is one tile row, so the rows below the image are whole idle warps and
//   every branch on the row is uniform within a warp.
// - R odd: thread t reads window column t·R + c, a stride of R elements across the warp; with R
//   odd the 32 floats (or the 8 float4 of each quarter-warp) fall in distinct banks.
// - R = 3 for RGBA (float4 sums: 4 sums × 3 outputs × 4 channels plus a 10-float4 window; ptxas
//   at sm_90: 79 registers, no spill); R = 5 for F32, whose values are 4× smaller (48 registers).
//   On an H100 the RGBA8 window (79 KB at chunk 32) allows 2 blocks per SM, F32 5 (registers).
// - kUnroll taps per step: the step loads kUnroll + R - 1 window values once and uses them
//   kUnroll · R times (the compiler keeps them in registers).
// - kMaxChunk: the kernel is staged in chunks of at most 32 × 32 taps; the window of one chunk is
//   (8 + 31) × (32·R + 31) values: 79 KB for RGBA (float4), 30 KB for F32. Devices with less
//   opt-in shared memory per block get a smaller chunk (max_chunk_for).
template <PixelFormat F>
struct Shared2dPolicy;

template <>
struct Shared2dPolicy<PixelFormat::Rgba8> {
  static constexpr int kThreadsX = 32;
  static constexpr int kThreadsY = 8;
  static constexpr int kOutputsPerThread = 3;
  static constexpr int kUnroll = 8;
  static constexpr int kMaxChunk = 32;
  static constexpr int kThreads = kThreadsX * kThreadsY;
  static constexpr int kTileWidth = kThreadsX * kOutputsPerThread;
  static constexpr int kTileHeight = kThreadsY;
};

template <>
struct Shared2dPolicy<PixelFormat::F32> {
  static constexpr int kThreadsX = 32;
  static constexpr int kThreadsY = 8;
  static constexpr int kOutputsPerThread = 5;
  static constexpr int kUnroll = 8;
  static constexpr int kMaxChunk = 32;
  static constexpr int kThreads = kThreadsX * kThreadsY;
  static constexpr int kTileWidth = kThreadsX * kOutputsPerThread;
  static constexpr int kTileHeight = kThreadsY;
};

template <class Policy>
constexpr bool is_valid_shared_2d_policy() {
  return Policy::kThreadsX == 32 && Policy::kOutputsPerThread % 2 == 1 && Policy::kUnroll >= 1 &&
         Policy::kMaxChunk >= 1;
}
static_assert(is_valid_shared_2d_policy<Shared2dPolicy<PixelFormat::Rgba8>>(), "see the policy's comment");
static_assert(is_valid_shared_2d_policy<Shared2dPolicy<PixelFormat::F32>>(), "see the policy's comment");

// How the (2r+1) × (2r+1) taps are cut into chunks of at most `chunk` × `chunk` (the last chunk of
// each side may be shorter, never empty). The window of one chunk is staged in shared memory.
struct ChunkPlan {
  int taps = 1;             // 2r + 1
  int chunk = 1;            // taps per chunk side (the shared window is sized for it)
  int chunks_per_side = 1;  // ceil(taps / chunk)
  GAUSSLAB_HD int count() const { return chunks_per_side * chunks_per_side; }
};

// As few chunks as `max_chunk` allows, of balanced size (taps 33, max 32: 17 + 16, not 32 + 1).
inline ChunkPlan make_chunk_plan(int taps, int max_chunk) {
  ChunkPlan plan;
  plan.taps = taps;
  const int sides = div_up(taps, max_chunk);
  plan.chunk = div_up(taps, sides);
  plan.chunks_per_side = div_up(taps, plan.chunk);  // == sides; recomputed so no chunk is empty
  return plan;
}

// Chunk `index` (row-major over chunk rows): kernel rows [i0, i0 + rows), columns [j0, j0 + columns).
// A "band" is one row of chunks; the sums close a band after its last chunk.
struct Chunk {
  int i0 = 0, rows = 0, j0 = 0, columns = 0;
  bool starts_band = false, ends_band = false;
};

GAUSSLAB_HD Chunk chunk_at(const ChunkPlan& plan, int index) {
  const int ci = index / plan.chunks_per_side, cj = index % plan.chunks_per_side;
  Chunk c;
  c.i0 = ci * plan.chunk;
  c.rows = min_int(plan.chunk, plan.taps - c.i0);
  c.j0 = cj * plan.chunk;
  c.columns = min_int(plan.chunk, plan.taps - c.j0);
  c.starts_band = cj == 0;
  c.ends_band = cj == plan.chunks_per_side - 1;
  return c;
}

// The shared window of a chunk: the inputs of a whole tile for the chunk's taps. Element (ly, lx)
// holds the input at (tile.x0 + j0 - r + lx, tile.y0 + i0 - r + ly). Its pitch is fixed per launch
// (sized for the full chunk); a shorter last chunk stages only its narrower part.
template <class Policy>
GAUSSLAB_HD int window_pitch(int chunk) {
  return Policy::kTileWidth + chunk - 1;
}
template <class Policy>
GAUSSLAB_HD int window_rows(int chunk) {
  return Policy::kTileHeight + chunk - 1;
}
template <PixelFormat F>
std::size_t window_bytes(int chunk) {
  using P = Shared2dPolicy<F>;
  return static_cast<std::size_t>(window_rows<P>(chunk)) * window_pitch<P>(chunk) * sizeof(PixelAccum<F>);
}

// The largest chunk (at most the policy's) whose window fits in `shared_bytes_per_block`; 0 when
// not even a 1-tap chunk fits.
template <PixelFormat F>
int max_chunk_for(std::size_t shared_bytes_per_block) {
  for (int chunk = Shared2dPolicy<F>::kMaxChunk; chunk >= 1; --chunk)
    if (window_bytes<F>(chunk) <= shared_bytes_per_block) return chunk;
  return 0;
}

// The normalised 1D weights, passed by value as a kernel parameter: each launch carries its own
// copy, so two instances with different sigmas on one stream (the viewer's A/B view) cannot see
// each other's weights, and nothing has to be uploaded. Two capacities keep the common launch
// small: up to radius 127 (1 KB) and up to the project's radius limit (16 KB; kernel parameters
// above 4 KB need CUDA 12.1 and a driver >= 530, on Volta or newer).
template <int Capacity>
struct RowWeights {
  float w[Capacity];
};
inline constexpr int kSmallWeightCapacity = 255;
inline constexpr int kLargeWeightCapacity = 2 * kMaxRadius + 1;

template <PixelFormat F, int Capacity>
struct Shared2dArgs {
  ConstImageView src;
  ImageView dst;
  int radius = 0;
  BorderMode border = BorderMode::Reflect;
  ChunkPlan chunks;
  int tiles_x = 1;
  bool halo_in_memory = false;  // read beyond src from the memory around it (HaloReads)
  BandRange bands;               // bands of chunk rows (window_bands.hpp)
  RowWeights<Capacity> weights;  // w[0 .. 2r]
};

// The kernel arguments of shared_2d (the launch and the CPU model both build them here); `weights`
// are the 2r + 1 normalised float weights.
template <PixelFormat F, int Capacity>
Shared2dArgs<F, Capacity> make_shared_2d_args(const ConstImageView& src, const ImageView& dst,
                                              const FilterParams& params, const ChunkPlan& plan,
                                              const std::vector<float>& weights) {
  const int taps = 2 * params.radius() + 1;
  if (plan.taps != taps || static_cast<int>(weights.size()) != taps || taps > Capacity)
    throw std::logic_error("shared_2d: the chunk plan or the weights do not match the radius");
  Shared2dArgs<F, Capacity> args{};  // zeroed, the unused weights too: every launch's bytes are defined
  args.src = src;
  args.dst = dst;
  args.radius = params.radius();
  args.border = params.border;
  args.chunks = plan;
  args.tiles_x = div_up(dst.width, Shared2dPolicy<F>::kTileWidth);
  std::copy(weights.begin(), weights.end(), args.weights.w);
  return args;
}

template <PixelFormat F>
GAUSSLAB_HD TileOrigin shared_2d_tile(int block, int tiles_x) {
  using P = Shared2dPolicy<F>;
  return tile_at(block, tiles_x, P::kTileWidth, P::kTileHeight);
}

// Threads whose row lies below the image compute nothing (whole warps: a warp is one tile row);
// they still stage their share of the window and meet every barrier.
template <PixelFormat F, int Capacity>
GAUSSLAB_HD bool thread_row_in_image(const Shared2dArgs<F, Capacity>& args, TileOrigin tile, int ty) {
  return tile.y0 + ty < args.dst.height;
}

// Phase 1 of a chunk (between two barriers): the block's threads copy the chunk's window from the
// source into shared memory, converting to float, applying the border rule to every element.
// Threads stride by the block's shape, so a warp reads 32 neighbouring pixels of one source row.
template <PixelFormat F, int Capacity, class Window>
GAUSSLAB_HD void stage_chunk(const Shared2dArgs<F, Capacity>& args, TileOrigin tile, const Chunk& chunk, int tx, int ty,
                             Window& window) {
  using P = Shared2dPolicy<F>;
  const int rows = P::kTileHeight + chunk.rows - 1;
  const int columns = P::kTileWidth + chunk.columns - 1;
  const int pitch = window_pitch<P>(args.chunks.chunk);
  const int gy0 = tile.y0 + chunk.i0 - args.radius;
  const int gx0 = tile.x0 + chunk.j0 - args.radius;
  for (int ly = ty; ly < rows; ly += P::kThreadsY) {
    const int sy = tap_source(gy0 + ly, args.src.height, args.border, args.halo_in_memory, args.radius);
    const PixelStorage<F>* row =
        args.halo_in_memory || sy >= 0 ? source_row<PixelStorage<F>>(args.src, sy) : nullptr;
    for (int lx = tx; lx < columns; lx += P::kThreadsX) {
      const int sx = tap_source(gx0 + lx, args.src.width, args.border, args.halo_in_memory, args.radius);
      window.store(ly * pitch + lx, (row != nullptr && (args.halo_in_memory || sx >= 0))
                                        ? to_accum_via_i2f(row[sx])
                                        : zero_value<PixelAccum<F>>());
    }
  }
}

// One kernel row of a chunk for the thread's R outputs: partial[k] = sum over the chunk's columns
// jj of w[j0 + jj] · window[start + k + jj]. `start` is the window index of the thread's first
// output's first tap. kUnroll taps per step, then the remaining ones singly.
template <PixelFormat F, int Capacity, class Window>
GAUSSLAB_HD void row_partial(const Window& window, int start, const RowWeights<Capacity>& weights, int j0, int columns,
                             PixelAccum<F> (&partial)[Shared2dPolicy<F>::kOutputsPerThread]) {
  using P = Shared2dPolicy<F>;
  constexpr int R = P::kOutputsPerThread;
  constexpr int U = P::kUnroll;
  GAUSSLAB_UNROLL
  for (int k = 0; k < R; ++k) partial[k] = zero_value<PixelAccum<F>>();
  int jj = 0;
  for (; jj + U <= columns; jj += U) {
    PixelAccum<F> values[U + R - 1];
    GAUSSLAB_UNROLL
    for (int t = 0; t < U + R - 1; ++t) values[t] = window.load(start + jj + t);
    GAUSSLAB_UNROLL
    for (int u = 0; u < U; ++u) {
      const float w = weights.w[j0 + jj + u];
      GAUSSLAB_UNROLL
      for (int k = 0; k < R; ++k) partial[k] = fma4(w, values[u + k], partial[k]);
    }
  }
  GAUSSLAB_UNROLL
  for (; jj < columns; ++jj) {
    const float w = weights.w[j0 + jj];
    GAUSSLAB_UNROLL
    for (int k = 0; k < R; ++k) partial[k] = fma4(w, window.load(start + jj + k), partial[k]);
  }
}

// The sums a thread carries from chunk to chunk: `band` over the chunks of one chunk row,
// `total` over the bands (a summation tree, see shared_error_units).
template <PixelFormat F>
struct ThreadSums {
  PixelAccum<F> total[Shared2dPolicy<F>::kOutputsPerThread];
  PixelAccum<F> band[Shared2dPolicy<F>::kOutputsPerThread];
};

template <PixelFormat F>
GAUSSLAB_HD void clear(ThreadSums<F>& sums) {
  GAUSSLAB_UNROLL
  for (int k = 0; k < Shared2dPolicy<F>::kOutputsPerThread; ++k)
    sums.total[k] = sums.band[k] = zero_value<PixelAccum<F>>();
}

// Phase 2 of a chunk (after the barrier that completes the window): the thread's R outputs take
// the chunk's rows × columns taps, as sum over rows ii of w[i0 + ii] · (row partial).
// kRadius >= 0: the compile-time kernel of that radius, whose taps form one chunk of taps × taps.
template <PixelFormat F, int Capacity, class Window, int kRadius = kRunTimeRadius>
GAUSSLAB_HD void accumulate_chunk(const Shared2dArgs<F, Capacity>& args, const Chunk& run_time_chunk, int tx, int ty,
                                  const Window& window, ThreadSums<F>& sums, CompileTimeRadius<kRadius> = {}) {
  using P = Shared2dPolicy<F>;
  constexpr int R = P::kOutputsPerThread;
  constexpr bool kFixed = kRadius >= 0;
  Chunk chunk = run_time_chunk;
  if (kFixed) chunk = Chunk{0, 2 * kRadius + 1, 0, 2 * kRadius + 1, true, true};
  const int pitch = window_pitch<P>(kFixed ? 2 * kRadius + 1 : args.chunks.chunk);
  if (chunk.starts_band) {
    GAUSSLAB_UNROLL
    for (int k = 0; k < R; ++k) sums.band[k] = zero_value<PixelAccum<F>>();
  }
  PixelAccum<F> chunk_sum[R];
  GAUSSLAB_UNROLL
  for (int k = 0; k < R; ++k) chunk_sum[k] = zero_value<PixelAccum<F>>();
  GAUSSLAB_UNROLL
  for (int ii = 0; ii < chunk.rows; ++ii) {
    PixelAccum<F> partial[R];
    row_partial<F>(window, (ty + ii) * pitch + tx * R, args.weights, chunk.j0, chunk.columns, partial);
    const float w_row = args.weights.w[chunk.i0 + ii];
    GAUSSLAB_UNROLL
    for (int k = 0; k < R; ++k) chunk_sum[k] = fma4(w_row, partial[k], chunk_sum[k]);
  }
  GAUSSLAB_UNROLL
  for (int k = 0; k < R; ++k) sums.band[k] += chunk_sum[k];
  if (chunk.ends_band) {
    GAUSSLAB_UNROLL
    for (int k = 0; k < R; ++k) sums.total[k] += sums.band[k];
  }
}

// shared_2d's bands: its rows of chunks (a band's sums join the total at the band's last chunk).
inline WindowBands shared_window_bands(const ChunkPlan& plan, std::size_t accum_bytes) {
  return {plan.chunks_per_side, plan.chunk, plan.taps, static_cast<int>(accum_bytes)};
}
// The chunks of the bands args.bands names: [first, end).
template <PixelFormat F, int Capacity>
GAUSSLAB_HD int first_chunk(const Shared2dArgs<F, Capacity>& args) {
  return args.bands.first * args.chunks.chunks_per_side;
}
template <PixelFormat F, int Capacity>
GAUSSLAB_HD int end_chunk(const Shared2dArgs<F, Capacity>& args) {
  return end_band(args.bands, args.chunks.chunks_per_side) * args.chunks.chunks_per_side;
}

// Before the first chunk: the running totals the launch before left for the thread's R outputs
// inside the image (none before the first band).
template <PixelFormat F, int Capacity>
GAUSSLAB_HD void load_running_totals(const Shared2dArgs<F, Capacity>& args, TileOrigin tile, int tx, int ty,
                                     ThreadSums<F>& sums) {
  using P = Shared2dPolicy<F>;
  const int y = tile.y0 + ty;
  if (args.bands.first == 0 || y >= args.dst.height) return;
  GAUSSLAB_UNROLL
  for (int k = 0; k < P::kOutputsPerThread; ++k) {
    const int x = tile.x0 + tx * P::kOutputsPerThread + k;
    if (x < args.dst.width) sums.total[k] = starting_total<F>(args.bands, x, y);
  }
}

// After the last chunk: each thread writes those of its R outputs that lie inside the image (their
// running totals while bands remain).
template <PixelFormat F, int Capacity>
GAUSSLAB_HD void store_outputs(const Shared2dArgs<F, Capacity>& args, TileOrigin tile, int tx, int ty,
                               const ThreadSums<F>& sums) {
  using P = Shared2dPolicy<F>;
  const int y = tile.y0 + ty;
  if (y >= args.dst.height) return;
  GAUSSLAB_UNROLL
  for (int k = 0; k < P::kOutputsPerThread; ++k) {
    const int x = tile.x0 + tx * P::kOutputsPerThread + k;
    if (x < args.dst.width) finish_output<F>(args.dst, args.bands, args.chunks.chunks_per_side, x, y, sums.total[k]);
  }
}

// ---- accuracy ----------------------------------------------------------------------------------
// Float32 rounding, first-order worst case: summing m non-negative terms one after the other (each
// FMA rounds once) errs by at most m·u of their sum, u = 2^-24. A tree of sums adds its levels'
// term counts. Relative to sum |w|·|x| (= the reference value for a non-negative image, and so at
// most the peak that the test divides by), the error is at most units × u, with:

inline constexpr double kUnitRoundoff = 5.9604644775390625e-8;  // 2^-24

// naive_2d: weights rounded once (1); chunk of a row (c), partials of a row (ceil(taps / c)), rows
// of a band (c), bands (ceil(taps / c)); c = summation_chunk(taps).
inline double naive_error_units(int taps) {
  const int c = summation_chunk(taps);
  return 1.0 + 2.0 * c + 2.0 * div_up(taps, c);
}

// shared_2d: both 1D weights rounded once (2); row partial (columns ≤ chunk), rows of a chunk
// (≤ chunk), chunks of a band and bands (chunks_per_side each).
inline double shared_error_units(const ChunkPlan& plan) { return 2.0 + 2.0 * plan.chunk + 2.0 * plan.chunks_per_side; }

// The promise both methods make: float rounding, kFloatRoundingBound, widened only where the worst case
// above exceeds it (radius beyond about 800; the typical error, which grows like the square root
// of the counts, stays near 1e-6 there).
inline AccuracyBound bound_from_units(double units) {
  return bound_of_relative(std::max(kFloatRoundingBound.max_relative_error, units * kUnitRoundoff));
}

// ---- cost ---------------------------------------------------------------------------------------
// Both methods refuse runs whose estimated time exceeds kMaxSecondsPerRun: a GUI must not freeze,
// and a display GPU's watchdog (about 2 s on Windows) would kill the kernel. The estimate counts
// the multiply-adds of every thread launched (whole warps and tiles, so a 1-pixel-wide image
// pays for the idle lanes it really costs) at an assumed rate.

inline constexpr double kMaxSecondsPerRun = 2.0;

// The assumed rates, in multiply-adds (one per tap, pixel and channel) per second. An H100 peaks at
// 33.5e12 fused multiply-adds per second; these are deliberately a few times lower, as neither
// kernel is bound by arithmetic and smaller GPUs run them too:
// - naive_2d, 1e12 (2 TFLOP/s): every tap is a global (L1) read, a border check and, for RGBA8,
//   four byte-to-float conversions;
// - shared_2d, 3e12 (6 TFLOP/s): taps read registers and shared memory (0.3–0.4 shared reads per
//   tap and output), the weights come from the constant bank.
inline constexpr double kNaiveMultiplyAddsPerSecond = 1e12;
inline constexpr double kSharedMultiplyAddsPerSecond = 3e12;

struct CostEstimate {
  double multiply_adds = 0;  // over the whole run, all channels
  double rate = 1;           // the assumed multiply-adds per second
  double seconds = 0;        // multiply_adds / rate
};

// naive_2d: (2r+1)² multiply-adds per thread and channel, threads = whole 32 × 8 blocks.
inline CostEstimate naive_cost(const FilterProblem& problem, int radius, double multiply_adds_per_second) {
  const double taps = 2.0 * radius + 1.0;
  const double threads = static_cast<double>(tile_block_count(problem.width, problem.height, NaivePolicy::kThreadsX,
                                                        NaivePolicy::kThreadsY)) *
                         NaivePolicy::kThreads;
  CostEstimate cost;
  cost.multiply_adds = threads * taps * taps * channel_count(problem.format);
  cost.rate = multiply_adds_per_second;
  cost.seconds = cost.multiply_adds / multiply_adds_per_second;
  return cost;
}

// shared_2d: (2r+1)² + (2r+1) multiply-adds per output and channel (the second term: each row
// partial times its row weight), outputs = whole tiles.
template <PixelFormat F>
CostEstimate shared_cost(const FilterProblem& problem, int radius, double multiply_adds_per_second) {
  using P = Shared2dPolicy<F>;
  const double taps = 2.0 * radius + 1.0;
  const double tiles =
      static_cast<double>(tile_block_count(problem.width, problem.height, P::kTileWidth, P::kTileHeight));
  const double outputs = tiles * P::kTileWidth * P::kTileHeight;
  CostEstimate cost;
  cost.multiply_adds = outputs * (taps * taps + taps) * channel_count(problem.format);
  cost.rate = multiply_adds_per_second;
  cost.seconds = cost.multiply_adds / multiply_adds_per_second;
  return cost;
}

// The largest radius whose estimate stays within the limit (-1 if none); `estimate(radius)`
// grows with the radius.
template <class Estimate>
int largest_affordable_radius(Estimate&& estimate) {
  if (estimate(0).seconds > kMaxSecondsPerRun) return -1;
  int low = 0, high = kMaxRadius;  // estimate(low) is affordable
  if (estimate(high).seconds <= kMaxSecondsPerRun) return high;
  while (high - low > 1) {
    const int middle = low + (high - low) / 2;
    (estimate(middle).seconds <= kMaxSecondsPerRun ? low : high) = middle;
  }
  return low;
}

// Empty when affordable; otherwise the refusal, naming the estimate, the assumed rate and what to
// lower: "sigma 200 (radius 800) on a 4096×4096 rgba8 image needs 1601² = 2.6e+06 multiply-adds
// per pixel and channel ...".
template <class Estimate>
std::string cost_refusal(const char* method, const FilterProblem& problem, Estimate&& estimate) {
  const int radius = problem.params.radius();
  const CostEstimate cost = estimate(radius);
  if (cost.seconds <= kMaxSecondsPerRun) return {};
  const int taps = 2 * radius + 1;
  const int affordable = largest_affordable_radius(estimate);
  char what_to_lower[200];
  if (affordable < 0)
    std::snprintf(what_to_lower, sizeof what_to_lower, "use a smaller image");
  else if (problem.params.fixed_radius >= 0)
    std::snprintf(what_to_lower, sizeof what_to_lower, "lower the radius to %d or less at this size, or use a smaller image",
                  affordable);
  else
    std::snprintf(what_to_lower, sizeof what_to_lower,
                  "lower sigma below %.3g (radius %d or less at truncate %g) at this size, or use a smaller image",
                  (affordable + 0.5) / problem.params.truncate, affordable, problem.params.truncate);
  char text[700];
  std::snprintf(text, sizeof text,
                "sigma %g (radius %d) on a %d×%d %s image needs %d² = %.2g multiply-adds per pixel and channel, "
                "%.2g in all: about %.3g s at the %.0e multiply-adds per second assumed for %s, which refuses runs "
                "estimated above %g s; %s, or choose a separable, FFT or recursive method, whose cost grows far "
                "more slowly with sigma",
                problem.params.sigma, radius, problem.width, problem.height, to_string(problem.format), taps,
                static_cast<double>(taps) * taps, cost.multiply_adds, cost.seconds, cost.rate, method,
                kMaxSecondsPerRun, what_to_lower);
  return text;
}

}  // namespace gausslab::conv2d
