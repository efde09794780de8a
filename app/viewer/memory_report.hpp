#pragma once
// Memory in use, for the soak run (issue 11: device memory and host RSS must stay flat).
#include <optional>

namespace gausslab {

// Device memory in use on the current CUDA device (total - free, cudaMemGetInfo); nullopt without
// a device.
std::optional<long long> device_used_bytes();
// The process's resident set (VmRSS of /proc/self/status), 0 where unknown.
long long host_rss_bytes();

}  // namespace gausslab
