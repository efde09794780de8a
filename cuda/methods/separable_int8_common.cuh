#pragma once
// separable_int8: the per-lane code of its kernel, for separable_int8.cu and for the CPU model in
// tests/cpu/methods/separable/test_separable_int8.cpp, which runs it lane by lane and emulates each
// warp's mma.sync.m16n8k32 (u8 operands, s32 accumulation) from the fragment layouts below (PTX ISA,
// "Matrix Fragments for mma.m16n8k32").
//
// The idea: a 1D FIR is a product with the banded Toeplitz matrix of the weights, and on 8-bit
// samples the tensor cores multiply integers exactly. The weights are integers W = round(w 2^24),
// split into three bytes (W = b2 2^16 + b1 2^8 + b0); a pass runs one u8 product per byte and adds
// the three 32-bit sums with shifts: sum(x W) exactly. Each product is A B with A the 16 × 32 block of
// the Toeplitz matrix of one weight byte (16 outputs × 32 samples, the same for every tile: built on
// the host, in registers for the whole block) and B 32 samples × 8 lines of one channel.
//   row pass:    t = sum(x W) + 2^15 (exact), h = t >> 16: the row result to 2^-9 of a level, 16 bits
//                per channel, stored as [channel][column of the pass][row] so that the column pass
//                reads 4 rows of one column with one 8-byte load;
//   column pass: h = 256 hi + lo; v = sum(hi W) + sum(lo W) / 2^8 + 2^23 from five products (lo
//                times the two high weight bytes only; the low one adds at most 2^-24 × 255 × 255 ×
//                taps, under 0.0012 levels at 81 taps), the output byte v >> 24 (rounded to nearest).
// Error against the exact Gaussian: 0.5 (the rounding) + 2^-9 (h) + the weights' quantisation
// (255 × taps × 2^-25 a pass) + the dropped byte: under 0.505 levels for every radius it runs. FIR
// class (bound 0.51).
// RGBA8 samples reach B without any conversion: a 16-byte load of 4 pixels, transposed by eight byte
// permutes into the four channels' words (4 samples of one channel each).
#include <cstdint>

#include "gausslab/core/border.hpp"
#include "gausslab/core/host_device.hpp"
#include "gausslab/cuda/kernel_common.cuh"
#include "gausslab/cuda/tile_grid.cuh"
#include "mma_accumulator_layout.cuh"

namespace gausslab::int8_fir {

// __byte_perm on both sides (selector nibbles 0-7: byte n of the 8-byte value {b:a}).
GAUSSLAB_HD unsigned byte_perm(unsigned a, unsigned b, unsigned selector) {
#if defined(__CUDA_ARCH__)
  return __byte_perm(a, b, selector);
#else
  const unsigned long long v = (static_cast<unsigned long long>(b) << 32) | a;
  unsigned r = 0;
  for (int i = 0; i < 4; ++i)
    r |= static_cast<unsigned>((v >> (8 * ((selector >> (4 * i)) & 7u))) & 0xffu) << (8 * i);
  return r;
#endif
}

// ---- fragment layouts of mma.m16n8k32 (.u8 A and B, .s32 C and D) -----------------------------------

using mma_layout::c_coord;
using mma_layout::Coord;
// A (16 × 32 bytes): element i = 0..15 is byte i % 4 of register i / 4.
GAUSSLAB_HD Coord a_coord(int lane, int i) {
  const int group = lane >> 2, in_group = lane & 3, reg = i >> 2;
  return {group + ((reg & 1) ? 8 : 0), in_group * 4 + (i & 3) + ((reg & 2) ? 16 : 0)};
}
// B (32 × 8 bytes): element i = 0..7 is byte i % 4 of register i / 4.
GAUSSLAB_HD Coord b_coord(int lane, int i) {
  const int group = lane >> 2, in_group = lane & 3;
  return {in_group * 4 + (i & 3) + ((i & 4) ? 16 : 0), group};
}
// C and D (16 × 8 int32): mma_layout::c_coord (mma_accumulator_layout.cuh).

struct FragA {
  unsigned r[4];
};
struct FragB {
  unsigned r[2];
};
struct FragC {
  int v[4];
};
GAUSSLAB_HD FragC filled(int value) { return {{value, value, value, value}}; }

#if defined(__CUDACC__)
// D += A B for one warp: mma.sync.m16n8k32, u8 operands, s32 accumulation (exact: no sum here
// leaves 2^31). Not volatile: the compiler may interleave independent products (channels, units).
__device__ __forceinline__ void mma_u8(FragC& d, const FragA& a, const FragB& b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm("mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+r"(d.v[0]), "+r"(d.v[1]), "+r"(d.v[2]), "+r"(d.v[3])
      : "r"(a.r[0]), "r"(a.r[1]), "r"(a.r[2]), "r"(a.r[3]), "r"(b.r[0]), "r"(b.r[1]));
#else
  (void)d, (void)a, (void)b;
  __trap();  // never launched there: the method refuses devices before compute capability 8.0
#endif
}
// D = A B + start (every element): the first product of a chain. C is a separate operand, so the
// compiler passes RZ or one shared register instead of four moves per accumulator.
__device__ __forceinline__ void mma_u8_first(FragC& d, const FragA& a, const FragB& b, int start) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm("mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%10, %10, %10, %10};\n"
      : "=r"(d.v[0]), "=r"(d.v[1]), "=r"(d.v[2]), "=r"(d.v[3])
      : "r"(a.r[0]), "r"(a.r[1]), "r"(a.r[2]), "r"(a.r[3]), "r"(b.r[0]), "r"(b.r[1]), "r"(start));
#else
  (void)d, (void)a, (void)b, (void)start;
  __trap();
#endif
}
#endif

// ---- the tile geometry ----------------------------------------------------------------------------

// kSteps k32 steps per product: the window of 16 outputs is 32 kSteps samples, so the radius is
// padded to kPad = 16 kSteps - 8 (8, 24, 40). Tile: TileX × TileY outputs, 256 threads. The block
// filters PassColumns of its columns at a time (a row pass into h, then the column pass from it):
// with TileX / 2, h is half as large and more blocks fit an SM. UnrollRows / UnrollColumns: a warp's
// units of a pass in one unrolled loop (their products interleave; more registers).
template <int kSteps_, int TileX = 64, int TileY = 64, int PassColumns = TileX / 2, bool UnrollRows = false,
          bool UnrollColumns = false>
struct Policy {
  static constexpr int kSteps = kSteps_;
  static constexpr bool kUnrollRows = UnrollRows;
  static constexpr bool kUnrollColumns = UnrollColumns;
  static constexpr int kPassColumns = PassColumns;
  static constexpr int kPasses = TileX / PassColumns;
  static constexpr int kThreads = 256;
  static constexpr int kWarps = 8;
  static constexpr int kTileW = TileX;
  static constexpr int kTileH = TileY;
  static constexpr int kPad = 16 * kSteps - 8;
  static constexpr int kMaxRadius = kPad;
  static constexpr int kRawCols = kTileW + 2 * kPad;  // pixels; also the pitch: ≡ 16 (mod 32)
  static constexpr int kRawRows = kTileH + 2 * kPad;  // = the row pass's lines
  // h: per channel and column of the pass, kRawRows 16-bit values at a pitch ≡ 16 (mod 64): the
  // 16 lanes of a half-warp's 8-byte loads (4 columns × 4 row quads) hit 32 different banks.
  static constexpr int kHPitch = kRawRows + ((16 - kRawRows % 64) + 64) % 64;
  static constexpr int kHColumnWords = kHPitch / 2;  // one tile column of one channel, in words
  static constexpr int kRowUnits = (kRawRows / 8) * (kPassColumns / 16);   // a pass's: 8 lines × 16 outputs
  static constexpr int kColumnUnits = (kTileH / 16) * (kPassColumns / 8);  // a pass's: 16 outputs × 8 columns
  static constexpr int kColumnUnitsPerWarp = kColumnUnits / kWarps;
  static constexpr unsigned kRawBytes = 4u * kRawRows * kRawCols;
  static constexpr unsigned kHBytes = 2u * 4u * kPassColumns * kHPitch;
  static constexpr unsigned kSharedBytes = kRawBytes + kHBytes;
  static_assert(kRawCols % 32 == 16, "16-byte sample loads of a quarter-warp (2 lines × 4) in 8 bank groups");
  static_assert(kHPitch % 64 == 16 && kHPitch >= kRawRows, "conflict-free 8-byte loads of h");
  static_assert(kRawRows % 8 == 0 && kPassColumns % 16 == 0 && kTileH % 16 == 0 && kTileW % kPassColumns == 0,
                "whole units and passes");
  static_assert(kColumnUnits % kWarps == 0, "every warp takes the same column-pass share");
};

// The policy per k-step count (chosen on the H100: docs/methods/separable_int8.md). For such
// measurements GAUSSLAB_INT8_P<n>X, _Y, _C, _R and _U (TileX, TileY, PassColumns, UnrollRows,
// UnrollColumns) override policy n.
#define GAUSSLAB_INT8_POLICY(n)                           \
  template <>                                             \
  struct PolicyFor<n> {                                   \
    using type = Policy<n, GAUSSLAB_INT8_P##n##X, GAUSSLAB_INT8_P##n##Y, GAUSSLAB_INT8_P##n##C, \
                        GAUSSLAB_INT8_P##n##R, GAUSSLAB_INT8_P##n##U>;                                 \
  };
#ifndef GAUSSLAB_INT8_P1X
#define GAUSSLAB_INT8_P1X 64
#define GAUSSLAB_INT8_P1Y 64
#define GAUSSLAB_INT8_P1C 32
#define GAUSSLAB_INT8_P1R false
#define GAUSSLAB_INT8_P1U true
#endif
#ifndef GAUSSLAB_INT8_P2X
#define GAUSSLAB_INT8_P2X 64
#define GAUSSLAB_INT8_P2Y 128
#define GAUSSLAB_INT8_P2C 16
#define GAUSSLAB_INT8_P2R true
#define GAUSSLAB_INT8_P2U true
#endif
#ifndef GAUSSLAB_INT8_P3X
#define GAUSSLAB_INT8_P3X 64
#define GAUSSLAB_INT8_P3Y 64
#define GAUSSLAB_INT8_P3C 16
#define GAUSSLAB_INT8_P3R true
#define GAUSSLAB_INT8_P3U false
#endif
template <int kSteps>
struct PolicyFor;
GAUSSLAB_INT8_POLICY(1)
GAUSSLAB_INT8_POLICY(2)
GAUSSLAB_INT8_POLICY(3)
#undef GAUSSLAB_INT8_POLICY
GAUSSLAB_HD constexpr int steps_for_radius(int radius) { return (radius + 8 + 15) / 16; }

// One block per kTileW × kTileH tile: TileProblem, block_count and tile_of (tile_grid.cuh).

// ---- the weights ------------------------------------------------------------------------------------

// W = round(w 2^24), at most 2^24 - 1 (three bytes; a lone weight of 1 loses 2^-24).
inline std::uint32_t weight_code(double w) {
  const double scaled = w * 16777216.0 + 0.5;
  const double code = scaled < 0 ? 0.0 : static_cast<double>(static_cast<std::uint64_t>(scaled));
  return code > 16777215.0 ? 16777215u : static_cast<std::uint32_t>(code);
}

// The A fragment of byte `byte` (0 low .. 2 high) of the weights' Toeplitz block for k-step s:
// A[m][k] = byte of W[t], t = 32 s + k - m - (kPad - r), zero outside 0..2r. codes: the 2r + 1 W.
// Host only: the launch uploads the table below.
template <class Codes>
FragA weight_fragment(int lane, int step, int byte, int pad, int radius, const Codes& codes) {
  FragA a{};
  for (int i = 0; i < 16; ++i) {
    const Coord c = a_coord(lane, i);
    const int t = 32 * step + c.col - c.row - (pad - radius);
    const unsigned value = (t >= 0 && t <= 2 * radius) ? (static_cast<unsigned>(codes[t]) >> (8 * byte)) & 0xffu : 0u;
    a.r[i >> 2] |= value << (8 * (i & 3));
  }
  return a;
}
// The table of every lane's fragments, [step][byte][lane][register]: what the kernel loads.
constexpr int kFragmentWords = 4;
GAUSSLAB_HD int fragment_index(int step, int byte, int lane) { return ((step * 3 + byte) * 32 + lane) * kFragmentWords; }

// ---- phase 1: the raw tile ------------------------------------------------------------------------

// raw[row][col] = src[border(y0 - kPad + row)][border(x0 - kPad + col)] (pixel words). fill.copy16(slot,
// y, x) copies 4 pixels (16 bytes) known to lie inside the image; fill.copy(slot, y, x) one pixel, or
// zero where either index is -1 ('constant' outside the image). aligned16: source rows start on
// 16-byte boundaries (then the tiles whose apron lies inside the image copy 16 bytes at a time).
template <class P, class Fill>
GAUSSLAB_HD void fill_raw(const TileProblem& p, TileOrigin tile, int thread, bool aligned16, const Fill& fill) {
  const int first_x = tile.x0 - P::kPad, first_y = tile.y0 - P::kPad;
  if (aligned16 && first_x >= 0 && first_y >= 0 && first_x + P::kRawCols <= p.width &&
      first_y + P::kRawRows <= p.height) {
    // Warp w copies rows w, w + 8, ...; lane l the quads l, l + 32, ... of each: one address a row.
    constexpr int kQuads = P::kRawCols / 4;
    const int lane = thread % 32, warp = thread / 32;
    for (int row = warp; row < P::kRawRows; row += P::kWarps)
      for (int quad = lane; quad < kQuads; quad += 32)
        fill.copy16(row * P::kRawCols + 4 * quad, first_y + row, first_x + 4 * quad);
    return;
  }
  // Near an edge: each lane maps its columns through the border once, each warp a row at a time
  // (a division and two border maps per pixel cost an edge tile three interior tiles' time).
  constexpr int kSlots = (P::kRawCols + 31) / 32;
  const int lane = thread % 32, warp = thread / 32;
  int source_x[kSlots];
  for (int s = 0; s < kSlots; ++s) {
    const int col = lane + 32 * s;
    source_x[s] = col < P::kRawCols ? border_index(first_x + col, p.width, p.border) : -1;
  }
  for (int row = warp; row < P::kRawRows; row += P::kWarps) {
    const int source_y = border_index(first_y + row, p.height, p.border);
    for (int s = 0; s < kSlots; ++s) {
      const int col = lane + 32 * s;
      if (col < P::kRawCols) fill.copy(row * P::kRawCols + col, source_y, source_x[s]);
    }
  }
}

// ---- phase 2: the row pass (unit = 8 raw rows × 16 outputs, all four channels) --------------------

struct RowUnit {
  int line0;  // first raw row
  int out0;   // first output column of the tile (raw column out0 + kPad)
  int h0;     // its column in h (out0 less the pass's first column)
};
template <class P>
GAUSSLAB_HD RowUnit row_unit(int pass, int unit) {
  const unsigned u = static_cast<unsigned>(unit);
  const int h0 = static_cast<int>(u % (P::kPassColumns / 16)) * 16;
  return {static_cast<int>(u / (P::kPassColumns / 16)) * 8, pass * P::kPassColumns + h0, h0};
}

// Four pixel words -> the four channels' words (byte j of channel word c = channel c of pixel j).
struct Channels {
  unsigned c[4];
};
GAUSSLAB_HD Channels transpose_pixels(unsigned p0, unsigned p1, unsigned p2, unsigned p3) {
  const unsigned rg01 = byte_perm(p0, p1, 0x5140), ba01 = byte_perm(p0, p1, 0x7362);
  const unsigned rg23 = byte_perm(p2, p3, 0x5140), ba23 = byte_perm(p2, p3, 0x7362);
  return {{byte_perm(rg01, rg23, 0x5410), byte_perm(rg01, rg23, 0x7632), byte_perm(ba01, ba23, 0x5410),
           byte_perm(ba01, ba23, 0x7632)}};
}

// The B fragments of k-step s for the four channels: line group + 8 lines, samples at raw columns
// out0 + 32 s + k. raw.quad(word) returns the 4 pixel words from `word` on (one 16-byte load).
struct Quad {
  unsigned w[4];
};
template <class P, class Raw>
GAUSSLAB_HD void row_samples(int lane, RowUnit u, int step, const Raw& raw, FragB (&b)[4]) {
  const int group = lane >> 2, in_group = lane & 3;
  const int word = (u.line0 + group) * P::kRawCols + u.out0 + 32 * step + 4 * in_group;
  for (int half = 0; half < 2; ++half) {
    const Quad q = raw.quad(word + 16 * half);
    const Channels ch = transpose_pixels(q.w[0], q.w[1], q.w[2], q.w[3]);
    for (int c = 0; c < 4; ++c) b[c].r[half] = ch.c[c];
  }
}

// Where the three sums of one channel start: byte 0's at 2^15 (h's rounding), the others at 0.
GAUSSLAB_HD constexpr int row_sum_start(int byte) { return byte == 0 ? 1 << 15 : 0; }

// Its epilogue for one channel: d[byte] are the three products (d[0] started at 2^15, the rounding),
// t = (d2 << 16) + (d1 << 8) + d0 modulo 2^32 (exact: t < 2^32), h = t >> 16. D's element i is output
// m = c_coord.row of line n = c_coord.col; elements 0, 1 (and 2, 3) are two adjacent lines of one
// column: one 32-bit store. h.store(word, value) at [channel][column of the pass][raw row] (16-bit
// halves).
template <class P, class H>
GAUSSLAB_HD void store_row_result(int lane, RowUnit u, int channel, const FragC (&d)[3], const H& h) {
  unsigned t[4];
  for (int i = 0; i < 4; ++i)
    t[i] = (((static_cast<unsigned>(d[2].v[i]) << 8) + static_cast<unsigned>(d[1].v[i])) << 8) +
           static_cast<unsigned>(d[0].v[i]);
  for (int pair = 0; pair < 2; ++pair) {
    const Coord c = c_coord(lane, 2 * pair);  // c.col is even: lines c.col and c.col + 1 share a word
    h.store((channel * P::kPassColumns + u.h0 + c.row) * P::kHColumnWords + (u.line0 + c.col) / 2,
            byte_perm(t[2 * pair], t[2 * pair + 1], 0x7632));
  }
}

// ---- phase 3: the column pass (unit = 16 output rows × 8 columns) -------------------------------------

struct ColumnUnit {
  int row0;  // first output row of the tile (raw row row0 + kPad)
  int col0;  // first tile column
  int h0;    // its column in h
};
template <class P>
GAUSSLAB_HD ColumnUnit column_unit(int pass, int unit) {
  const unsigned u = static_cast<unsigned>(unit);
  const int h0 = static_cast<int>(u % (P::kPassColumns / 8)) * 8;
  return {static_cast<int>(u / (P::kPassColumns / 8)) * 16, pass * P::kPassColumns + h0, h0};
}

// The hi and lo B fragments of k-step s of one channel: column h0 + n of h, raw rows row0 + 32 s + k.
// h.pair(word) returns the two words from `word` on (one 8-byte load: 4 rows' h).
struct Pair {
  unsigned w[2];
};
template <class P, class H>
GAUSSLAB_HD void column_samples(int lane, ColumnUnit u, int channel, int step, const H& h, FragB& hi, FragB& lo) {
  const int group = lane >> 2, in_group = lane & 3;
  const int base = (channel * P::kPassColumns + u.h0 + group) * P::kHColumnWords + u.row0 / 2 + 16 * step + 2 * in_group;
  for (int half = 0; half < 2; ++half) {
    const Pair q = h.pair(base + 8 * half);
    hi.r[half] = byte_perm(q.w[0], q.w[1], 0x7531);
    lo.r[half] = byte_perm(q.w[0], q.w[1], 0x6420);
  }
}

// The column pass's five products a k-step, into three sums by their scale (value 2^24 = sum(hi W)
// + sum(lo W) / 2^8 with W = b2 2^16 + b1 2^8 + b0, lo's b0 term left out):
//   sum 2 (× 2^16) += b2 hi;  sum 1 (× 2^8) += b1 hi + b2 lo;  sum 0 (× 1) += b0 hi + b1 lo.
// `first`: the product that starts its sum (at column_sum_start) in step 0.
struct ColumnProduct {
  int sum, byte;
  bool low, first;
};
// The order puts the two products of a sum apart (each waits for the one before it).
GAUSSLAB_HD constexpr ColumnProduct column_product(int i) {
  return i == 0   ? ColumnProduct{2, 2, false, true}
         : i == 1 ? ColumnProduct{1, 1, false, true}
         : i == 2 ? ColumnProduct{0, 0, false, true}
         : i == 3 ? ColumnProduct{1, 2, true, false}
                  : ColumnProduct{0, 1, true, false};
}
constexpr int kColumnProducts = 5;
// Where the three sums start: sum 0 at 2^23 (the output's rounding), the others at 0.
GAUSSLAB_HD constexpr int column_sum_start(int sum) { return sum == 0 ? 1 << 23 : 0; }

// Its epilogue for one channel: v = (s2 << 16) + (s1 << 8) + s0 (< 2^32: the output is at most 255
// and the rounding 1/2), the output byte v >> 24 into byte `channel` of the lane's pixel word out[i].
GAUSSLAB_HD void add_column_result(int channel, const FragC (&sums)[3], unsigned (&out)[4]) {
  // out's bytes stay, but byte `channel` takes v's top byte (byte 7 of {v:out}).
  const unsigned selector = (0x3210u & ~(0xfu << (4 * channel))) | (0x7u << (4 * channel));
  for (int i = 0; i < 4; ++i) {
    const unsigned v = (((static_cast<unsigned>(sums[2].v[i]) << 8) + static_cast<unsigned>(sums[1].v[i])) << 8) +
                       static_cast<unsigned>(sums[0].v[i]);
    out[i] = byte_perm(out[i], v, selector);
  }
}

// The output pixel of D element i: {tile row, tile column}.
GAUSSLAB_HD Coord output_of(int lane, ColumnUnit u, int i) {
  const Coord c = c_coord(lane, i);
  return {u.row0 + c.row, u.col0 + c.col};
}

}  // namespace gausslab::int8_fir
