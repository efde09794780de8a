// DeviceImage::fit keeps its allocation while a new size fits in it (a sliced run's tile images on
// a worker: no cudaFree while frames run), and a fitted image holds what is copied into it.
#include <gtest/gtest.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/device_buffer.hpp"
#include "gpu_test_support.hpp"

namespace gausslab::gpu_test {
namespace {

class DeviceImageGpu : public GpuTest {};

TEST_F(DeviceImageGpu, FitKeepsTheAllocationWhileTheImageFits) {
  DeviceImage image;
  image.fit(100, 50, PixelFormat::Rgba8);
  const void* first = image.view().data;
  ASSERT_NE(first, nullptr);
  EXPECT_GE(image.capacity_rows(), 62);
  EXPECT_GE(image.view().pitch_bytes, 500u);  // a quarter more than 400 bytes a row
  // Smaller, a little larger within the room, another format of the same pixel size: kept.
  for (const auto& [w, h] : {std::pair{90, 55}, {125, 62}, {1, 1}}) {
    EXPECT_TRUE(image.fits(w, h, PixelFormat::F32)) << w << "x" << h;
    image.fit(w, h, PixelFormat::F32);
    EXPECT_EQ(image.view().data, first) << w << "x" << h;
    EXPECT_EQ(image.width(), w);
    EXPECT_EQ(image.height(), h);
  }
  // Beyond the room: a new allocation.
  EXPECT_FALSE(image.fits(100, 80, PixelFormat::Rgba8));
  // A row one pixel wider than the pitch (cudaMallocPitch rounds the pitch up, 512 bytes on the H100).
  EXPECT_FALSE(image.fits(static_cast<int>(image.view().pitch_bytes / 4) + 1, 10, PixelFormat::Rgba8));
  EXPECT_FALSE(DeviceImage{}.fits(1, 1, PixelFormat::Rgba8));  // nothing allocated yet
  image.fit(100, 80, PixelFormat::Rgba8);
  EXPECT_GE(image.capacity_rows(), 100);
  EXPECT_EQ(image.height(), 80);
  // resize is exact, as before.
  image.resize(10, 10, PixelFormat::Rgba8);
  EXPECT_EQ(image.capacity_rows(), 10);
}

TEST_F(DeviceImageGpu, AnImageWhoseShapeAlternatesStopsReallocatingAndHandsBackTheOldOne) {
  DeviceImage image;
  EXPECT_TRUE(image.fit(400, 20, PixelFormat::Rgba8).empty());  // nothing to hand back
  const void* wide = image.view().data;
  const DeviceImage outgrown = image.fit(30, 300, PixelFormat::Rgba8);  // taller: a new allocation
  EXPECT_EQ(outgrown.view().data, wide);  // the old one, still allocated
  EXPECT_GE(image.capacity_rows(), 300);
  EXPECT_GE(image.view().pitch_bytes, 1600u);  // the old width kept
  const void* grown = image.view().data;
  for (int round = 0; round < 3; ++round) {  // wide bands and tall squares in turn: nothing new
    EXPECT_TRUE(image.fit(400, 20, PixelFormat::Rgba8).empty());
    EXPECT_TRUE(image.fit(30, 300, PixelFormat::Rgba8).empty());
    EXPECT_EQ(image.view().data, grown);
  }
}

TEST_F(DeviceImageGpu, AFittedImageHoldsItsPixels) {
  DeviceImage image;
  image.fit(64, 40, PixelFormat::Rgba8);
  image.fit(57, 33, PixelFormat::Rgba8);  // inside the first allocation, with its wider pitch
  std::vector<std::uint32_t> host(57 * 33), back(57 * 33, 0);
  for (std::size_t i = 0; i < host.size(); ++i) host[i] = static_cast<std::uint32_t>(i * 2654435761u);
  image.upload(ConstImageView{host.data(), 57, 33, 57 * 4, PixelFormat::Rgba8}, stream());
  image.download(ImageView{back.data(), 57, 33, 57 * 4, PixelFormat::Rgba8}, stream());
  GAUSSLAB_CUDA_CHECK(cudaStreamSynchronize(stream()));
  EXPECT_EQ(back, host);
}

}  // namespace
}  // namespace gausslab::gpu_test
