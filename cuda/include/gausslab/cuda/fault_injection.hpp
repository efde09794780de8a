#pragma once
// A switch that makes the CUDA helpers fail on purpose, so that tests (and a user on the command
// line) can see what a method, the viewer and the batch filter do when the GPU fails:
//   out-of-memory   every device allocation through DeviceBuffer, DeviceImage and the methods'
//                   scratch fails as if the device were full (CudaOutOfMemory);
//   launch-failure  every launch check reports that its kernel did not launch (CudaError);
//   no-device       cuda_device_status() reports no usable device, so every GPU method is
//                   unavailable with that reason and prepare() throws CudaUnavailable.
// Set for a whole process with GAUSSLAB_INJECT_FAULT=out-of-memory (read once, at the first
// question), or in a test with ScopedFaultInjection. No injected fault leaves a sticky error.
#include <optional>
#include <string_view>

namespace gausslab {

enum class InjectedFault : int { None, OutOfMemory, LaunchFailure, NoDevice };

// "none", "out-of-memory", "launch-failure", "no-device".
const char* to_string(InjectedFault fault);
std::optional<InjectedFault> injected_fault_from_string(std::string_view name);

// The fault in force: a ScopedFaultInjection's, else GAUSSLAB_INJECT_FAULT's (an unknown value
// there is reported on stderr once and ignored).
InjectedFault injected_fault();

// Injects `fault` until destroyed (the previous setting comes back). Not for concurrent tests.
class ScopedFaultInjection {
 public:
  explicit ScopedFaultInjection(InjectedFault fault);
  ~ScopedFaultInjection();
  ScopedFaultInjection(const ScopedFaultInjection&) = delete;
  ScopedFaultInjection& operator=(const ScopedFaultInjection&) = delete;

 private:
  std::optional<InjectedFault> previous_;
};

}  // namespace gausslab
