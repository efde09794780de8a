#pragma once
// separable_tf32: the per-lane code of SeparableTf32Kernel (separable_tf32.cu), for the kernel and for
// the CPU model in tests/cpu/methods/separable/test_separable_tf32.cpp, which runs it lane by lane with
// each warp's mma.sync.m16n8k8 (tf32) emulated from the fragment layouts below (PTX ISA, "Matrix
// Fragments for mma.m16n8k8" with .tf32).
//
// The idea: 8 consecutive outputs of 16 lines of a 1D FIR are a matrix product D = A B with A the 16
// lines × K samples and B the K × 8 band of the weights (B[k][n] = w[k - n], the Toeplitz matrix),
// K = 8 + 2R. The weights are the same for every tile and line, so each thread builds its B
// fragments once and keeps them in registers (two per k-step, none shared between steps, so no
// register moves before an mma); the samples are the A fragments, four shared-memory loads per lane
// and block of 8 samples, each block loaded once for all the units of a warp that read it
// (walk_blocks). tf32 keeps 10 mantissa bits of a float, so every operand is split into a tf32 high
// part and a tf32 rest (weights to 2^-22, samples to 2^-20 of their size) and a k-step runs three
// products, A_big B_big + A_small B_big + A_big B_small, with fp32 accumulation: float-rounding-size
// error (the FIR class), the multiply-adds on the tensor cores. tf32 has float's exponent range, so
// no scaling is needed for any finite float image. Non-finite samples: the band's zeros times an
// infinity are NaN, so an infinite or NaN sample makes NaN in the outputs of the 8-wide units whose
// blocks read it (up to kR + 7 pixels away), where the FIR methods give ±inf or NaN within r.
//
// One block, one output tile of kTileW × kTileH at (x0, y0); raw is its window with an apron of kR
// on every side (kR = 4 kSteps - 4, the radius padded so that 8 outputs take whole k-steps; the
// weights beyond the real radius are zero), rows rounded up to a multiple of 16:
//   fill:    raw[row][col] = src[border(y0 - kR + row)][border(x0 - kR + col)] (cp.async, 16 bytes
//            where the window is inside the image and aligned), in two parts: first each warp the 16
//            rows of its own whole group, then every thread a share of the tail groups' rows.
//   rows:    groups of 16 raw rows, each kTileW / 8 = 4 units of 8 outputs, D[m][n] = h[row 16 G +
//            m][col 8 u + n]. Warp w takes group w (kWholeGroups of them), starting as soon as its
//            own copies have landed: only it reads those rows, so no block barrier waits for the
//            slowest copy of the tile. Then, after a barrier (the tail rows came from every warp), the
//            leftover groups are split into halves (units 0-1, units 2-3), one a warp, so that no
//            warp does a whole group more than another (11 groups at radius 20: 1.5 group-times, not
//            2). h is written over raw in place: a whole group's h as soon as its walk has read the
//            group's raw rows (the last mma needs every lane's loads; no other warp reads them); a
//            half's h after a barrier, as the other half, in another warp, reads the same rows. No
//            separate h array (radius 20: 52 KiB a block, not 80).
//   columns: warp w takes a strip of 16 columns and kColumnUnits units of 8 output rows down it,
//            D[m][n] = out[y0 + row0 + 8 q + n][x0 + col0 + m], from h (the same B fragments); each
//            lane stores its four outputs.
// Shared pitch kRawW + 4 words, ≡ 4 (mod 8) as kRawW is a multiple of 8: the row pass's A loads (8
// rows × 4 columns) hit 32 banks (8 distinct multiples of 4); the column pass's (4 rows × 8 columns)
// hit some banks twice, as any pitch that serves the row pass does.
#include <cstdint>
#include <cstring>

#include "gausslab/core/border.hpp"
#include "gausslab/core/host_device.hpp"
#include "gausslab/cuda/tile_grid.cuh"
#include "mma_accumulator_layout.cuh"

namespace gausslab::tf32_fir {

// ---- tf32 numbers, the same on both sides --------------------------------------------------------

// float -> tf32 (fp32 with the low 13 mantissa bits zero), round to nearest, ties away from zero:
// cvt.rna.tf32.f32. Infinities and NaN stay what they are.
GAUSSLAB_HD float tf32_round(float x) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  unsigned r;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
  return __uint_as_float(r);
#else  // the host, and devices before sm_80 (no cvt.rna.tf32; the kernels are not launched there)
  unsigned bits;
  std::memcpy(&bits, &x, sizeof bits);
  if ((bits & 0x7f800000u) != 0x7f800000u) bits = (bits + 0x1000u) & 0xffffe000u;  // on the magnitude
  float r;
  std::memcpy(&r, &bits, sizeof r);
  return r;
#endif
}

// x = big + small for the weights (once per thread): big the tf32 nearest x, small the tf32 nearest
// the rest (exact in fp32), so that big + small is x to within 2^-22 |x|.
struct Split {
  float big;
  float small;
};
GAUSSLAB_HD Split split(float x) {
  const float big = tf32_round(x);
  return {big, tf32_round(x - big)};
}

// The low 13 mantissa bits cleared: x rounded toward zero to tf32 (one LOP).
GAUSSLAB_HD float tf32_truncate(float x) {
  unsigned bits;
#if defined(__CUDA_ARCH__)
  bits = __float_as_uint(x) & 0xffffe000u;
  return __uint_as_float(bits);
#else
  std::memcpy(&bits, &x, sizeof bits);
  bits &= 0xffffe000u;
  float r;
  std::memcpy(&r, &bits, sizeof r);
  return r;
#endif
}

// The samples' split, run for every A value the passes load: big = x toward zero to tf32, small =
// the rest (exact in fp32: below 2^-10 of x) toward zero to tf32, so big + small is x to within
// 2^-20 |x|, in three instructions (two tf32_round would take about ten).
GAUSSLAB_HD Split split_sample(float x) {
  const float big = tf32_truncate(x);
  return {big, tf32_truncate(x - big)};
}

// ---- fragments of mma.m16n8k8 (tf32 A and B, fp32 C and D); g = lane / 4, t = lane % 4 --------------
//   A (16 × 8): a0 (g, t), a1 (g + 8, t), a2 (g, t + 4), a3 (g + 8, t + 4)
//   B (8 × 8):  b0 (t, g), b1 (t + 4, g)
//   C, D (16 × 8): c0 (g, 2t), c1 (g, 2t + 1), c2 (g + 8, 2t), c3 (g + 8, 2t + 1)
using mma_layout::c_coord;  // mma_accumulator_layout.cuh
using mma_layout::Coord;
GAUSSLAB_HD Coord a_coord(int lane, int i) { return {lane / 4 + 8 * (i % 2), lane % 4 + 4 * (i / 2)}; }
GAUSSLAB_HD Coord b_coord(int lane, int i) { return {lane % 4 + 4 * i, lane / 4}; }

struct FragA {
  float r[4];
};
struct FragB {
  float r[2];
};
struct FragC {
  float v[4];
};

#if defined(__CUDACC__)
__device__ __forceinline__ void mma_1688(FragC& d, const FragA& a, const FragB& b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(d.v[0]), "+f"(d.v[1]), "+f"(d.v[2]), "+f"(d.v[3])
      : "r"(__float_as_uint(a.r[0])), "r"(__float_as_uint(a.r[1])), "r"(__float_as_uint(a.r[2])),
        "r"(__float_as_uint(a.r[3])), "r"(__float_as_uint(b.r[0])), "r"(__float_as_uint(b.r[1])));
#else
  (void)d, (void)a, (void)b;
  __trap();  // never launched there: method_limits refuses devices before compute capability 8.0
#endif
}
#endif

// ---- the tile ---------------------------------------------------------------------------------------

template <int Steps, int TileW, int TileH, int Warps, int MinBlocksPerSm>
struct Policy {
  static constexpr int kSteps = Steps;              // k-steps of 8 samples per 8 outputs
  static constexpr int kR = 4 * Steps - 4;          // the padded radius: 8 + 2 kR = 8 kSteps
  static constexpr int kTileW = TileW;
  static constexpr int kTileH = TileH;
  static constexpr int kWarps = Warps;
  static constexpr int kThreads = 32 * Warps;
  static constexpr int kMinBlocksPerSm = MinBlocksPerSm;
  static constexpr int kRawW = TileW + 2 * kR;               // raw columns
  static constexpr int kRawH = (TileH + 2 * kR + 15) / 16 * 16;  // raw rows: whole groups of 16
  static constexpr int kPitch = kRawW + 4;           // ≡ 4 (mod 8): see the bank note above
  static constexpr int kRowGroups = kRawH / 16;     // row pass: groups of 16 raw rows
  static constexpr int kWholeGroups = Warps < kRowGroups ? Warps : kRowGroups;  // taken whole: group w by warp w
  static constexpr int kTailHalves = 2 * (kRowGroups - kWholeGroups);  // the rest, in halves of 2 units
  static constexpr int kRowUnits = TileW / 8;       // units of 8 outputs per group (a warp takes all)
  static constexpr int kStrips = TileW / 16;        // column pass: strips of 16 columns
  static constexpr int kColumnUnits = (TileH / 8) * kStrips / Warps;  // units of 8 rows a warp takes
  static constexpr unsigned kSharedBytes = static_cast<unsigned>(kRawH * kPitch) * 4u;
  static constexpr int kChunks = kRawW / 4;         // 16-byte copies per raw row
  static_assert(Steps >= 2, "at least 8 samples of apron");
  static_assert(TileW % 16 == 0 && TileH % 8 == 0, "whole units");
  static_assert(kRawW % 4 == 0, "whole 16-byte copies");
  static_assert(kTailHalves <= Warps && TileW == 32,
                "at most one whole group and one tail half a warp, two halves of 2 units a group");
  static_assert((TileH / 8) * kStrips % Warps == 0 && (TileH / 8) % kColumnUnits == 0,
                "each warp takes the same number of units, down one strip");
};

// One block per kTileW × kTileH tile, x fastest (so that neighbours sharing an apron run close
// together: the apron then comes from L2): TileProblem, block_count and tile_of (tile_grid.cuh).

// ---- the weights --------------------------------------------------------------------------------------

// The Toeplitz B of k-step s: B[k][n] = W[8 s + k - n], W the weights padded to radius kR (zero
// outside [0, 2 kR]): b0 = W[8 s + t - g], b1 = W[8 s + t + 4 - g], each split. weight(j) is W[j] for
// any j (zero outside).
template <int kSteps>
struct ToeplitzB {
  FragB big[kSteps];
  FragB small[kSteps];
};

template <int kSteps, class Weight>
GAUSSLAB_HD ToeplitzB<kSteps> toeplitz_b(int lane, const Weight& weight) {
  ToeplitzB<kSteps> b{};
  const int g = lane / 4, t = lane % 4;
  GAUSSLAB_UNROLL
  for (int s = 0; s < kSteps; ++s) {
    GAUSSLAB_UNROLL
    for (int i = 0; i < 2; ++i) {
      const Split w = split(weight(8 * s + t + 4 * i - g));
      b.big[s].r[i] = w.big;
      b.small[s].r[i] = w.small;
    }
  }
  return b;
}

// The A fragment of four samples, split.
struct SplitA {
  FragA big;
  FragA small;
};
GAUSSLAB_HD SplitA split_a(float a0, float a1, float a2, float a3) {
  const Split s0 = split_sample(a0), s1 = split_sample(a1), s2 = split_sample(a2), s3 = split_sample(a3);
  return {{{s0.big, s1.big, s2.big, s3.big}}, {{s0.small, s1.small, s2.small, s3.small}}};
}

// ---- phase 1: the fill ------------------------------------------------------------------------------

// fill.copy16(slot, y, x): raw[slot .. slot + 3] = src[y][x .. x + 3], all inside and 16-byte aligned;
// fill.copy(slot, y, x): raw[slot] = src[y][x], or zero when either index is -1 ('constant').
// aligned16: the source's rows start on 16-byte boundaries. Raw rows [row_begin, row_end), shared
// by `workers` threads (a multiple of 32) of which this is `worker`.
template <class P, class Fill>
GAUSSLAB_HD void fill_rows(const TileProblem& p, TileOrigin tile, int row_begin, int row_end, int worker, int workers,
                           bool aligned16, const Fill& fill) {
  const int first_x = tile.x0 - P::kR, first_y = tile.y0 - P::kR;
  if (aligned16 && first_x >= 0 && first_y >= 0 && first_x + P::kRawW <= p.width && first_y + P::kRawH <= p.height) {
    for (int i = worker; i < (row_end - row_begin) * P::kChunks; i += workers) {
      const int row = row_begin + i / P::kChunks, chunk = i % P::kChunks;
      fill.copy16(row * P::kPitch + 4 * chunk, first_y + row, first_x + 4 * chunk);
    }
    return;
  }
  // A tile within kR of an edge: rows and columns through the border, each mapped once, as
  // separable_fused's fill does (warp w of the workers takes rows w, w + warps, ...; lane l columns
  // l, l + 32, ...).
  constexpr int kSlots = (P::kRawW + 31) / 32;
  const int lane = worker % 32, warp = worker / 32, warps = workers / 32;
  int source_x[kSlots];
  GAUSSLAB_UNROLL
  for (int s = 0; s < kSlots; ++s) {
    const int col = lane + 32 * s;
    source_x[s] = col < P::kRawW ? border_index(first_x + col, p.width, p.border) : -1;
  }
  for (int row = row_begin + warp; row < row_end; row += warps) {
    const int source_y = border_index(first_y + row, p.height, p.border);
    GAUSSLAB_UNROLL
    for (int s = 0; s < kSlots; ++s) {
      const int col = lane + 32 * s;
      if (col < P::kRawW) fill.copy(row * P::kPitch + col, source_y, source_x[s]);
    }
  }
}

// Phase 1a: warp `warp`'s own whole group, rows 16 warp to 16 warp + 15, by its lanes.
template <class P, class Fill>
GAUSSLAB_HD void fill_own_group(const TileProblem& p, TileOrigin tile, int warp, int lane, bool aligned16,
                                const Fill& fill) {
  fill_rows<P>(p, tile, 16 * warp, 16 * warp + 16, lane, 32, aligned16, fill);
}

// Phase 1b: the tail groups' rows, a share for every thread of the block.
template <class P, class Fill>
GAUSSLAB_HD void fill_tail_rows(const TileProblem& p, TileOrigin tile, int thread, bool aligned16, const Fill& fill) {
  fill_rows<P>(p, tile, 16 * P::kWholeGroups, P::kRawH, thread, P::kThreads, aligned16, fill);
}

// ---- phases 2 and 3: the walks -------------------------------------------------------------------

// A warp's pass over kUnits units of 8 outputs, each 8 samples after the last: unit u reads the
// blocks of 8 samples u .. u + kSteps - 1, block b being its k-step b - u. The walk visits each block
// once and runs every unit that reads it, so a block's A fragments are loaded and split once:
// kSteps + kUnits - 1 loads and splits, not kUnits kSteps. load(b) gives block b's SplitA;
// mma(u, s, block, product) runs product 0, 1 or 2 of unit u's k-step s. A block's products go
// product by product across the units, so that consecutive mma feed different accumulators (each
// unit's own order stays step by step, product by product).
template <int kSteps, int kUnits, class Load, class Mma>
GAUSSLAB_HD void walk_blocks(const Load& load, const Mma& mma) {
  GAUSSLAB_UNROLL
  for (int b = 0; b < kSteps + kUnits - 1; ++b) {
    const auto block = load(b);
    GAUSSLAB_UNROLL
    for (int product = 0; product < 3; ++product) {
      GAUSSLAB_UNROLL
      for (int u = 0; u < kUnits; ++u) {
        const int s = b - u;
        if (s >= 0 && s < kSteps) mma(u, s, block, product);
      }
    }
  }
}

// Row pass, row group G (raw rows 16 G ..): element i of block b's A is raw[16 G + row][8 b + col],
// (row, col) = a_coord(lane, i). A half h of a tail group walks units 2h, 2h + 1, its blocks from 2h.
template <class P>
GAUSSLAB_HD int row_a_slot(int lane, int group, int block, int i) {
  const Coord c = a_coord(lane, i);
  return (16 * group + c.row) * P::kPitch + 8 * block + c.col;
}

// Where element i of row unit u's D goes: D[m][n] = h[16 G + m][8 u + n], h over raw. The walk has
// read all of the group's raw rows before the first of these stores.
template <class P>
GAUSSLAB_HD int row_d_slot(int lane, int group, int unit, int i) {
  const Coord c = c_coord(lane, i);
  return (16 * group + c.row) * P::kPitch + 8 * unit + c.col;
}

// Column pass: warp w takes strip w % kStrips (columns col0 ..) and kColumnUnits units of 8 output
// rows down it from row0; its unit q outputs rows row0 + 8 q ...
struct ColumnStrip {
  int row0;
  int col0;
};
template <class P>
GAUSSLAB_HD ColumnStrip column_strip(int warp) {
  return {8 * P::kColumnUnits * (warp / P::kStrips), 16 * (warp % P::kStrips)};
}

// Element i of block b's A: A[m][k] = h[row0 + 8 b + k][col0 + m], (m, k) = a_coord(lane, i).
template <class P>
GAUSSLAB_HD int column_a_slot(int lane, ColumnStrip strip, int block, int i) {
  const Coord c = a_coord(lane, i);
  return (strip.row0 + 8 * block + c.col) * P::kPitch + strip.col0 + c.row;
}

// Element i of unit q's D: output (tile row, tile column).
GAUSSLAB_HD Coord column_output(int lane, ColumnStrip strip, int unit, int i) {
  const Coord c = c_coord(lane, i);
  return {strip.row0 + 8 * unit + c.col, strip.col0 + c.row};
}

// The launch shapes: 32 × 128 outputs a tile, 8 warps, each down a quarter of a column strip in the
// column pass; 25-58 KiB of shared memory. Blocks an SM (the registers a thread get from them): four
// (64) for most; three (85, of which kSteps 7 uses 77) for kSteps 7, radius 21-24, whose 91 registers
// had left it at two (NVIDIA H200, radius 24: 0.117 -> 0.104 ms); five (51) for kSteps 3, which needs
// 48 (radius 6: 0.068 -> 0.066 ms). Five for kSteps 4 and 5 spill. A policy may have more warps than
// row groups (the others then take no group), but 16 warps at two blocks an SM took 0.110 ms at 41×41
// against 0.094 on the NVIDIA H200: two column units a warp reload more blocks of h than four.
template <int kSteps>
using PolicyFor = Policy<kSteps, 32, 128, 8, (kSteps == 7 ? 3 : (kSteps == 3 ? 5 : 4))>;
inline constexpr int kMinSteps = 2;
inline constexpr int kMaxSteps = 7;
inline constexpr int kMaxTf32Radius = 4 * kMaxSteps - 4;  // 24

// The k-steps a radius runs with: the fewest whose padded radius covers it.
GAUSSLAB_HD int steps_for_radius(int radius) {
  const int steps = (radius + 4 + 3) / 4;
  return steps < kMinSteps ? kMinSteps : steps;
}

}  // namespace gausslab::tf32_fir
