#pragma once
// multires's row reduce for RGBA8 on the tensor cores: the per-lane code of
// MultiresRowReduceMmaKernel (multires.cu), for the kernel and for the CPU model in
// tests/cpu/methods/multires/test_multires_row_mma.cpp, which runs it lane by lane with the warp's
// mma.sync.m16n8k16 emulated from the PTX fragment layouts (separable_mma_common.cuh).
//
// What it computes is the row reduce of multires_common.cuh: R[y][c] = sum_t w[t] f(y, d c + origin +
// t) for every image row y and C's columns c, with R stored as 16-bit 257 × the value. The decimating
// FIR of 16 image rows is a matrix product: A = 16 rows × 8 fine pixels × 2 channels (fp16, the
// channel pair (0, 2) or (1, 3) of each pixel side by side along k), B = the 16 × 8 block of the
// banded weight matrix for 4 coarse outputs × the same 2 channels (zero where the channels differ),
// D (fp32) = 16 rows × 4 outputs × 2 channels. 8-bit samples are exact in fp16: by default as
// subnormals (the byte as the mantissa, x × 2^-24: one byte permute, which the H100's tensor cores
// multiply exactly), or biased (1024 + x less 1024, GAUSSLAB_MULTIRES_ROW_MMA=biased). The weights
// (× 2^10, so that no tail weight is subnormal) are split into fp16 high and low halves (w = hi + lo
// to about 2^-22), and D = A B_hi + A B_lo keeps float precision: the sums are those of the CUDA-core
// kernel to within float rounding, so multires's bound is unchanged.
//
// Why: the CUDA-core row reduce issued ~97 instructions per fine pixel (a conversion per sample and
// phase chain, seven multiply-adds per channel, the fill) and took 90-110 µs at 4096²; here a pixel
// costs a shared load and two byte permutes per k-step that reads it (1.4 to 2.4 of them), the
// multiply-adds go to the tensor cores, and the kernel takes 40-48 µs (H100, DRAM at 50-57 %).
//
// Block (x, y): 16 image rows × warps × tiles_per_warp n-tiles of 4 coarse outputs. A warp's two
// tiles (up to d 16) share their A fragments where their windows overlap: the warp walks the k-steps
// of both once, tile 0's alone, then both, then tile 1's alone. The fine rows sit in shared memory as
// words (one RGBA8 pixel each), pitch ≡ 4 (mod 32) words so that the 32 lanes' loads (8 rows × 4
// columns) hit 32 banks. A thread fills a column of 4 pixels down the 16 rows (16-byte copies; a
// column outside the image is mapped through the border once). The fill starts at a multiple of 4
// pixels; phi = origin mod 4 is where the first window starts in it, the same for every block (a
// block's first output is a multiple of 8, so d × that is a multiple of 8). Tile j's window starts at
// phi + 4 d j; its k-steps at the multiple of 8 below (psi the rest). The B fragments are built per
// step from a table of the weights' fp16 halves in shared memory (one word per tap, zero-padded on
// both sides so that no lane tests a bound): two loads and four byte permutes a step, whatever d. (A
// table of whole fragments would take 512 bytes a step, 32 KB at d 25; read from global memory, its
// loads missed the L1 that the fill takes: the first version's stalls.)
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "gausslab/core/border.hpp"
#include "gausslab/core/host_device.hpp"
#include "multires_common.cuh"
#include "separable_mma_common.cuh"

namespace gausslab::multires::row_mma {

using mma_fir::a_coord;
using mma_fir::b_coord;
using mma_fir::c_coord;
using mma_fir::Coord;
using mma_fir::FragA;
using mma_fir::FragB;
using mma_fir::FragC;

inline constexpr int kRows = 16;          // image rows per block: one mma row block
inline constexpr int kTileOutputs = 4;    // coarse outputs per n-tile (N = 8: 4 outputs × 2 channels)
inline constexpr int kStepPixels = 8;     // fine pixels per k16 step (2 channels each)
inline constexpr int kMaxWarps = 8;
// Two tiles a warp up to this d; above it a warp's rows would take so much shared memory that too few
// warps fit an SM.
inline constexpr int kMaxSharedTilesD = 16;
inline constexpr int kWeightScaleLog2 = 10;
// The largest d that takes this kernel (sigma < 82.5); beyond it the CUDA-core row reduce runs.
inline constexpr int kMaxD = 32;
// Shared memory a block may take: four blocks of up to eight warps on an H100 SM.
inline constexpr unsigned kSharedBudget = 56u * 1024u;

// The CUDA-core row reduce's stage (its geometry: d, taps, origin, out_w, src_w, src_h, border; its
// out_scale, 257 for R) and this kernel's layout. (`groups` is the CUDA-core kernel's and unused here.)
struct Stage : RowReduceStage {
  int phi = 0;               // origin mod 4: where the first window starts in a block's fill
  int steps = 1;             // k-steps per n-tile
  int tiles_per_warp = 1;    // 2 up to kMaxSharedTilesD: the two tiles share their A fragments
  int warps = 2;             // warps per block (even: a block's first output is a multiple of 8)
  int span = 0;              // fine pixels a block's row holds (a multiple of 8)
  int pitch = 0;             // words per shared row, ≡ 4 (mod 32)
  int pad = 0;               // zero taps before the first weight in the table
  int table_words = 0;       // the weight table's length (a multiple of 4)
  bool aligned16 = false;    // source rows 16-byte aligned (set at launch): 16-byte copies
};

GAUSSLAB_HD int floor_mod(int a, int m) {
  const int r = a % m;
  return r < 0 ? r + m : r;
}

// Where tile j starts its k-steps in the block's row, and where its output 0's window starts after that.
struct TileStart {
  int first_pixel;  // multiple of 8
  int psi;          // 0 .. 7
};
GAUSSLAB_HD TileStart tile_start(const Stage& s, int tile) {
  const int window = s.phi + s.d * kTileOutputs * tile;
  return {window / kStepPixels * kStepPixels, window % kStepPixels};
}

GAUSSLAB_HD int span_for(const Stage& s, int warps) {
  return tile_start(s, s.tiles_per_warp * warps - 1).first_pixel + kStepPixels * s.steps;
}
GAUSSLAB_HD int pitch_for(int span) { return (span + 31) / 32 * 32 + 4; }
GAUSSLAB_HD unsigned rows_offset_bytes(const Stage& s) { return static_cast<unsigned>(s.table_words) * 4u; }
GAUSSLAB_HD unsigned shared_bytes_for(const Stage& s, int pitch) {
  return rows_offset_bytes(s) + static_cast<unsigned>(kRows * pitch) * 4u;
}
GAUSSLAB_HD unsigned shared_bytes(const Stage& s) { return shared_bytes_for(s, s.pitch); }

// The stage for one launch (without aligned16) of the row reduce `rows` describes (the CUDA-core
// kernel's stage, the one source of the geometry): as many warps as keep a block within the budget.
inline Stage make_stage(const RowReduceStage& rows) {
  const int d = rows.d, taps = rows.taps;
  if (d < 2 || d > kMaxD) throw std::logic_error("multires row_mma: d outside 2.." + std::to_string(kMaxD));
  Stage s;
  static_cast<RowReduceStage&>(s) = rows;
  s.phi = floor_mod(s.origin, 4);
  // The last output of a tile (o = 3) reads up to psi + 3 d + taps - 1 from the tile's first pixel.
  s.steps = (kStepPixels - 1 + (kTileOutputs - 1) * d + taps + kStepPixels - 1) / kStepPixels;
  // Lane taps run from 8 q + t - d o - psi >= -(3 d + 7) to 8 (steps - 1) + 7.
  s.pad = (kTileOutputs - 1) * d + kStepPixels - 1;
  s.table_words = (s.pad + kStepPixels * s.steps + 3) / 4 * 4;
  s.tiles_per_warp = d <= kMaxSharedTilesD ? 2 : 1;
  // The second tile starts at most ceil((4 d + 7) / 8) k-steps after the first: inside its walk.
  if ((kTileOutputs * d + 2 * kStepPixels - 1) / kStepPixels >= s.steps)
    throw std::logic_error("multires row_mma: a warp's second tile starts beyond its first one's k-steps");
  for (int w = kMaxWarps; w >= 2; w -= 2) {
    s.warps = w;
    if (shared_bytes_for(s, pitch_for(span_for(s, w))) <= kSharedBudget) break;
  }
  s.span = span_for(s, s.warps);
  s.pitch = pitch_for(s.span);
  return s;
}

GAUSSLAB_HD int block_outputs(const Stage& s) { return kTileOutputs * s.tiles_per_warp * s.warps; }

// A warp's walk: k-steps [0, steps) of its first tile; its second tile (if any, and if it has outputs)
// starts `shift` k-steps later, so the walk is [0, shift) first tile, [shift, steps) both, [steps,
// steps + shift) second tile.
struct WarpWalk {
  int c_first;      // the first tile's first output (C's column)
  TileStart start0, start1;
  int shift;        // k-steps from the first tile's start to the second's
  bool second;      // the second tile has outputs
};
GAUSSLAB_HD WarpWalk warp_walk(const Stage& s, int block_x, int warp) {
  WarpWalk w{};
  const int first_tile = s.tiles_per_warp * warp;
  w.c_first = block_x * block_outputs(s) + first_tile * kTileOutputs;
  w.start0 = tile_start(s, first_tile);
  w.start1 = tile_start(s, first_tile + 1);
  w.shift = (w.start1.first_pixel - w.start0.first_pixel) / kStepPixels;
  w.second = s.tiles_per_warp == 2 && w.c_first + kTileOutputs < s.out_w;
  return w;
}
GAUSSLAB_HD int blocks_x(const Stage& s) { return (s.out_w + block_outputs(s) - 1) / block_outputs(s); }
GAUSSLAB_HD int blocks_y(const Stage& s) { return (s.src_h + kRows - 1) / kRows; }

// The fine pixel of the image a block's fill column 0 reads (before the border): the multiple of 4 at
// or below the block's first window.
GAUSSLAB_HD int fill_origin(const Stage& s, int block_x) {
  return s.d * (block_x * block_outputs(s)) + s.origin - s.phi;
}

// ---- B fragments -------------------------------------------------------------------------------------

// The weight table (host): word pad + t = w'[t] as fp16 halves (high half in bits 0-15, low half in
// 16-31), w' = w × 2^10; zero outside the prefilter.
inline std::vector<unsigned> make_table(const Stage& s, const std::vector<double>& prefilter) {
  std::vector<unsigned> table(static_cast<std::size_t>(s.table_words), 0u);
  const double scale = static_cast<double>(1 << kWeightScaleLog2);
  for (int t = 0; t < s.taps; ++t) {
    const mma_fir::HalfPair w = mma_fir::split_half(static_cast<float>(prefilter[static_cast<std::size_t>(t)] * scale));
    table[static_cast<std::size_t>(s.pad + t)] = mma_fir::pack_halves(w.hi, w.lo);
  }
  return table;
}

// A lane's table index for step 0 of a tile: its B elements are k = 2 p + ch (p = t and t + 4) of
// column n = 2 o + ch' (o = group / 2, ch' = group % 2): w'[8 q + p - d o - psi] where ch = ch'.
GAUSSLAB_HD int lane_tap(const Stage& s, int lane, int psi) {
  const int group = lane >> 2, in_group = lane & 3;
  return s.pad + in_group - s.d * (group >> 1) - psi;
}

// Half h (0 high, 1 low) of table word `word` into the lane's channel slot of a B register (the low
// half for ch' = 0, the high half for ch' = 1; the other slot zero: B is zero across channels).
GAUSSLAB_HD unsigned b_register(int lane, unsigned word, int h) {
  const bool upper = ((lane >> 2) & 1) != 0;
#if defined(__CUDA_ARCH__)
  const unsigned selector = h == 0 ? (upper ? 0x1044u : 0x4410u) : (upper ? 0x3244u : 0x4432u);
  return __byte_perm(word, 0u, selector);
#else
  const unsigned half = h == 0 ? (word & 0xffffu) : (word >> 16);
  return upper ? half << 16 : half;
#endif
}

// The high and low B fragments of a k-step from the lane's two table words (lane_tap + 8 q and 4 more).
GAUSSLAB_HD void b_fragments(int lane, unsigned w0, unsigned w1, FragB& hi, FragB& lo) {
  hi.r[0] = b_register(lane, w0, 0);
  hi.r[1] = b_register(lane, w1, 0);
  lo.r[0] = b_register(lane, w0, 1);
  lo.r[1] = b_register(lane, w1, 1);
}

// ---- A fragments ---------------------------------------------------------------------------------------

// Channels (0, 2) and (1, 3) of an RGBA8 pixel word as two fp16 pairs, exact. Biased: 1024 + x
// (a byte permute with 0x64 bytes, then 1024 subtracted). Subnormal: the byte as the mantissa of a
// subnormal fp16, x × 2^-24 (one byte permute with zero; the tensor cores must keep subnormal inputs,
// and the result carries 2^24 in result_scale).
struct ChannelPairs {
  unsigned even, odd;
};
template <bool Subnormal>
GAUSSLAB_HD ChannelPairs channel_pairs(unsigned word) {
#if defined(__CUDA_ARCH__)
  if constexpr (Subnormal) {
    return {__byte_perm(word, 0u, 0x4240), __byte_perm(word, 0u, 0x4341)};
  } else {
    const unsigned even_biased = __byte_perm(word, 0x64646464u, 0x4240);
    const unsigned odd_biased = __byte_perm(word, 0x64646464u, 0x4341);
    const __half2 bias = __half2half2(__ushort_as_half(0x6400));
    const __half2 even = __hsub2(*reinterpret_cast<const __half2*>(&even_biased), bias);
    const __half2 odd = __hsub2(*reinterpret_cast<const __half2*>(&odd_biased), bias);
    return {*reinterpret_cast<const unsigned*>(&even), *reinterpret_cast<const unsigned*>(&odd)};
  }
#else
  const auto h = [&](int byte) {
    const unsigned x = (word >> (8 * byte)) & 0xffu;
    return Subnormal ? static_cast<unsigned short>(x) : half_bits(static_cast<float>(x));
  };
  return {mma_fir::pack_halves(h(0), h(2)), mma_fir::pack_halves(h(1), h(3))};
#endif
}
// What the sums are multiplied by to undo the samples' and the weights' scales (times 257 for R).
template <bool Subnormal>
GAUSSLAB_HD double sample_scale() {
  return Subnormal ? 16777216.0 : 1.0;
}
template <bool Subnormal>
GAUSSLAB_HD float result_scale(const Stage& s) {
  return s.out_scale * static_cast<float>(sample_scale<Subnormal>() / (1 << kWeightScaleLog2));
}

// The shared word (row, column) of A register r: rows group and group + 8, pixels t and t + 4 of the
// k-step (a_coord: register r holds k = 2 t + (r & 2 ? 8 : 0) and the next, rows + (r & 1 ? 8 : 0)).
struct WordAt {
  int row, pixel;
};
GAUSSLAB_HD WordAt a_word(int lane, int reg) {
  const Coord c = a_coord(lane, 2 * reg);
  return {c.row, c.col / 2};
}

// The two A fragments (channel pairs) of a k-step from the lane's four pixel words (a_word 0..3).
template <bool Subnormal>
GAUSSLAB_HD void a_fragments(const unsigned (&words)[4], FragA& even, FragA& odd) {
  for (int reg = 0; reg < 4; ++reg) {
    const ChannelPairs pairs = channel_pairs<Subnormal>(words[reg]);
    even.r[reg] = pairs.even;
    odd.r[reg] = pairs.odd;
  }
}

// ---- the result ------------------------------------------------------------------------------------------

// D element i of a lane: image row (of the block's 16) and output (of the tile's 4); its channel is
// 2 × (i & 1) plus 0 for the even pair's D, 1 for the odd pair's.
struct OutputAt {
  int row, output;
};
GAUSSLAB_HD OutputAt d_output(int lane, int i) {
  const Coord c = c_coord(lane, i);
  return {c.row, c.col / 2};
}

}  // namespace gausslab::multires::row_mma
