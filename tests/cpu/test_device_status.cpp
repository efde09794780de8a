// The device description without a device: the NVIDIA kernel module's version as the benchmark and
// the GPU tests record it, read from the text of /proc/driver/nvidia/version.
#include <gtest/gtest.h>

#include "gausslab/cuda/device.hpp"

namespace gausslab {
namespace {

TEST(DeviceStatus, KernelDriverVersionFromProc) {
  EXPECT_EQ(kernel_driver_from_proc("NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  Sun Oct 12 "
                                    "00:00:00 UTC 2025\nGCC version:  gcc version 12.2.0\n"),
            "580.159.04");
  EXPECT_EQ(kernel_driver_from_proc("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.86.15  Release "
                                    "Build\n"),
            "570.86.15");
}

TEST(DeviceStatus, NoKernelDriverVersionIsEmptyNotInvented) {
  EXPECT_EQ(kernel_driver_from_proc(""), "");
  EXPECT_EQ(kernel_driver_from_proc("GCC version:  gcc version 12.2.0\n"), "");
}

TEST(DeviceStatus, WithoutADeviceTheDescriptionIsTheReason) {
  const CudaDeviceStatus& status = cuda_device_status();
  if (status.available) GTEST_SKIP() << "a CUDA device is present: " << describe(status);
  EXPECT_FALSE(status.reason.empty());
  EXPECT_EQ(describe(status), status.reason);
}

}  // namespace
}  // namespace gausslab
