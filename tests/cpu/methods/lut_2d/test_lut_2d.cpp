// lut_2d on the CPU: the table (one row per distinct 2D weight, (r+1)(r+2)/2 of them) holds the
// products the kernel sums; the model runs lut_2d_common.cuh's per-pixel code with the table in
// checked shared memory (kit/checked_shared.hpp: filled once by the block's threads, read after the
// barrier) and must equal a plain loop of the same sums bit for bit, and meet 0.51 levels against
// the float64 reference, at edge sizes (1×1, 2×1, 1×2, primes, past a block), every border mode,
// every radius the method accepts (0 to 8).
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "gausslab/core/accuracy.hpp"
#include "gausslab/core/gaussian_weights.hpp"
#include "gausslab/core/reference.hpp"
#include "kit/method_tests.hpp"
#include "kit/checked_shared.hpp"
#include "lut_2d_common.cuh"
#include "kit/channel_route.hpp"

namespace gausslab {
namespace {

GAUSSLAB_METHOD_TESTS("lut_2d", Lut2dModel);

using namespace lut2d;
using test::CheckedShared;

constexpr double kBoundLevels = 0.51;

LutArgs make_args(const ImageRgba8& src, ImageRgba8& dst, const FilterParams& params) {
  return {src.view(), dst.view(), params.radius(), params.border};
}

// The block's phases: the table copied into shared memory by the block's threads (strided, as the
// kernel does), a barrier, then every pixel from lut_output.
ImageRgba8 run_model(const ImageRgba8& src, const FilterParams& params) {
  ImageRgba8 dst(src.width(), src.height());
  const LutArgs args = make_args(src, dst, params);
  const std::vector<float> table = make_table(params.sigma, args.radius);
  const std::vector<int> tap_rows = make_tap_rows(args.radius);
  CheckedShared<float> shared(table.size(), "lut_2d table");
  shared.begin_fill();
  for (int t = 0; t < P::kThreads; ++t)
    for (std::size_t i = static_cast<std::size_t>(t); i < table.size(); i += P::kThreads)
      shared.access().store(static_cast<int>(i), table[i]);
  shared.begin_read();
  for (int y = 0; y < src.height(); ++y)
    for (int x = 0; x < src.width(); ++x) {
      const uchar4 out = to_rgba8(lut_output(args, shared.access(), tap_rows.data(), x, y));
      dst.at(x, y) = Rgba8{out.x, out.y, out.z, out.w};
    }
  return dst;
}

// The same sums written out: w[a]·w[b]·v rounded once, summed along each kernel row, then the rows.
ImageRgba8 plain_loop(const ImageRgba8& src, const FilterParams& params) {
  const int r = params.radius();
  const std::vector<double> w = gaussian_weights(params.sigma, r);
  ImageRgba8 dst(src.width(), src.height());
  for (int y = 0; y < src.height(); ++y)
    for (int x = 0; x < src.width(); ++x) {
      float total[4] = {0, 0, 0, 0};
      for (int dy = -r; dy <= r; ++dy) {
        const int sy = border_index(y + dy, src.height(), params.border);
        if (sy < 0) continue;
        float row[4] = {0, 0, 0, 0};
        for (int dx = -r; dx <= r; ++dx) {
          const int sx = border_index(x + dx, src.width(), params.border);
          if (sx < 0) continue;
          const Rgba8 p = src.at(sx, sy);
          const double weight = w[static_cast<std::size_t>(dy + r)] * w[static_cast<std::size_t>(dx + r)];
          const int values[4] = {p.r, p.g, p.b, p.a};
          for (int c = 0; c < 4; ++c) row[c] += static_cast<float>(weight * values[c]);
        }
        for (int c = 0; c < 4; ++c) total[c] += row[c];
      }
      dst.at(x, y) = Rgba8{to_unorm8(total[0]), to_unorm8(total[1]), to_unorm8(total[2]), to_unorm8(total[3])};
    }
  return dst;
}

FilterParams params_for(int radius, BorderMode border) {
  FilterParams params;
  params.sigma = radius > 0 ? radius / 3.0 : 0.3;
  params.fixed_radius = radius;
  params.border = border;
  return params;
}

TEST(Lut2dModel, TheTableHoldsEachDistinctWeightTimesEveryValue) {
  for (int radius = 0; radius <= P::kMaxRadius; ++radius) {
    const std::vector<float> table = make_table(radius / 3.0 + 0.1, radius);
    ASSERT_EQ(table.size(), static_cast<std::size_t>((radius + 1) * (radius + 2) / 2 * 256));
    const std::vector<int> rows = make_tap_rows(radius);
    ASSERT_EQ(rows.size(), static_cast<std::size_t>((2 * radius + 1) * (2 * radius + 1)));
    // Every row is used, by the taps whose distances form its pair, in both orders.
    EXPECT_EQ(std::set<int>(rows.begin(), rows.end()).size(), static_cast<std::size_t>(distinct_weights(radius)));
    const std::vector<double> w = gaussian_weights(radius / 3.0 + 0.1, radius);
    const int taps = 2 * radius + 1;
    for (int dy = -radius; dy <= radius; ++dy)
      for (int dx = -radius; dx <= radius; ++dx) {
        const int base = rows[static_cast<std::size_t>((dy + radius) * taps + dx + radius)];
        const double weight = w[static_cast<std::size_t>(dy + radius)] * w[static_cast<std::size_t>(dx + radius)];
        for (int v : {0, 1, 128, 255})
          ASSERT_EQ(table[static_cast<std::size_t>(base + v)], static_cast<float>(weight * v)) << dx << "," << dy;
      }
  }
  EXPECT_EQ(table_bytes(8), 45u * 256u * 4u);                          // 45 KiB: fits 48 KiB
  EXPECT_GT(table_bytes(9), P::kTableBytesLimit);                      // 55 KiB: does not
  EXPECT_LE(table_bytes(P::kMaxRadius), P::kTableBytesLimit);
}

TEST(Lut2dModel, EdgeSizesInEveryBorderModeEqualThePlainLoopAndMeetTheBound) {
  const int sizes[][2] = {{1, 1}, {2, 1}, {1, 2}, {3, 5}, {37, 11}, {33, 9}};
  for (const auto& size : sizes)
    for (const BorderMode border : kAllBorderModes)
      for (const int radius : {0, 1, 2, 3, 5, 8}) {
        const ImageRgba8 src = make_random_rgba8(size[0], size[1], static_cast<std::uint32_t>(size[0] * 7 + radius));
        const FilterParams params = params_for(radius, border);
        const std::string where = std::to_string(size[0]) + "x" + std::to_string(size[1]) + ", " + describe(params);
        const ImageRgba8 model = run_model(src, params);
        ASSERT_EQ(model.pixels(), plain_loop(src, params).pixels()) << where;
        const AccuracyStats stats = compare_with_reference(model.view(), reference_gaussian(src.view(), params), 255.0);
        EXPECT_LE(stats.max_abs_error, kBoundLevels) << where << ": " << describe(stats);
      }
}

TEST(Lut2dModel, APhotoAtEveryRadiusTheMethodAcceptsMeetsTheBound) {
  // A 70×50 RGBA crop of random data stands in for a photo's range of values; all radii 0..8.
  const ImageRgba8 src = make_random_rgba8(70, 50, 99u);
  double worst = 0;
  for (int radius = 0; radius <= P::kMaxRadius; ++radius)
    for (const BorderMode border : {BorderMode::Reflect, BorderMode::Constant}) {
      const FilterParams params = params_for(radius, border);
      const AccuracyStats stats =
          compare_with_reference(run_model(src, params).view(), reference_gaussian(src.view(), params), 255.0);
      worst = std::max(worst, stats.max_abs_error);
      EXPECT_LE(stats.max_abs_error, kBoundLevels) << describe(params);
    }
  // The table's float32 error is tiny against the final rounding: (35 units of 2^-24) · 255 levels.
  EXPECT_LT(error_units(8) * 5.96e-8 * 255, 1e-3);
  EXPECT_GT(worst, 0.49);  // the rounding itself
}

TEST(Lut2dModel, AReadOfTheTableBeforeItIsCompleteIsCaught) {
  const ImageRgba8 src = make_random_rgba8(4, 4, 1u);
  ImageRgba8 dst(4, 4);
  const FilterParams params = params_for(2, BorderMode::Reflect);
  const LutArgs args = make_args(src, dst, params);
  const std::vector<int> tap_rows = make_tap_rows(2);
  CheckedShared<float> shared(table_bytes(2) / sizeof(float), "table");
  shared.begin_fill();
  shared.access().store(0, 0.0f);  // only one entry: no barrier can make the rest appear
  shared.begin_read();
  EXPECT_THROW(lut_output(args, shared.access(), tap_rows.data(), 1, 1), test::ModelError);
}

// Grey, grey + alpha and RGB bytes as RGBA8 with the missing channels zero: the same exact sums.
TEST(Lut2dModel, OneToThreeChannelBytesWidenedToRgba8MeetTheBound) {
  const auto model = [](const ImageRgba8& src, const FilterParams& params) { return run_model(src, params); };
  EXPECT_EQ(test::expect_routed_formats_meet_their_bound("lut_2d", {0.6, 1.5}, {}, model), 3);
}

}  // namespace
}  // namespace gausslab
