#include "gausslab/cuda/device.hpp"

#include <cuda_runtime.h>

#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>

#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/fault_injection.hpp"

namespace gausslab {

namespace {

std::string version_string(int version) {
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

CudaDeviceStatus query() {
  CudaDeviceStatus status;
  int count = 0;
  const cudaError_t code = cudaGetDeviceCount(&count);
  if (code != cudaSuccess || count == 0) {
    status.reason = std::string("no CUDA device (") + cudaGetErrorName(code) + ": " + cudaGetErrorString(code) +
                    "); the GPU methods are off and the CPU methods run instead";
    if (code == cudaSuccess) status.reason = "no CUDA device found; the GPU methods are off";
    cudaGetLastError();  // clear the sticky error so later calls start clean
    return status;
  }
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess || cudaSetDevice(0) != cudaSuccess) {
    status.reason = "the CUDA device could not be opened";
    cudaGetLastError();
    return status;
  }
  status.available = true;
  status.device = 0;
  status.name = prop.name;
  status.compute_major = prop.major;
  status.compute_minor = prop.minor;
  status.multiprocessors = prop.multiProcessorCount;
  status.global_memory_bytes = prop.totalGlobalMem;
  status.shared_memory_per_block_optin = prop.sharedMemPerBlockOptin;
  status.l2_cache_bytes = static_cast<std::size_t>(prop.l2CacheSize);
  int memory_clock_khz = 0, bus_width_bits = 0;
  cudaDeviceGetAttribute(&memory_clock_khz, cudaDevAttrMemoryClockRate, 0);
  cudaDeviceGetAttribute(&bus_width_bits, cudaDevAttrGlobalMemoryBusWidth, 0);
  status.peak_bandwidth_gbs = 2.0 * memory_clock_khz * 1e3 * (bus_width_bits / 8.0) / 1e9;
  cudaDriverGetVersion(&status.driver_version);
  cudaRuntimeGetVersion(&status.runtime_version);
  status.driver_string = version_string(status.driver_version);
  std::ifstream proc("/proc/driver/nvidia/version");
  std::stringstream text;
  text << proc.rdbuf();
  status.kernel_driver = kernel_driver_from_proc(text.str());
  return status;
}

}  // namespace

std::string kernel_driver_from_proc(const std::string& text) {
  static const std::regex version(R"(Kernel Module(?: for [^ ]+)?\s+([0-9]+(?:\.[0-9]+)+))");
  std::smatch match;
  return std::regex_search(text, match, version) ? match[1].str() : std::string();
}

const CudaDeviceStatus& cuda_device_status() {
  if (injected_fault() == InjectedFault::NoDevice) {
    static const CudaDeviceStatus forced = [] {
      CudaDeviceStatus status;
      status.reason = "no CUDA device (injected by GAUSSLAB_INJECT_FAULT=no-device); the GPU methods are off and "
                      "the CPU methods run instead";
      return status;
    }();
    return forced;
  }
  static const CudaDeviceStatus status = query();
  return status;
}

std::string compute_capability_refusal(const CudaDeviceStatus& status, const std::string& method,
                                       const std::string& what) {
  if (!status.available || status.compute_major >= 8) return {};
  return method + " needs " + what + " (compute capability 8.0 or later); " + status.name + " is " +
         std::to_string(status.compute_major) + "." + std::to_string(status.compute_minor) + ": use separable_fused";
}

std::string tensor_core_refusal(const std::string& method, const std::string& what) {
  return compute_capability_refusal(cuda_device_status(), method, what);
}

std::string describe(const CudaDeviceStatus& status) {
  if (!status.available) return status.reason;
  const std::string kernel = status.kernel_driver.empty() ? "" : "driver " + status.kernel_driver + ", ";
  char text[320];
  std::snprintf(text, sizeof text, "%s (sm_%d%d, %d SMs, %.1f GiB, %sCUDA driver %s, runtime %s)",
                status.name.c_str(), status.compute_major, status.compute_minor, status.multiprocessors,
                status.global_memory_bytes / double(1 << 30), kernel.c_str(), status.driver_string.c_str(),
                version_string(status.runtime_version).c_str());
  return text;
}

}  // namespace gausslab
