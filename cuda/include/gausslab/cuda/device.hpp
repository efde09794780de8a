#pragma once
// Whether this machine has a usable CUDA device, asked once.
#include <cstddef>
#include <string>

namespace gausslab {

struct CudaDeviceStatus {
  bool available = false;
  std::string reason;  // why not, when not available: "no CUDA device (cudaErrorNoDevice: ...)"
  int device = 0;
  std::string name;    // "NVIDIA H100 80GB HBM3"
  int compute_major = 0, compute_minor = 0;
  int multiprocessors = 0;
  std::size_t global_memory_bytes = 0;
  std::size_t shared_memory_per_block_optin = 0;
  std::size_t l2_cache_bytes = 0;
  double peak_bandwidth_gbs = 0.0;  // from memory clock and bus width (a datasheet figure)
  int driver_version = 0, runtime_version = 0;
  std::string driver_string;  // "13.0": the CUDA version the driver supports
  std::string kernel_driver;  // "580.159.04": the NVIDIA kernel module's version; "" where unknown
};

// The NVIDIA kernel module's version from the text of /proc/driver/nvidia/version ("NVRM version:
// NVIDIA UNIX x86_64 Kernel Module  580.159.04  Sun ..."), or "" when the text has none.
std::string kernel_driver_from_proc(const std::string& text);

// The first call queries the runtime (cudaGetDeviceCount etc.); later calls return the same.
// cudaErrorNoDevice and cudaErrorInsufficientDriver give available = false with the reason, and so
// does an injected no-device fault (fault_injection.hpp) while it is in force.
const CudaDeviceStatus& cuda_device_status();

// The refusal of a method whose kernels need the tensor cores' mma.sync of compute capability 8.0
// (tf32, u8 and m16n8k16 f16 products): "" where the device has them, or where there is no device
// (the base class refuses that on its own); otherwise "<method> needs <what> (compute capability 8.0
// or later); <device> is 7.5: use separable_fused". compute_capability_refusal decides from a given
// status (tested without a device), tensor_core_refusal from this machine's.
std::string compute_capability_refusal(const CudaDeviceStatus& status, const std::string& method,
                                       const std::string& what);
std::string tensor_core_refusal(const std::string& method, const std::string& what);

// "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs, 79.2 GiB, driver 580.159.04, CUDA driver 13.0, runtime 13.0)"
// or the reason there is none.
std::string describe(const CudaDeviceStatus& status);

}  // namespace gausslab
