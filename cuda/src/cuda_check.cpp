#include "gausslab/cuda/cuda_check.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "gausslab/cuda/device.hpp"
#include "gausslab/cuda/fault_injection.hpp"

namespace gausslab {

namespace {

std::string describe_code(cudaError_t code) {
  return std::string(cudaGetErrorName(code)) + " (" + cudaGetErrorString(code) + ")";
}

std::string message(cudaError_t code, const char* expression, const char* file, int line) {
  return std::string(expression) + " failed: " + describe_code(code) + " at " + file + ":" + std::to_string(line);
}

}  // namespace

void cuda_throw(cudaError_t code, const char* expression, const char* file, int line) {
  const std::string text = message(code, expression, file, line);
  if (code == cudaErrorMemoryAllocation) throw CudaOutOfMemory(text, 0);
  if (is_no_device_error(code)) throw CudaUnavailable(text);
  throw CudaError(code, text);
}

void cuda_log(cudaError_t code, const char* expression, const char* file, int line) {
  std::fprintf(stderr, "gausslab: %s\n", message(code, expression, file, line).c_str());
}

void check_launch(const char* kernel, cudaStream_t stream, const char* file, int line) {
  cudaError_t code = cudaGetLastError();  // also clears a launch error, which is not sticky
  if (code == cudaSuccess && injected_fault() == InjectedFault::LaunchFailure) code = cudaErrorLaunchOutOfResources;
  const std::string where = std::string(" at ") + file + ":" + std::to_string(line);
  if (code != cudaSuccess) {
    const std::string injected =
        injected_fault() == InjectedFault::LaunchFailure ? " (injected by GAUSSLAB_INJECT_FAULT=launch-failure)" : "";
    throw CudaError(code, std::string("kernel ") + kernel + " did not launch: " + describe_code(code) + injected + where);
  }
  if (!cuda_sync_after_launch()) return;
  code = cudaStreamSynchronize(stream);
  if (code != cudaSuccess)
    throw CudaError(code, std::string("kernel ") + kernel + " failed while running: " + describe_code(code) + where);
}

bool cuda_sync_after_launch() {
  static const bool enabled = [] {
    const char* value = std::getenv("GAUSSLAB_CUDA_SYNC");
    return value && std::strcmp(value, "0") != 0;
  }();
  return enabled;
}

bool is_no_device_error(cudaError_t code) {
  return code == cudaErrorNoDevice || code == cudaErrorInsufficientDriver ||
         code == cudaErrorInitializationError || code == cudaErrorSystemDriverMismatch ||
         code == cudaErrorCompatNotSupportedOnDevice || code == cudaErrorDevicesUnavailable;
}

std::string broken_context_reason() {
  if (const CudaDeviceStatus& device = cuda_device_status(); !device.available) return device.reason;
  (void)cudaGetLastError();  // a non-sticky error ends here; a sticky one stays and shows below
  const cudaError_t code = cudaDeviceSynchronize();
  if (code == cudaSuccess) return {};
  return "the CUDA context is unusable (" + describe_code(code) +
         "): every later CUDA call of this process fails; only the CPU methods can run";
}

}  // namespace gausslab
