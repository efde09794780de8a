// multires's row reduce on the tensor cores (multires_row_mma.cuh) on the CPU: its lane code run lane
// by lane, warp by warp, block by block, with each warp's mma.sync emulated from the PTX fragment
// layouts (kit/mma_emulation.hpp). The fill is the kernel's (columns through the border, rows below
// the image zero); a lane reading a pixel beyond the fill or a word outside the weight table, or an R
// value written twice, outside C's columns or never, throws. Every R value (257 × the row sum, before
// its 16-bit rounding) must equal the float64 sum with the table's weights to within float rounding,
// and those weights must be the prefilter's to 2^-20 (2^-35 absolute in the tails): for all five
// borders, odd and even decimations from 2 to row_mma::kMaxD, and sizes from 1×1 to several blocks.
// The GPU tests run the kernel itself against the reference through the whole pipeline.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "gausslab/core/image.hpp"
#include "kit/checked_shared.hpp"
#include "kit/mma_emulation.hpp"
#include "kit/model_images.hpp"
#include "multires_plan.hpp"
#include "multires_row_mma.cuh"

namespace gausslab {
namespace {

using namespace multires;
using namespace multires::row_mma;
using test::emulate_mma;
using test::ModelError;

unsigned pixel_word(const Rgba8& p) {
  return static_cast<unsigned>(p.r) | static_cast<unsigned>(p.g) << 8 | static_cast<unsigned>(p.b) << 16 |
         static_cast<unsigned>(p.a) << 24;
}

// R as the kernel leaves it before rounding: [y][c][channel], 257 × the value.
struct RowSums {
  int width = 0, height = 0;
  std::vector<double> values;
  double at(int c, int y, int channel) const {
    return values[(static_cast<std::size_t>(y) * width + c) * 4 + static_cast<std::size_t>(channel)];
  }
};

template <bool Subnormal>
RowSums run_model(const ImageRgba8& src, const Stage& s, const std::vector<unsigned>& table) {
  RowSums out{s.out_w, s.src_h, std::vector<double>(static_cast<std::size_t>(s.out_w) * s.src_h * 4, 0.0)};
  std::vector<int> written(static_cast<std::size_t>(s.out_w) * s.src_h, 0);
  if (static_cast<int>(table.size()) != s.table_words) throw ModelError("a weight table of the wrong length");
  const auto weight = [&](int i) {
    if (i < 0 || i >= s.table_words)
      throw ModelError("a lane reads weight word " + std::to_string(i) + " outside the table");
    return table[static_cast<std::size_t>(i)];
  };
  for (int by = 0; by < blocks_y(s); ++by)
    for (int bx = 0; bx < blocks_x(s); ++bx) {
      const int fill_x = fill_origin(s, bx);
      if (fill_x % 4 != 0) throw ModelError("a fill that does not start at a multiple of 4 pixels");
      std::vector<unsigned> rows(static_cast<std::size_t>(kRows * s.pitch), 0u);
      for (int row = 0; row < kRows; ++row)
        for (int col = 0; col < s.span; ++col) {
          const int y = by * kRows + row;
          if (y >= s.src_h) continue;
          const int x = border_index(fill_x + col, s.src_w, s.border);
          rows[static_cast<std::size_t>(row * s.pitch + col)] = x < 0 ? 0u : pixel_word(src.at(x, y));
        }
      const auto word = [&](int row, int pixel) {
        if (row < 0 || row >= kRows || pixel < 0 || pixel >= s.span)
          throw ModelError("a lane reads (" + std::to_string(row) + ", " + std::to_string(pixel) +
                           ") outside the block's fill of " + std::to_string(s.span) + " pixels");
        return rows[static_cast<std::size_t>(row * s.pitch + pixel)];
      };
      for (int warp = 0; warp < s.warps; ++warp) {
        const WarpWalk walk = warp_walk(s, bx, warp);
        if (walk.c_first >= s.out_w) continue;
        FragC acc[2][2][32] = {};  // [tile][even, odd][lane]
        const auto mma_tile = [&](int tile, const FragA (&even)[32], const FragA (&odd)[32], int tap_step,
                                  const TileStart& start) {
          FragB hi[32], lo[32];
          for (int lane = 0; lane < 32; ++lane) {
            const int tap = lane_tap(s, lane, start.psi) + kStepPixels * tap_step;
            b_fragments(lane, weight(tap), weight(tap + kStepPixels / 2), hi[lane], lo[lane]);
          }
          emulate_mma(acc[tile][0], even, hi);
          emulate_mma(acc[tile][1], odd, hi);
          emulate_mma(acc[tile][0], even, lo);
          emulate_mma(acc[tile][1], odd, lo);
        };
        const int last = walk.second ? s.steps + walk.shift : s.steps;
        for (int q = 0; q < last; ++q) {
          FragA even[32], odd[32];
          for (int lane = 0; lane < 32; ++lane) {
            unsigned words[4];
            for (int reg = 0; reg < 4; ++reg) {
              const WordAt at = a_word(lane, reg);
              words[reg] = word(at.row, walk.start0.first_pixel + at.pixel + kStepPixels * q);
            }
            a_fragments<Subnormal>(words, even[lane], odd[lane]);
          }
          if (q < s.steps) mma_tile(0, even, odd, q, walk.start0);
          if (walk.second && q >= walk.shift) mma_tile(1, even, odd, q - walk.shift, walk.start1);
        }
        for (int tile = 0; tile < (walk.second ? 2 : 1); ++tile)
          for (int lane = 0; lane < 32; ++lane)
            for (int half = 0; half < 2; ++half) {
              const OutputAt at = d_output(lane, 2 * half);
              const int c = walk.c_first + tile * kTileOutputs + at.output, y = by * kRows + at.row;
              if (c >= s.out_w || y >= s.src_h) continue;
              if (written[static_cast<std::size_t>(y) * s.out_w + c]++)
                throw ModelError("R(" + std::to_string(c) + ", " + std::to_string(y) + ") written twice");
              const int i = 2 * half;
              const FragC& even = acc[tile][0][lane];
              const FragC& odd = acc[tile][1][lane];
              const double channel[4] = {even.v[i], odd.v[i], even.v[i + 1], odd.v[i + 1]};
              for (int ch = 0; ch < 4; ++ch)
                out.values[(static_cast<std::size_t>(y) * s.out_w + c) * 4 + static_cast<std::size_t>(ch)] =
                    static_cast<double>(result_scale<Subnormal>(s)) * channel[ch];
            }
      }
    }
  for (int n : written)
    if (n != 1) throw ModelError("an R value never written");
  return out;
}

// The weights the table carries (w × 2^10 as fp16 high and low halves), back in the prefilter's units.
std::vector<double> table_weights(const Stage& s, const std::vector<unsigned>& table) {
  std::vector<double> w;
  for (int t = 0; t < s.taps; ++t) {
    const unsigned word = table.at(static_cast<std::size_t>(s.pad + t));
    const double hi = half_value(static_cast<unsigned short>(word & 0xffffu));
    const double lo = half_value(static_cast<unsigned short>(word >> 16));
    w.push_back((hi + lo) / static_cast<double>(1 << kWeightScaleLog2));
  }
  return w;
}

// The row reduce's stage as multires builds it for an image of width × height.
Stage stage_for(const Plan& p, int width, int height, BorderMode border) {
  RowReduceStage rows;
  rows.d = p.d;
  rows.taps = static_cast<int>(p.prefilter.size());
  rows.origin = p.x.fine_origin;
  rows.out_w = p.x.c_count;
  rows.src_w = width;
  rows.src_h = height;
  rows.border = border;
  rows.out_scale = static_cast<float>(kCoarseScaleRgba8);
  return make_stage(rows);
}

struct Case {
  double sigma;
  int width, height;
};

template <bool Subnormal>
void check_case(const Case& k, BorderMode border, std::uint32_t seed) {
  SCOPED_TRACE("sigma " + std::to_string(k.sigma) + ", " + std::to_string(k.width) + "×" + std::to_string(k.height) +
               ", " + to_string(border));
  const Plan p = make_plan(k.sigma, k.width, k.height);
  const int taps = static_cast<int>(p.prefilter.size());
  const Stage s = stage_for(p, k.width, k.height, border);
  ASSERT_LE(shared_bytes(s), kSharedBudget);
  ASSERT_EQ(s.pitch % 32, 4);
  const ImageRgba8 src = test::random_image<Rgba8>(k.width, k.height, seed);
  const std::vector<unsigned> table = make_table(s, p.prefilter);
  const RowSums model = run_model<Subnormal>(src, s, table);
  const std::vector<double> w = table_weights(s, table);
  // To 2^-20 relative, or to half the spacing of the low half's subnormals (2^-25 / 2^10) in the tails.
  for (std::size_t t = 0; t < w.size(); ++t)
    ASSERT_NEAR(w[t], p.prefilter[t], p.prefilter[t] * 0x1p-20 + 0x1p-35) << "tap " << t;
  // Float rounding: each mma's sum (at most 255 × 2^10 × the weights' sum) rounded twice per k-step,
  // then scaled by 257 / 2^10.
  const double tolerance = 2.0 * s.steps * 255.0 * 0x1p-24 * kCoarseScaleRgba8 + 1e-9;
  double worst = 0;
  for (int y = 0; y < k.height; ++y)
    for (int c = 0; c < s.out_w; ++c)
      for (int ch = 0; ch < 4; ++ch) {
        double sum = 0;
        for (int t = 0; t < taps; ++t) {
          const int x = border_index(s.d * c + s.origin + t, k.width, border);
          if (x < 0) continue;
          const Rgba8 px = src.at(x, y);
          const int v[4] = {px.r, px.g, px.b, px.a};
          sum += w[static_cast<std::size_t>(t)] * v[ch];
        }
        worst = std::max(worst, std::abs(model.at(c, y, ch) - kCoarseScaleRgba8 * sum));
      }
  EXPECT_LE(worst, tolerance);
}

constexpr BorderMode kBorders[] = {BorderMode::Reflect, BorderMode::Mirror, BorderMode::Nearest, BorderMode::Wrap,
                                   BorderMode::Constant};

TEST(MultiresRowMma, EqualsTheFloat64RowSumsForEveryBorderDecimationAndSize) {
  // d = floor(sigma / 2.5), at least 2: 2, 3, 4 (the smallest the method sends here), 5, 6, 7, 12, 16
  // and 17 (the last with two tiles a warp and the first with one), 25, 32.
  const Case cases[] = {{4.0, 1, 1},     {4.0, 37, 19},   {8.0, 5, 3},     {11.0, 95, 21},  {13.0, 203, 17},
                        {16.0, 300, 33}, {17.5, 129, 16}, {30.0, 64, 2},   {41.0, 300, 17}, {43.0, 260, 9},
                        {64.0, 777, 18}, {80.0, 1023, 5}, {12.6, 2, 40}};
  std::uint32_t seed = 1;
  for (const Case& k : cases)
    for (BorderMode border : kBorders) {
      check_case<false>(k, border, seed);
      check_case<true>(k, border, seed++);
    }
}

TEST(MultiresRowMma, EveryDecimationFitsItsBudgetsUpToTheLimit) {
  for (int d = 2; d <= kMaxD; ++d) {
    const Plan p = make_plan(2.5 * d + 0.01, 4096, 4096);
    ASSERT_EQ(p.d, d);
    const Stage s = stage_for(p, 4096, 4096, BorderMode::Reflect);
    SCOPED_TRACE("d " + std::to_string(d));
    EXPECT_LE(shared_bytes(s), kSharedBudget);
    EXPECT_GE(s.warps, 2);
    EXPECT_EQ(s.tiles_per_warp, d <= kMaxSharedTilesD ? 2 : 1);
    EXPECT_EQ(s.warps % 2, 0);
    // The table fits the weights buffer multires reserves beside the 2048 other weights.
    EXPECT_LE(s.table_words, 512);
  }
  RowReduceStage too_coarse;
  too_coarse.d = kMaxD + 1;
  too_coarse.taps = 300;
  EXPECT_THROW(make_stage(too_coarse), std::logic_error);
}

TEST(MultiresRowMma, ChannelPairsAreTheBytesAsExactHalves) {
  const unsigned word = 0xff804001u;  // r 1, g 0x40, b 0x80, a 0xff
  const auto half = [](unsigned bits, int which) {
    const unsigned short h = static_cast<unsigned short>(which == 0 ? bits & 0xffffu : bits >> 16);
    return static_cast<double>(half_value(h));
  };
  const ChannelPairs biased = channel_pairs<false>(word);
  EXPECT_EQ(half(biased.even, 0), 1.0);
  EXPECT_EQ(half(biased.even, 1), 128.0);
  EXPECT_EQ(half(biased.odd, 0), 64.0);
  EXPECT_EQ(half(biased.odd, 1), 255.0);
  const ChannelPairs subnormal = channel_pairs<true>(word);
  EXPECT_EQ(half(subnormal.even, 0) * sample_scale<true>(), 1.0);
  EXPECT_EQ(half(subnormal.even, 1) * sample_scale<true>(), 128.0);
  EXPECT_EQ(half(subnormal.odd, 0) * sample_scale<true>(), 64.0);
  EXPECT_EQ(half(subnormal.odd, 1) * sample_scale<true>(), 255.0);
}

}  // namespace
}  // namespace gausslab
