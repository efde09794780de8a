#pragma once
// The separable Gaussian exactly as the two separable GPU methods run it: the per-thread work of
// every kernel in separable_shared.cu and separable_texture.cu, written once as __host__ __device__
// code. The kernels are thin wrappers that call these functions between their __syncthreads();
// tests/cpu/methods/separable/test_separable_shared_texture.cpp runs the very same functions on the
// CPU, thread by thread and block by block, with bounds-checked memory, so the tile geometry, the
// apron chunks, the border mapping and the arithmetic are checked without a GPU.
//
// The maths: one 1D pass computes, for every output position p of a line of n samples,
//   out[p] = sum_{t = 0}^{2r} w[t] * in[border(p + t - r)]
// with w the float weights of gaussian_weights_f32, or of a custom kernel's taps in correlation order
// (kernel_taps: any odd mask, each pass its own; w[r] is the centre) and border() the mapping of
// core/border.hpp (-1 = the zero of 'constant'). Taps are added in ascending t with one fmaf each, so
// every kernel here, and the CPU model, produces bit-identical results.
//
// Register window (both methods): a thread computes N consecutive outputs of one line. For a group of
// N taps it needs 2N - 1 consecutive samples; N - 1 of them are the previous group's, so a group costs
// N sample loads, N weight loads and N * N multiply-adds: loads per output and tap drop from 1 to 1/N.
// The tap count is padded with zero weights to a multiple of N (padded_tap_count), so the loops have
// no tail; a zero weight times a finite sample adds exactly nothing.
//
// Why the symmetric weights are not folded (w[t] (in[p-k] + in[p+k])): on a GPU a fold turns two
// fused multiply-adds into one add and one multiply-add, the same instruction count; the loads it
// would save are already amortised N-fold by the register window, which a fold would split into two
// windows sliding in opposite directions.
#include <cmath>  // fmaf for the host compiler (kernel_common.cuh uses it)
#include <cuda_runtime.h>

#include <cstddef>
#include <stdexcept>
#include <vector>

#include "gausslab/core/border.hpp"
#include "gausslab/core/filter_params.hpp"
#include "gausslab/core/gaussian_weights.hpp"
#include "gausslab/core/host_device.hpp"
#include "gausslab/core/pixel_format.hpp"
#include "gausslab/cuda/kernel_common.cuh"
#include "gausslab/cuda/store_rule.cuh"

namespace gausslab::separable {

// ---- weights ------------------------------------------------------------------------------------

// 2r + 1 rounded up to a multiple of `multiple` (the register window's N).
inline int padded_tap_count(int radius, int multiple) {
  const int taps = 2 * radius + 1;
  return (taps + multiple - 1) / multiple * multiple;
}

// gaussian_weights_f32(sigma, radius) followed by zeros up to padded_tap_count(radius, multiple).
inline std::vector<float> padded_weights(double sigma, int radius, int multiple) {
  std::vector<float> weights = gaussian_weights_f32(sigma, radius);
  weights.resize(static_cast<std::size_t>(padded_tap_count(radius, multiple)), 0.0f);
  return weights;
}

// A custom kernel's taps of one pass (kernel_taps' row or column, in correlation order) as floats,
// followed by zeros up to padded_tap_count(radius, multiple).
inline std::vector<float> padded_taps(const std::vector<double>& taps, int multiple) {
  std::vector<float> weights(taps.begin(), taps.end());
  weights.resize(static_cast<std::size_t>(padded_tap_count(static_cast<int>(taps.size()) / 2, multiple)), 0.0f);
  return weights;
}

// The weights of both passes for `params`, each padded to a multiple of `multiple`: the Gaussian's
// once (both passes read the same), a custom separable kernel's row taps then its column taps
// (kernel_taps; none for a signal). The final pass divides by `divisor` (a normalised kernel).
struct PassWeights {
  std::vector<float> weights;
  int row_radius = 0, row_taps = 0;        // row_taps: padded
  int column_radius = 0, column_taps = 0;  // the column pass's weights start at weights[column_offset]
  int column_offset = 0;
  float divisor = 1.0f;
};
inline PassWeights pass_weights(const FilterParams& params, int multiple) {
  PassWeights w;
  if (!params.custom_kernel()) {
    w.weights = padded_weights(params.sigma, params.radius(), multiple);
    w.row_radius = w.column_radius = params.radius();
    w.row_taps = w.column_taps = static_cast<int>(w.weights.size());
    return w;
  }
  const KernelTaps taps = kernel_taps(params);
  if (!taps.separable) throw std::invalid_argument("a separable method was given a 2D matrix of rank above 1");
  w.weights = padded_taps(taps.row, multiple);
  w.row_radius = taps.radius_x();
  w.row_taps = static_cast<int>(w.weights.size());
  w.column_offset = w.row_taps;
  if (!taps.column.empty()) {
    const std::vector<float> column = padded_taps(taps.column, multiple);
    w.weights.insert(w.weights.end(), column.begin(), column.end());
    w.column_radius = taps.radius_y();
    w.column_taps = static_cast<int>(column.size());
  }
  w.divisor = static_cast<float>(taps.divisor);
  return w;
}

// ---- the register window --------------------------------------------------------------------------

// One group of N taps of a register window (window[i] = sample(group + i) for i < 2N - 1, of which
// the first N - 1 are loaded): loads the other N, adds weights[group + dt] * window[dt + j] to acc[j]
// for dt ascending, and moves the last N - 1 samples to the front for the next group. Shared by
// accumulate_window here and separable_fused's fused_window.
template <int N, class Accum, class Weights, class Sample>
GAUSSLAB_HD void add_window_group(Accum (&acc)[N], Accum (&window)[2 * N - 1], const Weights& weights, int group,
                                  const Sample& sample) {
  GAUSSLAB_UNROLL
  for (int i = N - 1; i < 2 * N - 1; ++i) window[i] = sample(group + i);
  GAUSSLAB_UNROLL
  for (int dt = 0; dt < N; ++dt) {
    const float weight = weights[group + dt];
    GAUSSLAB_UNROLL
    for (int j = 0; j < N; ++j) acc[j] = fma4(weight, window[dt + j], acc[j]);
  }
  GAUSSLAB_UNROLL
  for (int i = 0; i < N - 1; ++i) window[i] = window[i + N];  // the next group's first N - 1
}

// acc[j] += sum_{t < taps} weights[t] * sample(t + j) for j < N, taps a multiple of N, t ascending.
// sample(i) is called once for each i in [0, taps + N - 1), in ascending order.
template <int N, class Accum, class Weights, class Sample>
GAUSSLAB_HD void accumulate_window(Accum (&acc)[N], const Weights& weights, int taps, const Sample& sample) {
  // window[i] holds sample(group + i) for i < 2N - 1 while the group's taps are added.
  Accum window[2 * N - 1];
  GAUSSLAB_UNROLL
  for (int i = 0; i < N - 1; ++i) window[i] = sample(i);
  for (int group = 0; group < taps; group += N) add_window_group(acc, window, weights, group, sample);
}

// One pass over independent lines: `lines` lines of `length` samples each, filtered along the line.
struct LinePass {
  int lines = 0;
  int length = 0;
  int radius = 0;
  int padded_taps = 0;  // padded_tap_count(radius, N of the kernel)
  BorderMode border = BorderMode::Reflect;
};

// A view of shared memory (or, in the CPU model, of a checked array): loads and stores by index.
template <class T>
struct SharedSpan {
  T* data;
  GAUSSLAB_HD T operator[](int i) const { return data[i]; }
  GAUSSLAB_HD void store(int i, T value) const { data[i] = value; }
};

// ==== separable_shared: tiles of 32 lines through shared memory ======================================
//
// A block owns 32 lines (one per lane of a warp) and a segment of kSegment = kWarps × N consecutive
// positions along them. Warp w computes positions [w N, w N + N) of the segment for all 32 lines, lane
// l for line l: the shared-memory reads of one instruction are one sample of 32 different lines, at
// addresses l × kPitch + const; with kPitch odd they fall in 32 different banks (and for float4, in 8
// different 16-byte bank groups per quarter warp).
// The taps are processed in chunks of kChunkTaps: for a chunk starting at tap t0 the tile holds, per
// line, the samples [segment_start - r + t0, + kSegment + chunk_taps - 1), so any radius up to
// kMaxRadius runs with a fixed tile (a radius of 2000 is 126 chunks of 32 taps).
// Loads are coalesced along the line (lanes take consecutive positions of one line); outputs are
// stored transposed (output position p of line l goes to row p, column l), so the 32 lanes write 32
// consecutive pixels of a row: the row pass writes a transposed intermediate whose lines are the
// image's columns, and the column pass is the same kernel again, writing the image upright.

template <int Warps, int Outputs, int ChunkTaps, int MinBlocksPerSm>
struct TilePolicy {
  static constexpr int kLines = 32;              // lines per block: one per lane
  static constexpr int kWarps = Warps;           // warps per block, side by side along the segment
  static constexpr int kThreads = 32 * Warps;
  static constexpr int kOutputs = Outputs;       // N: consecutive outputs per thread
  static constexpr int kSegment = Warps * Outputs;  // positions per line per block
  static constexpr int kChunkTaps = ChunkTaps;   // taps per shared-memory fill
  static constexpr int kMinBlocksPerSm = MinBlocksPerSm;
  static constexpr int kMaxSpan = kSegment + kChunkTaps - 1;  // samples per line per chunk
  static constexpr int kPitch = kMaxSpan | 1;    // odd: conflict-free column reads (the "+1")
  static constexpr int kLinesPerWarp = kLines / kWarps;       // lines each warp loads
  static constexpr int kSlots = (kMaxSpan + 31) / 32;         // loads per line and lane
  static_assert(kLines % kWarps == 0, "warps must divide the 32 lines of a tile");
  static_assert(kChunkTaps % kOutputs == 0, "chunks must hold whole groups of the register window");
  static_assert(kChunkTaps <= kThreads, "one thread loads each weight of a chunk");
};

// RGBA8: float4 tile of the column pass = 32 × 95 × 16 B = 47.5 KiB (under the 48 KiB static
// limit); 512 threads, at most 64 registers each for 2 blocks per SM (1024 threads). RGBA16 and
// RGBA32F compute in float4 as RGBA8 does and take its policy: their row pass's tile is 23.8 KiB
// (ushort4) and 47.5 KiB (float4), their column pass's RGBA8's.
// F32: 32 × 127 × 4 B = 15.9 KiB; 256 threads, 4 blocks per SM.
template <PixelFormat F>
struct SharedPolicyFor {
  static_assert(channel_count(F) == 4, "the RGBA policy; F32 has its own");
  using type = TilePolicy<16, 4, 32, 2>;
};
template <>
struct SharedPolicyFor<PixelFormat::F32> {
  using type = TilePolicy<8, 8, 64, 4>;
};

struct TileBlock {
  int first_line;     // the block's 32 lines start here
  int segment_start;  // and its outputs along them
};

template <class P>
GAUSSLAB_HD int segment_count(const LinePass& pass) {
  return div_up(pass.length, P::kSegment);
}

// Blocks of a pass: line groups × segments, segments fastest so that neighbours that share an apron
// run close together (the apron is then read from L2).
template <class P>
GAUSSLAB_HD long long tile_block_count(const LinePass& pass) {
  return static_cast<long long>(div_up(pass.lines, P::kLines)) * segment_count<P>(pass);
}

template <class P>
GAUSSLAB_HD TileBlock tile_block(const LinePass& pass, int block) {
  const int segments = segment_count<P>(pass);
  return {(block / segments) * P::kLines, (block % segments) * P::kSegment};
}

// Taps in the chunk that starts at tap chunk_start (a multiple of N, since both the padded tap count
// and kChunkTaps are).
template <class P>
GAUSSLAB_HD int chunk_tap_count(const LinePass& pass, int chunk_start) {
  const int left = pass.padded_taps - chunk_start;
  return left < P::kChunkTaps ? left : P::kChunkTaps;
}

// Phase 1 of a chunk (then __syncthreads): fills the tile with the chunk's samples of the block's
// lines, border-mapped, and the chunk's weights. `lines` reads the pass's input (load(line, pos))
// and the weights (weight(t)). Lines past the image are filled with zeros (computed, never stored).
template <class P, class Lines, class Tile, class Weights>
GAUSSLAB_HD void load_tile_chunk(const LinePass& pass, TileBlock block, int thread, int chunk_start,
                                 const Lines& lines, const Tile& tile, const Weights& chunk_weights) {
  using In = typename Lines::In;
  const int lane = thread % 32;
  const int warp = thread / 32;
  const int chunk_taps = chunk_tap_count<P>(pass, chunk_start);
  const int span = P::kSegment + chunk_taps - 1;
  const int first = block.segment_start - pass.radius + chunk_start;  // position of tile slot 0
  const bool inside = first >= 0 && first + span <= pass.length;     // no border mapping needed

  // All loads first, then all stores: kLinesPerWarp × kSlots global loads in flight per thread.
  In staged[P::kLinesPerWarp][P::kSlots];
  GAUSSLAB_UNROLL
  for (int l = 0; l < P::kLinesPerWarp; ++l) {
    const int line = block.first_line + warp + l * P::kWarps;
    GAUSSLAB_UNROLL
    for (int s = 0; s < P::kSlots; ++s) {
      const int i = lane + 32 * s;
      In value = zero_value<In>();
      if (line < pass.lines && i < span) {
        const int pos = first + i;
        const int source = inside ? pos : border_index(pos, pass.length, pass.border);
        if (source >= 0) value = lines.load(line, source);
      }
      staged[l][s] = value;
    }
  }
  GAUSSLAB_UNROLL
  for (int l = 0; l < P::kLinesPerWarp; ++l) {
    const int row = warp + l * P::kWarps;
    GAUSSLAB_UNROLL
    for (int s = 0; s < P::kSlots; ++s) {
      const int i = lane + 32 * s;
      if (i < span) tile.store(row * P::kPitch + i, staged[l][s]);
    }
  }
  if (thread < chunk_taps) chunk_weights.store(thread, lines.weight(chunk_start + thread));
}

// Phase 2 of a chunk (then __syncthreads before the next fill): adds the chunk's taps to the
// thread's N outputs. Output j of the thread is segment position warp × N + j of line `lane`; its tap
// t0 + k reads tile slot warp × N + j + k of that line.
template <class P, class Tile, class Weights, class Accum>
GAUSSLAB_HD void accumulate_tile_chunk(const LinePass& pass, int thread, int chunk_start, const Tile& tile,
                                       const Weights& chunk_weights, Accum (&acc)[P::kOutputs]) {
  const int lane = thread % 32;
  const int warp = thread / 32;
  const int base = lane * P::kPitch + warp * P::kOutputs;
  // Bytes through the conversion unit (I2F, exact), beside the FMA pipe: RGBA8 1.5-2.5 % faster on
  // the H100 than to_accum's OR and add (sigma 1 to 16, 4096²).
  accumulate_window<P::kOutputs>(acc, chunk_weights, chunk_tap_count<P>(pass, chunk_start),
                                 [&](int i) { return to_accum_via_i2f(tile[base + i]); });
}

// Last phase: writes the thread's outputs that lie in the image, transposed (see above).
template <class P, class Lines, class Accum>
GAUSSLAB_HD void store_tile_outputs(const LinePass& pass, TileBlock block, int thread, const Lines& lines,
                                    const Accum (&acc)[P::kOutputs]) {
  const int line = block.first_line + thread % 32;
  if (line >= pass.lines) return;
  const int first_pos = block.segment_start + (thread / 32) * P::kOutputs;
  GAUSSLAB_UNROLL
  for (int j = 0; j < P::kOutputs; ++j)
    if (first_pos + j < pass.length) lines.store(first_pos + j, line, acc[j]);
}

// The input and output of a tile pass in pitched memory: line `line` of the input is row `line`;
// output position p of line l is element l of output row p (transposed).
template <class InT, class OutT>
struct PitchedLines {
  using In = InT;
  using Out = OutT;
  using Accum = AccumOf<InT>;
  const char* in;
  std::size_t in_pitch_bytes;
  char* out;
  std::size_t out_pitch_bytes;
  const float* weights;  // padded_taps of them
  StoreRule rule{};      // the final pass's divisor and rounding (the default: the Gaussian's store)

  GAUSSLAB_HD In load(int line, int pos) const {
    return reinterpret_cast<const In*>(in + static_cast<std::size_t>(line) * in_pitch_bytes)[pos];
  }
  GAUSSLAB_HD void store(int pos, int line, Accum value) const {
    reinterpret_cast<Out*>(out + static_cast<std::size_t>(pos) * out_pitch_bytes)[line] = store_by<Out>(value, rule);
  }
  GAUSSLAB_HD float weight(int t) const { return weights[t]; }
};

// ==== separable_texture: one thread, one register window, texture fetches ===========================
//
// No tile: each thread fetches its 2r + N samples itself through the texture path, which caches
// them for the neighbouring threads. Row pass: a warp covers 32 × N consecutive pixels of one row
// (lane l: [l N, l N + N)), so one fetch instruction spans 32 × N texels (512 B = 4 cache lines for
// RGBA8 at N = 4, 1 KiB for F32 at N = 8) and the next N - 1 fetches hit the same lines. Column pass:
// a warp covers 32 consecutive columns, each thread N consecutive rows, so each fetch instruction
// reads 32 adjacent texels of one row. Both write the image upright (the intermediate is not
// transposed: a texture needs no help with the direction it is read in).

template <int LinesPerBlock, int Outputs>
struct TexturePolicy {
  static constexpr int kLanes = 32;
  static constexpr int kLinesPerBlock = LinesPerBlock;  // warps per block
  static constexpr int kThreads = 32 * LinesPerBlock;
  static constexpr int kOutputs = Outputs;  // N
};
// RGBA formats (float4 windows) N = 4, F32 N = 8.
template <PixelFormat F>
struct TexturePolicyFor {
  static_assert(channel_count(F) == 4, "the RGBA policy; F32 has its own");
  using type = TexturePolicy<8, 4>;
};
template <>
struct TexturePolicyFor<PixelFormat::F32> {
  using type = TexturePolicy<8, 8>;
};

// Where the hardware does the border itself (unnormalised coordinates allow only these two address
// modes): 'nearest' = cudaAddressModeClamp, 'constant' = cudaAddressModeBorder (border colour 0).
GAUSSLAB_HD bool hardware_border(BorderMode mode) {
  return mode == BorderMode::Nearest || mode == BorderMode::Constant;
}

// The first of a thread's N outputs: (x, y) to (x + N - 1, y) in the row pass, (x, y) to
// (x, y + N - 1) in the column pass.
struct TextureThread {
  int x;
  int y;
};
template <class P>
GAUSSLAB_HD TextureThread texture_rows_thread(int block_x, int block_y, int thread) {
  return {(block_x * 32 + thread % 32) * P::kOutputs, block_y * P::kLinesPerBlock + thread / 32};
}
template <class P>
GAUSSLAB_HD TextureThread texture_columns_thread(int block_x, int block_y, int thread) {
  return {block_x * 32 + thread % 32, (block_y * P::kLinesPerBlock + thread / 32) * P::kOutputs};
}
template <class P>
GAUSSLAB_HD dim3 texture_rows_grid(int width, int height) {
  return dim3(static_cast<unsigned>(div_up(width, 32 * P::kOutputs)),
              static_cast<unsigned>(div_up(height, P::kLinesPerBlock)));
}
template <class P>
GAUSSLAB_HD dim3 texture_columns_grid(int width, int height) {
  return dim3(static_cast<unsigned>(div_up(width, 32)),
              static_cast<unsigned>(div_up(height, P::kLinesPerBlock * P::kOutputs)));
}

// The N outputs that start at position first_output of a line of pass.length samples.
// fetch(pos) reads the texel at line position pos: inside the line for reflect, mirror and wrap
// (mapped here, exactly as border_index), raw (possibly outside) for nearest and constant, where the
// texture's address mode does the border.
template <int N, class Weights, class Fetch, class Accum>
GAUSSLAB_HD void texture_line_window(const LinePass& pass, int first_output, const Weights& weights,
                                     const Fetch& fetch, Accum (&acc)[N]) {
  const int first = first_output - pass.radius;  // position of window sample 0
  const bool map = !hardware_border(pass.border) &&
                   !(first >= 0 && first + pass.padded_taps + N - 1 <= pass.length);
  accumulate_window<N>(acc, weights, pass.padded_taps, [&](int i) {
    const int pos = first + i;
    return fetch(map ? border_index(pos, pass.length, pass.border) : pos);
  });
}

// One thread of the row pass (rows: lines = height, length = width), after the block has put the
// padded weights where `weights` reads them. fetch(x, y) returns the texel as Accum;
// store(x, y, value) writes an output.
template <class P, class Accum, class Weights, class Fetch, class Store>
GAUSSLAB_HD void texture_rows_work(const LinePass& rows, int block_x, int block_y, int thread,
                                   const Weights& weights, const Fetch& fetch, const Store& store) {
  const TextureThread me = texture_rows_thread<P>(block_x, block_y, thread);
  if (me.y >= rows.lines || me.x >= rows.length) return;
  Accum acc[P::kOutputs];
  GAUSSLAB_UNROLL
  for (int j = 0; j < P::kOutputs; ++j) acc[j] = zero_value<Accum>();
  texture_line_window<P::kOutputs>(rows, me.x, weights, [&](int x) { return fetch(x, me.y); }, acc);
  GAUSSLAB_UNROLL
  for (int j = 0; j < P::kOutputs; ++j)
    if (me.x + j < rows.length) store(me.x + j, me.y, acc[j]);
}

// One thread of the column pass (columns: lines = width, length = height).
template <class P, class Accum, class Weights, class Fetch, class Store>
GAUSSLAB_HD void texture_columns_work(const LinePass& columns, int block_x, int block_y, int thread,
                                      const Weights& weights, const Fetch& fetch, const Store& store) {
  const TextureThread me = texture_columns_thread<P>(block_x, block_y, thread);
  if (me.x >= columns.lines || me.y >= columns.length) return;
  Accum acc[P::kOutputs];
  GAUSSLAB_UNROLL
  for (int j = 0; j < P::kOutputs; ++j) acc[j] = zero_value<Accum>();
  texture_line_window<P::kOutputs>(columns, me.y, weights, [&](int y) { return fetch(me.x, y); }, acc);
  GAUSSLAB_UNROLL
  for (int j = 0; j < P::kOutputs; ++j)
    if (me.y + j < columns.length) store(me.x, me.y + j, acc[j]);
}

}  // namespace gausslab::separable
