// The viewer's slicing of slow GPU methods, without a GPU: the tile plans (equal sizes, every pixel
// written exactly once, the halos, the last tile overlapping its neighbour), the budget and the
// cost model (a fast method is never sliced, a slow one is, a method never measured is probed),
// the frames' schedule (a setting change drops the run), and the border gather's per-thread rule.
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "gausslab/cuda/border_gather.hpp"
#include "gausslab/render/slicing.hpp"
#include "comparison/slice_schedule.hpp"

namespace gausslab {
namespace {

// How often each output pixel is written by the plan's tiles.
std::vector<int> writes(const TilePlan& plan) {
  std::vector<int> count(static_cast<std::size_t>(plan.width) * plan.height, 0);
  for (const Tile& t : plan.tiles)
    for (int y = t.own_y; y < t.own_y + t.own_h; ++y)
      for (int x = t.own_x; x < t.own_x + t.own_w; ++x) ++count[static_cast<std::size_t>(y) * plan.width + x];
  return count;
}

TEST(Slicing, TilesHaveOneSizeAndWriteEveryPixelOnce) {
  for (TileSize tile : {TileSize{317, 40}, TileSize{50, 37}, TileSize{20, 24}, TileSize{400, 300}}) {
    const TilePlan plan = plan_tiles(317, 259, 12, tile);
    for (int count : writes(plan)) ASSERT_EQ(count, 1);
    for (const Tile& t : plan.tiles) {
      // The core lies inside the image, the owned part inside the core.
      EXPECT_GE(t.x, 0);
      EXPECT_GE(t.y, 0);
      EXPECT_LE(t.x + plan.tile.width, plan.width);
      EXPECT_LE(t.y + plan.tile.height, plan.height);
      EXPECT_GE(t.own_x, t.x);
      EXPECT_GE(t.own_y, t.y);
      EXPECT_LE(t.own_x + t.own_w, t.x + plan.tile.width);
      EXPECT_LE(t.own_y + t.own_h, t.y + plan.tile.height);
    }
  }
}

TEST(Slicing, RowBandsCarryAHaloOfTheRadiusAndTheLastOverlaps) {
  const TilePlan plan = plan_tiles(317, 259, 12, TileSize{317, 40});
  EXPECT_TRUE(plan.row_bands());
  EXPECT_EQ(plan.halo_x, 0);  // the method's own border rule along x
  EXPECT_EQ(plan.halo_y, 12);
  EXPECT_EQ(plan.input_width(), 317);
  EXPECT_EQ(plan.input_height(), 40 + 24);
  ASSERT_EQ(plan.tiles.size(), 7u);  // ceil(259 / 40)
  const Tile& last = plan.tiles.back();
  EXPECT_EQ(last.y, 259 - 40);  // moved back: same height as the others
  EXPECT_EQ(last.own_y, 240);
  EXPECT_EQ(last.own_h, 19);
  // A tile as large as the image needs no halo at all.
  const TilePlan one = plan_tiles(317, 259, 12, TileSize{1000, 1000});
  EXPECT_EQ(one.tiles.size(), 1u);
  EXPECT_EQ(one.halo_x, 0);
  EXPECT_EQ(one.halo_y, 0);
  EXPECT_THROW(plan_tiles(0, 10, 1, TileSize{1, 1}), std::invalid_argument);
  EXPECT_THROW(plan_tiles(10, 10, -1, TileSize{1, 1}), std::invalid_argument);
}

TEST(Slicing, ACoreOnlyPlanGathersAHaloOnEverySideAndCostsItsCore) {
  // A tile spanning the width still gathers a halo along x: the method reads it from memory.
  const TilePlan plan = plan_tiles(317, 259, 12, TileSize{317, 40}, true);
  EXPECT_TRUE(plan.core_only);
  EXPECT_EQ(plan.halo_x, 12);
  EXPECT_EQ(plan.halo_y, 12);
  EXPECT_EQ(plan.input_width(), 317 + 24);
  EXPECT_EQ(plan.computed_pixels_per_tile(), 317LL * 40);
  const TilePlan usual = plan_tiles(317, 259, 12, TileSize{317, 40});
  EXPECT_EQ(usual.halo_x, 0);
  EXPECT_EQ(usual.computed_pixels_per_tile(), 317LL * (40 + 24));
  // At radius 128 the halo would cost many times a small core; core-only tiles are the budget's
  // pixels: bands of 1e6 / 4096 = 244 rows, or squares of 1000² where a band would be too thin.
  EXPECT_EQ(tile_size_for_budget(4096, 4096, 128, 1e-6, 1.0, true).height, 244);
  EXPECT_EQ(tile_size_for_budget(4096, 4096, 128, 1e-6, 1.0, true).width, 4096);
  const TileSize squares = tile_size_for_budget(200000, 4096, 128, 1e-6, 1.0, true);
  EXPECT_EQ(squares.width, 1000);
  EXPECT_EQ(squares.height, 1000);
  // 2e5 computed pixels: bands of 48 rows of the core alone, or with the halo a square of
  // 447 - 2 × 128 = 191² (a third as many useful pixels a tile).
  EXPECT_EQ(tile_size_for_budget(4096, 4096, 128, 1e-5, 2.0, true).height, 48);
  EXPECT_EQ(tile_size_for_budget(4096, 4096, 128, 1e-5, 2.0).width, 191);
}

TEST(Slicing, TheBudgetPrefersBandsAndFallsBackToSquares) {
  // 1e-6 ms a pixel, 2 ms: 2e6 computed pixels a tile. 4096 wide: bands of 488 rows minus the halo
  // (squares of 1366 would hold a little more, but the bands' halo is small).
  const TileSize bands = tile_size_for_budget(4096, 4096, 24, 1e-6, 2.0);
  EXPECT_EQ(bands.width, 4096);
  EXPECT_EQ(bands.height, 488 - 48);
  // A halo of 128 leaves no band within the budget at 1e-5 ms a pixel: squares of sqrt(2e5) - 256.
  const TileSize squares = tile_size_for_budget(4096, 4096, 128, 1e-5, 2.0);
  EXPECT_EQ(squares.width, 447 - 256);
  EXPECT_EQ(squares.height, squares.width);
  // Nothing fits a core of 8 (1.8e-5 ms a pixel, 1 ms: 55.6e3 computed pixels, a square of 235 with
  // a halo of 2 x 128): the largest square within two budgets, sqrt(111.1e3) - 256 = 77.
  const TileSize capped = tile_size_for_budget(4096, 4096, 128, 1.8e-5, 1.0);
  EXPECT_EQ(capped.width, 77);
  EXPECT_EQ(capped.height, 77);
  // Even that leaves no core: the smallest fallback square.
  const TileSize fallback = tile_size_for_budget(4096, 4096, 128, 1e-3, 2.0);
  EXPECT_EQ(fallback.width, kFallbackCore);
  EXPECT_EQ(fallback.height, kFallbackCore);
  // Within the budget: the whole picture.
  const TileSize whole = tile_size_for_budget(512, 512, 8, 1e-6, 2.0);
  EXPECT_EQ(whole.width, 512);
  EXPECT_EQ(whole.height, 512);
}

TEST(Slicing, AFastMethodIsNeverSlicedASlowOneIsAnUnmeasuredOneIsProbed) {
  CostModel model;
  EXPECT_EQ(window_cost("naive_2d", 3), 49.0);
  EXPECT_EQ(window_cost("separable_shared", 3), 7.0);
  // Never measured: a probe tile, one per frame.
  RunChoice probe = choose_run(model, "naive_2d", true, 4096, 4096, 24, 2.0);
  EXPECT_EQ(probe.shape, RunShape::Probe);
  EXPECT_EQ(probe.tile.width, kProbeCore);
  // Not band-exact: whole, measured or not.
  EXPECT_EQ(choose_run(model, "fft", false, 4096, 4096, 24, 2.0).shape, RunShape::Whole);
  // A picture no larger than the probe runs whole.
  EXPECT_EQ(choose_run(model, "naive_2d", true, 200, 100, 24, 2.0).shape, RunShape::Whole);

  // separable_shared: 0.5 ms for 4096² at radius 6 (cost 2r+1): fast up to radius 25 or so.
  const double units = 4096.0 * 4096 * window_cost("separable_shared", 6);
  model.learn("separable_shared", 6, units, 0.5);
  EXPECT_TRUE(model.knows("separable_shared"));
  EXPECT_NEAR(*model.predict_ms("separable_shared", units), 0.5, 1e-12);
  for (int radius : {1, 6, 24})
    EXPECT_EQ(choose_run(model, "separable_shared", true, 4096, 4096, radius, 2.0).shape, RunShape::Whole) << radius;

  // naive_2d: 50 ms for 4096² at radius 24: sliced into full-width bands of about 2 ms.
  model.learn("naive_2d", 24, 4096.0 * 4096 * window_cost("naive_2d", 24), 50.0);
  const RunChoice slow = choose_run(model, "naive_2d", true, 4096, 4096, 24, 2.0);
  ASSERT_EQ(slow.shape, RunShape::Sliced);
  EXPECT_EQ(slow.tile.width, 4096);
  const TilePlan plan = plan_tiles(4096, 4096, 24, slow.tile);
  const double tile_ms = *model.predict_ms("naive_2d", plan.computed_pixels_per_tile() * window_cost("naive_2d", 24));
  EXPECT_LE(tile_ms, 2.0 + 1e-9);
  EXPECT_GT(tile_ms, 1.0);  // the budget is used, not wasted on halos
  // Tiles of half the budget (two slots slicing share a frame's budget a tile each): the decision
  // whole-or-sliced is the budget's, the tile is half as long.
  const RunChoice half = choose_run(model, "naive_2d", true, 4096, 4096, 24, 2.0, true, 1.0);
  ASSERT_EQ(half.shape, RunShape::Sliced);
  const double half_ms = *model.predict_ms(
      "naive_2d", plan_tiles(4096, 4096, 24, half.tile).computed_pixels_per_tile() * window_cost("naive_2d", 24));
  EXPECT_LE(half_ms, 1.0 + 1e-9);
  EXPECT_GT(half_ms, 0.5);
  EXPECT_LT(half.tile.height, slow.tile.height);
  // A run predicted at 1.5 ms stays whole with a 2 ms budget whatever the tile budget.
  model.learn("separable_shared", 40, 4096.0 * 4096 * window_cost("separable_shared", 40), 1.5);
  EXPECT_EQ(choose_run(model, "separable_shared", true, 4096, 4096, 40, 2.0, true, 1.0).shape, RunShape::Whole);
  // At radius 3 the same method is fast: whole.
  EXPECT_EQ(choose_run(model, "naive_2d", true, 4096, 4096, 3, 2.0).shape, RunShape::Whole);
  // At a radius never timed the prediction is an extrapolation: above a quarter of the budget the
  // run is probed first (radius 12: ~13 ms predicted), below it runs whole (radius 1: ~0.2 ms).
  EXPECT_TRUE(model.timed_at("naive_2d", 24));
  EXPECT_FALSE(model.timed_at("naive_2d", 12));
  EXPECT_EQ(choose_run(model, "naive_2d", true, 4096, 4096, 12, 2.0, false).shape, RunShape::Probe);
  EXPECT_EQ(choose_run(model, "naive_2d", true, 4096, 4096, 1, 2.0, false).shape, RunShape::Whole);
  EXPECT_EQ(choose_run(model, "naive_2d", true, 4096, 4096, 12, 2.0, true).shape, RunShape::Sliced);

  EXPECT_EQ(tiles_this_frame(std::nullopt, 10, 2.0), 1);
  EXPECT_EQ(tiles_this_frame(0.5, 10, 2.0), 4);
  EXPECT_EQ(tiles_this_frame(0.5, 3, 2.0), 3);
  EXPECT_EQ(tiles_this_frame(5.0, 10, 2.0), 1);  // at least one
  EXPECT_EQ(tiles_this_frame(1.0, 0, 2.0), 0);
}

TEST(Slicing, TwoTileSizesGiveTheFixedCostAndTheRate) {
  CostModel model;
  // One size: all but kLaunchMs is the rate.
  model.learn("m", 8, 1e6, 0.3);
  EXPECT_NEAR(model.fit("m")->fixed_ms, CostModel::kLaunchMs, 1e-12);
  EXPECT_NEAR(model.fit("m")->rate, 0.28e-6, 1e-15);
  // Another size per launch at the same radius: 0.2 ms a launch, 1e-7 ms a unit.
  model.learn("m", 8, 4e6, 0.6);
  EXPECT_NEAR(model.fit("m")->fixed_ms, 0.2, 1e-9);
  EXPECT_NEAR(model.fit("m")->rate, 1e-7, 1e-15);
  EXPECT_NEAR(*model.predict_ms("m", 8e6), 1.0, 1e-9);
  EXPECT_NEAR(*model.predict_ms("m", 8e6, 3), 1.4, 1e-9);
  // A step of three tiles of the first size is fitted with the latest sample of another size.
  model.learn("m", 8, 3e6, 0.9, 3);
  EXPECT_NEAR(model.fit("m")->fixed_ms, 0.2, 1e-9);
  EXPECT_NEAR(model.fit("m")->rate, 1e-7, 1e-15);
  // Another radius is not fitted with these (its window cost is only roughly its work).
  model.learn("m", 20, 2e7, 2.0);
  EXPECT_NEAR(model.fit("m")->fixed_ms, CostModel::kLaunchMs, 1e-12);
  // A fit that makes no sense (a negative rate) keeps the one-size reading.
  CostModel odd;
  odd.learn("m", 8, 1e6, 0.5);
  odd.learn("m", 8, 4e6, 0.4);
  EXPECT_NEAR(odd.fit("m")->fixed_ms, CostModel::kLaunchMs, 1e-12);
  EXPECT_NEAR(odd.fit("m")->rate, 0.38 / 4e6, 1e-15);

  // The plan: with the fixed cost known the tiles are larger than a one-size reading of the small
  // probe would make them (a 256² probe of a separable method: 0.25 ms, 0.2 of it fixed).
  CostModel probe_only, fitted;
  const double probe_units = 256.0 * 256 * window_cost("separable_texture", 32);
  probe_only.learn("separable_texture", 32, probe_units, 0.25);
  fitted.learn("separable_texture", 32, probe_units, 0.25);
  fitted.learn("separable_texture", 32, 4 * probe_units, 0.4);  // 0.2 + 4 × 0.05
  const RunChoice small = choose_run(probe_only, "separable_texture", true, 4096, 4096, 32, 2.0, true, 1.0);
  const RunChoice large = choose_run(fitted, "separable_texture", true, 4096, 4096, 32, 2.0, true, 1.0);
  ASSERT_EQ(small.shape, RunShape::Sliced);
  ASSERT_EQ(large.shape, RunShape::Sliced);  // 0.2 + 256 × 0.05 = 13 ms whole
  // 81 squares of 464 against 22 full-width bands of 191 rows.
  const std::size_t small_tiles = plan_tiles(4096, 4096, 32, small.tile).tiles.size();
  const std::size_t large_tiles = plan_tiles(4096, 4096, 32, large.tile).tiles.size();
  EXPECT_EQ(small_tiles, 81u);
  EXPECT_EQ(large_tiles, 22u);
}

TEST(Slicing, TilesWaitAFrameForWholeRunsThatFillItButNeverTwice) {
  // A frame with no whole run always takes its tiles, however long.
  EXPECT_FALSE(tiles_wait_for_whole_runs(0.0, 3.9, 2.0, 4.0, false));
  // A cheap whole run beside a tile within the limit: the tile goes.
  EXPECT_FALSE(tiles_wait_for_whole_runs(0.3, 1.95, 2.0, 4.0, false));
  // recursive's 1.6 ms beside shared_2d's 3.9 ms tile: the tile waits a frame, not two.
  EXPECT_TRUE(tiles_wait_for_whole_runs(1.6, 3.9, 2.0, 4.0, false));
  EXPECT_FALSE(tiles_wait_for_whole_runs(1.6, 3.9, 2.0, 4.0, true));
  // An unknown tile time counts as the budget.
  EXPECT_FALSE(tiles_wait_for_whole_runs(1.9, std::nullopt, 2.0, 4.0, false));
  EXPECT_TRUE(tiles_wait_for_whole_runs(2.1, std::nullopt, 2.0, 4.0, false));
}

TEST(Slicing, ASettingChangeDropsTheRun) {
  SliceSchedule schedule;
  SlotSetting a;
  a.method = 0;
  a.params.sigma = 6;
  schedule.start(a, 17, 1, false, true, 42);
  schedule.advance(7);
  EXPECT_EQ(schedule.progress("naive_2d"), "naive_2d: band 7 of 17");
  EXPECT_FALSE(schedule.drop_if_changed(a));
  EXPECT_TRUE(schedule.active());
  SlotSetting b = a;
  b.params.sigma = 8;
  EXPECT_TRUE(schedule.drop_if_changed(b));
  EXPECT_FALSE(schedule.active());
  EXPECT_EQ(schedule.progress("naive_2d"), "");
  schedule.start(b, 5, 1, false, false, 43);
  EXPECT_EQ(schedule.next(), 0);  // from the first tile again
  schedule.advance(9);
  EXPECT_TRUE(schedule.all_enqueued());
  EXPECT_EQ(schedule.remaining(), 0);
}

TEST(Slicing, ALongWindowGoesInStepsOfWholeBands) {
  // shared_2d at radius 128 (257 taps, 9 bands of 29 kernel rows): 7453 taps per output a band, two
  // bands a step (5 steps); naive_2d there (16 bands of 17 rows): three.
  EXPECT_EQ(bands_per_step(9, 29, 257), 2);
  EXPECT_EQ(bands_per_step(16, 17, 257), 3);
  for (const auto& [bands, rows, taps] : {std::tuple{9, 29, 257}, {16, 17, 257}, {5, 26, 129}, {40, 51, 2001}}) {
    const int per_step = bands_per_step(bands, rows, taps);
    EXPECT_LE(static_cast<long long>(per_step) * rows * taps, std::max(kStepTapsPerOutput, 1LL * rows * taps));
    EXPECT_GT(static_cast<long long>(per_step + 1) * rows * taps, kStepTapsPerOutput);
  }
  // A short window is one step; a band longer than a step's taps is still a whole step.
  EXPECT_EQ(bands_per_step(3, 22, 65), 3);
  EXPECT_EQ(bands_per_step(1, 1, 1), 1);
  EXPECT_EQ(bands_per_step(40, 51, 2001), 1);
  EXPECT_THROW(bands_per_step(0, 1, 1), std::invalid_argument);
  EXPECT_THROW(bands_per_step(1, 0, 1), std::invalid_argument);
}

TEST(Slicing, TheProgressNamesTheTileAndItsPart) {
  SliceSchedule schedule;
  SlotSetting a;
  a.method = 0;
  schedule.start(a, 20, 5, false, false, 7);  // 4 tiles of 5 steps
  EXPECT_EQ(schedule.remaining(), 20);
  schedule.advance(7);
  EXPECT_EQ(schedule.progress("shared_2d"), "shared_2d: tile 2 of 4, part 2 of 5");
  schedule.advance(13);
  EXPECT_EQ(schedule.progress("shared_2d"), "shared_2d: tile 4 of 4, part 5 of 5");
  EXPECT_TRUE(schedule.all_enqueued());
}

TEST(Slicing, TheGatherTakesPixelsByTheBorderRule) {
  int sx = 0, sy = 0;
  // Wrap: row -1 is the last row, column width is column 0.
  EXPECT_TRUE(border_gather_source(0, 0, 10, -1, 10, 5, BorderMode::Wrap, &sx, &sy));
  EXPECT_EQ(sx, 0);
  EXPECT_EQ(sy, 4);
  // Reflect: -1 -> 0, -2 -> 1; mirror: -1 -> 1.
  EXPECT_TRUE(border_gather_source(0, 1, -2, -2, 10, 5, BorderMode::Reflect, &sx, &sy));
  EXPECT_EQ(sx, 1);
  EXPECT_EQ(sy, 0);
  EXPECT_TRUE(border_gather_source(0, 0, -1, 6, 10, 5, BorderMode::Mirror, &sx, &sy));
  EXPECT_EQ(sx, 1);
  EXPECT_EQ(sy, 2);
  // Constant: zero outside, the pixel inside.
  EXPECT_FALSE(border_gather_source(0, 0, -1, 0, 10, 5, BorderMode::Constant, &sx, &sy));
  EXPECT_TRUE(border_gather_source(3, 2, 0, 0, 10, 5, BorderMode::Constant, &sx, &sy));
  EXPECT_EQ(sx, 3);
  EXPECT_EQ(sy, 2);
  // A halo far larger than the image (nearest clamps).
  EXPECT_TRUE(border_gather_source(0, 0, -100, 100, 10, 5, BorderMode::Nearest, &sx, &sy));
  EXPECT_EQ(sx, 0);
  EXPECT_EQ(sy, 4);
}

}  // namespace
}  // namespace gausslab
