#pragma once
// separable_fused's per-thread code: the tile geometry, the shared-memory layout, the fill, the row
// pass and the column pass of SeparableFusedKernel (separable_fused.cu), written once as
// __host__ __device__ code. The kernel calls these functions between its __syncthreads();
// tests/cpu/methods/separable/test_separable_fused.cpp runs the very same functions on the CPU,
// block by block and thread by thread, phase by phase, with checked shared and global memory.
//
// The maths is separable_common.cuh's, without the zero-weight padding: for every output position p
// of a line of n samples, out[p] = sum_{t = 0}^{2r} w[t] * in[border(p + t - r)], one fmaf per tap in
// ascending t (the weights of gaussian_weights_f32). The row pass filters the rows into a float
// tile, the column pass filters that tile's columns; a row of the tile that lies outside the image is
// the row pass of the source row border_index maps it to (zeros for 'constant'), exactly what the
// column pass of a two-pass method reads there. So separable_fused, separable_shared,
// separable_texture and the plain per-pixel loop of the tests agree bit for bit.
//
// One block, one output tile of kTileW × kTileH pixels at (x0, y0), three phases:
//   fill:    raw[row][col] = src[border(y0 - r + row)][border(x0 - r + col)] for the tile plus an
//            apron of r on every side ((kTileH + 2r) rows of kTileW + 2r samples, storage type:
//            uchar4 or float), and the 2r + 1 weights. Warp w fills rows w, w + kWarps, ...; lane l
//            columns l, l + 32, ...: every warp instruction reads 32 consecutive pixels of one row.
//   rows:    h[row][x] = sum_t w[t] raw[row][x + t] for every raw row and x < kTileW (float or
//            float4). A thread computes kRowOutputs consecutive x of one row with a register window;
//            the lanes of a warp take consecutive rows, so with an odd raw pitch their reads fall in
//            32 different banks, and with an odd h pitch so do their writes.
//   columns: out[y0 + y][x0 + x] = sum_t w[t] h[y + t][x] for the tile's outputs. A thread computes
//            kColumnOutputs consecutive y of one column; the lanes take consecutive x: conflict-free
//            reads, and each warp store writes 32 consecutive pixels of an image row.
// Tiles at the right and bottom edges compute only the row groups, rows and column groups that reach
// an output inside the image (FusedExtent).
//
// Two kinds of kernel per format (FusedPolicyFor, FusedSmallRadiusPolicy): radius 0–8 (F32: 0–22)
// with the tap count as a template argument (loops fully unrolled, the weights in registers; wide
// tiles at the smallest radii), and the larger radii up to kMaxFusedRadius with a run-time tap count
// (weights read from shared memory as broadcasts).
#include <type_traits>
#include <utility>

#include "gausslab/cuda/tile_grid.cuh"
#include "pool_common.cuh"
#include "separable_common.cuh"

namespace gausslab::fused {


// The largest radius separable_fused runs: its largest tile (RGBA8, 32 × 64 outputs) with apron
// needs 220 KiB of shared memory at radius 64, just under the 227 KiB an H100 block may have.
inline constexpr int kMaxFusedRadius = 64;
// RGBA16 and RGBA32F run RGBA8's tiles (float4 sums alike) with 2 and 4 times its raw tile: within
// the H100's and H200's 227 KiB up to radius 44 and 27 (SeparableFusedPolicy tests both limits).
template <PixelFormat F>
inline constexpr int kMaxFusedRadiusOf =
    F == PixelFormat::Rgba16 ? 44 : F == PixelFormat::Rgba32F ? 27 : kMaxFusedRadius;
// Radii up to this one run kernels compiled for their tap count.
inline constexpr int kMaxExactRadius = 8;
// F32 radii above kMaxExactRadius up to this one also run kernels compiled for their tap count
// (the weights in registers instead of a shared-memory broadcast per tap and thread: the run-time
// kernel's row and column passes load a weight for every sample they load). RGBA8 stays at 8: its
// float4 window and accumulators leave no registers for 2r + 1 weights.
inline constexpr int kMaxMediumRadius = 22;
// The largest radius a format runs with its tap count compiled in.
template <PixelFormat F>
inline constexpr int kMaxCompiledRadius = F == PixelFormat::F32 ? kMaxMediumRadius : kMaxExactRadius;

template <int TileW, int TileH, int Warps, int RowOutputs, int ColumnOutputs, int MaxRadius, int MinBlocksPerSm,
          bool StreamingStores = false>
struct FusedPolicy {
  static constexpr int kTileW = TileW;  // outputs per tile along x
  static constexpr int kTileH = TileH;  // and along y
  static constexpr int kWarps = Warps;
  static constexpr int kThreads = 32 * Warps;
  static constexpr int kRowOutputs = RowOutputs;        // consecutive x per thread in the row pass
  static constexpr int kColumnOutputs = ColumnOutputs;  // consecutive y per thread in the column pass
  static constexpr int kMaxRadius = MaxRadius;          // the largest radius this kernel is launched for
  static constexpr int kMinBlocksPerSm = MinBlocksPerSm;
  // Outputs stored with the evict-first hint (st.global.cs): they are not read again, so the L2 keeps
  // the source rows the next tiles' aprons read instead.
  static constexpr bool kStreamingStores = StreamingStores;
  static constexpr int kRowGroups = TileW / RowOutputs;
  static constexpr int kColumnGroups = TileH / ColumnOutputs;
  static constexpr int kHPitch = TileW | 1;                     // odd: conflict-free row-pass writes
  static constexpr int kSlots = (TileW + 2 * MaxRadius + 31) / 32;  // fill loads per raw row and lane
  static_assert(TileW % 32 == 0, "a warp of the column pass covers 32 columns of one tile row");
  static_assert(TileW % RowOutputs == 0 && TileH % ColumnOutputs == 0, "whole register windows per tile");
  static_assert(2 * MaxRadius + 1 <= 32 * Warps, "one thread loads each weight");
};

// Launch shapes: tile kTileW × kTileH, 8 warps, kRowOutputs / kColumnOutputs per thread (the
// reasons and the measurements behind them are in docs/methods/separable_fused.md).
template <PixelFormat F, bool Large>
struct FusedPolicyFor;
template <>
struct FusedPolicyFor<PixelFormat::F32, false> {
  using type = FusedPolicy<64, 64, 8, 8, 8, kMaxExactRadius, 4>;
};
template <>
struct FusedPolicyFor<PixelFormat::F32, true> {
  using type = FusedPolicy<64, 64, 8, 8, 8, kMaxFusedRadius, 2>;
};
// F32 radii 9–22 with their tap count compiled in: tall 32 × 128 tiles, 16 outputs a thread in the
// column pass, three blocks per SM (74.1 KiB of shared memory at radius 22; 64-80 registers a thread,
// for up to 45 weights, no spills). The row pass also filters the 2r apron rows, 2r / 128 of a tile's
// rows here against 2r / 64 in 64 × 64 tiles: on the H100 (4096²) radius 20 (41×41) went from 0.126
// to 0.1135 ms, radius 12 from 0.089 to 0.084, radius 22 from 0.136 to 0.122.
struct FusedMediumPolicyF32 {
  using type = FusedPolicy<32, 128, 8, 8, 16, kMaxMediumRadius, 3>;
};
// RGBA8, and RGBA16 and RGBA32F (the same float4 sums and registers; their larger raw tiles fit
// fewer blocks an SM, which the 32 × 64 tile's fill, all in flight at once, can afford).
template <PixelFormat F>
struct FusedPolicyFor<F, false> {
  static_assert(channel_count(F) == 4, "the RGBA policy; F32 has its own");
  using type = FusedPolicy<32, 64, 8, 8, 4, kMaxExactRadius, 3>;
};
// The smallest radii (F32 0–3, RGBA8 and RGBA32F 0–2, RGBA16 0–4), where the kernel waits on memory more than it computes:
// wide, short tiles (a fill row is TileW + 2r contiguous pixels, 512 B and more for F32; more blocks
// an SM) and streaming stores. On the H100 (4096², gausslab-bench, 2026-11-25) F32 7×7 went from
// 0.0595 ms (64 × 64 tiles) to 0.0560-0.0563 and RGBA8 sigma 0.5 (radius 2) from 0.1013 to
// 0.0923-0.0926 ms (32 × 64 → 64 × 32); at radius 4 wide tiles were slower (their apron rows cost
// more row-pass work than the fill gains). Every shape tried: docs/methods/separable_fused.md.
template <PixelFormat F>
struct FusedSmallRadiusPolicy;
template <>
struct FusedSmallRadiusPolicy<PixelFormat::F32> {
  static constexpr int kMaxRadius = 3;
  using type = FusedPolicy<128, 32, 8, 16, 16, kMaxRadius, 5, true>;
};
// RGBA16 fills twice RGBA8's bytes a pixel and keeps the wide tiles up to radius 4 (sigma 1); at
// radii 5-8 they were slower (docs/methods/separable_fused.md, "Wide tiles").
template <PixelFormat F>
struct FusedSmallRadiusPolicy {
  static_assert(channel_count(F) == 4, "the RGBA policy; F32 has its own");
  static constexpr int kMaxRadius = F == PixelFormat::Rgba16 ? 4 : 2;
  using type = FusedPolicy<64, 32, 8, 8, 8, kMaxRadius, 4, true>;
};
template <PixelFormat F>
struct FusedPolicyFor<F, true> {
  static_assert(channel_count(F) == 4, "the RGBA policy; F32 has its own");
  using type = FusedPolicy<32, 64, 8, 8, 4, kMaxFusedRadiusOf<F>, 1>;
};

// The kernel a radius runs: fn(PolicyTag<P>{}, std::integral_constant<int, kTaps>{}) with the
// policy P and kTaps = 2r + 1 for radii 0–kMaxExactRadius, kTaps = 0 (run-time taps) above. The
// launch in separable_fused.cu and the CPU model in the tests both choose through here.
template <class P>
struct PolicyTag {
  using type = P;
};

template <PixelFormat F, int R>
using ExactRadiusPolicy = std::conditional_t<R <= FusedSmallRadiusPolicy<F>::kMaxRadius,
                                             typename FusedSmallRadiusPolicy<F>::type,
                                             typename FusedPolicyFor<F, false>::type>;

template <PixelFormat F, class Fn, int... R>
void dispatch_exact_radius(int radius, Fn& fn, std::integer_sequence<int, R...>) {
  (void)((radius == R ? (fn(PolicyTag<ExactRadiusPolicy<F, R>>{}, std::integral_constant<int, 2 * R + 1>{}), true)
                      : false) ||
         ...);
}

template <class Fn, int... R>
void dispatch_medium_radius(int radius, Fn& fn, std::integer_sequence<int, R...>) {
  using P = FusedMediumPolicyF32::type;
  constexpr int kFirst = kMaxExactRadius + 1;
  (void)((radius == kFirst + R ? (fn(PolicyTag<P>{}, std::integral_constant<int, 2 * (kFirst + R) + 1>{}), true)
                               : false) ||
         ...);
}

template <PixelFormat F, class Fn>
void dispatch_fused_kernel(int radius, Fn&& fn) {
  if (radius <= kMaxExactRadius) {
    dispatch_exact_radius<F>(radius, fn, std::make_integer_sequence<int, kMaxExactRadius + 1>{});
    return;
  }
  if constexpr (kMaxCompiledRadius<F> > kMaxExactRadius) {
    if (radius <= kMaxCompiledRadius<F>) {
      dispatch_medium_radius(radius, fn, std::make_integer_sequence<int, kMaxMediumRadius - kMaxExactRadius>{});
      return;
    }
  }
  fn(PolicyTag<typename FusedPolicyFor<F, true>::type>{}, std::integral_constant<int, 0>{});
}

// Where each array lives in the block's dynamic shared memory (bytes from its 16-byte aligned start):
// the 2r + 1 weights, in room for a multiple of 4 so that h (kTileH + 2r rows of kHPitch Accum,
// float4 for RGBA8) starts 16-byte aligned, then raw (kTileH + 2r rows of raw_pitch In).
struct FusedLayout {
  int radius;
  int taps;          // 2r + 1
  int weight_slots;  // taps rounded up to a multiple of 4 (the room the weights take)
  int rows;          // kTileH + 2r: rows of raw and of h
  int raw_pitch;     // (kTileW + 2r) | 1: odd, conflict-free row-pass reads
  unsigned h_offset_bytes;
  unsigned raw_offset_bytes;
  unsigned total_bytes;
};

template <class P, class In, class Accum>
GAUSSLAB_HD FusedLayout fused_layout(int radius) {
  FusedLayout layout{};
  layout.radius = radius;
  layout.taps = 2 * radius + 1;
  layout.weight_slots = (layout.taps + 3) / 4 * 4;
  layout.rows = P::kTileH + 2 * radius;
  layout.raw_pitch = (P::kTileW + 2 * radius) | 1;
  const unsigned h_bytes = static_cast<unsigned>(layout.rows * P::kHPitch) * static_cast<unsigned>(sizeof(Accum));
  const unsigned raw_bytes = static_cast<unsigned>(layout.rows * layout.raw_pitch) * static_cast<unsigned>(sizeof(In));
  layout.h_offset_bytes = static_cast<unsigned>(layout.weight_slots) * 4u;  // a multiple of 16
  layout.raw_offset_bytes = layout.h_offset_bytes + h_bytes;                // a multiple of 4
  layout.total_bytes = layout.raw_offset_bytes + raw_bytes;
  return layout;
}

// ---- tiles ---------------------------------------------------------------------------------------
// One block per kTileW × kTileH tile (tile_grid.cuh): at most 2^30 pixels / (32 × 64) + one row and
// column of tiles, far below the 2^31 - 1 blocks of a one-dimensional grid.

// What a tile computes: the row groups and column groups that reach an output inside the image, and
// the raw rows and columns they read (all of them for an inner tile).
struct FusedExtent {
  int outputs_w;      // outputs inside the image along x (≤ kTileW)
  int outputs_h;      // and along y
  int row_groups;     // register windows of the row pass per raw row
  int column_groups;  // register windows of the column pass per tile column
  int rows;           // raw and h rows in use: column_groups × kColumnOutputs + 2r
  int cols;           // raw columns in use: row_groups × kRowOutputs + 2r
};

template <class P>
GAUSSLAB_HD FusedExtent fused_extent(const TileProblem& problem, TileOrigin tile) {
  FusedExtent e{};
  e.outputs_w = problem.width - tile.x0 < P::kTileW ? problem.width - tile.x0 : P::kTileW;
  e.outputs_h = problem.height - tile.y0 < P::kTileH ? problem.height - tile.y0 : P::kTileH;
  e.row_groups = div_up(e.outputs_w, P::kRowOutputs);
  e.column_groups = div_up(e.outputs_h, P::kColumnOutputs);
  e.rows = e.column_groups * P::kColumnOutputs + 2 * problem.radius;
  e.cols = e.row_groups * P::kRowOutputs + 2 * problem.radius;
  return e;
}

// ---- the register window -------------------------------------------------------------------------

// acc[j] += sum_{t < taps} weights[t] * sample(t + j) for j < N, t ascending, one fma4 per tap: the
// N outputs of a thread from taps + N - 1 consecutive samples. kTaps > 0 fixes the tap count at
// compile time (every loop unrolls, `weights` may then be a register array); kTaps = 0 reads it from
// `taps`. Groups of N taps reuse N - 1 samples of the previous group (N sample loads per N × N
// multiply-adds); the last taps % N taps run one by one, so no zero weight is ever added.
// sample(i) is called once for each i in [0, taps + N - 1), in ascending order.
template <int N, int kTaps, class Accum, class Weights, class Sample>
GAUSSLAB_HD void fused_window(Accum (&acc)[N], const Weights& weights, int taps, const Sample& sample) {
  if (kTaps > 0) taps = kTaps;
  Accum window[2 * N - 1];  // window[i] = sample(group + i)
  GAUSSLAB_UNROLL
  for (int i = 0; i < N - 1; ++i) window[i] = sample(i);
  int group = 0;
  GAUSSLAB_UNROLL
  for (; group + N <= taps; group += N) separable::add_window_group(acc, window, weights, group, sample);
  // The tail: tap group + dt needs samples up to group + dt + N - 1, loaded just before.
  const int left = taps - group;
  GAUSSLAB_UNROLL
  for (int dt = 0; dt < N - 1; ++dt) {
    if (dt < left) {
      window[N - 1 + dt] = sample(group + N - 1 + dt);
      const float weight = weights[group + dt];
      GAUSSLAB_UNROLL
      for (int j = 0; j < N; ++j) acc[j] = fma4(weight, window[dt + j], acc[j]);
    }
  }
}

// ---- the three phases -------------------------------------------------------------------------------

// Phase 1 (then, on the GPU, wait for the asynchronous copies and __syncthreads): the raw tile and
// the weights. fill.copy(slot, source_row, source_col) puts src[source_row][source_col] into raw slot
// `slot`, or zero when either index is -1 ('constant' outside the image); fill.copy_inside does the
// same for indices known to be inside the image; fill.copy_weight(t) puts weight t into the shared
// weights.
template <class P, class Fill>
GAUSSLAB_HD void fill_tile(const TileProblem& problem, const FusedLayout& layout, TileOrigin tile, int thread,
                           const Fill& fill) {
  const FusedExtent e = fused_extent<P>(problem, tile);
  const int lane = thread % 32;
  const int warp = thread / 32;
  const int first_x = tile.x0 - problem.radius;
  const int first_y = tile.y0 - problem.radius;
  if (first_x >= 0 && first_y >= 0 && first_x + e.cols <= problem.width && first_y + e.rows <= problem.height) {
    // The apron lies inside the image (every tile but those within r of an edge): no border mapping,
    // one row address per row. The general loop below cost ~15 issued instructions per word on the
    // H100 (border checks, a 64-bit address, a branch per copy): more than the row and column passes
    // together at radius 3.
    for (int row = warp; row < e.rows; row += P::kWarps) {
      GAUSSLAB_UNROLL
      for (int s = 0; s < P::kSlots; ++s) {
        const int col = lane + 32 * s;
        if (col < e.cols) fill.copy_inside(row * layout.raw_pitch + col, first_y + row, first_x + col);
      }
    }
    if (thread < layout.taps) fill.copy_weight(thread);
    return;
  }
  int source_x[P::kSlots];  // the same columns in every row: mapped once
  GAUSSLAB_UNROLL
  for (int s = 0; s < P::kSlots; ++s) {
    const int col = lane + 32 * s;
    source_x[s] = col < e.cols ? border_index(first_x + col, problem.width, problem.border) : -1;
  }
  for (int row = warp; row < e.rows; row += P::kWarps) {
    const int source_y = border_index(first_y + row, problem.height, problem.border);
    GAUSSLAB_UNROLL
    for (int s = 0; s < P::kSlots; ++s) {
      const int col = lane + 32 * s;
      if (col < e.cols) fill.copy(row * layout.raw_pitch + col, source_y, source_x[s]);
    }
  }
  if (thread < layout.taps) fill.copy_weight(thread);
}

// The shared weights into a register array (kernels with a compile-time tap count), after the fill.
template <int kTaps, class SharedWeights>
GAUSSLAB_HD void load_register_weights(const SharedWeights& shared_weights, float (&weights)[kTaps]) {
  GAUSSLAB_UNROLL
  for (int t = 0; t < kTaps; ++t) weights[t] = shared_weights[t];
}

// Phase 2 (then __syncthreads): the row pass, raw → h. Item i of the thread is row i % rows, row
// group i / rows, so the lanes of a warp take consecutive rows (see the header).
template <class P, int kTaps, class Raw, class Weights, class H>
GAUSSLAB_HD void row_pass(const TileProblem& problem, const FusedLayout& layout, TileOrigin tile, int thread,
                          const Raw& raw, const Weights& weights, const H& h) {
  constexpr int N = P::kRowOutputs;
  using Accum = std::decay_t<decltype(to_accum_via_i2f(raw[0]))>;
  const FusedExtent e = fused_extent<P>(problem, tile);
  const int items = e.rows * e.row_groups;
  if (thread >= items) return;
  // (row, group) of item `thread`, then stepped by kThreads items without dividing again.
  const int step_groups = P::kThreads / e.rows;
  const int step_rows = P::kThreads % e.rows;
  int group = thread / e.rows;
  int row = thread % e.rows;
  for (int item = thread; item < items; item += P::kThreads) {
    Accum acc[N];
    GAUSSLAB_UNROLL
    for (int j = 0; j < N; ++j) acc[j] = zero_value<Accum>();
    const int in = row * layout.raw_pitch + group * N;
    // The samples through the conversion unit (I2F, exact), beside the FMA and ALU pipes the pass is
    // bound by: on the H100 RGBA8 sigma 0.5 / 1 / 2 ran 2 / 5 / 5 % faster than with to_accum's OR
    // and add (F32 samples are not converted).
    fused_window<N, kTaps>(acc, weights, layout.taps, [&](int i) { return to_accum_via_i2f(raw[in + i]); });
    const int out = row * P::kHPitch + group * N;
    GAUSSLAB_UNROLL
    for (int j = 0; j < N; ++j) h.store(out + j, acc[j]);
    group += step_groups;
    row += step_rows;
    if (row >= e.rows) {
      row -= e.rows;
      ++group;
    }
  }
}

// Phase 3: the column pass, h → the destination. out.store(x, y, value) writes image pixel (x, y).
template <class P, int kTaps, class H, class Weights, class Out>
GAUSSLAB_HD void column_pass(const TileProblem& problem, TileOrigin tile, int thread, const H& h,
                             const Weights& weights, const Out& out) {
  constexpr int N = P::kColumnOutputs;
  using Accum = std::decay_t<decltype(h[0])>;
  const FusedExtent e = fused_extent<P>(problem, tile);
  const int taps = 2 * problem.radius + 1;
  const int items = P::kTileW * e.column_groups;
  for (int item = thread; item < items; item += P::kThreads) {
    const int x = item % P::kTileW;
    const int group = item / P::kTileW;
    if (x >= e.outputs_w) continue;
    Accum acc[N];
    GAUSSLAB_UNROLL
    for (int j = 0; j < N; ++j) acc[j] = zero_value<Accum>();
    const int in = group * N * P::kHPitch + x;
    fused_window<N, kTaps>(acc, weights, taps, [&](int i) { return h[in + i * P::kHPitch]; });
    const int first_y = group * N;
    if (first_y + N <= e.outputs_h) {  // a whole window of rows inside the image: no test per store
      GAUSSLAB_UNROLL
      for (int j = 0; j < N; ++j) out.store(tile.x0 + x, tile.y0 + first_y + j, acc[j]);
    } else {
      GAUSSLAB_UNROLL
      for (int j = 0; j < N; ++j)
        if (first_y + j < e.outputs_h) out.store(tile.x0 + x, tile.y0 + first_y + j, acc[j]);
    }
  }
}

// ---- 2×2 pooling fused into the column pass (run_pooled) --------------------------------------------
// The column pass stores each output, converted to the image's format as if written, into `staged`
// (the raw tile's memory, which the row pass no longer needs), at (y - y0) · kTileW + (x - x0); after
// a barrier the pool pass pools the tile's 2×2 blocks from there (pool_common.cuh, the rule of the
// separate kernel) and writes the pooled pixels. Tiles start at even x and y, so a tile's blocks are
// the image's; the last row or column of an odd image side is staged but pooled into nothing.

template <class P, class In, class Staged>
struct StagedOutputs {
  Staged staged;
  TileOrigin tile;
  template <class Accum>
  GAUSSLAB_HD void store(int x, int y, Accum value) const {
    staged.store((y - tile.y0) * P::kTileW + (x - tile.x0), FromAccum<In>::convert(value));
  }
};

// The raw tile holds the staged outputs: kTileH + 2r rows of at least kTileW.
template <class P>
GAUSSLAB_HD int staged_slots() { return P::kTileW * P::kTileH; }

// Phase 4: pooled.store(px, py, value) writes pooled pixel (px, py) of the pooled image.
template <class P, class Staged, class Pooled>
GAUSSLAB_HD void pool_pass(const TileProblem& problem, TileOrigin tile, int thread, const Staged& staged, PoolMode mode,
                           const Pooled& pooled) {
  const FusedExtent e = fused_extent<P>(problem, tile);
  const int pooled_w = e.outputs_w / 2, pooled_h = e.outputs_h / 2;
  for (int item = thread; item < pooled_w * pooled_h; item += P::kThreads) {
    const int px = item % pooled_w, py = item / pooled_w;
    const int i = 2 * py * P::kTileW + 2 * px;
    pooled.store(tile.x0 / 2 + px, tile.y0 / 2 + py,
                 pool_stored(staged[i], staged[i + 1], staged[i + P::kTileW], staged[i + P::kTileW + 1], mode));
  }
}

}  // namespace gausslab::fused
