#pragma once
// separable_mma: the per-lane code of its kernel, for separable_mma.cu and for the CPU model in
// tests/cpu/test_separable_mma.cpp, which runs it lane by lane and emulates the warp's
// mma.sync.m16n8k16 from the fragment layouts below (PTX ISA, "Matrix Fragments for mma.m16n8k16
// with floating point type").
//
// The idea: a 1D FIR over 16 lines of a tile is a matrix product. With A the 16 lines × K samples
// (fp16) and B the K × 8 Toeplitz matrix of the weights (B[k][n] = w[k - n] for 0 <= k - n <= 2r),
// D = A B gives 8 consecutive outputs of each of the 16 lines, K >= 8 + 2r. 8-bit samples are exact in
// fp16; the weights are split into fp16 high and low halves (w = w_hi + w_lo to about 2^-22), and
// the row pass runs A B_hi + A B_lo with fp32 accumulation. The row pass's float results are split
// the same way (h = h_hi + h_lo) and the column pass runs h_hi B_hi + h_hi B_lo + h_lo B_hi: the
// error stays at float-rounding size (FIR class), the multiply-adds run on the tensor cores.
// Per block: a 64×64 RGBA8 output tile. 1. every channel of the tile and its apron into fp16 planes
// (rows × columns). 2. per channel: the row pass, 16 plane rows × 8 outputs per mma, into a
// transposed fp16 pair ht_hi/ht_lo (tile columns × plane rows), so that 3. the column pass reads its
// A fragments (16 tile columns × K plane rows) with the same 32-bit loads as the row pass; its D
// fragments (16 columns × 8 rows of outputs) stay in registers until all four channels are done,
// then each lane writes its pixels.
#include <cstdint>
#include <cstring>

#include "gausslab/core/border.hpp"
#include "gausslab/core/host_device.hpp"
#include "gausslab/core/pixel_format.hpp"
#include "gausslab/cuda/kernel_common.cuh"
#include "gausslab/cuda/tile_grid.cuh"
#include "mma_accumulator_layout.cuh"

#if defined(__CUDACC__)
#include <cuda_fp16.h>
#endif

namespace gausslab::mma_fir {

// ---- fp16 bits, the same on both sides: half_bits and half_value (kernel_common.cuh) ---------

GAUSSLAB_HD unsigned pack_halves(unsigned short low, unsigned short high) {
  return static_cast<unsigned>(low) | (static_cast<unsigned>(high) << 16);
}

// v = hi + lo to about 2^-22 relative: the split of the row pass's results and of the weights.
struct HalfPair {
  unsigned short hi, lo;
};
GAUSSLAB_HD HalfPair split_half(float v) {
  const unsigned short hi = half_bits(v);
  return {hi, half_bits(v - half_value(hi))};
}

// ---- fragment layouts of mma.m16n8k16 (.f16 A and B, .f32 C and D) ----------------------------------

using mma_layout::c_coord;
using mma_layout::Coord;
// A (16 × 16): elements i = 0..7, registers i / 2 (low half first).
GAUSSLAB_HD Coord a_coord(int lane, int i) {
  const int group = lane >> 2, in_group = lane & 3;
  return {group + ((i & 2) ? 8 : 0), in_group * 2 + (i & 1) + ((i & 4) ? 8 : 0)};
}
// B (16 × 8): elements i = 0..3.
GAUSSLAB_HD Coord b_coord(int lane, int i) {
  const int group = lane >> 2, in_group = lane & 3;
  return {in_group * 2 + (i & 1) + ((i & 2) ? 8 : 0), group};
}
// C and D (16 × 8): mma_layout::c_coord (mma_accumulator_layout.cuh).

struct FragA {
  unsigned r[4];
};
struct FragB {
  unsigned r[2];
};
struct FragC {
  float v[4];
};

#if defined(__CUDACC__)
// D += A B for one warp: mma.sync.m16n8k16, fp16 operands, fp32 accumulation (separable_mma and
// multires's row reduce; both refuse devices before compute capability 8.0).
__device__ __forceinline__ void mma_16816(FragC& d, const FragA& a, const FragB& b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(d.v[0]), "+f"(d.v[1]), "+f"(d.v[2]), "+f"(d.v[3])
      : "r"(a.r[0]), "r"(a.r[1]), "r"(a.r[2]), "r"(a.r[3]), "r"(b.r[0]), "r"(b.r[1]));
#else
  (void)d, (void)a, (void)b;
  __trap();  // never launched there: the launches refuse devices before compute capability 8.0
#endif
}
#endif

// ---- the tile geometry ----------------------------------------------------------------------------

// kSteps k16 steps per mma chain: K = 16 kSteps >= 8 + 2r.
template <int kSteps>
struct Policy {
  static constexpr int kThreads = 256;
  static constexpr int kWarps = 8;
  static constexpr int kTile = 64;                                   // output tile side
  static constexpr int kTileW = kTile, kTileH = kTile;               // (tile_grid.cuh)
  static constexpr int kK = 16 * kSteps;
  static constexpr int kMaxRadius = (kK - 8) / 2;                    // 4 or 12
  static constexpr int kPlaneCols = kTile - 8 + kK;                  // samples a row pass reads
  static constexpr int kHRows = kTile - 8 + kK;                      // row-pass outputs the column pass reads
  static constexpr int kPlaneRows = (kHRows + 15) / 16 * 16;         // whole 16-row blocks
  // Pitches in halves with (pitch / 2) % 32 an odd multiple of 4: the 32 lanes' 32-bit fragment loads
  // (8 rows × 4 words) fall in 32 different banks.
  static constexpr int kPlanePitch = kPlaneCols;                     // 72 or 88: 36 or 44 words
  static constexpr int kHtPitch = kPlaneRows + 8;                    // 88 (80 + 8) or 104 (96 + 8)
  static constexpr int kRowBlocks = kPlaneRows / 16;                 // row-pass mma rows
  static constexpr int kRowPassItems = kRowBlocks * (kTile / 8);
  static constexpr int kColumnPassItems = (kTile / 16) * (kTile / 8);
  static constexpr int kColumnItemsPerWarp = kColumnPassItems / kWarps;  // 4
  static constexpr unsigned kPlaneBytes = 4u * kPlaneRows * kPlanePitch * 2u;
  static constexpr unsigned kHtBytes = 2u * kTile * kHtPitch * 2u;
  static constexpr unsigned kSharedBytes = kPlaneBytes + kHtBytes;
  static_assert(kColumnPassItems % kWarps == 0, "every warp takes the same column-pass share");
  static_assert((kPlanePitch / 2) % 8 == 4 && (kHtPitch / 2) % 8 == 4, "conflict-free fragment loads");
};

// One block per kTile × kTile tile: TileProblem, block_count and tile_of (tile_grid.cuh).

// B fragments of the Toeplitz weights for step s: B[k][n] = w[16 s + k - n] within 0..2r, else 0.
// w_hi, w_lo: the 2r + 1 weights' fp16 halves.
template <class Weights>
GAUSSLAB_HD FragB toeplitz_fragment(int lane, int step, int radius, const Weights& w_halves) {
  FragB b{};
  for (int reg = 0; reg < 2; ++reg) {
    unsigned short e[2];
    for (int j = 0; j < 2; ++j) {
      const Coord c = b_coord(lane, 2 * reg + j);
      const int t = 16 * step + c.row - c.col;
      e[j] = (t >= 0 && t <= 2 * radius) ? w_halves[t] : static_cast<unsigned short>(0);
    }
    b.r[reg] = pack_halves(e[0], e[1]);
  }
  return b;
}

// ---- phase 1: the planes ------------------------------------------------------------------------------

// Thread t fills pairs of adjacent plane samples (two pixels of one row) of all four channels.
// src.load(x, y) returns the pixel (uchar4) at border-mapped (x, y), or zero for -1. plane.store(c, i,
// word) stores two halves of channel c at word i.
template <class P, class Src, class Planes>
GAUSSLAB_HD void fill_planes(const TileProblem& p, TileOrigin tile, int thread, const Src& src, const Planes& planes) {
  constexpr int kPairs = P::kPlaneCols / 2;
  const int valid_rows = P::kTile + 2 * p.radius;  // plane rows and columns beyond the apron are zero
  const int valid_cols = P::kTile + 2 * p.radius;
  for (int item = thread; item < P::kPlaneRows * kPairs; item += P::kThreads) {
    const int row = item / kPairs;
    const int col = 2 * (item % kPairs);
    unsigned short h[2][4];
    for (int j = 0; j < 2; ++j) {
      uchar4 px = make_uchar4(0, 0, 0, 0);
      if (row < valid_rows && col + j < valid_cols) {
        const int y = border_index(tile.y0 - p.radius + row, p.height, p.border);
        const int x = border_index(tile.x0 - p.radius + col + j, p.width, p.border);
        if (x >= 0 && y >= 0) px = src.load(x, y);
      }
      h[j][0] = half_bits(static_cast<float>(px.x));
      h[j][1] = half_bits(static_cast<float>(px.y));
      h[j][2] = half_bits(static_cast<float>(px.z));
      h[j][3] = half_bits(static_cast<float>(px.w));
    }
    const int word = (row * P::kPlanePitch + col) / 2;
    for (int c = 0; c < 4; ++c) planes.store(c, word, pack_halves(h[0][c], h[1][c]));
  }
}

// ---- fragments from shared memory ------------------------------------------------------------------

// The A fragment of 16 lines × 16 samples at (line0, k0) of a row-major fp16 array of `pitch`
// halves per line, read as 32-bit words. mem[word] reads one word.
template <class Mem>
GAUSSLAB_HD FragA load_a(int lane, const Mem& mem, int pitch, int line0, int k0) {
  FragA a{};
  for (int reg = 0; reg < 4; ++reg) {
    const Coord c = a_coord(lane, 2 * reg);
    a.r[reg] = mem[((line0 + c.row) * pitch + k0 + c.col) / 2];
  }
  return a;
}

// ---- phase 2: the row pass of channel c (one item = 16 plane rows × 8 outputs) -------------------

struct RowItem {
  int line0;  // first plane row
  int out0;   // first output column of the tile
};
template <class P>
GAUSSLAB_HD RowItem row_item(int item) {
  return {(item / (P::kTile / 8)) * 16, (item % (P::kTile / 8)) * 8};
}

// Its epilogue: D (16 plane rows × 8 output columns) split into ht_hi / ht_lo at [column][row].
// ht.store(hi_or_lo, index, bits).
template <class P, class Ht>
GAUSSLAB_HD void store_row_result(int lane, RowItem item, const FragC& d, const Ht& ht) {
  for (int i = 0; i < 4; ++i) {
    const Coord c = c_coord(lane, i);
    const HalfPair pair = split_half(d.v[i]);
    const int index = (item.out0 + c.col) * P::kHtPitch + item.line0 + c.row;
    ht.store(0, index, pair.hi);
    ht.store(1, index, pair.lo);
  }
}

// ---- phase 3: the column pass (one item = 16 tile columns × 8 output rows) ---------------------------

struct ColumnItem {
  int col0;  // first tile column (the mma's 16 lines)
  int row0;  // first output row (the mma's 8 outputs)
};
template <class P>
GAUSSLAB_HD ColumnItem column_item(int item) {
  return {(item % (P::kTile / 16)) * 16, (item / (P::kTile / 16)) * 8};
}

// The output pixel of D element i: (tile column, tile row).
GAUSSLAB_HD Coord output_of(int lane, ColumnItem item, int i) {
  const Coord c = c_coord(lane, i);
  return {item.row0 + c.col, item.col0 + c.row};  // {row, col}
}

}  // namespace gausslab::mma_fir
