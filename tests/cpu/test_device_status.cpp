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

// The tensor-core methods' refusal before compute capability 8.0, decided from the status alone.
TEST(DeviceStatus, TensorCoreMethodsRefuseDevicesBeforeComputeCapability8) {
  CudaDeviceStatus turing;
  turing.available = true;
  turing.name = "Tesla T4";
  turing.compute_major = 7;
  turing.compute_minor = 5;
  EXPECT_EQ(compute_capability_refusal(turing, "separable_tf32", "the tensor cores' tf32 mma"),
            "separable_tf32 needs the tensor cores' tf32 mma (compute capability 8.0 or later); Tesla T4 is 7.5: "
            "use separable_fused");

  CudaDeviceStatus ampere = turing;
  ampere.compute_major = 8;
  ampere.compute_minor = 0;
  EXPECT_EQ(compute_capability_refusal(ampere, "separable_int8", "the tensor cores' integer mma"), "");
  ampere.compute_major = 9;
  EXPECT_EQ(compute_capability_refusal(ampere, "separable_int8", "the tensor cores' integer mma"), "");

  CudaDeviceStatus none;  // no device: the base class gives its own reason
  none.reason = "no CUDA device";
  EXPECT_EQ(compute_capability_refusal(none, "separable_mma", "the tensor cores' mma.m16n8k16"), "");
}

}  // namespace
}  // namespace gausslab
