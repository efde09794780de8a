#include "gausslab/cuda/cuda_check.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace gausslab {

namespace {
std::string message(cudaError_t code, const char* expression, const char* file, int line) {
  return std::string(expression) + " failed: " + cudaGetErrorName(code) + " (" + cudaGetErrorString(code) +
         ") at " + file + ":" + std::to_string(line);
}
}  // namespace

void cuda_throw(cudaError_t code, const char* expression, const char* file, int line) {
  throw CudaError(code, message(code, expression, file, line));
}

void cuda_log(cudaError_t code, const char* expression, const char* file, int line) {
  std::fprintf(stderr, "gausslab: %s\n", message(code, expression, file, line).c_str());
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

}  // namespace gausslab
