// The numbers worker's tiling decisions and its tiles' border rule (app/comparison/numbers_tiles.hpp);
// tests/gpu NumbersTilesGpu checks that tiled planes equal whole runs.
#include <gtest/gtest.h>

#include <vector>

#include "gausslab/core/border.hpp"
#include "gausslab/cuda/border_gather.hpp"
#include "gausslab/cuda/registry.hpp"
#include "comparison/numbers_tiles.hpp"

namespace gausslab {
namespace {

MethodInfo info_of(const std::string& id) {
  for (const MethodEntry& entry : method_registry())
    if (entry.info.id == id) return entry.info;
  ADD_FAILURE() << id << " is not registered";
  return {};
}

TEST(NumbersTiles, OnlySlowWindowMethodsAreTiled) {
  // shared_2d at radius 128 on 4096²: 1.1e12 units, tiled; it computes a tile's core alone, so the
  // core's work is about its tile's units, 4 × kNumbersTileUnits (246² × 257²), however large the halo.
  ASSERT_TRUE(info_of("shared_2d").computes_core_from_halo);
  EXPECT_EQ(numbers_tile_units(info_of("shared_2d")), 4 * kNumbersTileUnits);
  EXPECT_EQ(numbers_tile_core(info_of("shared_2d"), 4096, 4096, 128), 246);
  // naive_2d at radius 24: tiled, with cores whose work is about kNumbersTileUnits.
  const int naive = numbers_tile_core(info_of("naive_2d"), 4096, 4096, 24);
  ASSERT_GT(naive, 0);
  const double taps = 49.0 * 49.0;
  EXPECT_LE(naive * static_cast<double>(naive) * taps, kNumbersTileUnits);
  EXPECT_GT((naive + 1.0) * (naive + 1.0) * taps, kNumbersTileUnits);
  // Cheap enough to run whole: a separable method at radius 24, a 2D one at radius 3, small pictures;
  // a separable one at radius 64 (2.2e9 units) goes in a few tiles.
  EXPECT_EQ(numbers_tile_core(info_of("separable_shared"), 4096, 4096, 24), 0);
  EXPECT_GT(numbers_tile_core(info_of("separable_shared"), 4096, 4096, 64), 1024);
  EXPECT_EQ(numbers_tile_core(info_of("shared_2d"), 4096, 4096, 3), 0);
  EXPECT_EQ(numbers_tile_core(info_of("shared_2d"), 100, 80, 128), 0);
  // Not a window method (its tiles would not equal its whole run) or not a GPU method: never.
  EXPECT_EQ(numbers_tile_core(info_of("fft"), 4096, 4096, 128), 0);
  EXPECT_EQ(numbers_tile_core(info_of("cpu_separable"), 8192, 8192, 128), 0);
}

// A tile's input is gathered from the device plane by border_gather_source's rule (the kernel's
// per-thread code, run here on the CPU): a window reaching past every side of the plane, by more
// than the plane's size, takes the values the border rule names ('constant': zeros).
TEST(NumbersTiles, TheGatheredWindowFollowsTheBorderRuleOnEverySide) {
  constexpr int kWidth = 7, kHeight = 5, kRadius = 9;  // a halo larger than the plane
  std::vector<float> plane(kWidth * kHeight);
  for (std::size_t i = 0; i < plane.size(); ++i) plane[i] = static_cast<float>(i + 1);
  const int ext_width = kWidth + 2 * kRadius, ext_height = kHeight + 2 * kRadius;
  for (BorderMode border : kAllBorderModes) {
    std::vector<float> ext(static_cast<std::size_t>(ext_width) * ext_height);
    for (int j = 0; j < ext_height; ++j)
      for (int i = 0; i < ext_width; ++i) {
        int sx = 0, sy = 0;
        const bool inside = border_gather_source(i, j, -kRadius, -kRadius, kWidth, kHeight, border, &sx, &sy);
        ext[static_cast<std::size_t>(j) * ext_width + i] = inside ? plane[static_cast<std::size_t>(sy) * kWidth + sx] : 0.0f;
      }
    for (int y = 0; y < ext_height; ++y)
      for (int x = 0; x < ext_width; ++x) {
        const int sx = border_index(x - kRadius, kWidth, border), sy = border_index(y - kRadius, kHeight, border);
        const float expected = sx < 0 || sy < 0 ? 0.0f : plane[static_cast<std::size_t>(sy) * kWidth + sx];
        ASSERT_EQ(ext[static_cast<std::size_t>(y) * ext_width + x], expected)
            << to_string(border) << " at (" << x - kRadius << ", " << y - kRadius << ")";
      }
  }
}

}  // namespace
}  // namespace gausslab
