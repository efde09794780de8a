// separable_tf32 on the CPU: its per-lane code (separable_tf32_common.cuh) run lane by lane, warp by
// warp, block by block, with each warp's mma.sync.m16n8k8 emulated from the PTX fragment layouts
// (kit/mma_emulation.hpp, which also refuses an operand that is not a tf32 number). The tile's shared
// memory is checked phase by phase: the fill writes each raw word once; before the row pass's first
// barrier a warp reads only words its own lanes copied (its group's rows: it waits for nothing else);
// in the row pass a word is read only while it still holds raw (before h overwrites it), h is
// written once per word, and never over a word that another warp read since the last barrier (the
// in-place overlay must not race); the column pass reads only h. The result must meet the FIR bound
// (1e-5 of the peak) against the float64 reference for every border, each kernel's radii (0 to 24),
// sizes from 1×1 to several tiles, noise at scales from 1e-20 to 1e30 and a photo's luminance.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>
#include <string>
#include <vector>

#include "gausslab/core/accuracy.hpp"
#include "gausslab/core/gaussian_weights.hpp"
#include "gausslab/core/image.hpp"
#include "gausslab/core/reference.hpp"
#include "kit/checked_shared.hpp"
#include "kit/method_tests.hpp"
#include "kit/mma_emulation.hpp"
#include "kit/model_accuracy.hpp"
#include "kit/model_images.hpp"
#include "separable_tf32_common.cuh"
#include "kit/channel_route.hpp"

namespace gausslab {
namespace {

using namespace tf32_fir;
using test::emulate_mma_tf32;
using test::ModelError;

GAUSSLAB_METHOD_TESTS("separable_tf32", SeparableTf32Model);

// The block's shared words with the rules of the kernel's three phases.
class TileMemory {
 public:
  explicit TileMemory(std::size_t n) : value_(n), filled_(n, 0), filler_(n, -1), h_writer_(n, -1), raw_reader_(n, -1) {}

  // Phase 1: `filler` is the warp whose lanes copied the word, or -1 for the block's shared part.
  void fill(int i, float v, int filler) {
    check(i);
    if (filled_[idx(i)]++) throw ModelError("raw: a word filled twice");
    filler_[idx(i)] = filler;
    value_[idx(i)] = v;
  }
  // Phase 2: raw reads and h writes by `warp`.
  float read_raw(int i, int warp) {
    check(i);
    if (!filled_[idx(i)]) throw ModelError("raw: a word read that the fill never wrote");
    if (h_writer_[idx(i)] >= 0) throw ModelError("raw: a word read after h overwrote it");
    if (!barrier_passed_ && filler_[idx(i)] != warp)
      throw ModelError("raw: a word read before the first barrier that another warp's copies filled");
    int& reader = raw_reader_[idx(i)];
    reader = reader == -1 || reader == warp ? warp : -2;
    return value_[idx(i)];
  }
  void write_h(int i, int warp, float v) {
    check(i);
    if (h_writer_[idx(i)] >= 0) throw ModelError("h: a word written twice");
    const int reader = raw_reader_[idx(i)];
    if (reader != -1 && reader != warp) throw ModelError("h: written over raw that another warp read (a race)");
    h_writer_[idx(i)] = warp;
    value_[idx(i)] = v;
  }
  // A barrier inside phase 2: the raw reads before it are done, so no write after it races them.
  // The first also makes every warp's copies visible to all.
  void barrier() {
    std::fill(raw_reader_.begin(), raw_reader_.end(), -1);
    barrier_passed_ = true;
  }
  // Phase 3.
  float read_h(int i) const {
    check(i);
    if (h_writer_[idx(i)] < 0) throw ModelError("h: the column pass read a word the row pass never wrote");
    return value_[idx(i)];
  }

 private:
  static std::size_t idx(int i) { return static_cast<std::size_t>(i); }
  void check(int i) const {
    if (i < 0 || idx(i) >= value_.size()) throw ModelError("a shared index outside the tile");
  }
  std::vector<float> value_;
  std::vector<int> filled_, filler_, h_writer_, raw_reader_;
  bool barrier_passed_ = false;
};

template <int kSteps>
ImageF32 model(const ImageF32& src, const FilterParams& params, bool aligned16) {
  using P = PolicyFor<kSteps>;
  const TileProblem p{src.width(), src.height(), params.radius(), params.border};
  const int radius = params.radius();
  if (steps_for_radius(radius) != kSteps) throw ModelError("a radius another kernel runs");
  const std::vector<float> w = gaussian_weights_f32(params.sigma, radius);
  const int shift = P::kR - radius;
  auto weight = [&](int j) {
    const int t = j - shift;
    return t >= 0 && t <= 2 * radius ? w[static_cast<std::size_t>(t)] : 0.0f;
  };
  ImageF32 out(src.width(), src.height());
  std::vector<int> written(src.pixel_count(), 0);
  for (long long block = 0; block < block_count<P>(p); ++block) {
    const TileOrigin tile = tile_of<P>(p, static_cast<int>(block));
    TileMemory mem(static_cast<std::size_t>(P::kRawH) * P::kPitch);
    struct Fill {
      TileMemory* mem;
      const ImageF32* src;
      int filler;
      void copy16(int slot, int y, int x) const {
        if (x % 4 != 0) throw ModelError("a 16-byte copy from an unaligned column");
        for (int k = 0; k < 4; ++k) mem->fill(slot + k, src->at(x + k, y), filler);
      }
      void copy(int slot, int y, int x) const { mem->fill(slot, y < 0 || x < 0 ? 0.0f : src->at(x, y), filler); }
    };
    for (int thread = 0; thread < 32 * P::kWholeGroups; ++thread)
      fill_own_group<P>(p, tile, thread / 32, thread % 32, aligned16, Fill{&mem, &src, thread / 32});
    for (int thread = 0; thread < P::kThreads; ++thread)
      fill_tail_rows<P>(p, tile, thread, aligned16, Fill{&mem, &src, -1});

    ToeplitzB<kSteps> b[32];
    for (int lane = 0; lane < 32; ++lane) b[lane] = toeplitz_b<kSteps>(lane, weight);

    // The kernel's walk with all 32 lanes at once: load gives each lane's split A fragments, mma
    // emulates one of the warp's three products into unit u's accumulators.
    using Lanes = std::array<SplitA, 32>;
    auto warp_mma = [&](FragC (*acc)[32]) {
      return [&b, acc](int u, int s, const Lanes& a, int product) {
        FragA fa[32];
        FragB fb[32];
        for (int lane = 0; lane < 32; ++lane) {
          const SplitA& mine = a[static_cast<std::size_t>(lane)];
          fa[lane] = product == 1 ? mine.small : mine.big;
          fb[lane] = product == 2 ? b[lane].small[s] : b[lane].big[s];
        }
        emulate_mma_tf32(acc[u], fa, fb);
      };
    };
    auto load_lanes = [](auto&& slot_value) {
      Lanes lanes;
      for (int lane = 0; lane < 32; ++lane)
        lanes[static_cast<std::size_t>(lane)] =
            split_a(slot_value(lane, 0), slot_value(lane, 1), slot_value(lane, 2), slot_value(lane, 3));
      return lanes;
    };

    auto row_block = [&](int group, int block, int warp) {
      return load_lanes([&](int lane, int i) { return mem.read_raw(row_a_slot<P>(lane, group, block, i), warp); });
    };
    for (int warp = 0; warp < P::kWholeGroups; ++warp) {
      const int group = warp;
      FragC acc[P::kRowUnits][32] = {};
      walk_blocks<kSteps, P::kRowUnits>([&](int block) { return row_block(group, block, warp); }, warp_mma(acc));
      for (int u = 0; u < P::kRowUnits; ++u)
        for (int lane = 0; lane < 32; ++lane)
          for (int i = 0; i < 4; ++i) mem.write_h(row_d_slot<P>(lane, group, u, i), warp, acc[u][lane].v[i]);
    }
    mem.barrier();  // the tail rows, copied by every warp, are complete
    FragC tail[P::kWarps][2][32] = {};
    for (int warp = 0; warp < P::kTailHalves; ++warp) {
      const int group = P::kWholeGroups + warp / 2, half = warp % 2;
      walk_blocks<kSteps, 2>([&](int block) { return row_block(group, 2 * half + block, warp); }, warp_mma(tail[warp]));
    }
    mem.barrier();
    for (int warp = 0; warp < P::kTailHalves; ++warp) {
      const int group = P::kWholeGroups + warp / 2, half = warp % 2;
      for (int k = 0; k < 2; ++k)
        for (int lane = 0; lane < 32; ++lane)
          for (int i = 0; i < 4; ++i)
            mem.write_h(row_d_slot<P>(lane, group, 2 * half + k, i), warp, tail[warp][k][lane].v[i]);
    }

    for (int warp = 0; warp < P::kWarps; ++warp) {
      const ColumnStrip strip = column_strip<P>(warp);
      FragC acc[P::kColumnUnits][32] = {};
      walk_blocks<kSteps, P::kColumnUnits>(
          [&](int block) {
            return load_lanes([&](int lane, int i) { return mem.read_h(column_a_slot<P>(lane, strip, block, i)); });
          },
          warp_mma(acc));
      for (int q = 0; q < P::kColumnUnits; ++q)
        for (int lane = 0; lane < 32; ++lane)
          for (int i = 0; i < 4; ++i) {
            const Coord o = column_output(lane, strip, q, i);
            const int x = tile.x0 + o.col, y = tile.y0 + o.row;
            if (x >= p.width || y >= p.height) continue;
            if (written[static_cast<std::size_t>(y) * p.width + x]++) throw ModelError("a pixel written twice");
            out.at(x, y) = acc[q][lane].v[i];
          }
    }
  }
  for (int n : written)
    if (n != 1) throw ModelError("a pixel never written");
  return out;
}

ImageF32 run_model(const ImageF32& src, const FilterParams& params, bool aligned16 = true) {
  switch (steps_for_radius(params.radius())) {
    case 2: return model<2>(src, params, aligned16);
    case 3: return model<3>(src, params, aligned16);
    case 4: return model<4>(src, params, aligned16);
    case 5: return model<5>(src, params, aligned16);
    case 6: return model<6>(src, params, aligned16);
    case 7: return model<7>(src, params, aligned16);
    default: throw ModelError("no kernel for the radius");
  }
}

TEST(SeparableTf32Numbers, Tf32RoundsToNearestTiesAwayAndSplitsWeightsTo22BitsSamplesTo20) {
  EXPECT_EQ(tf32_round(1.0f), 1.0f);
  EXPECT_EQ(tf32_round(1.0f + 1.0f / 2048), 1.0f + 1.0f / 1024);     // a tie: away from zero
  EXPECT_EQ(tf32_round(-1.0f - 1.0f / 2048), -1.0f - 1.0f / 1024);   // on the magnitude
  EXPECT_EQ(tf32_round(1.0f + 1.0f / 4096), 1.0f);                   // below the tie
  EXPECT_TRUE(std::isinf(tf32_round(INFINITY)));
  EXPECT_TRUE(std::isnan(tf32_round(NAN)));
  for (float v : {0.1234567f, 3.3e-5f, -200.77f, 1e-30f, 3.0e38f, 0.99999994f}) {
    const Split s = split(v);
    EXPECT_EQ(tf32_round(s.big), s.big);
    EXPECT_EQ(tf32_round(s.small), s.small);
    EXPECT_LE(std::fabs((static_cast<double>(s.big) + s.small) - v), std::ldexp(std::fabs(v), -21)) << v;
  }
  for (float v : {0.1234567f, 3.3e-5f, -200.77f, 1e-30f, 3.0e38f, 0.99999994f}) {
    const Split s = split_sample(v);
    EXPECT_EQ(tf32_round(s.big), s.big);
    EXPECT_EQ(tf32_round(s.small), s.small);
    EXPECT_LE(std::fabs((static_cast<double>(s.big) + s.small) - v), std::ldexp(std::fabs(v), -20)) << v;
  }
}

TEST(SeparableTf32Numbers, ToeplitzFragmentsHoldTheBandOfTheWeights) {
  // B[k][n] of step s is W[8 s + k - n], W the weights padded to kR.
  using P = PolicyFor<5>;
  const std::vector<float> w = gaussian_weights_f32(2.3, 10);
  const int shift = P::kR - 10;
  auto weight = [&](int j) {
    const int t = j - shift;
    return t >= 0 && t <= 20 ? w[static_cast<std::size_t>(t)] : 0.0f;
  };
  for (int lane = 0; lane < 32; ++lane) {
    const ToeplitzB<5> b = toeplitz_b<5>(lane, weight);
    for (int s = 0; s < 5; ++s)
      for (int i = 0; i < 2; ++i) {
        const Coord c = b_coord(lane, i);
        const double expected = weight(8 * s + c.row - c.col);
        const double got = static_cast<double>(b.big[s].r[i]) + b.small[s].r[i];
        EXPECT_NEAR(got, expected, std::ldexp(expected, -21) + 1e-30) << "lane " << lane << " step " << s << " i " << i;
      }
  }
}

TEST(SeparableTf32Numbers, EachRadiusRunsTheKernelWhosePaddedRadiusCoversIt) {
  for (int radius = 0; radius <= kMaxTf32Radius; ++radius) {
    const int steps = steps_for_radius(radius);
    EXPECT_GE(4 * steps - 4, radius);
    EXPECT_TRUE(steps == kMinSteps || 4 * (steps - 1) - 4 < radius) << radius;
    EXPECT_LE(steps, kMaxSteps);
  }
}

TEST(SeparableTf32Model, MeetsTheFirBoundForEveryBorderRadiusAndSize) {
  const std::vector<test::FirCase> cases = {
      {1, 1, 2}, {5, 3, 24}, {40, 33, 0}, {70, 150, 3}, {33, 129, 5}, {64, 64, 9}, {97, 140, 13},
      {65, 131, 20}, {31, 260, 24}};
  test::expect_fir_cases_within<float>(cases, 23, 1e-5, [](const auto& src, const FilterParams& params) {
    return run_model(src, params);
  });
}

TEST(SeparableTf32Model, MeetsItsRegisteredBoundOnAPhotoEveryBorder) {
  // Real data: the luminance of a photo crop, at each kernel's sigmas (radius 4σ: 2 to 24).
  const ImageF32 photo = to_grey_f32(test::crop(test::astronaut(), Rect{150, 40, 72, 140}));
  for (double sigma : {0.5, 1.0, 2.5, 4.0, 5.0, 6.0})
    for (BorderMode border : kAllBorderModes) {
      const FilterParams params = test::sigma_params(sigma, border);
      const AccuracyBound bound =
          test::registered_bound("separable_tf32", {photo.width(), photo.height(), PixelFormat::F32, params});
      EXPECT_LE(test::error_against_reference(photo, run_model(photo, params), params), bound.max_relative_error)
          << describe(params);
    }
}

TEST(SeparableTf32Model, TakesTheWordFillWhereTheSourceIsNotAligned) {
  FilterParams params;
  params.sigma = 5.0;
  params.fixed_radius = 20;
  const ImageF32 src = make_random_f32(200, 300, 5);
  const ImageF32 aligned = run_model(src, params, true);
  const ImageF32 words = run_model(src, params, false);
  EXPECT_EQ(aligned.pixels(), words.pixels());  // the same samples, bit for bit
}

TEST(SeparableTf32Model, KeepsFloatPrecisionOnValuesFarFromOne) {
  // tf32 has float's exponent range: no scaling, no loss for large or tiny values.
  for (float scale : {1e-20f, 3e4f, 1e30f}) {
    FilterParams params;
    params.sigma = 3.0;
    ImageF32 src = make_random_f32(70, 140, 9);
    for (int i = 0; i < 70 * 140; ++i) src.data()[i] = src.data()[i] * scale - 0.3f * scale;  // signed as well
    const ImageF32 got = run_model(src, params);
    const AccuracyStats stats =
        compare_with_reference(got.view(), reference_gaussian(src.view(), params), static_cast<double>(scale));
    EXPECT_LE(stats.max_relative_error, 1e-5) << scale;
  }
}

TEST(SeparableTf32Model, EveryOtherFloatFormatThroughFloatPlanesMeetsTheFirBound) {
  EXPECT_EQ(test::expect_routed_formats_meet_their_bound(
                "separable_tf32", {0.6, 2.5},
                [](const ImageF32& src, const FilterParams& params) { return run_model(src, params); }),
            7);
}

}  // namespace
}  // namespace gausslab
