// The viewer's sliced runs (render/sliced_run.hpp) against whole runs: every band-exact GPU method
// (MethodInfo::same_bytes_in_bands), on an odd-sized picture, for all five borders (wrap included,
// whose halo rows come from the far side), in full-width bands, in square tiles and in tiles
// smaller than their halo, must give the whole run's bytes exactly; so must the tiles of the methods
// that compute a tile's core alone from its gathered halo (HaloReads).
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/device_buffer.hpp"
#include "gausslab/cuda/registry.hpp"
#include "gausslab/render/sliced_run.hpp"
#include "gpu_test_support.hpp"

namespace gausslab::gpu_test {
namespace {

class SlicedRunGpu : public GpuTest {};

ImageRgba8 download(const ConstImageView& d_view) {
  ImageRgba8 image(d_view.width, d_view.height);
  GAUSSLAB_CUDA_CHECK(cudaDeviceSynchronize());
  copy_image_async(d_view, image.view(), cudaMemcpyDeviceToHost, nullptr);
  GAUSSLAB_CUDA_CHECK(cudaDeviceSynchronize());
  return image;
}

TestImage download_any(const ConstImageView& d_view) {
  TestImage image(d_view.width, d_view.height, d_view.format);
  GAUSSLAB_CUDA_CHECK(cudaDeviceSynchronize());
  copy_image_async(d_view, image.view(), cudaMemcpyDeviceToHost, nullptr);
  GAUSSLAB_CUDA_CHECK(cudaDeviceSynchronize());
  return image;
}

TEST_F(SlicedRunGpu, TilesGiveTheWholeRunsBytesForEveryBandExactMethodAndBorder) {
  constexpr int kWidth = 317, kHeight = 259;
  ImageRgba8 picture(kWidth, kHeight);
  std::mt19937 random(15);
  for (int y = 0; y < kHeight; ++y)
    for (int x = 0; x < kWidth; ++x) {
      const unsigned bits = random();
      picture.at(x, y) = Rgba8{static_cast<std::uint8_t>(bits), static_cast<std::uint8_t>(bits >> 8),
                               static_cast<std::uint8_t>(bits >> 16), 255};
    }
  DeviceImage d_picture(kWidth, kHeight, PixelFormat::Rgba8);
  d_picture.upload(picture.view());
  DeviceImage d_whole(kWidth, kHeight, PixelFormat::Rgba8);
  const int compared = for_each_band_exact_case(d_picture.view(), d_whole.view(), [&](const MethodEntry& entry,
                                                                                    const FilterParams& params) {
    const ImageRgba8 expected = download(d_whole.view());
    const int radius = params.radius();
    // Full-width bands, squares, tiles smaller than their halo (sigma 8: radius 32).
    // And, for a method that computes a tile's core alone (HaloReads), the same plans core-only.
    for (bool core_only : {false, true})
    for (TileSize tile : {TileSize{kWidth, 40}, TileSize{50, 37}, TileSize{20, 24}}) {
      if (core_only && !entry.info.computes_core_from_halo) continue;
      std::unique_ptr<Method> banded = entry.create();
      const TilePlan plan = plan_tiles(kWidth, kHeight, radius, tile, core_only);
      const FilterProblem tile_problem{core_only ? plan.tile.width : plan.input_width(),
                                       core_only ? plan.tile.height : plan.input_height(), PixelFormat::Rgba8, params};
      if (!banded->unsupported_reason(tile_problem).empty()) continue;
      SlicedRun run;
      run.start(*banded, plan, params);
      // In two calls, as frames would.
      const int half = run.steps() / 2;
      run.run_steps(d_picture.view(), 0, half, 1, nullptr);
      run.run_steps(d_picture.view(), half, run.steps() - half, 2, nullptr);
      const ImageRgba8 sliced = download(run.result());
      const std::string what = entry.info.id + (core_only ? " core-only" : "") + " border " + to_string(params.border) + " sigma " +
                               std::to_string(params.sigma) + " tile " + std::to_string(plan.tile.width) + "x" +
                               std::to_string(plan.tile.height);
      for (int y = 0; y < kHeight; ++y)
        ASSERT_EQ(std::memcmp(sliced.view().row<Rgba8>(y), expected.view().row<Rgba8>(y), kWidth * sizeof(Rgba8)), 0)
            << what << ": row " << y << " differs";
    }
  });
  EXPECT_GT(compared, 0) << "no band-exact GPU method ran";
}

// At radius 128 (sigma 32) the core-only methods sum each tile's window in steps of some of its bands,
// the running totals kept on the device between them (cuda/window_bands.hpp): the result must still
// be the whole run's bytes, for RGBA8 and the numbers worker's float planes, every border, steps
// enqueued one at a time (as frames do).
TEST_F(SlicedRunGpu, TilesInStepsOfBandsGiveTheWholeRunsBytes) {
  constexpr int kWidth = 97, kHeight = 83;
  int compared = 0;
  for (PixelFormat format : {PixelFormat::Rgba8, PixelFormat::F32}) {
    const TestImage picture = TestImage::random(kWidth, kHeight, format, 41);
    DeviceImage d_picture(kWidth, kHeight, format);
    d_picture.upload(picture.view());
    DeviceImage d_whole(kWidth, kHeight, format);
    for (const char* id : {"naive_2d", "shared_2d"})
      for (BorderMode border : kAllBorderModes) {
        FilterParams params;
        params.sigma = 32;
        params.border = border;
        std::unique_ptr<Method> whole = create_method(id);
        whole->prepare(FilterProblem{kWidth, kHeight, format, params});
        whole->run(d_picture.view(), d_whole.view(), nullptr, nullptr);
        const TestImage expected = download_any(d_whole.view());
        std::unique_ptr<Method> tiles = create_method(id);
        const TilePlan plan = plan_tiles(kWidth, kHeight, params.radius(), TileSize{40, 30}, true);
        SlicedRun run;
        run.start(*tiles, plan, params, format);
        ASSERT_GT(run.steps_per_tile(), 1) << id << ": radius 128 must go in steps";
        for (int k = 0; k < run.steps(); ++k) run.run_steps(d_picture.view(), k, 1, k + 1, nullptr);
        const TestImage sliced = download_any(run.result());
        for (int y = 0; y < kHeight; ++y)
          ASSERT_EQ(std::memcmp(static_cast<const char*>(sliced.view().data) + y * sliced.view().pitch_bytes,
                                static_cast<const char*>(expected.view().data) + y * expected.view().pitch_bytes,
                                kWidth * bytes_per_pixel(format)), 0)
              << id << " " << to_string(format) << " border " << to_string(border) << ", "
              << run.steps_per_tile() << " steps a tile: row " << y << " differs";
        ++compared;
      }
  }
  EXPECT_EQ(compared, 20);
}

}  // namespace
}  // namespace gausslab::gpu_test
