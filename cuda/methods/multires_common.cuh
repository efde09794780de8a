#pragma once
// multires: the per-thread code of the four kernels (reduce, row reduce, column reduce, expand), for
// multires.cu and for the CPU model in tests/cpu/test_multires.cpp, which runs it unchanged block by
// block and thread by thread with checked memory. The maths (weights, grids) is in multires_plan.hpp;
// the algorithm in docs/methods/multires.md.
//
// Stages and what each kernel computes (one axis; the other is the same):
//   reduce        C[c] = sum_t w1[t] f(d c + origin + t): a 2D tile of C per block, the fine tile
//                 plus apron in shared memory, a decimating row pass into a shared tile h, then a
//                 decimating column pass from h. With d = 1 and the blur's weights the same kernel is
//                 the coarse blur C -> B (a fused separable FIR; C already holds the border).
//   row reduce /  for large d, where the fine apron of a 2D tile would not fit: the row pass alone
//   column reduce into R (every image row, C's columns), then the column pass from R.
//   expand        out(d q + p) = sum_k e[p][k] B[q + k], k < 5: vertical into a shared tile, then
//                 horizontal into a shared output tile, written out with coalesced stores.
// Decimating passes use the polyphase form: the taps t = p + d k of phase p read the samples
// d (c + k) + p, so N consecutive outputs of phase p slide one register window along every d-th sample
// (fused::fused_window, whose run-time tap count fits the phases' ceil((T - p) / d) taps).
#include <cstdint>
#include <cstring>

#include "gausslab/core/border.hpp"
#include "gausslab/core/host_device.hpp"
#include "gausslab/core/pixel_format.hpp"
#include "gausslab/cuda/kernel_common.cuh"
#include "multires_plan.hpp"
#include "separable_common.cuh"
#include "separable_fused_common.cuh"

namespace gausslab {
template <>
GAUSSLAB_HD ushort4 zero_value<ushort4>() { return make_ushort4(0, 0, 0, 0); }
}  // namespace gausslab

namespace gausslab::multires {

using gausslab::to_accum;  // the storage conversions of kernel_common.cuh, beside this file's ushort4 one
using separable::SharedSpan;

// ---- storage --------------------------------------------------------------------------------------
// RGBA8: the image is uchar4, C/R/B are ushort4 holding 257 × the value (the weights carry the 257),
// arithmetic in float4. F32: float everywhere.

template <PixelFormat F>
struct Types;
template <>
struct Types<PixelFormat::Rgba8> {
  using Fine = uchar4;
  using Coarse = ushort4;
  using Accum = float4;
};
template <>
struct Types<PixelFormat::F32> {
  using Fine = float;
  using Coarse = float;
  using Accum = float;
};

GAUSSLAB_HD float bits_as_float(unsigned bits) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(bits);
#else
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
#endif
}
GAUSSLAB_HD unsigned float_as_bits(float value) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(value);
#else
  unsigned bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
#endif
}

// A 16-bit integer as a float with an OR and an add (as exact_byte_to_float: 2^23 + v, minus 2^23).
GAUSSLAB_HD float exact_u16_to_float(unsigned v) { return bits_as_float(0x4B000000u | v) - 8388608.0f; }

GAUSSLAB_HD float4 to_accum(ushort4 p) {
  return make_float4(exact_u16_to_float(p.x), exact_u16_to_float(p.y), exact_u16_to_float(p.z),
                     exact_u16_to_float(p.w));
}

// v (in [0, 65535] up to rounding) to the nearest 16-bit integer, ties to even: adding 2^23 rounds
// to an integer in the low mantissa bits (float addition rounds to nearest even on both sides).
GAUSSLAB_HD unsigned short round_u16(float v) {
  const float clamped = v < 0.0f ? 0.0f : (v > 65535.0f ? 65535.0f : v);
  return static_cast<unsigned short>(float_as_bits(clamped + 8388608.0f) & 0xFFFFu);
}

// to_unorm8(v) (clamp to [0, 255], then floor(v + 0.5)) without a float-to-int conversion: the
// addition of 2^23 rounded toward minus infinity leaves floor in the low bits. The same value as
// to_unorm8 for every float: both take floor of the same clamped + 0.5f.
GAUSSLAB_HD unsigned char round_unorm8(float v) {
  const float half_up = (v < 0.0f ? 0.0f : (v > 255.0f ? 255.0f : v)) + 0.5f;
#if defined(__CUDA_ARCH__)
  const float shifted = __fadd_rd(half_up, 8388608.0f);
#else
  const float shifted = static_cast<float>(static_cast<int>(half_up)) + 8388608.0f;
#endif
  return static_cast<unsigned char>(float_as_bits(shifted) & 0xFFu);
}

template <class Out>
struct Store;
template <>
struct Store<ushort4> {
  GAUSSLAB_HD static ushort4 from(float4 v) {
    return make_ushort4(round_u16(v.x), round_u16(v.y), round_u16(v.z), round_u16(v.w));
  }
};
template <>
struct Store<uchar4> {
  GAUSSLAB_HD static uchar4 from(float4 v) {
    return make_uchar4(round_unorm8(v.x), round_unorm8(v.y), round_unorm8(v.z), round_unorm8(v.w));
  }
};
template <>
struct Store<float> {
  GAUSSLAB_HD static float from(float v) { return v; }
};

// ---- the decimating register window ---------------------------------------------------------------

// Weights of phase p: `offset` into the phase-ordered prefilter.
template <class Weights>
struct PhaseWeights {
  Weights all;
  int offset;
  GAUSSLAB_HD float operator[](int t) const { return all[offset + t]; }
};

// acc[j] += sum_{t < taps} w[t] sample(d j + t) for j < N, with w in phase order (prefilter_by_phase):
// the N outputs d apart of one thread. sample(s) is called with s in [0, d (N - 1) + taps).
template <int N, class Accum, class Weights, class Sample>
GAUSSLAB_HD void decimating_window(Accum (&acc)[N], const Weights& phase_ordered, int d, int taps,
                                   const Sample& sample) {
  int offset = 0;
  for (int p = 0; p < d && p < taps; ++p) {
    const int phase_taps = (taps - p + d - 1) / d;
    fused::fused_window<N, 0>(acc, PhaseWeights<Weights>{phase_ordered, offset}, phase_taps,
                              [&](int i) { return sample(d * i + p); });
    offset += phase_taps;
  }
}

// ---- reduce (and the coarse blur): one 2D tile per block ------------------------------------------

template <int Threads, int RowOutputs, int ColumnOutputs>
struct ReducePolicy {
  static constexpr int kThreads = Threads;
  static constexpr int kWarps = Threads / 32;
  static constexpr int kRowOutputs = RowOutputs;        // N of the row pass
  static constexpr int kColumnOutputs = ColumnOutputs;  // N of the column pass
};
using ReduceKernelPolicy = ReducePolicy<256, 4, 4>;

// A decimating separable stage: out[cy][cx] = sum_{s,t} w[s] w[t] src(d cy + origin_y + s, d cx + origin_x + t),
// the source extended by `border` (the image's for the reduce; for the blur, whose reads stay inside
// C, nearest: never used). Tiles of tile_w × tile_h outputs, multiples of the window sizes.
struct ReduceStage {
  int d = 1;
  int taps = 1;
  int origin_x = 0, origin_y = 0;
  int out_w = 0, out_h = 0;
  int src_w = 0, src_h = 0;
  BorderMode border = BorderMode::Nearest;
  int tile_w = 0, tile_h = 0;
  float out_scale = 1.0f;  // 257 where RGBA8 values enter 16-bit storage (the reduce), else 1
};

// The block's shared memory: phase-ordered weights, h (fine rows × tile_w Accum), raw (fine rows ×
// fine columns In). Pitches are odd: lanes take consecutive rows in the row pass.
struct ReduceLayout {
  int fine_w, fine_h;  // d (tile - 1) + taps
  int raw_pitch, h_pitch;
  unsigned h_offset_bytes, raw_offset_bytes, total_bytes;
};

template <class In, class Accum>
GAUSSLAB_HD ReduceLayout reduce_layout(const ReduceStage& s) {
  ReduceLayout l{};
  l.fine_w = s.d * (s.tile_w - 1) + s.taps;
  l.fine_h = s.d * (s.tile_h - 1) + s.taps;
  l.raw_pitch = l.fine_w | 1;
  l.h_pitch = s.tile_w | 1;
  l.h_offset_bytes = static_cast<unsigned>((s.taps + 3) / 4 * 16);
  l.raw_offset_bytes = l.h_offset_bytes + static_cast<unsigned>(l.fine_h * l.h_pitch) * static_cast<unsigned>(sizeof(Accum));
  l.total_bytes = l.raw_offset_bytes + static_cast<unsigned>(l.fine_h * l.raw_pitch) * static_cast<unsigned>(sizeof(In));
  return l;
}

GAUSSLAB_HD int reduce_tiles_x(const ReduceStage& s) { return div_up(s.out_w, s.tile_w); }
GAUSSLAB_HD long long reduce_block_count(const ReduceStage& s) {
  return static_cast<long long>(reduce_tiles_x(s)) * div_up(s.out_h, s.tile_h);
}

struct TileOrigin {
  int cx0, cy0;
};
GAUSSLAB_HD TileOrigin reduce_tile(const ReduceStage& s, int block) {
  const int tiles_x = reduce_tiles_x(s);
  return {(block % tiles_x) * s.tile_w, (block / tiles_x) * s.tile_h};
}

// Phase 1 (then __syncthreads): raw <- the border-extended source under the tile, weights <- w.
// fill.copy(slot, row, col) stores src[row][col] (zero where either is -1) in raw slot `slot`;
// fill.copy_weight(t) stores weight t.
template <class P, class Fill>
GAUSSLAB_HD void reduce_fill(const ReduceStage& s, const ReduceLayout& l, TileOrigin tile, int thread,
                             const Fill& fill) {
  const int fx0 = s.d * tile.cx0 + s.origin_x;
  const int fy0 = s.d * tile.cy0 + s.origin_y;
  const int lane = thread % 32;
  if (fx0 >= 0 && fy0 >= 0 && fx0 + l.fine_w <= s.src_w && fy0 + l.fine_h <= s.src_h) {
    // The tile with its apron inside the source (all tiles but the edges'): no border mapping.
    for (int row = thread / 32; row < l.fine_h; row += P::kWarps)
      for (int col = lane; col < l.fine_w; col += 32) fill.copy(row * l.raw_pitch + col, fy0 + row, fx0 + col);
  } else {
    for (int row = thread / 32; row < l.fine_h; row += P::kWarps) {
      const int source_row = border_index(fy0 + row, s.src_h, s.border);
      for (int col = lane; col < l.fine_w; col += 32)
        fill.copy(row * l.raw_pitch + col, source_row, border_index(fx0 + col, s.src_w, s.border));
    }
  }
  for (int t = thread; t < s.taps; t += P::kThreads) fill.copy_weight(t);
}

// Phase 2 (then __syncthreads): h[row][c] = sum_t w[t] raw[row][d c + t] for every fine row and the
// tile's columns. Item i: row i % fine_h, window group i / fine_h (lanes on consecutive rows).
template <class P, class Raw, class Weights, class H>
GAUSSLAB_HD void reduce_row_pass(const ReduceStage& s, const ReduceLayout& l, int thread, const Raw& raw,
                                 const Weights& w, const H& h) {
  constexpr int N = P::kRowOutputs;
  using Accum = std::decay_t<decltype(to_accum(raw[0]))>;
  const int groups = s.tile_w / N;
  const int items = l.fine_h * groups;
  for (int item = thread; item < items; item += P::kThreads) {
    const int row = item % l.fine_h;
    const int group = item / l.fine_h;
    Accum acc[N];
    GAUSSLAB_UNROLL
    for (int j = 0; j < N; ++j) acc[j] = zero_value<Accum>();
    const int base = row * l.raw_pitch + s.d * group * N;
    decimating_window<N>(acc, w, s.d, s.taps, [&](int i) { return to_accum(raw[base + i]); });
    GAUSSLAB_UNROLL
    for (int j = 0; j < N; ++j) h.store(row * l.h_pitch + group * N + j, acc[j]);
  }
}

// Phase 3: out.store(cx, cy, value) for the tile's outputs inside out_w × out_h.
template <class P, class H, class Weights, class Out>
GAUSSLAB_HD void reduce_column_pass(const ReduceStage& s, const ReduceLayout& l, TileOrigin tile, int thread,
                                    const H& h, const Weights& w, const Out& out) {
  constexpr int N = P::kColumnOutputs;
  using Accum = std::decay_t<decltype(h[0])>;
  const int groups = s.tile_h / N;
  const int items = s.tile_w * groups;
  for (int item = thread; item < items; item += P::kThreads) {
    const int c = item % s.tile_w;
    const int group = item / s.tile_w;
    if (tile.cx0 + c >= s.out_w || tile.cy0 + group * N >= s.out_h) continue;
    Accum acc[N];
    GAUSSLAB_UNROLL
    for (int j = 0; j < N; ++j) acc[j] = zero_value<Accum>();
    const int base = s.d * group * N * l.h_pitch + c;
    decimating_window<N>(acc, w, s.d, s.taps, [&](int i) { return h[base + i * l.h_pitch]; });
    GAUSSLAB_UNROLL
    for (int j = 0; j < N; ++j)
      if (tile.cy0 + group * N + j < s.out_h) out.store(tile.cx0 + c, tile.cy0 + group * N + j, s.out_scale * acc[j]);
  }
}

// The reduce's tile (coarse outputs per side), and the largest d at which the fused 2D reduce runs
// (above it, row reduce + column reduce). Measured on an H100 (4096², both paths, tools in
// docs/methods/multires.md): RGBA8 fused 0.384 / 0.370 / 0.360 ms at d 3 / 4 / 6 against rows +
// columns 0.451 / 0.413 / 0.324; F32 fused 0.209 / 0.219 / 0.271 against 0.393 / 0.370 / 0.310; both
// formats fused at d 8: 0.59–0.61 against 0.27–0.30. Shared memory at d 6, RGBA8: 99 KiB.
GAUSSLAB_HD int fused_reduce_max_d(bool rgba8) { return rgba8 ? 4 : 6; }
GAUSSLAB_HD int reduce_tile_side(int d) { return d <= 2 ? 32 : 16; }

// ---- row reduce and column reduce (large d) --------------------------------------------------------

// Row reduce: R[y][c] = sum_t w[t] f(y, d c + origin + t) for every image row y < src_h. A block owns
// 32 image rows (one per lane) and `groups` windows of N outputs along them (warps take every
// kWarps-th window); its fine rows sit in shared memory, lanes on consecutive rows (odd pitch).
template <int Warps, int Outputs>
struct RowReducePolicy {
  static constexpr int kWarps = Warps;
  static constexpr int kThreads = 32 * Warps;
  static constexpr int kOutputs = Outputs;
};
using RowReduceKernelPolicy = RowReducePolicy<4, 4>;

struct RowReduceStage {
  int d = 1;
  int taps = 1;
  int origin = 0;
  int out_w = 0;           // R's columns (C's)
  int src_w = 0, src_h = 0;
  BorderMode border = BorderMode::Reflect;
  int groups = 1;          // windows per block row (a multiple of the policy's warps)
  float out_scale = 1.0f;  // 257 for RGBA8 (R is 16-bit)
};

// Windows per block row: as many as keep a row's span near 512 samples, a multiple of the warps.
template <class P>
GAUSSLAB_HD int row_reduce_groups_for(int d, int taps) {
  const int per_warp = ((512 - taps) / d + 1) / (P::kOutputs * P::kWarps);
  return P::kWarps * (per_warp < 1 ? 1 : per_warp);
}

template <class P>
GAUSSLAB_HD int row_reduce_span(const RowReduceStage& s) {
  return s.d * (s.groups * P::kOutputs - 1) + s.taps;
}
template <class P>
GAUSSLAB_HD int row_reduce_pitch(const RowReduceStage& s) {
  return row_reduce_span<P>(s) | 1;
}
template <class P, class In>
GAUSSLAB_HD unsigned row_reduce_shared_bytes(const RowReduceStage& s) {
  return static_cast<unsigned>((s.taps + 3) / 4 * 16) + static_cast<unsigned>(32 * row_reduce_pitch<P>(s)) *
                                                            static_cast<unsigned>(sizeof(In));
}
template <class P>
GAUSSLAB_HD int row_reduce_blocks_x(const RowReduceStage& s) {
  return div_up(s.out_w, s.groups * P::kOutputs);
}
template <class P>
GAUSSLAB_HD long long row_reduce_block_count(const RowReduceStage& s) {
  return static_cast<long long>(row_reduce_blocks_x<P>(s)) * div_up(s.src_h, 32);
}

struct RowBlock {
  int y0;   // first image row
  int c0;   // first output column
};
template <class P>
GAUSSLAB_HD RowBlock row_reduce_block(const RowReduceStage& s, int block) {
  const int bx = row_reduce_blocks_x<P>(s);
  return {(block / bx) * 32, (block % bx) * s.groups * P::kOutputs};
}

// Phase 1 (then __syncthreads): the block's rows (those inside the image) and the weights.
template <class P, class Fill>
GAUSSLAB_HD void row_reduce_fill(const RowReduceStage& s, RowBlock b, int thread, const Fill& fill) {
  const int span = row_reduce_span<P>(s);
  const int pitch = row_reduce_pitch<P>(s);
  const int fx0 = s.d * b.c0 + s.origin;
  const int lane = thread % 32;
  // (A no-mapping path for blocks inside the image, as reduce_fill has, was slower here on the
  // H100: the row reduce of sigma 32 and 64 took 0.155 and 0.203 ms instead of 0.144 and 0.182.)
  for (int row = thread / 32; row < 32 && b.y0 + row < s.src_h; row += P::kWarps)
    for (int col = lane; col < span; col += 32)
      fill.copy(row * pitch + col, b.y0 + row, border_index(fx0 + col, s.src_w, s.border));
  for (int t = thread; t < s.taps; t += P::kThreads) fill.copy_weight(t);
}

// Phase 2: out.store(c, y, value) for the block's outputs.
template <class P, class Raw, class Weights, class Out>
GAUSSLAB_HD void row_reduce_pass(const RowReduceStage& s, RowBlock b, int thread, const Raw& raw, const Weights& w,
                                 const Out& out) {
  constexpr int N = P::kOutputs;
  using Accum = std::decay_t<decltype(to_accum(raw[0]))>;
  const int row = thread % 32;
  if (b.y0 + row >= s.src_h) return;
  const int pitch = row_reduce_pitch<P>(s);
  for (int group = thread / 32; group < s.groups; group += P::kWarps) {
    const int c = b.c0 + group * N;
    if (c >= s.out_w) break;
    Accum acc[N];
    GAUSSLAB_UNROLL
    for (int j = 0; j < N; ++j) acc[j] = zero_value<Accum>();
    const int base = row * pitch + s.d * group * N;
    decimating_window<N>(acc, w, s.d, s.taps, [&](int i) { return to_accum(raw[base + i]); });
    GAUSSLAB_UNROLL
    for (int j = 0; j < N; ++j)
      if (c + j < s.out_w) out.store(c + j, b.y0 + row, s.out_scale * acc[j]);
  }
}

// Column reduce: C[cy][cx] = sum_t w[t] R(border(d cy + origin + t), cx); one thread per column and
// window of N outputs, lanes on consecutive columns (coalesced reads of R straight from global).
template <int Warps, int Outputs>
struct ColumnReducePolicy {
  static constexpr int kWarps = Warps;
  static constexpr int kThreads = 32 * Warps;
  static constexpr int kOutputs = Outputs;
};
using ColumnReduceKernelPolicy = ColumnReducePolicy<8, 4>;

struct ColumnReduceStage {
  int d = 1;
  int taps = 1;
  int origin = 0;
  int out_w = 0, out_h = 0;
  int src_h = 0;  // R's rows (the image's height)
  BorderMode border = BorderMode::Reflect;
};

template <class P>
GAUSSLAB_HD int column_reduce_blocks_x(const ColumnReduceStage& s) {
  return div_up(s.out_w, 32);
}
template <class P>
GAUSSLAB_HD long long column_reduce_block_count(const ColumnReduceStage& s) {
  return static_cast<long long>(column_reduce_blocks_x<P>(s)) * div_up(s.out_h, P::kWarps * P::kOutputs);
}

// r.load(row, cx) reads R[row][cx]; weights as above (phase-ordered, in any readable array).
template <class P, class RView, class Weights, class Out>
GAUSSLAB_HD void column_reduce_thread(const ColumnReduceStage& s, int block, int thread, const RView& r,
                                      const Weights& w, const Out& out) {
  constexpr int N = P::kOutputs;
  using Accum = std::decay_t<decltype(r.load(0, 0))>;
  const int bx = column_reduce_blocks_x<P>(s);
  const int cx = (block % bx) * 32 + thread % 32;
  const int cy = ((block / bx) * P::kWarps + thread / 32) * N;
  if (cx >= s.out_w || cy >= s.out_h) return;
  Accum acc[N];
  GAUSSLAB_UNROLL
  for (int j = 0; j < N; ++j) acc[j] = zero_value<Accum>();
  const int first = s.d * cy + s.origin;
  decimating_window<N>(acc, w, s.d, s.taps, [&](int i) {
    const int row = border_index(first + i, s.src_h, s.border);
    return row < 0 ? zero_value<Accum>() : r.load(row, cx);
  });
  GAUSSLAB_UNROLL
  for (int j = 0; j < N; ++j)
    if (cy + j < s.out_h) out.store(cx, cy + j, acc[j]);
}

// ---- expand ---------------------------------------------------------------------------------------

// A block owns kTileW × kTileH fine pixels. Fine pixel d q + p reads B[q + k], k < 5, with weight
// e[p][k]; the block's B samples are rows q0y .. and columns q0x .. of B (the region), converted to
// Accum in shared memory (the vertical weights carry 1/257 for RGBA8). Vertical pass: one thread per
// region column and run of kRun fine rows, sliding a window of five B rows down the run; horizontal
// pass: one thread per fine row (lanes on consecutive rows) and run of kRun fine columns, into a
// shared output tile; then the tile is stored row by row, lanes on consecutive pixels.
template <int TileW, int TileH, int Run, int Threads>
struct ExpandPolicy {
  static constexpr int kTileW = TileW;
  static constexpr int kTileH = TileH;
  static constexpr int kRun = Run;
  static constexpr int kThreads = Threads;
  static_assert(TileW % Run == 0 && TileH % Run == 0, "runs must tile the block");
};
using ExpandKernelPolicy = ExpandPolicy<64, 32, 8, 256>;

struct ExpandStage {
  int d = 2;
  int width = 0, height = 0;  // fine image
  int b_w = 0, b_h = 0;       // B
};

struct ExpandRegion {
  int x0, y0;        // the tile's first fine pixel
  int w, h;          // fine pixels of the tile inside the image
  int q0x, q0y;      // the region's first B column and row
  int cols, rows;    // region size: (last fine / d) - (first fine / d) + 5
};

template <class P>
GAUSSLAB_HD int expand_tiles_x(const ExpandStage& s) {
  return div_up(s.width, P::kTileW);
}
template <class P>
GAUSSLAB_HD long long expand_block_count(const ExpandStage& s) {
  return static_cast<long long>(expand_tiles_x<P>(s)) * div_up(s.height, P::kTileH);
}
template <class P>
GAUSSLAB_HD ExpandRegion expand_region(const ExpandStage& s, int block) {
  ExpandRegion r{};
  const int tiles_x = expand_tiles_x<P>(s);
  r.x0 = (block % tiles_x) * P::kTileW;
  r.y0 = (block / tiles_x) * P::kTileH;
  r.w = s.width - r.x0 < P::kTileW ? s.width - r.x0 : P::kTileW;
  r.h = s.height - r.y0 < P::kTileH ? s.height - r.y0 : P::kTileH;
  r.q0x = r.x0 / s.d;
  r.q0y = r.y0 / s.d;
  r.cols = (r.x0 + r.w - 1) / s.d - r.q0x + kExpandTaps;
  r.rows = (r.y0 + r.h - 1) / s.d - r.q0y + kExpandTaps;
  return r;
}

// The largest region of a tile, for the shared-memory size: a tile spans at most (tile - 1) / d + 1
// intervals past its first, each read with the next four.
template <class P>
GAUSSLAB_HD int expand_max_cols(int d) {
  return (P::kTileW - 1) / d + 2 + 4;
}
template <class P>
GAUSSLAB_HD int expand_max_rows(int d) {
  return (P::kTileH - 1) / d + 2 + 4;
}

struct ExpandLayout {
  int b_pitch;    // region row pitch (Accum)
  int v_pitch;    // vertical result: kTileH rows × region columns (Accum), odd
  int out_pitch;  // output tile: kTileH rows × kTileW (Fine), odd
  unsigned b_offset_bytes, v_offset_bytes, out_offset_bytes, total_bytes;
};

// Weights first (2 d × 5 floats: vertical then horizontal), then the region, v, the output tile.
template <class P, class Fine, class Accum>
GAUSSLAB_HD ExpandLayout expand_layout(int d) {
  ExpandLayout l{};
  const int max_cols = expand_max_cols<P>(d);
  const int max_rows = expand_max_rows<P>(d);
  l.b_pitch = max_cols;
  l.v_pitch = max_cols | 1;
  l.out_pitch = P::kTileW | 1;
  l.b_offset_bytes = static_cast<unsigned>((2 * d * 5 + 3) / 4 * 16);
  l.v_offset_bytes = l.b_offset_bytes + static_cast<unsigned>(max_rows * l.b_pitch) * static_cast<unsigned>(sizeof(Accum));
  l.out_offset_bytes = l.v_offset_bytes + static_cast<unsigned>(P::kTileH * l.v_pitch) * static_cast<unsigned>(sizeof(Accum));
  l.total_bytes = l.out_offset_bytes + static_cast<unsigned>(P::kTileH * l.out_pitch) * static_cast<unsigned>(sizeof(Fine));
  return l;
}

// Phase 1 (then __syncthreads): fill.copy(slot, b_row, b_col) stores B[b_row][b_col] converted (and
// scaled) into region slot `slot`; fill.copy_weight(i) weight i of the 2 d × 5.
template <class P, class Fill>
GAUSSLAB_HD void expand_fill(const ExpandStage& s, const ExpandLayout& l, const ExpandRegion& r, int thread,
                             const Fill& fill) {
  const int lane = thread % 32;
  for (int row = thread / 32; row < r.rows; row += P::kThreads / 32)
    for (int col = lane; col < r.cols; col += 32) fill.copy(row * l.b_pitch + col, r.q0y + row, r.q0x + col);
  for (int i = thread; i < 2 * s.d * 5; i += P::kThreads) fill.copy_weight(i);
}

// Phase 2 (then __syncthreads): v[yy][col] = sum_k ey[p][k] region[q - q0y + k][col] for the tile's
// rows yy (fine row y0 + yy = d q + p). Item: region column item % cols, run item / cols.
template <class P, class Region, class Weights, class V>
GAUSSLAB_HD void expand_vertical(const ExpandStage& s, const ExpandLayout& l, const ExpandRegion& r, int thread,
                                 const Region& region, const Weights& w, const V& v) {
  using Accum = std::decay_t<decltype(region[0])>;
  const int runs = div_up(r.h, P::kRun);
  const int items = r.cols * runs;
  for (int item = thread; item < items; item += P::kThreads) {
    const int col = item % r.cols;
    const int yy0 = (item / r.cols) * P::kRun;
    int q = (r.y0 + yy0) / s.d;
    int p = (r.y0 + yy0) - q * s.d;
    Accum window[kExpandTaps];
    GAUSSLAB_UNROLL
    for (int k = 0; k < kExpandTaps; ++k) window[k] = region[(q - r.q0y + k) * l.b_pitch + col];
    GAUSSLAB_UNROLL
    for (int i = 0; i < P::kRun; ++i) {
      if (yy0 + i < r.h) {
        Accum acc = zero_value<Accum>();
        GAUSSLAB_UNROLL
        for (int k = 0; k < kExpandTaps; ++k) acc = fma4(w[p * kExpandTaps + k], window[k], acc);
        v.store((yy0 + i) * l.v_pitch + col, acc);
      }
      if (++p == s.d) {  // the next fine row starts the next interval: slide the window
        p = 0;
        ++q;
        if (i + 1 < P::kRun && yy0 + i + 1 < r.h) {
          GAUSSLAB_UNROLL
          for (int k = 0; k < kExpandTaps - 1; ++k) window[k] = window[k + 1];
          window[kExpandTaps - 1] = region[(q - r.q0y + kExpandTaps - 1) * l.b_pitch + col];
        }
      }
    }
  }
}

// Phase 3 (then __syncthreads): the output tile, tile[yy][xx] = Store(sum_k ex[p][k] v[yy][q - q0x + k]).
// Item: row item % kTileH (lanes on consecutive rows), run item / kTileH.
template <class P, class Fine, class V, class Weights, class Tile>
GAUSSLAB_HD void expand_horizontal(const ExpandStage& s, const ExpandLayout& l, const ExpandRegion& r, int thread,
                                   const V& v, const Weights& w, const Tile& tile) {
  using Accum = std::decay_t<decltype(v[0])>;
  const int runs = div_up(r.w, P::kRun);
  const int items = P::kTileH * runs;
  const int horizontal = s.d * kExpandTaps;  // the horizontal weights follow the vertical ones
  for (int item = thread; item < items; item += P::kThreads) {
    const int yy = item % P::kTileH;
    if (yy >= r.h) continue;
    const int xx0 = (item / P::kTileH) * P::kRun;
    int q = (r.x0 + xx0) / s.d;
    int p = (r.x0 + xx0) - q * s.d;
    Accum window[kExpandTaps];
    GAUSSLAB_UNROLL
    for (int k = 0; k < kExpandTaps; ++k) window[k] = v[yy * l.v_pitch + q - r.q0x + k];
    GAUSSLAB_UNROLL
    for (int i = 0; i < P::kRun; ++i) {
      if (xx0 + i < r.w) {
        Accum acc = zero_value<Accum>();
        GAUSSLAB_UNROLL
        for (int k = 0; k < kExpandTaps; ++k) acc = fma4(w[horizontal + p * kExpandTaps + k], window[k], acc);
        tile.store(yy * l.out_pitch + xx0 + i, Store<Fine>::from(acc));
      }
      if (++p == s.d) {
        p = 0;
        ++q;
        if (i + 1 < P::kRun && xx0 + i + 1 < r.w) {
          GAUSSLAB_UNROLL
          for (int k = 0; k < kExpandTaps - 1; ++k) window[k] = window[k + 1];
          window[kExpandTaps - 1] = v[yy * l.v_pitch + q - r.q0x + kExpandTaps - 1];
        }
      }
    }
  }
}

// Phase 4: out.store(x, y, pixel) for the tile, lanes on consecutive pixels of a row.
template <class P, class Tile, class Out>
GAUSSLAB_HD void expand_store(const ExpandLayout& l, const ExpandRegion& r, int thread, const Tile& tile,
                              const Out& out) {
  const int items = r.h * P::kTileW;
  for (int item = thread; item < items; item += P::kThreads) {
    const int xx = item % P::kTileW;
    const int yy = item / P::kTileW;
    if (xx < r.w) out.store(r.x0 + xx, r.y0 + yy, tile[yy * l.out_pitch + xx]);
  }
}

}  // namespace gausslab::multires
