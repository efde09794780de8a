// separable_int8 on the CPU: its per-lane code (separable_int8_common.cuh) run lane by lane, warp by
// warp, block by block, with each warp's mma.sync.m16n8k32 (u8 × u8 → s32) emulated from the PTX
// fragment layouts; shared memory checked (kit/checked_shared.hpp: a read of a word not written in
// the phase before, or a word written twice in one phase, throws). The result must meet the FIR
// bound (0.51 levels) against the float64 reference for every border, radii 0 to 40 across the three
// step counts, sizes from 1×1 to several tiles, on noise and on images of only 0 and 255 (the sums'
// extremes: an accumulator leaving int32 throws).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "gausslab/core/accuracy.hpp"
#include "gausslab/core/gaussian_weights.hpp"
#include "gausslab/core/image.hpp"
#include "gausslab/core/reference.hpp"
#include "kit/checked_shared.hpp"
#include "kit/method_tests.hpp"
#include "kit/model_accuracy.hpp"
#include "separable_int8_common.cuh"
#include "kit/channel_route.hpp"

namespace gausslab {
namespace {

using namespace int8_fir;
using test::CheckedShared;
using test::ModelError;

GAUSSLAB_METHOD_TESTS("separable_int8", SeparableInt8Model);

// D += A B for one warp, from the 32 lanes' fragments: exact integer products; a sum outside int32
// (which the hardware would wrap) throws.
void emulate_mma_u8(FragC (&d)[32], const FragA (&a)[32], const FragB (&b)[32]) {
  int A[16][32], B[32][8];
  for (int lane = 0; lane < 32; ++lane) {
    for (int i = 0; i < 16; ++i) {
      const Coord c = a_coord(lane, i);
      A[c.row][c.col] = static_cast<int>((a[lane].r[i / 4] >> (8 * (i % 4))) & 0xffu);
    }
    for (int i = 0; i < 8; ++i) {
      const Coord c = b_coord(lane, i);
      B[c.row][c.col] = static_cast<int>((b[lane].r[i / 4] >> (8 * (i % 4))) & 0xffu);
    }
  }
  for (int lane = 0; lane < 32; ++lane)
    for (int i = 0; i < 4; ++i) {
      const Coord c = c_coord(lane, i);
      long long sum = d[lane].v[i];
      for (int k = 0; k < 32; ++k) sum += static_cast<long long>(A[c.row][k]) * B[k][c.col];
      if (sum > 0x7fffffffLL || sum < -0x80000000LL) throw ModelError("an mma sum outside int32");
      d[lane].v[i] = static_cast<int>(sum);
    }
}

template <class P>
ImageRgba8 model(const ImageRgba8& src, const FilterParams& params) {
  const TileProblem p{src.width(), src.height(), params.radius(), params.border};
  if (p.radius > P::kMaxRadius) throw ModelError("radius beyond the policy");
  const std::vector<double> w = gaussian_weights(params.sigma, p.radius);
  std::vector<std::uint32_t> codes(w.size());
  for (std::size_t t = 0; t < w.size(); ++t) codes[t] = weight_code(w[t]);
  FragA weights[P::kSteps][3][32];
  for (int s = 0; s < P::kSteps; ++s)
    for (int byte = 0; byte < 3; ++byte)
      for (int lane = 0; lane < 32; ++lane) weights[s][byte][lane] = weight_fragment(lane, s, byte, P::kPad, p.radius, codes);

  ImageRgba8 out(src.width(), src.height());
  std::vector<int> written(src.pixel_count(), 0);
  CheckedShared<unsigned> raw(P::kRawBytes / 4, "raw");
  CheckedShared<unsigned> h(P::kHBytes / 4, "h");
  auto pixel_word = [&](int x, int y) {
    const Rgba8 v = src.at(x, y);
    return static_cast<unsigned>(v.r) | (static_cast<unsigned>(v.g) << 8) | (static_cast<unsigned>(v.b) << 16) |
           (static_cast<unsigned>(v.a) << 24);
  };
  struct Fill {
    CheckedShared<unsigned>::Access raw;
    decltype(pixel_word)& word;
    void copy16(int slot, int y, int x) const {
      for (int j = 0; j < 4; ++j) raw.store(slot + j, word(x + j, y));
    }
    void copy(int slot, int y, int x) const { raw.store(slot, (y < 0 || x < 0) ? 0u : word(x, y)); }
  };
  struct Raw {
    CheckedShared<unsigned>::Access raw;
    Quad quad(int word) const {
      if (word % 4 != 0) throw ModelError("a 16-byte load off its alignment");
      return {{raw[word], raw[word + 1], raw[word + 2], raw[word + 3]}};
    }
  };
  struct H {
    CheckedShared<unsigned>::Access h;
    void store(int word, unsigned value) const { h.store(word, value); }
    Pair pair(int word) const {
      if (word % 2 != 0) throw ModelError("an 8-byte load off its alignment");
      return {{h[word], h[word + 1]}};
    }
  };
  const bool aligned16 = (src.width() % 4) == 0;  // as a pitch of width × 4 bytes would be
  for (long long block = 0; block < block_count<P>(p); ++block) {
    const TileOrigin tile = tile_of<P>(p, static_cast<int>(block));
    raw.begin_fill();
    for (int t = 0; t < P::kThreads; ++t) fill_raw<P>(p, tile, t, aligned16, Fill{raw.access(), pixel_word});
    raw.begin_read();
    for (int pass = 0; pass < P::kPasses; ++pass) {
      h.begin_fill();
      for (int unit = 0; unit < P::kRowUnits; ++unit) {
        const RowUnit u = row_unit<P>(pass, unit);
        FragB b[P::kSteps][4][32];
        for (int s = 0; s < P::kSteps; ++s)
          for (int lane = 0; lane < 32; ++lane) {
            FragB lane_b[4];
            row_samples<P>(lane, u, s, Raw{raw.access()}, lane_b);
            for (int c = 0; c < 4; ++c) b[s][c][lane] = lane_b[c];
          }
        for (int c = 0; c < 4; ++c) {
          FragC d[3][32];
          for (int lane = 0; lane < 32; ++lane)
            for (int byte = 0; byte < 3; ++byte) d[byte][lane] = filled(row_sum_start(byte));
          for (int s = 0; s < P::kSteps; ++s)
            for (int byte = 0; byte < 3; ++byte) emulate_mma_u8(d[byte], weights[s][byte], b[s][c]);
          for (int lane = 0; lane < 32; ++lane) {
            const FragC lane_d[3] = {d[0][lane], d[1][lane], d[2][lane]};
            store_row_result<P>(lane, u, c, lane_d, H{h.access()});
          }
        }
      }
      h.begin_read();
      for (int unit = 0; unit < P::kColumnUnits; ++unit) {
        const ColumnUnit u = column_unit<P>(pass, unit);
        unsigned words[32][4] = {};
        for (int c = 0; c < 4; ++c) {
          FragC sums[3][32];
          for (int lane = 0; lane < 32; ++lane)
            for (int sum = 0; sum < 3; ++sum) sums[sum][lane] = filled(column_sum_start(sum));
          for (int s = 0; s < P::kSteps; ++s) {
            FragB b_hi[32], b_lo[32];
            for (int lane = 0; lane < 32; ++lane) column_samples<P>(lane, u, c, s, H{h.access()}, b_hi[lane], b_lo[lane]);
            for (int i = 0; i < kColumnProducts; ++i) {
              const ColumnProduct q = column_product(i);
              emulate_mma_u8(sums[q.sum], weights[s][q.byte], q.low ? b_lo : b_hi);
            }
          }
          for (int lane = 0; lane < 32; ++lane) {
            const FragC lane_sums[3] = {sums[0][lane], sums[1][lane], sums[2][lane]};
            add_column_result(c, lane_sums, words[lane]);
          }
        }
        for (int lane = 0; lane < 32; ++lane)
          for (int i = 0; i < 4; ++i) {
            const Coord o = output_of(lane, u, i);
            const int x = tile.x0 + o.col, y = tile.y0 + o.row;
            if (x >= p.width || y >= p.height) continue;
            if (written[static_cast<std::size_t>(y) * p.width + x]++) throw ModelError("a pixel written twice");
            const unsigned v = words[lane][i];
            out.at(x, y) = Rgba8{static_cast<std::uint8_t>(v), static_cast<std::uint8_t>(v >> 8),
                                 static_cast<std::uint8_t>(v >> 16), static_cast<std::uint8_t>(v >> 24)};
          }
      }
    }
  }
  for (int n : written)
    if (n != 1) throw ModelError("a pixel never written");
  return out;
}

ImageRgba8 run_model(const ImageRgba8& src, const FilterParams& params) {
  const int radius = params.radius();
  switch (steps_for_radius(radius)) {
    case 1: return model<PolicyFor<1>::type>(src, params);
    case 2: return model<PolicyFor<2>::type>(src, params);
    case 3: return model<PolicyFor<3>::type>(src, params);
    default: throw ModelError("no policy for radius " + std::to_string(radius));
  }
}

TEST(SeparableInt8Parts, BytePermuteAndTransposeFollowTheirDefinitions) {
  EXPECT_EQ(byte_perm(0x33221100u, 0x77665544u, 0x3210u), 0x33221100u);
  EXPECT_EQ(byte_perm(0x33221100u, 0x77665544u, 0x7654u), 0x77665544u);
  EXPECT_EQ(byte_perm(0x33221100u, 0x77665544u, 0x5140u), 0x55114400u);
  const Channels ch = transpose_pixels(0x03020100u, 0x13121110u, 0x23222120u, 0x33323130u);
  for (int c = 0; c < 4; ++c)
    for (int j = 0; j < 4; ++j) EXPECT_EQ((ch.c[c] >> (8 * j)) & 0xffu, static_cast<unsigned>(16 * j + c)) << c << " " << j;
}

TEST(SeparableInt8Parts, WeightCodesAreThe24BitRoundingOfTheWeights) {
  EXPECT_EQ(weight_code(0.5), 1u << 23);
  EXPECT_EQ(weight_code(1.0), (1u << 24) - 1);  // three bytes
  EXPECT_EQ(weight_code(0.0), 0u);
  EXPECT_EQ(weight_code(1.0 / 16777216 * 2.5), 3u);
  for (double sigma : {0.5, 2.0, 6.0, 10.0}) {
    const int radius = static_cast<int>(std::ceil(4 * sigma));
    std::uint64_t sum = 0;
    for (double w : gaussian_weights(sigma, radius)) sum += weight_code(w);
    // Every sum below 2^32 needs 255 × sum(W) < 2^32 - 2^15.
    EXPECT_LT(255 * sum + (1u << 15), 1ull << 32) << sigma;
    EXPECT_NEAR(static_cast<double>(sum), 16777216.0, radius + 1.0) << sigma;
  }
}

TEST(SeparableInt8Policy, TilesFitTheirSharedMemoryAndStepsCoverTheirRadii) {
  EXPECT_EQ(PolicyFor<1>::type::kMaxRadius, 8);
  EXPECT_EQ(PolicyFor<2>::type::kMaxRadius, 24);
  EXPECT_EQ(PolicyFor<3>::type::kMaxRadius, 40);
  for (int radius = 0; radius <= 40; ++radius) {
    const int steps = steps_for_radius(radius);
    EXPECT_TRUE(steps >= 1 && steps <= 3 && 16 * steps - 8 >= radius && (steps == 1 || 16 * steps - 24 < radius)) << radius;
  }
  // Blocks an H100 SM holds (227 KiB of shared memory).
  EXPECT_LE(PolicyFor<1>::type::kSharedBytes, 227u * 1024 / 4);
  EXPECT_LE(PolicyFor<2>::type::kSharedBytes, 227u * 1024 / 2);
  EXPECT_LE(PolicyFor<3>::type::kSharedBytes, 227u * 1024 / 2);
}

TEST(SeparableInt8Model, MeetsTheFirBoundForEveryBorderRadiusAndSize) {
  const std::vector<test::FirCase> cases = {
      {1, 1, 3}, {5, 3, 8}, {70, 33, 0}, {70, 33, 4}, {130, 67, 8}, {64, 64, 2}, {97, 129, 9},
      {33, 70, 16}, {67, 45, 24}, {45, 67, 25}, {40, 70, 40}, {3, 90, 33}};
  test::expect_fir_cases_within<Rgba8>(cases, 23, 0.51, [](const auto& src, const FilterParams& params) {
    return run_model(src, params);
  });
}

TEST(SeparableInt8Model, ExtremeImagesStayWithinTheBoundAndInt32) {
  for (int radius : {1, 8, 24, 40}) {
    // A checkerboard of 0 and 255 blocks, and a flat 255 image (every sum at its largest).
    ImageRgba8 board(100, 90), flat(70, 70);
    for (int y = 0; y < board.height(); ++y)
      for (int x = 0; x < board.width(); ++x) {
        const std::uint8_t v = ((x / 3 + y / 5) % 2) ? 255 : 0;
        board.at(x, y) = Rgba8{v, static_cast<std::uint8_t>(255 - v), v, 255};
      }
    for (int y = 0; y < flat.height(); ++y)
      for (int x = 0; x < flat.width(); ++x) flat.at(x, y) = Rgba8{255, 255, 255, 255};
    FilterParams params;
    params.fixed_radius = radius;
    params.sigma = radius / 4.0;
    SCOPED_TRACE("radius " + std::to_string(radius));
    const ImageRgba8 got_board = run_model(board, params);
    EXPECT_LE(compare_with_reference(got_board.view(), reference_gaussian(board.view(), params), 255).max_abs_error, 0.51);
    const ImageRgba8 got_flat = run_model(flat, params);
    for (int y = 0; y < flat.height(); ++y)
      for (int x = 0; x < flat.width(); ++x) ASSERT_EQ(got_flat.at(x, y).r, 255) << x << "," << y;
  }
}

// Grey, grey + alpha and RGB bytes as RGBA8 with the missing channels zero: the same exact sums.
TEST(SeparableInt8Model, OneToThreeChannelBytesWidenedToRgba8MeetTheBound) {
  const auto model = [](const ImageRgba8& src, const FilterParams& params) { return run_model(src, params); };
  EXPECT_EQ(test::expect_routed_formats_meet_their_bound("separable_int8", {0.6, 2.5}, {}, model), 3);
}

}  // namespace
}  // namespace gausslab
