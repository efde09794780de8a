// The numbers worker's tiled float planes (app/comparison/numbers_tiles.hpp) against whole runs: every
// band-exact GPU method, on an odd-sized float plane, for all five borders, in tiles larger and
// smaller than their halo, must give the whole run's values exactly.
#include <gtest/gtest.h>

#include <atomic>
#include <random>
#include <vector>

#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/device_buffer.hpp"
#include "gausslab/cuda/registry.hpp"
#include "gausslab/render/sliced_run.hpp"
#include "gpu_test_support.hpp"
#include "comparison/numbers_tiles.hpp"

namespace gausslab::gpu_test {
namespace {

class NumbersTilesGpu : public GpuTest {};

std::vector<float> download(const DeviceImage& d_image) {
  std::vector<float> values(static_cast<std::size_t>(d_image.width()) * d_image.height());
  GAUSSLAB_CUDA_CHECK(cudaDeviceSynchronize());
  d_image.download(ImageView{values.data(), d_image.width(), d_image.height(),
                             sizeof(float) * static_cast<std::size_t>(d_image.width()), PixelFormat::F32});
  GAUSSLAB_CUDA_CHECK(cudaDeviceSynchronize());
  return values;
}

TEST_F(NumbersTilesGpu, TiledPlanesEqualTheWholeRunForEveryBandExactMethodAndBorder) {
  constexpr int kWidth = 301, kHeight = 187;
  std::vector<float> plane(static_cast<std::size_t>(kWidth) * kHeight);
  std::mt19937 random(16);
  for (float& v : plane) v = static_cast<float>(random() % 256);
  const ConstImageView host{plane.data(), kWidth, kHeight, sizeof(float) * kWidth, PixelFormat::F32};
  DeviceImage d_plane(kWidth, kHeight, PixelFormat::F32);
  d_plane.upload(host);
  DeviceImage d_whole(kWidth, kHeight, PixelFormat::F32), d_tiled(kWidth, kHeight, PixelFormat::F32);
  SlicedRun run;
  const std::atomic<bool> never{false};
  const int compared = for_each_band_exact_case(d_plane.view(), d_whole.view(), [&](const MethodEntry& entry,
                                                                                  const FilterParams& params) {
    const std::vector<float> expected = download(d_whole);
    for (int core : {64, 45, 20}) {  // sigma 8: radius 32, so 20 is smaller than its halo
      std::unique_ptr<Method> tiled = entry.create();
      ASSERT_TRUE(run_plane_in_tiles(*tiled, params, d_plane.view(), d_tiled.view(), core, nullptr, run, never));
      const std::vector<float> got = download(d_tiled);
      std::size_t first_difference = got.size();
      for (std::size_t i = 0; i < got.size() && first_difference == got.size(); ++i)
        if (got[i] != expected[i]) first_difference = i;
      EXPECT_EQ(first_difference, got.size())
          << entry.info.id << " " << to_string(params.border) << " sigma " << params.sigma << " tiles of " << core
          << ": first difference at x " << first_difference % kWidth << ", y " << first_difference / kWidth;
    }
  });
  EXPECT_GT(compared, 0);
}

}  // namespace
}  // namespace gausslab::gpu_test
