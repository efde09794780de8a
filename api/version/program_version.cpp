#include "program_version.hpp"

#include <cuda_runtime.h>

#include <cstring>
#include <string>

#include "gausslab/build_id.h"  // GAUSSLAB_BUILD_ID, written at build time (cuda/build_id.cmake)
#include "gausslab/cuda/device.hpp"

namespace gausslab {

namespace {

// 13000 -> "13.0"; 0 -> "none".
std::string cuda_version(int version) {
  if (version <= 0) return "none";
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

}  // namespace

std::string build_id() { return GAUSSLAB_BUILD_ID; }

std::string build_report_text() {
  const std::string id = build_id();
  const std::size_t plus = id.find('+');
  std::string text = "version: " + id.substr(0, plus) + "\n";
  text += "commit: " + (plus == std::string::npos ? std::string("unknown") : id.substr(plus + 1)) + "\n";
  // Both answer without a device: the runtime is the library linked, the driver 0 when there is none.
  int runtime = 0, driver = 0;
  cudaRuntimeGetVersion(&runtime);
  cudaDriverGetVersion(&driver);
  text += "CUDA runtime: " + cuda_version(runtime) + " (built with " + cuda_version(CUDART_VERSION) + ")\n";
  const CudaDeviceStatus& device = cuda_device_status();
  std::string driver_text = cuda_version(driver);
  if (!device.kernel_driver.empty()) driver_text += " (NVIDIA kernel module " + device.kernel_driver + ")";
  text += "CUDA driver: " + driver_text + "\n";
  text += "GPU: " + (device.available ? describe(device) : "none: " + device.reason) + "\n";
  return text;
}

bool version_requested(int argc, const char* const* argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--") == 0) return false;
    if (std::strcmp(argv[i], "--version") == 0) return true;
  }
  return false;
}

std::string version_text(const std::string& program) {
  return program + " (gausslab) " + build_id() + "\n" + build_report_text();
}

}  // namespace gausslab
