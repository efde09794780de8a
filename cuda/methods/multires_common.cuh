#pragma once
// multires: the per-thread code of the four kernels (reduce, row reduce, column reduce, expand), for
// multires.cu and for the CPU model in tests/cpu/methods/multires/, which runs it unchanged block by
// block and thread by thread with checked memory. The maths (weights, grids) is in multires_plan.hpp;
// the algorithm in docs/methods/multires.md.
//
// Stages and what each kernel computes (one axis; the other is the same):
//   reduce        C[c] = sum_t w1[t] f(d c + origin + t): a 2D tile of C per block, the fine tile
//                 plus apron in shared memory, a decimating row pass into a shared tile h, then a
//                 decimating column pass from h. With d = 1 and the blur's weights the same kernel is
//                 the coarse blur C -> B (a fused separable FIR; C already holds the border).
//   row reduce /  for large d, where the fine apron of a 2D tile would not fit: the row pass alone
//   column reduce into R (every image row, C's columns), then the column pass from R (a block's
//                 warps split each window's phases and add their partial sums in shared memory).
//   expand        out(d q + p) = sum_j e[p][j] B[q + first(p) + j], j < 4: B's region of a tile in
//                 shared memory once, then per chunk of 32 rows vertical into a shared tile v and
//                 each thread 4 consecutive pixels of a row from one window of v, stored with one
//                 16-byte store.
// Decimating passes use the polyphase form: the taps t = p + d k of phase p read the samples
// d (c + k) + p. phase_window (d >= 2) keeps a phase's taps in registers and walks each chain of
// samples once; the blur (d = 1) keeps decimating_window, fused::fused_window's run-time window.
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "gausslab/core/border.hpp"
#include "gausslab/core/host_device.hpp"
#include "gausslab/core/pixel_format.hpp"
#include "gausslab/cuda/kernel_common.cuh"
#include "gausslab/cuda/tile_grid.cuh"
#include "multires_plan.hpp"
#include "separable_common.cuh"
#include "separable_fused_common.cuh"

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
// RGBA32F: float4 everywhere, each channel F32's arithmetic (its bound, relative, per channel).
template <>
struct Types<PixelFormat::Rgba32F> {
  using Fine = float4;
  using Coarse = float4;
  using Accum = float4;
};

GAUSSLAB_HD unsigned float_as_bits(float value) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(value);
#else
  unsigned bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
#endif
}

// Every multires kernel (and its CPU model) reads its samples, bytes and this file's 16-bit storage
// alike, through to_accum_via_i2f (kernel_common.cuh): its passes are bound by the FMA and ALU pipes,
// where an OR-and-add conversion put two instructions per channel; I2F runs on a pipe beside them
// (H100, 4096² RGBA8: 2-8 % faster).

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
#if defined(__CUDA_ARCH__)
    // The same rounding (to nearest, ties to even, clamped to [0, 65535]; NaN to 0) in one conversion
    // instruction per channel, on the conversion unit beside the FMA and ALU pipes.
    return make_ushort4(rni_sat_u16(v.x), rni_sat_u16(v.y), rni_sat_u16(v.z), rni_sat_u16(v.w));
#else
    return make_ushort4(round_u16(v.x), round_u16(v.y), round_u16(v.z), round_u16(v.w));
#endif
  }
#if defined(__CUDA_ARCH__)
  __device__ static unsigned short rni_sat_u16(float v) {
    unsigned short r;
    asm("cvt.rni.sat.u16.f32 %0, %1;" : "=h"(r) : "f"(v));
    return r;
  }
#endif
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
template <>
struct Store<float4> {
  GAUSSLAB_HD static float4 from(float4 v) { return v; }
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

// The most taps any phase of the prefilter has (ceil(taps / d)), for every sigma from 4 to 200 (the
// prefilter spans about 6.4 d + 1 fine pixels): 6 at d 2, 7 above. Checked by the launch and by
// MultiresPlan.PrefilterPhasesFitThePhaseWindow.
inline constexpr int kMaxPhaseTaps = 7;

// phase_window: the same sum as decimating_window, with each phase's (at most K) weights in
// registers and every loop unrolled: per phase p the thread loads the chain of samples d i + p,
// i < M + taps_p - 1, once each, and adds sample i to the outputs m = i - k it reaches. No register
// window is moved, and a sample is converted once per thread (decimating_window's N - 1 overlap
// loads every sample of a phase's window again for each group of N outputs). d >= 2;
// taps_in_phase(taps, d, 0) <= K.
// phase_window_range: the phases p_begin .. p_end - 1 only (the other phases' share left to other
// threads); phase_weights_offset: where phase p_begin's weights start in the phase order.
GAUSSLAB_HD int phase_weights_offset(int d, int taps, int p_begin) {
  int offset = 0;
  for (int p = 0; p < p_begin && p < taps; ++p) offset += (taps - p + d - 1) / d;
  return offset;
}

template <int M, int K, class Accum, class Weights, class Sample>
GAUSSLAB_HD void phase_window_range(Accum (&acc)[M], const Weights& phase_ordered, int d, int taps, int p_begin,
                                    int p_end, const Sample& sample) {
  int offset = phase_weights_offset(d, taps, p_begin);
  for (int p = p_begin; p < p_end && p < taps; ++p) {
    const int phase_taps = (taps - p + d - 1) / d;
    float w[K];
    GAUSSLAB_UNROLL
    for (int k = 0; k < K; ++k) w[k] = k < phase_taps ? phase_ordered[offset + k] : 0.0f;
    // Samples past the chain's last (i >= M + phase_taps - 1, in phases shorter than K) reach only
    // taps k >= phase_taps: they are read at the last index instead (no branch, nothing outside the
    // span) and their multiply-adds are predicated off, so a non-finite pixel outside a window never
    // enters it.
    const int last = d * (M + phase_taps - 2) + p;
    GAUSSLAB_UNROLL
    for (int i = 0; i < M + K - 1; ++i) {
      const Accum x = sample(d * i + p < last ? d * i + p : last);
      GAUSSLAB_UNROLL
      for (int k = 0; k < K; ++k)
        if (i - k >= 0 && i - k < M && k < phase_taps) acc[i - k] = fma4(w[k], x, acc[i - k]);
    }
    offset += phase_taps;
  }
}

template <int M, int K, class Accum, class Weights, class Sample>
GAUSSLAB_HD void phase_window(Accum (&acc)[M], const Weights& phase_ordered, int d, int taps, const Sample& sample) {
  phase_window_range<M, K>(acc, phase_ordered, d, taps, 0, d, sample);
}

// ---- reduce (and the coarse blur): one 2D tile per block ------------------------------------------

template <int Threads, int RowOutputs, int ColumnOutputs, int PhaseRowOutputs, int PhaseColumnOutputs>
struct ReducePolicy {
  static constexpr int kThreads = Threads;
  static constexpr int kWarps = Threads / 32;
  static constexpr int kRowOutputs = RowOutputs;                  // N of the blur's row pass (d = 1)
  static constexpr int kColumnOutputs = ColumnOutputs;            // N of the blur's column pass
  static constexpr int kPhaseRowOutputs = PhaseRowOutputs;        // M of the row pass when d >= 2 (phase_window)
  static constexpr int kPhaseColumnOutputs = PhaseColumnOutputs;  // M of the column pass when d >= 2
};
// (The column pass keeps M = 4 so that a 16 × 16 tile still has 64 items for the block's threads.)
using ReduceKernelPolicy = ReducePolicy<256, 4, 4, 8, 4>;

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
  return tile_block_count(s.out_w, s.out_h, s.tile_w, s.tile_h);
}

// The tile's first coarse pixel (tile_grid.cuh).
GAUSSLAB_HD TileOrigin reduce_tile(const ReduceStage& s, int block) {
  return tile_at(block, reduce_tiles_x(s), s.tile_w, s.tile_h);
}

// Phase 1 (then __syncthreads): raw <- the border-extended source under the tile, weights <- w.
// fill.copy(slot, row, col) stores src[row][col] (zero where either is -1) in raw slot `slot`;
// fill.copy_inside the same for indices known to be inside the source; fill.copy_weight(t) stores
// weight t.
template <class P, class Fill>
GAUSSLAB_HD void reduce_fill(const ReduceStage& s, const ReduceLayout& l, TileOrigin tile, int thread,
                             const Fill& fill) {
  const int fx0 = s.d * tile.x0 + s.origin_x;
  const int fy0 = s.d * tile.y0 + s.origin_y;
  const int lane = thread % 32;
  if (fx0 >= 0 && fy0 >= 0 && fx0 + l.fine_w <= s.src_w && fy0 + l.fine_h <= s.src_h) {
    // The tile with its apron inside the source (all tiles but the edges'): no border mapping.
    for (int row = thread / 32; row < l.fine_h; row += P::kWarps)
      for (int col = lane; col < l.fine_w; col += 32) fill.copy_inside(row * l.raw_pitch + col, fy0 + row, fx0 + col);
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
// Groups of N outputs: the blur's kRowOutputs (decimating_window, d = 1), else kPhaseRowOutputs.
template <int N, class P, class Raw, class H, class Window>
GAUSSLAB_HD void reduce_row_items(const ReduceStage& s, const ReduceLayout& l, int thread, const Raw& raw, const H& h,
                                  const Window& window) {
  using Accum = std::decay_t<decltype(to_accum_via_i2f(raw[0]))>;
  const int groups = s.tile_w / N;
  const int items = l.fine_h * groups;
  for (int item = thread; item < items; item += P::kThreads) {
    const int row = item % l.fine_h;
    const int group = item / l.fine_h;
    Accum acc[N];
    GAUSSLAB_UNROLL
    for (int j = 0; j < N; ++j) acc[j] = zero_value<Accum>();
    const int base = row * l.raw_pitch + s.d * group * N;
    window(acc, [&](int i) { return to_accum_via_i2f(raw[base + i]); });
    GAUSSLAB_UNROLL
    for (int j = 0; j < N; ++j) h.store(row * l.h_pitch + group * N + j, acc[j]);
  }
}

template <class P, class Raw, class Weights, class H>
GAUSSLAB_HD void reduce_row_pass(const ReduceStage& s, const ReduceLayout& l, int thread, const Raw& raw,
                                 const Weights& w, const H& h) {
  if (s.d == 1) {
    reduce_row_items<P::kRowOutputs, P>(s, l, thread, raw, h, [&](auto& acc, const auto& sample) {
      decimating_window<P::kRowOutputs>(acc, w, s.d, s.taps, sample);
    });
  } else {
    reduce_row_items<P::kPhaseRowOutputs, P>(s, l, thread, raw, h, [&](auto& acc, const auto& sample) {
      phase_window<P::kPhaseRowOutputs, kMaxPhaseTaps>(acc, w, s.d, s.taps, sample);
    });
  }
}

// Phase 3: out.store(cx, cy, value) for the tile's outputs inside out_w × out_h.
template <int N, class P, class H, class Out, class Window>
GAUSSLAB_HD void reduce_column_items(const ReduceStage& s, const ReduceLayout& l, TileOrigin tile, int thread,
                                     const H& h, const Out& out, const Window& window) {
  using Accum = std::decay_t<decltype(h[0])>;
  const int groups = s.tile_h / N;
  const int items = s.tile_w * groups;
  for (int item = thread; item < items; item += P::kThreads) {
    const int c = item % s.tile_w;
    const int group = item / s.tile_w;
    if (tile.x0 + c >= s.out_w || tile.y0 + group * N >= s.out_h) continue;
    Accum acc[N];
    GAUSSLAB_UNROLL
    for (int j = 0; j < N; ++j) acc[j] = zero_value<Accum>();
    const int base = s.d * group * N * l.h_pitch + c;
    window(acc, [&](int i) { return h[base + i * l.h_pitch]; });
    GAUSSLAB_UNROLL
    for (int j = 0; j < N; ++j)
      if (tile.y0 + group * N + j < s.out_h) out.store(tile.x0 + c, tile.y0 + group * N + j, s.out_scale * acc[j]);
  }
}

template <class P, class H, class Weights, class Out>
GAUSSLAB_HD void reduce_column_pass(const ReduceStage& s, const ReduceLayout& l, TileOrigin tile, int thread,
                                    const H& h, const Weights& w, const Out& out) {
  if (s.d == 1) {
    reduce_column_items<P::kColumnOutputs, P>(s, l, tile, thread, h, out, [&](auto& acc, const auto& sample) {
      decimating_window<P::kColumnOutputs>(acc, w, s.d, s.taps, sample);
    });
  } else {
    reduce_column_items<P::kPhaseColumnOutputs, P>(s, l, tile, thread, h, out, [&](auto& acc, const auto& sample) {
      phase_window<P::kPhaseColumnOutputs, kMaxPhaseTaps>(acc, w, s.d, s.taps, sample);
    });
  }
}

// The reduce's tile (coarse outputs per side), and the largest d at which the fused 2D reduce runs
// (above it, row reduce + column reduce). Measured on an H100 (4096², both paths, tools in
// docs/methods/multires.md): RGBA8 fused 0.384 / 0.370 / 0.360 ms at d 3 / 4 / 6 against rows +
// columns 0.451 / 0.413 / 0.324; F32 fused 0.209 / 0.219 / 0.271 against 0.393 / 0.370 / 0.310; both
// formats fused at d 8: 0.59–0.61 against 0.27–0.30. Shared memory at d 6, RGBA8: 99 KiB.
GAUSSLAB_HD int fused_reduce_max_d(bool rgba8) { return rgba8 ? 4 : 6; }
// RGBA32F (16-byte pixels, wide_pixels) takes 16 × 16 tiles from d 2 on: at 32 × 32 its fine tile
// and apron need 134 KiB at d 2, one block an SM (H200, 4096² sigma 4: 0.390 ms against 0.347).
GAUSSLAB_HD int reduce_tile_side(int d, bool wide_pixels = false) { return d == 1 || (d == 2 && !wide_pixels) ? 32 : 16; }

// ---- row reduce and column reduce (large d) --------------------------------------------------------

// Row reduce: R[y][c] = sum_t w[t] f(y, d c + origin + t) for every image row y < src_h. A block owns
// 32 image rows (one per lane) and `groups` windows of N outputs along them (warps take every
// kWarps-th window; phase_window sums each); its fine rows sit in shared memory, lanes on
// consecutive rows (odd pitch).
template <int Warps, int Outputs>
struct RowReducePolicy {
  static constexpr int kWarps = Warps;
  static constexpr int kThreads = 32 * Warps;
  static constexpr int kOutputs = Outputs;
};
// Eight outputs per window up to d 12, four above (more windows per block where the prefilter is
// long); eight warps. Measured on the H100 (4096² RGBA8, the row reduce's policy and span target
// varied, docs/methods/multires.md): 4 or 8 warps × 4 or 8 outputs × spans 256, 384, 512 were within
// 5 % of each other up to sigma 32; at sigma 48 and 64 eight warps of four outputs were 6-12 % ahead.
using RowReduceWidePolicy = RowReducePolicy<8, 8>;
using RowReduceNarrowPolicy = RowReducePolicy<8, 4>;
GAUSSLAB_HD bool row_reduce_is_wide(int d) { return d <= 12; }

struct RowReduceStage {
  int d = 1;
  int taps = 1;
  int origin = 0;
  int out_w = 0;           // R's columns (C's)
  int src_w = 0, src_h = 0;
  BorderMode border = BorderMode::Reflect;
  int groups = 1;          // windows per block row
  float out_scale = 1.0f;  // 257 for RGBA8 (R is 16-bit)
};

// Windows per block row: as many as keep a row's span near 384 samples (at least one; warps beyond
// the windows only help fill).
inline constexpr int kRowReduceSpanTarget = 384;
// RGBA32F's 16-byte pixels: a third of the span, so that 32 rows stay near 64 KiB.
inline constexpr int kRowReduceSpanTargetRgba32F = 128;
template <class Fine>
GAUSSLAB_HD constexpr int row_reduce_span_target() {
  return sizeof(Fine) == 16 ? kRowReduceSpanTargetRgba32F : kRowReduceSpanTarget;
}
template <class P>
GAUSSLAB_HD int row_reduce_groups_for(int d, int taps, int span_target = kRowReduceSpanTarget) {
  const int groups = ((span_target - taps) / d + 1) / P::kOutputs;
  return groups < 1 ? 1 : groups;
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
  if (fx0 >= 0 && fx0 + span <= s.src_w) {
    // Every column inside the image (all blocks but the left and right few): no border mapping.
    for (int row = thread / 32; row < 32 && b.y0 + row < s.src_h; row += P::kWarps)
      for (int col = lane; col < span; col += 32) fill.copy_inside(row * pitch + col, b.y0 + row, fx0 + col);
  } else {
    for (int row = thread / 32; row < 32 && b.y0 + row < s.src_h; row += P::kWarps)
      for (int col = lane; col < span; col += 32)
        fill.copy(row * pitch + col, b.y0 + row, border_index(fx0 + col, s.src_w, s.border));
  }
  for (int t = thread; t < s.taps; t += P::kThreads) fill.copy_weight(t);
}

// Phase 2: out.store(c, y, value) for the block's outputs.
template <class P, class Raw, class Weights, class Out>
GAUSSLAB_HD void row_reduce_pass(const RowReduceStage& s, RowBlock b, int thread, const Raw& raw, const Weights& w,
                                 const Out& out) {
  constexpr int N = P::kOutputs;
  using Accum = std::decay_t<decltype(to_accum_via_i2f(raw[0]))>;
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
    phase_window<N, kMaxPhaseTaps>(acc, w, s.d, s.taps, [&](int i) { return to_accum_via_i2f(raw[base + i]); });
    GAUSSLAB_UNROLL
    for (int j = 0; j < N; ++j)
      if (c + j < s.out_w) out.store(c + j, b.y0 + row, s.out_scale * acc[j]);
  }
}

// Column reduce: C[cy][cx] = sum_t w[t] R(border(d cy + origin + t), cx). A block owns 32 columns
// (lanes, coalesced reads of R straight from global) and kOutputs consecutive outputs of each; its
// warps split the d phases of those windows (slices), and their partial sums meet in shared memory.
// C is small (1 / d^2 of the image): with one thread per window of outputs, the H100 held 4 to 15
// warps per SM, each walking all d phases of its window one after another (81 µs at sigma 64).
template <int Slices, int Outputs>
struct ColumnReducePolicy {
  static constexpr int kSlices = Slices;
  static constexpr int kThreads = 32 * Slices;
  static constexpr int kOutputs = Outputs;
};
using ColumnReduceKernelPolicy = ColumnReducePolicy<8, 4>;
// Up to d 6 the windows have few phases for 8 warps: 4 warps a block, twice the blocks an SM (H100,
// 4096² RGBA8: σ 8 (d 4) 0.188 → 0.173 ms, σ 12 (d 6) 0.138 → 0.136; from d 8 on 8 warps are faster,
// σ 32 0.123 against 0.127). Also measured after the expand's chunks (2026-11-25, 4096² RGBA8,
// σ 8 / 12 / 32, against 0.146 / 0.124 / 0.103 ms for these two): <4, 8> 0.154 / 0.130 / 0.111,
// <2, 8> 0.152 / 0.128 / 0.129, <8, 8> 0.176 / 0.130 / 0.103, <2, 4> 0.147 / 0.124 / 0.120.
using ColumnReduceSmallDPolicy = ColumnReducePolicy<4, 4>;
inline constexpr int kColumnReduceSmallDMax = 6;
// fn(policy) with the column reduce's policy for decimation d.
template <class Fn>
void with_column_reduce_policy(int d, const Fn& fn) {
  if (d <= kColumnReduceSmallDMax)
    fn(ColumnReduceSmallDPolicy{});
  else
    fn(ColumnReduceKernelPolicy{});
}

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
  return static_cast<long long>(column_reduce_blocks_x<P>(s)) * div_up(s.out_h, P::kOutputs);
}
template <class P>
GAUSSLAB_HD constexpr int column_reduce_partial_count() {
  return P::kSlices * P::kOutputs * 32;
}

// Step 1 (then __syncthreads): partial[(slice kOutputs + j) 32 + lane] = the thread's slice of output
// j's sum (zero for a column past C). r.load(row, cx) reads R[row][cx]; weights phase-ordered, in
// any readable array.
template <class P, class RView, class Weights, class Partial>
GAUSSLAB_HD void column_reduce_slice(const ColumnReduceStage& s, int block, int thread, const RView& r,
                                     const Weights& w, const Partial& partial) {
  constexpr int N = P::kOutputs;
  using Accum = std::decay_t<decltype(r.load(0, 0))>;
  const int bx = column_reduce_blocks_x<P>(s);
  const int lane = thread % 32, slice = thread / 32;
  const int cx = (block % bx) * 32 + lane;
  const int cy = (block / bx) * N;
  Accum acc[N];
  GAUSSLAB_UNROLL
  for (int j = 0; j < N; ++j) acc[j] = zero_value<Accum>();
  if (cx < s.out_w) {
    const int p_begin = slice * s.d / P::kSlices, p_end = (slice + 1) * s.d / P::kSlices;
    const int first = s.d * cy + s.origin;
    if (first >= 0 && first + s.d * (N - 1) + s.taps <= s.src_h) {
      // The window of rows inside R (all but the top and bottom few windows): no border mapping.
      phase_window_range<N, kMaxPhaseTaps>(acc, w, s.d, s.taps, p_begin, p_end,
                                           [&](int i) { return r.load(first + i, cx); });
    } else {
      phase_window_range<N, kMaxPhaseTaps>(acc, w, s.d, s.taps, p_begin, p_end, [&](int i) {
        const int row = border_index(first + i, s.src_h, s.border);
        return row < 0 ? zero_value<Accum>() : r.load(row, cx);
      });
    }
  }
  GAUSSLAB_UNROLL
  for (int j = 0; j < N; ++j) partial.store((slice * N + j) * 32 + lane, acc[j]);
}

// Step 2: the slices' sums; out.store(cx, cy, value) for the block's outputs inside C.
template <class P, class Partial, class Out>
GAUSSLAB_HD void column_reduce_combine(const ColumnReduceStage& s, int block, int thread, const Partial& partial,
                                       const Out& out) {
  using Accum = std::decay_t<decltype(partial[0])>;
  constexpr int N = P::kOutputs;
  const int bx = column_reduce_blocks_x<P>(s);
  const int lane = thread % 32;
  const int cx = (block % bx) * 32 + lane;
  if (cx >= s.out_w) return;
  for (int j = thread / 32; j < N; j += P::kSlices) {  // warp w: outputs w, w + kSlices, ...
    const int cy = (block / bx) * N + j;
    if (cy >= s.out_h) return;
    Accum sum = zero_value<Accum>();
    GAUSSLAB_UNROLL
    for (int slice = 0; slice < P::kSlices; ++slice) sum = sum + partial[(slice * N + j) * 32 + lane];
    out.store(cx, cy, sum);
  }
}

// ---- expand ---------------------------------------------------------------------------------------

// Each phase p of the cubic B-spline has four non-zero weights, on B[q + first + j], j < 4, with
// first = expand_first_tap(p, d) (0 left of the coarse sample's centre, 1 from it on; the plan's
// expand[p][k] is zero outside). The kernels read only those four.
inline constexpr int kExpandSplineTaps = 4;
GAUSSLAB_HD int expand_first_tap(int p, int d) { return 2 * p < d - 1 ? 0 : 1; }

// The weights as the expand kernel reads them: 2 d × 4 floats, vertical (carrying 1 / vertical_scale,
// 1 / 257 for RGBA8's 16-bit B) then horizontal. Throws if the plan's spline had a non-zero weight
// outside the four taps the kernel reads.
inline std::vector<float> expand_kernel_weights(const Plan& plan, double vertical_scale) {
  std::vector<float> out;
  for (int pass = 0; pass < 2; ++pass)
    for (int p = 0; p < plan.d; ++p) {
      const auto& row = plan.expand[static_cast<std::size_t>(p)];
      const int first = expand_first_tap(p, plan.d);
      for (int k = 0; k < kExpandTaps; ++k)
        if ((k < first || k >= first + kExpandSplineTaps) && row[static_cast<std::size_t>(k)] != 0.0)
          throw std::logic_error("multires: a spline weight outside the four taps the expand kernel reads");
      for (int j = 0; j < kExpandSplineTaps; ++j)
        out.push_back(static_cast<float>(row[static_cast<std::size_t>(first + j)] / (pass == 0 ? vertical_scale : 1.0)));
    }
  return out;
}

// A block owns a tile of kTileW fine columns and `chunks` × kChunkH fine rows (ExpandStage::chunks).
// Fine pixel d q + p reads B[q + first + j], j < 4; the tile's B samples are rows q0y .. and columns
// q0x .. of B (the region), converted to Accum in shared memory once for the tile. Then, chunk by
// chunk of kChunkH rows: the vertical pass v[row][col] for the chunk's rows and every region column
// (lanes on consecutive rows, warps split the columns), and the horizontal pass: each thread keeps
// one group of kGroup consecutive fine columns for the whole tile (their offsets and weights in
// registers, found once) and walks the chunk's rows, storing the kGroup pixels of a row at once (16
// bytes: one vector store). No register window slides and nothing branches on the phase: an earlier
// version that slid five-tap windows along runs of eight pixels and wrote through a shared output
// tile issued about 3× the instructions per pixel of its multiply-adds (H100, Nsight Compute). Tiles
// of one chunk (128 × 32) spent more than half their instructions outside the horizontal pass's
// multiply-adds: the set-up of each thread's group, and a vertical pass whose warps took rows and
// left most lanes idle on the second round of a region's 37 columns (H100, sigma 8: 82 µs, 47.8 M
// instructions at base clocks).
template <int TileW, int ChunkH, int Group, int Threads>
struct ExpandPolicy {
  static constexpr int kTileW = TileW;
  static constexpr int kChunkH = ChunkH;
  static constexpr int kGroup = Group;
  static constexpr int kThreads = Threads;
  static constexpr int kGroupsPerRow = TileW / Group;
  static constexpr int kRowsAtOnce = Threads / kGroupsPerRow;  // rows the block's threads cover at once
  static constexpr int kColumnSlices = Threads / ChunkH;       // vertical pass: threads per chunk row
  static_assert(TileW % Group == 0 && Threads % kGroupsPerRow == 0 && ChunkH % kRowsAtOnce == 0 &&
                    Threads % ChunkH == 0,
                "groups must tile the block");
};
using ExpandKernelPolicy = ExpandPolicy<128, 32, 4, 256>;
// Chunks per tile: as many as keep the block's shared memory within kExpandSharedTarget (four blocks
// of 256 threads an SM), at most kExpandMaxChunks (a 4096-row image then has 32 tile rows).
inline constexpr int kExpandMaxChunks = 4;
inline constexpr unsigned kExpandSharedTarget = 48 * 1024;

// n / d without a division instruction (the division of a run-time int took about 25 instructions
// and a third of the expand kernel's issue slots went to its set-up): with m = floor(2^32 / d) + 1,
// floor(n m / 2^32) = floor(n / d) whenever n d < 2^32 (the error term n (m - 2^32 / d) / 2^32 stays
// below 1 / d). The method refuses images whose side breaks that (expand_divides_exactly).
GAUSSLAB_HD unsigned divide_magic(int d) { return static_cast<unsigned>((1ull << 32) / static_cast<unsigned>(d) + 1); }
GAUSSLAB_HD int divide_by_magic(int n, unsigned magic) {
#if defined(__CUDA_ARCH__)
  return static_cast<int>(__umulhi(static_cast<unsigned>(n), magic));
#else
  return static_cast<int>((static_cast<unsigned long long>(static_cast<unsigned>(n)) * magic) >> 32);
#endif
}
inline bool expand_divides_exactly(int d, int width, int height) {
  const unsigned long long side = static_cast<unsigned long long>(width > height ? width : height) + 64;
  return side * static_cast<unsigned long long>(d) < (1ull << 32);
}

struct ExpandStage {
  int d = 2;
  unsigned d_magic = 0;       // divide_magic(d)
  int width = 0, height = 0;  // fine image
  int b_w = 0, b_h = 0;       // B
  int chunks = 1;             // kChunkH-row chunks per tile (expand_chunks_for)
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
GAUSSLAB_HD int expand_tile_h(const ExpandStage& s) {
  return P::kChunkH * s.chunks;
}
template <class P>
GAUSSLAB_HD int expand_tiles_y(const ExpandStage& s) {
  return div_up(s.height, expand_tile_h<P>(s));
}
// The tile in column tile_x and row tile_y of tiles (the kernel's blockIdx.x and .y).
template <class P>
GAUSSLAB_HD ExpandRegion expand_region(const ExpandStage& s, int tile_x, int tile_y) {
  ExpandRegion r{};
  r.x0 = tile_x * P::kTileW;
  const int tile_h = expand_tile_h<P>(s);
  r.y0 = tile_y * tile_h;
  r.w = s.width - r.x0 < P::kTileW ? s.width - r.x0 : P::kTileW;
  r.h = s.height - r.y0 < tile_h ? s.height - r.y0 : tile_h;
  r.q0x = divide_by_magic(r.x0, s.d_magic);
  r.q0y = divide_by_magic(r.y0, s.d_magic);
  r.cols = divide_by_magic(r.x0 + r.w - 1, s.d_magic) - r.q0x + kExpandTaps;
  r.rows = divide_by_magic(r.y0 + r.h - 1, s.d_magic) - r.q0y + kExpandTaps;
  return r;
}

// The largest region of a tile, for the shared-memory size: a tile spans at most (tile - 1) / d + 1
// intervals past its first, each read with the next four.
template <class P>
GAUSSLAB_HD int expand_max_cols(int d) {
  return (P::kTileW - 1) / d + 2 + 4;
}
template <class P>
GAUSSLAB_HD int expand_max_rows(int d, int chunks) {
  return (P::kChunkH * chunks - 1) / d + 2 + 4;
}

struct ExpandLayout {
  int b_pitch;      // region row pitch (Accum); odd, as v's: lanes on consecutive rows hit other banks
  int region_rows;  // expand_max_rows
  int v_pitch;      // vertical result: kChunkH rows × region columns (Accum)
  unsigned b_offset_bytes, v_offset_bytes, total_bytes;
};

GAUSSLAB_HD int expand_weight_count(int d) { return 2 * d * kExpandSplineTaps; }

// Weights first (2 d × 4 floats: vertical then horizontal), then the region, then v.
template <class P, class Accum>
GAUSSLAB_HD ExpandLayout expand_layout(int d, int chunks) {
  ExpandLayout l{};
  l.b_pitch = expand_max_cols<P>(d) | 1;
  l.v_pitch = l.b_pitch;
  l.region_rows = expand_max_rows<P>(d, chunks);
  l.b_offset_bytes = static_cast<unsigned>((expand_weight_count(d) + 3) / 4 * 16);
  l.v_offset_bytes =
      l.b_offset_bytes + static_cast<unsigned>(l.region_rows * l.b_pitch) * static_cast<unsigned>(sizeof(Accum));
  l.total_bytes = l.v_offset_bytes + static_cast<unsigned>(P::kChunkH * l.v_pitch) * static_cast<unsigned>(sizeof(Accum));
  return l;
}

template <class P, class Accum>
GAUSSLAB_HD int expand_chunks_for(int d) {
  for (int chunks = kExpandMaxChunks; chunks > 1; chunks /= 2)
    if (expand_layout<P, Accum>(d, chunks).total_bytes <= kExpandSharedTarget) return chunks;
  return 1;
}

// Phase 1 (then __syncthreads): fill.copy(slot, b_row, b_col) stores B[b_row][b_col] converted into
// region slot `slot`; fill.copy_weight(i) weight i of the 2 d × 4.
template <class P, class Fill>
GAUSSLAB_HD void expand_fill(const ExpandStage& s, const ExpandLayout& l, const ExpandRegion& r, int thread,
                             const Fill& fill) {
  const int lane = thread % 32;
  for (int row = thread / 32; row < r.rows; row += P::kThreads / 32)
    for (int col = lane; col < r.cols; col += 32) fill.copy(row * l.b_pitch + col, r.q0y + row, r.q0x + col);
  for (int i = thread; i < expand_weight_count(s.d); i += P::kThreads) fill.copy_weight(i);
}

// Chunk c, phase 1 (then __syncthreads): v[yy - c kChunkH][col] = sum_j ey[p][j]
// region[q - q0y + first + j][col] for the chunk's rows yy (fine row y0 + yy = d q + p) and every
// region column. Lanes on consecutive rows (each thread finds its row's phase and weights once),
// warps split the columns.
template <class P, class Region, class Weights, class V>
GAUSSLAB_HD void expand_vertical(const ExpandStage& s, const ExpandLayout& l, const ExpandRegion& r, int chunk,
                                 int thread, const Region& region, const Weights& w, const V& v) {
  using Accum = std::decay_t<decltype(region[0])>;
  const int row = thread % P::kChunkH;
  const int yy = chunk * P::kChunkH + row;
  if (yy >= r.h) return;
  const int q = divide_by_magic(r.y0 + yy, s.d_magic);
  const int p = (r.y0 + yy) - q * s.d;
  const int first_row = (q - r.q0y + expand_first_tap(p, s.d)) * l.b_pitch;
  float weight[kExpandSplineTaps];
  GAUSSLAB_UNROLL
  for (int j = 0; j < kExpandSplineTaps; ++j) weight[j] = w[p * kExpandSplineTaps + j];
  for (int col = thread / P::kChunkH; col < r.cols; col += P::kColumnSlices) {
    Accum acc = zero_value<Accum>();
    GAUSSLAB_UNROLL
    for (int j = 0; j < kExpandSplineTaps; ++j) acc = fma4(weight[j], region[first_row + j * l.b_pitch + col], acc);
    v.store(row * l.v_pitch + col, acc);
  }
}

// The final conversion of an expanded value. Every expanded value is a convex combination of values
// in the storage's range: B's 16-bit integers (at most 65535) times non-negative float weights of sum
// 1 / 257 (vertical) and 1 (horizontal), each sum within a few float roundings of its exact value, so
// an RGBA8 value lies in [0, 255.001] and needs no clamp; adding 2^23 rounds it to the nearest
// integer (ties to even, the same on the CPU as on the GPU) in the low byte, and on the GPU three
// byte permutes pack the four low bytes (a clamp and a mask per channel cost the horizontal pass a
// fifth of its instructions).
// ExpandStore<Fine>::word(v): the pixel as the 4-byte word it is stored as; fine(word): the pixel.
template <class Fine>
struct ExpandStore;
template <>
struct ExpandStore<uchar4> {
  using Word = unsigned;
  GAUSSLAB_HD static Word word(float4 v) {
    const unsigned x = float_as_bits(v.x + 8388608.0f), y = float_as_bits(v.y + 8388608.0f);
    const unsigned z = float_as_bits(v.z + 8388608.0f), w = float_as_bits(v.w + 8388608.0f);
#if defined(__CUDA_ARCH__)
    return __byte_perm(__byte_perm(x, y, 0x0040), __byte_perm(z, w, 0x0040), 0x5410);
#else
    return (x & 0xFFu) | (y & 0xFFu) << 8 | (z & 0xFFu) << 16 | (w & 0xFFu) << 24;
#endif
  }
  GAUSSLAB_HD static uchar4 fine(Word word) {
    return make_uchar4(static_cast<unsigned char>(word & 0xFFu), static_cast<unsigned char>(word >> 8 & 0xFFu),
                       static_cast<unsigned char>(word >> 16 & 0xFFu), static_cast<unsigned char>(word >> 24));
  }
};
template <>
struct ExpandStore<float> {
  using Word = float;
  GAUSSLAB_HD static Word word(float v) { return v; }
  GAUSSLAB_HD static float fine(Word word) { return word; }
};
template <>
struct ExpandStore<float4> {
  using Word = float4;
  GAUSSLAB_HD static Word word(float4 v) { return v; }
  GAUSSLAB_HD static float4 fine(Word word) { return word; }
};

// The horizontal pass. The thread's group: columns xx0 .. xx0 + kGroup - 1 of the tile (lanes on
// consecutive groups), rows thread / kGroupsPerRow + k kRowsAtOnce of each chunk. The group's pixels
// read v's columns from the first pixel's first on, a window of expand_window(shape) values, each
// pixel's four spline weights at its own place in the window, so a row loads the window once for
// the group (a window of loads of v instead of 4 kGroup: the expand was bound by shared-memory
// bandwidth, 89 % busy on the H100 at sigma 8).
// Where a pixel's taps sit in the window depends on the group's phases. Groups start at multiples of
// 4, so for d = 2, 4 and multiples of 8 every group has the same phases and the places are known at
// compile time: the pass multiplies only the four taps of each pixel (64 multiply-adds a row for
// four RGBA pixels instead of 80 or 96). For other d they differ between groups: a window of 5 (4
// consecutive pixels step to the next interval at most once for d >= 3), zero weights off the taps.
enum class ExpandShape {
  Any,      // d 3, 5-7, 9-15, ...: window 5, the places found per thread
  Spread,   // d 2: window 6, pixel i's taps from i = 0, 1, 1, 2 on
  Pairs,    // d 4: window 5, from 0, 0, 1, 1
  Aligned,  // d a multiple of 8: window 4, all from 0
};
GAUSSLAB_HD ExpandShape expand_shape_for(int d) {
  return d == 2 ? ExpandShape::Spread : d == 4 ? ExpandShape::Pairs : d % 8 == 0 ? ExpandShape::Aligned : ExpandShape::Any;
}
GAUSSLAB_HD constexpr int expand_window(ExpandShape shape) {
  return shape == ExpandShape::Spread ? 6 : shape == ExpandShape::Aligned ? 4 : 5;
}
// Whether the shape puts a tap of pixel i of a group at window place k (always, for Any).
GAUSSLAB_HD constexpr bool expand_tap_at(ExpandShape shape, int i, int k) {
  const int first = shape == ExpandShape::Spread ? (i + 1) / 2 : shape == ExpandShape::Pairs ? i / 2 : 0;
  return shape == ExpandShape::Any || (k >= first && k < first + kExpandSplineTaps);
}

// fn(std::integral_constant<ExpandShape, shape>) with the shape of decimation d.
template <class Fn>
void with_expand_shape(int d, const Fn& fn) {
  switch (expand_shape_for(d)) {
    case ExpandShape::Spread: return fn(std::integral_constant<ExpandShape, ExpandShape::Spread>{});
    case ExpandShape::Pairs: return fn(std::integral_constant<ExpandShape, ExpandShape::Pairs>{});
    case ExpandShape::Aligned: return fn(std::integral_constant<ExpandShape, ExpandShape::Aligned>{});
    case ExpandShape::Any: break;
  }
  fn(std::integral_constant<ExpandShape, ExpandShape::Any>{});
}

// The thread's group, found once per tile (after the barrier that ends the fill: the weights are in
// shared memory).
template <int Window, int Group>
struct ExpandGroup {
  int xx0;                     // the group's first column in the tile; the thread has none if xx0 >= r.w
  bool whole;                  // all kGroup pixels inside the image
  int column[Window];          // v's columns of the window
  float weight[Group][Window]; // pixel i's weight on window place k (zero off its taps)
};

template <int Window, class P, class Weights>
GAUSSLAB_HD ExpandGroup<Window, P::kGroup> expand_group(const ExpandStage& s, const ExpandRegion& r, int thread,
                                                        const Weights& w) {
  constexpr int G = P::kGroup;
  ExpandGroup<Window, G> g{};
  g.xx0 = (thread % P::kGroupsPerRow) * G;
  g.whole = g.xx0 + G <= r.w;
  if (g.xx0 >= r.w) return g;
  const int horizontal = s.d * kExpandSplineTaps;  // the horizontal weights follow the vertical ones
  int window_first = 0;
  GAUSSLAB_UNROLL
  for (int i = 0; i < G; ++i) {
    const int x = r.x0 + (g.xx0 + i < r.w ? g.xx0 + i : r.w - 1);  // past the image: computed, never stored
    const int q = divide_by_magic(x, s.d_magic);
    const int p = x - q * s.d;
    const int offset = q - r.q0x + expand_first_tap(p, s.d);
    if (i == 0) window_first = offset;
    const int shift = offset - window_first;  // 0 .. Window - 4
    GAUSSLAB_UNROLL
    for (int k = 0; k < Window; ++k) {
      const int j = k - shift;
      g.weight[i][k] = j >= 0 && j < kExpandSplineTaps ? w[horizontal + p * kExpandSplineTaps + j] : 0.0f;
    }
  }
  // The window's last column may lie past the region when the group's pixels use fewer: read the
  // last column instead (its weight is zero).
  GAUSSLAB_UNROLL
  for (int k = 0; k < Window; ++k) g.column[k] = window_first + k < r.cols ? window_first + k : r.cols - 1;
  return g;
}

// Chunk c, phase 2 (then __syncthreads before the next chunk's vertical pass): the chunk's pixels.
// out.store_group(x, y, words) stores kGroup pixels of row y from x on, out.store(x, y, word) one
// pixel (the image's last group of a row when the width cuts it); words as ExpandStore<Fine>::Word.
template <ExpandShape Shape, class P, class Fine, class V, class Out>
GAUSSLAB_HD void expand_horizontal(const ExpandLayout& l, const ExpandRegion& r, int chunk, int thread,
                                   const ExpandGroup<expand_window(Shape), P::kGroup>& g, const V& v,
                                   const Out& out) {
  using Accum = std::decay_t<decltype(v[0])>;
  constexpr int G = P::kGroup;
  constexpr int Window = expand_window(Shape);
  if (g.xx0 >= r.w) return;
  const int chunk_end = (chunk + 1) * P::kChunkH < r.h ? (chunk + 1) * P::kChunkH : r.h;
  for (int yy = chunk * P::kChunkH + thread / P::kGroupsPerRow; yy < chunk_end; yy += P::kRowsAtOnce) {
    const int v_row = (yy - chunk * P::kChunkH) * l.v_pitch;
    Accum window[Window];
    GAUSSLAB_UNROLL
    for (int k = 0; k < Window; ++k) window[k] = v[v_row + g.column[k]];
    typename ExpandStore<Fine>::Word values[G];
    GAUSSLAB_UNROLL
    for (int i = 0; i < G; ++i) {
      Accum acc = zero_value<Accum>();
      GAUSSLAB_UNROLL
      for (int k = 0; k < Window; ++k)
        if (expand_tap_at(Shape, i, k)) acc = fma4(g.weight[i][k], window[k], acc);
      values[i] = ExpandStore<Fine>::word(acc);
    }
    if (g.whole) {
      out.store_group(r.x0 + g.xx0, r.y0 + yy, values);
    } else {
      GAUSSLAB_UNROLL
      for (int i = 0; i < G; ++i)
        if (g.xx0 + i < r.w) out.store(r.x0 + g.xx0 + i, r.y0 + yy, values[i]);
    }
  }
}

// RGBA32F (16-byte pixels, expand_strided): a thread's pixels stride kGroupsPerRow apart instead of
// lying side by side, so that each store instruction of a warp writes kGroupsPerRow consecutive
// pixels (512 bytes). With four consecutive pixels a thread, each of a warp's four 16-byte stores
// wrote every fourth pixel of the row: partial sectors, which left the expand bound by the L2 (80 %
// busy, DRAM 32 %; H200, 4096², sigma 4: 201 µs at ncu's clocks, the longest of the three kernels).
// Each pixel reads its own four values of v, in tap order as expand_horizontal adds them: v's reads
// are 64 B a pixel, the shared memory's to give, against the 16 B the pixel writes to DRAM.
template <class Fine>
GAUSSLAB_HD constexpr bool expand_strided() {
  return sizeof(Fine) == 16;
}

template <int Group>
struct ExpandStridedGroup {
  int lane_x;                              // pixel i of the thread is tile column lane_x + i kGroupsPerRow
  int column[Group];                       // v's column of pixel i's first tap
  float weight[Group][kExpandSplineTaps];  // pixel i's spline weights
};

template <class P, class Weights>
GAUSSLAB_HD ExpandStridedGroup<P::kGroup> expand_strided_group(const ExpandStage& s, const ExpandRegion& r, int thread,
                                                               const Weights& w) {
  ExpandStridedGroup<P::kGroup> g{};
  g.lane_x = thread % P::kGroupsPerRow;
  const int horizontal = s.d * kExpandSplineTaps;  // the horizontal weights follow the vertical ones
  GAUSSLAB_UNROLL
  for (int i = 0; i < P::kGroup; ++i) {
    const int xx = g.lane_x + i * P::kGroupsPerRow;
    const int x = r.x0 + (xx < r.w ? xx : r.w - 1);  // past the image: computed, never stored
    const int q = divide_by_magic(x, s.d_magic);
    const int p = x - q * s.d;
    g.column[i] = q - r.q0x + expand_first_tap(p, s.d);
    GAUSSLAB_UNROLL
    for (int j = 0; j < kExpandSplineTaps; ++j) g.weight[i][j] = w[horizontal + p * kExpandSplineTaps + j];
  }
  return g;
}

// Chunk c, phase 2 for expand_strided pixels: out.store(x, y, word) for each pixel of the chunk.
template <class P, class Fine, class V, class Out>
GAUSSLAB_HD void expand_horizontal_strided(const ExpandLayout& l, const ExpandRegion& r, int chunk, int thread,
                                           const ExpandStridedGroup<P::kGroup>& g, const V& v, const Out& out) {
  using Accum = std::decay_t<decltype(v[0])>;
  const int chunk_end = (chunk + 1) * P::kChunkH < r.h ? (chunk + 1) * P::kChunkH : r.h;
  for (int yy = chunk * P::kChunkH + thread / P::kGroupsPerRow; yy < chunk_end; yy += P::kRowsAtOnce) {
    const int v_row = (yy - chunk * P::kChunkH) * l.v_pitch;
    GAUSSLAB_UNROLL
    for (int i = 0; i < P::kGroup; ++i) {
      const int xx = g.lane_x + i * P::kGroupsPerRow;
      if (xx >= r.w) break;
      Accum acc = zero_value<Accum>();
      GAUSSLAB_UNROLL
      for (int j = 0; j < kExpandSplineTaps; ++j) acc = fma4(g.weight[i][j], v[v_row + g.column[i] + j], acc);
      out.store(r.x0 + xx, r.y0 + yy, ExpandStore<Fine>::word(acc));
    }
  }
}

}  // namespace gausslab::multires
