// copy_rows_through_pinned (cuda/staged_copy.hpp): pitched rows up to the device and back in pieces
// smaller than the image, a piece not dividing the rows, a row larger than a piece; the bytes
// between rows of the destination stay as they were.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <vector>

#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/device_buffer.hpp"
#include "gausslab/cuda/staged_copy.hpp"
#include "gpu_test_support.hpp"

namespace gausslab::gpu_test {
namespace {

class StagedCopyGpu : public GpuTest {};

TEST_F(StagedCopyGpu, RowsGoUpAndComeBackExactlyInPiecesOfAnySize) {
  constexpr std::size_t kRowBytes = 1003, kHostPitch = 1010, kDevicePitch = 1024, kBackPitch = 1017;
  constexpr int kRows = 77;
  std::vector<std::uint8_t> host(kHostPitch * kRows);
  std::mt19937 random(7);
  for (std::uint8_t& b : host) b = static_cast<std::uint8_t>(random());
  DeviceBuffer device(kDevicePitch * kRows);
  PinnedBuffer staging;
  // pieces of 3 rows (77 = 25 x 3 + 2), of one row each (a piece smaller than a row), of the whole
  for (const std::size_t piece : {3 * kRowBytes + 5, std::size_t{100}, std::size_t{1} << 24}) {
    SCOPED_TRACE(piece);
    GAUSSLAB_CUDA_CHECK(cudaMemsetAsync(device.data(), 0, kDevicePitch * kRows, stream()));
    copy_rows_through_pinned(RowCopy{host.data(), kHostPitch, device.data(), kDevicePitch, kRowBytes, kRows},
                             cudaMemcpyHostToDevice, staging, stream(), piece);
    std::vector<std::uint8_t> back(kBackPitch * kRows, 0xA5);
    int pauses = 0;  // the worker's wait for the next frame, between pieces only
    copy_rows_through_pinned(RowCopy{device.data(), kDevicePitch, back.data(), kBackPitch, kRowBytes, kRows},
                             cudaMemcpyDeviceToHost, staging, stream(), piece, [&] { ++pauses; });
    const int rows_per_piece = static_cast<int>(std::max<std::size_t>(piece / kRowBytes, 1));
    EXPECT_EQ(pauses, (kRows + rows_per_piece - 1) / rows_per_piece - 1);
    for (int y = 0; y < kRows; ++y) {
      for (std::size_t x = 0; x < kRowBytes; ++x)
        ASSERT_EQ(back[y * kBackPitch + x], host[y * kHostPitch + x]) << "row " << y << " byte " << x;
      for (std::size_t x = kRowBytes; x < kBackPitch; ++x) ASSERT_EQ(back[y * kBackPitch + x], 0xA5) << "row " << y;
    }
  }
}

// No device needed: the arguments are checked before any CUDA call.
TEST(StagedCopy, RefusesOtherKindsAndPitchesShorterThanARow) {
  PinnedBuffer staging;
  std::vector<std::uint8_t> a(64), b(64);
  EXPECT_THROW(copy_rows_through_pinned(RowCopy{a.data(), 16, b.data(), 16, 16, 4}, cudaMemcpyHostToHost, staging, nullptr),
               std::invalid_argument);
  EXPECT_THROW(copy_rows_through_pinned(RowCopy{a.data(), 8, b.data(), 16, 16, 4}, cudaMemcpyHostToDevice, staging, nullptr),
               std::invalid_argument);
  EXPECT_NO_THROW(copy_rows_through_pinned(RowCopy{a.data(), 16, b.data(), 16, 16, 0}, cudaMemcpyHostToDevice, staging,
                                           nullptr));  // nothing to copy
}

}  // namespace
}  // namespace gausslab::gpu_test
