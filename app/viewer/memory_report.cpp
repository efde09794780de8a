#include "viewer/memory_report.hpp"

#include <cuda_runtime.h>

#include <fstream>
#include <sstream>
#include <string>

#include "gausslab/cuda/device.hpp"

namespace gausslab {

std::optional<long long> device_used_bytes() {
  if (!cuda_device_status().available) return std::nullopt;
  std::size_t free_bytes = 0, total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) {
    cudaGetLastError();
    return std::nullopt;
  }
  return static_cast<long long>(total_bytes - free_bytes);
}

long long host_rss_bytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) != 0) continue;
    std::istringstream words(line.substr(6));
    long long kib = 0;
    words >> kib;
    return kib * 1024;
  }
  return 0;
}

}  // namespace gausslab
